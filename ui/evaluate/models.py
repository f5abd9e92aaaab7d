"""The Evaluate page's models: which provider and model each run of the grid (versions × models × a set) uses.

Offered: the model chosen in Settings (selected by default), every other provider that runs as configured with its
default model (``ModelChoice.offered``: a hosted one only when this deployment lends its keys to this person),
and any the person adds as ``provider:model``, read by the engine's one rule (``ModelChoice``). Each is shown as the
engine names a model (``ModelChoice.label``). The key typed in Settings goes only to models of its own provider
(the engine sees to that).
"""

from __future__ import annotations

import streamlit as st

from react_core import ModelChoice, ReactLabError
from ui.shared import identity, state

MODELS_KEY = "eval-models"
ADD_KEY = "eval-model-add"
EXTRA_KEY = "eval_model_extra"  # the choices this person added, kept for the session


def current() -> str:
    return ModelChoice.of(state.settings()).spec


def choices() -> list[str]:
    offered = ModelChoice.offered(state.settings(), lent=identity.lends_server_keys())
    return list(dict.fromkeys([*offered, *st.session_state.get(EXTRA_KEY, [])]))


def name(spec: str) -> str:
    """A choice as a person reads it (``OpenAI · gpt-4o-mini``); the text itself if it cannot be read."""
    s = state.settings()
    try:
        return ModelChoice.parse(spec).label(s)
    except ReactLabError:
        return spec


def add() -> None:
    """'Another model' (callback): a choice typed as provider:model joins the options, selected."""
    ss = st.session_state
    text = str(ss.get(ADD_KEY) or "").strip()
    if not text:
        return
    try:
        spec = ModelChoice.parse(text).spec
    except ReactLabError as e:
        state.flash("error", str(e))
        return
    ss[EXTRA_KEY] = [*ss.get(EXTRA_KEY, []), spec]
    ss[MODELS_KEY] = list(dict.fromkeys([*(ss.get(MODELS_KEY) or []), spec]))
    ss[ADD_KEY] = ""


def chosen() -> list[str]:
    """The models to run: [] means the model in Settings alone (an evaluation of one model, as before)."""
    picked = [m for m in st.session_state.get(MODELS_KEY) or [] if m in choices()]
    return [] if picked == [current()] else picked


def render() -> None:
    options = choices()
    ss = st.session_state
    if MODELS_KEY not in ss or ss.get("eval_models_for") != current():  # Settings changed: start from its model
        ss[MODELS_KEY], ss["eval_models_for"] = [current()], current()
    ss[MODELS_KEY] = [m for m in ss[MODELS_KEY] if m in options]
    cols = st.columns([3, 2])
    cols[0].multiselect(
        "Models (each runs everything chosen here)",
        options,
        key=MODELS_KEY,
        format_func=name,
        placeholder="Choose models",
        help="The model in Settings, and every other provider ready to run here with its default model. Hosted "
        "models answer several questions at once; the on-device model runs its part in turn.",
    )
    cols[1].text_input(
        "Another model",
        key=ADD_KEY,
        placeholder="provider:model, e.g. openai:gpt-4o-mini or local+none",
        on_change=add,
        help="local, local:FILE.gguf, openai:MODEL, gemini:MODEL, scripted:FILE.json; after a +, the on-device "
        "model's adapter: local+none (the base model), local+FILE.gguf (another adapter)",
    )
