# args: {"operations": [["deposit", 100], ["withdraw", 30], ["withdraw", 500], ["deposit", 5]]}
class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self._balance = balance
        self._log = []

    @property
    def balance(self):
        return self._balance

    def deposit(self, amount):
        self._balance += amount
        self._log.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self._balance:
            raise InsufficientFunds(f"cannot withdraw {amount}, balance is {self._balance}")
        self._balance -= amount
        self._log.append(("withdraw", amount))

    def __repr__(self):
        return f"{self.__class__.__name__}(owner={self.owner!r}, balance={self._balance})"


def bank_account_ops(operations: list) -> dict:
    """Apply deposits and withdrawals to an account."""
    account = Account("ana")
    errors = []
    for kind, amount in operations:
        try:
            getattr(account, kind)(amount)
        except InsufficientFunds as error:
            errors.append(f"{type(error).__name__}: {error}")
    print(repr(account))
    return {"balance": account.balance, "errors": errors, "log": account._log}
