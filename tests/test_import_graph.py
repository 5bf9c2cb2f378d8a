"""The import graph has no circle: a module never imports, directly or through others,
a module that imports it back. A circle hides which module depends on which, breaks at
import time as soon as one side reads the other at the top, and is the first thing a
layer rule cannot see. (The layers themselves: `lint-imports`, pyproject.toml.)"""

from __future__ import annotations

import grimp
import pytest

pytestmark = pytest.mark.database_independent

PACKAGES = ("web", "tasks", "workers", "scheduler", "models")


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, kept
    iterative: the graph is deep enough to exhaust recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            following = next(imported, None)
            if following is not None:
                if following not in index:
                    index[following] = low[following] = len(index)
                    stack.append(following)
                    on_stack.add(following)
                    work.append(
                        (
                            following,
                            iter(sorted(graph.find_modules_directly_imported_by(following))),
                        )
                    )
                elif following in on_stack:
                    low[module] = min(low[module], index[following])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == module:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_the_finder_sees_a_circle():
    graph = grimp.ImportGraph()
    for module in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(module)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")
    graph.add_import(importer="a.c", imported="a.d")
    assert circles(graph) == [["a.b", "a.c"]]


def test_no_module_imports_itself_back():
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False, cache_dir=None)
    assert circles(graph) == []
