"""Examples as standard fine-tuning files, to train elsewhere (a GPU, a hosted fine-tuning service):

- **chat messages** (JSON Lines, ``{"messages": [{"role", "content"}, ...]}``, OpenAI's and most trainers' chat format):
  the fixed prompt prefix as the system message, then the question and each observation as user turns and each reply
  as an assistant turn;
- **instruction / output** (one JSON array, Alpaca's fields, as FireAct shares its data): one record per reply, the
  whole prompt before it as the instruction.

Both carry exactly the text the app sends and the replies the model should give (``examples.Segment``); the stop
sequences are the trainer's business in the chat format and are left out of it. UI-free.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from react_core.training.examples import Segment


def chat_messages(segments: Sequence[Segment], system: str) -> list[dict[str, str]]:
    """The segments as a conversation: ``system`` (the prompt's fixed prefix, which the first segment starts with)
    as the system message, read text as user turns, replies as assistant turns."""
    messages = [{"role": "system", "content": system}] if system else []
    for n, segment in enumerate(segments):
        text = segment.text[len(system) :] if n == 0 and system and segment.text.startswith(system) else segment.text
        if segment.kind == "stop":
            continue
        role = "assistant" if segment.kind == "reply" else "user"
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += text
        elif text:
            messages.append({"role": role, "content": text})
    return messages


def instruction_records(segments: Sequence[Segment]) -> list[dict[str, str]]:
    """One record per reply: everything before it (stops included: the prompt holds them) and the reply."""
    records, before = [], ""
    for segment in segments:
        if segment.kind == "reply":
            records.append({"instruction": before, "input": "", "output": segment.text})
        before += segment.text
    return records


def write_chat(path: Path, conversations: Iterable[tuple[str, list[dict[str, str]]]]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for example_id, messages in conversations:
            f.write(json.dumps({"id": example_id, "messages": messages}, ensure_ascii=False) + "\n")
            n += 1
    return n


def write_instructions(path: Path, records: Iterable[dict[str, Any]]) -> int:
    rows = list(records)
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return len(rows)
