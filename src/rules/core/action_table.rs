//! The table of actions in combat (004:87-163) as data: each action's kind and whether it provokes an
//! attack of opportunity. Read from `assets/actions.ron`.

use serde::{Deserialize, Serialize};

/// The section of the table an action is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableKind {
    /// Action simple.
    Standard,
    /// Action de mouvement.
    Move,
    /// Action complexe.
    FullRound,
    /// Action libre.
    Free,
    /// Activité instantanée: not an action.
    NoAction,
    /// For a creature restricted to one action.
    Restricted,
    /// Action de type variable.
    Variable,
}

/// Whether an action provokes an attack of opportunity, as the table says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Provokes {
    /// Oui.
    Yes,
    /// Non.
    No,
    /// Possible, with the note that says when.
    Maybe {
        /// Footnote number.
        note: u32,
    },
    /// Oui, with a note.
    YesNote {
        /// Footnote number.
        note: u32,
    },
    /// Non, with a note.
    NoNote {
        /// Footnote number.
        note: u32,
    },
    /// En général oui.
    Usually,
    /// Variable.
    Varies,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRow {
    /// Line of the row in 004.
    pub line: u32,
    /// The French name, as the text gives it.
    pub french: String,
    /// The usual English name.
    pub english: String,
    /// Its kind.
    pub kind: TableKind,
    /// Whether it provokes.
    pub provokes: Provokes,
    /// A footnote glued to the name, if any.
    #[serde(default)]
    pub note: Option<u32>,
}

/// Finds a row by its English name, ignoring case.
pub fn find<'a>(table: &'a [ActionRow], english: &str) -> Option<&'a ActionRow> {
    table.iter().find(|row| row.english.eq_ignore_ascii_case(english))
}
