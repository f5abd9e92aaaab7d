"""The public demo's limits on model calls: each visitor's window within one window for all visitors together (a call
counts in both, a refused one in neither), who a visitor is (a network address, an IPv6 /64, never a browser session),
and the server keeping visitors' windows without ever forgetting a busy one."""

from __future__ import annotations

import pytest

from react_core.base.errors import ProviderError
from react_core.providers.base import CompletionRequest
from react_core.providers.quota import CallWindow, CallWindows, QuotaLimited
from react_core.providers.scripted import ScriptedProvider
from ui.chat import job_registry as registry
from ui.shared import identity


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_call_counts_for_the_visitor_and_for_everyone_and_a_refused_one_for_neither():
    clock = Clock()
    everyone = CallWindow(3, scope="for all its visitors together", clock=clock)
    alice, bob = (CallWindow(2, within=everyone, clock=clock) for _ in range(2))
    assert alice.take() is None and alice.take() is None
    wait, full = alice.take()
    assert full is alice and wait == 60.0  # Alice's own limit
    assert bob.take() is None
    clock.now += 10
    wait, full = bob.take()
    assert full is everyone and wait == 50.0  # everyone's limit: Bob's refused call is not counted as his
    clock.now += 50
    assert bob.take() is None and bob.take() is None  # a minute on, both windows have room again
    assert bob.take()[1] is bob


def test_the_refusal_names_the_limit_that_was_reached():
    everyone = CallWindow(1, scope="for all its visitors together")
    request = CompletionRequest(system="", prompt="Q")
    first = QuotaLimited(ScriptedProvider(["a"]), CallWindow(5, within=everyone))
    assert "".join(c.text for c in first.stream(request)) == "a"
    second = QuotaLimited(ScriptedProvider(["b"]), CallWindow(5, within=everyone))
    with pytest.raises(ProviderError, match=r"allows 1 model calls a minute for all its visitors together; try again"):
        list(second.stream(request))


@pytest.mark.parametrize(
    ("address", "visitor"),
    [
        (None, identity.THIS_MACHINE),
        ("::ffff:127.0.0.1", identity.THIS_MACHINE),  # this machine, as an app bound to :: sees it
        ("203.0.113.7", "address:203.0.113.7"),
        ("::ffff:203.0.113.7", "address:203.0.113.7"),
        ("2001:db8:7:1::5", "network:2001:db8:7:1::/64"),
        ("2001:db8:7:1:a11:b22:c33:d44", "network:2001:db8:7:1::/64"),
        ("[2001:DB8:7:1::9]", "network:2001:db8:7:1::/64"),
    ],
)
def test_a_visitor_is_a_network_address_and_an_ipv6_visitor_their_64(address, visitor):
    assert identity.visitor_of(address) == visitor


def test_the_server_forgets_only_idle_visitors():
    windows = CallWindows(max_kept=3)
    busy = windows.of("address:203.0.113.7", 2, 100)
    assert busy.take() is None
    for n in range(1, 5):
        windows.of(f"address:198.51.100.{n}", 2, 100)
    assert windows.of("address:203.0.113.7", 2, 100) is busy  # its call this minute is still counted
    assert len(windows) <= 3
    assert windows.of("address:198.51.100.9", 2, 100).within is busy.within  # one window for everyone
    assert isinstance(registry.windows, CallWindows)  # the server keeps one, for every session
