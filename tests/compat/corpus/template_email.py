# args: {"name": "Ana", "items": ["tee", "cap"], "total": 32.49}
from string import Template

BODY = Template("Hi $name,\n\nThanks for ordering $count item(s): $items.\nTotal: $$${total}\n")


def template_email(name: str, items: list[str], total: float) -> str:
    """Render an order email."""
    return BODY.substitute(name=name, count=len(items), items=", ".join(items), total=f"{total:.2f}")
