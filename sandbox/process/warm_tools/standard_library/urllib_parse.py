import urllib.parse


def warm_up() -> str:
    return repr(
        [
            urllib.parse.urlencode({"a": "b c"}),
            urllib.parse.urlparse("https://u@h:1/p?q=1#f")._replace(path="/x").geturl(),
            urllib.parse.parse_qs("a=1&a=2"),
            urllib.parse.quote_plus("a b&"),
            urllib.parse.unquote("%C3%A9"),
            urllib.parse.urljoin("https://a/b/", "c"),
            urllib.parse.urlsplit("https://a/b").netloc,
            urllib.parse.quote("a/b c"),
        ]
    )
