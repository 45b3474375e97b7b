//! The table of actions in combat (004:89-163), row by row: each row is an action the game offers with a
//! key, or a row docs/rulings.md explains away.

use std::collections::BTreeSet;
use std::path::Path;

use estoc::game::actions::{BAR, SELECTOR_KEYS, TABLE_KEYS};

/// The lines of 004 the list of the rulings' section on the rows not offered names, outside parentheses
/// (its heading and the paragraph before the list cite the table's whole range).
fn ruled_out() -> BTreeSet<u32> {
    let rulings = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rulings.md")).unwrap();
    let start = rulings.find("## The rows of the action table not offered").expect("the section");
    let section = &rulings[start + 3..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let section = &section[section.find("\n- ").expect("the list")..];
    // What a bullet cites in parentheses explains it (the key of a neighbouring row, a rule), and is not a
    // row it rules out.
    let mut bare = String::new();
    let mut depth = 0;
    for c in section.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    bare.split("004:").skip(1).filter_map(|s| s.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()).collect()
}

#[test]
fn every_row_of_the_action_table_is_offered_or_ruled_out() {
    let content = estoc::data::Content::load(&estoc::data::assets_dir())
        .unwrap_or_else(|e| panic!("assets do not validate:\n{e}"));
    let keys: BTreeSet<&str> = BAR.iter().map(|b| b.keys).chain(SELECTOR_KEYS.iter().copied()).collect();
    let ruled = ruled_out();
    let mut missing = Vec::new();
    for row in &content.actions {
        match TABLE_KEYS.iter().find(|(line, _)| *line == row.line) {
            Some((line, key)) => {
                assert!(keys.contains(key), "004:{line} {}: its key {key:?} is on no button", row.english);
                assert!(!ruled.contains(line), "004:{line} {} is both offered and ruled out", row.english);
            }
            None if ruled.contains(&row.line) => {}
            None => missing.push(format!("004:{} {}", row.line, row.english)),
        }
    }
    assert!(missing.is_empty(), "rows neither offered nor ruled out: {missing:?}");
    for (line, _) in TABLE_KEYS {
        assert!(content.actions.iter().any(|r| r.line == *line), "004:{line} is not a row of the table");
    }
}

#[test]
fn a_bar_label_names_its_key() {
    let aid = BAR.iter().find(|b| b.keys == "[").expect("aid on [");
    assert_eq!(aid.label(), "Aid: +2 attack [[]");
    let keys: BTreeSet<&str> = BAR.iter().map(|b| b.keys).collect();
    assert_eq!(keys.len(), BAR.len(), "two actions share a key");
}
