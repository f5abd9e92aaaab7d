"""Small HotpotQA-format questions with supporting facts, and a pack of their paragraphs, for the fine-tuning tests:
a bridge, a bridge whose answer sentence is past the first five (a Lookup), a bridge through a title a text names
without its parenthesis (a miss to recover from), a comparison, a yes/no comparison, and one whose gold paragraph the
pack lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def record(
    qid: str, question: str, answer: str, kind: str, facts: list[tuple[str, int]], context: dict[str, list[str]]
):
    return {
        "id": qid,
        "question": question,
        "answer": answer,
        "type": kind,
        "level": "medium",
        "supporting_facts": {"title": [t for t, _ in facts], "sent_id": [i for _, i in facts]},
        "context": {"title": list(context), "sentences": list(context.values())},
    }


FILLER = [f" Filler sentence number {n} about nothing in particular." for n in range(1, 8)]

RECORDS: list[dict[str, Any]] = [
    record(
        "bridge",
        "Which city was the director of the film Blue Harbour born in?",
        "Marseille",
        "bridge",
        [("Blue Harbour", 0), ("Anna Varga", 1)],
        {
            "Blue Harbour": ["Blue Harbour is a 1994 drama film directed by Anna Varga.", " It was shot in Norway."],
            "Anna Varga": ["Anna Varga (born 1950) is a film director.", " Varga was born in Marseille, France."],
        },
    ),
    record(
        "lookup",
        "What river flows through the town where Kestrel Mills was founded?",
        "River Wensum",
        "bridge",
        [("Kestrel Mills", 6), ("Aylsham", 0)],
        {
            "Kestrel Mills": [
                "Kestrel Mills is a textile company.",
                *FILLER[:5],
                " Kestrel Mills was founded in Aylsham.",
            ],
            "Aylsham": ["Aylsham is a market town on the River Wensum in Norfolk."],
        },
    ),
    record(
        "miss",
        "Which band released the album Doolittle?",
        "Pixies",
        "bridge",
        [("Doolittle (album)", 0), ("Pixies", 0)],
        {
            "Doolittle (album)": ["Doolittle is the second album by the band Pixies."],
            "Pixies": ["Pixies are an American rock band formed in Boston."],
            "Doolittle (horse)": ["Doolittle was a racehorse."],
        },
    ),
    record(
        "compare",
        "Which magazine was started first, Arthur's Magazine or First for Women?",
        "Arthur's Magazine",
        "comparison",
        [("Arthur's Magazine", 0), ("First for Women", 0)],
        {
            "Arthur's Magazine": ["Arthur's Magazine (1844–1846) was an American literary periodical."],
            "First for Women": ["First for Women is a woman's magazine started in 1989."],
        },
    ),
    record(
        "yesno",
        "Are Scott Derrickson and Ed Wood of the same nationality?",
        "yes",
        "comparison",
        [("Scott Derrickson", 0), ("Ed Wood", 0)],
        {
            "Scott Derrickson": ["Scott Derrickson (born July 16, 1966) is an American director."],
            "Ed Wood": ["Edward Davis Wood Jr. (1924–1978) was an American filmmaker."],
        },
    ),
]
# A question whose second gold paragraph is nowhere in the pack: no faithful trajectory.
UNFOUND = record(
    "unfound",
    "Who founded the company that made the Zephyr lamp?",
    "Ida Holm",
    "bridge",
    [("Zephyr lamp", 0), ("Holm Lighting", 0)],
    {"Zephyr lamp": ["The Zephyr lamp was made by Holm Lighting."]},
)


def write_records(folder: Path, records: list[dict[str, Any]] | None = None) -> Path:
    path = folder / "train.json"
    path.write_text(json.dumps(records if records is not None else RECORDS), encoding="utf-8")
    return path
