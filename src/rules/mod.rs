//! The d20 combat rules as Bevy plugins, one per rules chapter, over the creature components. Nothing
//! here names rendering, windows, input or wall-clock time: the game, the AI, the headless runner and
//! the tests all drive the rules by writing the same `*Intent` messages and reading the same [`Fact`]s.

pub mod aerial;
pub mod attack;
pub mod breath;
pub mod core;
pub mod health;
pub mod magic;
pub mod mounted;
pub mod movement;
pub mod opportunity;
pub mod overland;
pub mod turns;

use bevy::prelude::*;

pub use self::core::facts::{EventLog, Fact};

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

/// All rules chapters.
pub fn plugin(app: &mut App) {
    app.configure_sets(
        Update,
        (RulesSystems::Setup, RulesSystems::Act, RulesSystems::Consequences, RulesSystems::Turns, RulesSystems::Record)
            .chain(),
    );
    app.add_message::<Fact>().init_resource::<EventLog>();
    app.add_systems(Update, self::core::facts::record_facts.in_set(RulesSystems::Record));
    app.add_plugins((
        turns::plugin,
        movement::plugin,
        attack::plugin,
        health::plugin,
        opportunity::plugin,
        magic::plugin,
        aerial::flying::plugin,
        aerial::pursuit::plugin,
        mounted::plugin,
        breath::plugin,
    ));
}
