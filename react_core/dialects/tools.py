"""The ``tools`` format: native tool calling, beside the text dialects.

The model gets the tools as declared functions (Search, Lookup, Calculator and Finish, from
``react_core.base.tool_specs``; an MCP tool with its server's JSON Schema, its arguments passed on as one JSON text)
and answers with calls, not text actions: a request is a conversation (the question, then each reply and the results
of its calls) and a reply is its text (the Thought) and its calls (the Actions). Several calls in one reply become
several steps, run in order. An argument that is not valid JSON, or lacks the tool's parameter, is an error
observation returned as that call's result, and the loop goes on; an unknown function gets the unknown-tool
observation. A reply without any call is read as text in the function-call syntax (``search(query="…")``, what a model
behind a server without tool calling may write), else it is an error observation that asks for a call. Calls are shown
as ``search(query="High Plains")``.

Only providers with ``native_tools`` run it (the on-device base model cannot). The dialect's text side (``parse``,
``render_*``) is the function-call dialect's, which the CLI's ``parse`` and step titles use.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from react_core.base import tool_specs
from react_core.base.tool_specs import ToolSpec
from react_core.base.trace import Action, Step, ToolCall
from react_core.dialects.base import TOOL_PARAMS, ParseResult, clean_input, cut_short, example_action
from react_core.dialects.function_call import FunctionFormat


def replies(steps: Sequence[Step]) -> list[list[Step]]:
    """The steps grouped by the model reply that wrote them (a reply with several tool calls gave several steps)."""
    groups: list[list[Step]] = []
    for step in steps:
        if groups and step.call is not None and step.call.same_reply_as is not None:
            groups[-1].append(step)
        else:
            groups.append([step])
    return groups


class ToolsFormat(FunctionFormat):
    name = "tools"
    label = "Native tool calls (function calling)"
    stop = ()
    native_tools = True
    question_template = "Question: {question}"

    # -- reading the model ---------------------------------------------------------------------------

    def parse(self, text: str, *, cut: str = "") -> ParseResult:
        """A reply that made no native call: read as text, in the function-call syntax."""
        result = super().parse(text, cut=cut)
        if result.error and result.error.startswith("No action found"):
            result.error = "No function call: call one of the functions you were given."
        return result

    def read_reply(self, text: str, calls: Sequence[ToolCall], *, cut: str = "") -> list[ParseResult]:
        """One result per call, in order (the reply's text is the first one's thought); a reply without calls is
        read as text. In a reply that was cut (``cut``: its finish reason), a call is taken only when its arguments
        are whole JSON."""
        if not calls:
            return [self.parse(text, cut=cut)]
        results = [self.read_call(text.strip() if n == 0 else "", call) for n, call in enumerate(calls)]
        return [cut_short(r, cut) for r in results] if cut else results

    def read_call(self, thought: str, call: ToolCall) -> ParseResult:
        name = self.resolve(call.name)
        if not name:
            return ParseResult(thought=thought, error="A function call without a name: call one of the functions.")
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as e:
            detail = getattr(e, "msg", str(e))
            return ParseResult(
                thought=thought,
                error=f"The arguments of {call.name} are not valid JSON ({detail}): {self._usage(name)}.",
            )
        # From here the arguments are whole JSON: the call is closed.
        param = TOOL_PARAMS.get(name)
        if param is None:  # not a tool: the loop answers with the tools there are
            action = Action(tool=name, input=clean_input(call.arguments)[:200])
            return ParseResult(thought=thought, action=action, closed=True)
        if not isinstance(args, dict):
            return ParseResult(thought=thought, error=f"The arguments must be a JSON object: {self._usage(name)}.")
        known = tool_specs.spec(name)
        # An MCP tool given more than its one text argument: the arguments go on as one JSON text, as given.
        if known is not None and known.schema is not None and (known.takes_json or set(args) - {known.param}):
            text = json.dumps(args, ensure_ascii=False)
            return self.result(thought, name, text, False, answer=text, closed=True)
        value = args.get(param)
        if value is None and len(args) == 1:  # the one argument, under another name: harmless
            value = next(iter(args.values()))
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            return ParseResult(thought=thought, error=f"{name} takes one text argument: {self._usage(name)}.")
        return self.result(thought, name, str(value), False, answer=str(value), closed=True)

    def _usage(self, name: str) -> str:
        if name == tool_specs.FINISH.name:
            return f"call it like {self.render_action(None, tool_specs.FINISH.example)}"
        return f"call it like {self.render_action(example_action(name))}"

    # -- writing the request -------------------------------------------------------------------------

    def declarations(self, tool_names: Sequence[str]) -> tuple[ToolSpec, ...]:
        """The functions to declare: the enabled tools that have a spec, in the usual order, and Finish."""
        specs = [tool_specs.spec(name) for name in tool_names]
        return (*[s for s in specs if s is not None], tool_specs.FINISH)

    def messages(self, steps: Sequence[Step]) -> list[dict[str, Any]]:
        """The conversation after the question, rebuilt from the steps (so a fork or a resumed run sends exactly
        what its steps hold): each reply with its calls, then the result of each call."""
        out: list[dict[str, Any]] = []
        for group in replies(steps):
            reply: dict[str, Any] = {"role": "assistant", "content": group[0].raw_output}
            made = [s.tool_call.to_dict() for s in group if s.tool_call is not None]
            if made:
                reply["tool_calls"] = made
            out.append(reply)
            for step in group:
                text = step.observation.text if step.observation else (step.final_answer or "")
                if step.tool_call is not None:
                    is_error = bool(step.observation and step.observation.is_error)
                    call = step.tool_call
                    out.append(
                        {"role": "tool", "id": call.id, "name": call.name, "content": text, "is_error": is_error}
                    )
                elif step.observation is not None:
                    out.append({"role": "user", "content": f"Observation: {text}"})
        return out

    def reminder(self, tools: list[str]) -> str:
        forms = [self.render_action(example_action(t)) for t in tools]
        forms.append(self.render_action(None, tool_specs.FINISH.example))
        return "Call one function at a time: " + ", ".join(forms) + "."
