"""What every interchange format says of a run in the same words: its stable id, the agent and its version, the
model the requests named, and the definitions of its tools. The spans (``spans``) and the ATIF trajectory (``atif``)
both read them here, so a run exported twice, or in both formats, is the same run to whoever reads it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from react_core.base import tool_specs
from react_core.base.trace import Trace

AGENT_NAME = "ReAct Lab"
AGENT_DESCRIPTION = (
    "A ReAct agent (Yao et al. 2022): the model writes a Thought and an Action, the tool's Observation comes back, "
    "until it finishes with an answer."
)


def run_id(trace: Trace) -> str:
    """32 hexadecimal digits that name this run and no other, the same at every export: a hash of the run's whole
    record, so the run sent live, saved, and exported again from History is one id, and two runs that differ in
    anything are two."""
    text = json.dumps(trace.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(b"react-lab run " + text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def agent_version(trace: Trace) -> str:
    """The agent's version: the prompt version the run used (``paper@1``), which with the model is what the agent
    is; '' for a run of an unsaved prompt (or one saved before versions were recorded)."""
    return str(trace.settings.get("prompt_version") or "")


def provider_class(trace: Trace) -> Any:  # a provider class, or None for a provider this version does not have
    from react_core.providers import PROVIDERS

    return PROVIDERS.get(str(trace.settings.get("provider", "")))


def request_model(trace: Trace) -> str:
    """The model the requests named (``gen_ai.request.model``), not its label for people: the on-device model is
    ``gemma-3-270m``, not "gemma-3-270m (on-device)", and its adapter is recorded apart (``settings.adapter``)."""
    cls = provider_class(trace)
    model = str(trace.settings.get("model") or (cls.default_model if cls else "") or "")
    if cls is not None and cls.name == "local":
        from react_core.providers.local import ON_DEVICE

        model = model.split(" + ", 1)[0].removesuffix(ON_DEVICE).strip()
    return model


# OpenInference's ``llm.provider`` names a provider in its own words (Gemini's is ``google``), and only those it lists.
_OPENINFERENCE_PROVIDERS = {
    "openai": "openai", "gcp.gemini": "google", "gcp.vertex_ai": "google", "gcp.gen_ai": "google",
}  # fmt: skip


def openinference_provider(trace: Trace) -> str:
    """OpenInference's name for the run's provider ('' for one it has no name for: llama.cpp, a script)."""
    from openinference.semconv.trace import OpenInferenceLLMProviderValues

    cls = provider_class(trace)
    name = _OPENINFERENCE_PROVIDERS.get(cls.genai_name if cls else "", "")
    return OpenInferenceLLMProviderValues(name).value if name else ""


def tool_definitions(trace: Trace) -> list[dict[str, Any]]:
    """The run's tools as function definitions (``{"type": "function", "name", "description", "parameters"}``, the
    shape of the GenAI conventions' ``gen_ai.tool.definitions``), Finish last. An MCP tool's definition lives on its
    server and is not recorded in a run: it is named with no description."""
    out = []
    for name in [*trace.settings.get("tools", []), tool_specs.FINISH.name]:
        spec = tool_specs.spec(name)
        definition: dict[str, Any] = {"type": "function", "name": name}
        if spec is not None:
            definition.update(description=spec.description, parameters=spec.parameters())
        out.append(definition)
    return out
