//! When the rules run: their own schedule, [`Rules`], and the sets every chapter puts its systems in, in the
//! order each run goes through them.

use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

/// The rules' schedule. [`crate::rules::command::perform`] runs it after each command; the game and the
/// headless app also run it once a frame ([`RulesStep`]), for intents written outside a command.
#[derive(ScheduleLabel, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules;

/// The rules' systems, run in this order every time the rules run.
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
    /// Appending the facts of this run to the event log.
    Record,
}

/// The rules' turn in a frame of `Update`: what feeds them comes before, what shows them after.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RulesStep;

/// Set when a run of the rules left consequences the next run must settle: a fall at the end of a turn,
/// whose damage and prone come after the run's consequences were drawn.
#[derive(Resource, Default, Debug)]
pub struct Unsettled(pub bool);

/// Runs the rules' schedule, and again while a run left something to settle: what a turn's end did is
/// settled before the next creature acts (a flier's stall drops it, hurt and prone, before the foe after it
/// strikes, 004:701), and a chain of Great Cleave's blows, each dropping a foe, goes on at once (004:234).
/// Each run settles what the one before left, so the chain ends with the foes; the bound only keeps a slip
/// from spinning the frame forever.
pub fn run_rules(world: &mut World) {
    const MOST_RUNS: usize = 64;
    world.run_schedule(Rules);
    for _ in 0..MOST_RUNS {
        let again = world.get_resource_mut::<Unsettled>().is_some_and(|mut u| std::mem::take(&mut u.0));
        if !again {
            break;
        }
        world.run_schedule(Rules);
    }
}
