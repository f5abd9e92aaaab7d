"""The operator's keys go only where the operator pointed them. When a base URL passed in is a person's own (signed-in
and public demo modes: ``Allowance.own_endpoints``), the operator's key from the environment is never sent there:
the person is told to paste their own. The operator's configured endpoints (the provider's own API, OPENAI_BASE_URL,
REACT_BASE_URL for the provider REACT_PROVIDER names) still get it, and the operator typing a base URL (local mode, the
CLI) keeps their key. An endpoint is the operator's only when it is the same (``react_core.providers.endpoints``).

Each provider with a base URL option runs against a real local server that records the key header."""

from __future__ import annotations

import pytest
from provider_helpers import FakeGemini, FakeOpenAI

from react_core.base.errors import ConfigError, MissingKeyError
from react_core.providers import PROVIDERS, create_provider
from react_core.providers.allowance import Allowance
from react_core.providers.base import CompletionRequest

OPERATOR_KEY = "sk-OPERATOR-5c2e9a7d41"
PERSON_KEY = "sk-PERSON-83b1f0c6e2"
PERSON = Allowance(owner="oidc:https://id.example#someone", own_endpoints=True)  # a signed-in person


def _bearer(request) -> str:
    return request.headers.get("authorization", "").removeprefix("Bearer ")


# Per provider: its fake server, the path its base URL ends in, the operator's key variable, the key as sent.
SERVERS = {
    "openai": (FakeOpenAI, "/v1", "OPENAI_API_KEY", _bearer),
    "gemini": (FakeGemini, "", "GEMINI_API_KEY", lambda r: r.headers.get("x-goog-api-key")),
}


@pytest.fixture(autouse=True)
def operator_keys(monkeypatch):
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "REACT_PROVIDER", "REACT_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REACT_SECRETS_PATH", "")
    for _fake, _path, variable, _sent in SERVERS.values():
        monkeypatch.setenv(variable, OPERATOR_KEY)


def ask(provider) -> str:
    return "".join(c.text for c in provider.stream(CompletionRequest(system="", prompt="Q: hi\nA:")))


def keys_sent(server, name: str) -> list[str | None]:
    return [SERVERS[name][3](r) for r in server.requests]


def build(name: str, allowance: Allowance | None = None, **options):
    make = lambda: create_provider(name, model="gpt-4.1-mini" if name == "openai" else None, **options)  # noqa: E731
    return make() if allowance is None else allowance.build(make)


def test_every_provider_with_a_base_url_is_checked_here():
    assert {name for name, cls in PROVIDERS.items() if "base_url" in cls.options} == set(SERVERS)


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_a_persons_own_base_url_never_gets_the_operators_key(name):
    fake, path, _variable, _sent = SERVERS[name]
    with fake(["hello", "hello"]) as server:
        with pytest.raises(MissingKeyError) as refused:
            ask(build(name, PERSON, base_url=server.root + path))
        assert server.requests == []  # nothing was sent at all
        message = str(refused.value)
        assert "Base URL you set" in message and "Paste your own key on the Settings page" in message
        assert OPERATOR_KEY not in message
        assert ask(build(name, PERSON, base_url=server.root + path, api_key=PERSON_KEY)) == "hello"
        assert keys_sent(server, name) == [PERSON_KEY]


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_the_operator_typing_a_base_url_keeps_their_key(name):
    # Local mode and the CLI: the person is the operator, and a base URL they give is theirs to send their key to.
    fake, path, _variable, _sent = SERVERS[name]
    with fake(["hello", "hello"]) as server:
        assert ask(build(name, base_url=server.root + path)) == "hello"
        assert ask(build(name, Allowance(), base_url=server.root + path)) == "hello"
        assert keys_sent(server, name) == [OPERATOR_KEY, OPERATOR_KEY]


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_the_endpoint_the_operator_configured_gets_the_operators_key(name, monkeypatch):
    fake, path, _variable, _sent = SERVERS[name]
    with fake(["hello"] * 2) as server:
        monkeypatch.setenv("REACT_BASE_URL", server.root + path)  # the app's base URL setting, set by the operator
        monkeypatch.setenv("REACT_PROVIDER", name)
        assert ask(build(name, PERSON, base_url=server.root + path)) == "hello"
        assert ask(build(name, PERSON, base_url=server.root + path + "/")) == "hello"
        assert keys_sent(server, name) == [OPERATOR_KEY] * 2
        other = next(n for n in SERVERS if n != name)
        monkeypatch.setenv("REACT_PROVIDER", other)  # configured for another provider: not this one's endpoint
        with pytest.raises(MissingKeyError, match="Base URL you set"):
            build(name, PERSON, base_url=server.root + path)
        monkeypatch.delenv("REACT_PROVIDER")  # no provider named: whose endpoint it is is not guessed
        with pytest.raises(ConfigError, match="set REACT_PROVIDER"):
            build(name, PERSON, base_url=server.root + path)
        assert keys_sent(server, name) == [OPERATOR_KEY] * 2


