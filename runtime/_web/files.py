"""What the playground lists: tool, callback and fake sources, turn files, and an app's code.

Given paths (``toolpen web PATH...``): a file is listed as given; a folder lists its ``*.py``
files (programs with a ``__main__`` guard left out), the callbacks and fakes of its subfolders,
and the turn files (JSON or YAML with a ``calls`` list) in it and its subfolders; a turn file
also lists the tools, callbacks and fakes it names. Given an exported app, the list is the app's
tools, fakes and callbacks, read from the app (a zip is read-only).

Paths are resolved before use: a file or link inside a given folder (or named by a given turn)
that leads outside the given paths is neither listed, served, run nor written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sandbox.common.errors import InvalidArguments, InvalidSource

if TYPE_CHECKING:
    from runtime.app import App

Kind = Literal["tool", "callbacks", "fakes", "turn"]
TURN_SUFFIXES = (".json", ".yaml", ".yml")
TURN_REFERENCES = ("tools", "callbacks", "fakes")


@dataclass(frozen=True)
class PageFile:
    """One entry of the page's list: ``path`` names it in the API; ``disk`` is None inside a zip."""

    path: str
    kind: Kind
    disk: Path | None
    label: str
    source: str | None = None
    """The text when it does not come from ``disk`` (an app read from a zip, inline code)."""
    app_ref: tuple[str, str, int] | None = None
    """What it is in an app: (``tool`` | ``fake`` | ``callback`` | ``guardrail``, the tool's, agent's or
    guardrail's name, the callback's index)."""
    resolved: Path | None = field(init=False, default=None)
    """Where ``disk`` led when it was listed (links followed)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "resolved", self.disk.resolve() if self.disk else None)

    def on_disk(self) -> Path:
        """``disk``, refused (``InvalidArguments``) when it leads somewhere else than when it was listed."""
        assert self.disk is not None
        if self.disk.resolve() != self.resolved:
            raise InvalidArguments(f"{self.path} now leads somewhere else than when the page listed it")
        return self.disk

    def read(self) -> str:
        if self.disk is None:
            return self.source or ""
        return self.on_disk().read_text(encoding="utf-8")

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"path": self.path, "kind": self.kind, "label": self.label}
        entry["editable"] = self.disk is not None
        if self.disk is not None:  # how a new turn (run from the server's folder) names it
            entry["relative"] = os.path.relpath(self.disk)
        try:
            entry["source"] = self.read()
        except (OSError, UnicodeDecodeError, InvalidArguments) as error:
            entry["error"] = str(error)
        return entry


def source_kind(source: str) -> Kind:
    """``tool``, ``callbacks`` or ``fakes``: what a Python source defines."""
    from runtime._callbacks import looks_like_hooks
    from runtime._schema import parse_tool_source

    try:
        module = parse_tool_source(source)
    except InvalidSource:
        return "tool"
    if not looks_like_hooks(module):
        return "tool"
    return "fakes" if "def fake_" in source else "callbacks"


def _turn_script(path: Path) -> dict[str, Any] | None:
    from runtime._turns import parse_turn

    try:
        return parse_turn(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, InvalidArguments):
        return None


def _python(path: Path) -> tuple[Kind, str] | None:
    """The kind of a Python file, None for a program (``__main__``) or an unreadable file."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if '__name__ == "__main__"' in source or "__name__ == '__main__'" in source:
        return None
    return source_kind(source), source


class Listing:
    """The files found in the given paths, and the folders a turn may name files in."""

    def __init__(self) -> None:
        self.files: dict[str, PageFile] = {}
        self.roots: list[Path] = []
        self.given: set[Path] = set()
        """The files given by name, resolved (a given link is the user's own choice)."""
        self.referenced: set[Path] = set()

    def add(self, path: Path, kind: Kind) -> None:
        key = str(path)
        if key not in self.files and path.resolve() not in self.disk_paths() and self.inside(path):
            self.files[key] = PageFile(key, kind, path, path.name)

    def inside(self, path: Path) -> bool:
        """True when ``path``, resolved (links followed), is a given file or under a given folder."""
        resolved = path.resolve()
        return resolved in self.given or any(resolved.is_relative_to(root) for root in self.roots)

    def disk_paths(self) -> dict[Path, str]:
        """The listed files on disk, resolved: their page path."""
        return {file.disk.resolve(): file.path for file in self.files.values() if file.disk is not None}

    def allows(self, path: Path) -> bool:
        """True for a listed file, a file a found turn names, or one under a folder given; links are
        followed first, so a link leading outside is refused."""
        resolved = path.resolve()
        return resolved in self.referenced or resolved in self.disk_paths() or self.inside(path)


