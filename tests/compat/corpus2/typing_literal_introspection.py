# args: {"mode": "fast"}
from typing import Annotated, Any, Literal, Optional, Union, cast, get_args, get_origin, get_type_hints

Mode = Literal["fast", "safe", "debug"]
Number = Union[int, float]


def configure(mode: Mode, retries: Annotated[int, "max tries"] = 3, limit: Optional[Number] = None) -> dict:
    return {"mode": mode, "retries": retries, "limit": limit}


def typing_literal_introspection(mode: str) -> dict:
    """Validate a value against a Literal type and inspect annotations."""
    allowed = get_args(Mode)
    if mode not in allowed:
        return {"error": f"mode must be one of {allowed}"}
    hints = get_type_hints(configure, include_extras=True)
    plain = get_type_hints(configure)
    return {
        "allowed": list(allowed),
        "origin_is_literal": get_origin(Mode) is Literal,
        "union_args": [a.__name__ for a in get_args(Number)],
        "optional_args": len(get_args(plain["limit"])),
        "annotated_meta": list(get_args(hints["retries"])[1:]),
        "plain_retries": plain["retries"].__name__,
        "result": configure(cast(Mode, mode)),
        "cast_noop": cast(int, "x"),
        "any_repr": repr(Any),
        "return": repr(plain["return"]),
    }
