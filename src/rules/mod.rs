//! The d20 combat rules as Bevy plugins, one per rules chapter, over the creature components. Nothing
//! here names rendering, windows, input or wall-clock time: the game, the AI, the headless runner and
//! the tests all drive the rules by writing the same `*Intent` messages and reading the same [`Fact`]s.

pub mod aerial;
pub mod attack;
pub mod breath;
pub mod command;
pub mod core;
pub mod health;
pub mod magic;
pub mod mounted;
pub mod movement;
pub mod opportunity;
pub mod overland;
pub mod special;
pub mod turns;
pub mod underwater;

use bevy::prelude::*;

pub use self::core::facts::{EventLog, Fact};
pub use self::core::systems::{Rules, RulesStep, RulesSystems};

/// All rules chapters, in the book's order, each depending only on the core and the chapters before it.
pub fn plugin(app: &mut App) {
    app.init_schedule(Rules);
    // Many small systems, each quick: one thread runs them faster than a pool hands them out.
    // Two rules systems touching the same data with no order between them would make a battle depend on
    // the schedule's whims: a debug build (every test) refuses to build such a schedule.
    app.edit_schedule(Rules, |schedule| {
        schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        if cfg!(debug_assertions) {
            schedule.set_build_settings(bevy::ecs::schedule::ScheduleBuildSettings {
                ambiguity_detection: bevy::ecs::schedule::LogLevel::Error,
                ..default()
            });
        }
    });
    app.configure_sets(
        Rules,
        (RulesSystems::Setup, RulesSystems::Act, RulesSystems::Consequences, RulesSystems::Turns, RulesSystems::Record)
            .chain(),
    );
    app.add_systems(Update, self::core::systems::run_rules.in_set(RulesStep));
    app.add_message::<Fact>().add_message::<self::core::creature::ConditionChange>().init_resource::<EventLog>();
    app.init_resource::<self::core::systems::Unsettled>();
    app.add_systems(Rules, self::core::facts::record_facts.in_set(RulesSystems::Record));
    app.add_observer(command::readied_at_a_charge_end);
    app.add_plugins((
        movement::plugin,
        turns::plugin,
        attack::plugin,
        opportunity::plugin,
        health::plugin,
        magic::plugin,
        special::plugin,
        mounted::plugin,
        underwater::plugin,
        aerial::plugin,
        breath::plugin,
    ));
}

/// Forgets whatever the last fight left in the world's resources: the turn order, the event log, the
/// commands put off by readied actions and the move underway. What replacing a fight begins with.
pub fn forget_fight(world: &mut World) {
    // The count of turns begun goes on from fight to fight: a system that tells turns apart by it (a
    // `Local`) never takes the next fight's first turn for the last one's.
    let turns_begun = world.get_resource::<turns::TurnOrder>().map_or(0, |o| o.turns_begun);
    world.insert_resource(turns::TurnOrder { turns_begun, ..default() });
    world.insert_resource(EventLog::default());
    world.insert_resource(command::Deferred::default());
    opportunity::forget_moves(world);
}
