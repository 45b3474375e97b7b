//! The scenario files under `tests/scenarios/` are the regression suite: each runs headless and must show
//! its expected facts in order; every scenario gives the same event log twice for one seed.

use std::path::{Path, PathBuf};

use estoc::data::Content;
use estoc::scenario::{load_scenario, run_scenario};

fn scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_scenario_shows_its_expected_facts() {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    let files = scenarios();
    assert!(files.len() >= 4);
    let mut failures = Vec::new();
    for file in files {
        let scenario = load_scenario(&file).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scenario.expect.is_empty(), "{} expects nothing", file.display());
        let output = run_scenario(&file, &scenario, &content, None).unwrap_or_else(|e| panic!("{e}"));
        let unmet = output.unmet(&scenario.expect);
        let present = output.present(&scenario.forbid);
        if !unmet.is_empty() || !present.is_empty() {
            failures.push(format!(
                "{}:\n  missing: {}\n  forbidden: {}\n  log:\n    {}",
                file.display(),
                unmet.join("\n  missing: "),
                present.join("\n  forbidden: "),
                output.lines.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_same_seed_gives_the_same_event_log() {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    for file in scenarios() {
        let scenario = load_scenario(&file).unwrap();
        let first = run_scenario(&file, &scenario, &content, Some(99)).unwrap();
        let second = run_scenario(&file, &scenario, &content, Some(99)).unwrap();
        assert_eq!(first.lines, second.lines, "{}", file.display());
    }
}

#[test]
fn an_expectation_that_is_not_met_is_reported() {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/attack_critical.ron");
    let scenario = load_scenario(&file).unwrap();
    let output = run_scenario(&file, &scenario, &content, None).unwrap();
    let wrong = vec![r#"{"fact": "damage_dealt", "total": 17}"#.to_string()];
    assert_eq!(output.unmet(&wrong), wrong);
    // Order matters: the encounter ends after the attack, not before.
    let reversed = vec![r#"{"fact": "encounter_ended"}"#.to_string(), r#"{"fact": "attack_rolled"}"#.to_string()];
    assert_eq!(output.unmet(&reversed).len(), 1);
}
