"""The shipped prompt presets: they load, validate, parse with their own format, and tell the truth.

The six dialect presets' worked examples are real runs over the shared HotpotQA paragraphs: every Search that hit
shows the article's first five sentences, every miss names real titles, every Lookup shows the sentence the
paper's Lookup returns and every Calculator shows the tool's own output. Saving and dumping presets is covered too.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from react_core.base.errors import ConfigError
from react_core.base.paths import BUILTIN_PRESETS_DIR as BUILTIN_DIR
from react_core.base.trace import Action
from react_core.dialects import DIALECTS, get_dialect
from react_core.presets.check import example_chunks, validate_preset
from react_core.presets.preset import dump_preset, list_presets, load_preset, load_preset_file
from react_core.presets.render import render_prefix
from react_core.presets.store import PresetStore
from react_core.tools.calculator import calculate

DIALECT_PRESETS = {
    "paper": "paper",
    "gemini-xml": "xml",
    "langchain-json": "json",
    "pause": "pause",
    "function-call": "function",
    "mrkl": "mrkl",
}
ALL_TOOLS = ["search", "lookup", "calculator"]
SHIPPED = sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))
# The on-device model has a 4,096-token context and a run needs room for about eight steps.
MAX_PREFIX_CHARS = 6_500


def _shipped_with_inline_examples() -> list[str]:
    # The tools preset has none: the functions are declared natively.
    return [n for n in SHIPPED if tomllib.loads((BUILTIN_DIR / f"{n}.toml").read_text()).get("examples", "").strip()]


# -- loading and validating ----------------------------------------------------------------------------------


def test_every_chat_dialect_has_a_shipped_preset_checked_here():
    # A new dialect must ship a preset with real worked examples, and be listed above so the checks below run on it.
    # (act is the evaluation's baseline; tools declares its functions natively: its preset is test_tools_mode's)
    assert set(DIALECT_PRESETS.values()) == set(DIALECTS) - {"act", "tools"}
    assert set(DIALECT_PRESETS) <= set(list_presets())
    for name, fmt in DIALECT_PRESETS.items():
        preset = load_preset(name)
        assert preset.builtin and preset.dialect == fmt and preset.mode == "react"


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_preset_loads_and_validates(name, shared_data):
    preset = load_preset(name)
    assert validate_preset(preset) == []
    assert preset.question.count("{question}") == 1
    assert preset.title and preset.description


def test_an_agent_prompt_may_leave_its_instructions_to_its_examples_as_the_papers_fever_prompts_do(shared_data):
    # FEVER.ipynb sends webthink_simple3 as it is: its first line is the instructions, and there is no tool list.
    preset = load_preset("fever-react")
    assert preset.instructions == "" and preset.examples.lstrip().startswith("Determine if there is Observation")
    assert validate_preset(preset) == []
    assert [p.field for p in validate_preset(replace(preset, examples=""))] == ["instructions"]  # nothing at all
    # Dynamic examples send a few of them, which may not be the ones that open with the instructions.
    assert [p.field for p in validate_preset(replace(preset, dynamic_examples=2))] == ["instructions"]


@pytest.mark.parametrize("name", list(DIALECT_PRESETS))
def test_examples_parse_with_the_presets_own_format(name):
    preset = load_preset(name)
    fmt = get_dialect(preset.dialect)
    chunks = example_chunks(fmt, preset.examples)
    results = [fmt.parse(chunk) for _line, chunk in chunks]
    assert all(r.error is None and not r.leaked_observation and r.thought for r in results)
    finals = [r for r in results if r.final_answer is not None]
    questions = _questions(preset)
    assert 3 <= len(questions) <= 6
    assert len(finals) == len(questions)  # every worked example ends with its answer


@pytest.mark.parametrize("name", list(DIALECT_PRESETS))
def test_each_preset_shows_every_tool_a_miss_and_a_finish(name):
    runs = [step for example in _examples(load_preset(name)) for step in example["steps"]]
    tools = {step["action"].tool for step in runs if step["action"]}
    assert tools == {"search", "lookup", "calculator"}
    misses = [s for s in runs if s["action"] and s["action"].tool == "search" and "Similar: [" in s["observation"]]
    lookups = [s["observation"] for s in runs if s["action"] and s["action"].tool == "lookup"]
    assert misses and lookups
    assert all(o.startswith("(Result ") or o == "No more results." for o in lookups)
    assert any(not s["action"] and s["final_answer"] for s in runs)


@pytest.mark.parametrize("name", list(DIALECT_PRESETS))
def test_each_preset_prompt_fits_the_on_device_budget(name):
    preset = load_preset(name)
    prefix = render_prefix(preset, ALL_TOOLS)
    assert len(prefix) <= MAX_PREFIX_CHARS
    # Every tool is described in the dialect's own syntax, numbered, Finish last.
    fmt = get_dialect(preset.dialect)
    block = prefix[prefix.index("(1) ") :]
    assert "(4) " in block and "(5) " not in block
    for tool in [*ALL_TOOLS, "finish"]:
        assert preset.tools[tool]
    assert fmt.parse("x\n" + _action_text(fmt.name, fmt.render_action(Action("search", "entity")))).action


def _action_text(fmt: str, action: str) -> str:
    if fmt == "paper":
        return "Action 1: " + action
    if fmt == "function":
        return "Action: " + action
    return action


@pytest.mark.parametrize("name", list(DIALECT_PRESETS))
def test_each_preset_credits_hotpotqa_and_wikipedia(name):
    description = load_preset(name).description
    assert "HotpotQA" in description and "CC BY-SA 4.0" in description
    assert "Wikipedia" in description and "CC BY-SA" in description


def test_the_presets_use_different_questions():
    seen: dict[str, str] = {}
    for name in DIALECT_PRESETS:
        for question in _questions(load_preset(name)):
            assert question not in seen, f"{question!r} is in both {seen.get(question)} and {name}"
            seen[question] = name


def test_a_tool_left_out_is_left_out_of_the_prompt():
    prefix = render_prefix(load_preset("paper"), ["search", "lookup"])
    assert "Calculator[expression]" not in prefix.split("Here are some examples.")[0]
    assert "(3) Finish[answer]" in prefix


# -- validation reports problems where they are -------------------------------------------------------------


@pytest.mark.parametrize("name", list(DIALECT_PRESETS))
def test_a_broken_example_is_reported_at_the_line_of_its_step(name):
    preset = load_preset(name)
    fmt = get_dialect(preset.dialect)
    chunks = example_chunks(fmt, preset.examples)
    line_no, chunk = chunks[2]  # the third step of the first example
    lines = preset.examples.split("\n")
    chunk_lines = chunk.split("\n")
    # Break the step's action: replace the line holding it (the call, the tag or the blob's "action" key) with prose.
    action_offset = max(i for i, text in enumerate(chunk_lines) if re.search(r'Action|<\w+>|"action"', text))
    broken_line = line_no - 1 + action_offset
    lines[broken_line] = "I will decide later."
    problems = validate_preset(replace(preset, examples="\n".join(lines)))
    assert len(problems) == 1
    problem = problems[0]
    # Reported at the line where the step's action begins (the line after its thought), not at the thought.
    action_start = line_no + next(i for i in range(1, len(chunk_lines)) if chunk_lines[i].strip())
    assert problem.field == "examples" and problem.line == action_start and action_start <= broken_line + 1
    assert str(problem).startswith(f"examples line {action_start}: ")


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("Fly[Pierrepont Noyes]", "Fly is not a tool: an example may call Search, Lookup, Calculator or Finish"),
        ("Search Pierrepont Noyes", "write the action as the paper dialect writes it: Search[Pierrepont Noyes]"),
        ("search[Pierrepont Noyes]", "write the action as the paper dialect writes it: Search[Pierrepont Noyes]"),
        ("Search[Pierrepont Noyes] and more", "write the action as the paper dialect writes it: Search[Pierrepont"),
        ("Search[Pierrepont Noyes", "write the action as the paper dialect writes it: Search[Pierrepont Noyes]"),
    ],
)
def test_an_example_action_the_model_should_not_copy_is_refused_at_its_line(written, reason):
    # The paper dialect reads a model's "Search Pierrepont Noyes" leniently; the examples teach the form, so they
    # must hold actions the dialect writes and reads back the same, naming tools that exist.
    preset = load_preset("paper")
    original = "Action 1: Search[Pierrepont Noyes]"
    at = preset.examples.split("\n").index(original) + 1
    problems = validate_preset(replace(preset, examples=preset.examples.replace(original, f"Action 1: {written}", 1)))
    assert [(p.field, p.line) for p in problems] == [("examples", at)]
    assert problems[0].message.startswith(reason) and problems[0].text == f"Action 1: {written}"
    assert str(problems[0]).startswith(f"examples line {at}: {reason}")


@pytest.mark.parametrize("name", list(DIALECT_PRESETS))
def test_an_unknown_or_disabled_tool_is_refused_in_every_dialect(name):
    preset = load_preset(name)
    fmt = get_dialect(preset.dialect)
    first = fmt.parse(example_chunks(fmt, preset.examples)[0][1]).action
    fly = preset.examples.replace(fmt.render_action(first), fmt.render_action(Action("fly", first.input)), 1)
    problems = validate_preset(replace(preset, examples=fly))
    assert [p.message for p in problems] == [
        "Fly is not a tool: an example may call Search, Lookup, Calculator or Finish"
    ]
    # Reported where the action begins (a dialect may put a header such as "Action 1" or a fence above the call).
    at = next(i for i, text in enumerate(fly.split("\n"), 1) if "fly" in text.lower())
    assert at - 3 <= problems[0].line <= at and "fly" in problems[0].text.lower()
    # With Lookup switched off, the examples that call it are refused; every tool on, nothing is.
    off = validate_preset(preset, ["search", "calculator"])
    assert off and all(p.message.startswith("Lookup is not enabled: ") for p in off)
    assert validate_preset(preset, ALL_TOOLS) == []
    # Editing a preset, its own steps stay valid whatever is off; a step written anew may call only what is on.
    assert validate_preset(preset, ["search"], since=preset) == []
    added = preset.examples.replace(fmt.render_action(first), fmt.render_action(Action("lookup", first.input)), 1)
    problems = validate_preset(replace(preset, examples=added), ["search"], since=preset)
    assert [p.message for p in problems] == ["Lookup is not enabled: an example may call Search or Finish"]


def test_a_question_template_without_the_placeholder_is_a_problem():
    problems = validate_preset(replace(load_preset("paper"), question="Question:\n"))
    assert [p.field for p in problems] == ["question"]


def test_a_question_template_must_end_with_the_line_break_the_first_step_needs():
    problems = validate_preset(replace(load_preset("paper"), question="Question: {question}"))
    assert [str(p) for p in problems] == [
        "question: must end with a line break: the model's first step starts after it"
    ]
    assert validate_preset(replace(load_preset("gemini-xml"), question="Question\n{question}\n\n")) == []
    assert validate_preset(load_preset("tools")) == []  # native tool calls: the question is a message of its own


def test_an_observation_inside_the_models_part_is_a_problem():
    preset = load_preset("paper")
    examples = preset.examples.replace("Action 1: Search[Pierrepont Noyes]", "Observation 1: made up", 1)
    assert any(p.field == "examples" for p in validate_preset(replace(preset, examples=examples)))


# -- saving and dumping --------------------------------------------------------------------------------------


def test_save_as_a_new_preset_starts_a_line_in_the_history_store(tmp_path, monkeypatch):
    edited = replace(load_preset("pause"), instructions=load_preset("pause").instructions + "\nBe brief.\n")
    store = PresetStore()
    assert store.save_new(edited, "my-pause") == "my-pause@1"
    again = store.load("my-pause")
    assert not again.builtin and again.instructions.endswith("Be brief.\n") and again.ref == "my-pause@1"
    assert "my-pause" in store.names() and validate_preset(again) == []


@pytest.mark.parametrize("name", SHIPPED)
def test_saving_never_overwrites_a_shipped_preset(name, tmp_path, monkeypatch):
    shipped = BUILTIN_DIR / f"{name}.toml"
    before = shipped.read_bytes()
    preset = load_preset_file(shipped, builtin=True)
    with pytest.raises(ConfigError, match="shipped preset"):
        PresetStore().save_new(replace(preset, instructions="changed {tools}"), name)
    assert shipped.read_bytes() == before
    assert PresetStore().load(name).ref == f"{name}@1"


def test_a_user_preset_never_shadows_a_shipped_one(tmp_path, monkeypatch):
    folder = tmp_path / "presets"
    folder.mkdir()
    monkeypatch.setenv("REACT_PRESETS_DIR", str(folder))
    (folder / "paper.toml").write_text(dump_preset(replace(load_preset("pause"), name="paper")), encoding="utf-8")
    assert load_preset("paper").builtin and load_preset("paper").dialect == "paper"


@pytest.mark.parametrize("name", SHIPPED)
def test_dump_then_load_gives_the_preset_back_exactly(name, tmp_path, shared_data):
    preset = load_preset(name)
    path = tmp_path / f"{name}.toml"
    path.write_text(dump_preset(preset), encoding="utf-8")
    again = load_preset_file(path)
    fields = ("dialect", "mode", "title", "description", "question", "instructions", "examples", "tools")
    assert {f: getattr(again, f) for f in fields} == {f: getattr(preset, f) for f in fields}


def test_dump_then_load_survives_awkward_text(tmp_path):
    awkward = "Quotes ''' and \"\"\" and \\ backslashes, a tab\there, unicode 東京 🚀, braces {x} and \x7f."
    preset = replace(load_preset("paper"), description=awkward, instructions=awkward + "\n{tools}\n", title=awkward)
    path = tmp_path / "awkward.toml"
    path.write_text(dump_preset(preset), encoding="utf-8")
    again = load_preset_file(path)
    assert (again.description, again.instructions, again.title) == (preset.description, preset.instructions, awkward)


# -- the worked examples tell the truth ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def articles(shared_data) -> dict[str, list[str]]:
    """Every article of the shared HotpotQA distractor files: title -> its sentences as stored."""
    out: dict[str, list[str]] = {}
    for path in sorted((shared_data / "hotpotqa").glob("dev_distractor_*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            for title, sentences in zip(row["context"]["title"], row["context"]["sentences"], strict=True):
                out.setdefault(title, sentences)
    return out


@pytest.fixture(scope="module")
def hotpot_questions(shared_data) -> set[str]:
    questions = set()
    for path in sorted((shared_data / "hotpotqa").glob("dev_distractor_*.json")):
        questions |= {_normal(row["question"]) for row in json.loads(path.read_text(encoding="utf-8"))}
    return questions


def _normal(question: str) -> str:
    return " ".join(question.split()).strip(' "')


def _first_sentences(sentences: list[str], n: int = 5) -> str:
    """What Search shows: the first five sentences, one line."""
    return " ".join(s.strip() for s in sentences[:n] if s.strip())


@pytest.mark.parametrize("name", _shipped_with_inline_examples())
def test_every_observation_in_the_examples_is_what_the_tools_return(name, articles, hotpot_questions):
    preset = load_preset(name)
    examples = _examples(preset)
    assert examples
    for example in examples:
        assert _normal(example["question"]) in hotpot_questions, example["question"]
        page: list[str] | None = None
        keyword, cursor = "", 0
        for step in example["steps"]:
            action, observation = step["action"], step["observation"]
            if action is None:
                continue
            if action.tool == "search":
                if observation.startswith("Could not find ["):
                    assert action.input not in articles
                    assert observation.startswith(f"Could not find [{action.input}]. Similar: [")
                    similar = re.search(r"Similar: (\[.*\])\.$", observation).group(1)
                    titles = eval_list(similar)
                    assert titles and all(t in articles for t in titles), titles
                    continue
                assert action.input in articles, action.input
                sentences = articles[action.input]
                # The same text whether sentences are joined with spaces or as stored with whitespace collapsed.
                assert observation == _first_sentences(sentences) == " ".join("".join(sentences[:5]).split())
                page, keyword, cursor = sentences, "", 0
            elif action.tool == "lookup":
                assert page is not None, "a Lookup before any Search"
                if action.input.casefold() != keyword.casefold():
                    keyword, cursor = action.input, 0
                matches = [" ".join(s.split()) for s in page if action.input.casefold() in s.casefold()]
                if cursor < len(matches):
                    cursor += 1
                    assert observation == f"(Result {cursor} / {len(matches)}) {matches[cursor - 1]}"
                else:
                    assert observation == "No more results."
            elif action.tool == "calculator":
                assert observation == calculate(action.input)
            else:
                pytest.fail(f"unknown tool {action.tool} in {name}")


def eval_list(text: str) -> list[str]:
    """A Python list of string literals (the Similar list), read without evaluating anything."""
    value = ast.literal_eval(text)
    assert isinstance(value, list) and all(isinstance(t, str) for t in value)
    return value


# -- reading the examples back into steps --------------------------------------------------------------------


def _questions(preset) -> list[str]:
    return [example["question"] for example in _examples(preset)]


def _examples(preset) -> list[dict]:
    """The worked examples as {question, steps: [{action, final_answer, observation}]}, read with the format.

    A model's part is what ``example_chunks`` finds; the observation is the text between it and the next part,
    without its header. The question is the text after the question header, up to the first step.
    """
    fmt = get_dialect(preset.dialect)
    lines = preset.examples.split("\n")
    chunks = example_chunks(fmt, preset.examples)
    starts = [line for line, _ in chunks]
    examples: list[dict] = []
    for i, (line, chunk) in enumerate(chunks):
        question_line = _last_question_before(fmt, lines, line)
        if not examples or examples[-1]["question_line"] != question_line:
            examples.append({"question_line": question_line, "question": _question_text(fmt, lines, question_line)})
            examples[-1]["steps"] = []
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(lines)
        after = lines[line - 1 + len(chunk.split("\n")) : end]
        observation = _observation_text(fmt, after)
        result = fmt.parse(chunk)
        examples[-1]["steps"].append(
            {"action": result.action, "final_answer": result.final_answer, "observation": observation}
        )
    return examples


def _last_question_before(fmt, lines: list[str], line: int) -> int:
    for no in range(line - 1, 0, -1):
        if fmt.question_header.match(lines[no - 1]):
            return no
    raise AssertionError(f"no question before line {line}")


def _question_text(fmt, lines: list[str], question_line: int) -> str:
    header = lines[question_line - 1]
    text = re.sub(r"^\s*Question\s*:?\s*", "", header)
    if not text.strip():  # the xml dialect puts the question on the next line
        text = lines[question_line]
    return text.strip()


def _observation_text(fmt, after: list[str]) -> str:
    """The observation in the lines after a model's part (until the next question), header removed."""
    text = "\n".join(after)
    m = re.search(r"^\s*Observation\b[ \t]*\d*[ \t]*:?[ \t]*\n?", text, re.MULTILINE)
    if not m:
        return ""
    body = text[m.end() :]
    question = re.search(r"^\s*Question\b", body, re.MULTILINE)
    return (body[: question.start()] if question else body).strip()


