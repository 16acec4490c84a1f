# args: {"payload": {"a": 1}}
class Widget:
    """A widget."""

    def render(self):
        """Render it."""
        return "<widget>"


def helper():
    pass


def type_introspection_names(payload: dict) -> dict:
    """type(), __name__, __class__, __qualname__, __doc__, __module__, callable."""
    w = Widget()
    return {
        "type_names": [type(v).__name__ for v in (1, "s", 2.5, None, [], payload, w, helper, len)],
        "class_name": w.__class__.__name__,
        "qualname": Widget.render.__qualname__,
        "method_name": w.render.__name__,
        "docs": [Widget.__doc__, w.render.__doc__, helper.__doc__],
        "module_same": Widget.__module__ == helper.__module__,
        "is_widget": type(w) is Widget,
        "type_eq": type(w) == Widget,
        "callable": [callable(w), callable(w.render), callable(Widget)],
        "repr_prefix": repr(w).split(" object at ")[0].split(".")[-1],
        "exc_name": ValueError.__name__,
        "builtin_type": type(len).__name__,
        "str_type": str(type(1)),
        "type_repr": repr(Widget).split(".")[-1],
    }
