"""The grounding check: an answer is grounded only by evidence a tool returned (a page found, a Lookup or Calculator
result), never by a miss that echoes the model's query; the verdict names the step, the tool and the sentence, and
says only where the answer's words occur, never that the answer is right."""

from __future__ import annotations

import pytest
from wiki_helpers import small_pack

from react_core.base.trace import Action, Observation, Step, Trace
from react_core.knowledge.pack import PackSource
from react_core.report.grounding import QUOTE_CHARS, check_grounding
from react_core.tools import build_tools


def run(answer: str | None, *steps: tuple[str, str, Observation]) -> Trace:
    """A finished trace: each step an (tool, input, observation), then Finish[answer]."""
    taken = [Step(i, action=Action(tool, text), observation=obs) for i, (tool, text, obs) in enumerate(steps, 1)]
    if answer is not None:
        taken.append(Step(len(taken) + 1, final_answer=answer))
    return Trace(question="Q?", steps=taken, final_answer=answer, stop_reason="finished" if answer else "max_calls")


def found(text: str) -> Observation:
    return Observation(text, evidence=True)


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    pack = PackSource(small_pack(tmp_path_factory.mktemp("pack") / "small.sqlite"))
    return build_tools(pack)


def test_a_miss_that_echoes_the_query_does_not_ground_the_same_words(tools):
    # The known bug: "What is 17 * 23 + 4?" searched and answered with the expression itself.
    miss = tools.run(Action("search", "17 * 23 + 4"))
    assert miss.text.startswith("Could not find [17 * 23 + 4]") and not miss.evidence
    g = check_grounding(run("17 * 23 + 4", ("search", "17 * 23 + 4", miss)))
    assert not g.grounded and g.kind == "not_found" and g.step is None
    assert "No tool returned evidence" in g.message


def test_a_calculator_result_grounds_its_value_not_its_expression(tools):
    result = tools.run(Action("calculator", "17 * 23 + 4"))
    assert result.text == "17 * 23 + 4 = 395" and result.evidence
    g = check_grounding(run("395", ("calculator", "17 * 23 + 4", result)))
    assert (g.kind, g.step, g.tool, g.sentence) == ("grounded", 1, "calculator", "17 * 23 + 4 = 395")
    assert g.message == "Occurs in step 1's Calculator result: «17 * 23 + 4 = 395»"
    echo = check_grounding(run("17 * 23 + 4", ("calculator", "17 * 23 + 4", result)))
    assert echo.kind == "not_found"


def test_a_page_found_grounds_and_the_verdict_quotes_the_sentence(tools):
    miss = tools.run(Action("search", "Mercury planet"))
    page = tools.run(Action("search", "Mercury (planet)"))
    g = check_grounding(run("the Sun", ("search", "Mercury planet", miss), ("search", "Mercury (planet)", page)))
    assert (g.kind, g.step, g.tool) == ("grounded", 2, "search")
    assert g.sentence == "It is closest to the Sun."
    assert g.message == "Occurs in step 2's Search result: «It is closest to the Sun.»"
    assert g.to_dict() == {
        "kind": "grounded",
        "message": g.message,
        "step": 2,
        "tool": "search",
        "sentence": "It is closest to the Sun.",
    }


def test_lookup_results_ground_but_their_counter_and_no_more_results_do_not(tools):
    page = tools.run(Action("search", "Long Page"))  # the first 5 sentences: up to "number 4"
    hits = [tools.run(Action("lookup", "alpha")) for _ in range(3)]
    assert hits[2].text == "(Result 3 / 3) Alpha sentence number 9." and hits[2].evidence
    steps = [("search", "Long Page", page)] + [("lookup", "alpha", hit) for hit in hits]
    g = check_grounding(run("number 9", *steps))
    assert (g.step, g.tool, g.sentence) == (4, "lookup", "Alpha sentence number 9.")
    assert g.message == "Occurs in step 4's Lookup result: «Alpha sentence number 9.»"
    counter = Observation("(Result 1 / 2) Alpha is here.", evidence=True)
    assert check_grounding(run("2", ("lookup", "alpha", counter))).kind == "not_found"
    last = tools.run(Action("lookup", "alpha"))
    assert last.text == "No more results." and not last.evidence


