import dataclasses


@dataclasses.dataclass(order=True)
class Row:
    name: str
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Frozen:
    value: int = 0


def warm_up() -> str:
    rows = sorted([Row("b"), Row("a")])
    return repr(
        [
            dataclasses.asdict(rows[0]),
            dataclasses.astuple(rows[1]),
            dataclasses.replace(rows[0], name="c"),
            dataclasses.fields(Row)[0].name,
            hash(Frozen(1)),
            Row("a") == Row("a"),
        ]
    )
