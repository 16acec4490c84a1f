import datetime
import decimal
import enum
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Optional

from pydantic import (
    AnyUrl,
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    PrivateAttr,
    RootModel,
    SecretStr,
    TypeAdapter,
    ValidationError,
    computed_field,
    field_serializer,
    field_validator,
    model_validator,
    root_validator,
    validate_call,
    validator,
)

if TYPE_CHECKING:  # what the worker gives every tool as globals: for the type checker, left out of the tool
    from sandbox.bridges.ces_context import ToolContext
    from sandbox.bridges.ces_types import Content, LlmResponse, Part

    context = ToolContext({})


class Kind(enum.Enum):
    A = "a"


class Point(NamedTuple):
    x: int
    y: int = 0


class Item(BaseModel):
    name: str
    count: int = 0


class Model(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)
    name: str = Field(min_length=1)
    when: datetime.datetime
    day: datetime.date
    price: decimal.Decimal
    kind: Kind = Kind.A
    tags: list[str] = []
    extra: dict[str, Any] = {}
    url: Optional[HttpUrl] = None  # noqa: UP045 - Optional, as tools write it
    secret: Optional[SecretStr] = None  # noqa: UP045 - Optional, as tools write it
    mode: Literal["x", "y"] = "x"
    point: Optional[tuple[int, int]] = None  # noqa: UP045 - Optional, as tools write it
    _cache: dict = PrivateAttr(default_factory=dict)

    @field_validator("name")
    @classmethod
    def check_name(cls, value: str) -> str:
        return value

    @model_validator(mode="after")
    def check_all(self) -> "Model":
        return self

    @field_serializer("price")
    def show_price(self, value: decimal.Decimal) -> str:
        return str(value)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's own spelling, which mypy does not follow
    @property
    def label(self) -> str:
        return self.name.upper()


class Old(BaseModel):
    a: int = 0

    @validator("a")
    def check_a(cls, value):
        return value

    @root_validator(skip_on_failure=True)
    def check_root(cls, values):
        return values


class Many(RootModel[list[int]]):
    pass


@validate_call
def add(a: int, b: int = 1) -> int:
    return a + b


def warm_up() -> str:
    out: dict[str, Any] = {}
    # JSON-shaped values, which pydantic converts (typed Any: the type checker reads the field types)
    fields: dict[str, Any] = {
        "name": " n ",
        "when": "2024-01-02T03:04:05+01:00",
        "day": "2024-01-02",
        "price": "1.50",
        "url": "https://example.com/a?b=1",
        "secret": "s",
        "point": [1, 2],
    }
    invalid: dict[str, Any] = {"name": "", "when": "x", "day": "y", "price": "z"}
    two: Any = "2"
    model = Model(**fields)
    out["model"] = model.model_dump(mode="json")
    out["json"] = model.model_dump_json()
    out["schema"] = Model.model_json_schema()
    out["copy"] = model.model_copy(update={"name": "m"}).name
    try:
        Model(**invalid)
    except ValidationError as error:
        out["errors"] = [str(error), error.errors(), error.json()]
    out["old"] = Old(a=1).model_dump()
    out["root"] = Many([1, 2]).model_dump()
    out["adapter"] = TypeAdapter(list[Point]).validate_python([{"x": 1}, (2, 3)])
    out["adapter_json"] = TypeAdapter(dict[str, datetime.date]).dump_json({"a": datetime.date(2024, 1, 1)})
    out["add"] = add(two)
    out["url"] = str(AnyUrl("http://example.com"))
    item = Item(name="x", count=1)
    context.state["key"].append(item.count)
    out["item"] = [item.model_dump(), repr(item)]
    part = Part(text="x")
    content = Content(role="user", parts=[part, Part.from_text(text="y")])
    out["ces"] = [
        part.to_json(),
        content.to_json(),
        content["parts"][0]["text"],
        context.user_content,
        context.get_last_user_input(),
        LlmResponse(content=content).to_json(),
    ]
    print(out)
    return repr(out)
