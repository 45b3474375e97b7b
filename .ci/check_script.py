"""Checks what the scripted battle (tests/scripts/skirmish.ron) left: the fighter stepped to (3,4) with a
5-foot step, attacked goblin-1 by a click and ended its turn; nothing was refused; every screenshot shows
the board.

Usage: check_script.py STATE.json SCREENSHOT.png...
"""
import json
import sys

from report import boards_shown, verdict

state = json.load(open(sys.argv[1]))
creatures = {c["id"]: c for c in state["creatures"]}
problems = []
if creatures["fighter"]["at"] != [3, 4]:
    problems.append(f"the fighter is at {creatures['fighter']['at']}, not (3,4)")
if creatures["archer"]["at"] != [1, 6]:
    problems.append(f"the archer is at {creatures['archer']['at']}: loading the save did not bring it back to (1,6)")
if state["attacks"] < 2:
    problems.append(f"{state['attacks']} attacks rolled: goblin-1's and the fighter's were expected")
if state["refused"]:
    problems.append(f"refused actions: {state['refused']}")
if state["turn"] != "archer":
    problems.append(f"the turn is {state['turn']}'s, not the archer's after the fighter ended its turn")
if state["actions"] < 4:
    problems.append(f"only {state['actions']} actions were taken")
problems += boards_shown(sys.argv[2:])
verdict("scripted battle", problems, f"round {state['round']}, {state['actions']} actions, {state['attacks']} attacks")
