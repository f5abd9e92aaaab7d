"""Versions × models × a set: a plan's models (``provider[:model]``) each run every version on the same questions, into
results files of their own that record the model; results are grouped by model; a key typed for one provider never
reaches another's model; the choices a person is offered; ``eval --models`` and ``eval-report``'s model column."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import replace

import pytest
from test_eval_versions import QUESTIONS, dataset, own_history  # noqa: F401 - own_history: each test's own history

from react_core.base.errors import ConfigError, ProviderError
from react_core.evaluation import run as run_module
from react_core.evaluation.report import load_groups, markdown_table
from react_core.evaluation.results import Evaluation, read_file
from react_core.evaluation.run import EvalPlan
from react_core.loop.settings import RunSettings
from react_core.presets.preset import load_preset
from react_core.presets.store import PresetStore
from react_core.providers import PROVIDERS, keys
from react_core.providers.allowance import Allowance
from react_core.providers.choice import ModelChoice
from react_core.providers.openai_compat import OpenAIProvider
from react_core.providers.scripted import ScriptedProvider


def answers(*finals: str) -> list[str]:
    return [f"Thought 1: Known.\nAction 1: Finish[{a}]" for a in finals]


def scripts(tmp_path) -> tuple[str, str]:
    """Two scripted "models": a.json answers everything right; b.json gets "a" wrong under paper@2."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(answers("42", "4", "42", "4")))  # paper@1, then paper@2
    b.write_text(json.dumps(answers("42", "4", "41", "4")))
    return str(a), str(b)


def save_paper_v2() -> None:
    preset = load_preset("paper")
    PresetStore().save_version(replace(preset, instructions=preset.instructions + "\nBe brief.\n"), "paper")


def grid(tmp_path, models, versions=("paper@1", "paper@2"), **changes) -> EvalPlan:
    settings = RunSettings(provider="scripted", script=str(tmp_path / "a.json"))
    return EvalPlan(
        [dataset(tmp_path)], ["react"], str(tmp_path / "out"), settings, tools=["calculator"],
        versions=list(versions), models=list(models), **changes,
    )  # fmt: skip


def test_every_version_runs_on_every_model_into_a_file_that_records_its_model(tmp_path):
    save_paper_v2()
    a, b = scripts(tmp_path)
    run = grid(tmp_path, [f"scripted:{a}", f"scripted:{b}"]).run()
    assert list(run.summaries) == [
        "react@paper@1+scripted-a.json",
        "react@paper@2+scripted-a.json",
        "react@paper@1+scripted-b.json",
        "react@paper@2+scripted-b.json",
    ]
    assert [s.em for s in run.summaries.values()] == [1.0, 1.0, 1.0, 0.5]
    header, records = read_file(tmp_path / "out" / "react@paper@2+scripted-b.json.jsonl")
    assert header["model"] == "Scripted · b.json" and header["config"]["script"] == b
    assert header["versions"] == {"react": "paper@2"}
    assert [r["prediction"] for r in records] == ["41", "4"]

    evaluation = Evaluation.load(tmp_path / "out")
    assert [(r.version, r.model) for r in evaluation.results] == [
        ("paper@1", "Scripted · a.json"),
        ("paper@1", "Scripted · b.json"),
        ("paper@2", "Scripted · a.json"),
        ("paper@2", "Scripted · b.json"),
    ]  # grouped by version, then model
    groups = Evaluation.by_model([evaluation])
    assert list(groups) == ["Scripted · a.json", "Scripted · b.json"]
    assert [r.summary().em for _, r in groups["Scripted · b.json"]] == [1.0, 0.5]
    assert list(Evaluation.by_model([evaluation], "Scripted · a.json")) == ["Scripted · a.json"]
    table = markdown_table(load_groups([tmp_path / "out"]))
    assert "| strategy | prompt version | model | n |" in table
    assert "| paper@2 | Scripted · b.json | 2 | 50.0 |" in table


def test_one_model_keeps_the_plain_file_names_and_a_resume_runs_nothing_again(tmp_path):
    a, _ = scripts(tmp_path)
    plan = grid(tmp_path, [f"scripted:{a}"], versions=())
    assert [u.key for u in plan.units()] == ["react"]
    plan.run()
    assert plan.run().summaries["react"].n == 2  # the script is not asked again: it resumed, complete
    assert Evaluation.load(tmp_path / "out").results[0].model == "Scripted · a.json"


