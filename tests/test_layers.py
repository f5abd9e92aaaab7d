"""The project's layers, stated once: a module may import only from its own layer or the layers below, and no two
modules import each other in a circle. Every import counts, including those inside functions (a lazy import is still
a dependency). The background jobs (each page's ``job.py``, named ``job`` or ``*_job`` / ``job_*``, and the job class in
``ui/shared/job.py``) are plain threads: no Streamlit, no drawing code."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top, one folder a layer. A module belongs to the layer of the longest prefix that names it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("data and vocabulary", ("react_core.base",)),
    ("dialects", ("react_core.dialects",)),
    (
        "the parts: providers, tools, knowledge, presets, history, report, telemetry",
        (
            "react_core.providers",
            "react_core.tools",
            "react_core.knowledge",
            "react_core.presets",
            "react_core.history",
            "react_core.report",
            "react_core.telemetry",
        ),
    ),
    ("the loop", ("react_core.loop",)),
    ("evaluation", ("react_core.evaluation",)),
    ("fine-tuning", ("react_core.training",)),
    ("the command line", ("react_core.cli", "react_core.__main__")),
    ("the front door", ("react_core",)),
    ("background jobs", ()),  # not a folder: every ui module named for a job, wherever its page keeps it (_is_job)
    ("the app's shared parts: state, identity, binding, text, the drawing of a run", ("ui", "ui.shared")),
    (
        "each page's drawing and verbs, a folder a page",
        (
            "ui.chat",
            "ui.arena",
            "ui.settings",
            "ui.history",
            "ui.evaluate",
            "ui.classroom",
            "ui.finetune",
            "ui.present",
        ),
    ),
    ("pages", ("pages", "app")),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _sources() -> dict[str, Path]:
    files = [*ROOT.glob("react_core/**/*.py"), *ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    return {_module_name(p): p for p in files}


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module (and streamlit) this module imports, anywhere in it."""
    found: set[str] = set()
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # "from pkg import mod" imports pkg.mod when that is a module, else a name of pkg.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules and target != "streamlit":
                if target.split(".")[0] == "streamlit":
                    target = "streamlit"
                    break
                target = target.rpartition(".")[0]
            if not target:
                continue
            found.add(target)
            # Importing a.b.c runs the packages a and a.b first: they are dependencies too, except the importing
            # module's own enclosing packages (which are already being imported when it runs).
            parts = target.split(".")
            for i in range(1, len(parts)):
                parent = ".".join(parts[:i])
                if parent in modules and not (name == parent or name.startswith(parent + ".")):
                    found.add(parent)
    found.discard(name)
    return found


def _is_job(name: str) -> bool:
    leaf = name.rpartition(".")[2]
    return name.startswith("ui.") and (leaf == "job" or leaf.startswith("job_") or leaf.endswith("_job"))


def _is_empty_package(name: str) -> bool:
    # ui/chat/__init__.py and its siblings are empty: importing ui.chat.job runs ui.chat, which imports nothing, so an
    # empty package sits with the lowest layer that may live in it (the jobs).
    path = _sources().get(name)
    return path is not None and path.name == "__init__.py" and not path.read_text(encoding="utf-8").strip()


def _layer(name: str) -> int:
    if _is_job(name) or (name.startswith("ui.") and _is_empty_package(name)):
        return next(i for i, (title, _prefixes) in enumerate(LAYERS) if title == "background jobs")
    best, layer = -1, None
    for i, (_title, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, layer = len(prefix), i
    assert layer is not None, f"{name} belongs to no layer: add it to LAYERS"
    return layer


def _graph() -> dict[str, set[str]]:
    modules = _sources()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_every_import_points_down_or_sideways():
    wrong = []
    for name, targets in _graph().items():
        for target in targets - {"streamlit"}:
            if _layer(target) > _layer(name):
                wrong.append(f"{name} ({LAYERS[_layer(name)][0]}) imports {target} ({LAYERS[_layer(target)][0]})")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(wrong))


def test_the_app_enters_the_engine_only_by_its_front_door():
    # ui/, pages/ and app.py import react_core itself (react_core/__init__.py), never one of its modules.
    app = {n: ts for n, ts in _graph().items() if n.split(".")[0] in ("ui", "pages", "app")}
    assert app, "no app modules found"
    wrong = sorted(f"{n} imports {t}" for n, targets in app.items() for t in targets if t.startswith("react_core."))
    assert not wrong, "the app reaches past the front door:\n" + "\n".join(wrong)


def test_there_are_no_import_cycles():
    graph = {n: {t for t in ts if t != "streamlit"} for n, ts in _graph().items()}
    # Tarjan's strongly connected components: any component with two or more modules is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, "import cycles: " + "; ".join(" ↔ ".join(c) for c in cycles)


def test_the_engine_and_the_jobs_never_import_streamlit():
    offenders = [n for n, ts in _graph().items() if "streamlit" in ts and (n.startswith("react_core") or _is_job(n))]
    assert not offenders


def test_every_page_keeps_its_jobs_and_they_are_found():
    # A job moved or renamed out of the naming rule would silently lose the no-Streamlit check above.
    jobs = {n for n in _sources() if _is_job(n)}
    assert {"ui.shared.job", "ui.chat.job", "ui.arena.job", "ui.evaluate.job", "ui.finetune.job"} <= jobs
    sources = _sources().items()
    threads = {n for n, p in sources if n.startswith("ui.") and "threading.Thread(" in p.read_text(encoding="utf-8")}
    assert threads <= jobs, f"modules that start threads but are not named as jobs: {sorted(threads - jobs)}"


def test_every_module_has_a_layer():
    for name in _sources():
        _layer(name)
