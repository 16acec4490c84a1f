# args: {"raw_email": "  Ana@Example.COM ", "password": "hunter22"}
import hashlib
from dataclasses import InitVar, dataclass, field


@dataclass
class Entity:
    id: int = field(init=False, default=0)
    created: str = "2026-01-01"

    def __post_init__(self):
        self.kind = type(self).__name__.lower()


@dataclass
class User(Entity):
    email: str = ""
    password: InitVar[str] = None
    password_hash: str = field(init=False, default="")

    def __post_init__(self, password):
        super().__post_init__()
        self.email = self.email.strip().lower()
        if password:
            self.password_hash = hashlib.sha256(password.encode()).hexdigest()[:12]


def dataclass_inheritance_initvar(raw_email: str, password: str) -> dict:
    """A dataclass hierarchy with InitVar and __post_init__ chaining."""
    user = User(email=raw_email, password=password)
    return {"repr": repr(user), "kind": user.kind, "hash": user.password_hash, "id": user.id, "isinstance": isinstance(user, Entity)}
