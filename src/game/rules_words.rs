//! The rules' own words in the player's language: the reasons of refusals, the sources of modifiers and the
//! reasons the facts give (a check's, a push's). A rule writes them in English (`Refusal::reason`,
//! `Modifier::source`, a fact's `reason`), the same words the headless runner and the tests read; the window
//! finds the message whose English pattern those words match (`assets/locales/en/refusals.ftl`, `terms.ftl`,
//! `reasons.ftl`, each `{$name}` standing for any text), and writes that
//! message in the player's language with the same values, each value itself translated if it is a refusal
//! (a reason quoted in another). Words no pattern matches are shown as the rule wrote them.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::locale::{Language, format_in, language};
use crate::rules::core::creature::Modifier;
use crate::rules::core::refusal::Refusal;

/// One piece of a pattern: words to find as written, or a value to take.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Words(String),
    Value(String),
}

/// A refusal's message: its id and its English pattern.
#[derive(Clone, Debug)]
struct Pattern {
    id: String,
    pieces: Vec<Piece>,
}

/// How deep a value quoting a refusal is translated in turn.
const NESTING: usize = 2;

/// Which of the rules' words: a refusal's reason, a modifier's source or a fact's reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Refusal,
    Term,
    Reason,
}

/// The patterns of the English refusals or terms, each read once from its English file.
fn patterns(kind: Kind) -> &'static [Pattern] {
    static REFUSALS: OnceLock<Vec<Pattern>> = OnceLock::new();
    static TERMS: OnceLock<Vec<Pattern>> = OnceLock::new();
    static REASONS: OnceLock<Vec<Pattern>> = OnceLock::new();
    match kind {
        Kind::Refusal => REFUSALS.get_or_init(|| read_patterns(Language::English.refusals())),
        Kind::Term => TERMS.get_or_init(|| read_patterns(Language::English.terms())),
        Kind::Reason => REASONS.get_or_init(|| read_patterns(Language::English.reasons())),
    }
}

/// The messages of a Fluent file as patterns: `id = words {$name} words`, continuation lines joined by a
/// new line, the quoted literals (`{" "}`) as their text.
fn read_patterns(source: &str) -> Vec<Pattern> {
    let mut found: Vec<(String, String)> = Vec::new();
    for line in source.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("    ")
            && let Some((_, text)) = found.last_mut()
        {
            text.push('\n');
            text.push_str(rest);
        } else if let Some((id, text)) = line.split_once(" = ") {
            found.push((id.trim().to_string(), text.to_string()));
        }
    }
    found.into_iter().map(|(id, text)| Pattern { id, pieces: pieces(&text) }).collect()
}

/// The pieces of a message's text: `{$name}` a value, `{"…"}` quoted words, the rest words.
fn pieces(text: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut words = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        words.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else { break };
        let inside = rest[open + 1..open + close].trim();
        if let Some(name) = inside.strip_prefix('$') {
            if !words.is_empty() {
                out.push(Piece::Words(std::mem::take(&mut words)));
            }
            out.push(Piece::Value(name.to_string()));
        } else {
            words.push_str(inside.trim_matches('"'));
        }
        rest = &rest[open + close + 1..];
    }
    words.push_str(rest);
    if !words.is_empty() {
        out.push(Piece::Words(words));
    }
    out
}

/// The values that make `text` read as the pattern, if it does: each value at least one character, the
/// words between them found in order (trying every place a value could end).
fn matches<'p, 't>(pieces: &'p [Piece], text: &'t str) -> Option<Vec<(&'p str, &'t str)>> {
    fn go<'p, 't>(pieces: &'p [Piece], text: &'t str, taken: &mut Vec<(&'p str, &'t str)>) -> bool {
        match pieces {
            [] => text.is_empty(),
            [Piece::Words(words), rest @ ..] => text.strip_prefix(words.as_str()).is_some_and(|t| go(rest, t, taken)),
            [Piece::Value(name), rest @ ..] => {
                let ends: Vec<usize> = match rest.first() {
                    None => vec![text.len()],
                    Some(Piece::Words(next)) => text.match_indices(next.as_str()).map(|(i, _)| i).collect(),
                    // Two values side by side: the first takes one character more at each try.
                    Some(Piece::Value(_)) => text.char_indices().map(|(i, _)| i).skip(1).collect(),
                };
                for end in ends.into_iter().filter(|end| *end > 0) {
                    taken.push((name.as_str(), &text[..end]));
                    if go(rest, &text[end..], taken) {
                        return true;
                    }
                    taken.pop();
                }
                false
            }
        }
    }
    let mut taken = Vec::new();
    go(pieces, text, &mut taken).then_some(taken)
}

