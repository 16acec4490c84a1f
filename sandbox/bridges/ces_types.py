"""The classes the CES Python runtime injects into tool and callback code, in one place.

Shared by the worker (the objects callbacks receive, built from the host's JSON) and by
``toolpen check`` (their names count as defined). Fields and helpers follow the CES "Python
runtime reference" where it was readable (``Blob``, ``CallbackContext``) and Google's own offline
copy of the runtime classes (cxas-scrapi ``callback_libs.py``) for the rest; see
``docs/ces.md`` for what is documented and what is inferred.

Every class is a pydantic model (snake_case fields, camelCase aliases accepted, unknown keys
kept) that can also be read like the dict it stands for: ``part["text"]``, ``content.get("parts")``,
``"role" in content``. A field that is None reads as a missing key, so code written for the JSON
shape (``context.user_content["parts"]``) and code written for the objects
(``context.user_content.parts[0].text``) both run. ``to_json()`` gives the JSON shape back
(``None`` fields left out), which is how the worker hands a callback's result to the host.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from sandbox.bridges.ces_names import MODEL_CLASS_NAMES
from sandbox.bridges.proxies import StatusError
from sandbox.language.rules import is_allowed_attribute


def declared_field(cls: type[BaseModel], key: object) -> str | None:
    """The field of ``cls`` that ``key`` names (by name or alias), held to the attribute rule.

    A module function, not a method: a tool's subclass cannot override it, so ``part[key]``
    reads only declared public fields, never an arbitrary attribute such as ``__dict__``.
    """
    if type(key) is not str or not is_allowed_attribute(key):
        return None
    fields = cls.__pydantic_fields__  # set by pydantic; a tool class body cannot name it
    if key in fields:
        return key
    return next(
        (name for name, info in fields.items() if info.alias == key and is_allowed_attribute(name)), None
    )


class CesModel(BaseModel):
    """Base of the CES classes: keyword construction, camelCase aliases, dict-style reads."""

    model_config = ConfigDict(
        extra="allow", populate_by_name=True, alias_generator=to_camel, arbitrary_types_allowed=True
    )

    def __getitem__(self, key: str) -> Any:
        name = declared_field(type(self), key)
        if name is not None:
            value = getattr(self, name)
            if value is None:
                raise KeyError(key)
            return value
        extra = self.__pydantic_extra__ or {}
        if key in extra:
            return extra[key]
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        # the key becomes an attribute name: held to the attribute rule (``part["__class__"] = ...``)
        name = declared_field(type(self), key) or key
        if not is_allowed_attribute(name):
            raise KeyError(f"key {key!r} is not allowed")
        setattr(self, name, value)

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or ``default`` when the field is missing or None."""
        try:
            return self[key]
        except KeyError:
            return default

    def keys(self) -> list[str]:
        """The fields that hold a value (not None), then the extra keys."""
        names = [name for name in type(self).model_fields if getattr(self, name) is not None]
        return names + list(self.__pydantic_extra__ or {})

    def values(self) -> list[Any]:
        return [self[key] for key in self.keys()]

    def items(self) -> list[tuple[str, Any]]:
        return [(key, self[key]) for key in self.keys()]

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        # like a dict: the keys (pydantic's own iterates over (name, value) pairs)
        return iter(self.keys())

    def to_json(self) -> dict[str, Any]:
        """The JSON shape, snake_case, without the fields that are None."""
        return self.model_dump(mode="json", exclude_none=True, warnings=False)


class Blob(CesModel):
    """Inline data: ``data`` holds the base64 text of the bytes, ``raw_data`` the bytes themselves."""

    display_name: str | None = None
    data: bytes | None = None
    mime_type: str | None = None
    transcript_text: str | None = Field(
        default=None, validation_alias=AliasChoices("transcript_text", "transcript")
    )

    @property
    def raw_data(self) -> bytes | None:
        """The decoded bytes; assigning bytes fills ``data``."""
        return None if self.data is None else base64.b64decode(self.data)

    @raw_data.setter
    def raw_data(self, value: bytes) -> None:
        self.data = base64.b64encode(bytes(value))

    def transcript(self) -> str | None:
        """The transcript CES keeps for an audio blob (None otherwise)."""
        return self.transcript_text

    @classmethod
    def from_json(cls, data: str) -> Blob:
        """A blob of JSON text (``application/json``)."""
        return cls(data=base64.b64encode(str(data).encode()), mime_type="application/json")


class FunctionCall(CesModel):
    """A model's request to run a tool: ``id``, ``name``, ``args``."""

    id: str | None = None
    name: str | None = None
    args: dict[str, Any] | None = None


class FunctionResponse(CesModel):
    """A tool's answer: ``response`` is ``{"result": ...}`` (or an error)."""

    id: str | None = None
    name: str | None = None
    response: dict[str, Any] | None = None
    will_continue: bool | None = None


def _json_blob(payload: dict[str, Any], mime_type: str) -> Blob:
    return Blob(data=base64.b64encode(json.dumps(payload).encode()), mime_type=mime_type)


