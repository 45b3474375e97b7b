//! The interface's words in the player's language: Project Fluent files a language
//! (`assets/locales/<code>/estoc.ftl`, `previews.ftl`, `log.ftl`, `refusals.ftl`, `terms.ftl` and
//! `reasons.ftl`), built into the program so that the game finds them wherever it runs.
//! The language is chosen in the menu (or by `--lang`) and remembered in the settings; English is the
//! default, and the headless runs (scenarios, the event log, the simulator) write English always.
//!
//! Every message is looked up by its id with [`tr`] or, with arguments, [`tr!`]; a test checks that each id
//! the code uses is in every language and that the languages hold the same ids.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use serde::{Deserialize, Serialize};

/// A language of the interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Language {
    /// English, the default.
    #[default]
    English,
    /// French, in the rules texts' own terms.
    French,
}

impl Language {
    /// Every language, in the order the menu offers them.
    pub const ALL: [Language; 2] = [Language::English, Language::French];

    /// The language's code, as `--lang` takes it and its folder is named.
    pub fn code(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::French => "fr",
        }
    }

    /// The language's name in itself, as the menu shows it.
    pub fn endonym(self) -> &'static str {
        match self {
            Language::English => "English",
            Language::French => "Français",
        }
    }

    /// The language of a code (`en`, `fr`), if it is one of the game's.
    pub fn from_code(code: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.code().eq_ignore_ascii_case(code.trim()))
    }

    /// The Fluent files of the language: the interface, the previews of the cursor panel, the combat log,
    /// the rules' refusals, the sources of modifiers, the reasons of the facts.
    pub fn sources(self) -> [&'static str; 6] {
        match self {
            Language::English => [
                include_str!("../assets/locales/en/estoc.ftl"),
                include_str!("../assets/locales/en/previews.ftl"),
                include_str!("../assets/locales/en/log.ftl"),
                include_str!("../assets/locales/en/refusals.ftl"),
                include_str!("../assets/locales/en/terms.ftl"),
                include_str!("../assets/locales/en/reasons.ftl"),
            ],
            Language::French => [
                include_str!("../assets/locales/fr/estoc.ftl"),
                include_str!("../assets/locales/fr/previews.ftl"),
                include_str!("../assets/locales/fr/log.ftl"),
                include_str!("../assets/locales/fr/refusals.ftl"),
                include_str!("../assets/locales/fr/terms.ftl"),
                include_str!("../assets/locales/fr/reasons.ftl"),
            ],
        }
    }

    /// The language's patterns of the rules' refusals (`refusals.ftl`).
    pub fn refusals(self) -> &'static str {
        self.sources()[3]
    }

    /// The language's patterns of the modifiers' sources (`terms.ftl`).
    pub fn terms(self) -> &'static str {
        self.sources()[4]
    }

    /// The language's patterns of the facts' reasons (`reasons.ftl`).
    pub fn reasons(self) -> &'static str {
        self.sources()[5]
    }

    fn index(self) -> u8 {
        match self {
            Language::English => 0,
            Language::French => 1,
        }
    }
}

/// The language the interface speaks now.
static CURRENT: AtomicU8 = AtomicU8::new(0);

/// Sets the interface's language.
pub fn set_language(language: Language) {
    CURRENT.store(language.index(), Ordering::Relaxed);
}

/// The interface's language.
pub fn language() -> Language {
    Language::ALL.into_iter().find(|l| l.index() == CURRENT.load(Ordering::Relaxed)).unwrap_or_default()
}

/// The bundle of a language, built once. A file that does not parse keeps the messages that do (the test
/// of the files fails on it).
fn bundle(language: Language) -> &'static FluentBundle<FluentResource> {
    static BUNDLES: OnceLock<Vec<FluentBundle<FluentResource>>> = OnceLock::new();
    let bundles = BUNDLES.get_or_init(|| Language::ALL.into_iter().map(build).collect());
    &bundles[usize::from(language.index())]
}

