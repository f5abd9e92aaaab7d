"""Presentation playback of a saved run, for an audience: one slide at a time (the question, each step, the answer)
in large type, next and previous by button or keyboard, an automatic pace, and a quiz switch that hides each step's
Thought and Action (and the Observation that would give the Action away) until the presenter reveals them.

Where the presenter is (run, slide, what was revealed, whether it plays) lives in session state and in the address
(``?run=N&step=K``), so a rerun or a reload comes back to the same slide. The controls and the slide are one fragment
that Streamlit reruns every few seconds while playing (``st.fragment(run_every=…)``); each of those timed reruns moves
one beat on (reveals, then advances) and redraws the controls with the slide, so Reveal, Previous and Next always
match the slide shown. The controls sit in a wrapping row of buttons as wide as their labels, so a projector's narrow
screen wraps them instead of cutting their text; Full screen hides the sidebar and the app's header for the slide.
Run text is drawn only with ``st.text``/``st.code`` or through ``md_literal``; the only HTML is the fixed stylesheets
below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from react_core import (
    CallTexts,
    Knowledge,
    RunRecord,
    Saying,
    Trace,
)
from ui.shared.render import render_answer, render_sources, settings_line
from ui.shared.text import md_literal

RUN_PARAM, STEP_PARAM = "run", "step"
PACES = (0, 3, 5, 8, 12, 20)  # seconds a slide stays up when playing (0: no automatic pace)
# Keyboard: arrows move, S shows (reveals) in quiz mode, P plays and pauses, F fills the screen (C and R are
# Streamlit's own).
KEYS = {"next": "Right", "previous": "Left", "reveal": "S", "play": "P", "full": "F"}
FULL_KEY = "present-full"  # session state: whether the presenter view fills the screen (kept from run to run)

# A fixed stylesheet, the only HTML this page writes: large type for the slide (run text never goes through it).
STYLE = """<style>
.st-key-present-slide [data-testid="stText"] {font-size: 1.7rem; line-height: 1.45; white-space: pre-wrap;}
.st-key-present-slide [data-testid="stCode"] code {font-size: 1.6rem; line-height: 1.4;}
.st-key-present-slide [data-testid="stHeading"] h1 {font-size: 3rem;}
.st-key-present-slide [data-testid="stHeading"] h2 {font-size: 2.2rem;}
.st-key-present-slide [data-testid="stMarkdownContainer"] p {font-size: 1.3rem;}
</style>"""

# Full screen: the slide alone on the screen. The sidebar (pages, settings, the on-device notice) and the app's header
# are hidden rather than collapsed, so nothing can slide over the slide; Full screen again (or F) brings them back.
FULL_SCREEN_STYLE = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stHeader"] {display: none;}
[data-testid="stMainBlockContainer"] {padding: 1rem 2rem 2rem; max-width: none;}
</style>"""


def slide_count(trace: Trace) -> int:
    """The question, one slide per step, the answer."""
    return len(trace.steps) + 2


def current() -> dict[str, Any]:
    return st.session_state.present


def open_run(run_id: int, position: int = 0) -> None:
    """Start presenting ``run_id`` at ``position`` (kept whenever the same run is asked for again)."""
    held = st.session_state.get("present")
    if held is not None and held["run"] == run_id:
        return
    st.session_state.present = {"run": run_id, "pos": max(0, position), "revealed": set(), "playing": False}


def asked_run() -> tuple[int | None, int]:
    """The run and slide the address asks for (None: no run named, or not a number)."""
    run, step = st.query_params.get(RUN_PARAM, ""), st.query_params.get(STEP_PARAM, "")
    return (int(run) if run.isdigit() else None), (int(step) if step.isdigit() else 0)


PICK_KEY = "present-pick"


def run_choice(record: RunRecord) -> str:
    """A run as the picker lists it: plain text (a select's options are not Markdown), on one line."""
    return f"#{record.id} · " + " ".join(record.question.split())


def render_picker(records: list[RunRecord], run_id: int | None) -> None:
    """The runs to present, the one shown (if any) chosen: picking another opens it at its first slide."""
    labels = {r.id: run_choice(r) for r in records}
    if run_id is not None and run_id not in labels:  # older than the list: still the one shown
        labels = {run_id: f"#{run_id}", **labels}
    st.session_state[PICK_KEY] = run_id
    st.selectbox("Run", list(labels), format_func=labels.get, key=PICK_KEY, index=None, on_change=_picked)


def _picked() -> None:
    picked = st.session_state.get(PICK_KEY)
    if picked is not None:
        st.query_params[RUN_PARAM] = str(picked)
        st.query_params[STEP_PARAM] = "0"


def keep_in_url() -> None:
    s = current()
    for name, value in ((RUN_PARAM, str(s["run"])), (STEP_PARAM, str(s["pos"]))):
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def move(delta: int, total: int) -> None:
    s = current()
    s["pos"] = min(max(0, s["pos"] + delta), total - 1)


def reveal() -> None:
    current()["revealed"].add(current()["pos"])


def quiz_changed() -> None:
    """Quiz switched on hides every step again, the ones a beat or Reveal showed before included."""
    if st.session_state.get("present-quiz"):
        current()["revealed"].clear()


def full_screen() -> bool:
    return bool(st.session_state.get(FULL_KEY))


def toggle_full_screen() -> None:
    st.session_state[FULL_KEY] = not full_screen()


def pressed(action: Callable[..., None]) -> Callable[..., None]:
    """A control's callback that also marks its rerun as the presenter's, not the pace timer's (both rerun only the
    fragment, and a press must not also move a beat on)."""

    def run(*args: Any) -> None:
        current()["pressed"] = True
        action(*args)

    return run


