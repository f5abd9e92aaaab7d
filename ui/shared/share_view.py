"""Read-only share links in a signed-in deployment: the Share popover of an open run in History (make a link, copy
it, revoke it) and the shared view, which anyone holding a link sees without signing in: that run only, read-only.

``app.py`` routes a request with ``?share=TOKEN`` here before its sign-in gate; the token is the only key
(``Store.resolve_share``), so nothing else of anyone's history is read, drawn or linked from this view.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import streamlit as st

from react_core import ReactLabError, RunExport, SharedView, Store, open_history
from ui.shared.render import render_trace
from ui.shared.text import md_literal

SHARE_PARAM = "share"  # ?share=TOKEN opens the shared run, read-only, without signing in
DEAD_LINK = "This link does not open a run: it was revoked, its run was deleted, or it is not a whole link."


def app_link(page: str = "", **params: str) -> str:
    """An address on this server: its root (and base path), a page's path, and query parameters."""
    here = urlsplit(st.context.url or "")
    root = f"{here.scheme}://{here.netloc}" if here.scheme and here.netloc else ""
    prefix = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{root}/{prefix + '/' if prefix else ''}{page}?{urlencode(params)}"


def share_link(token: str) -> str:
    """The address a link is opened at: this server's root with ``?share=TOKEN``."""
    return app_link(**{SHARE_PARAM: token})


def _create(store: Store, run_id: int) -> None:
    try:
        store.create_share(run_id)
    except ReactLabError as e:
        st.session_state.share_error = str(e)


def _revoke(store: Store, token: str) -> None:
    try:
        store.revoke_share(token)
    except ReactLabError as e:
        st.session_state.share_error = str(e)


def render_share_controls(store: Store, run_id: int) -> None:
    """The Share popover of one of this person's runs: its live links, each with Revoke, and a button for a new one."""
    with st.popover("Share…", icon=":material/share:"):
        st.caption(
            "Anyone who has a link can read this run, read-only and without signing in, until you revoke the link "
            "or delete the run. Nothing else of your history is shown. " + SharedView.CALLS_LEFT_OUT
        )
        error = st.session_state.pop("share_error", None)
        if error:
            st.error(md_literal(error))
        st.button(
            "Make a read-only link",
            key="share-create",
            icon=":material/add_link:",
            on_click=_create,
            args=(store, run_id),
        )
        try:
            links = store.shares(run_id)
        except ReactLabError as e:
            st.error(md_literal(str(e)))
            return
        for share in links:
            st.code(share_link(share.token), language=None, wrap_lines=True)
            made, revoke = st.columns([0.6, 0.4], vertical_alignment="center")
            made.caption(md_literal(f"Made {share.created_at.replace('T', ' ')[:16]}"))
            revoke.button(
                "Revoke",
                key=f"share-revoke-{share.token[:12]}",
                icon=":material/link_off:",
                on_click=_revoke,
                args=(store, share.token),
            )


def render_shared() -> None:
    """The page a share link opens: the one run, read-only, or one clear message when the link is dead."""
    token = st.query_params.get(SHARE_PARAM, "")
    try:
        record = open_history().resolve_share(token)
    except ReactLabError as e:
        st.header("Shared run", anchor=False)
        st.error(md_literal(f"History cannot be read right now: {e}"), icon=":material/error:")
        return
    if record is None or record.trace is None or record.damaged:
        st.header("Shared run", anchor=False)
        st.error(DEAD_LINK, icon=":material/link_off:")
        return
    # The run's own question, steps and answer: a follow-up without the earlier turns its prompts carried.
    shared = SharedView.of(record.trace)
    trace = shared.trace
    st.header("Shared run", anchor=False)
    st.subheader(md_literal(trace.question), anchor=False)
    st.caption(md_literal(f"Read-only, shared by the person who ran it · saved {record.created_at.replace('T', ' ')}"))
    if shared.calls_left_out:
        st.caption(md_literal(shared.calls_left_out))
    page = RunExport(trace, calls_left_out=shared.calls_left_out).download("html")
    st.download_button("Export HTML", page.data, page.file_name, page.mime, key="shared-html", on_click="ignore")
    render_trace(trace, key="shared", model_calls=not shared.calls_left_out)
