"""Checks the hot-seat run (tests/scripts/hotseat.ron on tests/fixtures/hotseat.ron): after the goblins'
player handed over with Enter and ended Goblin 1's turn, the board waits hidden for the heroes' player, the
fighter's turn not ended by the E pressed behind the screen; the screenshots show the screen, not the board
(almost one colour).

Usage: check_hotseat.py STATE.json SCREENSHOT.png...
"""
import json
import sys

from check_screenshot import pixels  # the standard library's PNG reader of CI
from report import verdict

state = json.load(open(sys.argv[1]))
problems = []
if state["hand_over"] != "heroes":
    problems.append(f"the board waits for {state['hand_over']!r}, not for the heroes")
if state["turn"] != "fighter":
    problems.append(f"the turn is {state['turn']!r}, not the fighter's")
if state["actions"] != 1:
    problems.append(f"{state['actions']} actions taken: Goblin 1's end of turn alone was expected")
for shot in sys.argv[2:]:
    width, height, channels, rows = pixels(shot)
    sample = [row[x:x + 3] for row in rows[:: max(1, height // 100)]
              for x in range(0, width * channels, channels * max(1, width // 100))]
    dark = sum(1 for c in sample if max(c) < 40) / len(sample)
    if dark < 0.9:
        problems.append(f"{shot}: only {dark:.0%} of the window is the dark screen: the board shows")
verdict("scripted hot-seat", problems, "the board hidden between the players")
