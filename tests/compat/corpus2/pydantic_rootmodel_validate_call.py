# args: {"scores": [3, "7", 9.0]}
from pydantic import RootModel, ValidationError, validate_call


class Scores(RootModel[list[int]]):
    def best(self) -> int:
        return max(self.root)


@validate_call
def add(a: int, b: int = 1) -> int:
    return a + b


def pydantic_rootmodel_validate_call(scores: list) -> dict:
    """RootModel and validate_call."""
    model = Scores(scores)
    try:
        add("x")
        bad = None
    except ValidationError as error:
        bad = error.errors()[0]["type"]
    return {
        "root": model.root,
        "best": model.best(),
        "dump": model.model_dump(),
        "json": model.model_dump_json(),
        "add": [add(2), add("3", b="4")],
        "bad": bad,
    }
