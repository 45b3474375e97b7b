//! The rules' system sets, in the order every update runs them; each chapter puts its systems in them.

use bevy::prelude::*;

/// The rules' systems, run in this order every update.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RulesSystems {
    /// Setting up the fight: initiative, the first turn.
    Setup,
    /// Carrying out intents: moves, attacks and other actions of the creature whose turn it is.
    Act,
    /// Consequences of what was done: hit points, states.
    Consequences,
    /// Ending turns and starting the next.
    Turns,
    /// Appending the facts of this update to the event log.
    Record,
}
