# args: {}
import json


def err_attribute_error_module() -> str:
    """A function the json module does not have."""
    return json.parse("{}")