/// The number of characters a pattern fixes, its words outside its values: the more, the more specific.
fn fixed_len(pattern: &Pattern) -> usize {
    pattern.pieces.iter().map(|p| if let Piece::Words(w) = p { w.chars().count() } else { 0 }).sum()
}

/// The rules' `words` in `language`, values quoting a refusal translated `depth` levels deep. Of the
/// patterns that read `words`, the most specific (the most words fixed) wins, whatever their order in the
/// file: `it carries no shield` is its own message, not `{$id} carries no shield` of "it".
fn translate(kind: Kind, words: &str, language: Language, depth: usize) -> String {
    let mut best: Option<(&Pattern, Vec<(&str, &str)>)> = None;
    for pattern in patterns(kind) {
        let Some(values) = matches(&pattern.pieces, words) else { continue };
        if best.as_ref().is_none_or(|(b, _)| fixed_len(pattern) > fixed_len(b)) {
            best = Some((pattern, values));
        }
    }
    if let Some((pattern, values)) = best {
        let mut args = fluent_bundle::FluentArgs::new();
        for (name, value) in values {
            let value =
                if depth > 0 { translate(Kind::Refusal, value, language, depth - 1) } else { value.to_string() };
            args.set(name.to_string(), value);
        }
        return format_in(language, &pattern.id, Some(&args));
    }
    words.to_string()
}

/// The rules' `words` of this kind in the interface's language.
fn in_language(kind: Kind, words: &str) -> String {
    let language = language();
    if language == Language::English {
        return words.to_string();
    }
    // The panels ask for the same few words every frame: each is worked out once.
    type Seen = HashMap<(Kind, Language, String), String>;
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    let key = (kind, language, words.to_string());
    if let Some(known) = seen.lock().ok().and_then(|s| s.get(&key).cloned()) {
        return known;
    }
    let text = translate(kind, words, language, NESTING);
    if let Ok(mut seen) = seen.lock() {
        seen.insert(key, text.clone());
    }
    text
}

/// A fact's reason in the interface's language (as the rule wrote it in English): a check's, a push's.
pub fn reason(words: &str) -> String {
    in_language(Kind::Reason, words)
}

/// A refusal's reason in the interface's language (as the rule wrote it in English).
pub fn refusal(reason: &str) -> String {
    in_language(Kind::Refusal, reason)
}

/// A refusal in the interface's language, with its rule: "reason (004:259)".
pub fn refusal_full(refusal: &Refusal) -> String {
    format!("{} ({})", in_language(Kind::Refusal, &refusal.reason), refusal.rule)
}

/// A modifier's source, or a multiplier's ("dive attack (004:753) x2"), in the interface's language.
pub fn term(words: &str) -> String {
    let times = words.rsplit_once(" x").filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    match times {
        Some((source, n)) => format!("{} x{n}", in_language(Kind::Term, source)),
        None => in_language(Kind::Term, words),
    }
}

