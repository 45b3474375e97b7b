#!/usr/bin/env python3
# A copy of ../shared/tools/cycles.py, for a clone without ../shared beside it.
"""Import cycles between the files of a Rust crate's src/: reads `crate::a::b` paths (in `use` lines and
inline), resolves each to the deepest existing module file, and prints the strongly connected components of
more than one file. Exit 1 when there is any."""
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


def resolve(path):
    parts = tuple(path)
    while parts and parts not in files:
        parts = parts[:-1]
    return parts if parts in files else None


def expand(text, here):
    """`use crate::a::{b, c::d};` -> [[a,b],[a,c,d]]; inline `crate::a::b::f` -> [[a,b,f]]; `super::` and
    `self::` relative to the module `here`."""
    out = []
    for m in re.finditer(r"\b(crate|super|self)((?:::(?:super|\w+))+)(::\{)?", text):
        head = [p for p in m.group(2).split("::") if p]
        if m.group(1) == "crate":
            base = []
        elif m.group(1) == "self":
            base = list(here)
        else:
            base = list(here[:-1])
        while head and head[0] == "super":
            base = base[:-1]
            head = head[1:]
        head = base + head
        if m.group(3):
            depth, i, start = 1, m.end(), m.end()
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            body = text[start:i - 1]
            for item in re.split(r",(?![^{]*\})", body):
                item = item.strip()
                if not item or item == "self":
                    out.append(head)
                    continue
                out.append(head + [p for p in re.split(r"::|\{|\}|,|\s+as\s+\w+", item) if p.strip()][:3])
        else:
            out.append(head)
    return out


graph = {k: set() for k in files}
for mod, p in files.items():
    text = open(p, encoding="utf-8", errors="replace").read()
    text = re.sub(r"//[^\n]*", "", text)
    text = text.split("#[cfg(test)]")[0]  # test modules come last; their `super::` is the file itself
    for path in expand(text, mod if files[mod].endswith("mod.rs") or mod == () else mod):
        target = resolve(path)
        if target is not None and target != mod and target != ():
            graph[mod].add(target)

index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in graph[v]:
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(comp)


for v in graph:
    if v not in index:
        strong(v)
name = lambda m: files[m].replace(src.rstrip("/") + "/", "src/", 1) if not files[m].startswith("src/") else files[m]
for c in sorted(sccs, key=len, reverse=True):
    print(f"cycle of {len(c)} files: " + ", ".join(sorted(name(m) for m in c)))
print(f"{len(sccs)} import cycles among {len(files)} files")
sys.exit(1 if sccs else 0)
