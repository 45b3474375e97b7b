//! Scenarios: a level, a seed, optional forced dice, and a list of steps (actions by creature id and
//! queries), run headless. The output is the event log as JSON lines, with query answers in place; a
//! scenario may list the facts it expects, which `estoc run --check` and the tests verify.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::diagnostics::{Diagnostic, Diagnostics, Source, read_file};
use crate::data::{Content, load_level};
use crate::encounter::{Roster, begin, headless_app, sheet_of, spawn_encounter};
use crate::rules::attack::AttackIntent;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::is_ranged;
use crate::rules::core::creature::*;
use crate::rules::core::facts::EventLog;
use crate::rules::core::geometry::{Square, squares_to_metres};
use crate::rules::core::reach::threatened_squares;
use crate::rules::movement::{MovementAction, walk_path};
use crate::rules::turns::EndTurnIntent;
use crate::rules::turns::moving::{MoveIntent, MoverView};

fn default_move() -> MovementAction {
    MovementAction::Move
}

/// One step of a scenario: an action by a creature, or a question about the state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Step {
    /// Move a creature with a movement action, along `path` or the cheapest path.
    Move {
        /// Creature id.
        creature: String,
        /// Destination.
        to: Square,
        /// Movement action (default `move`).
        #[serde(default = "default_move")]
        action: MovementAction,
        /// Squares to pass, the destination last.
        #[serde(default)]
        path: Option<Vec<Square>>,
    },
    /// A single attack (a standard action), or with `full: true` a full attack.
    Attack {
        /// Attacker id.
        creature: String,
        /// Target id.
        target: String,
        /// Weapon name; the first if absent.
        #[serde(default)]
        weapon: Option<String>,
        /// Fighting defensively (004:183).
        #[serde(default)]
        defensively: bool,
        /// A full attack (004:229-231).
        #[serde(default)]
        full: bool,
        /// An unarmed strike dealing lethal damage, at -4.
        #[serde(default)]
        lethal: bool,
        /// With `full: true`, also one attack with the weapon held in the off hand (004:462-472).
        #[serde(default)]
        two_weapons: bool,
        /// With `full: true`, at most this many blows now; the next `full: true` attack goes on with the
        /// rest, or a `Move` gives them up (004:232). Every blow at once if absent.
        #[serde(default)]
        blows: Option<u32>,
    },
    /// A coup de grâce on a helpless foe (004:424-427).
    CoupDeGrace {
        /// Attacker id.
        creature: String,
        /// Target id.
        target: String,
        /// Weapon name; the first if absent.
        #[serde(default)]
        weapon: Option<String>,
    },
    /// Stand up from prone (004:225).
    StandUp {
        /// Creature id.
        creature: String,
    },
    /// Drop prone (004:255).
    DropProne {
        /// Creature id.
        creature: String,
    },
    /// Total defence (004:211).
    TotalDefense {
        /// Creature id.
        creature: String,
    },
    /// Charge a target (004:451-459): along the lane ending at `to`, or the first legal lane.
    Charge {
        /// Charger id.
        creature: String,
        /// Target id.
        target: String,
        /// The square the lane ends on.
        #[serde(default)]
        to: Option<Square>,
    },
    /// Ready an action for a trigger (004:620-628).
    Ready {
        /// Creature id.
        creature: String,
        /// The action set aside.
        action: crate::rules::turns::ready::ReadiedAction,
        /// What sets it off.
        trigger: crate::rules::turns::ready::Trigger,
    },
    /// Impose a condition for some rounds from the current initiative count, as a spell or a poison would
    /// (004:74): the game master's hand.
    Impose {
        /// On whom.
        creature: String,
        /// The condition.
        condition: Condition,
        /// For how many rounds.
        rounds: u32,
    },
    /// Use a carried item: drink a potion (004:96).
    UseItem {
        /// Creature id.
        creature: String,
        /// The item's name.
        item: String,
    },
    /// Take off, `extra_m` metres above its space with a Jump check (004:657-668).
    TakeOff {
        /// Creature id.
        creature: String,
        /// Metres above its space to try for.
        #[serde(default)]
        extra_m: f32,
    },
    /// Fly, step by step along the heading (004:671-786).
    Fly {
        /// Creature id.
        creature: String,
        /// The flight.
        steps: Vec<crate::rules::aerial::flight::FlightStep>,
        /// Hover.
        #[serde(default)]
        hover: bool,
        /// A dive attack on this creature, at the end of the flight (004:753).
        #[serde(default)]
        dive_at: Option<String>,
        /// A flyby attack on this creature after this many steps (004:755).
        #[serde(default)]
        flyby: Option<(String, usize)>,
        /// A deceleration: under half its speed, slow if the fly check succeeds (004:759).
        #[serde(default)]
        decelerate: bool,
        /// The flyby attack is a swoop: down 6 m first, the claw for double damage (004:751).
        #[serde(default)]
        swoop: bool,
        /// At chase scale, a collision with this flier in a square the flight enters (004:758).
        #[serde(default)]
        ram: Option<String>,
        /// A Bluff against this pursuer before the flight turns into a cloud or dives away (004:818).
        #[serde(default)]
        bluff: Option<String>,
    },
    /// Hide from its pursuers after its flight, among towers, cliffs or peaks (004:816-817).
    Hide {
        /// Creature id: a flier, or its rider.
        creature: String,
    },
    /// Land (004:669-670).
    Land {
        /// Creature id.
        creature: String,
    },
    /// Breathe the creature's breath weapon at a creature (a standard action, docs/rulings.md).
    Breathe {
        /// Creature id.
        creature: String,
        /// The creature aimed at.
        toward: String,
    },
    /// Get on an ally's back: a move action (004:226, 004:654-655).
    Mount {
        /// Creature id.
        creature: String,
        /// The mount's id.
        mount: String,
    },
    /// Get off onto a square next to the mount: a move action (004:226).
    Dismount {
        /// Creature id.
        creature: String,
        /// Where it stands then.
        to: Square,
    },
    /// A passenger takes the reins of its mount: into the free rider's seat, or changing places with the
    /// rider (004:822).
    TakeReins {
        /// Creature id: the passenger.
        creature: String,
    },
    /// Everyone rests, once the fight is over: natural healing (004:284-296, 004:308).
    Rest {
        /// Hours of rest.
        hours: u32,
        /// In bed all day (twice the healing of a night).
        #[serde(default)]
        bed_rest: bool,
    },
    /// Cast a spell at a creature (or at itself) (004:190-200, 004:235-238).
    Cast {
        /// Creature id.
        creature: String,
        /// The spell's name.
        spell: String,
        /// The target's id; the caster itself if absent.
        #[serde(default)]
        target: Option<String>,
        /// Cast defensively: no attack of opportunity, a Concentration check (004:197).
        #[serde(default)]
        defensively: bool,
    },
    /// Delay: the creature whose turn it is acts later (004:629).
    Delay {
        /// Creature id.
        creature: String,
    },
    /// A delaying creature acts when the current turn ends (004:631).
    Resume {
        /// Creature id.
        creature: String,
    },
    /// End the creature's turn.
    EndTurn {
        /// Creature id.
        creature: String,
    },
    /// Queue more forced dice.
    ForceDice {
        /// The values, in order.
        dice: Vec<u32>,
    },
    /// Which squares can the creature end a move on with this action, at what cost?
    Reachable {
        /// Creature id.
        creature: String,
        /// Movement action (default `move`).
        #[serde(default = "default_move")]
        action: MovementAction,
    },
    /// What does this path cost, step by step, and is it legal?
    PathCost {
        /// Creature id.
        creature: String,
        /// Squares to pass, from the one after the start.
        path: Vec<Square>,
    },
    /// Where can the creature charge the target from here, or why not?
    ChargeLanes {
        /// Charger id.
        creature: String,
        /// Target id.
        target: String,
    },
    /// Why can the creature not end a move of this action on that square (or what would it cost)?
    WhyNot {
        /// Creature id.
        creature: String,
        /// Movement action.
        #[serde(default = "default_move")]
        action: MovementAction,
        /// The square asked about.
        square: Square,
    },
    /// The cheapest legal path for this action to that square (shortest, then fewest hampered squares).
    Path {
        /// Creature id.
        creature: String,
        /// Movement action.
        #[serde(default = "default_move")]
        action: MovementAction,
        /// Destination.
        to: Square,
    },
    /// Which squares does the creature threaten?
    Threatened {
        /// Creature id.
        creature: String,
    },
    /// How far apart are two creatures?
    Distance {
        /// One creature.
        from: String,
        /// The other.
        to: String,
    },
    /// The creature's derived sheet.
    Sheet {
        /// Creature id.
        creature: String,
    },
}

