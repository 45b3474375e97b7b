//! Movement and position (000-003, 004:212-262, 004:309-371): the movement actions, their allowances,
//! and the plugin that carries out [`MoveIntent`]s square by square.

pub mod cost;
pub mod lanes;
pub mod paths;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

pub use cost::{Blocked, Medium, Mover, Occupant, StepWorld, squeeze_width};
pub use lanes::{ChargeLane, NoCharge, charge_lanes, straight_line, straight_reachable};
pub use paths::{Danger, Destination, PathStep, Route, SearchRules, nearest, reachable, settle, walk_path};

use crate::rules::attack::AttackIntent;
use crate::rules::attack::Combatant;
use crate::rules::attack::MidAction;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Footprint, Square, squares_to_metres};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::RulesSystems;
use crate::rules::health::{Damage, Strain};
use crate::rules::opportunity::{
    Exposure, Opportunity, Provoked, Reactions, danger_of, provocations, threat_of, threats_to,
};
use crate::rules::turns::ready::{self, Readied, ReadiedAction, Trigger};
use crate::rules::turns::{ActionBudget, ActionKind, MovementMade, TurnOrder};

/// The ways to move in a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementAction {
    /// A move action: up to speed (004:214).
    Move,
    /// Two move actions: up to twice the speed, one path (000:17-18).
    DoubleMove,
    /// Run, a full-round action: x4 speed (x3 heavy), no hampered square, loses Dex to AC (004:248-251).
    Run,
    /// Withdraw, a full-round action: twice the speed, the first square does not provoke from visible foes
    /// (004:243-247).
    Withdraw,
    /// The 5-foot step: one square, never provokes (004:259-262).
    FiveFootStep,
    /// Minimum movement: one square whatever the hampering, a full-round action that provokes (000:139-144,
    /// 004:252).
    MinimumMovement,
    /// Charge, a full-round action: a straight clear lane of 2 squares to twice the speed to the nearest
    /// square from which to attack the target, then one attack at +2 (004:451-459).
    Charge,
}

impl MovementAction {
    /// All of them, in the order a player reads them.
    pub const ALL: [MovementAction; 7] = [
        MovementAction::FiveFootStep,
        MovementAction::Move,
        MovementAction::DoubleMove,
        MovementAction::Run,
        MovementAction::Withdraw,
        MovementAction::MinimumMovement,
        MovementAction::Charge,
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
            MovementAction::Charge => "charge",
        }
    }

    /// Search limits: no hampered square when running (000:94-95) or for a 5-foot step (004:261).
    pub fn search_rules(self) -> SearchRules {
        SearchRules {
            no_hampered: matches!(self, MovementAction::Run | MovementAction::FiveFootStep | MovementAction::Charge),
            odd_diagonal: false,
        }
    }
}

/// Squares of movement an action allows for a creature of `speed` squares.
pub fn allowance(action: MovementAction, speed: u32, run_multiplier: u32) -> u32 {
    match action {
        MovementAction::Move => speed,
        MovementAction::DoubleMove | MovementAction::Withdraw | MovementAction::Charge => speed * 2,
        MovementAction::Run => speed * run_multiplier,
        MovementAction::FiveFootStep | MovementAction::MinimumMovement => 1,
    }
}

/// Whether a creature may move over the ground: not a flier in the air, which moves by flying, along its
/// heading and by manoeuvres (004:671-673), unless it has perfect manoeuvrability (004:674).
/// At chase scale no creature walks: the fight is a chase of fliers over 9 m squares (our ruling,
/// docs/rulings.md).
pub fn check_grounded(
    scale: crate::rules::core::altitude::Scale,
    speed: &Speed,
    altitude: &Altitude,
) -> Result<(), Refusal> {
    if scale == crate::rules::core::altitude::Scale::Chase {
        return Err(Refusal::new(
            "at chase scale creatures fly: a walker covers no 9 m square worth playing (our ruling)",
            "004:650, docs/rulings.md",
        ));
    }
    match speed.fly {
        Some(wings) if altitude.0 > 0 && wings.maneuverability != Maneuverability::Perfect => {
            Err(Refusal::new("in the air it moves by flying: along its heading, turning by manoeuvres", "004:671-673"))
        }
        _ => Ok(()),
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
        return Err(Refusal::new("a helpless creature cannot move", "000:141-142, 004:278"));
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
                return Err(Refusal::new("a blinded creature cannot withdraw", "004:243"));
            }
            // A restricted creature withdraws with its standard action, at its speed only (004:247).
            let kind = if budget.restricted { ActionKind::Standard } else { ActionKind::FullRound };
            budget.check(kind).and(budget.check_movement())
        }
        MovementAction::MinimumMovement => budget.check(ActionKind::FullRound).and(budget.check_movement()),
        MovementAction::Charge => {
            // A restricted creature charges with its one action, at its speed only (004:456).
            let kind = if budget.restricted { ActionKind::Standard } else { ActionKind::FullRound };
            budget.check(kind).and(budget.check_movement())
        }
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
        MovementAction::Withdraw | MovementAction::MinimumMovement if budget.restricted => &[ActionKind::Standard],
        MovementAction::Run | MovementAction::Withdraw | MovementAction::MinimumMovement => &[ActionKind::FullRound],
        MovementAction::Charge if budget.restricted => &[ActionKind::Standard],
        MovementAction::Charge => &[ActionKind::FullRound],
        MovementAction::FiveFootStep => &[],
    };
    for kind in kinds {
        let _ = budget.spend(*kind);
    }
    budget.movement =
        if action == MovementAction::FiveFootStep { MovementMade::FiveFootStep } else { MovementMade::Moved };
}

