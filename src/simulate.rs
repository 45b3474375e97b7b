//! Whole battles without a window: the AI plays every side through the same steps a player makes, until
//! one side stands alone or a round limit passes. What `estoc simulate` and the battle benchmark run.

use crate::data::Encounter;
use crate::encounter::{begin, headless_app, spawn_encounter};
use crate::rules::command::{Command, perform};
use crate::rules::core::facts::{EventLog, Fact};
use crate::rules::turns::TurnOrder;

/// Rounds after which a battle is called off.
pub const ROUND_LIMIT: u32 = 50;

/// Steps in one turn after which the AI's turn is ended for it.
const STEPS_PER_TURN: u32 = 8;

/// How a battle ended.
#[derive(Debug)]
pub struct Outcome {
    /// The faction left standing, if any.
    pub winner: Option<String>,
    /// Rounds played.
    pub rounds: u32,
    /// Every action taken.
    pub steps: Vec<Command>,
    /// The event log.
    pub log: EventLog,
}

/// Plays `encounter` with `seed`, the AI on every side.
pub fn battle(encounter: &Encounter, seed: u64) -> Outcome {
    let mut app = headless_app();
    spawn_encounter(app.world_mut(), encounter, seed, &[]);
    begin(app.world_mut(), &encounter.name, seed);
    app.update();
    let mut steps = Vec::new();
    let mut turn = None;
    let mut in_turn = 0;
    loop {
        let order = app.world().resource::<TurnOrder>();
        if order.ended || order.round > ROUND_LIMIT {
            break;
        }
        let Some(current) = order.current_entity() else { break };
        let now = Some((order.round, current));
        if turn != now {
            turn = now;
            in_turn = 0;
        }
        in_turn += 1;
        let step = if in_turn > STEPS_PER_TURN {
            let id = app.world().get::<crate::rules::core::creature::CreatureId>(current).cloned();
            Command::EndTurn { creature: id.unwrap_or_default() }
        } else {
            crate::ai::next_step(app.world_mut(), current)
        };
        // The AI names only creatures of the fight.
        let _ = perform(app.world_mut(), &step);
        steps.push(step);
    }
    let world = app.world_mut();
    let log = world.remove_resource::<EventLog>().unwrap_or_default();
    let winner = log.0.iter().rev().find_map(|f| match f {
        Fact::EncounterEnded { winner } => winner.clone(),
        _ => None,
    });
    let rounds = world.resource::<TurnOrder>().round;
    Outcome { winner, rounds, steps, log }
}
