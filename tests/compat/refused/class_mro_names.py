# refused: "__mro__" is not available
class Base:
    pass


class Child(Base):
    pass


def class_mro_names() -> list:
    """The class hierarchy of a class."""
    return [cls.__name__ for cls in Child.__mro__]
