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
pub use self::core::systems::RulesSystems;

/// All rules chapters.
pub fn plugin(app: &mut App) {
    app.configure_sets(
        Update,
        (RulesSystems::Setup, RulesSystems::Act, RulesSystems::Consequences, RulesSystems::Turns, RulesSystems::Record)
            .chain(),
    );
    app.add_message::<Fact>().add_message::<self::core::creature::ConditionChange>().init_resource::<EventLog>();
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
