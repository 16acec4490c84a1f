# args: {"items": ["a", "b"]}
import sys


def log(*parts):
    print("[tool]", *parts, file=sys.stdout)


def sys_stdout_logging(items: list[str]) -> dict:
    """Log through sys.stdout, and read interpreter constants from sys."""
    log("start", len(items))
    sys.stdout.write("raw line\n")
    sys.stdout.writelines(["x\n", "y\n"])
    sys.stdout.flush()
    return {
        "py3": sys.version_info.major == 3,
        "maxsize": sys.maxsize == 2**63 - 1,
        "byteorder": sys.byteorder,
        "isatty": sys.stdout.isatty(),
        "epsilon": sys.float_info.epsilon,
        "sizeof_positive": sys.getsizeof([]) > 0,
    }