def test_the_example_reader_sees_every_step(shared_data):
    """Guard for the helpers above: the paper preset's first example is read step by step."""
    first = _examples(load_preset("paper"))[0]
    assert first["question"].startswith("What giant silverware company")
    tools = [s["action"].tool if s["action"] else "finish" for s in first["steps"]]
    assert tools == ["search", "search", "search", "lookup", "finish"]
    assert first["steps"][3]["observation"].startswith("(Result 1 / 1) The Oneida Community dissolved")
    assert Path(load_preset("paper").path).parent == BUILTIN_DIR


@pytest.mark.parametrize("name", ["paper", "mrkl", "gemini-xml", "hotpotqa-react"])
def test_the_first_prompt_read_ahead_is_the_agents_first_request(name):
    # The warm-up reads a likely question's first prompt ahead (render_first_prompt): it must be byte for byte what
    # the agent then sends, or the click would reuse nothing it read.
    from react_core.loop.agent import Agent, RunConfig
    from react_core.presets.render import render_first_prompt
    from react_core.providers.scripted import ScriptedProvider
    from react_core.tools.calculator import CALCULATOR
    from react_core.tools.registry import ToolRegistry

    sent = []

    class Recording(ScriptedProvider):
        def stream(self, request):
            sent.append(request.text)
            return super().stream(request)

    preset = load_preset(name)
    provider = Recording(["Thought 1: done.\nAction 1: Finish[4]"])
    config = RunConfig(provider=provider, preset=preset, tools=ToolRegistry([CALCULATOR]), max_calls=1)
    Agent(config).run("What is 2+2?")
    assert sent == [render_first_prompt(preset, ["calculator"], "What is 2+2?")]