/// How long a creature has kept running, and whether it must rest (004:249).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exertion {
    /// Rounds run in a row so far.
    pub rounds_run: u32,
    /// The last round it ran.
    pub last_run_round: Option<u32>,
    /// It may not move faster than one move action before this round (a minute of rest, 004:249).
    pub resting_until: Option<u32>,
}

/// What running in `round` asks of a creature of Constitution `con` (004:249): nothing during the first
/// `con` rounds in a row, then a Constitution check of DC 10, 11, 12…; refused while it rests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunDemand {
    /// It runs freely.
    Free,
    /// A Constitution check of this DC; on a failure it stops and rests 10 rounds.
    Check(u32),
    /// It is resting until that round.
    Resting(u32),
}

impl Exertion {
    /// The rounds run in a row if it runs in `round`.
    pub fn streak(&self, round: u32) -> u32 {
        if self.last_run_round == Some(round.saturating_sub(1)) && round > 1 { self.rounds_run + 1 } else { 1 }
    }

    /// What running in `round` demands.
    pub fn demand(&self, round: u32, con: i32) -> RunDemand {
        if let Some(until) = self.resting_until.filter(|&until| round < until) {
            return RunDemand::Resting(until);
        }
        match crate::rules::overland::travel::run_check_dc(con.max(0) as u32, self.streak(round)) {
            None => RunDemand::Free,
            Some(dc) => RunDemand::Check(dc),
        }
    }

    /// Whether a resting creature may take `action`: no faster than one move action (004:249).
    pub fn check_rest(&self, round: u32, action: MovementAction) -> Result<(), Refusal> {
        let fast = matches!(
            action,
            MovementAction::DoubleMove | MovementAction::Run | MovementAction::Withdraw | MovementAction::Charge
        );
        match self.resting_until {
            Some(until) if round < until && fast => Err(Refusal::new(
                format!("after running it must rest until round {until}, moving no faster than one move action"),
                "004:249",
            )),
            _ => Ok(()),
        }
    }
}

/// Rounds of rest after a failed Constitution check to keep running: one minute (004:249).
pub const RUN_REST_ROUNDS: u32 = 10;

