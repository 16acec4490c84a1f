"""Tool search: Okapi BM25 over tool names, descriptions and parameter docs.

Deferred tools stay out of a model's initial tool list; a ``tool_search`` call finds the few
that match a query so the host can load their definitions. The index is a few dozen short
documents, so BM25 is written out here (dictionaries, no numpy) rather than taken from a library.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from runtime._registry import Tool

DEFAULT_LIMIT = 5
K1 = 1.5
"""How fast a term's weight saturates with its count in a document."""
B = 0.75
"""How much a long document is penalised for its length."""

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-./]")
_TOKEN = re.compile(r"[a-z0-9]+")
_STOPWORD_TEXT = """
a about after all also am an and any are as at be been before being below between both but by can
could did do does doing down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just me more most my no nor not now of off on once only or
other our ours out over own same she should so some such than that the their theirs them then there
these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _words(text: str) -> str:
    """``get_current_weather`` and ``getCurrentWeather`` also read as "get current weather"."""
    return f"{text} {_WORD_BOUNDARY.sub(' ', text)}"


def _parameter_docs(schema: Any) -> Iterator[str]:
    """Property names, titles, descriptions and enum values, through nested schemas."""
    if isinstance(schema, dict):
        for key in ("title", "description"):
            if isinstance(schema.get(key), str):
                yield schema[key]
        for value in schema.get("enum") or ():
            if isinstance(value, str):
                yield value
        for name, sub in (schema.get("properties") or {}).items():
            yield _words(name)
            yield from _parameter_docs(sub)
        for key in ("items", "additionalProperties"):
            yield from _parameter_docs(schema.get(key))
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in schema.get(key) or ():
                yield from _parameter_docs(sub)
        for sub in (schema.get("$defs") or {}).values():
            yield from _parameter_docs(sub)
    elif isinstance(schema, list):
        for sub in schema:
            yield from _parameter_docs(sub)


def tool_document(tool: Tool) -> str:
    """The text a tool is found by: its name (also split into words), description, parameter docs."""
    parts = [_words(tool.name), tool.spec.description or "", *_parameter_docs(tool.spec.parameters)]
    return " ".join(part for part in parts if part)


def _stem(word: str) -> str:
    """A light English suffix strip, so that "refunds", "refunded" and "refunding" meet "refund"."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + keep
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased words of ``text``, stop words left out, stemmed."""
    return [_stem(word) for word in _TOKEN.findall(text.lower()) if word not in STOPWORDS]


class ToolIndex:
    """A BM25 index over a fixed set of tools."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools = list(tools)
        self._counts = [Counter(tokens(tool_document(tool))) for tool in self.tools]
        self._lengths = [sum(counts.values()) for counts in self._counts]
        self._average = sum(self._lengths) / len(self._lengths) if self._lengths else 0.0
        frequency = Counter(term for counts in self._counts for term in counts)
        total = len(self.tools)
        # The idf of BM25+ style (never negative): a term in every document still counts a little.
        self._idf = {term: math.log(1 + (total - n + 0.5) / (n + 0.5)) for term, n in frequency.items()}

    def score(self, query: str) -> list[float]:
        """Each tool's BM25 score for ``query``, in the order of ``tools``."""
        terms = [term for term in set(tokens(query)) if term in self._idf]
        scores = []
        for counts, length in zip(self._counts, self._lengths, strict=True):
            norm = K1 * (1 - B + B * length / self._average) if self._average else K1
            scores.append(
                sum(self._idf[t] * counts[t] * (K1 + 1) / (counts[t] + norm) for t in terms if t in counts)
            )
        return scores

    def search(self, query: str, limit: int = DEFAULT_LIMIT) -> list[Tool]:
        """The best matches for ``query``, best first; tools that share no term with it are left out."""
        if limit <= 0:
            return []
        ranked = sorted(enumerate(self.score(query)), key=lambda item: (-item[1], item[0]))
        return [self.tools[index] for index, score in ranked[:limit] if score > 0]
