# refused: import of module "sys" is not allowed
import sys


def sys_stderr_print() -> str:
    """Log to stderr."""
    print("debug", file=sys.stderr)
    return "ok"
