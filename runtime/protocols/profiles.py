"""Model profiles: per-model quirks of OpenAI-compatible Chat Completions function calling.

A profile is picked by model name (the first whose pattern matches, case-insensitively) and
reshapes a request before it is sent: where the system prompt goes, which ``tool_choice``
values the model takes. Hosts add their own profiles (``ModelProfile.from_dict`` or
``load_profiles``); those are tried before the built-in ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "BUILTIN_PROFILES",
    "DEFAULT_PROFILE",
    "ModelProfile",
    "ShapedRequest",
    "load_profiles",
    "profile_for",
    "shape_request",
]

TOOLS_SYSTEM_PROMPT = (
    "You are a helpful assistant with access to the following functions. Use them if required:\n"
)


@dataclass(frozen=True)
class ModelProfile:
    """How one family of models wants tools sent.

    - ``system_prompt``: False folds the system messages into the first user message whenever
      tools are sent (DeepSeek, whose function calling misbehaves with a system message).
    - ``tools_in_system_prompt``: the tool definitions are also written into the system prompt.
    - ``unsupported_choices``: ``tool_choice`` kinds the model refuses, among ``"required"`` and
      ``"named"`` (a specific function); they fall back to ``"auto"``.
    - ``explicit_tool_choice``: always send ``tool_choice`` (``"auto"`` when the host set none).
    """

    name: str
    pattern: str
    system_prompt: bool = True
    tools_in_system_prompt: bool = False
    unsupported_choices: frozenset[str] = field(default_factory=frozenset)
    explicit_tool_choice: bool = False

    def matches(self, model: str) -> bool:
        return re.search(self.pattern, model, re.IGNORECASE) is not None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelProfile:
        """A profile from configuration: the field names above; ``unsupported_choices`` a list."""
        values = dict(data)
        choices = frozenset(values.get("unsupported_choices") or ())
        unknown = choices - {"required", "named"}
        if unknown:
            raise ValueError(
                f"unknown tool_choice kinds in profile {values.get('name')!r}: {sorted(unknown)}"
            )
        values["unsupported_choices"] = choices
        return cls(**values)


DEFAULT_PROFILE = ModelProfile(name="default", pattern="")

BUILTIN_PROFILES: tuple[ModelProfile, ...] = (
    ModelProfile(name="deepseek", pattern=r"deepseek", system_prompt=False),
    ModelProfile(
        name="llama-3-405b",
        pattern=r"llama-?3(\.\d+)?-405b",
        unsupported_choices=frozenset({"required"}),
    ),
    ModelProfile(
        name="gpt-oss",
        pattern=r"gpt-oss",
        tools_in_system_prompt=True,
        unsupported_choices=frozenset({"required", "named"}),
    ),
    ModelProfile(name="qwen", pattern=r"qwen", explicit_tool_choice=True),
)


def load_profiles(path: str | Path) -> list[ModelProfile]:
    """Profiles from a YAML or JSON file holding a list of profile mappings."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or []
    return [ModelProfile.from_dict(item) for item in data]


def profile_for(model: str, profiles: Iterable[ModelProfile] = ()) -> ModelProfile:
    """The first of ``profiles`` then of the built-in profiles matching ``model``, else the default."""
    for profile in (*profiles, *BUILTIN_PROFILES):
        if profile.matches(model):
            return profile
    return DEFAULT_PROFILE


@dataclass
class ShapedRequest:
    """A request after a profile reshaped it, with a note for each change."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_choice: str | dict[str, Any] | None
    notes: list[str] = field(default_factory=list)


def _choice_kind(tool_choice: str | Mapping[str, Any] | None) -> str | None:
    return "named" if isinstance(tool_choice, Mapping) else tool_choice


def _tools_prompt(tools: Sequence[Mapping[str, Any]]) -> str:
    return TOOLS_SYSTEM_PROMPT + "\n".join(json.dumps(tool["function"]) for tool in tools)


def shape_request(
    profile: ModelProfile,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    tool_choice: str | dict[str, Any] | None = None,
) -> ShapedRequest:
    """Apply ``profile`` to a Chat Completions request; ``tool_choice=None`` means not sent."""
    shaped = ShapedRequest(
        [dict(message) for message in messages], [dict(tool) for tool in tools], tool_choice
    )
    if not tools:
        return shaped
    kind = _choice_kind(tool_choice)
    if kind in profile.unsupported_choices:
        shaped.tool_choice = "auto"
        shaped.notes.append(f"{profile.name}: tool_choice {kind!r} is not supported; sent 'auto'")
    if profile.explicit_tool_choice and shaped.tool_choice is None:
        shaped.tool_choice = "auto"
        shaped.notes.append(f"{profile.name}: tool_choice set explicitly to 'auto'")
    if not profile.system_prompt and any(m.get("role") == "system" for m in shaped.messages):
        _fold_system_prompt(shaped)
        shaped.notes.append(f"{profile.name}: system prompt folded into the first user message")
    if profile.tools_in_system_prompt:
        _prepend_tools_prompt(shaped, _tools_prompt(tools))
        shaped.notes.append(f"{profile.name}: tool definitions written into the system prompt")
    return shaped


def _prepend_tools_prompt(shaped: ShapedRequest, prompt: str) -> None:
    first = shaped.messages[0] if shaped.messages else None
    if first is not None and first.get("role") == "system" and isinstance(first.get("content"), str):
        first["content"] = f"{prompt}\n\n{first['content']}"
    else:
        shaped.messages.insert(0, {"role": "system", "content": prompt})


def _fold_system_prompt(shaped: ShapedRequest) -> None:
    """Move the system messages' text to the start of the first user message (one is made
    after them when there is none)."""
    system = [m for m in shaped.messages if m.get("role") == "system"]
    prompt = "\n\n".join(_text(m.get("content")) for m in system)
    shaped.messages = [m for m in shaped.messages if m.get("role") != "system"]
    user = next((m for m in shaped.messages if m.get("role") == "user"), None)
    if user is None:
        shaped.messages.insert(0, {"role": "user", "content": prompt})
    elif isinstance(user.get("content"), list):
        user["content"] = [{"type": "text", "text": prompt}, *user["content"]]
    else:
        user["content"] = f"{prompt}\n\n{_text(user.get('content'))}"


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""
