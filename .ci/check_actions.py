"""Checks what the scripted actions (tests/scripts/actions.ron on tests/fixtures/actions.ron, seed 4) left:
each action of the table the script plays was taken by the creature it names, in order, and none refused (a
delay, first aid, the delaying fighter acting after the cleric, a weapon dropped and picked up, a take-off
and a landing); the archer is stable, the fighter holds its longsword again, the griffon stands on the
ground, and round 2 has begun; every screenshot shows the board.

Usage: check_actions.py STATE.json SCREENSHOT.png...
"""
import json
import sys

from report import boards_shown, verdict

state = json.load(open(sys.argv[1]))
creatures = {c["id"]: c for c in state["creatures"]}
problems = []
expected = [
    ("Delay", "fighter"),
    ("FirstAid", "cleric"),
    ("Resume", "fighter"),
    ("EndTurn", "cleric"),
    ("Drop", "fighter"),
    ("PickUp", "fighter"),
    ("EndTurn", "fighter"),
    ("TakeOff", "griffon"),
    ("Land", "griffon"),
    ("EndTurn", "griffon"),
]
taken = state["commands"][: len(expected)]
for i, (kind, who) in enumerate(expected):
    if i >= len(taken):
        problems.append(f"action {i + 1}: {kind} by the {who} was never taken")
        continue
    command = taken[i]
    if not (command.startswith(kind + " ") and f'creature: CreatureId("{who}")' in command):
        problems.append(f"action {i + 1}: {command}, not {kind} by the {who}")
if state["refused"]:
    problems.append(f"refused actions: {state['refused']}")
if "stable" not in creatures["archer"]["conditions"]:
    problems.append(f"the archer is not stable after first aid: {creatures['archer']['conditions']}")
if "longsword" not in creatures["fighter"]["weapons"]:
    problems.append(f"the fighter does not hold its longsword again: {creatures['fighter']['weapons']}")
if creatures["griffon"]["altitude"] != 0:
    problems.append(f"the griffon did not land: altitude {creatures['griffon']['altitude']}")
if state["round"] != 2:
    problems.append(f"round {state['round']}, not round 2")
problems += boards_shown(sys.argv[2:])
verdict("scripted actions of the table", problems, f"{len(state['commands'])} actions, round {state['round']}")
