#!/usr/bin/env bash
# Makes every picture of the README and docs/ again, each by the game's window driven by its script
# (under Xvfb when there is no display): ./tools/screenshots/all.sh [name...]
set -euo pipefail
cd "$(dirname "$0")/../.."
estoc="${CARGO_TARGET_DIR:-$HOME/.cache/estoc-target}/debug/estoc"
run=()
if [ -z "${DISPLAY:-}" ]; then run=(xvfb-run -a -s "-screen 0 1440x900x24"); fi
# name | level | seed | script | pictures it makes under target/ to copy into docs/screenshots/
shots=(
    "crossroads|levels/crossroads.ron|1|tools/screenshots/crossroads.ron|"
    "skirmish|levels/skirmish.ron|1|tests/scripts/skirmish.ron|target/script/2-attack.png:skirmish-attack.png"
    "watchtower|levels/watchtower.ron|1|tools/screenshots/watchtower.ron|"
    "roost|levels/roost.ron|3|tools/screenshots/roost.ron|"
    "roost-declared|levels/roost.ron|3|tools/screenshots/roost-declared.ron|"
    "roost-flyby|levels/roost.ron|3|tools/screenshots/roost-flyby.ron|"
    "roost-wingover|levels/roost.ron|3|tools/screenshots/roost-wingover.ron|"
    "wyrmfire|levels/wyrmfire.ron|1|tools/screenshots/wyrmfire.ron|"
    "skyway|levels/skyway.ron|2|tools/screenshots/skyway.ron|"
    "crypt|levels/crypt.ron|2|tools/screenshots/crypt.ron|target/screenshots/crypt-turning.png:crypt-turning.png"
    "bull-rush|tests/scenarios/levels/bull_rush.ron|3|tools/screenshots/bull-rush.ron|target/screenshots/bull-rush.png:bull-rush.png"
    "bull-rush-pit|tests/scenarios/levels/bull_rush_pit.ron|3|tools/screenshots/bull-rush-pit.ron|target/screenshots/bull-rush-pit-guard.png:bull-rush-pit.png"
    "disarm|tests/scenarios/levels/disarm.ron|5|tools/screenshots/disarm.ron|target/screenshots/disarm.png:disarm.png"
    "grapple|tests/scenarios/levels/wrestle.ron|5|tools/screenshots/grapple.ron|target/screenshots/grapple.png:grapple.png target/screenshots/grapple-hold.png:grapple-hold.png"
    "splash|tests/scenarios/levels/splash.ron|1|tools/screenshots/splash.ron|target/screenshots/splash.png:splash.png"
    "ford|levels/ford.ron|4|tools/screenshots/ford.ron|"
    "raid|levels/raid.ron|2|tools/screenshots/raid.ron|target/screenshots/raid-charge.png:raid-charge.png target/screenshots/raid.png:raid.png"
    "weapons|levels/skirmish.ron|3|tools/screenshots/weapons.ron|target/screenshots/weapons.png:weapons.png"
    "flight-provokes|tests/scenarios/levels/flying_past_an_ogre.ron|4|tools/screenshots/flight-provokes.ron|target/screenshots/flight-provokes.png:flight-provokes.png"
    "rules-at-cursor|levels/skirmish.ron|1|tools/screenshots/rules-at-cursor.ron|target/screenshots/rules-at-cursor.png:rules-at-cursor.png"
    "battlefield|levels/battlefield.ron|1|tools/screenshots/battlefield.ron|"
    "fallen|tests/fixtures/fallen.ron|1|tests/scripts/board.ron|target/script/board-1-fallen.png:fallen.png"
)
for entry in "${shots[@]}"; do
    IFS='|' read -r name level seed script copies <<< "$entry"
    if [ $# -gt 0 ] && [[ ! " $* " == *" $name "* ]]; then continue; fi
    echo "== $name"
    timeout 600 "${run[@]}" "$estoc" play "$level" --seed "$seed" --script "$script" --state /dev/null > /dev/null 2>&1 \
        || { echo "   $name failed"; continue; }
    for copy in $copies; do
        cp "${copy%%:*}" "docs/screenshots/${copy##*:}"
    done
done
