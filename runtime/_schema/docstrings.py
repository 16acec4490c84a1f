"""Docstrings (Google, NumPy, reST, Epydoc) -> the description and per-parameter texts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import docstring_parser
from docstring_parser import DocstringStyle

_NUMPY_SECTION = re.compile(r"^\s*(Parameters|Returns|Raises|Yields|Attributes)\s*\n\s*-{3,}\s*$", re.M)
_GOOGLE_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Attributes|Example|Examples)\s*:\s*$",
    re.M,
)


@dataclass(frozen=True)
class DocParam:
    """One documented parameter (or class attribute)."""

    description: str | None
    type_name: str | None
    is_optional: bool


@dataclass(frozen=True)
class DocInfo:
    """What a docstring says: the description the model sees and the documented parameters."""

    description: str
    params: dict[str, DocParam] = field(default_factory=dict)
    returns: str | None = None


EMPTY_DOC = DocInfo(description="")


def _guess_style(text: str) -> DocstringStyle:
    """Pick the style cheaply instead of letting docstring-parser try every one of them."""
    if ":param" in text or ":return" in text or ":raises" in text:
        return DocstringStyle.REST
    if "@param" in text or "@return" in text:
        return DocstringStyle.EPYDOC
    if _NUMPY_SECTION.search(text):
        return DocstringStyle.NUMPYDOC
    if _GOOGLE_SECTION.search(text):
        return DocstringStyle.GOOGLE
    return DocstringStyle.AUTO


def read_docstring(text: str | None) -> DocInfo:
    """Parse ``text`` (a cleaned docstring); sections other than the prose stay out of the description."""
    if not text:
        return EMPTY_DOC
    parsed = docstring_parser.parse(text, _guess_style(text))
    prose = [part.strip() for part in (parsed.short_description, parsed.long_description) if part]
    params = {
        param.arg_name: DocParam(
            description=param.description or None,
            type_name=param.type_name,
            is_optional=bool(param.is_optional),
        )
        for param in parsed.params
    }
    returns = parsed.returns.description if parsed.returns and parsed.returns.description else None
    return DocInfo(description="\n\n".join(prose), params=params, returns=returns)
