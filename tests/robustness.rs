//! Hostile files: nothing a file holds may panic the program, make it read outside the project's folders,
//! hang it or exhaust its memory; every problem says where it is. The named fixtures live in
//! `tests/fixtures/hostile/`; the property tests mutate every shipped level (`PROPTEST_CASES` sets how
//! many cases, 64 by default in CI; see docs/robustness.md for the long run).

use std::path::{Path, PathBuf};

use estoc::data::diagnostics::read_file;
use estoc::data::{Content, level::check_level};
use proptest::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn content() -> Content {
    Content::load(&estoc::data::assets_dir()).unwrap()
}

fn hostile(name: &str) -> PathBuf {
    root().join("tests/fixtures/hostile").join(name)
}

/// A scratch folder of the project's for files the tests make (links, pipes).
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target/test-scratch/robustness");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_scenario_naming_a_file_outside_the_project_is_refused_without_its_content() {
    for name in ["scenario_etc_passwd.ron", "scenario_dotdot.ron", "scenario_proc_environ.ron"] {
        let problems = estoc::cli::check_file(&hostile(name), &content()).expect_err(name);
        let text = problems.to_string();
        assert!(text.contains("outside the project's folders") || text.contains("cannot read"), "{name}: {text}");
        assert!(!text.contains("root:") && !text.contains("PATH="), "{name} leaked: {text}");
        assert!(problems.0.iter().all(|d| d.line >= 1), "{name}: unlocated {text}");
    }
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_project_is_refused() {
    let link = scratch("passwd_link.ron");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    let scenario = scratch("scenario_link.ron");
    std::fs::write(&scenario, "(level: \"passwd_link.ron\", seed: 1, steps: [], expect: [])\n").unwrap();
    let problems = estoc::cli::check_file(&scenario, &content()).expect_err("a link out");
    assert!(problems.to_string().contains("outside the project's folders"), "{problems}");
}

#[test]
fn devices_and_pipes_are_not_read() {
    let zero = read_file(Path::new("/dev/zero")).expect_err("a device");
    assert!(zero.message.contains("not a regular file"), "{zero}");
    #[cfg(unix)]
    {
        let fifo = scratch("fifo.ron");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let error = read_file(&fifo).expect_err("a pipe");
            assert!(error.message.contains("not a regular file"), "{error}");
        }
    }
}

#[test]
fn invalid_utf8_is_located_and_a_byte_order_mark_is_dropped() {
    let bad = scratch("invalid_utf8.ron");
    std::fs::write(&bad, b"(\n  name: \"x\",\n  size: \xFF\n)\n").unwrap();
    let error = read_file(&bad).expect_err("not UTF-8");
    assert_eq!((error.line, error.column), (3, 9), "{error}");
    let level = std::fs::read_to_string(root().join("levels/crossroads.ron")).unwrap();
    let bom = scratch("bom.ron");
    std::fs::write(&bom, format!("\u{feff}{level}")).unwrap();
    let text = read_file(&bom).unwrap();
    check_level(&bom, &text, &content()).expect("a level saved with a byte-order mark loads");
}

#[test]
fn a_rest_beyond_thirty_days_is_refused() {
    let output = estoc::scenario::load_scenario(&hostile("scenario_rest_max.ron"))
        .and_then(|s| estoc::scenario::run_scenario(&hostile("scenario_rest_max.ron"), &s, &content(), None))
        .expect("it runs");
    assert!(output.lines.iter().any(|l| l.contains("action_refused") && l.contains("30 days")), "{:?}", output.lines);
}

/// Every step is checked against the level when the scenario loads: squares off the map and creatures the
/// level does not hold are refused, each on its line, before anything runs.
#[test]
fn steps_naming_squares_off_the_map_or_unknown_creatures_are_refused_at_load() {
    let path = hostile("scenario_off_the_map.ron");
    let scenario = estoc::scenario::load_scenario(&path).expect("it parses");
    let problems = estoc::scenario::run_scenario(&path, &scenario, &content(), None).expect_err("three bad steps");
    let found: Vec<(usize, bool)> = problems.0.iter().map(|d| (d.line, d.column > 1)).collect();
    assert_eq!(found, vec![(7, true), (8, true), (9, true)], "{problems}");
    assert!(problems.0[0].message.contains("off the"), "{problems}");
    assert!(problems.0[2].message.contains("\"nobody\""), "{problems}");
}

