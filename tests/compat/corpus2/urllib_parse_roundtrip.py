# args: {"url": "https://shop.example.com:8443/search/items?q=red shoes&size=42&size=43&page=2#results"}
from urllib.parse import parse_qs, parse_qsl, quote, quote_plus, unquote, urlencode, urljoin, urlparse, urlsplit, urlunparse


def urllib_parse_roundtrip(url: str) -> dict:
    """Parse, edit and rebuild URLs."""
    parts = urlparse(url.replace(" ", "%20"))
    query = parse_qs(parts.query)
    query["page"] = ["3"]
    rebuilt = urlunparse(parts._replace(query=urlencode(query, doseq=True), fragment=""))
    split = urlsplit(url)
    return {
        "scheme_host_port": [parts.scheme, parts.hostname, parts.port, parts.netloc],
        "path": parts.path,
        "query": query,
        "pairs": parse_qsl("a=1&b=&c=3", keep_blank_values=True),
        "rebuilt": rebuilt,
        "join": [urljoin(url, "../cart"), urljoin(url, "/help"), urljoin("https://a.b/x/", "y")],
        "quote": [quote("a b/c?d"), quote_plus("a b&c"), quote("é", safe=""), unquote("%C3%A9%20x")],
        "encode": urlencode({"q": "café & tea", "n": 2}),
        "split_fields": list(split._fields),
        "geturl": split.geturl() == url,
    }
