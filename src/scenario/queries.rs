//! The questions a scenario may ask of the state between commands (which squares a move reaches, what a path
//! costs, where a charge may go, what a creature threatens, how far apart two are, a creature's sheet), and
//! their answers, written to the event log in place.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::encounter::sheet_of;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::{Square, squares_to_metres};
use crate::rules::core::kept::kept;
use crate::rules::core::reach::threatened_squares;
use crate::rules::movement::{MovementAction, walk_path};

fn default_move() -> MovementAction {
    MovementAction::Move
}

/// A question about the state, answered at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Question {
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

/// Answers a question about the state now.
pub fn answer(world: &mut World, question: &Question) -> Answer {
    let roster = world.resource::<Roster>().clone();
    let entity = |id: &str| roster.get(id);
    match question {
        Question::ChargeLanes { creature, target } => match (entity(creature), entity(target)) {
            // The lanes as the game offers them: the charge's own checks first (a flier in the air, the
            // action left, sight, a melee weapon, the height), as the preview asks them.
            (Some(c), Some(t)) => match crate::preview::charge_lanes(world, (c, None), t) {
                Ok(lanes) => {
                    Answer::ChargeLanes { creature: creature.clone(), target: target.clone(), lanes, refusal: None }
                }
                Err(r) => Answer::ChargeLanes {
                    creature: creature.clone(),
                    target: target.clone(),
                    lanes: Vec::new(),
                    refusal: Some(r.to_string()),
                },
            },
            (None, _) => Answer::UnknownCreature { creature: creature.clone() },
            (_, None) => Answer::UnknownCreature { creature: target.clone() },
        },
        Question::Path { creature, action, to } => {
            let id = creature.clone();
            match entity(creature).and_then(|e| {
                let open = action_open(world, e, *action);
                crate::preview::with_move_query(world, e, true, |q, _| {
                    (open.and_then(|()| q.route(*action, *to, None)), q.start)
                })
                .map(|r| (e, r))
            }) {
                Some((e, (Ok(route), start))) => {
                    let provokes = provocations_along(world, e, start, &route, *action);
                    Answer::Path { creature: id, action: *action, to: *to, route: Some(route), provokes, refusal: None }
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
            }
        }
        Question::WhyNot { creature, action, square } => {
            answer_why_not(world, entity(creature), creature, *action, *square)
        }
        Question::Reachable { creature, action } => answer_reachable(world, entity(creature), creature, *action),
        Question::PathCost { creature, path } => answer_path(world, entity(creature), creature, path),
        Question::Threatened { creature } => answer_threatened(world, entity(creature), creature),
        Question::Distance { from, to } => answer_distance(world, entity(from), entity(to), from, to),
        Question::Sheet { creature } => match entity(creature).and_then(|e| sheet_of(world, e)) {
            Some(sheet) => Answer::Sheet { creature: creature.clone(), sheet },
            None => Answer::UnknownCreature { creature: creature.clone() },
        },
    }
}

fn with_move_query<T>(
    world: &mut World,
    entity: Entity,
    f: impl FnOnce(&crate::rules::movement::MoveQuery<'_>) -> T,
) -> Option<T> {
    crate::preview::with_move_query(world, entity, false, |query, _| f(query))
}

/// Whether `action` is open to `entity` now, as the board and the move ask it first (the turn's actions
/// left, its conditions, its rest after a run: 004:259, 000:17-18, 004:81, 004:249). A creature whose turn it
/// is not is asked as at the start of a turn of its own (`preview::with_move_query_as`).
fn action_open(
    world: &mut World,
    entity: Entity,
    action: MovementAction,
) -> Result<(), crate::rules::core::refusal::Refusal> {
    crate::preview::with_move_query(world, entity, false, |query, me| crate::preview::action_open(query, me, action))
        .unwrap_or(Ok(()))
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
    // A turned undead may not move nearer its turner (004:549), however open the square.
    if let Err(refusal) = crate::rules::special::turning::fleeing(world, entity, square) {
        let reason = Some(refusal.to_string());
        return Answer::WhyNot { creature: id.to_string(), action, square, reachable: false, cost: None, reason };
    }
    if let Err(refusal) = action_open(world, entity, action) {
        let reason = Some(refusal.to_string());
        return Answer::WhyNot { creature: id.to_string(), action, square, reachable: false, cost: None, reason };
    }
    with_move_query(world, entity, |q| {
        let answer = |reachable, cost, reason| Answer::WhyNot {
            creature: id.to_string(),
            action,
            square,
            reachable,
            cost,
            reason,
        };
        if let Some(d) = q.destinations(action).into_iter().find(|d| d.square == square) {
            return answer(true, Some(d.cost), None);
        }
        match q.route(action, square, None) {
            Ok(route) => answer(true, Some(route.cost), None),
            // The move's own refusal, which says what stands in the way on the square itself first.
            Err(refusal) => answer(false, None, Some(refusal.to_string())),
        }
    })
    .unwrap_or(unknown)
}

fn answer_reachable(world: &mut World, entity: Option<Entity>, id: &str, action: MovementAction) -> Answer {
    let unknown = Answer::UnknownCreature { creature: id.to_string() };
    let Some(entity) = entity else { return unknown };
    let open = action_open(world, entity, action).is_ok();
    let answer = with_move_query(world, entity, |q| {
        let mut squares: Vec<ReachableSquare> = q
            .destinations(action)
            .into_iter()
            .filter(|_| open)
            .map(|d| ReachableSquare {
                square: d.square,
                space: d.space,
                cost: d.cost,
                metres: squares_to_metres(d.cost),
            })
            .collect();
        squares.sort_by_key(|s| (s.square.y, s.square.x));
        Answer::Reachable { creature: id.to_string(), action, allowance: q.allowance(action), squares }
    });
    match answer {
        // A turned undead may end its move only farther from its turner (004:549).
        Some(Answer::Reachable { creature, action, allowance, mut squares }) => {
            squares.retain(|s| crate::rules::special::turning::fleeing(world, entity, s.square).is_ok());
            Answer::Reachable { creature, action, allowance, squares }
        }
        other => other.unwrap_or(unknown),
    }
}

fn answer_path(world: &mut World, entity: Option<Entity>, id: &str, path: &[Square]) -> Answer {
    let unknown = Answer::UnknownCreature { creature: id.to_string() };
    let Some(entity) = entity else { return unknown };
    // The diagonals counted on from the turn's moves so far (RULES-INDEX ruling), as the move would count them.
    let rules = |q: &crate::rules::movement::MoveQuery| q.rules(crate::rules::movement::MovementAction::Move);
    with_move_query(world, entity, |q| match walk_path(&q.world(), &q.mover, q.start, path, rules(q)) {
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
    let (width, height, diagonals) = {
        let field = world.resource::<Battlefield>();
        (field.width(), field.height(), field.diagonals())
    };
    let mut q = kept::<
        (
            &Position,
            &Space,
            &Reach,
            &Armament,
            &Traits,
            &Feats,
            &Conditions,
            Has<crate::rules::core::creature::HoldingCharge>,
            Option<&crate::rules::core::creature::Seat>,
        ),
        (),
    >(world);
    let Ok((position, space, reach, armament, traits, feats, conditions, holding, seat)) = q.get(world, entity) else {
        return unknown;
    };
    // A rider high on a Huge mount threatens only with a reach weapon, beside its mount (004:814).
    let high = seat.is_some_and(|s| s.high);
    let armed = crate::rules::core::creature::armed_unarmed(traits, feats, holding);
    // A grappler or a caster in a spell of a round or more threatens nothing (004:238, 004:589).
    let squares = if conditions.threatens_nothing() {
        Vec::new()
    } else {
        threatened_squares(diagonals, (space.at(position.0), high), reach.0, &armament.0, armed, width, height)
    };
    // A flier in the air does not threaten its blind spot (004:675-680).
    let mut flight = kept::<
        (
            &Altitude,
            &Heading,
            (&Speed, Has<crate::rules::core::creature::Hovering>),
            &Position,
            &Space,
            &Traits,
            &Armament,
        ),
        (),
    >(world);
    let behind = flight.get(world, entity).map_or(
        Vec::new(),
        |(altitude, heading, (speed, hovering), position, space, traits, armament)| {
            crate::rules::core::sight::unthreatened_behind(
                space.at(position.0),
                (altitude.0, heading.0),
                (speed, hovering),
                traits.all_round_vision,
                &armament.0,
            )
        },
    );
    let squares: Vec<Square> = squares.into_iter().filter(|s| !behind.contains(s)).collect();
    Answer::Threatened { creature: id.to_string(), squares }
}

fn answer_distance(world: &mut World, a: Option<Entity>, b: Option<Entity>, from: &str, to: &str) -> Answer {
    let (scale, diagonals) = (world.resource::<Battlefield>().scale(), world.resource::<Battlefield>().diagonals());
    let mut q = kept::<(&Position, &Space, &Altitude), ()>(world);
    let (Some(a), Some(b)) = (a, b) else {
        return Answer::UnknownCreature { creature: if a.is_none() { from.to_string() } else { to.to_string() } };
    };
    let (Ok(pa), Ok(pb)) = (q.get(world, a), q.get(world, b)) else {
        return Answer::UnknownCreature { creature: from.to_string() };
    };
    let (own, theirs) = (pa.1.at(pa.0.0), pb.1.at(pb.0.0));
    let squares = own.distance_to(theirs, diagonals);
    // Heights count (004:781-784): the metres are the distance ranged attacks and spells measure.
    let metres = crate::rules::core::altitude::separation_m(scale, diagonals, (own, pa.2.0), (theirs, pb.2.0));
    Answer::Distance { from: from.to_string(), to: to.to_string(), squares, metres }
}
