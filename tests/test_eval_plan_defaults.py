"""What the Evaluate page asks the engine instead of re-deriving it from constants: which prompts, budget, samples and
version comparison a choice of strategies needs (``EvalPlan.needs``), and a plan's defaults, the paper's setup for a
task (``EvalPlan.defaults``)."""

from __future__ import annotations

from react_core.evaluation.plan import StrategyNeeds
from react_core.evaluation.run import EvalPlan
from react_core.evaluation.tasks import FEVER, HOTPOTQA
from react_core.loop.settings import RunSettings


def test_a_choice_of_strategies_says_the_prompts_budget_samples_and_versions_it_needs():
    hybrid = EvalPlan.needs(["cot-sc-react"])
    assert hybrid == StrategyNeeds(
        roles=("cot", "react"), agent=True, sampling=True, versions=False, versioned_roles=("react",)
    )
    agents = EvalPlan.needs(["react", "act"])
    assert agents.roles == ("act", "react") and agents.agent and not agents.sampling
    assert agents.versions and agents.versioned_roles == ("act", "react")
    direct = EvalPlan.needs(["standard", "cot-sc"])
    assert direct.roles == ("standard", "cot") and not direct.agent and direct.sampling and not direct.versions
    assert not EvalPlan.needs(["react", "cot"]).versions  # one strategy that cannot compare versions is enough
    assert EvalPlan.needs([]) == StrategyNeeds((), False, False, False, ())


def test_a_plans_defaults_are_the_papers_setup_and_the_plans_own():
    paper = EvalPlan.defaults()
    plan = EvalPlan(datasets=["d.json"], strategies=["react"], out_dir="out", settings=RunSettings())
    assert (paper.max_calls, list(paper.tools), paper.temperature, paper.samples, paper.sc_temperature) == (
        plan.max_calls,
        plan.tools,
        plan.temperature,
        plan.samples,
        plan.sc_temperature,
    )
    assert (paper.concurrency, paper.rpm) == (plan.concurrency, plan.rpm)
    assert (paper.max_calls, paper.tools, paper.samples, paper.sc_temperature) == (7, ("search", "lookup"), 21, 0.7)
    assert paper.presets == HOTPOTQA.presets and EvalPlan.defaults(FEVER).presets == FEVER.presets


def test_a_units_key_names_its_strategy_whatever_versions_and_models_it_compares():
    settings = RunSettings(provider="scripted", script=["x"])
    for versions, models in (([], []), (["paper@1", "paper@best"], []), (["paper@2"], ["scripted:a.json", "local"])):
        strategies = ["cot", "cot-sc", "act", "react"] if not versions else ["act", "react"]
        plan = EvalPlan(["d.json"], strategies, "out", settings, versions=versions, models=models)
        units = plan.units()
        assert units and [EvalPlan.unit_strategy(u.key) for u in units] == [u.strategy for u in units]
    assert EvalPlan.unit_strategy("cot-sc-react@x") == "cot-sc-react" and EvalPlan.unit_strategy("notes") == "notes"
