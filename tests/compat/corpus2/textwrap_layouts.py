# args: {"notice": "Your package is delayed because of severe weather in the region. We will notify you as soon as it is back on the road. Thank you for your patience."}
import textwrap

SIGNATURE = """
    --
    Customer Care
      (automated message)
"""


def textwrap_layouts(notice: str) -> dict:
    """Lay out a notice for SMS, e-mail and a short preview."""
    email = textwrap.fill(notice, width=40, initial_indent="> ", subsequent_indent="> ")
    return {
        "sms": textwrap.wrap(notice, width=60, break_long_words=False),
        "email": email + textwrap.dedent(SIGNATURE),
        "preview": textwrap.shorten(notice, width=50, placeholder=" [...]"),
        "indented": textwrap.indent("a\n\nb\n", "  ", lambda line: line.strip() != ""),
        "dedent_width": max(len(line) for line in textwrap.dedent(SIGNATURE).splitlines()),
    }
