# args: {"amounts": [5, 10, 20]}
from pydantic import BaseModel, PrivateAttr


class Wallet(BaseModel):
    owner: str
    _ledger: list = PrivateAttr(default_factory=list)

    def add(self, amount: int) -> None:
        self._ledger.append(amount)

    @property
    def balance(self) -> int:
        return sum(self._ledger)


def pydantic_private_attr(amounts: list[int]) -> dict:
    """Keep a private ledger in a model."""
    wallet = Wallet(owner="ana")
    for amount in amounts:
        wallet.add(amount)
    return {"balance": wallet.balance, "dump": wallet.model_dump(), "ledger": wallet._ledger}