/// Asks to move a creature.
#[derive(Message, Clone, Debug)]
pub struct MoveIntent {
    /// Who moves.
    pub creature: Entity,
    /// The creature charged, for a charge.
    pub target: Option<Entity>,
    /// With which action.
    pub action: MovementAction,
    /// Where to (the north-west square of the footprint at the end).
    pub to: Square,
    /// The squares to pass through, step by step; `None` takes the cheapest path (fewest hampered squares
    /// among the cheapest).
    pub path: Option<Vec<Square>>,
    /// A readied move set off by its trigger: out of turn, its action already spent (004:620-622).
    pub readied: bool,
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
pub fn mover_of(size: Size, speed: &Speed, traits: &Traits, skills: &Skills) -> Mover {
    let medium = if speed.land == 0 && speed.fly.is_some() { Medium::Fly } else { Medium::Land };
    Mover {
        size,
        medium,
        incorporeal: traits.incorporeal,
        darkvision: traits.darkvision_m > 0,
        charging: false,
        passes_foes: false,
        squeeze: squeeze_width(size, skills.escape_artist.is_some()),
    }
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
    /// Restricted to one action this turn: withdraw and charge cover one speed only (004:247, 004:456).
    pub restricted: bool,
    /// An odd number of plain diagonals already taken this turn.
    pub odd_diagonal: bool,
    /// The squares the foes who could strike threaten: among the cheapest paths, the search prefers the
    /// one that provokes least (004:64-71).
    pub danger: Option<paths::Danger>,
}

impl MoveQuery<'_> {
    /// The step world.
    pub fn world(&self) -> StepWorld<'_> {
        StepWorld { field: self.field, occupants: &self.occupants }
    }

    /// The search limits of `action` for this creature now.
    pub fn rules(&self, action: MovementAction) -> SearchRules {
        SearchRules { odd_diagonal: self.odd_diagonal, ..action.search_rules() }
    }

    /// Squares of movement `action` allows this creature.
    pub fn allowance(&self, action: MovementAction) -> u32 {
        match action {
            MovementAction::Withdraw | MovementAction::Charge if self.restricted => self.speed,
            _ => allowance(action, self.speed, self.run_multiplier),
        }
    }

    /// The legal charge lanes toward `target`, for a creature of natural reach `reach` wielding a melee
    /// weapon that is a reach weapon or not (004:451-459).
    pub fn charge_lanes(&self, target: Footprint, reach: u32, reach_weapon: bool) -> Result<Vec<ChargeLane>, Refusal> {
        if !self.field.line_of_sight(self.start, target) {
            return Err(Refusal::new("no line of sight to the target at the start of the turn", "004:454"));
        }
        let charger = Mover { charging: true, ..self.mover };
        let shape = self.start;
        let attack_from =
            |square: Square| crate::rules::core::reach::melee_reaches(reach, reach_weapon, shape.at(square), target);
        let world = self.world();
        charge_lanes(&world, &charger, self.start, self.allowance(MovementAction::Charge), attack_from)
            .map_err(|no| Refusal::new(no.to_string(), no.rule()))
    }

    /// The search of every square reachable with a budgeted action (move, double move, withdraw).
    pub fn reachable(&self, action: MovementAction) -> paths::ReachMap {
        paths::reachable_avoiding(
            &self.world(),
            &self.mover,
            self.start,
            self.allowance(action),
            self.rules(action),
            self.danger.as_ref(),
        )
    }

    /// Whether a route is a legal 5-foot step: one unhampered square of cost 1, not into darkness even for a
    /// creature that sees in the dark (004:261).
    fn five_foot_step_ok(&self, route: &Route) -> bool {
        route.steps.len() == 1
            && route.hampered == 0
            && route.cost == 1
            && route.end_footprint().is_some_and(|f| f.squares().all(|s| !self.field.is_dark(s)))
    }

    /// The single steps that are legal whatever their cost: the minimum movement (000:139-144).
    fn single_steps(&self) -> Vec<Route> {
        crate::rules::core::geometry::Direction::ALL
            .into_iter()
            .filter_map(|d| {
                let to = self.start.origin.step(d);
                walk_path(&self.world(), &self.mover, self.start, &[to], SearchRules::default()).ok()
            })
            .collect()
    }

    /// Every square where `action` may end, with its cost: a budgeted search for moves, straight lines
    /// for a run, single steps for the 5-foot step and the minimum movement.
    pub fn destinations(&self, action: MovementAction) -> Vec<Destination> {
        let of_route = |r: &Route| {
            let last = r.steps.last().expect("a route of one step at least");
            Destination { square: last.square, space: last.space, cost: r.cost, hampered: r.hampered }
        };
        match action {
            MovementAction::Run => straight_reachable(
                &self.world(),
                &self.mover,
                self.start,
                self.allowance(action),
                action.search_rules(),
            )
            .into_iter()
            .collect(),
            MovementAction::MinimumMovement => self.single_steps().iter().map(of_route).collect(),
            // Where a charge could end if a target stood beyond: straight clear lanes of 2 squares or more
            // (the lanes toward a given target come from `charge_lanes`).
            MovementAction::Charge => {
                let charger = Mover { charging: true, ..self.mover };
                straight_reachable(&self.world(), &charger, self.start, self.allowance(action), action.search_rules())
                    .into_iter()
                    .filter(|d| d.cost >= 2)
                    .collect()
            }
            MovementAction::FiveFootStep => {
                self.single_steps().iter().filter(|r| self.five_foot_step_ok(r)).map(of_route).collect()
            }
            _ => self.reachable(action).destinations(),
        }
    }

    /// The route for an intent: the given path checked, or the cheapest one found (a straight line for a
    /// run); refused with the rule if it is illegal or too dear.
    pub fn route(&self, action: MovementAction, to: Square, path: Option<&[Square]>) -> Result<Route, Refusal> {
        let budget = self.allowance(action);
        let refuse_path = |r: paths::PathRefused| {
            Refusal::new(format!("step {} to {}: {}", r.step + 1, r.square, r.blocked), r.blocked.rule())
        };
        let line;
        let path = match (action, path) {
            (MovementAction::Run, Some(path)) if path != straight_line(self.start.origin, to).as_slice() => {
                return Err(Refusal::new("a run goes in a straight line", "004:248"));
            }
            (MovementAction::Run, None) => {
                line = straight_line(self.start.origin, to);
                Some(line.as_slice())
            }
            (_, path) => path,
        };
        let route = match path {
            Some(path) => {
                if path.last() != Some(&to) {
                    return Err(Refusal::new(format!("the path does not end at {to}"), "scenario"));
                }
                let rules =
                    if action == MovementAction::MinimumMovement { SearchRules::default() } else { self.rules(action) };
                walk_path(&self.world(), &self.mover, self.start, path, rules).map_err(refuse_path)?
            }
            None if matches!(action, MovementAction::MinimumMovement | MovementAction::FiveFootStep) => {
                let steps = self.single_steps();
                let found = steps.into_iter().find(|r| r.end() == Some(to));
                found.ok_or_else(|| {
                    Refusal::new(format!("{to} is not a legal square one step away"), "000:139-144, 004:259")
                })?
            }
            None => self.reachable(action).route_to(to).ok_or_else(|| {
                Refusal::new(
                    format!("{to} cannot be reached with a {} of {} squares", action.name(), budget),
                    "000:8-22",
                )
            })?,
        };
        let (ok, rule) = match action {
            MovementAction::MinimumMovement => (route.steps.len() == 1, "000:139-144"),
            MovementAction::FiveFootStep => (self.five_foot_step_ok(&route), "004:259-261"),
            _ => (route.cost <= budget, "000:15-22"),
        };
        if !ok {
            return Err(Refusal::new(
                format!(
                    "the path costs {} squares ({} m) and a {} allows {}",
                    route.cost,
                    squares_to_metres(route.cost),
                    action.name(),
                    budget
                ),
                rule,
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
    app.register_required_components::<Creature, Exertion>();
    app.init_resource::<Battlefield>().add_message::<MoveIntent>();
    app.add_systems(Update, resolve_movement.in_set(RulesSystems::Act).in_set(MovementSystems));
}

/// What movement reads of a creature.
#[derive(bevy::ecs::query::QueryData)]
pub struct MoverView {
    /// The entity.
    pub entity: Entity,
    /// Its id.
    pub id: &'static CreatureId,
    /// Its side.
    pub faction: &'static Faction,
    /// Its size.
    pub size: &'static Size,
    /// The space it takes now.
    pub space: &'static Space,
    /// Where it stands.
    pub position: &'static Position,
    /// Base speeds.
    pub speed: &'static Speed,
    /// Height above the ground.
    pub altitude: &'static Altitude,
    /// Speed modifiers.
    pub speed_modifiers: &'static SpeedModifiers,
    /// Armour and load.
    pub encumbrance: &'static Encumbrance,
    /// Traits.
    pub traits: &'static Traits,
    /// Skills (Escape Artist to squeeze).
    pub skills: &'static Skills,
    /// Conditions.
    pub conditions: &'static Conditions,
    /// What is left of its turn.
    pub budget: &'static ActionBudget,
    /// Natural reach (for a charge).
    pub reach: &'static Reach,
    /// Weapons (for a charge).
    pub armament: &'static Armament,
    /// Abilities (Con to keep running).
    pub abilities: &'static Abilities,
    /// How long it has run.
    pub exertion: &'static Exertion,
    /// It rides a mount: it does not walk, and it is no obstacle of its own (004:475, 004:807).
    pub riding: Has<crate::rules::core::creature::Riding>,
}

/// Collects every creature's body.
pub fn bodies<'a>(creatures: impl Iterator<Item = MoverViewItem<'a, 'a>>) -> Vec<Body> {
    creatures
        .filter(|c| !c.riding)
        .map(|c| Body {
            entity: c.entity,
            faction: c.faction.clone(),
            footprint: c.space.at(c.position.0),
            size: *c.size,
            helpless: c.conditions.is_helpless(),
            traits: c.traits.clone(),
        })
        .collect()
}

/// Builds the movement view of one creature.
pub fn move_query<'a>(field: &'a Battlefield, all: &[Body], c: &MoverViewItem<'_, '_>) -> MoveQuery<'a> {
    MoveQuery {
        field,
        occupants: occupants_for(all, c.entity, c.faction),
        mover: mover_of(*c.size, c.speed, c.traits, c.skills),
        start: c.space.at(c.position.0),
        speed: match (mover_of(*c.size, c.speed, c.traits, c.skills).medium, c.speed.fly) {
            (Medium::Fly, Some(fly)) => fly.squares,
            _ => land_speed(c.speed, c.speed_modifiers, *c.encumbrance, c.traits),
        },
        run_multiplier: run_multiplier(*c.encumbrance),
        restricted: c.budget.restricted,
        odd_diagonal: c.budget.odd_diagonal,
        danger: None,
    }
}

