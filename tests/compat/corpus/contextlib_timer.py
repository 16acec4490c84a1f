# args: {"steps": ["load", "parse", "bad", "save"]}
from contextlib import contextmanager, suppress


@contextmanager
def stage(name, log):
    log.append(f"start {name}")
    try:
        yield name.upper()
    finally:
        log.append(f"end {name}")


def contextlib_timer(steps: list[str]) -> list[str]:
    """Run pipeline stages with logging."""
    log = []
    for step in steps:
        with suppress(ValueError):
            with stage(step, log) as label:
                if step == "bad":
                    raise ValueError(step)
                log.append(f"did {label}")
    return log