def test_openai_base_url_variable_is_the_operators_endpoint(monkeypatch):
    with FakeOpenAI(["hello", "hello"]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.root + "/v1")
        assert ask(build("openai", PERSON)) == "hello"  # no base URL in the settings: the operator's endpoint
        assert ask(build("openai", PERSON, base_url=server.root + "/v1")) == "hello"
        assert keys_sent(server, "openai") == [OPERATOR_KEY] * 2


def test_a_persons_keyless_server_still_works_when_the_operator_has_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeOpenAI(["hello"]) as server:
        assert ask(build("openai", PERSON, base_url=server.root + "/v1")) == "hello"
        assert keys_sent(server, "openai") == ["not-needed"]


def test_without_the_servers_keys_only_the_visitors_key_is_used():
    with FakeGemini(["hello"]) as server:
        visitor = Allowance(owner="session:x", server_keys=False, own_endpoints=True)
        with pytest.raises(MissingKeyError, match="does not lend the server's keys"):
            build("gemini", visitor)
        with pytest.raises(MissingKeyError):
            build("gemini", visitor, base_url=server.root)
        assert server.requests == []


# The operator's endpoint, and URLs that only look like it: another host, port or scheme, user info that makes the
# real host evil.example, a trailing dot (another origin), another path (another tenant of one gateway), a query or a
# fragment, characters parsers read two ways.
OPERATORS = "https://llm.example.com/v1"
HOSTILE = [
    "https://llm.example.com.evil.example/v1",
    "https://llm.example.com@evil.example/v1",
    "https://llm.example.com:443@evil.example/v1",
    "https://llm.example.com\\@evil.example/v1",
    "https://llm.example.com\t.evil.example/v1",
    "https://llm.example.com:8443/v1",
    "http://llm.example.com/v1",
    "https://llm.example.com./v1",
    "https://llm.example.com/v1/../tenant/v1",
    "https://llm.example.com/tenant/v1",
    "https://llm.example.com/V1",
    "https://llm.example.com/v1?next=https://evil.example",
    "https://llm.example.com/v1#x",
    "https://evil.example/https://llm.example.com/v1",
    "https://evil.example#https://llm.example.com/v1",
    "//llm.example.com/v1",
    "llm.example.com/v1",
]
# The same endpoint written another way: scheme and host without case, the default port, a trailing slash, spaces.
SAME = ["https://llm.example.com/v1/", "HTTPS://LLM.Example.COM/v1", "https://llm.example.com:443/v1", " " + OPERATORS]


@pytest.mark.parametrize("typed", HOSTILE)
def test_a_url_that_only_looks_like_the_operators_endpoint_is_not_it(typed):
    from react_core.providers import OpenAIProvider, keys

    env = {"REACT_PROVIDER": "openai", "REACT_BASE_URL": OPERATORS, "OPENAI_API_KEY": OPERATOR_KEY}
    assert not keys.operators_endpoint(OpenAIProvider, typed, env=env, secrets={})
    assert not keys.operators_endpoint(OpenAIProvider, typed, env={"OPENAI_BASE_URL": OPERATORS}, secrets={})
    with PERSON.keys():
        assert keys.resolve_key(OpenAIProvider, base_url=typed, env=env, secrets={}) is None


@pytest.mark.parametrize("typed", SAME)
def test_the_operators_endpoint_written_another_way_is_still_theirs(typed):
    from react_core.providers import OpenAIProvider, keys

    env = {"REACT_PROVIDER": "openai", "REACT_BASE_URL": OPERATORS, "OPENAI_API_KEY": OPERATOR_KEY}
    with PERSON.keys():
        assert keys.resolve_key(OpenAIProvider, base_url=typed, env=env, secrets={}) == OPERATOR_KEY


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_a_hostile_spelling_of_the_configured_server_gets_no_key_and_no_request(name, monkeypatch):
    fake, path, _variable, _sent = SERVERS[name]
    with fake(["hello"]) as server:
        monkeypatch.setenv("REACT_PROVIDER", name)
        monkeypatch.setenv("REACT_BASE_URL", server.root + path)
        port = server.root.rsplit(":", 1)[1]
        for typed in (f"http://127.0.0.1:{port}@127.0.0.2:{port}{path}", f"http://localhost:{port}{path}"):
            with pytest.raises(MissingKeyError, match="Base URL you set"):
                build(name, PERSON, base_url=typed)
        assert server.requests == []
        assert ask(build(name, PERSON, base_url=server.root.upper() + path + "/")) == "hello"
        assert keys_sent(server, name) == [OPERATOR_KEY]


def test_the_openai_snippet_reads_the_key_as_required_only_for_openais_own_host():
    from react_core.providers import OpenAIProvider

    def python(endpoint: str) -> str:
        return OpenAIProvider.snippet({"endpoint": endpoint, "body": {"model": "m"}, "step": 1}, "python")

    host = OpenAIProvider.host  # OpenAI's own host, as the provider declares it (only a string: nothing is sent)
    assert "os.environ['OPENAI_API_KEY']" in python(f"https://{host}/v1/chat/completions")
    for lookalike in (f"https://{host}.evil.example/v1", f"https://{host}@evil.example/v1"):
        assert "os.environ.get('OPENAI_API_KEY', 'not-needed')" in python(lookalike + "/chat/completions")
