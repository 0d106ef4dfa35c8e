"""An Inspect model API backed by agentkit's own model client: ``--model agentkit/<litellm model id>``.

Why: Inspect's own providers (``openai/``, ``openai-api/``, ...) reach a model their own way, with
Inspect's defaults. Sending Inspect's turns through :class:`agentkit.models.litellm_model.LiteLLMModel`
instead gives a run under Inspect what ``agentkit run --model`` gives (every provider litellm knows:
``openai/gpt-4o``, ``anthropic/...``, ``gemini/...``, ``ollama/...``, and ``openai/<name>`` with
``--model-base-url`` for llama.cpp's or vLLM's server), with the same request bodies, retries, answer
caps, error names, token counts and prices, so the two can be compared. Until litellm 1.110 it was also
the only way: litellm 1.106.2 required ``openai<3``, and Inspect's OpenAI providers need openai 3.4.

Inspect finds this API through agentkit's ``inspect_ai`` entry point (``registry.py`` imports it).
Model args (``-M name=value``): ``fold_system``, ``timeout_s``, ``max_retries``. Inspect's generate
settings ``--max-tokens``, ``--temperature``, ``--stop-seqs``, ``--top-p`` and ``--seed`` are passed on.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from agentkit.leaves import run_defaults
from agentkit.messages import messages_from_openai
from agentkit.models.litellm_model import LiteLLMModel
from agentkit.models.local_server_key import key_for_server

# The provider name users type before the litellm model id: ``--model agentkit/openai/gpt-4o``.
PROVIDER = "agentkit"


def to_openai_chat(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Inspect's chat messages as OpenAI-style dicts (text and image parts), which the edge then reads
    into typed messages for LiteLLMModel (``agentkit.messages.messages_from_openai``).

    agentkit's turns carry only system, user and assistant messages of text and images; a tool message
    (from some other Inspect task's tools) is refused in one line rather than sent half-translated.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ChatMessageTool):
            raise ValueError(f"{PROVIDER}/ models take no tool messages (got one from {message.function!r})")
        if isinstance(message.content, str):
            out.append({"role": message.role, "content": message.content})
            continue
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, ContentImage):
                parts.append({"type": "image_url", "image_url": {"url": part.image}})
            elif isinstance(part, ContentText):
                parts.append({"type": "text", "text": part.text})
        out.append({"role": message.role, "content": parts})
    return out


class AgentkitModelAPI(ModelAPI):
    """Inspect's ``ModelAPI`` over :class:`LiteLLMModel`: one client per distinct generate setting."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        fold_system: bool = False,
        timeout_s: float = run_defaults.TIMEOUT_S,
        max_retries: int = run_defaults.MAX_RETRIES,
    ) -> None:
        super().__init__(
            model_name=model_name, base_url=base_url, api_key=api_key, config=config or GenerateConfig()
        )
        if "/" not in model_name:
            raise ValueError(
                f"--model {PROVIDER}/{model_name}: give a litellm model id after '{PROVIDER}/', "
                f"e.g. {PROVIDER}/openai/gpt-4o"
            )
        if not isinstance(fold_system, bool):
            raise ValueError(f"-M fold_system: true or false, not {fold_system!r}")
        self._api_key = key_for_server(api_key, base_url)
        self._fold_system = fold_system
        self._timeout_s = float(timeout_s)
        self._max_retries = int(max_retries)
        self._clients: dict[tuple[Any, ...], LiteLLMModel] = {}

    def _client(self, config: GenerateConfig) -> LiteLLMModel:
        """The litellm client for these settings (made once: it keeps its warm-up and usage checks)."""
        temperature = run_defaults.TEMPERATURE if config.temperature is None else config.temperature
        max_tokens = run_defaults.MAX_TOKENS if config.max_tokens is None else config.max_tokens
        stop = tuple(config.stop_seqs or ())
        extra = {k: v for k, v in (("top_p", config.top_p), ("seed", config.seed)) if v is not None}
        key = (temperature, max_tokens, stop, tuple(sorted(extra.items())))
        if key not in self._clients:
            self._clients[key] = LiteLLMModel(
                self.model_name,
                api_base=self.base_url,
                api_key=self._api_key,
                temperature=temperature,
                max_tokens=max_tokens,
                stop=list(stop) or None,
                timeout_s=self._timeout_s,
                max_retries=self._max_retries,
                extra=extra,
                name=f"{PROVIDER}/{self.model_name}",
                fold_system=self._fold_system,
            )
        return self._clients[key]

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if tools:
            raise ValueError(f"{PROVIDER}/ models answer in text; this task offers Inspect tools")
        # Inspect's messages are outside ones: read into typed messages once, here (images as data URLs)
        reply = await self._client(config).acomplete(messages_from_openai(to_openai_chat(input)))
        call = reply.call
        output = ModelOutput.from_content(
            model=self.model_name,
            content=reply.text,
            stop_reason="max_tokens" if call is not None and call.finish_reason == "length" else "stop",
        )
        output.usage = ModelUsage(
            input_tokens=reply.usage.input_tokens,
            output_tokens=reply.usage.output_tokens,
            total_tokens=reply.usage.input_tokens + reply.usage.output_tokens,
            total_cost=reply.usage.cost_usd or None,
        )
        output.time = reply.latency_s
        return output

    def max_tokens(self) -> int | None:
        """agentkit's default answer budget, so Inspect's default matches ``agentkit run``'s."""
        return run_defaults.MAX_TOKENS


@modelapi(name=PROVIDER)
def agentkit_model_api() -> type[ModelAPI]:
    return AgentkitModelAPI
