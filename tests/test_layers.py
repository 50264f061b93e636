"""The packages stack in layers and their modules import without cycles: engine, then
client, ai, server and cli, each importing only its own layer and the ones below it
(docs/source.md); no module reaches itself through the module-level imports of others.
Inside ai, the value types (ai/values.py) depend on the engine alone, and the network
(ai/net/) and the compiled searches not on the training (ai/learn/)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Package folder -> its package, lowest layer first.
LAYERS = (("engine", "gallerist.engine"), ("client", "gallerist.client"), ("ai", "gallerist.ai"),
          ("server", "gallerist.server"), ("cli", "gallerist.cli"))
RANK = {package: i for i, (_, package) in enumerate(LAYERS)}


def _modules() -> dict[str, Path]:
    """Every module of the layered packages, by dotted name: the Python ones and the
    compiled ones (`.pyx`: their imports are not read here, their cimports are C's)."""
    out = {}
    for folder, package in LAYERS:
        for path in sorted([*(ROOT / folder).rglob("*.py"), *(ROOT / folder).rglob("*.pyx")]):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


def _imports(path: Path, *, top_level_only: bool, modules: dict[str, Path] | None = None) -> set[str]:
    """The gallerist modules `path` imports (module level only, or anywhere). `from
    package import submodule` imports the submodule, not the package's own names."""
    if path.suffix == ".pyx":      # Cython: its Python-level imports, read line by line
        return _pyx_imports(path, top_level_only=top_level_only, modules=modules)
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("gallerist.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("gallerist"):
                continue
            subs = {f"{node.module}.{a.name}" for a in node.names}
            known = {m for m in subs if modules is None or m in modules}
            found |= known
            if modules is None or len(known) < len(subs):   # a name of the module itself
                found.add(node.module)
    return found


def _pyx_imports(path: Path, *, top_level_only: bool, modules: dict[str, Path] | None) -> set[str]:
    """`_imports` of a Cython module (`cimport`s are C-level and not counted)."""
    found = set()
    indent = "" if top_level_only else r"\s*"
    # names in parentheses may span lines; without them, the line ends the import
    for m in re.finditer(rf"^{indent}from (gallerist[\w.]*) import (?:\(([\w, \n]+)\)|([\w, ]+))",
                         path.read_text(), re.M):
        names = [n.split(" as ")[0].strip() for n in (m.group(2) or m.group(3)).split(",")
                 if n.strip()]
        subs = {f"{m.group(1)}.{n}" for n in names}
        known = {x for x in subs if modules is None or x in modules}
        found |= known
        if modules is None or len(known) < len(subs):
            found.add(m.group(1))
    for m in re.finditer(rf"^{indent}import (gallerist[\w.]*)", path.read_text(), re.M):
        found.add(m.group(1))
    return found


def _layer(module: str) -> int | None:
    for package, rank in RANK.items():
        if module == package or module.startswith(package + "."):
            return rank
    return None


def test_each_layer_imports_only_itself_and_the_layers_below():
    """engine imports no other package, client only the engine, ai not the service or
    the command line, the service not the command line (imports inside functions too)."""
    wrong = []
    for name, path in _modules().items():
        mine = _layer(name)
        for target in _imports(path, top_level_only=False):
            theirs = _layer(target)
            if theirs is not None and mine is not None and theirs > mine:
                wrong.append(f"{path.relative_to(ROOT)} imports {target}")
    assert wrong == []


def test_no_import_cycle_between_modules():
    """No module reaches itself through module-level imports (a lazy import inside a
    function is how a cycle would be hidden; the layer test above checks those)."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target in _imports(path, top_level_only=True, modules=modules):
            while target and target not in modules:   # "a.b.name" -> module "a.b"
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
        graph[name] = targets
    cycles = []
    state: dict[str, int] = {}      # 1 on the path, 2 done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_value_types_import_nothing_of_ai():
    """ai/values.py (Budget, MoveInfo, PositionSummary, Analysis: what every layer passes
    around) imports the engine and nothing of gallerist.ai (imports inside functions too)."""
    found = _imports(ROOT / "ai" / "values.py", top_level_only=False)
    assert "gallerist.engine.actions" in found
    assert sorted(m for m in found if _within(m, "gallerist.ai")) == []


def test_the_network_and_the_searches_do_not_import_the_training():
    """gallerist.ai.net (the model file, the NumPy reference, the packaged networks) and
    gallerist.ai.search (the C forward pass among them) import nothing of
    gallerist.ai.learn: the training needs the network, not the other way round."""
    wrong = []
    for name, path in _modules().items():
        if _within(name, "gallerist.ai.net") or _within(name, "gallerist.ai.search"):
            wrong += [f"{path.relative_to(ROOT)} imports {target}"
                      for target in _imports(path, top_level_only=False)
                      if _within(target, "gallerist.ai.learn")]
    assert wrong == []
