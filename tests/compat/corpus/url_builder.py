# args: {"base": "https://api.example.com/v1/", "path": "search", "params": {"q": "café & bar", "page": 2, "tags": ["a", "b"]}}
from urllib.parse import urlencode, urljoin, urlparse, parse_qs, quote


def url_builder(base: str, path: str, params: dict) -> dict:
    """Build a URL with query parameters."""
    url = urljoin(base, quote(path)) + "?" + urlencode(params, doseq=True)
    parsed = urlparse(url)
    return {
        "url": url,
        "host": parsed.netloc,
        "query": parse_qs(parsed.query),
        "https_only": parsed._replace(scheme="https", query="").geturl(),
    }
