"""Secrets taken out of text a server sent back, in whatever encoding the server echoed them.

A server that echoes an API key may escape it: JSON writes ``/`` as ``\\/`` or any character as
``\\u00XX``, a URL percent-encodes it, HTML writes ``&#47;``. Replacing the secret's raw text misses
all of those, so ``Redactor`` decodes the text the way a reader of it would (JSON string escapes,
percent-escapes, HTML character references), finds every secret in the decoded text, and replaces
the original characters that decoded to it with ``***``. Base64 of the exact secret is one more
form it looks for. The rest of the text is left byte for byte as it was (a JSON body stays JSON).
"""

from __future__ import annotations

import base64
import bisect
import html
import re
from dataclasses import dataclass
from urllib.parse import quote

MASK = "***"

_JSON_ESCAPES = {
    "\\\\": "\\",
    "\\/": "/",
    '\\"': '"',
    "\\b": "\b",
    "\\f": "\f",
    "\\n": "\n",
    "\\r": "\r",
    "\\t": "\t",
}
_ESCAPED = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a UTF-16 surrogate pair
    r"|\\u[0-9a-fA-F]{4}"
    r"|\\[\\/\"bfnrt]"
    r"|(?:%[0-9a-fA-F]{2})+"
    r"|&#[0-9]{1,7};|&#[xX][0-9a-fA-F]{1,6};|&(?:amp|lt|gt|quot|apos);"
)


def _decode(unit: str) -> str:
    if unit.startswith("\\u"):
        return (
            unit.encode("ascii").decode("unicode_escape").encode("utf-16", "surrogatepass").decode("utf-16")
        )
    if unit.startswith("\\"):
        return _JSON_ESCAPES[unit]
    if unit.startswith("%"):
        return bytes.fromhex(unit.replace("%", "")).decode("utf-8", errors="replace")
    return html.unescape(unit)


@dataclass(frozen=True)
class _Decoded:
    """The decoded text, and where each piece of it came from in the original."""

    text: str
    starts: list[int]  # decoded offset where each piece starts
    spans: list[tuple[int, int, bool]]  # (original start, original end, literal) of each piece

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span that decoded to ``text[start:end]`` (whole escapes, never half of one)."""
        first = bisect.bisect_right(self.starts, start) - 1
        last = bisect.bisect_right(self.starts, end - 1) - 1
        begin, _, literal = self.spans[first]
        if literal:
            begin += start - self.starts[first]
        last_start, finish, literal = self.spans[last]
        if literal:
            finish = last_start + (end - self.starts[last])
        return begin, finish


def _decoded(text: str) -> _Decoded:
    parts: list[str] = []
    starts: list[int] = []
    spans: list[tuple[int, int, bool]] = []
    size = position = 0

    def add(piece: str, start: int, end: int, literal: bool) -> None:
        nonlocal size
        if piece:
            parts.append(piece)
            starts.append(size)
            spans.append((start, end, literal))
            size += len(piece)

    for match in _ESCAPED.finditer(text):
        add(text[position : match.start()], position, match.start(), True)
        add(_decode(match.group()), match.start(), match.end(), False)
        position = match.end()
    add(text[position:], position, len(text), True)
    return _Decoded("".join(parts), starts, spans)


def secret_forms(secret: str) -> list[str]:
    """The forms of ``secret`` looked for besides its decoded text: raw, percent-encoded, base64."""
    raw = secret.encode()
    encoded = [base64.b64encode(raw).decode("ascii"), base64.urlsafe_b64encode(raw).decode("ascii")]
    return [secret, quote(secret, safe=""), *encoded, *(form.rstrip("=") for form in encoded)]


@dataclass(frozen=True)
class Redactor:
    """Replaces ``secrets`` (and their encodings) in text with ``***``."""

    secrets: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        if not self.secrets:
            return text
        forms = sorted(
            {form for secret in self.secrets for form in secret_forms(secret) if form}, key=len, reverse=True
        )
        for form in forms:
            text = text.replace(form, MASK)
        decoded = _decoded(text)
        if decoded.text == text:
            return text
        hits: list[tuple[int, int]] = []
        for secret in self.secrets:
            start = decoded.text.find(secret)
            while secret and start >= 0:
                hits.append(decoded.original(start, start + len(secret)))
                start = decoded.text.find(secret, start + len(secret))
        return _masked(text, hits)


def _masked(text: str, hits: list[tuple[int, int]]) -> str:
    """``text`` with each span of ``hits`` (merged where they overlap) replaced by one ``***``."""
    pieces: list[str] = []
    position = 0
    merged: list[tuple[int, int]] = []
    for start, end in sorted(hits):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    for start, end in merged:
        pieces.append(text[position:start] + MASK)
        position = end
    return "".join(pieces) + text[position:]
