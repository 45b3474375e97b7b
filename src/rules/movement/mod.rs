//! Movement and position (000-003, 004:212-262, 004:309-371): the movement actions, their allowances,
//! and the plugin that carries out [`MoveIntent`]s square by square.

pub mod cost;
pub mod lanes;
pub mod paths;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

pub use cost::{Blocked, Medium, Mover, Occupant, StepWorld};
pub use paths::{Destination, PathStep, Route, SearchRules, reachable, walk_path};

use super::RulesSystems;
use crate::rules::battlefield::Battlefield;
use crate::rules::creature::*;
use crate::rules::facts::Fact;
use crate::rules::geometry::{Footprint, Square, squares_to_metres};
use crate::rules::turns::{ActionBudget, ActionKind, MovementMade, Refusal, TurnOrder};

/// The ways to move in a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementAction {
    /// A move action: up to speed (004:214).
    Move,
    /// Two move actions: up to twice the speed, one path (000:17-18).
    DoubleMove,
    /// Run, a full-round action: x4 speed (x3 heavy), no hampered square, loses Dex to AC (004:246-251).
    Run,
    /// Withdraw, a full-round action: twice the speed, the first square does not provoke from visible foes
    /// (004:239-245).
    Withdraw,
    /// The 5-foot step: one square, never provokes (004:259-262).
    FiveFootStep,
    /// Minimum movement: one square whatever the hampering, a full-round action that provokes (000:139-144,
    /// 004:252).
    MinimumMovement,
}

impl MovementAction {
    /// All of them, in the order a player reads them.
    pub const ALL: [MovementAction; 6] = [
        MovementAction::FiveFootStep,
        MovementAction::Move,
        MovementAction::DoubleMove,
        MovementAction::Run,
        MovementAction::Withdraw,
        MovementAction::MinimumMovement,
    ];

    /// The name used in facts and scenarios.
    pub fn name(self) -> &'static str {
        match self {
            MovementAction::Move => "move",
            MovementAction::DoubleMove => "double_move",
            MovementAction::Run => "run",
            MovementAction::Withdraw => "withdraw",
            MovementAction::FiveFootStep => "five_foot_step",
            MovementAction::MinimumMovement => "minimum_movement",
        }
    }

    /// Search limits: no hampered square when running (000:94-95) or for a 5-foot step (004:261).
    pub fn search_rules(self) -> SearchRules {
        SearchRules { no_hampered: matches!(self, MovementAction::Run | MovementAction::FiveFootStep) }
    }
}

/// Squares of movement an action allows for a creature of `speed` squares.
pub fn allowance(action: MovementAction, speed: u32, run_multiplier: u32) -> u32 {
    match action {
        MovementAction::Move => speed,
        MovementAction::DoubleMove | MovementAction::Withdraw => speed * 2,
        MovementAction::Run => speed * run_multiplier,
        MovementAction::FiveFootStep | MovementAction::MinimumMovement => 1,
    }
}

/// Whether a creature may take a movement action now, given its budget, speed and state.
pub fn check_action(
    action: MovementAction,
    budget: &ActionBudget,
    speed: u32,
    conditions: &Conditions,
) -> Result<(), Refusal> {
    if !conditions.can_act() {
        return Err(Refusal::new("a helpless creature cannot move", "004:423"));
    }
    match action {
        MovementAction::Move => budget.check(ActionKind::Move).and(budget.check_movement()),
        MovementAction::DoubleMove => budget.check_double_move().and(budget.check_movement()),
        MovementAction::Run => {
            if conditions.has(Condition::Blinded) {
                return Err(Refusal::new("one cannot run without seeing where one goes", "004:250"));
            }
            budget.check(ActionKind::FullRound).and(budget.check_movement())
        }
        MovementAction::Withdraw => {
            if conditions.has(Condition::Blinded) {
                return Err(Refusal::new("a blinded creature cannot withdraw", "004:239"));
            }
            budget.check(ActionKind::FullRound).and(budget.check_movement())
        }
        MovementAction::MinimumMovement => budget.check(ActionKind::FullRound).and(budget.check_movement()),
        MovementAction::FiveFootStep => {
            if speed <= 1 {
                return Err(Refusal::new("a creature of speed 1.5 m or less cannot take a 5-foot step", "004:261"));
            }
            budget.check_five_foot_step()
        }
    }
}