/// The movers read, then written.
type MoverQueries<'w, 's> = ParamSet<
    'w,
    's,
    (
        Query<'static, 'static, MoverView, With<Creature>>,
        Query<
            'static,
            'static,
            (&'static mut Position, &'static mut Space, &'static mut ActionBudget, &'static mut Exertion),
        >,
        Query<'static, 'static, Combatant, With<Creature>>,
    ),
>;

/// Carries out move intents: checks the turn, the action and the path, then moves the creature square by
/// square, writing a fact for each square entered.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
fn resolve_movement(
    mut commands: Commands,
    mut intents: MessageReader<MoveIntent>,
    field: Res<Battlefield>,
    mut order: ResMut<TurnOrder>,
    readiers: Query<(Entity, &Readied)>,
    pending: Query<(Has<crate::rules::attack::FullAttackUnderway>, Option<&crate::rules::attack::FullRoundBegun>)>,
    mut creatures: MoverQueries<'_, '_>,
    mut dice: ResMut<crate::rules::core::dice::Dice>,
    mut facts: MessageWriter<Fact>,
    mut conditions: MessageWriter<ConditionChange>,
    mut attacks: MessageWriter<AttackIntent>,
    mut strain: MessageWriter<Strain>,
    mut reactions: Query<&mut Reactions>,
    mut damage: MessageWriter<Damage>,
    mut provoked_before: Query<&mut Provoked>,
) {
    for intent in intents.read() {
        // Among the cheapest paths the rules take the one that provokes least (004:64-71).
        let danger = {
            let combatants = creatures.p2();
            match combatants.get(intent.creature) {
                Ok(me) if intent.action != MovementAction::FiveFootStep => {
                    let threats = threats_to(
                        field.scale(),
                        &me,
                        combatants.iter(),
                        |e| reactions.get(e).copied().unwrap_or_default(),
                        &order.initiative(),
                    );
                    let already = provoked_before.get(intent.creature).map(|p| p.0.clone()).unwrap_or_default();
                    Some(danger_of(&threats, &already, field.width(), field.height()))
                }
                _ => None,
            }
        };
        let views = creatures.p0();
        let all = bodies(views.iter());
        let Ok(me) = views.get(intent.creature) else { continue };
        let id = me.id.clone();
        let mut query = move_query(&field, &all, &me);
        query.danger = danger;
        let target = intent.target.and_then(|t| views.get(t).ok()).map(|t| t.space.at(t.position.0));
        let target_height = intent.target.and_then(|t| views.get(t).ok()).map(|t| (t.altitude.0, *t.size));
        let turn = if intent.readied { Ok(()) } else { order.check_turn(intent.creature) };
        // After the first blow of a full attack, the rest may be given up for a move action; after a 5-foot
        // step that move action cannot be movement (004:232).
        let (attack_underway, begun) = pending.get(intent.creature).map_or((false, None), |(u, b)| (u, b.cloned()));
        let giving_up = attack_underway && intent.action == MovementAction::Move;
        // A restricted creature takes the minimum movement over two rounds, a standard action each
        // (004:86, 004:212): `Some(false)` begins it, `Some(true)` finishes the one begun last round.
        let over_two_rounds = (intent.action == MovementAction::MinimumMovement
            && me.budget.restricted
            && !intent.readied
            && me.budget.check(ActionKind::Standard).is_ok())
        .then(|| {
            begun.as_ref().is_some_and(|b| {
                b.action == crate::rules::attack::BegunAction::MinimumMovement { to: intent.to }
                    && b.round + 1 == order.round
            })
        });
        let budget = match (intent.readied, giving_up) {
            (true, _) => ActionBudget::fresh(),
            (false, true) if me.budget.movement == MovementMade::FiveFootStep => {
                let refusal = Refusal::new(
                    "after a 5-foot step, the move action that replaces the rest of a full attack cannot be movement",
                    "004:232",
                );
                facts.write(Fact::ActionRefused {
                    creature: id.clone(),
                    action: intent.action.name().into(),
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                continue;
            }
            (false, true) => ActionBudget { standard: false, move_action: true, ..*me.budget },
            // Checked as the full-round action it is, paid with the standard action.
            (false, false) if over_two_rounds.is_some() => ActionBudget { restricted: false, ..*me.budget },
            (false, false) => *me.budget,
        };
        let checked = turn
            .and_then(|()| {
                if me.riding {
                    Err(Refusal::new(format!("{id} rides: its mount moves, not it (it gets off first)"), "004:807"))
                } else {
                    Ok(())
                }
            })
            .and_then(|()| if intent.readied { Ok(()) } else { check_grounded(field.scale(), me.speed, me.altitude) })
            .and_then(|()| check_action(intent.action, &budget, query.speed, me.conditions))
            .and_then(|()| me.exertion.check_rest(order.round, intent.action))
            .and_then(|()| match (intent.action, target) {
                (MovementAction::Charge, None) => Err(Refusal::new("a charge needs a target", "004:451")),
                (MovementAction::Charge, Some(target)) => {
                    let reach_weapon = me.armament.0.iter().find(|w| !is_ranged(w)).is_some_and(|w| w.reach);
                    // A charge ends in a melee attack: the foe must be within reach in height (004:783-784).
                    if let Some((altitude, size)) = target_height
                        && crate::rules::core::altitude::vertical_steps(
                            field.scale(),
                            me.altitude.0,
                            *me.size,
                            altitude,
                            size,
                        ) > crate::rules::core::altitude::vertical_reach(me.reach.0, reach_weapon)
                    {
                        return Err(Refusal::new("the foe is out of reach in height for a charge", "004:783-784"));
                    }
                    let lanes = query.charge_lanes(target, me.reach.0, reach_weapon)?;
                    lanes.into_iter().find(|l| l.to == intent.to).map(|l| l.route).ok_or_else(|| {
                        Refusal::new(format!("{} is not the end of a clear charge lane", intent.to), "004:452-453")
                    })
                }
                _ => query.route(intent.action, intent.to, intent.path.as_deref()),
            });
        let route = match checked {
            Ok(route) => route,
            Err(refusal) => {
                facts.write(Fact::ActionRefused {
                    creature: id,
                    action: intent.action.name().into(),
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                continue;
            }
        };
        // Each half of it is a standard action: it costs a disabled creature 1 hit point (004:274).
        if over_two_rounds.is_some() && me.conditions.has(Condition::Disabled) {
            strain.write(Strain {
                creature: intent.creature,
                reason: "a standard action while disabled (004:274)".into(),
            });
        }
        if over_two_rounds == Some(false) {
            if let Ok((_, _, mut budget, _)) = creatures.p1().get_mut(intent.creature) {
                let _ = budget.spend(ActionKind::Standard);
            }
            facts.write(Fact::FullRoundActionBegun { creature: id, action: intent.action.name().into() });
            commands.entity(intent.creature).insert(crate::rules::attack::FullRoundBegun {
                action: crate::rules::attack::BegunAction::MinimumMovement { to: intent.to },
                round: order.round,
            });
            continue;
        }
        if over_two_rounds == Some(true) {
            commands.entity(intent.creature).remove::<crate::rules::attack::FullRoundBegun>();
        }
        let from = me.position.0;
        let size = *me.size;
        let round = order.round;
        let mut exertion = *me.exertion;
        if intent.action == MovementAction::Run {
            if let RunDemand::Check(dc) = exertion.demand(round, me.abilities.con) {
                let roll = dice.d20();
                let total = roll as i32 + ability_modifier(me.abilities.con);
                let success = total >= dc as i32;
                facts.write(Fact::CheckRolled {
                    creature: id.clone(),
                    check: "constitution".into(),
                    reason: format!("running for round {} in a row (004:249)", exertion.streak(round)),
                    roll,
                    total,
                    dc: dc as i32,
                    success,
                });
                if !success {
                    exertion =
                        Exertion { rounds_run: 0, last_run_round: None, resting_until: Some(round + RUN_REST_ROUNDS) };
                    facts.write(Fact::ActionRefused {
                        creature: id.clone(),
                        action: intent.action.name().into(),
                        reason: format!("too winded to run on: it must rest until round {}", round + RUN_REST_ROUNDS),
                        rule: "004:249".into(),
                    });
                    if let Ok((_, _, _, mut stored)) = creatures.p1().get_mut(intent.creature) {
                        *stored = exertion;
                    }
                    continue;
                }
            }
            exertion.rounds_run = exertion.streak(round);
            exertion.last_run_round = Some(round);
        }
        let allowance = query.allowance(intent.action);
        let was_squeezed = me.conditions.has(Condition::Squeezed);
        let was_tight = me.conditions.has(Condition::SqueezedTight);
        let disabled = me.conditions.has(Condition::Disabled);
        let was_running = me.conditions.has(Condition::Running);
        let running = intent.action == MovementAction::Run && !was_running;
        let tiny = size.is_smaller_than_a_square();
        let start = query.start;
        // Attacks of opportunity along the way (004:64-65): none for a 5-foot step (004:259).
        let provoked = {
            let combatants = creatures.p2();
            match combatants.get(intent.creature) {
                Ok(me) if intent.action != MovementAction::FiveFootStep => {
                    let initiative = order.initiative();
                    let threats = threats_to(
                        field.scale(),
                        &me,
                        combatants.iter(),
                        |e| reactions.get(e).copied().unwrap_or_default(),
                        &initiative,
                    );
                    let already = provoked_before.get(intent.creature).map(|p| p.0.clone()).unwrap_or_default();
                    provocations(start, &route, &threats, tiny, intent.action == MovementAction::Withdraw, &already)
                }
                _ => Vec::new(),
            }
        };
        let mut hit_points = creatures.p2().get(intent.creature).map(|c| *c.hit_points).unwrap_or_default();
        {
            let mut movers = creatures.p1();
            let Ok((_, _, mut budget, mut stored_exertion)) = movers.get_mut(intent.creature) else { continue };
            *stored_exertion = exertion;
            if !intent.readied {
                spend(intent.action, &mut budget);
                budget.odd_diagonal = route.odd_diagonal_after;
            }
            if giving_up {
                facts.write(Fact::FullAttackGivenUp { creature: id.clone() });
                commands.entity(intent.creature).remove::<crate::rules::attack::FullAttackUnderway>();
            }
        }
        facts.write(Fact::MoveStarted { creature: id.clone(), action: intent.action.name().into(), from, allowance });
        let mut taken = 0;
        let mut dropped = false;
        let mut fired: Vec<Entity> = Vec::new();
        // The mover as it is at a moment of its move: running, squeezed or not (004:248, 000:113-123).
        let running_now = intent.action == MovementAction::Run || was_running;
        let mid_action_at = |at: Footprint| {
            let tight = at.width.min(at.height) < squeeze_width(size, false);
            MidAction {
                running: running_now,
                squeezed: Space::of(at).is_squeezed(size) && !tight,
                tight,
                charging: intent.action == MovementAction::Charge,
            }
        };
        for i in 0..=route.steps.len() {
            for provocation in provoked.iter().filter(|p| p.after_steps == i) {
                let at = if i == 0 { start } else { route.steps[i - 1].footprint() };
                let mid = mid_action_at(at);
                if let Ok(mut provoked) = provoked_before.get_mut(intent.creature) {
                    provoked.0.extend(provocation.from.iter().copied());
                }
                let combatants = creatures.p2();
                let mut strike = Opportunity {
                    field: &field,
                    creatures: &combatants,
                    dice: &mut dice,
                    facts: &mut facts,
                    damage: &mut damage,
                };
                let struck = strike.strike(
                    intent.creature,
                    Exposure { at, why: provocation.reason, mid_action: mid },
                    &provocation.from,
                    &mut hit_points,
                    |foe| {
                        if let Ok(mut r) = reactions.get_mut(foe) {
                            r.used += 1;
                        }
                    },
                );
                if struck.dropped {
                    dropped = true;
                    break;
                }
            }
            if dropped {
                break;
            }
            let Some(step) = route.steps.get(i) else { break };
            let mut movers = creatures.p1();
            let Ok((mut position, mut space, _, _)) = movers.get_mut(intent.creature) else { break };
            position.0 = step.square;
            *space = Space { width: step.space.0, height: step.space.1 };
            facts.write(Fact::SquareEntered {
                creature: id.clone(),
                square: step.square,
                cost: step.cost,
                spent: step.spent,
                spent_m: squares_to_metres(step.spent),
                hampered: step.hampered,
                space: step.space,
            });
            taken = i + 1;
            // A foe who readied an attack for a creature stepping into its reach strikes now (004:621).
            let here = step.footprint();
            let before = if i == 0 { start } else { route.steps[i - 1].footprint() };
            let combatants = creatures.p2();
            let Ok(mover) = combatants.get(intent.creature) else { break };
            let setting_off: Vec<(Entity, Option<String>)> = readiers
                .iter()
                .filter(|(e, r)| r.trigger == Trigger::EntersThreatened && !fired.contains(e) && *e != intent.creature)
                .filter_map(|(e, r)| combatants.get(e).ok().map(|c| (c, r)))
                .filter(|(c, _)| c.faction != mover.faction && c.conditions.can_act())
                .filter(|(c, _)| {
                    let threat = threat_of(c);
                    here.squares().any(|s| threat.threatens(s)) && !before.squares().any(|s| threat.threatens(s))
                })
                .map(|(c, r)| {
                    let weapon = match &r.action {
                        ReadiedAction::Attack { weapon, .. } => weapon.clone(),
                        ReadiedAction::Move { .. } | ReadiedAction::DropProne => None,
                    };
                    (c.entity, weapon)
                })
                .collect();
            for (readier, weapon) in setting_off {
                fired.push(readier);
                commands.entity(readier).remove::<Readied>();
                ready::move_before(&mut order, readier, intent.creature);
                let mid = mid_action_at(here);
                let combatants = creatures.p2();
                let mut strike = Opportunity {
                    field: &field,
                    creatures: &combatants,
                    dice: &mut dice,
                    facts: &mut facts,
                    damage: &mut damage,
                };
                let down =
                    strike.strike_readied(readier, intent.creature, here, mid, weapon.as_deref(), &mut hit_points);
                facts.write(Fact::InitiativeOrdered { order: order.entries.iter().map(|e| e.id.clone()).collect() });
                if down {
                    dropped = true;
                    break;
                }
            }
            if dropped {
                break;
            }
        }
        let mut movers = creatures.p1();
        let Ok((mut position, mut space, _, _)) = movers.get_mut(intent.creature) else { continue };
        if dropped {
            // It stops where it dropped, or on the last square of its path where it may lie (000:126-129).
            let rest = settle(start, &route, taken);
            position.0 = rest.origin;
            *space = Space::of(rest);
            facts.write(Fact::MoveInterrupted {
                creature: id.clone(),
                at: rest.origin,
                reason: "dropped by an attack in the middle of its move (004:70, 004:621)".into(),
            });
        }
        let cost = if taken == 0 { 0 } else { route.steps[taken - 1].spent };
        facts.write(Fact::CreatureMoved { creature: id.clone(), from, to: position.0, cost });
        let tight = space.width.min(space.height) < squeeze_width(size, false);
        let squeezed = space.is_squeezed(size) && !tight;
        if squeezed != was_squeezed {
            conditions.write(ConditionChange {
                creature: intent.creature,
                condition: Condition::Squeezed,
                gained: squeezed,
            });
        }
        if tight != was_tight {
            conditions.write(ConditionChange {
                creature: intent.creature,
                condition: Condition::SqueezedTight,
                gained: tight,
            });
        }
        // A disabled creature that takes a standard action loses 1 hit point (004:274): its restricted
        // withdraw is one (the restricted charge pays it with its attack).
        if disabled && intent.action == MovementAction::Withdraw && !dropped {
            strain.write(Strain {
                creature: intent.creature,
                reason: "a standard action while disabled (004:274)".into(),
            });
        }
        if running {
            conditions.write(ConditionChange {
                creature: intent.creature,
                condition: Condition::Running,
                gained: true,
            });
        }
        if let (MovementAction::Charge, Some(target), false) = (intent.action, intent.target, dropped) {
            conditions.write(ConditionChange {
                creature: intent.creature,
                condition: Condition::Charging,
                gained: true,
            });
            attacks.write(AttackIntent { charge: true, ..AttackIntent::new(intent.creature, target, None) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_costs_a_con_check_after_con_rounds_004_249() {
        let mut e = Exertion::default();
        for round in 1..=3 {
            assert_eq!(e.demand(round, 3), RunDemand::Free, "round {round}");
            e.rounds_run = e.streak(round);
            e.last_run_round = Some(round);
        }
        assert_eq!(e.demand(4, 3), RunDemand::Check(10));
        e.rounds_run = e.streak(4);
        e.last_run_round = Some(4);
        assert_eq!(e.demand(5, 3), RunDemand::Check(11), "one more each round");
        assert_eq!(e.demand(7, 3), RunDemand::Free, "a round without running starts afresh");
        let resting = Exertion { resting_until: Some(15), ..Exertion::default() };
        assert_eq!(resting.demand(6, 3), RunDemand::Resting(15));
        assert!(resting.check_rest(6, MovementAction::DoubleMove).is_err());
        assert!(resting.check_rest(6, MovementAction::Move).is_ok());
        assert!(resting.check_rest(15, MovementAction::Run).is_ok());
    }
}
