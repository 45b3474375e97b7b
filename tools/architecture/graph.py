#!/usr/bin/env python3
"""The module graph of src/, chapter by chapter, as a Mermaid flowchart for docs/architecture.md.

    python3 tools/architecture/graph.py > /tmp/graph.mmd

Reads `crate::a::b` paths as ../shared/tools/cycles.py does, then folds each file into its chapter (a folder
under src/rules/, or a top-level module) and prints the edges between chapters. Edges inside a chapter are
left out; an edge to the core is drawn once for all."""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "src"
files = {}
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(root, n)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            files[tuple(rel)] = p


def resolve(parts):
    parts = tuple(parts)
    while parts and parts not in files:
        parts = parts[:-1]
    return parts if parts in files else None


def chapter(module):
    if not module:
        return None
    if module[0] == "rules":
        if len(module) == 1:
            return "rules"
        return "rules::" + module[1]
    return module[0]


edges = set()
for module, path in files.items():
    text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read()).split("#[cfg(test)]")[0]
    for m in re.finditer(r"\bcrate((?:::\w+)+)", text):
        target = resolve([p for p in m.group(1).split("::") if p])
        a, b = chapter(module), chapter(target) if target else None
        if a and b and a != b:
            edges.add((a, b))

def reduce(edges):
    """The edges no longer path stands for: a --> c is left out when a --> b --> ... --> c."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)

    def reach(a, skip):
        seen, todo = set(), [n for n in succ.get(a, ()) if (a, n) != skip]
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(succ.get(n, ()))
        return seen

    return {(a, b) for a, b in edges if b not in reach(a, (a, b))}


edges = reduce(edges)
order = [
    "rules::core", "rules::movement", "rules::turns", "rules::attack", "rules::opportunity", "rules::health",
    "rules::magic", "rules::special", "rules::mounted", "rules::underwater", "rules::aerial", "rules::breath", "rules::overland", "rules::command",
    "rules", "data", "encounter", "preview", "ai", "scenario", "simulate", "game", "cli",
]
print("flowchart BT")
for node in order:
    print(f'    {node.replace("::", "_")}["{node}"]')
for a, b in sorted(edges, key=lambda e: (order.index(e[0]) if e[0] in order else 99, e[1])):
    print(f"    {a.replace('::', '_')} --> {b.replace('::', '_')}")