def discover(paths: list[Path]) -> Listing:
    """The page's list for ``toolpen web PATH...``; ``InvalidArguments`` names a path it cannot use."""
    listing = Listing()
    turns: list[tuple[Path, dict[str, Any]]] = []
    for path in paths:
        if path.is_dir():
            listing.roots.append(path.resolve())
            _folder(listing, path, turns)
            continue
        if not path.is_file():
            raise InvalidArguments(f"no such file: {path}")
        listing.given.add(path.resolve())
        if path.suffix in TURN_SUFFIXES:
            script = _turn_script(path)
            if script is None:
                raise InvalidArguments(f'{path} is not a turn file (JSON or YAML with a "calls" list)')
            turns.append((path, script))
            listing.add(path, "turn")
        else:
            found = _python(path)
            listing.add(path, found[0] if found else "tool")
    for turn, script in turns:
        folder = turn.parent.resolve()
        for key in TURN_REFERENCES:
            for item in script.get(key) or []:
                resolved = _named(folder, item, listing)
                if resolved is None:
                    continue
                listing.referenced.add(resolved)
                listing.given.add(resolved)
                named = turn.parent / str(item)
                found = _python(named) if named.is_file() else None
                if found:
                    listing.add(named, found[0])
        for spec in (script.get("openapi") or {}).values():
            resolved = _named(folder, spec, listing)
            if resolved is not None:
                listing.referenced.add(resolved)
    return listing


def _named(folder: Path, item: Any, listing: Listing) -> Path | None:
    """The file a turn in ``folder`` names, resolved; None when a link on the way leads outside the
    given paths (a path written out, ``../tool.py`` included, is the turn author's own)."""
    written = Path(os.path.normpath(folder / str(item)))
    resolved = written.resolve()
    return resolved if resolved == written or listing.inside(resolved) else None


def _folder(listing: Listing, folder: Path, turns: list[tuple[Path, dict[str, Any]]]) -> None:
    subfolders = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    for depth, where in enumerate([folder, *subfolders]):
        for file in sorted(where.iterdir()):
            if file.suffix == ".py" and file.is_file():
                found = _python(file)
                if found and (depth == 0 or found[0] != "tool"):
                    listing.add(file, found[0])
            elif file.suffix in TURN_SUFFIXES and file.is_file():
                script = _turn_script(file)
                if script is not None:
                    turns.append((file, script))
                    listing.add(file, "turn")


def app_listing(app: App, location: Path) -> Listing:
    """The app's tools, their fakes, its code guardrails' and every agent's callbacks; on disk when
    the app is a folder."""
    from runtime.app._loader import app_folder

    folder = app_folder(location) if location.is_dir() else None
    listing = Listing()

    def add(code_path: str, kind: Kind, label: str, source: str, ref: tuple[str, str, int]) -> None:
        on_disk = folder is not None and code_path.endswith(".py")  # else inline in a resource file
        if on_disk and folder and not (folder / code_path).resolve().is_relative_to(folder.resolve()):
            return  # a link leading out of the app
        key = str(folder / code_path) if on_disk and folder else f"{location}/{code_path}#{label}"
        disk = folder / code_path if on_disk and folder else None
        listing.files[key] = PageFile(key, kind, disk, label, None if disk else source, ref)

    for tool in app.tools.values():
        add(tool.code_path, "tool", tool.display_name, tool.source, ("tool", tool.display_name, 0))
    for tool in app.tools.values():
        if tool.fake_source and tool.fake_path:
            label = f"fake of {tool.display_name}"
            add(tool.fake_path, "fakes", label, tool.fake_source, ("fake", tool.display_name, 0))
    for guardrail in app.guardrails.values():
        for index, callback in enumerate(guardrail.callbacks):
            label = f"guardrail {guardrail.display_name}: {callback.kind}"
            add(
                callback.code_path,
                "callbacks",
                label,
                callback.source,
                ("guardrail", guardrail.display_name, index),
            )
    for agent in app.agents.values():
        for index, callback in enumerate(agent.callbacks):
            label = f"{agent.display_name}: {callback.kind}"
            add(
                callback.code_path,
                "callbacks",
                label,
                callback.source,
                ("callback", agent.display_name, index),
            )
    return listing
