# args: {"name": "missing"}
USERS = {"ana": {"email": "a@x.io"}}


def err_attribute_error_none(name: str) -> str:
    """A None result used as an object."""
    user = USERS.get(name)
    return user.get("email").lower()
