"""The Settings page's live export section: where each finished run is sent as OpenTelemetry spans, and whether the
messages go with them. Shown in local mode only; in public demo and signed-in modes the operator's environment
variables alone decide (the rule is ``react_core.LiveTarget.endpoint``'s: a visitor's URL would make the app's server
connect inside the operator's network).

The choices live in the session (``otel_endpoint``, ``otel_content``), not in the run settings: they are not part of
a run and never recorded in a trace. ``chosen()`` hands them to every job that runs (a chat turn, an arena, an
evaluation, a bootstrap)."""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from react_core import LiveTarget, md_escape
from ui.shared import identity
from ui.shared.bind import seed


def chosen() -> LiveTarget:
    """Where this session's finished runs are sent, as this section names it (counted for the operator only)."""
    ss = st.session_state
    return LiveTarget(ss.get("otel_endpoint", ""), ss.get("otel_content"), visitor=identity.own_endpoints())


def _set_endpoint() -> None:
    url = st.session_state["set-otel-endpoint"].strip()
    parts = urlsplit(url)
    if url and (parts.scheme not in ("http", "https") or not parts.netloc):
        st.session_state.otel_endpoint_problem = (
            f"{url[:200]} is not an http:// or https:// URL; nothing is sent there."
        )
        return
    st.session_state.otel_endpoint_problem = ""
    st.session_state.otel_endpoint = url


def _set_content() -> None:
    st.session_state.otel_content = bool(st.session_state["set-otel-content"])


def render_export_settings() -> None:
    """The endpoint and the include-content switch (local mode only)."""
    if identity.own_endpoints():
        return
    st.subheader("Live export (OpenTelemetry)", anchor=False)
    seed("set-otel-endpoint", st.session_state.get("otel_endpoint", ""))
    seed("set-otel-content", st.session_state.get("otel_content", LiveTarget().sends_content()))
    st.text_input(
        "OTLP/HTTP endpoint",
        key="set-otel-endpoint",
        on_change=_set_endpoint,
        placeholder=LiveTarget().endpoint() or "off — e.g. http://127.0.0.1:6006 for Phoenix",
        help="Each finished run is sent here as OpenTelemetry spans (a base URL gets /v1/traces). Empty: "
        "OTEL_EXPORTER_OTLP_ENDPOINT, if set, decides.",
    )
    if st.session_state.get("otel_endpoint_problem"):
        st.error(md_escape(st.session_state.otel_endpoint_problem))
    st.checkbox(
        "Include messages (question, prompts, replies, tool results)",
        key="set-otel-content",
        on_change=_set_content,
        help="The GenAI conventions make message content opt-in: off, spans carry names, models, tokens and timings.",
    )
