"""The public demo's settings as the engine reads them (``react_core.PublicDemo``): each read when asked for, a
limit the operator got wrong refused rather than read as the default."""

from __future__ import annotations

import pytest

from react_core import PublicDemo
from react_core.base.errors import ConfigError


def test_unset_is_no_demo_with_the_default_limits():
    demo = PublicDemo({})
    assert (demo.on, demo.server_keys) == (False, False)
    assert (demo.calls_per_minute, demo.total_calls_per_minute) == (20, 200)


def test_the_operator_s_values_are_read():
    demo = PublicDemo(
        {
            "REACT_PUBLIC_DEMO": "1",
            "REACT_DEMO_SERVER_KEYS": "1",
            "REACT_DEMO_CALLS_PER_MINUTE": " 5 ",
            "REACT_DEMO_TOTAL_CALLS_PER_MINUTE": "50",
        }
    )
    assert (demo.on, demo.server_keys, demo.calls_per_minute, demo.total_calls_per_minute) == (True, True, 5, 50)


def test_a_wrong_limit_is_refused_only_when_a_limit_is_asked_for():
    demo = PublicDemo({"REACT_PUBLIC_DEMO": "1", "REACT_DEMO_TOTAL_CALLS_PER_MINUTE": "0"})
    assert demo.on and demo.calls_per_minute == 20
    with pytest.raises(ConfigError, match="REACT_DEMO_TOTAL_CALLS_PER_MINUTE must be a whole number"):
        _ = demo.total_calls_per_minute
