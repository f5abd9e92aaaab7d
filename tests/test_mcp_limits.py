"""Bounds on what an MCP server sends and what a run keeps of it: one message at most 1 MiB (our server,
tests/mcp_server.py, started as an operator's stdio command, and over HTTP answering with a stream of events or with
one JSON body), no compressed reply, and a result as the trace records it cut to its bound, however the server shapes
it (one long text, many blocks, structured content)."""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from mcp_helpers import HERE, our_server

from react_core.base.trace import Action
from react_core.tools.mcp import mcp_tools, server_statuses
from react_core.tools.mcp_bounds import MAX_MESSAGE_BYTES, MessageTooLarge, lines
from react_core.tools.mcp_client import POOL
from react_core.tools.mcp_config import server_config
from react_core.tools.mcp_results import MAX_RECORDED_CHARS
from react_core.tools.registry import MAX_OBSERVATION_CHARS, ToolRegistry

TOO_LARGE = f"more than {MAX_MESSAGE_BYTES:,} bytes"


@pytest.fixture(scope="module")
def command():
    yield server_config("big", {"command": sys.executable, "args": [str(HERE / "mcp_server.py"), "stdio"]})
    POOL.close_all()  # ends the stdio server the pool started


def call(config, tool: str, **arguments):
    name = f"{config.name}_{tool}"
    return ToolRegistry(mcp_tools([name], [config])).run(Action(name, json.dumps(arguments)))


@pytest.mark.parametrize("image", [False, True])
def test_a_stdio_message_over_the_bound_fails_the_call_and_the_server_starts_again(command, image):
    late = call(command, "big", size=MAX_MESSAGE_BYTES, image=image)  # its JSON-RPC line is longer still
    assert late.is_error and TOO_LARGE in late.text and late.mcp.error and late.mcp.result is None
    assert call(command, "echo", text="still here").text == "echo: still here"


@pytest.mark.parametrize("image", [False, True])
def test_a_stdio_message_under_the_bound_is_read(command, image):
    obs = call(command, "big", size=600_000, image=image)  # 800,000 characters of base64 for the image
    assert not obs.is_error and len(obs.text) <= MAX_OBSERVATION_CHARS


@pytest.mark.parametrize("replies", ["", "json"], ids=["a stream of events", "one JSON body"])
def test_an_http_message_over_the_bound_fails_the_call(replies):
    with our_server(replies=replies) as (url, _proc):
        config = server_config("web", {"url": url, "timeout": 20})
        try:
            late = call(config, "big", size=MAX_MESSAGE_BYTES)
            assert late.is_error and late.mcp.result is None
            assert TOO_LARGE in late.text or f"exceeded the {MAX_MESSAGE_BYTES} byte limit" in late.text  # the SDK's
            assert call(config, "echo", text="still here").text == "echo: still here"
            assert not call(config, "big", size=600_000).is_error
        finally:
            POOL.close_all()


def test_a_compressed_http_reply_is_refused():
    with our_server(replies="gzip") as (url, _proc):
        try:
            (status,) = server_statuses([server_config("web", {"url": url, "timeout": 20})])
        finally:
            POOL.close_all()
    assert not status.connected and "the server sent its reply compressed (gzip)" in status.error


def read(chunks: list[bytes], limit: int) -> list[bytes]:
    async def source():
        for chunk in chunks:
            yield chunk

    async def gather() -> list[bytes]:
        return [line async for line in lines(source(), limit)]

    return anyio.run(gather)


def test_lines_are_read_across_chunks_up_to_the_bound():
    assert read([b"ab\ncd", b"e\n\nf", b"g\n"], 8) == [b"ab", b"cde", b"", b"fg"]
    assert read([b"1234", b"5678\n"], 8) == [b"12345678"]  # exactly the bound
    with pytest.raises(MessageTooLarge):
        read([b"1234", b"56789"], 8)  # one byte more, before its line even ends
    with pytest.raises(MessageTooLarge):
        read([b"ok\n123456789\n"], 8)


@pytest.mark.parametrize(
    "arguments",
    [{"size": 50_000}, {"size": 100, "blocks": 2_000}, {"size": 40_000, "blocks": 3}],
    ids=["one long text", "many blocks", "several long texts"],
)
def test_the_trace_keeps_a_result_cut_to_its_bound(command, arguments):
    obs = call(command, "big", **arguments)
    assert not obs.is_error
    kept = json.dumps(obs.mcp.result, ensure_ascii=False)
    assert len(kept) <= MAX_RECORDED_CHARS + 1_000, len(kept)
    assert "cut at" in kept or "omitted" in kept  # and says so


def test_the_trace_keeps_structured_content_cut_to_its_bound(command):
    obs = call(command, "table", rows=5_000)
    assert not obs.is_error
    kept = json.dumps(obs.mcp.result, ensure_ascii=False)
    assert len(kept) <= MAX_RECORDED_CHARS + 1_000, len(kept)
    small = call(command, "table", rows=3).mcp.result
    assert small["structuredContent"] == {"rows": [{"id": n, "name": f"row {n}"} for n in range(3)]}  # kept whole
