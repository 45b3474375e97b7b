"""Checks what the scripted mounted charge (tests/scripts/raid.ron) left: the warhorse charged along a lane
ending where the knight's lance strikes orc-1 (the horse and its rider at (11,5), both charging), the knight
struck once, nothing was refused; every screenshot shows the board.

Usage: check_raid.py STATE.json SCREENSHOT.png...
"""
import json
import subprocess
import sys

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
for shot in sys.argv[2:]:
    result = subprocess.run([sys.executable, ".ci/check_screenshot.py", shot], capture_output=True, text=True)
    if result.returncode != 0:
        problems.append(f"{shot}: {result.stdout}{result.stderr}")
if problems:
    print("scripted mounted charge: FAILED")
    for p in problems:
        print("  " + p)
    sys.exit(1)
print(f"scripted mounted charge: ok (round {state['round']}, {state['actions']} actions)")
