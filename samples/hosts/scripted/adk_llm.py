"""A scripted ``BaseLlm`` for Google ADK: each model turn yields the next scripted response."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field


def tool_call(name: str, args: dict[str, Any], call_id: str) -> types.Content:
    call = types.FunctionCall(name=name, args=args, id=call_id)
    return types.Content(role="model", parts=[types.Part(function_call=call)])


def text(value: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=value)])


class ScriptedLlm(BaseLlm):
    """Answers with ``turns`` in order; records the requests it was sent."""

    model: str = "scripted"
    turns: list[types.Content] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=0, candidates_token_count=0, total_token_count=0
        )
        yield LlmResponse(content=self.turns.pop(0), usage_metadata=usage)
