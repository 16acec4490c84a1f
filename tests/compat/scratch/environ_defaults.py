# args: {}
import os


def environ_defaults() -> dict:
    """Configuration read from the environment with defaults, as tools often do."""
    region = os.environ.get("TOOLPEN_COMPAT_REGION", "eu-west-1")
    debug = os.getenv("TOOLPEN_COMPAT_DEBUG", "false").lower() == "true"
    os.environ["TOOLPEN_COMPAT_SET"] = "1"
    seen = os.environ["TOOLPEN_COMPAT_SET"]
    del os.environ["TOOLPEN_COMPAT_SET"]
    try:
        os.environ["TOOLPEN_COMPAT_MISSING"]
    except KeyError as error:
        missing = repr(error)
    return {
        "region": region,
        "debug": debug,
        "seen": seen,
        "missing": missing,
        "gone": "TOOLPEN_COMPAT_SET" in os.environ,
        "expanded": os.path.expandvars("$TOOLPEN_COMPAT_NONE/x"),
    }
