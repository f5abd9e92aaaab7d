"""Before a run becomes a worked example (History's "Use as example…"), what it would teach that a person may not mean
to teach: a step a person edited or wrote, an action repeated for nothing, an answer that is wrong or that nobody
checked, and for an imported run, plainly, what happens to it. A clean run with a known right answer gets no warning."""

from __future__ import annotations

from react_core.base.trace import Action, Intervention, Observation, Step, Trace
from react_core.presets.edit import PromptEdit


def _run(*, expected: str | None = "42", answer: str = "42", repeat: bool = False, note: str = "") -> Trace:
    steps = [Step(1, "Multiply.", Action("calculator", "6 * 7"), Observation("6 * 7 = 42", note=note, evidence=True))]
    if repeat:
        steps.append(Step(2, "Again.", Action("calculator", " 6  * 7"), Observation("6 * 7 = 42", evidence=True)))
    steps.append(Step(len(steps) + 1, "Done.", final_answer=answer))
    return Trace("What is 6 * 7?", steps=steps, final_answer=answer, stop_reason="finished", expected_answer=expected)


def test_a_clean_run_with_a_right_answer_gets_no_warning():
    assert PromptEdit.example_warnings(_run()) == []


def test_each_thing_a_model_should_not_learn_is_said():
    (edited,) = PromptEdit.example_warnings(_run(note=Observation.FORK_NOTE), fork_step=1, origin="fork")
    assert edited.startswith("Step 1's observation was edited by hand in a fork, not written by the model")
    (thought,) = PromptEdit.example_warnings(_run(), fork_step=2, origin="fork")
    assert thought.startswith("Step 2's thought was edited by hand in a fork")
    written = _run()
    written.steps[0].interventions = [Intervention("observe", "tool")]
    assert PromptEdit.example_warnings(written)[0].startswith(
        "Step 1's observation was written by a person in step mode"
    )
    (repeated,) = PromptEdit.example_warnings(_run(repeat=True))  # the same action, spacing aside
    assert repeated.startswith("Step 2 repeats step 1's action") and "wasted step" in repeated
    (wrong,) = PromptEdit.example_warnings(_run(answer="41"))
    assert wrong.startswith("The answer is wrong: Expected answer: «42»")
    (unchecked,) = PromptEdit.example_warnings(_run(expected=None))
    assert unchecked == "The answer is unverified: no expected answer is known for this question. Check it first."
    (ungrounded,) = PromptEdit.example_warnings(_run(expected=None, answer="43"))
    assert "it occurs in no tool's evidence" in ungrounded


def test_an_imported_run_says_plainly_what_happens_to_it():
    (imported,) = PromptEdit.example_warnings(_run(), origin="import")
    assert imported.startswith("This run was imported from a file: its question and steps are written into your prompt")
    assert "cannot be used again" not in imported