def test_a_key_goes_only_to_a_model_of_its_own_provider(tmp_path, monkeypatch):
    a, _ = scripts(tmp_path)
    given = []

    def fake(settings, *, api_key=None, on_progress=None):
        given.append((settings.provider, settings.model, api_key))
        return ScriptedProvider(answers("42", "4"))

    monkeypatch.setattr(run_module, "provider_for", fake)
    plan = grid(tmp_path, ["openai:gpt-4o-mini", f"scripted:{a}"], versions=())
    plan.settings = RunSettings(provider="openai", model="gpt-4o", base_url="http://127.0.0.1:9/v1")
    plan.run(api_key="sk-typed-for-openai")
    assert given == [("openai", "gpt-4o-mini", "sk-typed-for-openai"), ("scripted", "", None)]
    assert [s.base_url for s in plan.model_settings()] == ["http://127.0.0.1:9/v1", ""]  # a Base URL stays its own


class Hosted(ScriptedProvider):
    """A hosted model's stand-in: its first call says it has started, then waits until every other hosted model has
    started too, which only happens if they run at once."""

    hosted = True

    def __init__(self, outputs, started: threading.Event, others: list[threading.Event]) -> None:
        super().__init__(outputs)
        self.started, self.others = started, others

    def stream(self, request):
        self.started.set()
        assert all(e.wait(30) for e in self.others), "the hosted models did not run at once"
        yield from super().stream(request)


def hosted_models(monkeypatch, outputs: dict[str, list]) -> list:
    """``provider_for`` builds a Hosted stand-in for each hosted model named in ``outputs`` (by model)."""
    started = {m: threading.Event() for m in outputs}
    seen: list = []

    def fake(settings, *, api_key=None, on_progress=None):
        if settings.provider == "scripted":
            return ScriptedProvider.create(script=settings.script)
        seen.append(keys.resolve_key(OpenAIProvider))  # a real one reads its key now, under the job's key rules
        others = [e for m, e in started.items() if m != settings.model]
        return Hosted(outputs[settings.model], started[settings.model], others)

    monkeypatch.setattr(run_module, "provider_for", fake)
    return seen


