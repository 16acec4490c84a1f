# args: {"text": "Dear customer, your order has been delayed because of unexpected weather conditions in the distribution center. We apologize.", "width": 30}
import textwrap


def text_wrap_notice(text: str, width: int) -> dict:
    """Wrap a notice for SMS."""
    lines = textwrap.wrap(text, width=width)
    return {
        "lines": lines,
        "short": textwrap.shorten(text, width=40, placeholder="..."),
        "indented": textwrap.indent("\n".join(lines[:2]), "> "),
    }
