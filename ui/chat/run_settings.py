"""What a fork, a "Similar title" re-ask or a Retry of an earlier run starts from: that run's own settings and prompt.

Its earlier steps were written in its dialect by its model under its prompt; going on from them under whatever is
selected today would make a run of two dialects (the earlier steps retitled) or of two models. So these verbs start
from ``of_run``; the session's settings (``current``) are a deliberate choice the person makes on the form, refused
when the dialect differs (``dialect_clash``).

What a trace recorded of its settings, on the session's, is the engine's (``Recorded(trace).settings``): what it does
not record comes from the session, the connection (Base URL, model file, script: the Base URL only while the
provider is the session's own) and the Advanced settings. A trace names its prompt ("paper", or "paper (edited)" for a
prompt edited in Settings and not saved, and the version, which never changes, when it used a saved one); the prompt
is recovered when a candidate of that name renders exactly the instructions, examples and question the run's recorded
calls sent (``Recorded(trace).prompt``), else the named preset of its dialect stands in and ``note`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from react_core import (
    DIALECTS,
    PROVIDERS,
    Knowledge,
    Preset,
    ReactLabError,
    Recorded,
    RunSettings,
    ToolSpec,
    Trace,
)
from ui.shared import identity, presets, state

EDITED = " (edited)"  # what the prompt editor appends to the name of a prompt it changed


@dataclass
class Start:
    """The settings (``RunSettings.to_dict()``) and prompt a turn runs with; ``note``: what could not be recovered."""

    settings: dict[str, Any]
    preset: Preset
    note: str = ""

    @property
    def dialect(self) -> str:
        return self.preset.dialect


def current() -> Start:
    """The session's settings and prompt: what the next question in Chat uses."""
    return Start(dict(state.settings()), presets.active())


def of_run(trace: Trace) -> Start:
    """The settings and prompt ``trace`` ran with, as far as it recorded them (the rest from the session). A run
    imported from another tool's file ran with none of this app's settings: it goes on with the session's."""
    if trace.imported_from is not None:
        return Start(
            dict(state.settings()),
            presets.active(),
            f"This run was imported from {trace.imported_from.described}: it records none of this app's settings, "
            "so it goes on with your current ones.",
        )
    recorded = trace.settings
    s = Recorded(trace).settings(state.settings())
    fmt = recorded.get("dialect") or "paper"
    # The exact version when the run recorded one (versions never change), else the preset's name.
    named = recorded.get("prompt_version") or recorded.get("preset") or ""
    preset, note = _prompt(trace, named, fmt, list(s["tools"]))
    s.update(dialect=preset.dialect, preset=preset.ref or preset.name)
    return Start(s, preset, note)


def _prompt(trace: Trace, name: str, fmt: str, tools: list[str]) -> tuple[Preset, str]:
    """The run's prompt and '' when it is recovered; else the dialect's named preset and why it stands in."""
    try:
        shipped = Preset.default_for(fmt)
    except ReactLabError:
        shipped = Preset.DEFAULT
    name = name or shipped
    in_use = st.session_state.get("prompt")
    candidates = [in_use] if in_use is not None and in_use.name == name else []
    recovered = Recorded(trace).prompt([*candidates, *_loaded(name)], tools)
    if recovered is not None:
        return recovered, ""
    stand_in = next((p for p in _loaded(name.removesuffix(EDITED), shipped) if p.dialect == fmt), None)
    if stand_in is None:
        stand_in = presets.store().load(Preset.DEFAULT)
    why = "was edited and not saved" if name.endswith(EDITED) else "is not the one this run used any more"
    return stand_in, (
        f"This run's prompt “{name}” {why}, so it cannot be used again: the {stand_in.name} preset stands in. The "
        "steps after the fork may differ for that reason too."
    )


def _loaded(*names: str) -> list[Preset]:
    out = []
    for name in dict.fromkeys(names):
        try:
            out.append(presets.store().load(name))
        except ReactLabError:
            continue
    return out


def dialect_clash(run: Start, chosen: Start) -> str:
    """Why ``chosen`` cannot go on from ``run``'s steps ('' when it can): they are written in the run's dialect."""
    if chosen.dialect == run.dialect:
        return ""
    return (
        f"Your current dialect is {_dialect(chosen.dialect)}; this run's steps are written in {_dialect(run.dialect)}. "
        "Going on from them in another dialect would retitle them, so it is refused: choose a preset of the run's "
        "dialect in Settings, or keep the run's own settings."
    )


def _dialect(fmt: str) -> str:
    f = DIALECTS.get(fmt)
    return f.label if f else fmt


def describe(start: Start) -> dict[str, str]:
    """The settings a person reads on a form, by label."""
    s = start.settings
    cls = PROVIDERS[s["provider"]]
    rows = {
        "Provider": cls.label,
        "Model": cls.model_label(s),
        "Dialect": _dialect(start.dialect),
        "Preset": start.preset.name,
        "Temperature": f"{float(s.get('temperature', 0)):g}",
        "Max model calls": str(s.get("max_calls")),
        "Knowledge": Knowledge.of(s).label(visitor=identity.own_endpoints()),
        "Tools": ", ".join(ToolSpec.label_of(t) for t in s.get("tools", [])) or "none",
    }
    if cls.constrained:
        rows["Grammar"] = "on" if s.get("grammar") else "off"
    if s.get("early_stopping", "force") != "force":
        rows["Without an answer"] = RunSettings.EARLY_STOPPING.get(s["early_stopping"], s["early_stopping"])
    return rows


def differences(a: Start, b: Start) -> list[str]:
    """The labels of the settings shown for ``a`` and ``b`` that differ."""
    da, db = describe(a), describe(b)
    return [k for k in dict.fromkeys([*da, *db]) if da.get(k) != db.get(k)]
