"""Lay out the wild corpus (tests/compat/wild/SOURCES.md): each tool file cut out of its upstream module.

    .venv/bin/python scripts/wild_corpus.py [--mirrors /work/.mirror] [--texts /work/corpora/wild-texts]
        [--out /work/corpora/wild] [--manifest]

SOURCES.md names each tool's repository, file, entry function, path and commit; HEADERS.json holds
this project's header lines (arguments, CES context, run context, entry). A module's text comes
from the repository's bare snapshot (``<mirrors>/<owner>+<name>/repo``, as the search tool's
``fetch`` leaves it) at the commit, or, where the snapshot lacks that commit (a fork's or a pull
request's version), from ``<texts>/<owner>+<name>/<commit>/<path>``: the text the search tool's
``read_file`` gives for that repository, path and commit, saved as is.

A tool file is its header lines, then the module-level statements the entry function needs, in
the module's order: the entry itself and, transitively, every import, function, class and
assignment whose names it (or a statement already kept) reads, found by ``symtable`` (the
names each statement reads from module scope); ``from x import a, b`` keeps only the names used;
``from __future__`` imports are kept; decorators, docstrings of the module, comments outside the
kept statements and everything else are left out. Then every file is checked against
MANIFEST.sha256, or, with ``--manifest``, MANIFEST.sha256 is written from the files. The files
are third-party code and never committed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import symtable
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WILD = ROOT / "tests/compat/wild"
TOOL_LINE = re.compile(r"- `([^`]+)` \((\w+)\): `([^`]+)` from `([^`]+)` @ `([0-9a-f]{40})`")
HEADER_KEYS = ("args", "context", "run_context", "entry")


@dataclass(frozen=True)
class Tool:
    file: str
    repository: str
    framework: str
    entry: str
    path: str
    commit: str


def sources(text: str) -> tuple[list[Tool], dict[str, str]]:
    """SOURCES.md's tools (under their ``### <repository>`` heading) and each repository's licence."""
    tools, licences, repository = [], {}, ""
    for line in text.splitlines():
        if line.startswith("### "):
            repository = line[4:].strip()
        elif match := TOOL_LINE.match(line):
            file, framework, entry, path, commit = match.groups()
            tools.append(Tool(file, repository, framework, entry, path, commit))
        elif line.startswith("| ") and "/" in line.split("|")[1] and not line.startswith("| repository"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            licences[cells[0]] = f"{cells[1]} ({WILD.relative_to(ROOT)}/{cells[3]})"
    return tools, licences


def module_text(tool: Tool, mirrors: Path, texts: Path) -> str:
    """The module at the commit: from the snapshot, else the saved ``read_file`` text (newlines as LF)."""
    folder = tool.repository.replace("/", "+")
    shown = subprocess.run(
        ["git", "--git-dir", str(mirrors / folder / "repo"), "show", f"{tool.commit}:{tool.path}"],
        capture_output=True,
    )
    if shown.returncode == 0:
        raw = shown.stdout.decode("utf-8")
    else:
        saved = texts / folder / tool.commit / tool.path
        if not saved.is_file():
            raise SystemExit(
                f"{tool.file}: {tool.repository} {tool.path} @ {tool.commit} is in no snapshot under {mirrors};"
                f" save read_file(repo={tool.repository!r}, path={tool.path!r}, commit={tool.commit!r})'s"
                f" text as {saved}"
            )
        raw = saved.read_text(encoding="utf-8")
    return raw.replace("\r\n", "\n")


def bound_names(statement: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    names: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= bound_names(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def read_names(text: str) -> set[str]:
    """The names a statement's text reads from module scope (every nested scope included)."""
    table = symtable.symtable(text, "<statement>", "exec")
    names = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_referenced()}
    pending = list(table.get_children())
    while pending:
        scope = pending.pop()
        pending.extend(scope.get_children())
        names |= {symbol.get_name() for symbol in scope.get_symbols() if symbol.is_global()}
    return names


def segment(source: str, statement: ast.stmt) -> str:
    """The statement's own text, from its ``def``/``class`` line (decorators dropped), dedented when nested."""
    lines = source.splitlines()[statement.lineno - 1 : statement.end_lineno]
    indent = statement.col_offset
    return "\n".join(line[indent:] if not line[:indent].strip() else line.lstrip() for line in lines)


