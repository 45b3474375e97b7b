"""Checks the editor run (tests/scripts/editor.ron on a new 12x8 map): the level saved with the wall drawn
as a rectangle, the rubble brushed, two walls on edges, a dwarf and a goblin (the goblin undone and redone,
the dwarf dragged a square south), no problem, the odds played; the level played from the editor and
Escape back to it; then a square painted and the window's close button: the editor asks before quitting. The screenshots show the board. `estoc check` and a headless battle of the
saved file are run by .ci/run.

Usage: check_editor.py STATE.json LEVEL.ron SCREENSHOT.png...
"""
import json
import re
import sys

from report import boards_shown, verdict

state = json.load(open(sys.argv[1]))
level = open(sys.argv[2]).read()
problems = []
editor = state.get("editor") or {}
if state.get("screen") != "Edit":
    problems.append(f"the run ends on the {state.get('screen')!r} screen, not back in the editor")
if not editor.get("unsaved"):
    problems.append("the square painted after the save is not an unsaved edit")
if editor.get("asking") != "Quit":
    problems.append(f"closing the window with an unsaved edit asked {editor.get('asking')!r}, not whether to quit")
if editor.get("creatures") != ["dwarf-defender-1", "goblin-1"]:
    problems.append(f"creatures {editor.get('creatures')}, not the dwarf and the goblin")
if editor.get("problems"):
    problems.append(f"the level has problems: {editor['problems']}")
if editor.get("undo", 0) < 8 or editor.get("redo") != 0:
    problems.append(f"undo {editor.get('undo')} / redo {editor.get('redo')}: eight edits or more, nothing to redo")
if not editor.get("odds") or editor["odds"][0] == 0:
    problems.append("no battle of the odds was played")
rows = re.findall(r'^        "([^"]*)",$', level, re.M)
if len(rows) != 8:
    problems.append(f"{len(rows)} terrain rows saved, not 8")
else:
    if [rows[y][4] for y in (2, 3, 4)] != ["#"] * 3:
        problems.append("the rectangle of wall from (4, 2) to (4, 4) is not saved")
    if rows[6][6:8] != "::":
        problems.append("the rubble brushed at (6, 6) and (7, 6) is not saved")
for square in ("(7, 2)", "(7, 3)"):
    if f"(at: {square}, side: East, feature: Wall)" not in level:
        problems.append(f"no wall saved on the east edge of {square}")
if 'at: (2, 4)' not in level:
    problems.append("the dwarf was not dragged to (2, 4)")
problems += boards_shown(sys.argv[3:])
verdict("scripted editor", problems, "a level made with the mouse, saved, played and back")
