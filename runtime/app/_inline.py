"""Inline code in an export: a ``pythonCode`` member holding the code itself, not a file's path.

The console's export may carry a tool's, fake's, callback's or guardrail's code either way.
``unpack`` lays inline code out as a ``.py`` file where the console would have put it (the
member's path in snake case: ``pythonFunction.pythonCode`` of ``tools/T/T.json`` is
``tools/T/python_function/python_code.py``, ``beforeAgentCallbacks[0].pythonCode`` of an agent
``before_agent_callbacks/before_agent_callbacks_01/python_code.py``) and makes the member name
that file, so the folder reads like any other export. ``pack`` folds each such file back into
its member: the original text of the member when the code is unchanged, the new code as a
quoted string otherwise; nothing else of the resource file changes, so a round trip without
edits gives the same bytes. Which members were inline is read again from the original archive.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import yaml

from runtime.app._loader import PATH_LIKE
from sandbox.common.errors import InvalidApp

CODE_MEMBER = "pythonCode"
_RESOURCE = re.compile(r"^[^/]+/([^/]+)/\1\.(json|ya?ml)$")
_SPACE = " \t\r\n"
Member = tuple[str | int, ...]


@dataclass(frozen=True)
class InlineCode:
    """One inline ``pythonCode``: its resource file, where in it, and the ``.py`` file it is laid out as."""

    resource: str
    member: Member
    code_path: str


def find_inline(files: dict[str, bytes]) -> list[InlineCode]:
    """Every inline ``pythonCode`` of the export's resource files, with the file it is laid out as."""
    found: list[InlineCode] = []
    taken = set(files)
    for path in sorted(files):
        if not _RESOURCE.match(path):
            continue
        try:
            data = _load(path, files[path].decode("utf-8"))
        except (UnicodeDecodeError, ValueError, yaml.YAMLError):
            continue  # the loader says what is wrong with it
        for member, value in _code_members(data, ()):
            if value not in files and not PATH_LIKE.match(value):  # a missing file: the loader says so
                code_path = _free(_laid_out(path, member), taken)
                taken.add(code_path)
                found.append(InlineCode(path, member, code_path))
    return found


def lay_out(files: dict[str, bytes], inline: list[InlineCode]) -> dict[str, bytes]:
    """The files with each inline code in its own file and its member naming that file."""
    result = dict(files)
    for resource, items in _by_resource(inline).items():
        text = result[resource].decode("utf-8")
        for item in items:
            code = _value(resource, text, item.member)
            result[item.code_path] = code.encode("utf-8")
            text = _replace(resource, text, item.member, _quoted(resource, item.code_path))
        result[resource] = text.encode("utf-8")
    return result


def fold(files: dict[str, bytes], original: dict[str, bytes], inline: list[InlineCode]) -> dict[str, bytes]:
    """The inverse of :func:`lay_out` on a (possibly edited) folder: each laid-out file back in its
    member, which keeps its original text when the code did not change. A member the user pointed
    elsewhere is left as it is."""
    result = dict(files)
    for resource, items in _by_resource(inline).items():
        if resource not in result:
            continue
        text = result[resource].decode("utf-8")
        for item in items:
            if _value(resource, text, item.member, missing_ok=True) != item.code_path:
                continue
            code = result.pop(item.code_path, None)
            if code is None:
                continue
            first = original[resource].decode("utf-8")
            unchanged = code.decode("utf-8") == _value(resource, first, item.member)
            start, end = _span(resource, first, item.member)
            token = first[start:end] if unchanged else _quoted(resource, code.decode("utf-8"))
            text = _replace(resource, text, item.member, token)
        result[resource] = text.encode("utf-8")
    return result


def _by_resource(inline: list[InlineCode]) -> dict[str, list[InlineCode]]:
    """Per resource file, its inline members from the last in the file to the first (offsets stay valid)."""
    grouped: dict[str, list[InlineCode]] = {}
    for item in inline:
        grouped.setdefault(item.resource, []).append(item)
    return {resource: items[::-1] for resource, items in grouped.items()}


def _load(path: str, text: str) -> Any:
    return json.loads(text) if path.endswith(".json") else yaml.safe_load(text)