def entry_definition(tree: ast.Module, entry: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The module-level function ``entry`` (the last one), else the first nested one (a tool defined in a demo)."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    top = [node for node in tree.body if isinstance(node, functions) and node.name == entry]
    if top:
        return top[-1]
    nested = [node for node in ast.walk(tree) if isinstance(node, functions) and node.name == entry]
    if not nested:
        raise SystemExit(f"no function {entry!r}")
    return min(nested, key=lambda node: (node.lineno, node.col_offset))


def trimmed_import(statement: ast.Import | ast.ImportFrom, used: set[str]) -> str:
    kept = [alias for alias in statement.names if (alias.asname or alias.name).split(".")[0] in used]
    if len(kept) == len(statement.names):
        return ast.unparse(statement)
    copy = (
        ast.ImportFrom(statement.module, kept, statement.level)
        if isinstance(statement, ast.ImportFrom)
        else ast.Import(kept)
    )
    return ast.unparse(copy)


def extract(source: str, entry: str) -> tuple[str, list[str]]:
    """The entry function with the module-level statements it needs, and the decorators dropped."""
    tree = ast.parse(source)
    statements = tree.body
    function = entry_definition(tree, entry)
    texts = {id(statement): segment(source, statement) for statement in [*statements, function]}
    kept: dict[int, ast.stmt] = {id(function): function}
    used: set[str] = set()
    frontier: list[ast.stmt] = [function]
    while frontier:
        names = read_names(texts[id(frontier.pop())]) - used
        used |= names
        for statement in statements:
            if id(statement) not in kept and bound_names(statement) & names:
                kept[id(statement)] = statement
                frontier.append(statement)
    decorators = sorted(
        {
            ast.unparse(decorator)
            for statement in kept.values()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for decorator in statement.decorator_list
        }
    )
    imports, body = [], []
    for statement in statements:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            imports.append(ast.unparse(statement))
        elif id(statement) not in kept:
            continue
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            imports.append(trimmed_import(statement, used))
        else:
            body.append(texts[id(statement)])
    if function not in statements:
        body.append(texts[id(function)])
    text = "\n".join(imports)
    previous_simple = False
    for part in body:
        simple = not part.startswith(("def ", "async def ", "class "))
        separator = "\n" if simple and previous_simple else "\n\n\n" if text else ""
        text += separator + part
        previous_simple = simple
    return text + "\n", decorators


def header(tool: Tool, headers: dict[str, Any], licence: str, decorators: list[str]) -> str:
    values = headers[tool.file]
    if values["entry"] != tool.entry:
        raise SystemExit(
            f"{tool.file}: HEADERS.json says entry {values['entry']!r}, SOURCES.md {tool.entry!r}"
        )
    lines = [
        f"# {key}: {json.dumps(values[key], ensure_ascii=False)}"
        for key in HEADER_KEYS[:3]
        if key in values or key == "args"
    ]
    changes = (
        "the entry function and the module-level imports, helpers and constants it uses; the rest left out"
    )
    if decorators:
        changes += "; decorators dropped: " + ", ".join(f"@{decorator}" for decorator in decorators)
    lines += [
        f"# entry: {tool.entry}",
        f"# framework: {tool.framework}",
        f"# source: https://github.com/{tool.repository}/blob/{tool.commit}/{tool.path}",
        f"# licence: {licence}",
        f"# changes: {changes}",
    ]
    return "\n".join(lines) + "\n\n"


def manifest_lines(out: Path, names: list[str]) -> list[str]:
    return [f"{hashlib.sha256((out / name).read_bytes()).hexdigest()}  {name}" for name in sorted(names)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--texts", type=Path, default=Path("/work/corpora/wild-texts"))
    parser.add_argument("--out", type=Path, default=Path("/work/corpora/wild"))
    parser.add_argument("--manifest", action="store_true", help="write MANIFEST.sha256 from the files")
    options = parser.parse_args()
    tools, licences = sources((WILD / "SOURCES.md").read_text(encoding="utf-8"))
    headers = json.loads((WILD / "HEADERS.json").read_text(encoding="utf-8"))
    if sorted(tool.file for tool in tools) != sorted(headers):
        raise SystemExit("SOURCES.md and HEADERS.json do not list the same files")
    options.out.mkdir(parents=True, exist_ok=True)
    for tool in tools:
        body, decorators = extract(module_text(tool, options.mirrors, options.texts), tool.entry)
        text = header(tool, headers, licences[tool.repository], decorators) + body
        (options.out / tool.file).write_text(text, encoding="utf-8")
    lines = manifest_lines(options.out, [tool.file for tool in tools])
    manifest = WILD / "MANIFEST.sha256"
    if options.manifest:
        manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    differing = sorted(set(lines) ^ set(manifest.read_text(encoding="utf-8").splitlines()))
    for line in differing:
        print(f"differs from MANIFEST.sha256: {line.split()[-1]}", file=sys.stderr)
    if differing:
        raise SystemExit(f"{len({line.split()[-1] for line in differing})} files differ from MANIFEST.sha256")
    print(f"{len(tools)} tools laid out in {options.out}, every file as MANIFEST.sha256 says")


if __name__ == "__main__":
    main()
