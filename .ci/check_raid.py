"""Checks what the scripted mounted charge (tests/scripts/raid.ron) left: the warhorse charged along a lane
ending where the knight's lance strikes orc-1 (the horse and its rider at (11,5), both charging), the knight
struck once, nothing was refused; every screenshot shows the board.

Usage: check_raid.py STATE.json SCREENSHOT.png...
"""
import json
import sys

from report import boards_shown, verdict

state = json.load(open(sys.argv[1]))
creatures = {c["id"]: c for c in state["creatures"]}
problems = []
for who in ("warhorse", "knight"):
    if creatures[who]["at"] != [11, 5]:
        problems.append(f"the {who} is at {creatures[who]['at']}, not at the charge's end (11,5)")
    if "charging" not in creatures[who]["conditions"]:
        problems.append(f"the {who} is not charging: {creatures[who]['conditions']}")
if state["attacks"] != 1:
    problems.append(f"{state['attacks']} attacks rolled: the knight's one blow was expected")
if state["refused"]:
    problems.append(f"refused actions: {state['refused']}")
problems += boards_shown(sys.argv[2:])
verdict("scripted mounted charge", problems, f"round {state['round']}, {state['actions']} actions")