class Part(CesModel):
    """One part of a content: ``text``, ``function_call``, ``function_response`` or ``inline_data``."""

    text: str | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    inline_data: Blob | None = None

    def text_or_transcript(self) -> str | None:
        """The text, else the transcript of the inline audio."""
        if self.text is not None:
            return self.text
        return self.inline_data.transcript() if self.inline_data is not None else None

    def has_function_call(self, name: str) -> bool:
        return self.function_call is not None and self.function_call.name == name

    def has_function_response(self, name: str) -> bool:
        return self.function_response is not None and self.function_response.name == name

    @classmethod
    def from_text(cls, text: str) -> Part:
        return cls(text=text)

    @classmethod
    def from_function_call(cls, name: str, args: dict[str, Any]) -> Part:
        return cls(function_call=FunctionCall(name=name, args=args))

    @classmethod
    def from_function_response(cls, name: str, response: dict[str, Any]) -> Part:
        return cls(function_response=FunctionResponse(name=name, response=response))

    @classmethod
    def from_inline_data(cls, data: bytes, mime_type: str) -> Part:
        return cls(inline_data=Blob(data=data, mime_type=mime_type))

    @classmethod
    def from_json(cls, data: str) -> Part:
        """A custom JSON payload for the client (not shown to the model)."""
        return cls(inline_data=Blob.from_json(data))

    @classmethod
    def from_audio(cls, audio_uri: str, cancellable: bool = False, interruptable: bool = True) -> Part:
        payload = {"audioUri": audio_uri, "cancellable": cancellable, "interruptable": interruptable}
        return cls(inline_data=_json_blob(payload, "application/json+audio"))

    @classmethod
    def from_agent_transfer(cls, agent: str) -> Part:
        """A ``transfer_to_agent`` call to ``agent``."""
        return cls.from_function_call("transfer_to_agent", {"agent_name": agent})

    @classmethod
    def from_end_session(cls, *, reason: str, escalated: bool = False) -> Part:
        """An ``end_session`` call."""
        return cls.from_function_call("end_session", {"reason": reason, "session_escalated": escalated})

    @classmethod
    def from_customized_response(
        cls,
        *,
        content: str = "",
        disable_barge_in: bool = False,
        enable_dtmf: bool = False,
        dtmf_finish_digit: str = "#",
        dtmf_endpointing_timeout: int = 3,
    ) -> Part:
        payload = {
            "content": content,
            "disableBargeIn": disable_barge_in,
            "enableDtmf": enable_dtmf,
            "dtmfFinishDigit": dtmf_finish_digit,
            "dtmfEndpointingTimeout": dtmf_endpointing_timeout,
        }
        return cls(inline_data=_json_blob(payload, "application/json+agentResponse"))


class Content(CesModel):
    """A message: ``role`` (``user`` or ``model``) and its ``parts``."""

    role: str | None = None
    parts: list[Part] | None = None

    def is_user(self) -> bool:
        return self.role == "user"

    def is_model(self) -> bool:
        return self.role == "model"


class EventActions(CesModel):
    """What an event did besides its content; ``state_delta`` maps keys to new values."""

    skip_summarization: bool | None = None
    state_delta: dict[str, Any] = Field(default_factory=dict)
    artifact_delta: dict[str, Any] = Field(default_factory=dict)
    transfer_to_agent: str | None = None
    escalate: bool | None = None
    requested_auth_configs: dict[str, Any] = Field(default_factory=dict)
    end_invocation: bool | None = None


class Event(CesModel):
    """One entry of the session's history."""

    id: str = ""
    author: str = ""
    timestamp: float | None = None
    invocation_id: str = ""
    content: Content | None = None
    actions: EventActions = Field(default_factory=EventActions)
    long_running_tool_ids: list[str] | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    error_code: str | None = None
    error_message: str | None = None
    interrupted: bool | None = None
    branch: str | None = None
    grounding_metadata: Any = None

    def is_user(self) -> bool:
        return self.author == "user"

    def is_agent(self, agent_name: str | None = None) -> bool:
        return self.author != "user" if agent_name is None else self.author == agent_name

    def has_error(self) -> bool:
        return self.error_code is not None

    def parts(self) -> list[Part]:  # type: ignore[override]
        return list(self.content.parts or []) if self.content is not None else []


class FunctionDeclaration(CesModel):
    name: str | None = None
    description: str | None = None
    parameters: dict[str, Any] | None = None


class ToolDeclaration(CesModel):
    function_declarations: list[FunctionDeclaration] | None = None


class GenerateContentConfig(CesModel):
    """The model call's settings: system instruction, tool declarations, tools hidden for this call."""

    system_instruction: Content | None = None
    tools: list[ToolDeclaration] | None = None
    excluded_tools: list[str] | None = None

    def hide_tool(self, tool_name: str) -> None:
        """Keep ``tool_name`` from the model for this request."""
        if self.excluded_tools is None:
            self.excluded_tools = []
        if tool_name not in self.excluded_tools:
            self.excluded_tools.append(tool_name)


class LlmRequest(CesModel):
    """What goes to the model: ``contents`` (the history, latest last) and ``config``."""

    model: str | None = None
    contents: list[Content] = Field(default_factory=list)
    config: GenerateContentConfig | None = None

    def hide_tool(self, tool_name: str) -> None:
        """``config.hide_tool``, creating the config when there is none."""
        if self.config is None:
            self.config = GenerateContentConfig()
        self.config.hide_tool(tool_name)


class LlmResponse(CesModel):
    """What came back from the model (or what a callback answers instead)."""

    content: Content | None = None
    partial: bool | None = None
    turn_complete: bool | None = None

    @classmethod
    def from_parts(cls, parts: list[Part]) -> LlmResponse:
        """A model response made of ``parts``."""
        return cls(content=Content(role="model", parts=list(parts)))


class Tool(CesModel):
    """The ``tool`` argument of tool callbacks and fakes."""

    name: str = ""
    description: str = ""


CES_CLASSES: dict[str, type] = {name: globals()[name] for name in MODEL_CLASS_NAMES} | {
    "StatusError": StatusError
}
"""The classes every tool and callback sees as globals (``CallbackContext`` and ``ToolContext``
join them from ``sandbox.bridges.ces_context``)."""
