//! The interface's languages: each file parses, both hold the same messages, every message the code asks
//! for is in both, and each formats without an error in each language.

use std::collections::BTreeSet;
use std::path::Path;

use estoc::locale::{Language, message_ids};

/// The text of each Rust file under these paths of `src/`.
fn sources(paths: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack: Vec<_> = paths.iter().map(|p| root.join(p)).collect();
    let mut texts = Vec::new();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|x| x == "rs") {
            texts.push(std::fs::read_to_string(&path).unwrap());
        }
    }
    texts
}

/// The message ids the code names: the literal first argument of `tr(` or `tr!(`, and every string
/// literal of the interface's code (`src/game`, `src/locale.rs`) that has the shape of a message id and
/// one of the messages' prefixes (`"movement-move"` in a lookup table, `"bar-move"` in the action bar).
fn ids_in_code(prefixes: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for text in sources(&["game", "locale.rs"]) {
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

/// The variables (`{$name}`) each message of a language's files uses, by message id.
fn variables(language: Language) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let mut out = std::collections::BTreeMap::new();
    for source in language.sources() {
        let mut current: Option<String> = None;
        for line in source.lines() {
            let starts = line.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            if starts && let Some((id, _)) = line.split_once(" = ") {
                current = Some(id.trim().to_string());
            } else if !line.starts_with(' ') {
                current = None;
            }
            let Some(id) = &current else { continue };
            let entry: &mut BTreeSet<String> = out.entry(id.clone()).or_default();
            for piece in line.split("{$").skip(1) {
                let name: String =
                    piece.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
                entry.insert(name);
            }
        }
    }
    out
}

#[test]
fn a_message_takes_the_same_arguments_in_each_language() {
    let english = variables(Language::English);
    let french = variables(Language::French);
    assert!(english.len() > 300, "the messages are read: {}", english.len());
    for (id, names) in &english {
        assert_eq!(french.get(id), Some(names), "{id}: the French does not take the English arguments");
    }
}

/// Each `tr!` call of the interface's code: its message id and the names of the arguments it passes.
fn calls_with_arguments() -> Vec<(String, BTreeSet<String>)> {
    let mut calls = Vec::new();
    for text in sources(&["game"]) {
        for (at, _) in text.match_indices("tr!(") {
            let body = &text[at + 4..];
            let body = body.trim_start();
            let Some(rest) = body.strip_prefix('"') else { continue };
            let id: String = rest.chars().take_while(|c| *c != '"').collect();
            // The names before ` = ` at the call's own depth, up to its closing parenthesis.
            let (mut depth, mut in_string, mut names, mut word) = (0, false, BTreeSet::new(), String::new());
            let mut chars = rest[id.len() + 1..].chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '"' => in_string = !in_string,
                    '\\' if in_string => {
                        chars.next();
                    }
                    _ if in_string => {}
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => break,
                    ')' | ']' | '}' => depth -= 1,
                    '=' if depth == 0 && chars.peek().is_some_and(|c| c.is_whitespace()) && !word.is_empty() => {
                        names.insert(std::mem::take(&mut word));
                    }
                    c if c.is_ascii_alphanumeric() || c == '_' => word.push(c),
                    c if c.is_whitespace() => {}
                    _ => word.clear(),
                }
                if c == ',' || c == '(' {
                    word.clear();
                }
            }
            calls.push((id, names));
        }
    }
    calls
}

#[test]
fn every_call_passes_the_arguments_its_message_takes() {
    let messages = variables(Language::English);
    let calls = calls_with_arguments();
    assert!(calls.len() > 100, "the calls are found: {}", calls.len());
    for (id, passed) in calls {
        let Some(wanted) = messages.get(&id) else { panic!("{id}: no such message") };
        assert_eq!(&passed, wanted, "{id}: the code passes {passed:?}, the message takes {wanted:?}");
    }
}
