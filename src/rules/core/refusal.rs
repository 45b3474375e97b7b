//! Refusals: why an action cannot be taken, in plain words with the rule that forbids it. Every illegal
//! intent is answered with one and changes nothing.

use serde::Serialize;

/// Why an action cannot be taken now, with the rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// Plain words.
    pub reason: String,
    /// The text that says so, `file:line`.
    pub rule: String,
}

impl Refusal {
    /// A refusal for `reason` under `rule`.
    pub fn new(reason: impl Into<String>, rule: impl Into<String>) -> Self {
        Refusal { reason: reason.into(), rule: rule.into() }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.reason, self.rule)
    }
}