/// Modifiers as a player reads them, in the interface's language: "+5 base attack, +3 Str, -1 size"
/// (`rules::core::facts::describe_modifiers` in the player's words).
pub fn terms(modifiers: &[Modifier]) -> String {
    let parts: Vec<String> = modifiers
        .iter()
        .filter(|m| m.value != 0 || !m.source.is_empty())
        .map(|m| {
            let source = in_language(Kind::Term, &m.source);
            if m.value == 0 { source } else { format!("{:+} {source}", m.value) }
        })
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_takes_its_values_back() {
        let pattern = pieces("{$id} cannot be reached from {$origin}");
        let values = matches(&pattern, "(3, 4) cannot be reached from (1, 1)").expect("it reads so");
        assert_eq!(values, vec![("id", "(3, 4)"), ("origin", "(1, 1)")]);
        assert_eq!(matches(&pattern, "(3, 4) can be reached from (1, 1)"), None);
        assert_eq!(matches(&pieces("no such creature"), "no such creature: x"), None);
        let spaced = pieces("{\" \"}a {$x}");
        assert_eq!(matches(&spaced, " a b"), Some(vec![("x", "b")]));
    }

    #[test]
    fn a_refusal_reads_in_french_with_its_values_and_its_quoted_reason() {
        let plain = translate(Kind::Refusal, "no such creature", Language::French, NESTING);
        assert_ne!(plain, "no such creature");
        assert_eq!(translate(Kind::Refusal, "no such creature", Language::English, NESTING), "no such creature");
        assert_eq!(translate(Kind::Refusal, "words no rule writes", Language::French, NESTING), "words no rule writes");
        let ally = translate(Kind::Refusal, "goblin-1 is an ally", Language::French, NESTING);
        assert!(ally.contains("goblin-1") && !ally.contains("is an ally"), "{ally}");
        let nested = translate(
            Kind::Refusal,
            "not next to the foe, and no charge brings it there: no clear charge lane",
            Language::French,
            NESTING,
        );
        assert!(!nested.contains("no clear charge lane") && !nested.contains("not next to"), "{nested}");
    }

    /// The first pattern a message matches wins: the general ones (`{$id} has no {$value}`) come last, so that
    /// a specific message is not read through them (found by the message audit).
    #[test]
    fn a_specific_refusal_is_not_read_through_a_general_one() {
        for english in
            ["in the air, it has no ground to drop prone on", "it carries no shield", "goblin-1 carries no shield"]
        {
            let french = translate(Kind::Refusal, english, Language::French, NESTING);
            assert!(!french.contains("n'en a pas") && !french.contains("it "), "{english} -> {french}");
        }
    }

    #[test]
    fn the_values_a_refusal_carries_read_in_french() {
        let far = translate(
            Kind::Refusal,
            "(5,2) cannot be reached with a double move of 12 squares",
            Language::French,
            NESTING,
        );
        assert!(far.contains("double déplacement") && !far.contains("double move"), "{far}");
        let barred = translate(
            Kind::Refusal,
            "(4,1): the foes in the way bar it, and no one passes through a foe's square",
            Language::French,
            NESTING,
        );
        assert!(barred.contains("adversaire") && barred.contains("(4,1)") && !barred.contains("foe"), "{barred}");
        let trip = translate(
            Kind::Refusal,
            "in a grapple there is no trip: only the grapple's moves, a light weapon, a spell or an item",
            Language::French,
            NESTING,
        );
        assert!(trip.contains("croc-en-jambe") && !trip.contains("trip"), "{trip}");
    }

    #[test]
    fn a_facts_reason_reads_in_french() {
        let trip = translate(
            Kind::Reason,
            "a trip: Strength against the better of Strength and Dexterity (004:485)",
            Language::French,
            NESTING,
        );
        assert!(trip.contains("(004:485)") && !trip.contains("Strength against"), "{trip}");
        let ride =
            translate(Kind::Reason, "controlling a mount not trained for war (004:473)", Language::French, NESTING);
        assert!(ride.contains("(004:473)") && !ride.contains("controlling"), "{ride}");
        assert_eq!(translate(Kind::Reason, "words no rule writes", Language::French, NESTING), "words no rule writes");
    }

    #[test]
    fn a_modifier_reads_in_french() {
        let flanking = translate(Kind::Term, "flanking with goblin-2 (004:417)", Language::French, NESTING);
        assert!(flanking.contains("goblin-2") && !flanking.contains("flanking"), "{flanking}");
        assert_eq!(translate(Kind::Term, "Str", Language::English, NESTING), "Str");
    }

    #[test]
    fn every_literal_refusal_of_the_rules_has_its_message() {
        // Each refusal the code writes as plain words (a string literal) reads as one of the patterns.
        let mut stack = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut missing = Vec::new();
        let mut seen = 0;
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            // The literal right after the call's parenthesis, on its line or the next (a long call cargo fmt
            // breaks over several lines).
            for (at, _) in text.match_indices("Refusal::new(") {
                let Some(rest) = text[at + "Refusal::new(".len()..].trim_start().strip_prefix('"') else { continue };
                let Some(end) = rest.find('"') else { continue };
                let reason = &rest[..end];
                if reason.contains('\\') {
                    continue;
                }
                seen += 1;
                if !patterns(Kind::Refusal).iter().any(|p| matches(&p.pieces, reason).is_some()) {
                    missing.push(reason.to_string());
                }
            }
        }
        assert!(seen > 150, "the refusals are found: {seen}");
        assert!(missing.is_empty(), "refusals with no message: {missing:?}");
    }

    #[test]
    fn every_literal_with_a_citation_in_the_rules_reads_in_french() {
        // Each plain string of the rules (outside their tests) that cites a line, a fact's reason, a
        // modifier's source or a refusal, reads as one of the patterns, not only as the catch-all.
        let mut stack = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules")];
        let (mut missing, mut seen) = (Vec::new(), 0);
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with("#["))
            {
                for literal in line.split('"').skip(1).step_by(2) {
                    let cites = literal.ends_with(')') && literal.contains(" (0");
                    if !cites || literal.contains(['\\', '{']) {
                        continue;
                    }
                    seen += 1;
                    let found = [Kind::Reason, Kind::Refusal, Kind::Term].into_iter().any(|kind| {
                        patterns(kind)
                            .iter()
                            .filter(|p| p.id != "reason-refusal-with-its-rule")
                            .any(|p| matches(&p.pieces, literal).is_some())
                    });
                    if !found {
                        missing.push(literal.to_string());
                    }
                }
            }
        }
        assert!(seen > 150, "the literals are found: {seen}");
        assert!(missing.is_empty(), "words with no message: {missing:?}");
    }
}
