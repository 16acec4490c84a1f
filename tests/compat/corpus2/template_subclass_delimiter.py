# args: {"values": {"user": "ana", "amount": "12.50"}}
from string import Template


class PercentTemplate(Template):
    delimiter = "%"
    idpattern = r"[a-z][_a-z0-9]*"


def template_subclass_delimiter(values: dict) -> dict:
    """string.Template subclasses with their own delimiter."""
    t = PercentTemplate("Hi %user, you owe %{amount} (100%% sure)")
    return {"text": t.substitute(values), "ids": t.get_identifiers()}
