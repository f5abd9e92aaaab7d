"""A run as one self-contained HTML file: it opens offline in any browser, with the question, the settings, every
step in the run's own dialect (Thought, Action, Observation, sources), each step's model call (the request texts
rebuilt from the trace, the response, finish reason and tokens) and the answer with the expected-answer and evidence
lines.

Nothing from the run is ever read as HTML. Every text a model, a wiki, a file or a person wrote goes through ``esc``
(lone surrogates replaced, then ``html.escape`` with quotes), so it can only ever be character data or a quoted
attribute value; a link's address is kept only when ``safe_url`` accepts it (http or https). The page carries a
Content-Security-Policy that allows no script, no network request and no form, only its own inline stylesheet:
collapsing uses ``<details>``, which needs no script. UI-free: never imports streamlit.
"""

from __future__ import annotations

import html
import json
from typing import Any

from react_core.base import call_records
from react_core.base.call_records import CallTexts
from react_core.base.errors import ReactLabError
from react_core.base.text import scrub
from react_core.base.trace import Source, Step, Trace
from react_core.knowledge.setting import Knowledge
from react_core.report.expected import check_expected
from react_core.report.exports import Saying, answered_settings
from react_core.report.grounding import check_grounding

__all__ = [
    "CSP",
    "NO_ANSWER",
    "STYLE",
    "answer_section",
    "call_figures",
    "esc",
    "page",
    "para",
    "pre",
    "settings_line",
    "sources_list",
    "step_section",
    "to_html",
]

