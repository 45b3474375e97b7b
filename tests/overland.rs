//! `estoc chase`, the pursuit of 003:124-130 from the command line: both run (×4, ×3 in heavy armour or
//! load), the faster wins, a faster pursuer closes a gap at the difference of the runs, the same speed goes
//! to opposed checks rolled with the seed.

use std::process::Command;

/// `estoc <command> <args>` from the project's folder: whether it succeeded, what it wrote out and on errors.
fn estoc(command: &str, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_estoc"))
        .arg(command)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("estoc runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

fn chase(args: &[&str]) -> (bool, String) {
    let (ok, out, _) = estoc("chase", args);
    (ok, out)
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
    // Round by round the sides count squares (003:126): 6.1 m is no whole number of squares.
    let (ok, _) = chase(&["--pursuer", "6", "--quarry", "6.1"]);
    assert!(!ok, "a speed of no whole squares is refused");
}

#[test]
fn a_long_gap_is_closed_only_while_the_pursuer_can_run_004_249() {
    // 3,000 m at 12 m gained a round is 250 rounds; a pursuer of Constitution 10 runs 10 of them free (004:249).
    let (ok, out) = chase(&["--pursuer", "12", "--quarry", "9", "--gap", "3000"]);
    assert!(ok && out.contains("250 rounds") && out.contains("after 10 rounds") && out.contains("120 m"), "{out}");
    let (ok, out) = chase(&["--pursuer", "12", "--quarry", "9", "--gap", "30", "--pursuer-con", "14"]);
    assert!(ok && !out.contains("after 14 rounds"), "3 rounds is within its running: {out}");
}

fn voyage(args: &[&str]) -> (bool, String, String) {
    estoc("voyage", args)
}

#[test]
fn boats_by_the_table_and_the_current_003_110_122() {
    // A keelboat rowed, 1,5 km an hour and 15 km a day (003:115, the index's reading of its glued note);
    // down a river the current's 4,5 km an hour is added, each of its 10 hours; drifting, 24 hours.
    let (ok, out, _) = voyage(&["--craft", "keelboat"]);
    assert!(ok && out.contains("1.50 km an hour") && out.contains("15.00 km a day, 10 hours"), "{out}");
    let (ok, out, _) = voyage(&["--craft", "keelboat", "--water", "downstream", "--km", "100"]);
    assert!(ok && out.contains("6.00 km an hour") && out.contains("60.00 km a day"), "{out}");
    assert!(out.contains("1 day(s) and 6.67 hour(s)"), "{out}");
    let (ok, out, _) = voyage(&["--craft", "keelboat", "--water", "downstream", "--drift"]);
    assert!(ok && out.contains("123.00 km a day, 24 hours"), "{out}");
    // Upstream only towed (003:122), at the towed raft's 750 m an hour; a river craft stays off the sea.
    let (ok, _, err) = voyage(&["--craft", "rowboat", "--water", "upstream"]);
    assert!(!ok && err.contains("003:122"), "{err}");
    let (ok, out, _) = voyage(&["--craft", "rowboat", "--water", "upstream", "--towed"]);
    assert!(ok && out.contains("0.75 km an hour"), "{out}");
    let (ok, _, err) = voyage(&["--craft", "rowboat", "--water", "sea"]);
    assert!(!ok && err.contains("lakes and rivers"), "{err}");
    // A sailing ship at sea, 24 hours a day.
    let (ok, out, _) = voyage(&["--craft", "sailing-ship", "--water", "sea"]);
    assert!(ok && out.contains("24 hours moving"), "{out}");
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

fn travel(args: &[&str]) -> (bool, String) {
    let (ok, out, _) = estoc("travel", args);
    (ok, out)
}

#[test]
fn each_member_pays_its_own_hustle_003_69_003_94() {
    // A 12 m walker beside a cart (3 km/h): the party hustles at 6 km/h, the walker's own walk; only the
    // cart's draft animals hustle, and pay.
    let (ok, out) = travel(&["--walker", "12", "--mount", "cart-or-wagon", "--pace", "hustle", "--hours", "2"]);
    assert!(ok && out.contains("hour 2: member 2 (Chariot ou charrette, its draft animals): 1 nonlethal"), "{out}");
    assert!(!out.contains("member 1"), "{out}");
    // A ridden horse trots for lethal damage; the same horse led takes nonlethal (003:94).
    let (ok, out) = travel(&["--mount", "light-horse", "--pace", "hustle", "--hours", "2"]);
    assert!(ok && out.contains("1 lethal damage for hustling; fatigued"), "{out}");
    let (ok, out) = travel(&["--led", "light-horse", "--pace", "hustle", "--hours", "2"]);
    assert!(ok && out.contains("(Cheval léger, led): 1 nonlethal damage for hustling"), "{out}");
}

#[test]
fn a_forced_march_is_rolled_with_the_seed_003_92() {
    // Ten hours: checks at the 9th and 10th hours, DC 12 and 14, each die shown; the same seed, the same march.
    let args = ["--walker", "9", "--hours", "10", "--seed", "3", "--con", "1", "--hp", "8"];
    let (ok, out) = travel(&args);
    assert!(ok && out.contains("day 1 hour 9: forced march: Con check") && out.contains("vs DC 12"), "{out}");
    assert!(out.contains("day 1 hour 10: forced march: Con check") && out.contains("vs DC 14"), "{out}");
    assert_eq!(travel(&args).1, out);
    // A ridden mount fails without a roll (003:94).
    let (ok, out) = travel(&["--mount", "light-horse", "--hours", "9", "--seed", "1"]);
    assert!(ok && out.contains("forced march: fails automatically (003:94), 1d6 = "), "{out}");
    // Hustling six hours knocks out one of 5 hit points at the 4th (0, 1, 2, 4: 7 nonlethal, 004:305).
    let (ok, out) = travel(&["--walker", "9", "--pace", "hustle", "--hours", "6", "--seed", "1", "--hp", "5"]);
    assert!(
        ok && out.contains(
            "day 1 hour 4: 4 nonlethal damage for hustling; carries 7 nonlethal, fatigued, falls unconscious"
        ),
        "{out}"
    );
    assert!(!out.contains("hour 5"), "{out}");
}
