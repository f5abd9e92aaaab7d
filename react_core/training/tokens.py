"""Examples as token ids, cut by the on-device model's own tokenizer (llama.cpp's), so training reads the tokens the
app's model will read: each segment is tokenized on its own, as the app tokenizes a prompt and the model then writes
its reply token by token after it. A learned segment's tokens are the ones the loss is on (``learned`` spans).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from react_core.training.examples import Segment


@dataclass
class TokenExample:
    id: str
    ids: list[int]
    learned: list[tuple[int, int]] = field(default_factory=list)  # [start, end) token ranges the loss is on

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "ids": self.ids, "learned": [list(r) for r in self.learned]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TokenExample:
        return cls(str(d["id"]), [int(i) for i in d["ids"]], [(int(a), int(b)) for a, b in d["learned"]])

    @property
    def learned_tokens(self) -> int:
        return sum(b - a for a, b in self.learned)


class Tokenizer:
    """llama.cpp's tokenizer of a GGUF file (its vocabulary only: no weights are loaded)."""

    def __init__(self, model_path: str | Path) -> None:
        from llama_cpp import Llama

        from react_core.providers.llama_support import safe_model_defaults

        with safe_model_defaults():
            self.llama = Llama(model_path=str(model_path), vocab_only=True, verbose=False)

    def __call__(self, text: str, *, first: bool) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=first, special=False)


def tokenize(example_id: str, segments: Sequence[Segment], tokenizer: Tokenizer) -> TokenExample:
    ids: list[int] = []
    learned: list[tuple[int, int]] = []
    for segment in segments:
        piece = tokenizer(segment.text, first=not ids)
        if segment.learned:
            if learned and learned[-1][1] == len(ids):  # a reply and its stop: one range
                learned[-1] = (learned[-1][0], len(ids) + len(piece))
            else:
                learned.append((len(ids), len(ids) + len(piece)))
        ids += piece
    return TokenExample(example_id, ids, learned)


def write_examples(path: Path, examples: Iterable[TokenExample]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for example in examples:
            f.write(json.dumps(example.to_dict(), separators=(",", ":")) + "\n")
            n += 1
    return n


def read_examples(path: Path) -> list[TokenExample]:
    with path.open(encoding="utf-8") as f:
        return [TokenExample.from_dict(json.loads(line)) for line in f if line.strip()]