/// Spends what a movement action costs.
fn spend(action: MovementAction, budget: &mut ActionBudget) {
    let kinds: &[ActionKind] = match action {
        MovementAction::Move => &[ActionKind::Move],
        MovementAction::DoubleMove => &[ActionKind::Move, ActionKind::Move],
        MovementAction::Run | MovementAction::Withdraw | MovementAction::MinimumMovement => &[ActionKind::FullRound],
        MovementAction::FiveFootStep => &[],
    };
    for kind in kinds {
        let _ = budget.spend(*kind);
    }
    budget.movement =
        if action == MovementAction::FiveFootStep { MovementMade::FiveFootStep } else { MovementMade::Moved };
}

/// Asks to move a creature.
#[derive(Message, Clone, Debug)]
pub struct MoveIntent {
    /// Who moves.
    pub creature: Entity,
    /// With which action.
    pub action: MovementAction,
    /// Where to (the north-west square of the footprint at the end).
    pub to: Square,
    /// The squares to pass through, step by step; `None` takes the cheapest path (fewest hampered squares
    /// among the cheapest).
    pub path: Option<Vec<Square>>,
}

/// A creature's body as others' movement sees it.
#[derive(Clone, Debug)]
pub struct Body {
    /// The entity.
    pub entity: Entity,
    /// Its side.
    pub faction: Faction,
    /// Where it stands.
    pub footprint: Footprint,
    /// Its size.
    pub size: Size,
    /// Helpless.
    pub helpless: bool,
    /// Its traits.
    pub traits: Traits,
}

/// The other creatures as `mover` sees them.
pub fn occupants_for(bodies: &[Body], mover: Entity, faction: &Faction) -> Vec<Occupant> {
    bodies
        .iter()
        .filter(|b| b.entity != mover)
        .map(|b| Occupant {
            footprint: b.footprint,
            size: b.size,
            ally: &b.faction == faction,
            helpless: b.helpless,
            obstructs_when_helpless: b.traits.obstructs_when_helpless,
            fills_space: b.traits.fills_space,
        })
        .collect()
}

/// The step rules' view of a creature.
pub fn mover_of(size: Size, speed: &Speed, traits: &Traits) -> Mover {
    let medium = if speed.land == 0 && speed.fly.is_some() { Medium::Fly } else { Medium::Land };
    Mover { size, medium, incorporeal: traits.incorporeal, darkvision: traits.darkvision_m > 0, charging: false }
}

/// Everything a movement query or action needs about one creature and the field.
pub struct MoveQuery<'a> {
    /// The map.
    pub field: &'a Battlefield,
    /// The others.
    pub occupants: Vec<Occupant>,
    /// The mover.
    pub mover: Mover,
    /// Where it stands.
    pub start: Footprint,
    /// Its land speed after armour and load, in squares.
    pub speed: u32,
    /// Its run multiplier.
    pub run_multiplier: u32,
}

impl MoveQuery<'_> {
    /// The step world.
    pub fn world(&self) -> StepWorld<'_> {
        StepWorld { field: self.field, occupants: &self.occupants }
    }

    /// Every square reachable with `action`, with its cost.
    pub fn reachable(&self, action: MovementAction) -> paths::ReachMap {
        let budget = allowance(action, self.speed, self.run_multiplier);
        reachable(&self.world(), &self.mover, self.start, budget, action.search_rules())
    }

    /// The route for an intent: the given path checked, or the cheapest one found; refused if too dear.
    pub fn route(&self, action: MovementAction, to: Square, path: Option<&[Square]>) -> Result<Route, Refusal> {
        let budget = allowance(action, self.speed, self.run_multiplier);
        let route = match path {
            Some(path) => {
                if path.last() != Some(&to) {
                    return Err(Refusal::new(format!("the path does not end at {to}"), "scenario"));
                }
                walk_path(&self.world(), &self.mover, self.start, path, action.search_rules()).map_err(|r| {
                    Refusal::new(format!("step {} to {}: {}", r.step + 1, r.square, r.blocked), r.blocked.rule())
                })?
            }
            None => self.reachable(action).route_to(to).ok_or_else(|| {
                Refusal::new(
                    format!("{to} cannot be reached with a {} of {} squares", action.name(), budget),
                    "000:8-22",
                )
            })?,
        };
        let cost_ok = match action {
            MovementAction::MinimumMovement => route.steps.len() == 1,
            MovementAction::FiveFootStep => route.steps.len() == 1 && route.hampered == 0,
            _ => route.cost <= budget,
        };
        if !cost_ok {
            return Err(Refusal::new(
                format!(
                    "the path costs {} squares ({} m) and a {} allows {}",
                    route.cost,
                    squares_to_metres(route.cost),
                    action.name(),
                    budget
                ),
                match action {
                    MovementAction::FiveFootStep => "004:259-261",
                    MovementAction::MinimumMovement => "000:139-144",
                    _ => "000:15-22",
                },
            ));
        }
        Ok(route)
    }
}