impl Step {
    /// A flight along `steps` with no manoeuvre of the advanced kind, or a dive attack on `dive_at` (004:753).
    pub fn flight(
        creature: String,
        steps: Vec<crate::rules::aerial::flight::FlightStep>,
        dive_at: Option<String>,
    ) -> Self {
        Step::Fly {
            creature,
            steps,
            hover: false,
            dive_at,
            flyby: None,
            decelerate: false,
            swoop: false,
            ram: None,
            bluff: None,
        }
    }
}

/// A scenario file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDef {
    /// The level, relative to the scenario file or to the repository root.
    pub level: PathBuf,
    /// Seed of the dice.
    pub seed: u64,
    /// Dice results forced at the start, in order.
    #[serde(default)]
    pub dice: Vec<u32>,
    /// Steps in order.
    pub steps: Vec<Step>,
    /// Facts or answers expected, in order, as JSON objects matched on the keys they give.
    #[serde(default)]
    pub expect: Vec<String>,
    /// Facts that must not appear anywhere, as JSON objects matched the same way.
    #[serde(default)]
    pub forbid: Vec<String>,
}

/// One reachable square in an answer.
#[derive(Clone, Debug, Serialize)]
pub struct ReachableSquare {
    /// The square.
    pub square: Square,
    /// The space taken there (narrower while squeezing).
    pub space: (i32, i32),
    /// Squares of movement.
    pub cost: u32,
    /// Metres.
    pub metres: f32,
}

