//! The interface's languages: each file parses, both hold the same messages, every message the code asks
//! for is in both, and each formats without an error in each language.

use std::collections::BTreeSet;
use std::path::Path;

use estoc::locale::{Language, message_ids};

/// The message ids the code names: the literal first argument of `tr(` or `tr!(`, and every string
/// literal of the interface's code (`src/game`, `src/locale.rs`) that has the shape of a message id and
/// one of the messages' prefixes (`"movement-move"` in a lookup table, `"bar-move"` in the action bar).
fn ids_in_code(prefixes: &BTreeSet<String>) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = BTreeSet::new();
    let mut stack = vec![root.join("game"), root.join("locale.rs")];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for call in ["tr(\"", "tr!(\"", "tr!(\n"] {
            for (at, _) in text.match_indices(call) {
                let rest = text[at + call.len()..].trim_start_matches([' ', '\n', '"']);
                let id: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
                if !id.is_empty() {
                    found.insert(id);
                }
            }
        }
        for piece in text.split('"').skip(1).step_by(2) {
            let kebab =
                piece.contains('-') && piece.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if kebab && piece.split('-').next().is_some_and(|p| prefixes.contains(p)) {
                found.insert(piece.to_string());
            }
        }
    }
    found
}

#[test]
fn both_languages_hold_the_same_messages_and_parse() {
    let (english, problems_en) = message_ids(Language::English);
    let (french, problems_fr) = message_ids(Language::French);
    assert!(problems_en.is_empty() && problems_fr.is_empty(), "{problems_en:?} {problems_fr:?}");
    for (language, ids) in [("en", &english), ("fr", &french)] {
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{language}: a message is defined twice");
    }
    let (en, fr): (BTreeSet<_>, BTreeSet<_>) = (english.iter().collect(), french.iter().collect());
    let only_en: Vec<_> = en.difference(&fr).collect();
    let only_fr: Vec<_> = fr.difference(&en).collect();
    assert!(only_en.is_empty(), "missing in French: {only_en:?}");
    assert!(only_fr.is_empty(), "missing in English: {only_fr:?}");
}

#[test]
fn every_message_the_code_asks_for_is_in_each_language() {
    let (english, _) = message_ids(Language::English);
    let prefixes: BTreeSet<String> = english.iter().filter_map(|id| id.split('-').next()).map(String::from).collect();
    let used = ids_in_code(&prefixes);
    assert!(used.len() > 150, "the scan finds the calls: {}", used.len());
    for language in Language::ALL {
        let (ids, _) = message_ids(language);
        let ids: BTreeSet<String> = ids.into_iter().collect();
        let missing: Vec<&String> = used.iter().filter(|id| !ids.contains(*id)).collect();
        assert!(missing.is_empty(), "{}: no message for {missing:?}", language.code());
    }
}

#[test]
fn the_french_speaks_the_texts_terms() {
    let french = |id| estoc::locale::format_in(Language::French, id, None);
    assert_eq!(french("bar-five-foot-step"), "Pas de placement");
    assert_eq!(french("bar-trip"), "Croc-en-jambe");
    assert_eq!(french("bar-grapple"), "Lutte");
    assert_eq!(french("bar-full-attack"), "Attaque à outrance");
    assert_eq!(french("condition-flat-footed"), "pris au dépourvu");
    // English stays the default, and a message with arguments fills them in each language.
    let args = estoc::locale::args([("steps", 3.into())]);
    assert_eq!(estoc::locale::format_in(Language::English, "menu-steps", Some(&args)), "3 actions taken");
    assert_eq!(estoc::locale::format_in(Language::French, "menu-steps", Some(&args)), "3 actions jouées");
}
