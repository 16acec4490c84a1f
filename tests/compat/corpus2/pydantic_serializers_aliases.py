# args: {"data": {"firstName": "Ana", "lastName": "Souza", "birthDate": "1990-02-03", "balanceCents": 12345}}
from datetime import date
from decimal import Decimal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_serializer


def to_camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


class Profile(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    first_name: str
    last_name: str
    birth_date: date
    balance_cents: int = Field(validation_alias=AliasChoices("balanceCents", "balance"))

    @field_serializer("birth_date")
    def iso_day(self, value: date) -> str:
        return value.strftime("%d/%m/%Y")

    @property
    def balance(self) -> Decimal:
        return Decimal(self.balance_cents) / 100


def pydantic_serializers_aliases(data: dict) -> dict:
    """Aliases, alias generators, field serializers and frozen models."""
    profile = Profile.model_validate(data)
    same = Profile(first_name="Ana", last_name="Souza", birth_date=date(1990, 2, 3), balance=12345)
    try:
        profile.first_name = "Bo"
        frozen = None
    except Exception as error:
        frozen = type(error).__name__
    return {
        "by_alias": profile.model_dump(by_alias=True),
        "python": profile.model_dump(),
        "balance": str(profile.balance),
        "equal": profile == same,
        "frozen": frozen,
        "hashable": hash(profile) == hash(same),
    }