/// The answer to a query, written to the log in place.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// Reachable squares.
    Reachable {
        /// Creature id.
        creature: String,
        /// The action.
        action: MovementAction,
        /// Squares of movement allowed.
        allowance: u32,
        /// Every square where the move may end.
        squares: Vec<ReachableSquare>,
    },
    /// A path's cost.
    PathCost {
        /// Creature id.
        creature: String,
        /// Whether the path can be walked.
        legal: bool,
        /// Steps and costs, if legal.
        steps: Vec<crate::rules::movement::PathStep>,
        /// Total squares.
        cost: u32,
        /// Total metres.
        metres: f32,
        /// Why not, if illegal.
        refusal: Option<String>,
    },
    /// Charge lanes.
    ChargeLanes {
        /// Charger id.
        creature: String,
        /// Target id.
        target: String,
        /// The lanes, or empty.
        lanes: Vec<crate::rules::movement::ChargeLane>,
        /// Why there is none.
        refusal: Option<String>,
    },
    /// Whether a square can be reached, and if not why.
    WhyNot {
        /// Creature id.
        creature: String,
        /// The action.
        action: MovementAction,
        /// The square.
        square: Square,
        /// Whether the move may end there.
        reachable: bool,
        /// Its cost if it may.
        cost: Option<u32>,
        /// The reason if not, with the rule.
        reason: Option<String>,
    },
    /// The cheapest legal path.
    Path {
        /// Creature id.
        creature: String,
        /// The action.
        action: MovementAction,
        /// The destination.
        to: Square,
        /// The route, if there is one.
        route: Option<crate::rules::movement::Route>,
        /// The attacks of opportunity it would provoke, and where.
        provokes: Vec<ProvocationAnswer>,
        /// Why not, if there is none.
        refusal: Option<String>,
    },
    /// Threatened squares.
    Threatened {
        /// Creature id.
        creature: String,
        /// The squares, row by row.
        squares: Vec<Square>,
    },
    /// Distance between two creatures.
    Distance {
        /// One.
        from: String,
        /// The other.
        to: String,
        /// Squares.
        squares: u32,
        /// Metres.
        metres: f32,
    },
    /// A derived sheet.
    Sheet {
        /// Creature id.
        creature: String,
        /// The sheet.
        sheet: Sheet,
    },
    /// A step named a creature the level does not have.
    UnknownCreature {
        /// The id given.
        creature: String,
    },
}

/// One point of a path where foes would strike.
#[derive(Clone, Debug, Serialize)]
pub struct ProvocationAnswer {
    /// Steps taken before they strike.
    pub after_steps: usize,
    /// Where the mover stands then.
    pub square: Square,
    /// Who strikes, in order.
    pub from: Vec<String>,
    /// Why, with the rule.
    pub reason: String,
}

/// Which foes a route would provoke, and where (004:64-71), as the move preview marks them, by id.
fn provocations_along(
    world: &mut World,
    mover: Entity,
    start: crate::rules::core::geometry::Footprint,
    route: &crate::rules::movement::Route,
    action: MovementAction,
) -> Vec<ProvocationAnswer> {
    let found = crate::preview::provocations_along(world, mover, start, route, action);
    found
        .into_iter()
        .map(|p| ProvocationAnswer {
            after_steps: p.after_steps,
            square: p.square,
            from: p.from.iter().filter_map(|e| world.get::<CreatureId>(*e).map(|c| c.0.clone())).collect(),
            reason: p.reason.to_string(),
        })
        .collect()
}

/// Reads and parses a scenario file.
pub fn load_scenario(path: &Path) -> Result<ScenarioDef, Diagnostics> {
    let text = read_file(path).map_err(|d| Diagnostics(vec![d]))?;
    Source { path, text: &text }.parse().map_err(|d: Diagnostic| Diagnostics(vec![d]))
}

