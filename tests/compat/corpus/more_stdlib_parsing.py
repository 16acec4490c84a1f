# args: {"config": "name = \"shop\"\n[limits]\nmax_items = 3\n", "markup": "<order id=\"7\"><item sku=\"a\">2</item><item sku=\"b\">1</item></order>"}
import ast
import binascii
import cmath
import colorsys
import fnmatch
import graphlib
import gzip
import ipaddress
import keyword
import numbers
import pprint
import shlex
import tomllib
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser


class LinkCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.links.append(dict(attrs).get("href"))


def more_stdlib_parsing(config: str, markup: str) -> dict:
    """Parses a TOML config, an XML order, HTML links, shell words and literals."""
    settings = tomllib.loads(config)
    order = ET.fromstring(markup)
    collector = LinkCollector()
    collector.feed('<p><a href="/a">A</a> <a href="/b">B</a></p>')
    sorter = graphlib.TopologicalSorter({"ship": {"pack"}, "pack": {"pay"}})
    packed = zlib.compress(markup.encode())
    network = ipaddress.ip_network("10.0.0.0/30")
    new_item = ET.SubElement(order, "item", sku="c")
    new_item.text = "5"
    print(pprint.pformat(settings, width=30))
    return {
        "settings": settings,
        "items": {item.get("sku"): int(item.text) for item in order.iter("item")},
        "xml": ET.tostring(order, encoding="unicode"),
        "links": collector.links,
        "order": list(sorter.static_order()),
        "roundtrip": zlib.decompress(packed).decode() == markup and gzip.decompress(gzip.compress(b"x")) == b"x",
        "crc": zlib.crc32(b"abc"),
        "hex": binascii.hexlify(b"\x01\xff").decode(),
        "hosts": [str(host) for host in network.hosts()],
        "private": ipaddress.ip_address("192.168.1.1").is_private,
        "words": shlex.split('add "two words" --flag'),
        "quoted": shlex.quote("it's"),
        "literal": ast.literal_eval("{'a': [1, 2.5, None, (True,)]}"),
        "match": fnmatch.filter(["a.py", "b.txt", "c.py"], "*.py"),
        "keyword": [keyword.iskeyword("class"), keyword.iskeyword("klass")],
        "number": [isinstance(3, numbers.Integral), isinstance(2.5, numbers.Real)],
        "polar": [round(value, 6) for value in cmath.polar(1 + 1j)],
        "hsv": [round(value, 6) for value in colorsys.rgb_to_hsv(0.2, 0.4, 0.6)],
    }