def _code_members(data: Any, member: Member) -> list[tuple[Member, str]]:
    """Every string ``pythonCode`` member below ``data``, in document order."""
    found: list[tuple[Member, str]] = []
    items: list[tuple[str | int, Any]] = []
    if isinstance(data, dict):
        items = list(data.items())
    elif isinstance(data, list):
        items = list(enumerate(data))
    for key, value in items:
        if key == CODE_MEMBER and isinstance(value, str):
            found.append(((*member, key), value))
        else:
            found += _code_members(value, (*member, key))
    return found


def _laid_out(resource: str, member: Member) -> str:
    """``pythonFunction.pythonCode`` -> ``python_function/python_code.py``; list items numbered from 01."""
    parts: list[str] = []
    for key in member:
        if isinstance(key, int):
            parts.append(f"{parts[-1]}_{key + 1:02d}")
        else:
            parts.append(re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower())
    return str(PurePosixPath(resource).parent.joinpath(*parts)) + ".py"


def _free(path: str, taken: set[str]) -> str:
    """``path``, or ``<stem>_2.py``, ... when the export already holds a file of that name."""
    candidate, number = path, 1
    while candidate in taken:
        number += 1
        candidate = f"{path.removesuffix('.py')}_{number}.py"
    return candidate


def _quoted(resource: str, value: str) -> str:
    """``value`` as a JSON string, which is also a YAML double-quoted scalar (ASCII there: YAML
    folds some Unicode line breaks that JSON keeps)."""
    return json.dumps(value, ensure_ascii=not resource.endswith(".json"))


def _value(resource: str, text: str, member: Member, missing_ok: bool = False) -> Any:
    data = _load(resource, text)
    for key in member:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            if missing_ok:
                return None
            raise InvalidApp(f"{resource}: {_where(member)} is missing") from None
    return data


def _replace(resource: str, text: str, member: Member, token: str) -> str:
    """``text`` with the value of ``member`` written as ``token`` (checked by reading it back)."""
    start, end = _span(resource, text, member)
    if text[start:end].endswith("\n") and not token.endswith("\n"):
        token += "\n"  # a YAML block scalar's span ends with its line break: keep one
    elif token.endswith("\n") and not text[start:end].endswith("\n") and text[end : end + 1] == "\n":
        end += 1  # the block scalar put back brings its own
    result = text[:start] + token + text[end:]
    expected = _load(resource, token)
    if _value(resource, result, member, missing_ok=True) != expected:
        raise InvalidApp(f"{resource}: {_where(member)} could not be rewritten in place")
    return result


def _span(resource: str, text: str, member: Member) -> tuple[int, int]:
    """Where the value of ``member`` is written in ``text`` (start and end offsets)."""
    if resource.endswith(".json"):
        return _json_span(text, member, _skip(text, 0), resource)
    node = yaml.compose(text)
    for key in member:
        if isinstance(node, yaml.MappingNode) and isinstance(key, str):
            node = next((value for name, value in node.value if name.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            node = None
        if node is None:
            raise InvalidApp(f"{resource}: {_where(member)} is missing")
    return node.start_mark.index, node.end_mark.index


def _json_span(text: str, member: Member, at: int, resource: str) -> tuple[int, int]:
    """The span of ``member`` in the JSON value starting at offset ``at``."""
    decoder = json.JSONDecoder()
    if not member:
        return at, decoder.raw_decode(text, at)[1]
    key, rest = member[0], member[1:]
    opener, closer = ("{", "}") if isinstance(key, str) else ("[", "]")
    if text[at] != opener:
        raise InvalidApp(f"{resource}: {_where(member)} is missing")
    found: tuple[int, int] | None = None  # the last of duplicate keys, as json.loads reads them
    index, at = 0, _skip(text, at + 1)
    while text[at] != closer:
        name: str | int = index
        if opener == "{":
            name, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = _skip(text, _skip(text, at) + 1)  # past the colon
        if name == key:
            found = _json_span(text, rest, at, resource)
        at = _skip(text, decoder.raw_decode(text, at)[1])
        at = _skip(text, at + 1) if text[at] == "," else at
        index += 1
    if found is None:
        raise InvalidApp(f"{resource}: {_where(member)} is missing")
    return found


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at


def _where(member: Member) -> str:
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in member).lstrip(".")
