"""Trajectories as the text a model learns from (react_core.training.examples, .formats, .tokens): exactly the prompts
the app sends (a real run replaying the same replies sees the same text), the replies and their stops learned and
nothing else, and the standard fine-tuning files holding the same text."""

from __future__ import annotations

import pytest
from training_helpers import RECORDS, write_records

from react_core.base.trace import Trace
from react_core.evaluation.strategies import direct_request
from react_core.knowledge.pack import PackSource
from react_core.loop.agent import Agent, RunConfig
from react_core.presets.preset import load_preset
from react_core.presets.render import render_prefix
from react_core.providers.scripted import ScriptedProvider
from react_core.tools.registry import ToolRegistry
from react_core.tools.wiki import make_wiki_tools
from react_core.training import formats, gold
from react_core.training.examples import Segment, segments_for
from react_core.training.sources import gold_pack
from react_core.training.tokens import tokenize

TOOLS = ["search", "lookup"]


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory):
    folder = tmp_path_factory.mktemp("examples")
    pack = PackSource(gold_pack([write_records(folder)], folder / "pack.sqlite"))
    out = {}
    for record in RECORDS:
        question = gold.GoldQuestion.from_record(record)
        out[record["id"]] = {
            "react": gold.write_react(question, ToolRegistry(make_wiki_tools(pack))),
            "act": gold.write_act(question, ToolRegistry(make_wiki_tools(pack))),
            "cot": gold.write_cot(question),
            "standard": gold.write_standard(question),
        }
    yield out, pack
    pack.close()


def _replies(segments: list[Segment]) -> list[tuple[str, str]]:
    """(the text before each reply, the reply)."""
    before, out = "", []
    for s in segments:
        if s.kind == "reply":
            out.append((before, s.text))
        before += s.text
    return out


@pytest.mark.parametrize("method", ["react", "act"])
@pytest.mark.parametrize("qid", [r["id"] for r in RECORDS])
def test_each_reply_follows_exactly_the_prompt_a_real_run_sends(trajectories, method, qid):
    made, pack = trajectories
    trace: Trace = made[qid][method]
    preset = load_preset(f"tuned-{method}")
    segments = segments_for(trace, preset, TOOLS)
    replies = _replies(segments)
    # A real run with the scripted provider answering those replies, on the same knowledge source's tools.
    provider = ScriptedProvider([reply for _, reply in replies])
    tools = ToolRegistry(make_wiki_tools(pack))
    run = Agent(RunConfig(provider=provider, preset=preset, tools=tools, max_calls=len(replies))).run(trace.question)
    assert run.stop_reason == "finished" and run.final_answer == trace.final_answer
    assert [r.text for r in provider.requests] == [before for before, _ in replies]
    assert [s.observation.text for s in run.steps if s.observation] == [
        s.observation.text for s in trace.steps if s.observation
    ]


def test_what_is_learned_is_the_replies_and_the_stop_that_ends_each(trajectories):
    trace = trajectories[0]["bridge"]["react"]
    segments = segments_for(trace, load_preset("tuned-react"), TOOLS)
    learned = [s for s in segments if s.learned]
    assert [s.kind for s in learned] == ["reply", "stop"] * 3
    assert all(s.text == "Observation" for s in learned if s.kind == "stop")
    assert learned[0].text == " " + trace.steps[0].thought + "\nAction 1: Search[Blue Harbour]\n"
    assert not any("Observation 1:" in s.text for s in learned)  # the observations are read, never learned


def test_a_direct_answer_is_learned_after_the_evaluations_own_request(trajectories):
    for method, stop in (("standard", "\n"), ("cot", "\nQuestion:")):
        trace = trajectories[0]["bridge"][method]
        preset = load_preset(f"tuned-{method}")
        segments = segments_for(trace, preset, [])
        assert segments[0].text == direct_request(preset, trace.question).text
        assert [s.kind for s in segments] == ["prompt", "reply", "stop"] and segments[-1].text == stop
    cot = segments_for(trajectories[0]["bridge"]["cot"], load_preset("tuned-cot"), [])
    assert cot[1].text.endswith("\nAnswer: Marseille")


def test_the_standard_files_hold_the_same_text(trajectories):
    preset = load_preset("tuned-react")
    segments = segments_for(trajectories[0]["lookup"]["react"], preset, TOOLS)
    system = render_prefix(preset, TOOLS)
    messages = formats.chat_messages(segments, system)
    assert messages[0] == {"role": "system", "content": system}
    roles = [m["role"] for m in messages[1:]]
    assert roles == ["user", "assistant"] * 4  # the question, then each observation, as the user's turns
    assert [m["content"] for m in messages if m["role"] == "assistant"] == [
        s.text for s in segments if s.kind == "reply"
    ]
    assert system + "".join(m["content"] for m in messages[1:]) == "".join(s.text for s in segments if s.kind != "stop")
    records = formats.instruction_records(segments)
    assert [(r["instruction"], r["output"]) for r in records] == _replies(segments)


def test_tokens_learned_are_exactly_the_learned_segments():
    segments = [Segment("Question: q\nThought 1:", "prompt"), Segment(" ok\n", "reply"), Segment("Obs", "stop")]
    characters = tokenize("x", segments, lambda text, first: [ord(c) for c in text])
    learned = "".join(chr(characters.ids[i]) for a, b in characters.learned for i in range(a, b))
    assert learned == " ok\nObs" and characters.learned == [(22, 29)]


@pytest.mark.model
def test_the_model_tokenizer_reads_each_segment_as_the_app_does(trajectories):
    from react_core.providers.local import default_model_path
    from react_core.training.tokens import Tokenizer

    tokenizer = Tokenizer(default_model_path(None))
    segments = segments_for(trajectories[0]["bridge"]["react"], load_preset("tuned-react"), TOOLS)
    example = tokenize("bridge", segments, tokenizer)
    assert example.ids[0] == tokenizer("", first=True)[0]  # the prompt starts with the model's BOS, as the app's
    for (a, b), reply in zip(example.learned[::1], [s for s in segments if s.learned][::2], strict=False):
        assert tokenizer.llama.detokenize(example.ids[a:b]).decode("utf-8").startswith(reply.text)
