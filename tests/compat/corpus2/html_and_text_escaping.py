# args: {"comment": "<script>alert('x')</script> & \"quotes\" café"}
import html
import json
import re


def html_and_text_escaping(comment: str) -> dict:
    """Escape user text for HTML, JSON and regex."""
    safe = html.escape(comment)
    return {
        "html": safe,
        "html_noquote": html.escape(comment, quote=False),
        "unescape": html.unescape("&lt;b&gt; &amp;amp; &eacute; &#x263A; &#9731;"),
        "roundtrip": html.unescape(safe) == comment,
        "json": json.dumps(comment),
        "regex": re.escape("a.b*c"),
        "stripped_tags": re.sub(r"<[^>]+>", "", comment),
        "repr": repr(comment[:10]),
    }
