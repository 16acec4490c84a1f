# refused: "__new__" is a special name
class Registry:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance


def new_singleton() -> bool:
    """A singleton built in __new__."""
    return Registry() is Registry()
