//! `estoc chase`, the pursuit of 003:124-130 from the command line: both run (×4, ×3 in heavy armour or
//! load), the faster wins, a faster pursuer closes a gap at the difference of the runs, the same speed goes
//! to opposed checks rolled with the seed.

use std::process::Command;

fn chase(args: &[&str]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_estoc"))
        .arg("chase")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("estoc runs");
    (output.status.success(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn the_faster_wins_and_a_gap_closes_at_the_difference_003_126() {
    // Running, 48 m against 36 m a round: 12 m gained a round, 30 m in 3 rounds.
    let (ok, out) = chase(&["--pursuer", "12", "--quarry", "9", "--gap", "30"]);
    assert!(ok && out.contains("runs the quarry down (003:126)"), "{out}");
    assert!(out.contains("30 m in 3 rounds"), "{out}");
    let (ok, out) = chase(&["--pursuer", "6", "--quarry", "9"]);
    assert!(ok && out.contains("it gets away (003:126)"), "{out}");
    // The same speed, the quarry in heavy armour: 36 m against its 27 m run (003:10).
    let (ok, out) = chase(&["--pursuer", "9", "--quarry", "9", "--quarry-heavy"]);
    assert!(ok && out.contains("runs the quarry down (003:126)"), "{out}");
    // A 9 m dwarf in heavy armour (27 m) outruns a 6 m walker (24 m).
    let (ok, out) = chase(&["--pursuer", "6", "--quarry", "9", "--quarry-heavy"]);
    assert!(ok && out.contains("it gets away (003:126)"), "{out}");
}

#[test]
fn the_same_speed_goes_to_opposed_checks_003_128_130() {
    let (ok, out) = chase(&["--pursuer", "9", "--quarry", "9", "--pursuer-modifier", "2", "--quarry-modifier=-1"]);
    assert!(ok && out.contains("opposed Dexterity checks (003:128)"), "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(last.ends_with("(003:128)") && (last.contains("gets away") || last.contains("catches")), "{out}");
    // The rolls of seed 1, each side's modifier added: the quarry's -1, the pursuer's +2.
    assert!(out.contains("quarry Dexterity d20 11 -1 = 10, pursuer d20 9 +2 = 11"), "{out}");
    assert!(last.contains("catches"), "{out}");
    let (ok, out) = chase(&["--pursuer", "9", "--quarry", "9", "--all-day"]);
    assert!(ok && out.contains("opposed Constitution checks decide who keeps its pace (003:130)"), "{out}");
    // All day long the speeds decide nothing: the slower quarry may still outlast its pursuer (003:130).
    let (ok, out) = chase(&["--pursuer", "12", "--quarry", "9", "--all-day", "--quarry-modifier", "5"]);
    assert!(ok && out.contains("Constitution") && !out.contains("003:126"), "{out}");
    let (ok, _) = chase(&["--pursuer=-1", "--quarry", "9"]);
    assert!(!ok, "a negative speed is refused");
}

#[test]
fn the_movement_table_prints_decimals_as_the_text_does_003_4_19() {
    let output = Command::new(env!("CARGO_BIN_EXE_estoc"))
        .args(["travel", "--table", "--walker", "4.6"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("estoc runs");
    let out = String::from_utf8_lossy(&output.stdout);
    // 4,6 m a move: 13,8 m a round of walking, not the float's 13,799999999999999.
    assert!(output.status.success() && out.contains("13,8 m") && !out.contains("99999"), "{out}");
}
