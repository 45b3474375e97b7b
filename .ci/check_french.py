"""Checks the language switch after tests/scripts/french.ron on tests/fixtures/fallen.ron: the game ends in
French, the top bar says whose turn it is in French, the fallen goblins' words under their tokens are the
French ones (mort, mourant, stabilisé), and the screenshots show the board.

Usage: check_french.py STATE.json SCREENSHOT.png...
"""
import json
import sys

from report import boards_shown, verdict

state = json.load(open(sys.argv[1]))
creatures = {c["id"]: c for c in state["creatures"]}
problems = []
if state.get("language") != "fr":
    problems.append(f"the language is {state.get('language')!r}, not fr")
if "au tour de" not in state.get("top_bar", ""):
    problems.append(f"the top bar is not in French: {state.get('top_bar')!r}")
for who, word in {"goblin-1": "mort", "goblin-2": "mourant", "goblin-3": "stabilisé"}.items():
    seen = (creatures[who].get("token") or {}).get("word")
    if seen != word:
        problems.append(f"{who}'s word under its token is {seen!r}, expected {word!r}")
problems += boards_shown(sys.argv[2:])
verdict("the interface in French", problems, f"top bar: {state.get('top_bar')}")
