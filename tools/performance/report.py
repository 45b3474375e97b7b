#!/usr/bin/env python3
"""Writes docs/performance.md from the criterion benchmarks: before, after, target and ratio.

    python3 tools/performance/report.py            # runs `cargo bench` (reachable, preview), then writes
    python3 tools/performance/report.py --no-run   # only reads the last results

The results are criterion's medians in $CARGO_TARGET_DIR/criterion (default ~/.cache/estoc-target).
"Before" is what the README and issue 22 measured before the work on the searches began.
"""
import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/estoc-target"))

# (benchmark, reference benchmark or None, before in µs or None, target: ("ratio", x) or ("µs", x) or None)
REACHABLE = [
    ("open 64x64, Medium, move (6)", None, 67, None),
    ("open 64x64, Medium, double move (12)", "reference: open 64x64, Medium, double move (12)", 260, ("ratio", 1.5)),
    ("open 64x64, Medium, run (24)", "reference: open 64x64, Medium, run (24)", 1700, ("ratio", 1.5)),
    ("maze 64x64, Medium, double move (12)", "reference: maze 64x64, Medium, double move (12)", 38, ("ratio", 1.5)),
    ("maze 64x64, Medium, run (24)", "reference: maze 64x64, Medium, run (24)", 52, ("ratio", 1.5)),
    ("open 64x64, Large, run (32)", "open 64x64, Medium, run (24)", 4200, ("ratio", 2.0)),
    ("open 64x64, Medium, run lines (24)", None, 800, None),
    ("maze 64x64, Medium, run lines (24)", None, 100, None),
    ("open 64x64, Large, run lines (32)", None, 3400, None),
]
PREVIEW = [
    ("64x64, 30 creatures: move options (every action)", 1100, None),
    ("64x64, 30 creatures: path to a square with its AoOs", 470, 1000),
    ("64x64, 30 creatures: attack preview", 29, None),
    ("64x64, 30 creatures: foes' threatened squares", 6, None),
    ("64x64, 30 creatures: a flier's flights (every square, every flight)", 10100, 2000),
    ("64x64, 30 creatures: a frame when the cursor enters another square", 930, 1000),
    ("64x64, 30 creatures: a frame when nothing changed", 230, None),
    ("64x64, 30 creatures: one AI decision", 4100, 1000),
    ("a whole AI battle, skirmish (4 creatures), in a new app", 7200, None),
    ("a whole AI battle, skirmish (4 creatures)", 7200, 500),
    ("long/a whole AI battle, battlefield (30 creatures)", 370000, 20000),
]


def median_us(name):
    """The median of benchmark `name` ("group/name" for a benchmark in a group), in µs."""
    group, bench = name.split("/", 1) if name.startswith("long/") else ("", name)
    # Criterion's folder: the name with ":" and "/" replaced, cut to 64 characters.
    folder = TARGET / "criterion" / group / bench.replace(":", "_").replace("/", "_")[:64] / "new" / "estimates.json"
    if not folder.exists():
        return None
    return json.loads(folder.read_text())["median"]["point_estimate"] / 1000.0


def show(us):
    if us is None:
        return "—"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} µs"


def main():
    if "--no-run" not in sys.argv:
        subprocess.run(["cargo", "bench", "--bench", "reachable", "--bench", "preview"], cwd=ROOT, check=True)
    lines = [
        "# Performance",
        "",
        f"Written by `python3 tools/performance/report.py` on {date.today()} from criterion's medians (release",
        "build, one core of this 2-core machine; the machine is shared, and two runs differ by 10-30%).",
        "\"Before\" is what the README measured on 2026-11-21, before this work; the machine's speed varies from",
        "day to day (a search left untouched measured 2x slower on 2026-11-28 than on 2026-11-21), so the ratios",
        "to a reference run in the same process at the same time are the figures to trust.",
        "",
        "## The reachable squares (`benches/reachable.rs`)",
        "",
        "The game's search (`rules::movement::paths::reachable`) beside a plain bucket-queue Dijkstra written",
        "as the reference in the same benchmark, on the same maps, with the same rules (1-2-1-2 diagonals,",
        "difficult terrain, walls, no corner cutting); the benchmark checks first that both find the same",
        "squares. The game's search also keeps the path to every square, the fewest hampered squares and",
        "threatened squares left among equal paths, squeezing, the other creatures and where one may stop.",
        "",
        "| search | before | after | compared with | its time | ratio | target |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, reference, before, target in REACHABLE:
        after = median_us(name)
        ref = median_us(reference) if reference else None
        ratio = f"{after / ref:.2f}x" if after and ref else "—"
        goal = f"≤ {target[1]}x" if target else "—"
        lines.append(
            f"| {name} | {show(before)} | {show(after)} | {reference or '—'} | {show(ref)} | {ratio} | {goal} |"
        )
    lines += [
        "",
        "## The previews, the AI and whole battles (`benches/preview.rs`)",
        "",
        "| work | before | after | target | after / target |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, before, target in PREVIEW:
        after = median_us(name)
        ratio = f"{after / target:.2f}" if after and target else "—"
        lines.append(f"| {name} | {show(before)} | {show(after)} | {show(target)} | {ratio} |")
    lines.append("")
    (ROOT / "docs" / "performance.md").write_text("\n".join(lines))
    print((ROOT / "docs" / "performance.md").read_text())


if __name__ == "__main__":
    main()