/// Where a scenario's level file is.
pub fn level_path(scenario_path: &Path, level: &Path) -> PathBuf {
    if level.is_absolute() {
        return level.to_path_buf();
    }
    let beside = scenario_path.parent().map(|p| p.join(level));
    match beside {
        Some(p) if p.exists() => p,
        _ => crate::data::root().join(level),
    }
}

/// The output of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    /// Facts and answers, one JSON object per line, in order.
    pub lines: Vec<String>,
}

impl RunOutput {
    /// The expectations not met, in order: each is matched against the lines after the previous match.
    pub fn unmet(&self, expect: &[String]) -> Vec<String> {
        let parsed: Vec<serde_json::Value> = self.lines.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let mut at = 0;
        let mut unmet = Vec::new();
        for wanted in expect {
            let Ok(want) = serde_json::from_str::<serde_json::Value>(wanted) else {
                unmet.push(format!("not a JSON object: {wanted}"));
                continue;
            };
            match parsed[at..].iter().position(|line| json_contains(line, &want)) {
                Some(found) => at += found + 1,
                None => unmet.push(wanted.clone()),
            }
        }
        unmet
    }
}

impl RunOutput {
    /// The forbidden facts that appear, each with the first line that matched it.
    pub fn present(&self, forbid: &[String]) -> Vec<String> {
        forbid
            .iter()
            .filter_map(|unwanted| {
                let Ok(want) = serde_json::from_str::<serde_json::Value>(unwanted) else {
                    return Some(format!("not a JSON object: {unwanted}"));
                };
                self.lines
                    .iter()
                    .find(|line| serde_json::from_str(line).is_ok_and(|v| json_contains(&v, &want)))
                    .map(|line| format!("{unwanted} matched {line}"))
            })
            .collect()
    }
}

/// Whether `have` holds everything `want` gives: objects by key, arrays element by element.
pub fn json_contains(have: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => {
            w.iter().all(|(k, wv)| h.get(k).is_some_and(|hv| json_contains(hv, wv)))
        }
        (Value::Array(h), Value::Array(w)) => h.len() == w.len() && h.iter().zip(w).all(|(a, b)| json_contains(a, b)),
        (Value::Number(h), Value::Number(w)) => h.as_f64() == w.as_f64(),
        _ => have == want,
    }
}

/// Runs a scenario with its own seed or `seed_override`.
pub fn run_scenario(
    path: &Path,
    scenario: &ScenarioDef,
    content: &Content,
    seed_override: Option<u64>,
) -> Result<RunOutput, Diagnostics> {
    let level_file = level_path(path, &scenario.level);
    let encounter = load_level(&level_file, content)?;
    let seed = seed_override.unwrap_or(scenario.seed);
    let mut app = headless_app();
    spawn_encounter(app.world_mut(), &encounter, seed, &scenario.dice);
    begin(app.world_mut(), &encounter.name, seed);
    app.update();
    let mut output = RunOutput::default();
    let mut logged = 0;
    let mut flush = |app: &mut App, output: &mut RunOutput| {
        let log = app.world().resource::<EventLog>();
        for fact in &log.0[logged..] {
            output.lines.push(serde_json::to_string(fact).expect("facts serialise"));
        }
        logged = log.0.len();
    };
    flush(&mut app, &mut output);
    for step in &scenario.steps {
        let answer = apply_step(app.world_mut(), step);
        match answer {
            Some(answer) => output.lines.push(serde_json::to_string(&answer).expect("answers serialise")),
            None => {
                app.update();
                flush(&mut app, &mut output);
                // A step put off by a readied action comes after it (004:621).
                while let Some(put_off) = take_deferred(app.world_mut()) {
                    apply_step(app.world_mut(), &put_off);
                    app.update();
                    flush(&mut app, &mut output);
                }
            }
        }
    }
    Ok(output)
}