#[test]
fn many_errors_are_located_and_capped() {
    let row = "é".repeat(256);
    let rows: Vec<String> = (0..256).map(|_| format!("        \"{row}\",")).collect();
    let text = format!(
        "(\n    name: \"Many\",\n    size: (width: 256, height: 256),\n    terrain: [\n{}\n    ],\n    factions: [(name: \"a\")],\n    creatures: [(id: \"f\", template: \"human_fighter\", faction: \"a\", at: (0, 0))],\n)\n",
        rows.join("\n")
    );
    let problems = check_level(Path::new("many.ron"), &text, &content()).expect_err("65,536 unknown squares");
    assert!(problems.0.iter().all(|d| d.line >= 5 && d.column >= 10), "every one located");
    let first = &problems.0[0];
    assert_eq!((first.line, first.column), (5, 10));
    assert_eq!(problems.0.len(), 101, "the first 100, then a count of the rest");
    assert_eq!(problems.0[100].message, "and 65436 more problems not listed");
}

/// The shipped levels, as text.
fn shipped() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in ["levels", "tests/scenarios/levels"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path, text));
        }
    }
    out
}

/// What a hostile hand does to a file: flips, escapes, accents, huge numbers, cuts and repeats.
fn mutate(text: &str, kind: u8, at: usize, pick: usize) -> String {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let (head, tail) = text.split_at(at);
    let inserts = [
        "\\u{2e}",
        "\\t",
        "\\\"",
        "é",
        "\u{feff}",
        "2147483647",
        "-2147483648",
        "NaN",
        "inf",
        "1e30",
        "[[[[[[[[",
        "\"",
        "//",
        "r#\"",
    ];
    match kind % 5 {
        0 => format!("{head}{}{tail}", inserts[pick % inserts.len()]),
        1 => head.to_string(),
        2 => {
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let i = pick % lines.len();
                lines.insert(i, lines[i]);
            }
            lines.join("\n")
        }
        3 => {
            let number = ["2147483647", "-2147483648", "NaN", "inf", "1e30", "0", "-1"][pick % 7];
            // Replace the first number at or after `at`.
            match tail.find(|c: char| c.is_ascii_digit()) {
                Some(i) => {
                    let end = tail[i..].find(|c: char| !c.is_ascii_digit() && c != '.').map_or(tail.len(), |e| i + e);
                    format!("{head}{}{number}{}", &tail[..i], &tail[end..])
                }
                None => text.to_string(),
            }
        }
        _ => {
            let mut chars: Vec<char> = text.chars().collect();
            if !chars.is_empty() {
                let i = pick % chars.len();
                chars[i] = char::from_u32(chars[i] as u32 ^ 0x20).unwrap_or('é');
            }
            chars.into_iter().collect()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    /// A mutated shipped level never panics the loader, and every problem it gives has a place.
    #[test]
    fn the_level_loader_never_panics(file in 0usize..64, mutations in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..4)) {
        let levels = shipped();
        let (path, text) = &levels[file % levels.len()];
        let mut text = text.clone();
        for (kind, at, pick) in mutations {
            text = mutate(&text, kind, at, pick);
        }
        let content = content();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_level(path, &text, &content)));
        prop_assert!(outcome.is_ok(), "the loader panicked on:\n{text}");
        if let Ok(Err(problems)) = outcome {
            prop_assert!(problems.0.iter().all(|d| d.line >= 1 && d.column >= 1), "unlocated: {problems}");
        }
    }

    /// Arbitrary bytes read as a level never panic either.
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let content = content();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_level(Path::new("x.ron"), &text, &content)));
        prop_assert!(outcome.is_ok());
    }
}

/// A reader that closes the pipe early (`estoc simulate … --log | head -1`) ends the program quietly: no
/// panic, a clean exit.
#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_estoc"))
        .args(["simulate", "levels/skirmish.ron", "--battles", "20", "--log"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("estoc starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("a pipe")).read_line(&mut first).expect("one line");
    // The reading end is dropped here: the next writes meet a closed pipe.
    let output = child.wait_with_output().expect("estoc ends");
    assert!(first.contains("encounter_started"), "{first}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && !stderr.contains("panicked"), "{:?}: {stderr}", output.status);
}

/// A scenario named without a folder, from the folder it lies in (anywhere), finds the level beside it.
#[test]
fn a_scenario_named_without_its_folder_finds_its_level() {
    let dir = std::env::temp_dir().join(format!("estoc-beside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("tests/scenarios/levels/tumble.ron"), dir.join("here.ron")).unwrap();
    let scenario = "(level: \"here.ron\", seed: 1, steps: [Sheet(creature: \"rogue\")], \
                    expect: [r#\"{\"answer\": \"sheet\"}\"#])\n";
    std::fs::write(dir.join("s.ron"), scenario).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_estoc"))
        .args(["run", "s.ron", "--check"])
        .current_dir(&dir)
        .output()
        .expect("estoc runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
}
