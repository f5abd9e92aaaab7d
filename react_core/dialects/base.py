"""What every action format (dialect) shares: the parse result and the contract.

A dialect owns its action syntax, its parser, its stop sequences, how a past step is written back into the prompt,
how an observation is fed back, a one-line title for a step, whether an action can be written faithfully, and a
llama.cpp grammar for its replies. The parsers never raise on model text and take linear time: any string gives a
ParseResult, with ``error`` set when no action or final answer could be read.

A reply cut before the model ended it (it ran out of tokens, or the service's content filter stopped it) is read with
``parse(text, cut=finish_reason)``: what it holds is taken only when the dialect saw the action or the final answer
closed (``ParseResult.closed``); otherwise it is an error that says the reply was cut, never a half-written action or
answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from react_core.base import tool_specs
from react_core.base.calls import LENGTH
from react_core.base.text import scrub
from react_core.base.trace import Action, Step
from react_core.dialects.grammar import grammar_for
from react_core.dialects.lenient import (
    MAX_INPUT_CHARS,
    clean_input,
    cut_at_stops,
    cut_environment,
    drop_label,
)

# Canonical tool names and the argument name each takes in call-style dialects.
TOOL_PARAMS = tool_specs.PARAMS  # a live view: the running run's own MCP tools are known too
FINISH = tool_specs.FINISH.name
# A step title's length at most, ellipsis included.
TITLE_CHARS = 80
_LABEL_WORD = re.compile(r"^\s*([A-Za-z]+)")


@dataclass
class ParseResult:
    thought: str = ""
    action: Action | None = None
    final_answer: str | None = None
    error: str | None = None
    leaked_observation: bool = False
    # The text holds the end of the action or final answer (its closing bracket, tag, brace or parenthesis, or a line
    # after it), so a reply cut at its length still holds all of it. Set by each dialect; False when it cannot tell.
    closed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The stable shape printed by ``python -m react_core parse``."""
        return {
            "thought": self.thought,
            "action": self.action.to_dict() if self.action else None,
            "final_answer": self.final_answer,
            "error": self.error,
        }

    def scrubbed(self) -> ParseResult:
        """Every text well-formed: a JSON or Python escape such as ``\\ud800`` decodes to a lone surrogate, which no
        file, terminal or browser accepts."""
        self.thought = scrub(self.thought)
        if self.action is not None:
            self.action = Action(scrub(self.action.tool), scrub(self.action.input))
        if self.final_answer is not None:
            self.final_answer = scrub(self.final_answer)
        if self.error is not None:
            self.error = scrub(self.error)
        return self


def cut_short(result: ParseResult, cut: str) -> ParseResult:
    """A reply cut before the model ended it (``cut``: its finish reason, ``length`` or the service's), as the loop
    takes it: its action or final answer when the dialect saw it closed, else an error for the model (the loop goes
    on). A half-written ``Finish[Par`` is never the answer "Par", and a half-written input is never run."""
    if result.closed and (result.action is not None or result.final_answer is not None):
        return result
    if result.final_answer is not None:
        what = "before its final answer was complete, so it was not taken as the answer"
    elif result.action is not None:
        what = "before its action was complete, so the action was not run"
    else:
        what = "before it wrote a complete action"
    if cut == LENGTH:
        error = f"Your reply was cut at its length (it ran out of tokens) {what}. Keep the thought short."
    else:
        error = f"Your reply was cut off by the model's service (finish reason {cut}) {what}."
    return ParseResult(thought=result.thought, leaked_observation=result.leaked_observation, error=error)


def takes_json(tool: str) -> bool:
    """Whether the tool's one input is a JSON object of its arguments (an MCP tool with several)."""
    known = tool_specs.spec(tool)
    return bool(known and known.takes_json)


def whole_object(tool: str, value: object) -> bool:
    """Whether a JSON object the model gave as the input is the tool's arguments as they stand: an MCP tool that takes
    a JSON object, or one given more than its one text argument (optional ones too)."""
    known = tool_specs.spec(tool)
    if known is None or known.schema is None:
        return False
    return known.takes_json or (isinstance(value, dict) and bool(set(value) - {known.param}))


def example_action(tool: str) -> Action:
    """The tool called with its example input, as error messages and tool lists show it."""
    return Action(tool, tool_specs.example(tool))


