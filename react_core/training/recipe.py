"""A fine-tuning recipe: what is learned (the method, its preset, the data) and how (LoRA's rank, the schedule, the
seed). One value, written beside every adapter in its manifest, so an adapter says how to make it again; the
shipped adapters' recipes are ``SHIPPED`` here, and a test checks that each shipped manifest records exactly its
recipe.

The paper's Figure 3 fine-tunes each method on its own trajectories: ``METHODS`` names, for each, the zero-shot
preset the model learns to answer (the prompt the app then sends it) and the evaluation strategy that runs it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from react_core.base.errors import ConfigError
from react_core.providers.adapters import DEFAULT_ADAPTER


@dataclass(frozen=True)
class Method:
    name: str
    preset: str  # the zero-shot prompt the fine-tuned model answers
    strategy: str  # the evaluation strategy that runs it
    agent: bool  # Search and Lookup steps (Act, ReAct) or one direct answer (Standard, CoT)


METHODS = {
    "react": Method("react", "tuned-react", "react", True),
    "act": Method("act", "tuned-act", "act", True),
    "cot": Method("cot", "tuned-cot", "cot", False),
    "standard": Method("standard", "tuned-standard", "standard", False),
}
# The tools a trajectory's prompt lists. Half the examples also list the Calculator (the chat enables it by default,
# the paper's evaluation does not), so the model meets both prompts in training.
TOOLS = ("search", "lookup")
SOMETIMES = ("calculator",)


@dataclass(frozen=True)
class Recipe:
    method: str = "react"
    # Gold trajectories from these HotpotQA files (paths relative to the shared data folder, or absolute).
    gold: tuple[str, ...] = ("hotpotqa/train_distractor_996.json",)
    limit: int = 0  # at most this many questions of the gold files (0: all)
    arithmetic: int = 120  # Calculator trajectories added for the agent methods (``arithmetic``)
    rank: int = 16
    alpha: int = 32
    epochs: int = 2
    batch: int = 8  # examples per optimizer step
    learning_rate: float = 2e-4
    warmup: float = 0.05  # of the steps
    seed: int = 0
    bf16: bool = False  # compute in bfloat16 (faster on CPUs that have it; float32 is the exact choice)
    checkpoint_every: int = 10  # steps
    sentences: int = 5  # sentences a Search shows, as the app's default
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # provenance notes, never a setting

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(f"unknown method {self.method!r}: choose from {', '.join(METHODS)}")
        for name in ("rank", "alpha", "epochs", "batch", "checkpoint_every", "sentences"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"{name} must be at least 1")
        if not 0 < self.learning_rate < 1 or not 0 <= self.warmup < 1 or self.limit < 0 or self.arithmetic < 0:
            raise ConfigError("learning rate in (0, 1), warm-up in [0, 1) and limit >= 0, please")

    @property
    def spec(self) -> Method:
        return METHODS[self.method]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["gold"] = list(self.gold)
        d.pop("extra")
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Recipe:
        known = {f.name for f in fields(cls)} - {"extra"}
        values = {k: v for k, v in d.items() if k in known}
        if "gold" in values:
            values["gold"] = tuple(values["gold"])
        return cls(**values)

    def updated(self, **changes: Any) -> Recipe:
        return replace(self, **changes)

    @property
    def digest(self) -> str:
        """Names what this recipe trains on and how, for resuming: a folder of another recipe is not resumed."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


# The adapters shipped in adapters/: each folder's name -> the recipe that made it.
SHIPPED = {
    DEFAULT_ADAPTER: Recipe(method="react"),
}
