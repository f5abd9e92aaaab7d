"""The command line as other tools use it: a subprocess, JSON out, exit codes."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "react_core", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def script(tmp_path: Path, outputs: list) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(outputs))
    return str(path)


def test_parse_prints_exactly_the_four_keys():
    out = cli("parse", "--format", "pause", stdin="Thought: look it up\nAction: wikipedia: Django\nPAUSE\n")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {
        "thought": "look it up",
        "action": {"tool": "search", "input": "Django"},
        "final_answer": None,
        "error": None,
    }


def test_parse_reports_an_error_without_failing():
    out = cli("parse", "--format", "function", stdin='Action: search(query=open("/etc/passwd"))')
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["action"] is None and "literal" in data["error"]


def test_ask_json_prints_the_trace(tmp_path):
    path = script(tmp_path, [" Compute it.\nAction 1: Calculator[6*7]", " Done.\nAction 2: Finish[42]"])
    out = cli(
        "ask", "What is six times seven?", "--provider", "scripted", "--script", path, "--tools", "calculator", "--json"
    )
    assert out.returncode == 0, out.stderr
    trace = json.loads(out.stdout)
    assert trace["stop_reason"] == "finished" and trace["final_answer"] == "42"
    assert trace["steps"][0]["observation"]["text"] == "6*7 = 42"
    assert trace["settings"]["provider"] == "scripted" and trace["settings"]["dialect"] == "paper"


def test_ask_with_another_format_and_limits(tmp_path):
    path = script(
        tmp_path,
        ["I will compute.\n\nAction 1\n<calculator>1+1", "\n\nAction 2\n<calculator>2+2", "x\n<calculator>3+3"],
    )
    out = cli(
        "ask",
        "q",
        "--provider",
        "scripted",
        "--script",
        path,
        "--format",
        "xml",
        "--tools",
        "calculator",
        "--max-calls",
        "2",
        "--temperature",
        "0.5",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    trace = json.loads(out.stdout)
    assert trace["stop_reason"] == "max_calls" and len(trace["steps"]) == 2
    assert trace["settings"]["dialect"] == "xml" and trace["settings"]["temperature"] == 0.5


def test_ask_transcript_is_readable(tmp_path):
    path = script(tmp_path, [" Compute.\nAction 1: Calculator[2+2]", " So 4.\nAction 2: Finish[4]"])
    out = cli("ask", "What is 2+2?", "--provider", "scripted", "--script", path, "--tools", "calculator")
    assert out.returncode == 0, out.stderr
    assert "Thought 1: Compute." in out.stdout
    assert "Action 1: Calculator[2+2]" in out.stdout
    assert "Observation 1: 2+2 = 4" in out.stdout
    assert "Final Answer: 4" in out.stdout
    assert "(Answered · 2 steps · " in out.stdout and "stop reason: finished)" in out.stdout


def test_ask_prints_the_expected_answer_and_its_scores_when_the_question_is_known(tmp_path):
    # HotpotQA dev's row 7000 (not one of the offline pack's): known from the shared data whatever the knowledge.
    question = (
        "The Lang Labor Party was the group that aligned with the policies of the government that followed what system?"
    )
    for answer, said in [
        ("the Westminster", "Expected answer: «Westminster» · exact match · EM 1 · F1 1.00"),
        (
            "Westminster system",
            "Expected answer: «Westminster» · not an exact match (word overlap F1 0.67) · EM 0 · F1 0.67",
        ),
    ]:
        path = script(tmp_path, [f" I know it.\nAction 1: Finish[{answer}]"])
        out = cli("ask", question, "--provider", "scripted", "--script", path, "--tools", "calculator")
        assert out.returncode == 0, out.stderr
        assert f"Final Answer: {answer}\n{said}\n(Answered · 1 step" in out.stdout, out.stdout
    out = cli("ask", question, "--provider", "scripted", "--script", path, "--tools", "calculator", "--json")
    assert json.loads(out.stdout)["expected_answer"] == "Westminster"
    # A question nobody knows the answer to gets no such line.
    path = script(tmp_path, [" So.\nAction 1: Finish[4]"])
    out = cli("ask", "What is 2+2?", "--provider", "scripted", "--script", path, "--tools", "calculator")
    assert "Final Answer: 4\n(Answered" in out.stdout and "Expected answer" not in out.stdout


def test_a_run_ending_in_error_still_exits_0(tmp_path):
    path = script(tmp_path, [{"error": "rate limited"}])
    out = cli("ask", "q", "--provider", "scripted", "--script", path, "--tools", "calculator", "--json")
    assert out.returncode == 0
    assert json.loads(out.stdout)["stop_reason"] == "error"


def test_bad_arguments_exit_2_with_one_line(tmp_path):
    cases = [
        ("ask", "q", "--provider", "scripted", "--script", str(tmp_path / "missing.json")),
        ("ask", "q", "--provider", "scripted"),
        ("ask", "q", "--max-calls", "zero"),
        ("ask", "q", "--provider", "scripted", "--script", script(tmp_path, []), "--max-calls", "99"),
        ("ask", "q", "--provider", "nope"),
        ("parse", "--format", "yaml"),
        ("ask", "q", "--provider", "scripted", "--script", script(tmp_path, []), "--preset", "no-such-preset"),
        ("ask", "q", "--provider", "scripted", "--script", script(tmp_path, []), "--tools", "search,shell"),
        # A direct-answer prompt (Answer: …) can never finish an agent run: refused, not run to its budget.
        ("ask", "q", "--provider", "scripted", "--script", script(tmp_path, []), "--preset", "hotpotqa-standard"),
    ]
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("[not json")
    cases.append(("ask", "q", "--provider", "scripted", "--script", str(bad_json)))
    for args in cases:
        out = cli(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1, (args, out.stderr)
        assert "error" in out.stderr


def test_request_prints_a_steps_model_call_and_refuses_a_trace_without_one(tmp_path):
    path = script(tmp_path, ["Thought 1: look\nAction 1: Calculator[2 + 2]", "Thought 2: four\nAction 2: Finish[4]"])
    out = cli("ask", "q?", "--provider", "scripted", "--script", path, "--tools", "calculator", "--json")
    trace_file = tmp_path / "trace.json"
    trace_file.write_text(out.stdout)
    got = cli("request", str(trace_file), "--step", "2")
    assert got.returncode == 0, got.stderr
    call = json.loads(got.stdout)
    assert call["step"] == 2 and call["api"] == "scripted" and call["stop_local"] == ["\nObservation"]
    assert call["body"]["prompt"].startswith("Question: q?\nThought 1: look\nAction 1: Calculator[2 + 2]\n")
    assert call["body"]["prompt"].endswith("Thought 2:") and "(1) Calculator[" in call["body"]["system"]

    old = json.loads(out.stdout)
    for step in old["steps"]:
        step.pop("call")  # a trace exported before calls were recorded
    trace_file.write_text(json.dumps(old))
    for args in (("--step", "2"), ("--step", "9"), ("--step", "1", "--as", "curl")):
        bad = cli("request", str(trace_file), *args)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, (args, bad.stderr)
    assert "does not record its model call" in cli("request", str(trace_file), "--step", "2").stderr


def test_the_transcript_shows_terminal_escapes_instead_of_obeying_them(tmp_path):
    evil = "Thought 1: \x1b]0;pwned\x07\x1b[2J\x1b[31mred\x9b\nAction 1: Finish[\x1b[5mblink]"
    out = cli("ask", "q", "--provider", "scripted", "--script", script(tmp_path, [evil]), "--tools", "calculator")
    assert out.returncode == 0
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout and "\x9b" not in out.stdout
    assert "\\x1b[31mred" in out.stdout and "Final Answer: \\x1b[5mblink" in out.stdout


def test_ask_json_prints_whatever_the_model_wrote_as_valid_printable_json(tmp_path):
    odd = "Thought 1: \x9b\ud800 東京\nAction 1: Finish[ok]"
    out = cli(
        "ask", "q", "--provider", "scripted", "--script", script(tmp_path, [odd]), "--tools", "calculator", "--json"
    )
    assert out.returncode == 0, out.stderr
    assert "\x9b" not in out.stdout and "東京" in out.stdout
    trace = json.loads(out.stdout)
    assert trace["steps"][0]["thought"] == "\x9b\ufffd 東京" and trace["final_answer"] == "ok"


def test_ask_prints_each_step_as_soon_as_it_is_done(tmp_path):
    # The second model call waits at a gate: the first step must already be on stdout while it waits (a transcript
    # printed only at the end would show nothing yet, and the reader below gives up instead of hanging).
    gate = tmp_path / "gate"
    path = script(
        tmp_path,
        [" Compute.\nAction 1: Calculator[6 * 7]", {"text": " So.\nAction 2: Finish[42]", "gate": str(gate)}],
    )
    args = ["ask", "q", "--provider", "scripted", "--script", path, "--tools", "calculator"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "react_core", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True)
    reader.start()
    try:
        first = [lines.get(timeout=30) for _ in range(4)]
        assert first[0] == "Question: q\n" and first[3] == "Observation 1: 6 * 7 = 42\n", first
        assert proc.poll() is None  # still waiting for the second call
        gate.touch()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    reader.join(timeout=30)  # the rest of the output, to the end
    rest = "".join(lines.queue)
    assert rest.startswith("Thought 2: So.\nAction 2: Finish[42]\nFinal Answer: 42\n(Answered · 2 steps"), rest


def test_ask_in_step_mode_reads_each_decision_as_a_line_on_stdin(tmp_path):
    path = script(
        tmp_path,
        [
            " Compute it.\nAction 1: Calculator[6*7]",
            " A.\nAction 1: Calculator[1+1]",
            " B.\nAction 1: Calculator[2+2]",
            " Done.\nAction 2: Finish[4]",
        ],
    )
    decisions = "edit Calculator 6*7\nregenerate 2 0.7\npick 2\nedit Finish[four]\n"
    args = ("ask", "q?", "--provider", "scripted", "--script", path, "--tools", "calculator")
    out = cli(*args, "--pause-before", "tool,error,finish", stdin=decisions)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "Paused before every tool call (step 1): waiting for you." in text
    assert "Tool call that would run: calculator('6*7')" in text
    assert "The edited action was not taken: action line 1:" in text  # refused, and asked again
    assert "Alternative 2 (temperature 0.7): Calculator[2+2]" in text
    assert "Observation 1: 2+2 = 4" in text and "Paused before Finish (step 2)" in text
    assert text.rstrip().endswith("stop reason: finished)") and "Final Answer: four" in text


def test_ask_in_step_mode_stops_at_the_end_of_its_input_and_json_stays_clean(tmp_path):
    path = script(tmp_path, [" Compute it.\nAction 1: Calculator[6*7]"])
    args = ("ask", "q?", "--provider", "scripted", "--script", path, "--tools", "calculator", "--json")
    out = cli(*args, "--pause-before", "tool", stdin="observe It is 42.\n")
    assert out.returncode == 0, out.stderr
    assert out.returncode == 0 and "Paused before every tool call" in out.stderr
    trace = json.loads(out.stdout)
    assert trace["stop_reason"] == "error"  # the script ran out after the written observation
    assert trace["steps"][0]["observation"]["written_by"] == "person"
    out = cli(*args, "--pause-before", "tool", stdin="")
    assert json.loads(out.stdout)["stop_reason"] == "cancelled" and "(end of input: stop)" in out.stderr


def test_ask_in_step_mode_says_why_regenerating_failed_and_stays_paused(tmp_path):
    path = script(tmp_path, [" Compute it.\nAction 1: Calculator[6*7]", {"error": "HTTP 429: Too Many Requests"}])
    args = ("ask", "q?", "--provider", "scripted", "--script", path, "--tools", "calculator")
    out = cli(*args, "--pause-before", "tool", stdin="regenerate 1\nstop\n")
    assert out.returncode == 0, out.stderr
    assert "Regenerating failed with 0 of 1 alternatives drawn: HTTP 429: Too Many Requests." in out.stdout
    assert out.stdout.rstrip().endswith("stop reason: cancelled)")  # the next decision was still taken


def test_ask_refuses_a_breakpoint_that_is_not_one(tmp_path):
    path = script(tmp_path, ["x"])
    out = cli("ask", "q?", "--provider", "scripted", "--script", path, "--pause-before", "tool,never")
    assert out.returncode == 2 and "--pause-before takes a comma-separated list of tool, error, finish" in out.stderr