def one_line(text: str) -> str:
    return " ".join(text.split())


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, an ellipsis marking a cut."""
    text = one_line(scrub(text))
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


class Dialect:
    """The contract of a dialect. Subclasses set the class attributes and implement ``read`` and rendering."""

    name: str = ""
    label: str = ""
    # Sent to the provider and enforced locally. The first ones matter most: providers cap how many they take.
    stop: tuple[str, ...] = ()
    # Names a model may write for a tool, mapped to the canonical name (case-insensitive).
    aliases: dict[str, str] = {}
    # Replies are native tool calls and requests a conversation (the ``tools`` format); only providers with
    # ``native_tools`` can run it.
    native_tools: bool = False
    # A step carries a thought before its action (the Act-only dialect's do not).
    thinks: bool = True
    # How the question is introduced in the prompt (a preset may override it); must contain {question}.
    question_template: str = "Question: {question}\n"
    # Line patterns used to split few-shot examples into the pieces a model writes (see prompts.example_chunks).
    observation_header = re.compile(r"^\s*Observation\b", re.IGNORECASE)
    question_header = re.compile(r"^\s*(?:Question|Claim)\b", re.IGNORECASE)
    turn_header = re.compile(r"^\s*Thought\b", re.IGNORECASE)

    def resolve(self, tool: str) -> str:
        t = tool.strip().lower()
        return self.aliases.get(t, t)

    def is_tool_name(self, word: str) -> bool:
        """Whether a word names a tool this dialect knows (canonical name or alias)."""
        return self.resolve(word) in TOOL_PARAMS

    def input_text(self, tool: str, value: str) -> str:
        """An input as ``tool`` is given it: one trimmed line without surrounding quotes (``clean_input``). A dialect
        whose tools may take lines (code) keeps them for those (``clean_block``)."""
        return clean_input(value)

    def result(
        self, thought: str, tool: str, arg: str, leaked: bool, *, answer: str | None = None, closed: bool = False
    ) -> ParseResult:
        """The ParseResult for a (tool, argument) the model wrote; ``closed``: the text shows where it ends.

        ``answer`` is the final answer as the dialect reads it when it differs from the cleaned argument (dialects
        whose answers may span lines). An empty answer or an empty input for a known tool is a mistake the model
        hears about, not an action to run.
        """
        name = self.resolve(tool)
        if name == FINISH:
            final = clean_input(arg) if answer is None else answer.strip()
            if not final:
                return ParseResult(
                    thought=thought,
                    leaked_observation=leaked,
                    error=f"The answer is empty: write {self.render_action(None, 'your answer')}.",
                )
            return ParseResult(thought=thought, final_answer=final, leaked_observation=leaked, closed=closed)
        value = self.input_text(name, arg)
        if len(value) > MAX_INPUT_CHARS:
            return ParseResult(
                thought=thought,
                leaked_observation=leaked,
                error=f"The {name} input is {len(value):,} characters long; write at most {MAX_INPUT_CHARS:,}.",
            )
        if not value and name in TOOL_PARAMS:
            return ParseResult(
                thought=thought,
                leaked_observation=leaked,
                error=f"The {name} input is empty: write {self.render_action(example_action(name))}.",
            )
        return ParseResult(
            thought=thought, action=Action(tool=name, input=value), leaked_observation=leaked, closed=closed
        )

    # -- reading the model ---------------------------------------------------------------------------
    def parse(self, text: str, *, cut: str = "") -> ParseResult:
        """The model's reply as an action, a final answer or an error. Never raises; linear in the text's length.

        ``cut``: the finish reason of a reply cut before the model ended it (see ``cut_short``); '' when it was not."""
        result = self.read(text).scrubbed()
        return cut_short(result, cut) if cut else result

    def read(self, text: str) -> ParseResult:
        """The dialect's own reading of ``text`` (``parse`` makes every string in it well-formed)."""
        raise NotImplementedError

    # -- writing the prompt --------------------------------------------------------------------------
    def step_prefix(self, index: int) -> str:
        """What the prompt ends with, so the model continues with its thought for step ``index``."""
        raise NotImplementedError

    def render_action(self, action: Action | None, final_answer: str | None = None) -> str:
        """The action in this dialect's syntax, as a model would write it."""
        raise NotImplementedError

    def render_model_part(self, step: Step) -> str:
        """The part of a step the model wrote: step prefix, thought, action (or final answer).

        A step with neither an action nor a final answer is written as ``render_unparsed`` writes it.
        """
        raise NotImplementedError

    def render_observation(self, index: int, text: str) -> str:
        """How an observation is fed back after the model's part of step ``index``."""
        raise NotImplementedError

    def render_step(self, step: Step) -> str:
        """A finished step as it appears in the next prompt. Ends with a newline."""
        out = self.render_model_part(step)
        if step.observation is not None:
            out += self.render_observation(step.index, step.observation.text)
        return out

    def render_unparsed(self, step: Step) -> str:
        """A step whose reply held no readable action, written back as the model wrote it: the step prefix, then the
        model's own lines (up to the stop sequence or its own Observation, blank lines dropped, at most
        ``MAX_INPUT_CHARS``). Its error observation follows, as the ReAct paper's environment answers
        ``Invalid action: …``. Never an invented action: a placeholder such as "(none)" would be copied by the
        model at every later step. Where the step's thought differs from the model's own (a fork continued an
        edited thought), the step's thought stands first. Without ``raw_output`` (an older trace): the thought."""
        prefix = self.step_prefix(step.index)
        text = self.unparsed_text(step)
        gap = "" if not text or prefix.endswith("\n") else " "
        return prefix + gap + text + "\n"

    def unparsed_text(self, step: Step) -> str:
        """The model's own text of a step, without the step prefix it may have restated (see ``render_unparsed``)."""
        raw = scrub(step.raw_output.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", ""))
        text, _leaked = cut_environment(cut_at_stops(raw, self.stop))
        text = text.strip()
        for line in self.step_prefix(step.index).split("\n"):
            word = _LABEL_WORD.match(line)
            if word:
                text = drop_label(text, word.group(1)).strip()
        text = self._with_recorded_thought(step, text)
        lines = [ln.rstrip() for ln in text.split("\n") if ln.strip()]
        text = "\n".join(lines)
        return text if len(text) <= MAX_INPUT_CHARS else text[: MAX_INPUT_CHARS - 1].rstrip() + "…"

    def _with_recorded_thought(self, step: Step, text: str) -> str:
        """``text`` with the model's own thought replaced by the step's, where they differ: a fork's step began
        from an edited thought the model only continued (the prompt held both), or a person edited the thought.
        The step's thought is what the prompt had; the rest of the model's text follows it as written."""
        thought = one_line(step.thought)
        own = one_line(self.read(step.raw_output).thought) if step.raw_output.strip() else ""
        if not thought or thought == own:  # nothing recorded (a hand-made step), or nothing changed
            return text
        if not own:
            return thought + ("\n" + text if text else "")
        # The model's thought as it stands at the start of its text, whatever blanks separate the words.
        m = re.match(r"\s*+".join(map(re.escape, own.split())), text)
        return thought + text[m.end() :] if m else text

    def reminder(self, tools: list[str]) -> str:
        """Restates the expected format for an error observation, listing only the tools that exist."""
        forms = [self.render_action(example_action(t)) for t in tools]
        forms.append(self.render_action(None, tool_specs.FINISH.example))
        return "Write one thought, then exactly one action: " + ", ".join(forms) + "."

    # -- titles, faithful rendering, grammars ---------------------------------------------------------
    def title(self, action: Action | None, final_answer: str | None = None) -> str:
        """A one-line title for a step panel in this dialect's vocabulary (``Search[High Plains]``), at most
        ``TITLE_CHARS`` characters, the input cut with an ellipsis when long. "(no action)" for a step without one."""
        if action is None and final_answer is None:
            return "(no action)"
        tool = action.tool if action is not None else FINISH
        value = one_line(scrub(action.input if action is not None else final_answer or ""))
        limit = TITLE_CHARS - len(self.title_of(tool, ""))
        title = self.title_of(tool, shorten(value, limit))
        while len(title) > TITLE_CHARS and limit > 1:  # quoting made it longer: cut the input a little more
            limit -= len(title) - TITLE_CHARS
            title = self.title_of(tool, shorten(value, limit))
        return shorten(title, TITLE_CHARS)

    def title_of(self, tool: str, value: str) -> str:
        """The title for ``tool`` (``finish`` for a final answer) with an input already made one short line."""
        if tool == FINISH:
            return self.render_action(None, value)
        return self.render_action(Action(tool, value))

    def unrenderable(self, action: Action | None, final_answer: str | None = None) -> str:
        """'' when this dialect writes the action (or the final answer) so that parsing reads it back exactly; else
        why not, for a person. Inputs are as parsing leaves them (``input_text``): one trimmed line without surrounding
        quotes, unless the dialect keeps the tool's lines."""
        if action is None and final_answer is None:
            return "There is no action or final answer to write."
        value = action.input if action is not None else final_answer or ""
        if scrub(value) != value:
            return "The input holds a lone surrogate (a broken character), which no text can carry."
        cleaned = self.input_text(action.tool, value) if action is not None else clean_input(value)
        if not cleaned:
            return "The input is empty; an empty input is read as a mistake, not as an action."
        if cleaned != value:
            return (
                "The input is not one trimmed line without surrounding quotes; parsing would read it as "
                f"{cleaned[:60]!r}."
            )
        if action is not None and (not action.tool or self.resolve(action.tool) != action.tool):
            return f"The tool name {action.tool!r} is not a canonical lower-case name this dialect reads back."
        step = Step(1, thought="Go.", action=action, final_answer=None if action is not None else value)
        back = self.parse(self.render_model_part(step))
        if back.action == step.action and back.final_answer == step.final_answer:
            return ""
        return self.why_unrenderable(value) or (
            f"The {self.name} dialect cannot write {value[:60]!r} so that it reads back the same."
        )

    def why_unrenderable(self, value: str) -> str:
        """The dialect's own reason an input does not survive rendering and parsing ('' for the generic one)."""
        return ""

    def grammar(self, tools: list[str], index: int) -> str:
        """A GBNF grammar (llama.cpp) for the model's reply after ``step_prefix(index)``: a one-line thought and
        exactly one action of this dialect naming one of ``tools``, or the final answer."""
        return grammar_for(self, tools, index)


class LangChainSteps(Dialect):
    """Steps as LangChain's agents write them, without numbers: ``Thought:``, the action, ``Observation:`` (the
    json and mrkl dialects)."""

    def step_prefix(self, index: int) -> str:
        return "Thought:"

    def render_model_part(self, step: Step) -> str:
        if step.action is None and step.final_answer is None:
            return self.render_unparsed(step)
        return f"Thought: {one_line(step.thought)}\n{self.render_action(step.action, step.final_answer)}\n"

    def render_observation(self, index: int, text: str) -> str:
        return f"Observation: {one_line(text)}\n"