# No script, no fetch, no image, no frame, no form, no <base>: only the inline stylesheet below.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#1f2328;background:#fff}
h1{font-size:1.6rem;margin-bottom:0.3rem}h2{font-size:1.15rem;margin:0}h3{font-size:0.95rem;margin:0.8rem 0 0.2rem}
.meta{color:#59636e;font-size:0.9rem;margin:0.2rem 0}
.step{border:1px solid #d1d9e0;border-radius:8px;padding:0.8rem 1rem;margin:1rem 0}
.step.error{border-color:#cf222e}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border-radius:6px;padding:0.5rem;margin:0.2rem 0;
font-size:0.85rem}
.error pre.obs{background:#ffebe9}
.new{background:#fff8c5}del{opacity:0.6}
details{margin:0.4rem 0}summary{cursor:pointer;font-weight:600}
.answer{border:2px solid #1f883d;border-radius:8px;padding:0.8rem 1rem;margin:1.5rem 0}
.answer.none{border-color:#59636e}
.final{font-size:1.3rem;font-weight:600}
.credit{color:#59636e;font-size:0.8rem;font-style:italic}
ul{margin:0.2rem 0;padding-left:1.4rem}
"""


NO_ANSWER = "(no answer)"


def esc(value: Any) -> str:
    """Run text as HTML character data or a quoted attribute value, never markup."""
    return html.escape(scrub(str(value)), quote=True)


def pre(text: str, cls: str = "") -> str:
    return f'<pre class="{cls}">{esc(text)}</pre>' if cls else f"<pre>{esc(text)}</pre>"


def para(text: str, cls: str = "meta") -> str:
    return f'<p class="{cls}">{esc(text)}</p>'


def _link(src: Source) -> str:
    href = src.href
    title = esc(src.title or src.url or "(untitled)")
    if not href:
        return title
    return f'<a href="{esc(href)}" rel="noopener noreferrer nofollow">{title}</a>'


def sources_list(sources: list[Source], label: str) -> str:
    if not sources:
        return ""
    items = "".join(f"<li>{_link(s)}</li>" for s in sources)
    return f"<h3>{esc(label)}</h3><ul>{items}</ul>"


def settings_line(settings: dict[str, Any]) -> str:
    """The settings a run recorded, as one line: ``provider scripted · model … · dialect paper · …``."""
    parts = []
    for key, value in settings.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"{key.replace('_', ' ')} {shown}")
    return " · ".join(parts) or "no settings recorded"


def call_figures(step: Step) -> str:
    """Tokens, times and finish reason of a step's model call."""
    u = step.usage
    parts = [f"{u.prompt_tokens:,} prompt tokens + {u.completion_tokens:,} written"]
    call = step.call
    if call is not None:
        if call.reused_tokens:
            parts.append(f"{call.reused_tokens:,} reused from the cache")
        parts.append(f"first token {call.first_token_seconds:.2f} s · call {call.seconds:.2f} s")
        parts.append(f"finish reason: {call.finish_reason or 'not given'}")
    return " · ".join(parts)


def _response(step: Step) -> str:
    raw, call = step.raw_output, step.call
    if call is None or call.cut_at is None:
        return pre(raw or "(nothing)")
    note = para(f"Cut at the stop sequence {json.dumps(call.cut_by)}; the struck-out text after it was not used.")
    return f"{note}<pre>{esc(raw[: call.cut_at])}<del>{esc(raw[call.cut_at :])}</del></pre>"


def _model_call(trace: Trace, position: int, rebuilt: CallTexts | None) -> str:
    """The step's model call in a closed ``<details>``: figures, the request (its parameters as JSON and its texts
    verbatim), the response as streamed."""
    step = trace.steps[position]
    head = "<details><summary>Model call</summary>"
    if step.call is None:
        return (
            head
            + para("This step does not record its model call (a run saved before ReAct Lab kept them).")
            + "</details>"
        )
    if step.call.same_reply_as is not None:
        note = (
            f"This tool call came in the same reply as step {step.call.same_reply_as}'s: its model call is shown there."
        )
        return head + para(note) + "</details>"
    if rebuilt is None:
        return (
            head
            + para("The call of this step cannot be rebuilt: the step before it does not record its call.")
            + ("</details>")
        )
    try:
        request = call_records.CallTexts.request(trace, step.index)
    except ReactLabError as e:
        return head + para(str(e)) + "</details>"
    parts = [head, para(call_figures(step))]
    where = request["api"] + (f" · {request['endpoint']}" if request["endpoint"] else " · in-process")
    parts.append(para(f"Sent to {where}"))
    if request["stop_local"]:
        parts.append(para("Stop sequences cut by the loop: " + ", ".join(json.dumps(s) for s in request["stop_local"])))
    for omitted in request["omitted"]:
        parts.append(para(f"Left out: {omitted.get('param', '')} ({omitted.get('reason', '')})"))
    parts.append("<h3>Request parameters</h3>" + pre(json.dumps(step.call.body, ensure_ascii=False, indent=2)))
    texts = {"system": rebuilt.system, "prompt": rebuilt.prompt}
    if rebuilt.messages is not None:
        texts["messages"] = json.dumps(list(rebuilt.messages), ensure_ascii=False, indent=2)
    for name, text in texts.items():
        parts.append(f"<details><summary>{esc(f'{name} ({len(text):,} characters)')}</summary>{pre(text)}</details>")
    if step.call.prompt_added and position > 0:
        parts.append("<h3>New in this call</h3>" + pre(step.call.prompt_added, "new"))
    parts.append("<h3>Response as streamed</h3>" + _response(step))
    return "".join(parts) + "</details>"


def step_section(
    trace: Trace, position: int, rebuilt: CallTexts | None, anchor: str = "step-", *, model_call: bool = True
) -> str:
    """One step as a ``<section>`` (its id ``anchor`` + its number): Thought, Action, Observation, sources, note,
    time and (unless ``model_call`` is False) its model call."""
    dialect = trace.settings.get("dialect", "paper")
    knowledge = str(trace.settings.get("knowledge", ""))
    step = trace.steps[position]
    obs = step.observation
    cls = "step error" if step.is_error else "step"
    out = [f'<section class="{cls}" id="{esc(anchor)}{int(step.index)}">']
    said = Saying(step, dialect)
    out.append(f"<h2>{esc(f'Step {step.index} · {said.title}')}</h2>")
    out.append("<h3>Thought</h3>" + pre(step.thought or "(no thought)"))
    out.append("<h3>Action</h3>" + pre(said.text))
    if obs is not None:
        out.append(f"<h3>{'Observation (error)' if obs.is_error else 'Observation'}</h3>" + pre(obs.text, "obs"))
        if obs.note:
            out.append(para(f"Note: {obs.note}"))
        out.append(sources_list(obs.sources, "Source"))
        if obs.sources:
            out.append(para(Knowledge(knowledge).credit(obs.note), "credit"))
    if step.leaked_observation:
        out.append(para("The model started writing its own Observation; that part was cut off and ignored."))
    http = obs.stats.http_requests if obs is not None else 0
    out.append(para(f"Step took {step.seconds:.2f} s" + (f" · {http} HTTP requests" if http else "")))
    if model_call:
        out.append(_model_call(trace, position, rebuilt))
    out.append("</section>")
    return "".join(out)


def answer_section(trace: Trace, anchor: str = "answer", badges: bool = False) -> str:
    """The answer (or why there is none), the expected-answer line, the evidence line and the sources. ``badges``:
    the two checks as coloured lines, their class named by their verdict (a column of an arena)."""
    expected = check_expected(trace)
    has = trace.final_answer is not None
    out = [f'<section class="answer{"" if has else " none"}" id="{esc(anchor)}"><h2>Answer</h2>']
    if has:
        out.append(para(trace.final_answer or "(empty answer)", "final"))
    else:
        out.append(para(trace.error or "This run gave no answer."))
    if expected is not None:
        line = f"Expected answer: {expected.expected} ({expected.verdict})"
        out.append(para(line, f"meta badge {expected.kind}") if badges else para(line))
    if has:
        grounding = check_grounding(trace)
        line = f"Evidence: {grounding.message}"
        out.append(para(line, f"meta badge {grounding.kind}") if badges else para(line))
    if trace.sources:
        out.append(sources_list(trace.sources, "Sources"))
        out.append(para(Source.CREDIT, "credit"))
    out.append("</section>")
    return "".join(out)


def page(title: str, body: list[str], *, style: str = STYLE, body_class: str = "") -> str:
    """A whole HTML document around ``body`` (parts already escaped): the policy that allows no script and no
    request, the inline stylesheet, the title (escaped here)."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)} · ReAct Lab</title>",
        f"<style>{style}</style></head>",
        f'<body class="{esc(body_class)}">' if body_class else "<body>",
        *body,
        "</body></html>",
    ]
    return "\n".join(out) + "\n"


def to_html(trace: Trace, run_id: int | None = None, *, calls_left_out: str = "") -> str:
    """The whole run as one HTML document (a ``str``; encode it as UTF-8). ``calls_left_out``: why the model calls
    are not in it (a shared follow-up, ``history.shares.SharedView.of``); '' keeps them."""
    title = f"Run #{run_id}: {trace.question}" if run_id is not None else trace.question
    out = [
        f"<header><h1>{esc(trace.question)}</h1>",
        para(trace.summary()),
        para(f"Settings: {settings_line(answered_settings(trace))}"),
    ]
    if trace.started_at:
        out.append(para(f"Started {trace.started_at}"))
    if run_id is not None:
        out.append(para(f"Run #{run_id} exported from ReAct Lab"))
    if calls_left_out:
        out.append(para(calls_left_out))
    out.append("</header>")
    if trace.context:
        items = "".join(f"<li>{esc(f'Q: {t.question} — A: {t.answer or NO_ANSWER}')}</li>" for t in trace.context)
        out.append(f"<section><h2>Earlier in the conversation</h2><ul>{items}</ul></section>")
    out.append("<main>")
    for position, rebuilt in enumerate(call_records.CallTexts.of(trace.steps)):
        out.append(step_section(trace, position, rebuilt, model_call=not calls_left_out))
    out.append(answer_section(trace))
    out.append("</main>")
    return page(title, out)
