# args: {}
RATES = {"standard": 1.0, "express": 1.5}
DEFAULT_RATE = RATES["overnight"]


def err_module_level_error() -> float:
    """A module-level constant that fails to compute."""
    return DEFAULT_RATE