/// Carries out one step on the world: an action is written as the rules' intent (the caller runs the
/// schedule to resolve it); a query is answered at once. The game, the AI and saved battles go through here
/// too, so what a player does is exactly what a scenario can replay.
pub fn apply_step(world: &mut World, step: &Step) -> Option<Answer> {
    let roster = world.resource::<Roster>().clone();
    let entity = |id: &str| roster.get(id);
    let mut answer = None;
    if set_off_readied(world, step) {
        return None;
    }
    match step {
        Step::Impose { creature, condition, rounds } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::turns::lasting::ImposeIntent {
                    creature: e,
                    condition: *condition,
                    rounds: *rounds,
                });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::UseItem { creature, item } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::health::UseItemIntent { creature: e, item: item.clone() });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::TakeOff { creature, extra_m } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::aerial::flying::TakeOffIntent { creature: e, extra_m: *extra_m });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Fly { creature, steps, hover, dive_at, flyby, decelerate, swoop, ram, bluff } => {
            let flyby = flyby.as_ref().and_then(|(t, n)| entity(t).map(|e| (e, *n)));
            let bluffed = bluff.as_deref().map(|t| (t, entity(t)));
            let target = dive_at.as_deref().map(|t| (t, entity(t)));
            let rammed = ram.as_deref().map(|t| (t, entity(t)));
            match (entity(creature), target) {
                (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
                (_, Some((t, None))) => answer = Some(Answer::UnknownCreature { creature: t.to_string() }),
                _ if rammed.is_some_and(|(_, e)| e.is_none()) => {
                    answer = Some(Answer::UnknownCreature { creature: ram.clone().unwrap_or_default() });
                }
                _ if bluffed.is_some_and(|(_, e)| e.is_none()) => {
                    answer = Some(Answer::UnknownCreature { creature: bluff.clone().unwrap_or_default() });
                }
                (Some(e), target) => {
                    world.write_message(crate::rules::aerial::flying::FlyIntent {
                        creature: e,
                        steps: steps.clone(),
                        hover: *hover,
                        dive_at: target.and_then(|(_, t)| t),
                        flyby,
                        decelerate: *decelerate,
                        swoop: *swoop,
                        ram: rammed.and_then(|(_, e)| e),
                        bluff: bluffed.and_then(|(_, e)| e),
                    });
                }
            }
        }
        Step::Land { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::aerial::flying::LandIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Hide { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::aerial::pursuit::HideIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Breathe { creature, toward } => match (entity(creature), entity(toward)) {
            (Some(e), Some(t)) => {
                world.write_message(crate::rules::breath::BreathIntent { creature: e, toward: t });
            }
            (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
            (_, None) => answer = Some(Answer::UnknownCreature { creature: toward.clone() }),
        },
        Step::Mount { creature, mount } => match (entity(creature), entity(mount)) {
            (Some(e), Some(m)) => {
                world.write_message(crate::rules::mounted::MountIntent { creature: e, mount: m });
            }
            (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
            (_, None) => answer = Some(Answer::UnknownCreature { creature: mount.clone() }),
        },
        Step::Dismount { creature, to } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::mounted::DismountIntent { creature: e, to: *to });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::TakeReins { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::mounted::TakeReinsIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Rest { hours, bed_rest } => {
            world.write_message(crate::rules::health::rest::RestIntent { hours: *hours, bed_rest: *bed_rest });
        }
        Step::Cast { creature, spell, target, defensively } => {
            let target_id = target.as_deref().unwrap_or(creature);
            match (entity(creature), entity(target_id)) {
                (Some(caster), Some(target)) => {
                    world.write_message(crate::rules::magic::CastIntent {
                        caster,
                        spell: spell.clone(),
                        target,
                        defensively: *defensively,
                    });
                }
                (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
                (_, None) => answer = Some(Answer::UnknownCreature { creature: target_id.to_string() }),
            }
        }
        Step::Ready { creature, action, trigger } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::turns::ready::ReadyIntent {
                    creature: e,
                    action: action.clone(),
                    trigger: trigger.clone(),
                });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Move { creature, to, action, path } => match entity(creature) {
            Some(e) => {
                world.write_message(MoveIntent {
                    creature: e,
                    target: None,
                    action: *action,
                    to: *to,
                    path: path.clone(),
                    readied: false,
                });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Attack { creature, target, weapon, defensively, full, lethal, two_weapons, blows } => {
            match (entity(creature), entity(target)) {
                (Some(a), Some(t)) => {
                    world.write_message(AttackIntent {
                        defensively: *defensively,
                        full: *full,
                        lethal: *lethal,
                        two_weapons: *two_weapons,
                        blows: *blows,
                        ..AttackIntent::new(a, t, weapon.clone())
                    });
                }
                (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
                (_, None) => answer = Some(Answer::UnknownCreature { creature: target.clone() }),
            }
        }
        Step::Charge { creature, target, to } => match (entity(creature), entity(target)) {
            (Some(c), Some(t)) => {
                let lane_end = to.or_else(|| {
                    with_charge_lanes(world, c, t).and_then(|lanes| lanes.ok()).and_then(|l| l.first().map(|l| l.to))
                });
                // Without a lane the rules refuse the intent and say why.
                let to = lane_end.unwrap_or_default();
                world.write_message(MoveIntent {
                    creature: c,
                    target: Some(t),
                    action: MovementAction::Charge,
                    to,
                    path: None,
                    readied: false,
                });
            }
            (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
            (_, None) => answer = Some(Answer::UnknownCreature { creature: target.clone() }),
        },
        Step::ChargeLanes { creature, target } => {
            answer = Some(match (entity(creature), entity(target)) {
                (Some(c), Some(t)) => match with_charge_lanes(world, c, t) {
                    Some(Ok(lanes)) => {
                        Answer::ChargeLanes { creature: creature.clone(), target: target.clone(), lanes, refusal: None }
                    }
                    Some(Err(r)) => Answer::ChargeLanes {
                        creature: creature.clone(),
                        target: target.clone(),
                        lanes: Vec::new(),
                        refusal: Some(r.to_string()),
                    },
                    None => Answer::UnknownCreature { creature: creature.clone() },
                },
                (None, _) => Answer::UnknownCreature { creature: creature.clone() },
                (_, None) => Answer::UnknownCreature { creature: target.clone() },
            })
        }
        Step::Path { creature, action, to } => {
            let id = creature.clone();
            answer = Some(
                match entity(creature).and_then(|e| {
                    crate::preview::with_move_query(world, e, true, |q, _| (q.route(*action, *to, None), q.start))
                        .map(|r| (e, r))
                }) {
                    Some((e, (Ok(route), start))) => {
                        let provokes = provocations_along(world, e, start, &route, *action);
                        Answer::Path {
                            creature: id,
                            action: *action,
                            to: *to,
                            route: Some(route),
                            provokes,
                            refusal: None,
                        }
                    }
                    Some((_, (Err(r), _))) => Answer::Path {
                        creature: id,
                        action: *action,
                        to: *to,
                        route: None,
                        provokes: Vec::new(),
                        refusal: Some(r.to_string()),
                    },
                    None => Answer::UnknownCreature { creature: id },
                },
            )
        }
        Step::WhyNot { creature, action, square } => {
            answer = Some(answer_why_not(world, entity(creature), creature, *action, *square))
        }
        Step::CoupDeGrace { creature, target, weapon } => match (entity(creature), entity(target)) {
            (Some(a), Some(t)) => {
                world.write_message(crate::rules::attack::CoupDeGraceIntent {
                    attacker: a,
                    target: t,
                    weapon: weapon.clone(),
                });
            }
            (None, _) => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
            (_, None) => answer = Some(Answer::UnknownCreature { creature: target.clone() }),
        },
        Step::StandUp { creature } | Step::DropProne { creature } => match entity(creature) {
            Some(e) => {
                let stand_up = matches!(step, Step::StandUp { .. });
                world.write_message(crate::rules::attack::StanceIntent { creature: e, stand_up, readied: false });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::TotalDefense { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::attack::TotalDefenseIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Delay { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::turns::DelayIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::Resume { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(crate::rules::turns::ResumeIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::EndTurn { creature } => match entity(creature) {
            Some(e) => {
                world.write_message(EndTurnIntent { creature: e });
            }
            None => answer = Some(Answer::UnknownCreature { creature: creature.clone() }),
        },
        Step::ForceDice { dice } => world.resource_mut::<crate::rules::core::dice::Dice>().force(dice.iter().copied()),
        Step::Reachable { creature, action } => {
            answer = Some(answer_reachable(world, entity(creature), creature, *action))
        }
        Step::PathCost { creature, path } => answer = Some(answer_path(world, entity(creature), creature, path)),
        Step::Threatened { creature } => answer = Some(answer_threatened(world, entity(creature), creature)),
        Step::Distance { from, to } => answer = Some(answer_distance(world, entity(from), entity(to), from, to)),
        Step::Sheet { creature } => {
            answer = Some(match entity(creature).and_then(|e| sheet_of(world, e)) {
                Some(sheet) => Answer::Sheet { creature: creature.clone(), sheet },
                None => Answer::UnknownCreature { creature: creature.clone() },
            })
        }
    }
    answer
}

/// The steps waiting for a readied action to be taken first (004:621): the caller carries them out after
/// the next update, with [`take_deferred`].
#[derive(Resource, Default, Debug)]
pub struct Deferred(pub Vec<Step>);

/// The step put off by a readied action, if any.
pub fn take_deferred(world: &mut World) -> Option<Step> {
    world.get_resource_mut::<Deferred>().and_then(|mut d| (!d.0.is_empty()).then(|| d.0.remove(0)))
}

/// The creature that acts in a step, if the step is an action.
fn actor(step: &Step) -> Option<&str> {
    match step {
        Step::Move { creature, .. }
        | Step::Attack { creature, .. }
        | Step::CoupDeGrace { creature, .. }
        | Step::StandUp { creature }
        | Step::DropProne { creature }
        | Step::TotalDefense { creature }
        | Step::Charge { creature, .. }
        | Step::Ready { creature, .. }
        | Step::UseItem { creature, .. }
        | Step::Cast { creature, .. }
        | Step::TakeOff { creature, .. }
        | Step::Fly { creature, .. }
        | Step::Land { creature }
        | Step::Hide { creature }
        | Step::Breathe { creature, .. }
        | Step::Mount { creature, .. }
        | Step::Dismount { creature, .. }
        | Step::TakeReins { creature } => Some(creature),
        _ => None,
    }
}

/// If `step` is the action of a creature another readied against, takes the readied action first: the
/// readier moves to just before it in the order (004:622), its action is asked for, and the step waits in
/// [`Deferred`]. Returns whether it did.
fn set_off_readied(world: &mut World, step: &Step) -> bool {
    use crate::rules::turns::ready::{Readied, ReadiedAction, move_before, waits_for};
    let Some(actor_id) = actor(step) else { return false };
    let Some(actor) = world.resource::<Roster>().get(actor_id) else { return false };
    if world.resource::<crate::rules::turns::TurnOrder>().check_turn(actor).is_err() {
        return false;
    }
    let Some(actor_id) = world.get::<CreatureId>(actor).cloned() else { return false };
    let Some(actor_faction) = world.get::<Faction>(actor).cloned() else { return false };
    let casting = matches!(step, Step::Cast { .. });
    let mut readiers = world.query::<(Entity, &CreatureId, &Readied, &Conditions, &Faction)>();
    let found = readiers
        .iter(world)
        .filter(|(e, _, r, c, f)| {
            *e != actor && c.can_act() && waits_for(r, &actor_id, casting && **f != actor_faction)
        })
        .map(|(e, id, r, ..)| (e, id.clone(), r.clone()))
        .min_by(|a, b| a.1.cmp(&b.1));
    let Some((readier, readier_id, readied)) = found else { return false };
    world.entity_mut(readier).remove::<Readied>();
    move_before(&mut world.resource_mut::<crate::rules::turns::TurnOrder>(), readier, actor);
    let order: Vec<CreatureId> =
        world.resource::<crate::rules::turns::TurnOrder>().entries.iter().map(|e| e.id.clone()).collect();
    world.write_message(crate::rules::core::facts::Fact::ReadiedActionTriggered {
        creature: readier_id,
        by: actor_id,
        action: readied.action.to_string(),
    });
    world.write_message(crate::rules::core::facts::Fact::InitiativeOrdered { order });
    match &readied.action {
        ReadiedAction::Attack { target, weapon } => {
            let target = target.as_deref().and_then(|t| world.resource::<Roster>().get(t)).unwrap_or(actor);
            world.write_message(AttackIntent { readied: true, ..AttackIntent::new(readier, target, weapon.clone()) });
        }
        ReadiedAction::DropProne => {
            world.write_message(crate::rules::attack::StanceIntent {
                creature: readier,
                stand_up: false,
                readied: true,
            });
        }
        ReadiedAction::Move { to } => {
            world.write_message(MoveIntent {
                creature: readier,
                target: None,
                action: MovementAction::Move,
                to: *to,
                path: None,
                readied: true,
            });
        }
    }
    if casting && let Some(hp) = world.get::<HitPoints>(actor).map(|hp| hp.current) {
        // The readied action strikes before the spell: a wound calls for a Concentration check (004:196).
        world.entity_mut(actor).insert(crate::rules::magic::AwaitingCast { hit_points: hp });
    }
    world.get_resource_or_insert_with(Deferred::default).0.push(step.clone());
    true
}

fn with_move_query<T>(
    world: &mut World,
    entity: Entity,
    f: impl FnOnce(&crate::rules::movement::MoveQuery<'_>) -> T,
) -> Option<T> {
    crate::preview::with_move_query(world, entity, false, |query, _| f(query))
}

fn with_charge_lanes(
    world: &mut World,
    charger: Entity,
    target: Entity,
) -> Option<Result<Vec<crate::rules::movement::ChargeLane>, crate::rules::core::refusal::Refusal>> {
    let mut q = world.query::<MoverView>();
    let aim = q.get(world, target).ok().map(|t| t.space.at(t.position.0))?;
    let (reach, reach_weapon) = {
        let me = q.get(world, charger).ok()?;
        (me.reach.0, me.armament.0.iter().find(|w| !is_ranged(w)).is_some_and(|w| w.reach))
    };
    with_move_query(world, charger, |q| q.charge_lanes(aim, reach, reach_weapon))
}

fn answer_why_not(
    world: &mut World,
    entity: Option<Entity>,
    id: &str,
    action: MovementAction,
    square: Square,
) -> Answer {
    let unknown = Answer::UnknownCreature { creature: id.to_string() };
    let Some(entity) = entity else { return unknown };
    with_move_query(world, entity, |q| {
        let answer = |reachable, cost, reason| Answer::WhyNot { creature: id.to_string(), action, square, reachable, cost, reason };
        if let Some(d) = q.destinations(action).into_iter().find(|d| d.square == square) {
            return answer(true, Some(d.cost), None);
        }
        match q.route(action, square, None) {
            Ok(route) => answer(true, Some(route.cost), None),
            Err(refusal) => {
                // Say what stands in the way when the square itself cannot hold the creature.
                let reason = match q.world().enter(&q.mover, q.start.at(square), q.start) {
                    Err(blocked) => format!("{blocked} ({})", blocked.rule()),
                    Ok(entry) if !entry.can_stop => {
                        format!("cannot end the move in {square}: occupied, or an obstacle to cross (000:74-75, 000:101-105)")
                    }
                    Ok(_) => refusal.to_string(),
                };
                answer(false, None, Some(reason))
            }
        }
    })
    .unwrap_or(unknown)
}

fn answer_reachable(world: &mut World, entity: Option<Entity>, id: &str, action: MovementAction) -> Answer {
    let unknown = Answer::UnknownCreature { creature: id.to_string() };
    let Some(entity) = entity else { return unknown };
    with_move_query(world, entity, |q| {
        let mut squares: Vec<ReachableSquare> = q
            .destinations(action)
            .into_iter()
            .map(|d| ReachableSquare {
                square: d.square,
                space: d.space,
                cost: d.cost,
                metres: squares_to_metres(d.cost),
            })
            .collect();
        squares.sort_by_key(|s| (s.square.y, s.square.x));
        Answer::Reachable { creature: id.to_string(), action, allowance: q.allowance(action), squares }
    })
    .unwrap_or(unknown)
}

fn answer_path(world: &mut World, entity: Option<Entity>, id: &str, path: &[Square]) -> Answer {
    let unknown = Answer::UnknownCreature { creature: id.to_string() };
    let Some(entity) = entity else { return unknown };
    with_move_query(world, entity, |q| match walk_path(&q.world(), &q.mover, q.start, path, Default::default()) {
        Ok(route) => Answer::PathCost {
            creature: id.to_string(),
            legal: true,
            cost: route.cost,
            metres: squares_to_metres(route.cost),
            steps: route.steps,
            refusal: None,
        },
        Err(r) => Answer::PathCost {
            creature: id.to_string(),
            legal: false,
            steps: Vec::new(),
            cost: 0,
            metres: 0.0,
            refusal: Some(format!("step {} to {}: {} ({})", r.step + 1, r.square, r.blocked, r.blocked.rule())),
        },
    })
    .unwrap_or(unknown)
}

fn answer_threatened(world: &mut World, entity: Option<Entity>, id: &str) -> Answer {
    let unknown = Answer::UnknownCreature { creature: id.to_string() };
    let Some(entity) = entity else { return unknown };
    let (width, height) = {
        let field = world.resource::<Battlefield>();
        (field.width(), field.height())
    };
    let mut q = world.query::<(&Position, &Space, &Reach, &Armament, &Traits, &Feats, &Conditions)>();
    let Ok((position, space, reach, armament, traits, feats, conditions)) = q.get(world, entity) else {
        return unknown;
    };
    let armed = traits.armed_unarmed || feats.has(Feat::ImprovedUnarmedStrike);
    // A grappler or a caster in a spell of a round or more threatens nothing (004:238, 004:589).
    let squares = if conditions.threatens_nothing() {
        Vec::new()
    } else {
        threatened_squares(space.at(position.0), reach.0, &armament.0, armed, width, height)
    };
    // A flier in the air does not threaten its blind spot (004:675-680).
    let mut flight = world.query::<(&Altitude, &Heading, &Speed, &Position, &Space, &Traits, &Armament)>();
    let behind = flight.get(world, entity).map_or(
        Vec::new(),
        |(altitude, heading, speed, position, space, traits, armament)| {
            crate::rules::core::sight::unthreatened_behind(
                space.at(position.0),
                altitude.0,
                heading.0,
                speed,
                traits.all_round_vision,
                &armament.0,
            )
        },
    );
    let squares: Vec<Square> = squares.into_iter().filter(|s| !behind.contains(s)).collect();
    Answer::Threatened { creature: id.to_string(), squares }
}

fn answer_distance(world: &mut World, a: Option<Entity>, b: Option<Entity>, from: &str, to: &str) -> Answer {
    let mut q = world.query::<(&Position, &Space)>();
    let (Some(a), Some(b)) = (a, b) else {
        return Answer::UnknownCreature { creature: if a.is_none() { from.to_string() } else { to.to_string() } };
    };
    let (Ok(pa), Ok(pb)) = (q.get(world, a), q.get(world, b)) else {
        return Answer::UnknownCreature { creature: from.to_string() };
    };
    let squares = pa.1.at(pa.0.0).distance_to(pb.1.at(pb.0.0));
    Answer::Distance { from: from.to_string(), to: to.to_string(), squares, metres: squares_to_metres(squares) }
}