fn build(language: Language) -> FluentBundle<FluentResource> {
    let id = language.code().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // Egui draws the isolation marks Fluent puts around arguments as boxes.
    bundle.set_use_isolating(false);
    for source in language.sources() {
        let resource = FluentResource::try_new(source.to_owned()).unwrap_or_else(|(partial, _)| partial);
        // A message defined twice keeps its first definition; the file test reports it.
        let _ = bundle.add_resource(resource);
    }
    bundle
}

/// The message `id` in the interface's language, with its arguments. A message missing from the language
/// falls back to English, then to its id.
pub fn format(id: &str, args: Option<&FluentArgs>) -> String {
    format_in(language(), id, args)
}

/// The message `id` in `language`.
pub fn format_in(language: Language, id: &str, args: Option<&FluentArgs>) -> String {
    for language in [language, Language::English] {
        let bundle = bundle(language);
        if let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) {
            let mut errors = Vec::new();
            return bundle.format_pattern(pattern, args, &mut errors).into_owned();
        }
    }
    id.to_owned()
}

/// The message `id`, without arguments.
pub fn tr(id: &str) -> String {
    format(id, None)
}

/// A decimal number as the interface's language writes it: "10.5" in English, "10,5" in French.
pub fn decimal(value: f32) -> String {
    let text = value.to_string();
    match language() {
        Language::English => text,
        Language::French => text.replace('.', ","),
    }
}

/// Arguments for a message: each value a number or a text.
pub fn args<'a>(pairs: impl IntoIterator<Item = (&'a str, FluentValue<'a>)>) -> FluentArgs<'a> {
    let mut args = FluentArgs::new();
    for (name, value) in pairs {
        args.set(name, value);
    }
    args
}

/// The message `id` in the interface's language with named arguments:
/// `tr!("turn-banner", round = 3, name = "Goblin 1")`.
#[macro_export]
macro_rules! tr {
    ($id:literal) => {
        $crate::locale::tr($id)
    };
    ($id:literal, $($name:ident = $value:expr),+ $(,)?) => {
        $crate::locale::format(
            $id,
            Some(&$crate::locale::args([$((stringify!($name), ::fluent_bundle::FluentValue::from($value))),+])),
        )
    };
}

/// Every message id of a language's file, in the file's order, and the problems of the file.
pub fn message_ids(language: Language) -> (Vec<String>, Vec<String>) {
    let mut problems = Vec::new();
    let mut ids = Vec::new();
    for source in language.sources() {
        let resource = match FluentResource::try_new(source.to_owned()) {
            Ok(resource) => resource,
            Err((partial, errors)) => {
                problems.extend(errors.iter().map(|e| format!("{}: {e:?}", language.code())));
                partial
            }
        };
        ids.extend(resource.entries().filter_map(|entry| match entry {
            fluent_syntax::ast::Entry::Message(m) => Some(m.id.name.to_owned()),
            _ => None,
        }));
    }
    (ids, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reads_in_each_language_with_its_arguments() {
        let english = format_in(Language::English, "menu-language", None);
        let french = format_in(Language::French, "menu-language", None);
        assert_eq!(english, "Language");
        assert_eq!(french, "Langue");
        let args = args([
            ("round", FluentValue::from(3)),
            ("name", FluentValue::from("Goblin 1")),
            ("side", FluentValue::from("goblins")),
            ("who", FluentValue::from("l'ordinateur joue")),
        ]);
        let line = format_in(Language::French, "turn-banner", Some(&args));
        assert_eq!(line, "Round 3 — au tour de Goblin 1 (goblins, l'ordinateur joue)");
    }

    #[test]
    fn an_unknown_id_reads_as_itself() {
        assert_eq!(format_in(Language::French, "no-such-message", None), "no-such-message");
    }

    #[test]
    fn codes_name_the_languages() {
        assert_eq!(Language::from_code("FR"), Some(Language::French));
        assert_eq!(Language::from_code("en"), Some(Language::English));
        assert_eq!(Language::from_code("de"), None);
    }
}
