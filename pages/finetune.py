"""Fine-tune: teach the on-device model a method from trajectories (the paper's Figure 3), on this machine's CPU.

The page gathers a recipe, starts ``python -m react_core finetune``'s function in the background (``ui.finetune.job``)
and draws its progress: the phase, the step, the loss and the time left, with Stop (a checkpoint is kept; starting the
same recipe again resumes). A finished adapter can be used at once (Settings' adapter) and every adapter there is is
listed with what it learned and scored. The trajectories can also be downloaded as standard fine-tuning files. Only
in local mode: training takes the server's cores for an hour or more.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from react_core import (
    Adapter,
    FinetunePlan,
    ReactLabError,
    Recipe,
)
from ui.finetune import job as jobs
from ui.shared import identity, state
from ui.shared.text import md_literal, time_left

REFRESH_SECONDS = 2.0
PHASES = {
    "trajectories": "writing the trajectories",
    "examples": "turning them into the prompts the app sends",
    "training": "training",
    "converting": "writing the adapter for llama.cpp",
    "measuring": "measuring on the 200 held-out dev questions, as the shipped adapter was",
}

st.header("Fine-tune", anchor=False)
state.show_flash()
st.caption(
    "The ReAct paper's answer for small models (its Figure 3): learn from trajectories instead of reading examples. "
    "Gold trajectories are written from the HotpotQA train questions' supporting facts (HotpotQA, CC BY-SA 4.0; "
    "Wikipedia, CC BY-SA), each observation what Search and Lookup return; a LoRA adapter of a few MB is trained on "
    "this CPU and loaded by llama.cpp on the packaged Gemma 3 270M (Gemma Terms of Use). See docs/finetune.md."
)

if identity.own_endpoints():
    st.info(
        "Fine-tuning runs on the server's cores for an hour or more, so it is the operator's, in local mode or with "
        "`python -m react_core finetune`. The adapters the operator offers are in Settings."
    )
    st.stop()


def _recipe_form() -> FinetunePlan | None:
    # Outside the form, so the fields below start from the chosen recipe's values.
    name = st.selectbox(
        "Recipe", list(Recipe.ALL), key="finetune-recipe-name", format_func=lambda r: f"{r}: {Recipe.ALL[r].note}"
    )
    defaults = Recipe.ALL[name]
    with st.form("finetune-recipe"):
        methods = list(Recipe.METHODS)
        method = st.selectbox(
            "Method",
            methods,
            index=methods.index(defaults.method),
            key=f"finetune-method-{name}",
            format_func=lambda m: f"{m} (prompt {Recipe.METHODS[m].preset})",
        )
        limit = st.number_input(
            "Train questions (0: all 996)", 0, 10_000, defaults.limit, step=50, key=f"finetune-limit-{name}"
        )
        cols = st.columns(3)
        epochs = cols[0].number_input("Epochs", 1, 10, defaults.epochs, key=f"finetune-epochs-{name}")
        rank = cols[1].number_input("LoRA rank", 1, 128, defaults.rank, key=f"finetune-rank-{name}")
        seed = cols[2].number_input("Seed", 0, 2**31 - 1, defaults.seed, key=f"finetune-seed-{name}")
        history = st.checkbox("Also learn from my right and grounded runs in History", value=False)
        title = st.text_input("Call it", placeholder=f"{method} adapter")
        go = st.form_submit_button("Start fine-tuning", type="primary")
    if not go:
        return None
    try:  # the recipe's own rules (v3's quotes and v7's misses shape ReAct thoughts: method react only)
        recipe = defaults.updated(method=method, limit=int(limit), epochs=int(epochs), rank=int(rank), seed=int(seed))
    except ReactLabError as e:
        st.error(md_literal(f"Recipe {name}: {e}"))
        return None
    store = None
    if history:
        from react_core import open_history

        store = open_history()
    return FinetunePlan(recipe=recipe, title=title.strip(), history=store)


def _progress(snap: dict) -> None:
    if snap["cancelling"] and not snap["finished"]:
        st.info("Stopping at the end of this step, keeping what is done…")
    phase = PHASES.get(snap["phase"], "getting ready")
    if snap["steps"]:
        loss = f" · loss {snap['loss']:.3f}" if snap.get("loss") is not None else ""
        unit = snap.get("unit", "Step")
        st.progress(
            snap["step"] / snap["steps"],
            text=f"{unit} {snap['step']} of {snap['steps']}{loss}{time_left(snap.get('eta'))}",
        )
    st.caption(f"Now: {phase}. Folder: `{snap['folder']}`.")
    for kind in ("trajectories", "examples"):
        if snap.get(kind):
            st.caption(f"{kind}: " + ", ".join(f"{k} {v:,}" for k, v in snap[kind].items()))


@st.fragment(run_every=REFRESH_SECONDS)
def _running(job: jobs.FinetuneJob | jobs.MeasureJob) -> None:
    """The job's progress and Stop, redrawn alone every few seconds (as the Evaluate page's); the whole page again once
    it has ended, to show how."""
    snap = job.snapshot()
    if snap["finished"]:
        st.rerun()
    _progress(snap)
    st.button("Stop", on_click=job.cancel, disabled=snap["cancelling"], key="finetune-stop")


def _finished(snap: dict) -> None:
    if snap["error"]:
        st.error(md_literal(snap["error"]))
        return
    result = snap["result"]
    if result is None:
        return
    if result.stopped:
        st.warning(md_literal(result.message))
        return
    st.success(md_literal(result.message))
    if st.button("Use this adapter", type="primary"):
        state.update_settings(provider="local", model_path="", adapter=str(result.adapter), preset="", dialect="")
        state.flash("success", f"The on-device model now runs with {Path(str(result.adapter)).parent.name}.")
        st.switch_page("pages/chat.py")


job = jobs.current()
running = job is not None and not job.done
trainer = FinetunePlan.default_environment()
if not trainer.is_file():
    st.warning(
        f"The training environment is not installed ({trainer}): run `make finetune-env` once (CPU-only "
        "torch, transformers and peft, about 1.2 GB; never needed to run the app)."
    )
if running:
    _running(job)
else:
    if job is not None:
        _finished(job.snapshot())
    plan = _recipe_form()
    if plan is not None:
        jobs.start(plan)
        st.rerun()

st.subheader("Adapters")
for adapter in Adapter.found():
    path, manifest, title = adapter.path, adapter.manifest, adapter.title
    scores = (manifest.scores.get("summary") if manifest else "") or "not measured yet"
    learned = f"{manifest.method}, prompt `{manifest.preset}`" if manifest else "made elsewhere"
    st.markdown(f"**{md_literal(title)}** — {learned} · {md_literal(str(scores))}  \n`{path}`")
    if manifest and manifest.method == "react" and not manifest.scores:  # its figures go into its manifest
        st.caption(
            f"Measure it as the shipped one was (the 200 held-out dev questions, about 13 minutes): "
            f"`python -m react_core figure3 --adapter {path}`"
        )
        if st.button("Measure", key=f"measure-{path}", icon=":material/rule:"):
            jobs.measure(path)
            st.rerun()

with st.expander("Download trajectories as standard fine-tuning files"):
    st.caption(
        "The same gold trajectories, as the exact prompts the app sends and the replies to learn: chat messages "
        "(JSON Lines) and instruction/output records (JSON), to train elsewhere."
    )
    how_many = st.number_input("Train questions", 1, 10_000, 50, key="export-limit")
    if st.button("Write the files"):
        recipe = Recipe().updated(limit=int(how_many))
        plan = FinetunePlan(recipe=recipe)
        plan.export_chat = plan.folder / "chat.jsonl"
        plan.export_instructions = plan.folder / "instructions.json"
        try:
            with st.spinner("Writing trajectories…"):
                plan.write_only()
        except ReactLabError as e:
            st.error(md_literal(str(e)))
        else:
            st.session_state["export-folder"] = str(plan.folder)
    folder = Path(st.session_state.get("export-folder") or "")
    if folder.name and (folder / "chat.jsonl").is_file():
        st.download_button("chat.jsonl", (folder / "chat.jsonl").read_bytes(), "react-chat.jsonl")
        st.download_button("instructions.json", (folder / "instructions.json").read_bytes(), "react-instructions.json")
