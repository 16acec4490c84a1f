# args: {"updates": {"name": "Lia", "email": "lia@x.io", "unknown": 1}}
class Profile:
    kind = "person"

    def __init__(self):
        self.name = ""
        self.email = ""
        self._token = "t"

    def summary(self):
        return f"{self.name} <{self.email}>"


def getattr_vars_dir_objects(updates: dict) -> dict:
    """getattr/setattr/hasattr/delattr, vars() and dir() on the tool's objects."""
    p = Profile()
    applied = []
    for key, value in updates.items():
        if hasattr(p, key):
            setattr(p, key, value)
            applied.append(key)
    method = getattr(p, "summary")
    missing = getattr(p, "phone", None)
    delattr(p, "_token")
    public = [name for name in dir(p) if not name.startswith("_")]
    return {
        "applied": applied,
        "summary": method(),
        "missing": missing,
        "vars": vars(p),
        "dict": p.__dict__ == vars(p),
        "public": public,
        "has_token": hasattr(p, "_token"),
        "class_attr": getattr(Profile, "kind"),
        "getattr_chain": getattr(getattr(p, "name"), "upper")(),
    }