def test_hosted_models_run_at_once_under_the_jobs_key_rules_while_a_script_runs_its_cells_in_turn(
    tmp_path, monkeypatch
):
    a, _ = scripts(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator")
    seen = hosted_models(monkeypatch, {"m1": answers("42", "4"), "m2": answers("42", "5")})
    plan = grid(tmp_path, ["openai:m1", "gemini:m2", f"scripted:{a}"], versions=(), rpm=6000)
    run = plan.run(allowance=Allowance(server_keys=False))  # a public demo's visitor
    assert list(run.summaries) == ["react+openai-m1", "react+gemini-m2", "react+scripted-a.json"]  # the plan's order
    assert [s.em for s in run.summaries.values()] == [1.0, 0.5, 1.0]
    assert seen == [None, None]  # the operator's key was not lent on the models' threads
    assert Evaluation.load(tmp_path / "out").results[0].model == "Gemini · m2"


def test_a_hosted_model_that_fails_stops_its_own_cells_and_is_reported_once_the_others_are_done(tmp_path, monkeypatch):
    a, _ = scripts(tmp_path)
    hosted_models(monkeypatch, {"m1": [{"error": "quota exceeded"}], "m2": answers("42", "4")})
    plan = grid(tmp_path, ["openai:m1", "gemini:m2", f"scripted:{a}"], versions=(), rpm=6000)
    with pytest.raises(ProviderError, match="quota exceeded"):
        plan.run()
    done = {r.name: len(r.records) for r in Evaluation.load(tmp_path / "out").results}
    assert done == {"react+openai-m1": 0, "react+gemini-m2": 2, "react+scripted-a.json": 2}


def test_a_model_choice_is_read_written_and_applied():
    assert ModelChoice.parse(" OpenAI : gpt-4o-mini ") == ModelChoice("openai", "gpt-4o-mini")
    assert ModelChoice.parse("local").spec == "local"
    changes = ModelChoice.parse("local:/models/q.gguf").changes({"provider": "openai", "model": "x", "base_url": "u"})
    assert changes == {"provider": "local", "model": "", "base_url": "", "model_path": "/models/q.gguf", "script": ""}
    assert ModelChoice.of({"provider": "scripted", "script": "/x/s.json"}).spec == "scripted:/x/s.json"
    assert PROVIDERS["scripted"].model_label({"provider": "scripted", "script": "/x/s.json"}) == "s.json"
    assert ModelChoice.parse("scripted:/x/a.json").label({"provider": "local"}) == "Scripted · a.json"
    assert ModelChoice.parse("openai:gpt-4o-mini").label({"provider": "local"}) == "OpenAI · gpt-4o-mini"
    with pytest.raises(ConfigError, match="Unknown provider 'claude'"):
        ModelChoice.parse("claude:opus")


def test_the_choices_offered_are_the_current_one_then_each_provider_ready_to_run():
    env = {"OPENAI_API_KEY": "sk-operator", "REACT_SECRETS_PATH": ""}
    current = {"provider": "scripted", "script": "/x/s.json"}
    assert ModelChoice.offered(current, env=env) == ["scripted:/x/s.json", "local", "openai"]
    assert ModelChoice.offered(current, lent=False, env=env) == [
        "scripted:/x/s.json",
        "local",
    ]  # the operator's key not lent
    assert ModelChoice.offered({"provider": "local"}, env={"REACT_SECRETS_PATH": ""}) == [
        "local",
        "local+none",
    ]  # a script is never guessed; the on-device model is offered with its adapter and without (Figure 3's pair)
    assert ModelChoice.offered({"provider": "local", "adapter": "none"}, env={"REACT_SECRETS_PATH": ""}) == [
        "local+none",
        "local+shipped",
    ]


def test_a_model_choice_names_an_adapter_after_a_plus():
    # `local+none` is the on-device model without its adapter, `local+FILE` with another; without `+` the settings'
    # own adapter (the shipped one by default) stays, so the choices of today's evaluations mean what they meant.
    choice = ModelChoice.parse("local:/m/q.gguf + adapters/react-hotpotqa-v1/adapter.gguf")
    assert choice == ModelChoice("local", "/m/q.gguf", "adapters/react-hotpotqa-v1/adapter.gguf")
    assert ModelChoice.parse(choice.spec) == choice and ModelChoice.parse("local+none").spec == "local+none"
    assert ModelChoice.parse("local+none").changes({"provider": "local", "adapter": ""}) == {
        "provider": "local",
        "adapter": "none",
    }
    assert ModelChoice.parse("local").changes({"provider": "local", "adapter": "none"}) == {"provider": "local"}
    assert [ModelChoice.of({"provider": "local", "adapter": a}).spec for a in ("", "shipped", "none", "/a.gguf")] == [
        "local",
        "local",
        "local+none",
        "local+/a.gguf",
    ]
    with pytest.raises(ConfigError, match="OpenAI takes no adapter"):
        ModelChoice.parse("openai:gpt-4o-mini+none")
    with pytest.raises(ConfigError, match="No adapter after"):
        ModelChoice.parse("local+")


def test_the_base_and_the_fine_tuned_model_compare_in_one_grid_each_with_its_own_prompt(tmp_path):
    # Figure 3's pair in one evaluation: each model's label names its adapter, each answers the prompt it knows (the
    # base model the paper's 6-shot ReAct, the fine-tuned one the zero-shot prompt it learned), each into its file.
    from react_core.providers.adapters import shipped_adapter

    if shipped_adapter() is None:
        pytest.skip("this checkout has no shipped adapter")
    plan = EvalPlan(
        datasets=["d.json"],
        strategies=["react"],
        out_dir=str(tmp_path),
        settings=RunSettings(provider="local"),
        models=["local+none", "local"],
    )
    base, tuned = plan.model_settings()
    assert (base.adapter, tuned.adapter) == ("none", "")
    labels = plan.model_labels()
    assert "ReAct on HotpotQA" not in labels[0] and "ReAct on HotpotQA" in labels[1]
    assert (plan.role_presets(base)["react"], plan.role_presets(tuned)["react"]) == ("hotpotqa-react", "tuned-react")
    assert [u.key for u in plan.units()][0] != [u.key for u in plan.units()][1]


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (["scripted:a.json", "scripted:a.json"], "Each model once"),
        (["scripted:x/a.json", "scripted:y/a.json"], "Scripted · a.json would run twice"),
        (["nobody"], "Unknown provider"),
    ],
)
def test_a_grid_is_checked_before_any_model_is_asked(tmp_path, models, message):
    with pytest.raises(ConfigError, match=message):
        grid(tmp_path, models).run()


def test_eval_cli_runs_models_and_eval_report_shows_them(tmp_path):
    save_paper_v2()
    a, b = scripts(tmp_path)
    run = [sys.executable, "-m", "react_core"]
    out = subprocess.run(
        [*run, "eval", "--dataset", dataset(tmp_path), "--strategy", "react", "--tools", "calculator",
         "--versions", "paper@1", "paper@2", "--models", f"scripted:{a}", "--models", f"scripted:{b}",
         "--out", str(tmp_path / "res"), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "ReAct paper@1 on Scripted · a.json: EM 100.0  F1 100.0  n=2",
        "ReAct paper@2 on Scripted · a.json: EM 100.0  F1 100.0  n=2",
        "ReAct paper@1 on Scripted · b.json: EM 100.0  F1 100.0  n=2",
        "ReAct paper@2 on Scripted · b.json: EM 50.0  F1 50.0  n=2",
    ]
    report = subprocess.run([*run, "eval-report", str(tmp_path / "res")], capture_output=True, text=True, timeout=120)
    assert "| paper@2 | Scripted · b.json | 2 | 50.0 |" in report.stdout
