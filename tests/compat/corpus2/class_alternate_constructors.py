# args: {"rows": ["ana,31,admin", "bo,25,user"], "payload": {"name": "cy", "age": 40}}
class Account:
    """A user account with alternative constructors."""

    count = 0
    DEFAULT_ROLE = "user"

    def __init__(self, name: str, age: int, role: str = DEFAULT_ROLE) -> None:
        self.name, self.age, self.role = name, age, role
        type(self).count += 1

    @classmethod
    def from_csv(cls, row: str) -> "Account":
        name, age, role = row.split(",")
        return cls(name, int(age), role)

    @classmethod
    def from_dict(cls, data: dict) -> "Account":
        return cls(**{"role": cls.DEFAULT_ROLE, **data})

    @staticmethod
    def is_adult(age: int) -> bool:
        return age >= 18

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.name!r}, {self.age}, {self.role!r})"


class AdminAccount(Account):
    DEFAULT_ROLE = "admin"


def class_alternate_constructors(rows: list[str], payload: dict) -> dict:
    """Build accounts from CSV rows and dicts."""
    accounts = [Account.from_csv(r) for r in rows] + [AdminAccount.from_dict(payload)]
    return {
        "accounts": [repr(a) for a in accounts],
        "count": Account.count,
        "admin_count": AdminAccount.count,
        "adult": [Account.is_adult(a.age) for a in accounts],
        "static_via_instance": accounts[0].is_adult(10),
        "types": [type(a).__name__ for a in accounts],
        "qualname": Account.from_csv.__qualname__,
    }
