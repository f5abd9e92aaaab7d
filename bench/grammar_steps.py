"""What the two grammar benches share: the on-device model with both samplers at hand, and step 1 of one HotpotQA
question in each text dialect (its prompt, grammar and the stop sequences a run sends)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from react_core.base.paths import shared_data_dir
from react_core.dialects import DIALECTS
from react_core.presets.preset import Preset, load_preset
from react_core.presets.render import render_prefix, render_question
from react_core.providers.local import LocalProvider

TEXT_DIALECTS = ["paper", "xml", "json", "pause", "function", "mrkl"]
TOOLS = ["search", "lookup", "calculator"]
SOURCE = shared_data_dir() / "hotpotqa" / "dev_distractor_first100.json"


@dataclass
class Samplers:
    """The loaded model, our sampler (``llama_grammar``) and llama-cpp-python's own; ``use`` puts one in place."""

    llama: Any
    ours: Any
    theirs: Any

    def use(self, sampler: Any) -> None:
        self.llama._init_sampler = sampler

    def restore(self) -> None:
        self.llama._init_sampler = self.ours


def samplers() -> Samplers:
    from llama_cpp import Llama

    llama = LocalProvider(on_progress=None).llama
    return Samplers(llama, llama._init_sampler, lambda **options: Llama._init_sampler(llama, **options))


@dataclass
class DialectStep:
    name: str
    dialect: Any
    text: str  # the prompt up to the step's first token
    grammar: str
    stop: list[str]


def dialect_steps() -> Iterator[DialectStep]:
    """Step 1 of question 0 of ``SOURCE`` in each text dialect, with the dialect's preset and ``TOOLS``."""
    question = json.loads(SOURCE.read_text(encoding="utf-8"))[0]["question"]
    for name in TEXT_DIALECTS:
        f = DIALECTS[name]
        preset = load_preset(Preset.default_for(name))
        text = render_prefix(preset, TOOLS) + render_question(preset, question) + f.step_prefix(1)
        stop = list(dict.fromkeys(f.stop + LocalProvider.extra_stops))  # as a run sends them
        yield DialectStep(name, f, text, f.grammar(TOOLS, 1), stop)
