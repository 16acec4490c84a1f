"""Tool search: BM25 (bm25s) over tool names, descriptions and parameter docs.

Deferred tools stay out of a model's initial tool list; a ``tool_search`` call finds the few
that match a query so the host can load their definitions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import bm25s

from runtime.registry import Tool

DEFAULT_LIMIT = 5
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-./]")


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


def _tokens(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


class ToolIndex:
    """A BM25 index over a fixed set of tools."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools = list(tools)
        self._retriever: bm25s.BM25 | None = None
        if self.tools:
            self._retriever = bm25s.BM25()
            self._retriever.index(_tokens([tool_document(tool) for tool in self.tools]), show_progress=False)

    def search(self, query: str, limit: int = DEFAULT_LIMIT) -> list[Tool]:
        """The best matches for ``query``, best first; tools that share no term with it are left out."""
        if self._retriever is None or limit <= 0:
            return []
        tokens = _tokens([query])
        if not tokens[0]:
            return []
        k = min(limit, len(self.tools))
        documents, scores = self._retriever.retrieve(tokens, k=k, show_progress=False)
        return [self.tools[int(doc)] for doc, score in zip(documents[0], scores[0], strict=True) if score > 0]
