import html


def warm_up() -> str:
    return repr([html.escape("<a>"), html.unescape("&lt;&eacute;&#x27;")])
