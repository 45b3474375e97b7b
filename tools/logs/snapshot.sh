#!/usr/bin/env bash
# Writes every scenario's event log (its own seed and seed 99) and the AI battles' logs of every level
# into one folder, so that a change meant to keep behaviour can be checked byte for byte:
#   tools/logs/snapshot.sh /tmp/before; (change); tools/logs/snapshot.sh /tmp/after; diff -r /tmp/before /tmp/after
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: snapshot.sh <folder> [estoc binary]}
estoc=${2:-${CARGO_TARGET_DIR:-$HOME/.cache/estoc-target}/debug/estoc}
mkdir -p "$out"
for scenario in tests/scenarios/*.ron; do
    name=$(basename "$scenario" .ron)
    "$estoc" run "$scenario" > "$out/$name.jsonl" 2>&1 || true
    "$estoc" run "$scenario" --seed 99 > "$out/$name.99.jsonl" 2>&1 || true
done
for level in levels/*.ron; do
    name=$(basename "$level" .ron)
    battles=6
    [ "$name" = battlefield ] && battles=1
    "$estoc" simulate "$level" --battles "$battles" --seed 7 --log > "$out/simulate-$name.jsonl" 2>&1 || true
done
echo "snapshot of $(ls "$out" | wc -l) logs in $out"