/// The movement chapter's systems, so other chapters can order themselves around it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MovementSystems;

/// Movement and position.
pub fn plugin(app: &mut App) {
    app.init_resource::<Battlefield>().add_message::<MoveIntent>();
    app.add_systems(Update, resolve_movement.in_set(RulesSystems::Act).in_set(MovementSystems));
}

type MoverData<'a> = (
    Entity,
    &'a CreatureId,
    &'a Faction,
    &'a Size,
    &'a Speed,
    &'a SpeedModifiers,
    &'a Encumbrance,
    &'a Traits,
    &'a Conditions,
);

/// Collects every creature's body.
pub fn bodies<'a>(
    creatures: impl Iterator<Item = (Entity, &'a Faction, &'a Size, &'a Position, &'a Conditions, &'a Traits)>,
) -> Vec<Body> {
    creatures
        .map(|(entity, faction, size, position, conditions, traits)| Body {
            entity,
            faction: faction.clone(),
            footprint: footprint(position.0, *size),
            size: *size,
            helpless: conditions.is_helpless(),
            traits: traits.clone(),
        })
        .collect()
}

/// Builds the movement view of one creature.
pub fn move_query<'a>(field: &'a Battlefield, all: &[Body], data: MoverData<'_>, position: Square) -> MoveQuery<'a> {
    let (entity, _, faction, size, speed, modifiers, encumbrance, traits, _) = data;
    MoveQuery {
        field,
        occupants: occupants_for(all, entity, faction),
        mover: mover_of(*size, speed, traits),
        start: footprint(position, *size),
        speed: land_speed(speed, modifiers, *encumbrance, traits),
        run_multiplier: run_multiplier(*encumbrance),
    }
}

/// Carries out move intents: checks the turn, the action and the path, then moves the creature square by
/// square, writing a fact for each square entered.
fn resolve_movement(
    mut intents: MessageReader<MoveIntent>,
    field: Res<Battlefield>,
    order: Res<TurnOrder>,
    mut creatures: Query<(MoverData, &mut Position, &mut ActionBudget), With<Creature>>,
    mut facts: MessageWriter<Fact>,
    mut conditions: MessageWriter<ConditionChange>,
) {
    for intent in intents.read() {
        let all = bodies(creatures.iter().map(|(d, position, _)| (d.0, d.2, d.3, position, d.8, d.7)));
        let Ok((data, position, budget)) = creatures.get(intent.creature) else { continue };
        let id = data.1.clone();
        let refuse = |refusal: Refusal| Fact::ActionRefused {
            creature: id.clone(),
            action: intent.action.name().into(),
            reason: refusal.reason,
            rule: refusal.rule,
        };
        let query = move_query(&field, &all, data, position.0);
        let checked = order
            .check_turn(intent.creature)
            .and_then(|()| check_action(intent.action, budget, query.speed, data.8))
            .and_then(|()| query.route(intent.action, intent.to, intent.path.as_deref()));
        let route = match checked {
            Ok(route) => route,
            Err(refusal) => {
                facts.write(refuse(refusal));
                continue;
            }
        };
        let from = position.0;
        let allowance = allowance(intent.action, query.speed, query.run_multiplier);
        let running = intent.action == MovementAction::Run && !data.8.has(Condition::Running);
        let Ok((_, mut position, mut budget)) = creatures.get_mut(intent.creature) else { continue };
        spend(intent.action, &mut budget);
        facts.write(Fact::MoveStarted { creature: id.clone(), action: intent.action.name().into(), from, allowance });
        for step in &route.steps {
            position.0 = step.square;
            facts.write(Fact::SquareEntered {
                creature: id.clone(),
                square: step.square,
                cost: step.cost,
                spent: step.spent,
                spent_m: squares_to_metres(step.spent),
                hampered: step.hampered,
            });
        }
        facts.write(Fact::CreatureMoved { creature: id.clone(), from, to: position.0, cost: route.cost });
        if running {
            conditions.write(ConditionChange {
                creature: intent.creature,
                condition: Condition::Running,
                gained: true,
            });
        }
    }
}
