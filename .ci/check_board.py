"""Checks how the board shows its creatures after tests/scripts/board.ron on tests/fixtures/fallen.ron: every
creature has its own name; a dead token lies small and grey with "dead" under it, the dying and the stable
lie greyed with their word, the prone one lies in its colours, the standing stand; the screenshot shows the
board.

Usage: check_board.py STATE.json SCREENSHOT.png...
"""
import json
import sys

from report import boards_shown, verdict

state = json.load(open(sys.argv[1]))
creatures = {c["id"]: c for c in state["creatures"]}
problems = []
names = [c["name"] for c in state["creatures"]]
if len(set(names)) != len(names):
    problems.append(f"names shared by several creatures: {names}")
expected = {
    # id: (lying, greyed, word, shrunk)
    "fighter": (False, False, None, False),
    "archer": (False, False, None, False),
    "goblin-1": (True, True, "dead", True),
    "goblin-2": (True, True, "dying", False),
    "goblin-3": (True, True, "stable", False),
    "goblin-4": (True, False, None, False),
}
for who, (lying, greyed, word, shrunk) in expected.items():
    token = creatures[who].get("token")
    if token is None:
        problems.append(f"{who} has no token")
        continue
    seen = (token["lying"], token["greyed"], token["word"], token["shrunk"])
    if seen != (lying, greyed, word, shrunk):
        problems.append(f"{who} ({creatures[who]['conditions']}): token (lying, greyed, word, shrunk) = {seen}, "
                        f"expected {(lying, greyed, word, shrunk)}")
if not creatures["fighter"]["token"]["label_shown"]:
    problems.append("the active fighter's name is not shown")
problems += boards_shown(sys.argv[2:])
verdict("scripted board", problems, f"{len(names)} creatures, each with its name and its look")
