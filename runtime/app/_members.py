"""Members of an export that the CES API's messages lack, found after validation and explained.

The models (``runtime.app._models``) keep such a member in ``model_extra``; this walks a
validated resource and says, for each one, the file, the member's path, the message that lacks
it and, for a near miss, the member CES has (``beforeModelCallback``: did you mean
``beforeModelCallbacks``?). A ``_comment_*`` member is a note for readers, as Google's own
templates write them. Nothing is dropped: the resource file is packed back byte for byte.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from pydantic.alias_generators import to_camel

from runtime.app._models import Message


@dataclass(frozen=True)
class LoadNote:
    """Something about a file of the export that does not stop it loading (a warning of ``app check``)."""

    path: str
    message: str
    line: int = 1


def unknown_members(resource: Message, path: str, text: str) -> list[LoadNote]:
    """A note for every member of ``resource`` (and the messages inside it) that CES's message lacks."""
    return [
        LoadNote(path, _explain(member, key, message), _line(text, key))
        for member, key, message in _walk(resource, "")
    ]


def _walk(model: Message, where: str) -> Iterator[tuple[str, str, Message]]:
    for key in model.model_extra or {}:
        yield f"{where}{key}", key, model
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        member = f"{where}{info.alias or to_camel(name)}"
        if isinstance(value, Message):
            yield from _walk(value, f"{member}.")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, Message):
                    yield from _walk(item, f"{member}[{index}].")


def _explain(member: str, key: str, model: Message) -> str:
    message = type(model).CES_MESSAGE
    kept = "CES's import ignores it; kept as it is, `toolpen app pack` writes the file back byte for byte"
    if key.startswith("_comment"):
        return f"{member}: a comment, not a field of CES's {message} ({kept})"
    known = [info.alias or to_camel(name) for name, info in type(model).model_fields.items()]
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"{member}: unknown member, not a field of CES's {message} ({kept}){hint}"


def _line(text: str, key: str) -> int:
    """The line where ``key`` first appears as a member (JSON ``"key"`` or YAML ``key:``), else 1."""
    found = re.search(rf'"{re.escape(key)}"\s*:|^\s*-?\s*{re.escape(key)}\s*:', text, re.M)
    return text.count("\n", 0, found.start()) + 1 if found else 1
