"""What the checks of the window scripts share: every screenshot must show the board (check_screenshot.py),
and the verdict is printed, the problems one a line, the exit status failing on any.
"""
import subprocess
import sys


def boards_shown(shots):
    """The problems of the screenshots that do not show the board."""
    problems = []
    for shot in shots:
        result = subprocess.run([sys.executable, ".ci/check_screenshot.py", shot], capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"{shot}: {result.stdout}{result.stderr}")
    return problems


def verdict(title, problems, ok):
    """Prints `title: FAILED` and the problems, exiting with 1, or `title: ok (ok)`."""
    if problems:
        print(f"{title}: FAILED")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print(f"{title}: ok ({ok})")