def hidden(trace: Trace) -> bool:
    """Whether this slide's Thought and Action are hidden (quiz mode, a step not yet revealed)."""
    s = current()
    return (
        bool(st.session_state.get("present-quiz"))
        and 0 < s["pos"] <= len(trace.steps)
        and (s["pos"] not in s["revealed"])
    )


def beat(trace: Trace) -> None:
    """One tick of the automatic pace: reveal a hidden step, else go to the next slide, else stop at the end."""
    s = current()
    if hidden(trace):
        reveal()
    elif s["pos"] < slide_count(trace) - 1:
        s["pos"] += 1
    else:
        s["playing"] = False


def timer_rerun() -> bool:
    """Whether this run is the pace fragment's own timed rerun (not a rerun of the whole page)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def render_controls(trace: Trace) -> None:
    """One row that wraps: each control as wide as its label, so none is cut on a narrow (projector) screen."""
    s, total = current(), slide_count(trace)
    row = st.container(horizontal=True, vertical_alignment="center", key="present-controls")
    row.button(
        "Previous",
        key="present-previous",
        icon=":material/arrow_back:",
        shortcut=KEYS["previous"],
        on_click=pressed(move),
        args=(-1, total),
        disabled=s["pos"] == 0,
    )
    row.button(
        "Next",
        key="present-next",
        icon=":material/arrow_forward:",
        shortcut=KEYS["next"],
        on_click=pressed(move),
        args=(1, total),
        disabled=s["pos"] >= total - 1,
    )
    row.button(
        "Reveal", key="present-reveal", shortcut=KEYS["reveal"], on_click=pressed(reveal), disabled=not hidden(trace)
    )
    label, icon = ("Pause", ":material/pause:") if _pace() else ("Play", ":material/play_arrow:")
    row.button(label, key="present-play", icon=icon, shortcut=KEYS["play"], on_click=pressed(_toggle_play))
    row.selectbox(
        "Automatic pace",
        PACES,
        index=2,
        key="present-pace",
        format_func=lambda n: f"{n} s a slide" if n else "off",
        label_visibility="collapsed",
        width=150,
    )
    row.toggle(
        "Quiz",
        key="present-quiz",
        help="Hide each Thought and Action until you press Reveal (S).",
        on_change=pressed(quiz_changed),
    )
    full = full_screen()
    row.button(
        "Leave full screen" if full else "Full screen",
        key="present-full-screen",
        icon=":material/fullscreen_exit:" if full else ":material/fullscreen:",
        shortcut=KEYS["full"],
        on_click=pressed(toggle_full_screen),
        help="The slide alone: no sidebar, no header (F11 also fills the browser's screen).",
    )
    st.caption("Keys: ← previous · → next · S reveals (quiz) · P plays and pauses · F full screen")


def _pace() -> int:
    """The seconds between beats while playing (0: not playing)."""
    pace = st.session_state.get("present-pace") or 0
    return pace if current()["playing"] else 0


def _toggle_play() -> None:
    s = current()
    s["playing"] = not s["playing"]


def render_presentation(trace: Trace) -> None:
    """The controls and the slide, one fragment that reruns on the pace's timer while playing."""
    layout = (_pace(), full_screen())
    st.fragment(run_every=layout[0] or None)(_presentation)(trace, layout)


def _presentation(trace: Trace, layout: tuple[int, bool]) -> None:
    s = current()
    if (_pace(), full_screen()) != layout:  # Play, the pace or Full screen was pressed: the timer and page follow
        keep_in_url()
        st.rerun(scope="app")
    timed = not s.pop("pressed", False) and timer_rerun()
    if s["playing"] and timed:
        beat(trace)
        if not s["playing"]:  # the end: the timer stops with a rerun of the whole page
            keep_in_url()
            st.rerun(scope="app")
    keep_in_url()
    render_controls(trace)
    total = slide_count(trace)
    with st.container(key="present-slide"):
        st.caption(f"Slide {s['pos'] + 1} of {total}" + (" · playing" if s["playing"] else ""))
        if s["pos"] == 0:
            _question(trace)
        elif s["pos"] <= len(trace.steps):
            _step(trace, s["pos"] - 1)
        else:
            st.header("Answer", anchor=False)
            render_answer(trace)


def _question(trace: Trace) -> None:
    st.header("Question", anchor=False)
    st.text(trace.question)
    st.caption(md_literal(f"{trace.summary()} · {settings_line(trace.settings)}"))


def _step(trace: Trace, position: int) -> None:
    step, dialect = trace.steps[position], trace.settings.get("dialect", "paper")
    st.header(f"Step {step.index} of {len(trace.steps)}", anchor=False)
    if hidden(trace):
        before = trace.steps[position - 1].observation if position > 0 else None
        if before is not None:  # what the model had just read when it wrote this step
            st.markdown(f"**Observation {trace.steps[position - 1].index}** (what it has just read)")
            st.text(before.text)
        st.info("What will it think and do next? Press Reveal (S) to show the Thought and the Action.")
        return
    st.markdown("**Thought**")
    st.text(step.thought or "(no thought)")
    st.markdown("**Action**")
    st.code(Saying(step, dialect).text, language=None, wrap_lines=True)
    obs = step.observation
    if obs is not None:
        st.markdown(":red[**Observation — error**]" if obs.is_error else "**Observation**")
        st.text(obs.text)
        render_sources(obs.sources, "Source")
        if obs.sources:
            st.caption(Knowledge.of(trace.settings).credit(obs.note))
    if step.call is not None and step.call.same_reply_as is None:
        rows = {r["step"]: r for r in CallTexts.table(trace.steps)}
        row = rows.get(step.index)
        if row:
            st.caption(
                f"{row['prompt tokens']:,} prompt tokens · {row['written tokens']:,} written · {row['call (s)']} s"
            )
