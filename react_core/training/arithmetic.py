"""Gold trajectories for the Calculator: arithmetic questions, worked with the app's own Calculator tool.

The chat enables the Calculator by default and offers an arithmetic example question, and HotpotQA never needs it, so a
model fine-tuned on HotpotQA alone would Search for "17 * 23 + 4". A few trajectories that compute instead teach it
to pick the tool a question needs. Questions are drawn from ``random.Random(seed)`` (the same seed, the same file);
each observation is what the Calculator returns. UI-free.
"""

from __future__ import annotations

import random

from react_core.base.trace import Action, Step, Trace
from react_core.tools import build_tools
from react_core.tools.calculator import calculator_result

# How a question asks, and the expression it asks for (numbers drawn for a, b and c).
TEMPLATES = (
    ("What is {a} * {b} + {c}?", "{a} * {b} + {c}"),
    ("What is {a} plus {b}?", "{a} + {b}"),
    ("How much is {a} times {b}?", "{a} * {b}"),
    ("What is {a} minus {b}?", "{a} - {b}"),
    ("What is {a} divided by {b}?", "{a} / {b}"),
    ("What is ({a} + {b}) * {c}?", "({a} + {b}) * {c}"),
    ("Compute {a} * {b} - {c}.", "{a} * {b} - {c}"),
    ("What is {a} squared?", "{a} ** 2"),
)


def write_arithmetic(n: int, seed: int = 0) -> list[Trace]:
    """``n`` arithmetic questions, each a Calculator step and a Finish with its result."""
    rng = random.Random(seed)
    tools = build_tools(None, ["calculator"])
    traces = []
    for _ in range(n):
        question, expression = rng.choice(TEMPLATES)
        numbers = {k: rng.randint(2, 999) for k in "abc"}
        question, expression = question.format(**numbers), expression.format(**numbers)
        observation = tools.run(Action("calculator", expression))
        observation.stats.seconds = 0.0
        result = calculator_result(observation.text)
        steps = [
            Step(
                1,
                thought=f"This is arithmetic: I need to compute {expression}.",
                action=Action("calculator", expression),
                observation=observation,
            ),
            Step(2, thought=f"The Calculator says {result}. So the answer is {result}.", final_answer=result),
        ]
        traces.append(Trace(question, {"strategy": "react"}, steps, result, "finished", expected_answer=result))
    return traces
