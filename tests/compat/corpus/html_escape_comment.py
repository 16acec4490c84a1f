# args: {"author": "<b>Eve</b>", "body": "5 > 3 & 'quotes' \"too\""}
import html


def html_escape_comment(author: str, body: str) -> str:
    """Render a comment as safe HTML."""
    return f'<p class="comment"><strong>{html.escape(author)}</strong>: {html.escape(body, quote=True)}</p>'