def test_errors_never_ground(tools):
    error = tools.run(Action("calculator", "1 / 0"))
    assert error.is_error and not error.evidence
    assert check_grounding(run("Division by zero", ("calculator", "1 / 0", error))).kind == "not_found"


@pytest.mark.parametrize(
    ("answer", "evidence", "kind", "step"),
    [
        ("the Eiffel Tower", ["Visit Eiffel tower, Paris."], "grounded", 1),
        ("1,234", ["a", "The total was 1234 people."], "grounded", 2),
        ("Mars", ["Earth and Venus."], "not_found", None),
        ("New York City", ["New York is big; the city sleeps never."], "partial", None),
        ("Tower", ["Towering heights."], "not_found", None),  # whole words only
        ("yes", ["Both are American."], "yes_no", None),
    ],
)
def test_verdicts_follow_hotpotqa_normalisation(answer, evidence, kind, step):
    g = check_grounding(run(answer, *(("search", f"E{i}", found(t)) for i, t in enumerate(evidence))))
    assert (g.kind, g.step) == (kind, step)


def test_partial_counts_only_evidence_words():
    miss = Observation("Could not find [New York City]. Similar: ['New York'].")
    assert check_grounding(run("New York City", ("search", "New York City", miss))).kind == "not_found"
    mixed = run("New York City", ("search", "New York City", miss), ("search", "New York", found("New York is big.")))
    g = check_grounding(mixed)
    assert g.kind == "partial" and g.message == "Only 2 of the 3 answer words occur in the evidence."
    one = check_grounding(run("Rachel Jackson", ("search", "Rachel", found("Rachel was born in 1767."))))
    assert one.message == "Only 1 of the 2 answer words occurs in the evidence."


def test_all_words_apart_say_so_instead_of_only_all_of_them():
    g = check_grounding(run("Rachel Jackson", ("search", "A", found("Jackson married Rachel in 1794."))))
    assert g.kind == "partial"
    assert g.message == "All 2 answer words occur in the evidence, but not as one phrase."


def test_the_verdict_never_claims_the_answer_is_right():
    # A newcomer's first example: the model searched a list title and answered with that very title. Its words occur
    # in the evidence, and the answer is wrong: the verdict says where they occur, in no word that suggests more.
    page = found("The 1925 Birthday Honours were appointments by King George V.")
    g = check_grounding(run("1925 Birthday Honours", ("search", "1925 Birthday Honours", page)))
    assert g.kind == "grounded"
    assert g.message.startswith("Occurs in step 1's Search result: «The 1925 Birthday Honours")
    assert not {"found", "grounded", "correct", "right", "verified", "true"} & set(g.message.lower().split())


def test_yes_no_says_whether_there_was_evidence_to_judge_it():
    with_evidence = check_grounding(run("Yes", ("search", "A", found("Both are American."))))
    without = check_grounding(run("no", ("search", "A", Observation("Could not find [A]. Similar: []."))))
    assert with_evidence.kind == without.kind == "yes_no"
    assert "read the evidence" in with_evidence.message and "from the model alone" in without.message


def test_no_answer_and_an_answer_of_only_punctuation_are_not_checked():
    assert check_grounding(run(None, ("search", "A", found("Mars")))).kind == "no_answer"
    assert check_grounding(run("?!", ("search", "A", found("Mars ?!")))).kind == "no_answer"


def test_a_long_sentence_is_quoted_around_the_answer():
    sentence = "x " * 300 + "the treasure is Zanzibar indeed " + "y " * 300
    g = check_grounding(run("Zanzibar", ("search", "A", found(sentence.strip()))))
    assert g.grounded and g.sentence == sentence.strip()
    quoted = g.message.split("«", 1)[1].rstrip("»")
    assert "Zanzibar" in quoted and quoted.startswith("…") and quoted.endswith("…")
    assert len(quoted) <= QUOTE_CHARS + 2


def test_traces_from_before_the_evidence_field_ground_on_pages_found():
    old = run("Mars", ("search", "Mars", Observation("Mars is red.", sources=[])))
    data = old.to_dict()
    for step in data["steps"]:
        if step["observation"]:
            del step["observation"]["evidence"]
            step["observation"]["sources"] = [{"title": "Mars", "url": "https://en.wikipedia.org/wiki/Mars"}]
    assert check_grounding(Trace.from_dict(data)).grounded
