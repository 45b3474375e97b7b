//! The movement actions (004:212-262, 000:13-22, 000:139-144): a move, a double move, a run, a withdrawal,
//! a charge's movement, the 5-foot step and the minimum movement, each checked against what is left of the
//! turn, paid for, then carried out square by square. What others do about a creature moving past them is
//! not written here: each moment of the move is an event ([`Moving`]) that later chapters observe (the
//! attacks of opportunity and the readied attacks), and a mover they drop stops where it is.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::{
    ActionBudget, ActionKind, BegunAction, ChargeDie, FullAttackUnderway, FullRoundBegun, MidAction, MovementMade,
    Strain, TurnOrder,
};
use crate::rules::core::altitude::{vertical_reach, vertical_steps};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Footprint, Square, squares_to_metres};
use crate::rules::core::kept::kept;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::movement::{
    ChargeLane, Danger, Medium, MoveQuery, MovementAction, Route, check_grounded, medium_of, mover_of, occupants_for,
    posture_allows, settle, squeeze_width,
};

/// The movement actions.
pub(super) fn plugin(app: &mut App) {
    app.register_required_components::<Creature, Exertion>()
        .register_required_components::<Creature, Travelled>()
        .register_required_components::<Creature, Trail>();
    app.add_message::<MoveIntent>().add_message::<ChargeEnded>().add_message::<ComeToRest>();
    app.add_systems(Rules, resolve_movement.in_set(RulesSystems::Act).in_set(MovementSystems));
    app.add_systems(Rules, come_to_rest.in_set(RulesSystems::Turns).in_set(RestSystems));
}

/// Placing the creatures come to rest, last of the round's turn systems: the chapters whose creatures fall
/// (flight, riding) order their falls before it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RestSystems;

/// A creature that came down to the ground without choosing where (a fall): it must stand where the rules
/// let a move end, or be placed on the nearest space that does (000:126-129).
#[derive(Message, Clone, Debug)]
pub struct ComeToRest {
    /// Who came down.
    pub creature: Entity,
    /// Why, with the rule, for the log.
    pub reason: String,
}

/// Places each creature come to rest on the nearest legal space if it may not stay where it came down
/// (000:126-129), a tie broken by a die (000:63-65).
fn come_to_rest(
    mut resting: MessageReader<ComeToRest>,
    field: Res<Battlefield>,
    mut dice: ResMut<crate::rules::core::dice::Dice>,
    mut creatures: ParamSet<(Query<MoverView>, Query<&mut Position>)>,
    mut facts: MessageWriter<Fact>,
) {
    for ComeToRest { creature, reason } in resting.read().cloned().collect::<Vec<_>>() {
        let placed = {
            let view = creatures.p0();
            let Ok(c) = view.get(creature) else { continue };
            let all = unshared_bodies(field.scale(), bodies(view.iter()), *c.size);
            if c.riding || c.altitude.0 > 0 {
                continue;
            }
            let query = move_query(&field, &all, &c);
            let world = crate::rules::movement::StepWorld { field: &field, occupants: &query.occupants };
            let from = query.start;
            crate::rules::movement::nearest_legal_space(&world, &query.mover, from, &mut dice)
                .filter(|to| *to != from)
                .map(|to| (c.id.clone(), from.origin, to.origin))
        };
        if let Some((id, from, to)) = placed
            && let Ok(mut position) = creatures.p1().get_mut(creature)
        {
            position.0 = to;
            facts.write(Fact::Displaced { creature: id, from, to, reason });
        }
    }
}

/// Whether a creature may take a movement action now, given its budget, speed and state, and its rest after
/// a run in `round` (004:249): the one predicate of the move, its previews, the AI's options and the queries.
pub fn check_action(
    action: MovementAction,
    budget: &ActionBudget,
    speed: u32,
    conditions: &Conditions,
    (exertion, round): (&Exertion, u32),
) -> Result<(), Refusal> {
    crate::rules::core::creature::within_the_fight(conditions)?;
    let moved = budget.movement == MovementMade::Moved && budget.going_on.is_none();
    exertion.check_rest(round, action, moved)?;
    if !conditions.can_act() {
        return Err(Refusal::new("a helpless creature cannot move", "000:141-142, 004:278"));
    }
    posture_allows(action, conditions.has(Condition::Prone))?;
    if conditions.has(Condition::OffBalance) {
        return Err(Refusal::new(
            "floundering in the water, its Swim check failed, it makes no headway this round",
            "004:645",
        ));
    }
    if conditions.has(Condition::Grappling) {
        return Err(Refusal::new(
            "grappling, it moves only by winning a grapple check, or escapes first",
            "004:591, 004:602",
        ));
    }
    match action {
        _ if paid_already(action, budget) => budget.idle().map_or(Ok(()), Err).and(budget.check_movement()),
        MovementAction::Move | MovementAction::Crawl => budget.check(ActionKind::Move).and(budget.check_movement()),
        MovementAction::DoubleMove => budget.check_double_move().and(budget.check_movement()),
        MovementAction::Run | MovementAction::Charge if conditions.has(Condition::Fatigued) => {
            Err(Refusal::new("fatigued, it can neither run nor charge", "003:71"))
        }
        MovementAction::Run => {
            if conditions.has(Condition::Blinded) {
                return Err(Refusal::new("one cannot run without seeing where one goes", "004:250"));
            }
            budget.check_full_round().and(budget.check_movement())
        }
        MovementAction::Withdraw => {
            if conditions.has(Condition::Blinded) {
                return Err(Refusal::new("a blinded creature cannot withdraw", "004:243"));
            }
            // A restricted creature withdraws with its standard action, at its speed only (004:247).
            budget.check_full_round_or_one_action().and(budget.check_movement())
        }
        // The minimum movement is for a creature slowed below a square, not one that cannot move (000:141-142).
        MovementAction::MinimumMovement if speed == 0 => {
            Err(Refusal::new("a creature of speed 0 cannot move at all", "000:141-142"))
        }
        MovementAction::MinimumMovement => budget.check_full_round().and(budget.check_movement()),
        MovementAction::Charge => {
            // A restricted creature charges with its one action, at its speed only (004:456).
            budget.check_full_round_or_one_action().and(budget.check_movement())
        }
        MovementAction::FiveFootStep => {
            crate::rules::movement::five_foot_step_speed(speed)?;
            budget.check_five_foot_step()
        }
    }
}

/// Whether `action` is a move whose action was taken already: the move going on after an overrun's passage
/// (004:535), or the move (or crawl) a weapon drawn or a shield handled before it is combined with
/// (004:219, 004:221). It takes no action more, but is still an action (a stunned creature takes none).
fn paid_already(action: MovementAction, budget: &ActionBudget) -> bool {
    (action == MovementAction::Move && budget.going_on.is_some())
        || (matches!(action, MovementAction::Move | MovementAction::Crawl) && budget.move_with_draw)
}

/// Spends what a movement action costs: nothing for a move paid already ([`paid_already`]), the overrun's
/// going on before the draw's.
fn spend(action: MovementAction, budget: &mut ActionBudget) {
    if paid_already(action, budget) {
        if !(action == MovementAction::Move && budget.going_on.take().is_some()) {
            budget.move_with_draw = false;
        }
        budget.movement = MovementMade::Moved;
        return;
    }
    let kinds: &[ActionKind] = match action {
        MovementAction::Move | MovementAction::Crawl => &[ActionKind::Move],
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
        match crate::rules::turns::moving::run_check_dc(con.max(0) as u32, self.streak(round)) {
            None => RunDemand::Free,
            Some(dc) => RunDemand::Check(dc),
        }
    }

    /// Whether a resting creature may take `action`, having `moved` already this turn: no faster than one
    /// move action (004:249), so no second move after a first either, which would go as far as a double move.
    pub fn check_rest(&self, round: u32, action: MovementAction, moved: bool) -> Result<(), Refusal> {
        let fast = matches!(
            action,
            MovementAction::DoubleMove | MovementAction::Run | MovementAction::Withdraw | MovementAction::Charge
        ) || (moved && action == MovementAction::Move);
        match self.resting_until {
            Some(until) if round < until && fast => Err(Refusal::new(
                format!("after running it must rest until round {until}, moving no faster than one move action"),
                "004:249",
            )),
            _ => Ok(()),
        }
    }
}

/// Runs on in `round` (004:249), a creature of Constitution `con`: free its Constitution score's rounds
/// in a row, then a Constitution check of DC 10, one more each round after (its roll written to `facts`);
/// failed, it stops and must rest a minute (the refusal). The run action on foot and a flight at top
/// speed, the run action in the air (004:694, 004:707), count the same.
pub fn keep_running(
    exertion: &mut Exertion,
    (round, con): (u32, i32),
    id: &CreatureId,
    (dice, facts): (&mut crate::rules::core::dice::Dice, &mut MessageWriter<Fact>),
) -> Result<(), Refusal> {
    if let RunDemand::Check(dc) = exertion.demand(round, con) {
        let roll = dice.d20();
        let total = roll as i32 + ability_modifier(con);
        let success = total >= dc as i32;
        facts.write(Fact::CheckRolled {
            creature: id.clone(),
            check: crate::rules::core::names::Check::Constitution,
            reason: format!("running for round {} in a row (004:249)", exertion.streak(round)),
            roll,
            total,
            dc: dc as i32,
            success,
        });
        if !success {
            *exertion = Exertion { rounds_run: 0, last_run_round: None, resting_until: Some(round + RUN_REST_ROUNDS) };
            return Err(Refusal::new(
                format!("too winded to run on: it must rest until round {}", round + RUN_REST_ROUNDS),
                "004:249",
            ));
        }
    }
    exertion.rounds_run = exertion.streak(round);
    exertion.last_run_round = Some(round);
    Ok(())
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
    /// What a charge ends in.
    pub finish: ChargeFinish,
    /// The weapon a charge's attack strikes with, if named (else its first melee weapon ready).
    pub weapon: Option<String>,
    /// Tumbling (000:78-79): at half speed, through foes' spaces, a Tumble check in place of each foe's
    /// attack of opportunity.
    pub tumble: bool,
}

/// What a charge ends in: its one melee attack (004:457), a special attack made in its place (a trip, a
/// disarm, a sunder: « en remplacement d'une attaque de corps à corps », 004:483, 004:490, 004:499), or a
/// bull rush (004:446, 004:458) or an overrun (004:533), which enter the foe's space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChargeFinish {
    /// One melee attack at +2.
    #[default]
    Attack,
    /// A bull rush at +2 on the Strength check; `stay` if the charger does not follow its push (004:449).
    BullRush {
        /// It does not follow the foe it pushes.
        #[serde(default)]
        stay: bool,
    },
    /// An overrun at +2 on the Strength check, the charge going on through the foe (004:533-534).
    Overrun,
    /// A trip in place of the attack: its touch attack at +2 (004:457, 004:484), with the weapon named (a
    /// trip weapon) or unarmed.
    Trip,
    /// A disarm in place of the attack: its opposed attack roll at +2 (004:457, 004:493).
    Disarm,
    /// A sunder in place of the attack, of the foe's weapon or its `shield`: its opposed attack roll at +2
    /// (004:457, 004:501).
    Sunder {
        /// The foe's shield rather than its weapon.
        #[serde(default)]
        shield: bool,
    },
}

impl ChargeFinish {
    /// Whether the charge ends in the foe's space, a bull rush or an overrun (004:447, 004:533), so next to
    /// it; else it ends within reach of its blow.
    pub fn enters(self) -> bool {
        matches!(self, ChargeFinish::BullRush { .. } | ChargeFinish::Overrun)
    }
}

/// How far a creature has moved in the round of its turn, in squares of movement as a move pays them: what
/// a bull rush's follow may not exceed (004:449).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Travelled {
    /// The round of the moves counted.
    pub round: u32,
    /// Squares paid.
    pub squares: u32,
    /// Squares of distance covered, whatever the ground made them cost ([`Route::distance`]): how far it
    /// went (« se déplace de plus de 1,50 mètre », 004:477).
    pub distance: u32,
    /// The squares one move action allowed it at its last move: its speed then.
    pub speed: u32,
    /// The move actions its movement took this round: two for a double move or a withdrawal, one for a
    /// move or a crawl (a run or a charge counts by its own kind and its squares).
    pub moves: u32,
}

/// How far a creature went in a round, as the rider on its back feels it (004:479-480).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// No further than one move action takes it: its speed (« au maximum d'une distance correspondant à
    /// sa vitesse de déplacement », 004:480).
    WithinSpeed,
    /// Further than its speed (004:480).
    BeyondSpeed,
    /// A run (004:479-480).
    Ran,
}

impl Travelled {
    /// Its pace in `round` by the distance it went (004:480), its last move being `last`.
    pub fn pace(&self, round: u32, last: Option<&LastMove>) -> Pace {
        if last.is_some_and(|m| m.round == round && m.action == MovementAction::Run) {
            Pace::Ran
        } else if self.in_round(round) > self.speed {
            Pace::BeyondSpeed
        } else {
            Pace::WithinSpeed
        }
    }

    /// Whether its movement in `round` was a double move (« un double déplacement », 004:479): two move
    /// actions of movement, one double move or two moves, or movement beyond its speed (a long charge).
    pub fn double_move(&self, round: u32) -> bool {
        self.round == round && (self.moves >= 2 || self.squares > self.speed)
    }

    /// The squares paid in `round`.
    pub fn in_round(&self, round: u32) -> u32 {
        if self.round == round { self.squares } else { 0 }
    }

    /// The squares of distance covered in `round`, whatever they cost.
    pub fn distance_in(&self, round: u32) -> u32 {
        if self.round == round { self.distance } else { 0 }
    }

    /// The move actions its movement took in `round`.
    pub fn moves_in(&self, round: u32) -> u32 {
        if self.round == round { self.moves } else { 0 }
    }

    /// Counts a move of `action` paying `squares` for `distance` in `round`, a move action allowing `speed`
    /// squares.
    pub fn record(&mut self, round: u32, action: MovementAction, (squares, distance): (u32, u32), speed: u32) {
        let moves = match action {
            MovementAction::Move | MovementAction::Crawl => 1,
            MovementAction::DoubleMove | MovementAction::Withdraw => 2,
            MovementAction::Run
            | MovementAction::Charge
            | MovementAction::FiveFootStep
            | MovementAction::MinimumMovement => 0,
        };
        self.add(round, squares, distance);
        self.speed = speed;
        self.moves += moves;
    }

    /// Adds `squares` paid for `distance` in `round`.
    pub fn add(&mut self, round: u32, squares: u32, distance: u32) {
        let moves = if self.round == round { self.moves } else { 0 };
        *self = Travelled {
            round,
            squares: self.in_round(round) + squares,
            distance: self.distance_in(round) + distance,
            speed: self.speed,
            moves,
        };
    }
}

/// The squares a creature stood on along its movement of a round, each with the squares of movement it had
/// paid to reach them: where its rider's ranged attack during its double move or run is made, « au moment
/// où la monture a parcouru la moitié de son déplacement » (004:479).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Trail {
    /// The round of the marks.
    pub round: u32,
    /// Where it stood, with the squares paid in the round to get there, in order; the first where it began.
    pub marks: Vec<(Footprint, u32)>,
}

impl Trail {
    /// Counts a move in `round` from `from` through `steps`, each where it stood and the squares paid in this
    /// move to get there.
    pub fn extend(&mut self, round: u32, from: Footprint, steps: impl IntoIterator<Item = (Footprint, u32)>) {
        if self.round != round || self.marks.is_empty() {
            *self = Trail { round, marks: vec![(from, 0)] };
        }
        let before = self.marks.last().map_or(0, |m| m.1);
        self.marks.extend(steps.into_iter().map(|(at, paid)| (at, before + paid)));
    }

    /// Where it stood in `round` once it had paid half of the movement it paid in that round (the first
    /// square reached with at least half paid), if it moved.
    pub fn halfway(&self, round: u32) -> Option<Footprint> {
        let total = self.marks.last().filter(|m| self.round == round && m.1 > 0)?.1;
        self.marks.iter().find(|m| m.1 * 2 >= total).map(|m| m.0)
    }
}

/// The movement action of a creature's last move, and its round: a rider's attacks read its mount's
/// (004:477, 004:479).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastMove {
    /// The round.
    pub round: u32,
    /// The turn it was made in ([`TurnOrder::turns_begun`]): a mount's move carries its rider's act only in
    /// the turn it moved in (004:474).
    pub turn: u64,
    /// The action.
    pub action: MovementAction,
    /// The foe it charged, if a charge.
    pub charged: Option<Entity>,
}

/// What a rider did this round that its mount's pace must keep to, kept on the mount (004:477-480). A
/// rider's action is judged by the pace its mount has when it is taken; the mount may not then go beyond
/// what that judgement allowed (our ruling, docs/rulings.md): after a full melee attack no further than
/// 1.5 m in the round (004:477); after a shot made at less than a double move, no double move nor run
/// (004:479); after a spell cast standing, no further than its speed, and after one cast once it moved,
/// no further at all, which would be casting in the middle of its move (004:480).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiderActed {
    /// The round.
    pub round: u32,
    /// What the rider did.
    pub act: RiderAct,
    /// The squares the mount had paid this round when its rider acted.
    pub squares: u32,
    /// The mount's pace then.
    pub pace: Pace,
    /// Whether its movement then was a double move (004:479).
    pub double_move: bool,
}

/// A rider's action that binds its mount's pace (004:477-480).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiderAct {
    /// A full attack in melee (004:477).
    FullMelee,
    /// A ranged attack (004:479).
    Ranged,
    /// A spell (004:480).
    Spell,
    /// A spell cast between two moves of the mount, with its Concentration check (004:480).
    SpellBetweenMoves,
}

impl RiderActed {
    /// What a mount that went as `travelled` says when its rider acts in `round`.
    pub fn new(round: u32, act: RiderAct, travelled: Option<&Travelled>, last: Option<&LastMove>) -> Self {
        let travelled = travelled.copied().unwrap_or(Travelled { round, ..Travelled::default() });
        RiderActed {
            round,
            act,
            squares: travelled.in_round(round),
            pace: travelled.pace(round, last),
            double_move: travelled.double_move(round),
        }
    }
}

/// Whether a mount that went as `travelled` this round (`round`), its rider having acted as `acted`, may make
/// a move of `action` paying `cost` squares more for `distance`, a move action allowing it `speed` squares
/// (004:477-480).
pub fn rider_allows(
    acted: Option<&RiderActed>,
    travelled: Option<&Travelled>,
    round: u32,
    (action, cost, distance, speed): (MovementAction, u32, u32, u32),
) -> Result<(), Refusal> {
    let Some(acted) = acted.filter(|a| a.round == round) else { return Ok(()) };
    let mut after = travelled.copied().unwrap_or(Travelled { round, speed, ..Travelled::default() });
    after.record(round, action, (cost, distance), speed);
    let ran = action == MovementAction::Run;
    let refused = match acted.act {
        RiderAct::FullMelee => (after.distance_in(round) > 1)
            .then_some(("its rider made a full attack: it goes no further than 1.5 m this round", "004:477")),
        RiderAct::Ranged => match acted.pace {
            Pace::Ran => None,
            _ if acted.double_move => ran.then_some((
                "its rider shot during its double move: it does not run after (-8 instead of -4)",
                "004:479",
            )),
            _ => (ran || after.double_move(round)).then_some((
                "its rider shot before any double move: it does not go beyond one move this round",
                "004:479",
            )),
        },
        RiderAct::Spell => match acted.pace {
            Pace::WithinSpeed if acted.squares == 0 => (ran || after.in_round(round) > speed)
                .then_some(("its rider cast before it moved: it goes no further than its speed after", "004:480")),
            Pace::WithinSpeed => (cost > 0 || ran).then_some((
                "its rider cast after it moved: moving on would be casting in the middle of its move",
                "004:480",
            )),
            _ => ran.then_some(("its rider cast during its double move: it does not run after", "004:480")),
        },
        // Cast « pendant que sa monture se déplace », the check made: it moves on, but does not run.
        RiderAct::SpellBetweenMoves => {
            ran.then_some(("its rider cast in the middle of its move: it does not run after", "004:480"))
        }
    };
    match refused {
        Some((reason, rule)) => Err(Refusal::new(reason, rule)),
        None => Ok(()),
    }
}

/// The movement chapter's systems, so other chapters can order themselves around it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MovementSystems;

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
    /// Where it faces.
    pub heading: &'static Heading,
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
    /// The pursuers it hides from (a charge needs its foe in sight, 004:454).
    pub hidden: Option<&'static crate::rules::core::creature::Hidden>,
    /// Those on its back, the rider first (a mounted charge strikes with the rider's weapon, 004:478).
    pub riders: Option<&'static Riders>,
    /// How far it went this round (a mount's pace binds its rider's actions, 004:477-480).
    pub travelled: Option<&'static Travelled>,
    /// What its rider did this round that its pace must keep to (004:477-480).
    pub rider_acted: Option<&'static RiderActed>,
}

/// The gear of the rider on `mount`'s back (the first of its riders), whose blow ends a mounted charge.
pub fn rider_armament(world: &World, mount: Entity) -> Option<&Armament> {
    let rider = *world.get::<Riders>(mount)?.all().first()?;
    world.get::<Armament>(rider)
}

/// How far a charge's blow strikes: the charger's weapon ([`charge_weapon`]), or, for a mount with a
/// rider, the rider's, whose blow ends the mounted charge (a lance, 004:460, 004:478; our
/// ruling, docs/rulings.md).
pub fn charges_with_reach(
    own: &Armament,
    rider: Option<&Armament>,
    weapon: Option<&str>,
) -> crate::rules::core::reach::WeaponReach {
    let reach = |a: &Armament| {
        charge_weapon(a, weapon).map_or(crate::rules::core::reach::WeaponReach::Natural, |w| w.reach_kind())
    };
    rider.map_or_else(|| reach(own), reach)
}

/// The melee weapon a charge strikes with (004:457): the one named, if it holds it ready, else its first
/// melee weapon ready.
pub fn charge_weapon<'a>(armament: &'a Armament, named: Option<&str>) -> Option<&'a Weapon> {
    let melee = |w: &&Weapon| !is_ranged(w);
    named.and_then(|n| armament.ready().filter(melee).find(|w| w.name == n)).or_else(|| armament.ready().find(melee))
}

/// Whether the weapon named for a charge's blow, if any, is a melee weapon in hand, the charger's or its
/// rider's: a charge ends in a melee attack (004:451, 004:457).
pub fn check_charge_weapon(own: &Armament, rider: Option<&Armament>, named: Option<&str>) -> Result<(), Refusal> {
    let Some(named) = named else { return Ok(()) };
    if [Some(own), rider].into_iter().flatten().any(|a| charge_weapon(a, Some(named)).is_some_and(|w| w.name == named))
    {
        Ok(())
    } else {
        Err(Refusal::new(
            format!("the {named} is no melee weapon in hand: a charge ends in a melee attack"),
            "004:451, 004:457",
        ))
    }
}

/// Of `all`, the bodies a creature of `size` may not share a square with: at chase scale, where creatures
/// share squares, only a Colossal one, or every one for a Colossal creature (004:651); at normal scale all.
pub fn unshared_bodies(scale: crate::rules::core::altitude::Scale, all: Vec<Body>, size: Size) -> Vec<Body> {
    match scale {
        crate::rules::core::altitude::Scale::Normal => all,
        crate::rules::core::altitude::Scale::Chase => {
            all.into_iter().filter(|b| !crate::rules::core::altitude::share_a_chase_square(size, b.size)).collect()
        }
    }
}

/// Collects every creature's body.
pub fn bodies<'a>(creatures: impl Iterator<Item = MoverViewItem<'a, 'a>>) -> Vec<Body> {
    creatures.filter(|c| !c.riding).map(|c| body_of(&c)).collect()
}

/// One creature's body.
pub fn body_of(c: &MoverViewItem<'_, '_>) -> Body {
    Body {
        entity: c.entity,
        id: c.id.clone(),
        faction: c.faction.clone(),
        footprint: c.space.at(c.position.0),
        altitude: c.altitude.0,
        heading: c.heading.0,
        size: *c.size,
        helpless: c.conditions.is_helpless(),
        traits: c.traits.clone(),
    }
}

/// Builds the movement view of one creature.
pub fn move_query<'a>(field: &'a Battlefield, all: &[Body], c: &MoverViewItem<'_, '_>) -> MoveQuery<'a> {
    MoveQuery {
        field,
        occupants: occupants_for(all, &body_of(c)),
        mover: crate::rules::movement::Mover {
            blinded: c.conditions.has(Condition::Blinded),
            ..mover_of(*c.size, c.speed, c.altitude.0, c.traits, c.skills)
        },
        start: c.space.at(c.position.0),
        speed: match (medium_of(c.speed, c.altitude.0), c.speed.fly, c.speed.swim) {
            (Medium::Fly, Some(_), _) => {
                crate::rules::core::creature::fly_speed(c.speed, *c.encumbrance, c.traits).map_or(0, |f| f.squares)
            }
            // In the water a swimmer moves at its swim speed (004:642); squares of land on its way cost it
            // nothing more (our ruling, docs/rulings.md).
            (_, _, Some(swim))
                if crate::rules::core::water::in_the_water(field, c.space.at(c.position.0), *c.size, c.altitude.0) =>
            {
                swim
            }
            _ => land_speed(c.speed, c.speed_modifiers, *c.encumbrance, c.traits),
        },
        run_multiplier: run_multiplier(*c.encumbrance),
        restricted: c.budget.restricted,
        odd_diagonal: c.budget.odd_diagonal,
        danger: None,
        prone: c.conditions.has(Condition::Prone),
        going_on: c.budget.going_on,
        followed: c.budget.followed,
        searched: Default::default(),
    }
}

/// The movement view of `creature` now, without the squares its foes threaten, for `f`.
pub fn with_move_query<T>(
    world: &mut World,
    creature: Entity,
    f: impl FnOnce(&MoveQuery<'_>, &MoverViewItem<'_, '_>) -> T,
) -> Option<T> {
    let mut q = kept::<MoverView, With<Creature>>(world);
    let world: &World = world;
    let all = bodies(q.iter(world));
    let me = q.get(world, creature).ok()?;
    let query = move_query(world.resource::<Battlefield>(), &all, &me);
    Some(f(&query, &me))
}

/// Whether `me` sees `foe` well enough to charge it: « Le personnage doit avoir une ligne de mire dégagée
/// vers son adversaire au début de son tour de jeu » (004:454), which it has not when the foe is totally
/// concealed from it (004:413): invisible, itself blinded, or the foe wholly in darkness beyond its
/// darkvision (004:415), or hidden from it (004:403, 004:412). `me` is the one who strikes at the charge's
/// end: the charger, or the rider on its back (« le personnage », 004:478). One predicate for the rules, the
/// previews and the AI, on the ground and in the air ([`charge_sight`]).
pub fn sees_to_charge(field: &Battlefield, me: &MoverViewItem, foe: &MoverViewItem) -> Result<(), Refusal> {
    if me.conditions.has(Condition::Blinded) || foe.conditions.has(Condition::Invisible) {
        return Err(Refusal::new("a charge needs its foe in sight as the turn begins", "004:454, 004:413-415"));
    }
    if crate::rules::core::creature::lost_sight(foe.hidden, me.entity) {
        let hidden = crate::rules::core::creature::out_of_sight(foe.id, foe.hidden);
        return Err(Refusal::new(hidden.reason, format!("004:454, {}", hidden.rule)));
    }
    use crate::rules::core::cover::{TOTAL_CONCEALMENT, concealment, darkvision_reaches};
    let (own, theirs) = ((me.space.at(me.position.0), me.altitude.0), (foe.space.at(foe.position.0), foe.altitude.0));
    let sees_in_the_dark = darkvision_reaches(field, me.traits.darkvision_m, own, theirs);
    if concealment(field, own.0, theirs.0, sees_in_the_dark, true) >= TOTAL_CONCEALMENT {
        return Err(Refusal::new(
            "a charge needs its foe in sight as the turn begins: it stands in darkness the charger cannot see into",
            "004:454, 004:413-415",
        ));
    }
    Ok(())
}

/// [`sees_to_charge`] for `charger` and `foe` as they stand in `world`; no refusal if either is not a
/// creature (the charge's own checks say so).
pub fn charge_sight(world: &mut World, charger: Entity, foe: Entity) -> Result<(), Refusal> {
    let mut q = kept::<MoverView, With<Creature>>(world);
    let world: &World = world;
    let views = q.query(world);
    let (Ok(me), Ok(theirs)) = (views.get(charger), views.get(foe)) else { return Ok(()) };
    let rider = me.riders.and_then(|r| r.all().first()).and_then(|r| views.get(*r).ok());
    sees_to_charge(world.resource::<Battlefield>(), rider.as_ref().unwrap_or(&me), &theirs)
}

/// The square a charge from `from` toward a foe at `toward` must end on when its `lanes` leave it to a die
/// ([`crate::rules::movement::by_a_die`]): the one a die thrown this turn for the same charge said (kept in
/// `budget`), else a new die among the equally near squares, written to `facts` and kept (000:63-65).
pub fn charge_die(
    lanes: &[ChargeLane],
    (from, toward): (Square, Square),
    (budget, id): (&mut ActionBudget, &CreatureId),
    (dice, facts): (&mut crate::rules::core::dice::Dice, &mut Vec<Fact>),
) -> Square {
    let nearest = lanes.first().map_or(&[][..], |l| &l.nearest[..]);
    if let Some(kept) = budget.kept_charge_die(from, toward, nearest) {
        return kept.to;
    }
    let roll = dice.roll(nearest.len() as u32);
    let to = nearest.get(roll as usize - 1).copied().unwrap_or(from);
    budget.keep_charge_die(ChargeDie { from, toward, to });
    facts.push(Fact::ChargeSquareRolled { creature: id.clone(), squares: nearest.to_vec(), roll, to });
    to
}

/// `lanes` as a die kept in `budget` for this charge leaves them (000:63-65): only the lane to its square,
/// now the one nearest, or the square it said when that lane is not clear; untouched when no die is needed
/// or none was thrown yet. One reading of the kept die for the rules, the previews and the AI.
pub fn after_the_kept_die(
    lanes: Vec<ChargeLane>,
    (from, toward): (Square, Square),
    budget: &ActionBudget,
) -> Result<Vec<ChargeLane>, Square> {
    if !crate::rules::movement::by_a_die(&lanes) {
        return Ok(lanes);
    }
    let nearest = lanes.first().map_or(&[][..], |l| &l.nearest[..]);
    let Some(kept) = budget.kept_charge_die(from, toward, nearest) else { return Ok(lanes) };
    let kept_lanes: Vec<ChargeLane> =
        lanes.into_iter().filter(|l| l.to == kept.to).map(|l| ChargeLane { nearest: vec![l.to], ..l }).collect();
    if kept_lanes.is_empty() { Err(kept.to) } else { Ok(kept_lanes) }
}

/// Throws the die a charge of `charger` at `target` needs among the equally near squares of its `lanes`
/// (or reads the one thrown this turn), before anything answers the charge (a readied action, 004:621): its
/// fact written, the die kept for the charge itself (000:63-65). The square it said.
pub fn throw_charge_die(
    world: &mut World,
    (charger, target): (Entity, Entity),
    lanes: &[ChargeLane],
) -> Option<Square> {
    let at = |e: Entity| world.get::<Position>(e).map(|p| p.0);
    let (from, toward) = (at(charger)?, at(target)?);
    let id = world.get::<CreatureId>(charger).cloned()?;
    let mut budget = world.get::<ActionBudget>(charger).copied()?;
    let mut facts = Vec::new();
    let to = world.resource_scope(|_, mut dice: Mut<crate::rules::core::dice::Dice>| {
        charge_die(lanes, (from, toward), (&mut budget, &id), (&mut dice, &mut facts))
    });
    world.entity_mut(charger).insert(budget);
    world.write_message_batch(facts);
    Some(to)
}

/// The clear charge lanes from where `charger` stands toward `target` (004:451-459), or why there are none;
/// `None` if either is not a creature. An `adjacent` charge ends next to the foe, whatever the charger's
/// reach: a bull rush's, which enters the foe's space (004:447).
pub fn charge_lanes_of(
    world: &mut World,
    (charger, weapon): (Entity, Option<&str>),
    target: Entity,
    adjacent: bool,
) -> Option<Result<Vec<ChargeLane>, Refusal>> {
    let mut q = kept::<MoverView, ()>(world);
    let (aim, height) = q.get(world, target).ok().map(|t| (t.space.at(t.position.0), (t.altitude.0, *t.size)))?;
    let sight = charge_sight(world, charger, target);
    let rider_gear = rider_armament(world, charger).cloned();
    let scale = world.resource::<Battlefield>().scale();
    let round = world.resource::<TurnOrder>().round;
    with_move_query(world, charger, |query, me| {
        // The charge's own checks first: its foe in sight, the actions it takes (004:454, 004:455).
        sight?;
        check_action(MovementAction::Charge, me.budget, query.speed, me.conditions, (me.exertion, round))?;
        let reach_weapon = charges_with_reach(me.armament, rider_gear.as_ref(), weapon);
        let rise = vertical_steps(scale, me.altitude.0, *me.size, height.0, height.1);
        if !adjacent {
            check_charge_weapon(me.armament, rider_gear.as_ref(), weapon)?;
        }
        let (reach, reach_weapon) =
            if adjacent { (1, crate::rules::core::reach::WeaponReach::Natural) } else { (me.reach.0, reach_weapon) };
        let lanes = query.charge_lanes((aim, rise), reach, reach_weapon)?;
        // A die thrown this turn for this charge has said which square it ends on (000:63-65).
        after_the_kept_die(lanes, (query.start.origin, aim.origin), me.budget)
            .or_else(|to| query.charge_lanes_to((aim, rise), reach, reach_weapon, Some(to)).map(|_| Vec::new()))
    })
}

/// Before a creature's move is searched: later chapters may mark the squares it would rather not leave
/// (the squares foes threaten, 004:64-71), so that among the cheapest paths the rules take the one that
/// provokes least. Not triggered for a 5-foot step, which never provokes (004:259).
#[derive(Event, Debug)]
pub struct PlanningMove {
    /// Who moves.
    pub mover: Entity,
    /// The squares to avoid, if any chapter marks some.
    pub danger: Option<Danger>,
}

/// A move about to be made: checked, paid for, its route settled.
#[derive(Event, Debug)]
pub struct MoveStarting {
    /// Who moves.
    pub mover: Entity,
    /// With which action.
    pub action: MovementAction,
    /// Where it stands.
    pub start: Footprint,
    /// Every step it will take; an observer may cut it short (a tumble through a foe's space that fails
    /// stops before it, 000:78-79).
    pub route: Route,
    /// Tumbling, with its Tumble bonus (000:78-79).
    pub tumble: Option<i32>,
}

/// When, in a move, others may react to the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovePhase {
    /// Before it leaves the squares it stands on for its next step, or at the end of its move: leaving a
    /// threatened square provokes (004:64-65).
    Leaving,
    /// Just after it entered a square: a foe who readied an attack for it strikes now (004:621).
    Entered,
}

/// A moment of a move when others may react. Observers that strike at the mover keep `hit_points` in step
/// with the damage they send and set `dropped` when it falls: the move then stops where it is (004:70).
#[derive(Event, Debug)]
pub struct Moving {
    /// Who moves.
    pub mover: Entity,
    /// Which moment.
    pub phase: MovePhase,
    /// Steps taken so far.
    pub steps: usize,
    /// Where it stands now.
    pub at: Footprint,
    /// Where it stood before its last step (where it stands, before its first).
    pub before: Footprint,
    /// The height it stood at there, if not the height it is at now (a flier's climb or dive, 004:783).
    pub before_altitude: Option<i32>,
    /// What it is doing, which its conditions do not show yet (running, squeezing, charging).
    pub mid_action: MidAction,
    /// Its hit points as the strikes so far left them.
    pub hit_points: HitPoints,
    /// Dropped by a strike: the move ends here.
    pub dropped: bool,
    /// Tripped in place of a strike (004:483, 004:489): the move ends here, the mover prone.
    pub tripped: bool,
}

/// Why a move stopped before the end of its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// Dropped by an attack in the middle of it (004:70, 004:621).
    Dropped,
    /// Tripped by an attack of opportunity (004:483; our ruling, docs/rulings.md).
    Tripped,
}

/// A move ended, wherever it stopped.
#[derive(Event, Debug)]
pub struct MoveEnded {
    /// Who moved.
    pub mover: Entity,
}

/// A charger arrived where it strikes from, its attack (or bull rush, or overrun) not yet made: an attack
/// readied against it and held while it was out of reach may go off now (004:621, 004:628).
#[derive(Event, Debug)]
pub struct ChargeArrived {
    /// Who charged.
    pub charger: Entity,
}

/// The end of a charge's movement: its attack follows (004:451-459).
#[derive(Message, Clone, Debug)]
pub struct ChargeEnded {
    /// The charger.
    pub charger: Entity,
    /// The foe charged.
    pub target: Entity,
    /// What the charge ends in.
    pub finish: ChargeFinish,
    /// The weapon its attack strikes with, if named.
    pub weapon: Option<String>,
}

/// A move checked and paid for, to be carried out.
struct MoveUnderway {
    id: CreatureId,
    /// The move going on after an overrun's passage: the same move action (004:535).
    going_on: bool,
    tumble: Option<i32>,
    action: MovementAction,
    route: Route,
    start: Footprint,
    size: Size,
    was_squeezed: bool,
    was_tight: bool,
    was_running: bool,
    /// The squares a move action allows it.
    speed: u32,
}

/// Carries out move intents, one after the other: each is checked and paid for, then the creature moves
/// square by square, the chapters that react to a move observing each moment of it.
fn resolve_movement(world: &mut World, mut intents: Local<MessageCursor<MoveIntent>>) {
    let read: Vec<MoveIntent> = intents.read(world.resource::<Messages<MoveIntent>>()).cloned().collect();
    for intent in read {
        move_creature(world, intent);
    }
}

/// One move intent, from its check to the last square entered.
pub(crate) fn move_creature(world: &mut World, intent: MoveIntent) {
    let mut planning = PlanningMove { mover: intent.creature, danger: None };
    if intent.action != MovementAction::FiveFootStep {
        world.trigger_ref(&mut planning);
        world.flush();
    }
    let Ok(Some(mut underway)) = world.run_system_cached_with(begin_move, (intent.clone(), planning.danger)) else {
        return;
    };
    let mut starting = MoveStarting {
        mover: intent.creature,
        action: underway.action,
        start: underway.start,
        route: underway.route.clone(),
        tumble: underway.tumble,
    };
    world.trigger_ref(&mut starting);
    world.flush();
    underway.route = starting.route;
    let MoveUnderway { id, action, route, start, size, .. } = &underway;
    let mut hit_points = world.get::<HitPoints>(intent.creature).copied().unwrap_or_default();
    let mut taken = 0;
    let mut halt = None;
    // The mover as it is at a moment of its move: running, squeezed or not (004:248, 000:113-123).
    let running_now = *action == MovementAction::Run || underway.was_running;
    let mid_action_at = |at: Footprint| {
        let tight = at.width.min(at.height) < squeeze_width(*size, false);
        MidAction {
            running: running_now,
            squeezed: Space::of(at).is_squeezed(*size) && !tight,
            tight,
            charging: *action == MovementAction::Charge,
            moving: true,
        }
    };
    let mut react = |world: &mut World, phase: MovePhase, steps: usize, at: Footprint, before: Footprint| {
        let mut moment = Moving {
            mover: intent.creature,
            phase,
            steps,
            at,
            before,
            before_altitude: None,
            mid_action: mid_action_at(at),
            hit_points,
            dropped: false,
            tripped: false,
        };
        world.trigger_ref(&mut moment);
        world.flush();
        hit_points = moment.hit_points;
        match (moment.dropped, moment.tripped) {
            (true, _) => Some(Halt::Dropped),
            (false, true) => Some(Halt::Tripped),
            _ => None,
        }
    };
    for i in 0..=route.steps.len() {
        let here = if i == 0 { *start } else { route.steps[i - 1].footprint() };
        halt = react(world, MovePhase::Leaving, i, here, here);
        if halt.is_some() {
            break;
        }
        let Some(step) = route.steps.get(i) else { break };
        let Some(mut position) = world.get_mut::<Position>(intent.creature) else { break };
        position.0 = step.square;
        let Some(mut space) = world.get_mut::<Space>(intent.creature) else { break };
        *space = Space { width: step.space.0, height: step.space.1 };
        world.write_message(Fact::SquareEntered {
            creature: id.clone(),
            square: step.square,
            cost: step.cost,
            spent: step.spent,
            spent_m: squares_to_metres(step.spent),
            hampered: step.hampered,
            space: step.space,
        });
        taken = i + 1;
        halt = react(world, MovePhase::Entered, i + 1, step.footprint(), here);
        if halt.is_some() {
            break;
        }
    }
    end_move(world, &intent, &underway, taken, halt);
}

/// The movers as the check reads them, then the budgets and exertion it pays from.
type MoversThenBudgets<'w, 's> = ParamSet<
    'w,
    's,
    (
        Query<'static, 'static, MoverView, With<Creature>>,
        Query<'static, 'static, (&'static mut ActionBudget, &'static mut Exertion)>,
    ),
>;

/// Why the rules would refuse a move as things stand, checked as [`begin_move`] checks its turn and its
/// route, paying nothing: a refused move is no action, and sets off no readied action (004:621). Its
/// budget (which a full attack given up or a minimum movement reads its own way; a readied move's is asked
/// here, as the move asks it), a charge's lanes and a tumble's check are left to the move itself.
pub fn move_refusal(
    In(intent): In<MoveIntent>,
    field: Res<Battlefield>,
    order: Res<TurnOrder>,
    views: Query<MoverView>,
) -> Option<Refusal> {
    let all = bodies(views.iter());
    let Ok(me) = views.get(intent.creature) else { return Some(Refusal::new("no such creature", "data")) };
    let query = move_query(&field, &all, &me);
    // As the move asks: a readied move is taken out of its turn, and wherever the readier stands.
    let checked = order
        .check_turn_unless_readied(intent.creature, intent.readied)
        .and_then(|()| walks(&me))
        .and_then(|()| if intent.readied { Ok(()) } else { check_grounded(field.scale(), me.speed, me.altitude) })
        .and_then(|()| match intent.readied {
            true => check_action(
                intent.action,
                &readied_budget(me.budget),
                query.speed,
                me.conditions,
                (me.exertion, order.round),
            ),
            false => Ok(()),
        });
    match (checked, intent.action, intent.tumble) {
        (Err(refusal), ..) => Some(refusal),
        (Ok(()), MovementAction::Charge, _) | (Ok(()), _, true) => None,
        (Ok(()), action, false) => query.route(action, intent.to, intent.path.as_deref()).err(),
    }
}

/// What a readied move is checked against: paid for when readied, but a 5-foot step in the turn it readied it
/// in still forbids other movement before its next turn (004:259).
fn readied_budget(budget: &ActionBudget) -> ActionBudget {
    ActionBudget { movement: budget.movement, ..ActionBudget::fresh() }
}

/// Refuses a move to a rider: its mount moves, not it (004:807).
fn walks(me: &MoverViewItem<'_, '_>) -> Result<(), Refusal> {
    if me.riding {
        Err(Refusal::new(format!("{} rides: its mount moves, not it (it gets off first)", me.id), "004:807"))
    } else {
        Ok(())
    }
}

/// The squares `creature` may take a 5-foot step to now, out of its turn too (a readied action's step,
/// 004:623): none if it rides, flies, has moved this round or may not step from where it stands.
pub fn five_foot_step_squares(
    In(creature): In<Entity>,
    field: Res<Battlefield>,
    views: Query<MoverView>,
) -> Vec<Square> {
    let all = bodies(views.iter());
    let Ok(me) = views.get(creature) else { return Vec::new() };
    let query = move_query(&field, &all, &me);
    let budget = ActionBudget { movement: me.budget.movement, ..ActionBudget::fresh() };
    let allowed = !me.riding
        && check_grounded(field.scale(), me.speed, me.altitude).is_ok()
        // A 5-foot step is never too fast for a rest after a run: no round to ask.
        && check_action(MovementAction::FiveFootStep, &budget, query.speed, me.conditions, (me.exertion, 0)).is_ok()
        && query.five_foot_step_from_here().is_ok();
    if !allowed {
        return Vec::new();
    }
    query.destinations(MovementAction::FiveFootStep).into_iter().map(|d| d.square).collect()
}

/// Checks a move intent (the turn, the action left, the state, the path), writes its refusal or pays for
/// it and writes that it starts.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
#[expect(
    clippy::too_many_lines,
    reason = "the checks of a movement action in the order the texts give them, then its payment"
)]
fn begin_move(
    In((intent, danger)): In<(MoveIntent, Option<Danger>)>,
    mut commands: Commands,
    field: Res<Battlefield>,
    order: Res<TurnOrder>,
    pending: Query<(Has<FullAttackUnderway>, Option<&FullRoundBegun>)>,
    mut creatures: MoversThenBudgets<'_, '_>,
    mut dice: ResMut<crate::rules::core::dice::Dice>,
    mut facts: MessageWriter<Fact>,
    mut strain: MessageWriter<Strain>,
) -> Option<MoveUnderway> {
    let views = creatures.p0();
    let all = bodies(views.iter());
    let me = views.get(intent.creature).ok()?;
    let id = me.id.clone();
    let mut query = move_query(&field, &all, &me);
    query.danger = danger;
    // A tumble: trained, on foot, a move or a double move, not slowed (000:78-79).
    let tumble = if intent.tumble {
        let checked = crate::rules::movement::check_tumble(
            intent.action,
            me.skills,
            (query.mover.medium, me.conditions.has(Condition::Prone)),
            me.encumbrance,
            me.traits,
        );
        match checked {
            Ok(bonus) => {
                query = query.tumbling();
                Some(bonus)
            }
            Err(refusal) => {
                facts.write(Fact::ActionRefused {
                    creature: id.clone(),
                    action: intent.action.action(),
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                return None;
            }
        }
    } else {
        None
    };
    let target = intent.target.and_then(|t| views.get(t).ok()).map(|t| t.space.at(t.position.0));
    let target_height = intent.target.and_then(|t| views.get(t).ok()).map(|t| (t.altitude.0, *t.size));
    let foe_view = intent.target.and_then(|t| views.get(t).ok());
    let turn = order.check_turn_unless_readied(intent.creature, intent.readied);
    // After the first blow of a full attack (not the second), the rest may be given up for a move action;
    // after a 5-foot step that move action cannot be movement (004:232).
    let (attack_underway, begun) = pending.get(intent.creature).map_or((false, None), |(u, b)| (u, b.cloned()));
    let giving_up = attack_underway && me.budget.full_attack_begun && intent.action == MovementAction::Move;
    // A restricted creature takes the minimum movement over two rounds, a standard action each
    // (004:86, 004:212): `Some(false)` begins it, `Some(true)` finishes the one begun last round.
    let over_two_rounds = (intent.action == MovementAction::MinimumMovement && !intent.readied)
        .then(|| {
            let action = BegunAction::MinimumMovement { to: intent.to };
            crate::rules::turns::over_two_rounds(me.budget, begun.as_ref(), &action, order.round)
        })
        .flatten();
    let refuse = |facts: &mut MessageWriter<Fact>, refusal: Refusal| {
        facts.write(Fact::ActionRefused {
            creature: id.clone(),
            action: intent.action.action(),
            reason: refusal.reason,
            rule: refusal.rule,
        });
    };
    let budget = match (intent.readied, giving_up) {
        (true, _) => readied_budget(me.budget),
        (false, true) if me.budget.movement == MovementMade::FiveFootStep => {
            refuse(
                &mut facts,
                Refusal::new(
                    "after a 5-foot step, the move action that replaces the rest of a full attack cannot be movement",
                    "004:232",
                ),
            );
            return None;
        }
        (false, true) => ActionBudget { standard: false, move_action: true, ..*me.budget },
        // Checked as the full-round action it is, paid with the standard action (which over_two_rounds saw).
        (false, false) if over_two_rounds.is_some() => {
            ActionBudget { restricted: false, move_action: true, ..*me.budget }
        }
        (false, false) => *me.budget,
    };
    let mut rolled_for_charge = None;
    let checked = turn
        .and_then(|()| walks(&me))
        .and_then(|()| if intent.readied { Ok(()) } else { check_grounded(field.scale(), me.speed, me.altitude) })
        .and_then(|()| check_action(intent.action, &budget, query.speed, me.conditions, (me.exertion, order.round)))
        .and_then(|()| match (intent.action, target) {
            (MovementAction::Charge, None) => Err(Refusal::new("a charge needs a target", "004:451")),
            (MovementAction::Charge, Some(target)) => {
                let rider = me.riders.and_then(|r| r.all().first()).and_then(|r| views.get(*r).ok());
                // The foe in sight as the turn begins (004:454), to the one who strikes: its rider, if any.
                if let Some(theirs) = &foe_view {
                    sees_to_charge(&field, rider.as_ref().unwrap_or(&me), theirs)?;
                }
                if intent.finish == ChargeFinish::Attack {
                    check_charge_weapon(me.armament, rider.as_ref().map(|r| r.armament), intent.weapon.as_deref())?;
                }
                let reach_weapon = charges_with_reach(me.armament, rider.map(|r| r.armament), intent.weapon.as_deref());
                // A charge ends in a melee attack: the foe must be within reach in height (004:783-784).
                if let Some((altitude, size)) = target_height
                    && vertical_steps(field.scale(), me.altitude.0, *me.size, altitude, size)
                        > vertical_reach(me.reach.0, reach_weapon)
                {
                    return Err(Refusal::new("the foe is out of reach in height for a charge", "004:783-784"));
                }
                // A bull rush ends next to its foe, whose space it enters (004:447).
                let rise = target_height.map_or(0, |(altitude, size)| {
                    vertical_steps(field.scale(), me.altitude.0, *me.size, altitude, size)
                });
                let (reach, reach_weapon) = if intent.finish.enters() {
                    (1, crate::rules::core::reach::WeaponReach::Natural)
                } else {
                    (me.reach.0, reach_weapon)
                };
                let lanes = query.charge_lanes((target, rise), reach, reach_weapon)?;
                let asked = if crate::rules::movement::by_a_die(&lanes) {
                    let mut budget = *me.budget;
                    let mut thrown = Vec::new();
                    let to = charge_die(
                        &lanes,
                        (query.start.origin, target.origin),
                        (&mut budget, &id),
                        (&mut dice, &mut thrown),
                    );
                    if !thrown.is_empty() {
                        rolled_for_charge = Some(budget.charge_dice);
                        facts.write_batch(thrown);
                    }
                    to
                } else {
                    intent.to
                };
                match lanes.into_iter().find(|l| l.to == asked) {
                    Some(lane) => Ok(lane.route),
                    // Not a clear lane's end: what stands in the way of the lane to the square asked for.
                    None => Err(query
                        .charge_lanes_to((target, rise), reach, reach_weapon, Some(asked))
                        .err()
                        .unwrap_or_else(|| {
                            Refusal::new(format!("{asked} is not the end of a clear charge lane"), "004:452-453")
                        })),
                }
            }
            _ => query.route(intent.action, intent.to, intent.path.as_deref()),
        });
    // A mount keeps to the pace its rider's action was judged at (004:477-480).
    let checked = checked.and_then(|route| {
        let distance = route.distance(query.start.origin, route.steps.len(), query.world().field.diagonals());
        rider_allows(me.rider_acted, me.travelled, order.round, (intent.action, route.cost, distance, query.speed))
            .map(|()| route)
    });
    // The die keeps what it said for the rest of the turn, the charge refused or not.
    if let Some(die) = rolled_for_charge {
        commands.entity(intent.creature).entry::<ActionBudget>().and_modify(move |mut b| b.charge_dice = die);
    }
    let route = match checked {
        Ok(route) => route,
        Err(refusal) => {
            refuse(&mut facts, refusal);
            return None;
        }
    };
    // Each half of it is a standard action: it costs a disabled creature 1 hit point (004:274).
    if over_two_rounds.is_some() {
        strain.write(Strain::standard_action(intent.creature));
    }
    if over_two_rounds == Some(false) {
        if let Ok((mut budget, _)) = creatures.p1().get_mut(intent.creature) {
            let _ = budget.spend(ActionKind::Standard);
        }
        facts.write(Fact::FullRoundActionBegun { creature: id, action: intent.action.action() });
        commands
            .entity(intent.creature)
            .insert(FullRoundBegun { action: BegunAction::MinimumMovement { to: intent.to }, round: order.round });
        return None;
    }
    if over_two_rounds == Some(true) {
        commands.entity(intent.creature).remove::<FullRoundBegun>();
    }
    let from = me.position.0;
    let round = order.round;
    let mut exertion = *me.exertion;
    if intent.action == MovementAction::Run
        && let Err(refusal) = keep_running(&mut exertion, (round, me.abilities.con), &id, (&mut *dice, &mut facts))
    {
        refuse(&mut facts, refusal);
        if let Ok((_, mut kept)) = creatures.p1().get_mut(intent.creature) {
            *kept = exertion;
        }
        return None;
    }
    let allowance = query.allowance(intent.action);
    let underway = MoveUnderway {
        id: id.clone(),
        tumble,
        action: intent.action,
        start: query.start,
        size: *me.size,
        was_squeezed: me.conditions.has(Condition::Squeezed),
        was_tight: me.conditions.has(Condition::SqueezedTight),
        was_running: me.conditions.has(Condition::Running),
        going_on: intent.action == MovementAction::Move && budget.going_on.is_some() && !intent.readied,
        speed: query.speed,
        route,
    };
    let mut stored = creatures.p1();
    let (mut budget, mut kept) = stored.get_mut(intent.creature).ok()?;
    *kept = exertion;
    if !intent.readied {
        spend(intent.action, &mut budget);
        budget.odd_diagonal = underway.route.odd_diagonal_after;
    } else if intent.action == MovementAction::FiveFootStep {
        // The 5-foot step a readied action takes with it bars other movement this round (004:623).
        budget.movement = MovementMade::FiveFootStep;
    }
    if giving_up {
        budget.full_attack_given_up = false;
        facts.write(Fact::FullAttackGivenUp { creature: id.clone() });
        commands.entity(intent.creature).remove::<FullAttackUnderway>();
    }
    facts.write(Fact::MoveStarted { creature: id, action: intent.action.action(), from, allowance });
    Some(underway)
}

/// Ends a move where it stopped: the facts of the move, the squeezing and running it leaves the mover in,
/// and a charge's attack.
fn end_move(world: &mut World, intent: &MoveIntent, underway: &MoveUnderway, taken: usize, halt: Option<Halt>) {
    let MoveUnderway { id, action, route, start, size, .. } = underway;
    let from = start.origin;
    let dropped = halt == Some(Halt::Dropped);
    if let Some(halt) = halt {
        // It stops where it fell, or on the last square of its path where it may lie (000:126-129).
        let rest = settle(*start, route, taken);
        if let Some(mut position) = world.get_mut::<Position>(intent.creature) {
            position.0 = rest.origin;
        }
        if let Some(mut space) = world.get_mut::<Space>(intent.creature) {
            *space = Space::of(rest);
        }
        world.write_message(Fact::MoveInterrupted {
            creature: id.clone(),
            at: rest.origin,
            reason: match halt {
                Halt::Dropped => "dropped by an attack in the middle of its move (004:70, 004:621)",
                Halt::Tripped => "tripped by an attack of opportunity (004:483, 004:487)",
            }
            .into(),
        });
    }
    let Some(position) = world.get::<Position>(intent.creature).copied() else { return };
    let Some(space) = world.get::<Space>(intent.creature).copied() else { return };
    let cost = if taken == 0 { 0 } else { route.steps[taken - 1].spent };
    let distance = route.distance(from, taken, crate::rules::core::battlefield::diagonals_in(world));
    world.write_message(Fact::CreatureMoved { creature: id.clone(), from, to: position.0, cost });
    let round = world.resource::<TurnOrder>().round;
    if let Some(mut trail) = world.get_mut::<Trail>(intent.creature) {
        let steps = route.steps[..taken].iter().map(|s| (Footprint::rect(s.square, s.space.0, s.space.1), s.spent));
        trail.extend(round, *start, steps);
    }
    if let Some(mut travelled) = world.get_mut::<Travelled>(intent.creature) {
        // The move going on after an overrun is the move action the passage was part of (004:535).
        if underway.going_on {
            travelled.add(round, cost, distance);
        } else {
            travelled.record(round, *action, (cost, distance), underway.speed);
        }
    }
    let charged = intent.target.filter(|_| *action == MovementAction::Charge);
    let turn = world.resource::<TurnOrder>().turns_begun;
    world.entity_mut(intent.creature).insert(LastMove { round, turn, action: *action, charged });
    let tight = space.width.min(space.height) < squeeze_width(*size, false);
    let squeezed = space.is_squeezed(*size) && !tight;
    let change = |condition, gained| ConditionChange { creature: intent.creature, condition, gained };
    if squeezed != underway.was_squeezed {
        world.write_message(change(Condition::Squeezed, squeezed));
    }
    if tight != underway.was_tight {
        world.write_message(change(Condition::SqueezedTight, tight));
    }
    // A disabled creature that takes a standard action loses 1 hit point (004:274): its restricted
    // withdraw is one (the restricted charge pays it with its attack); a run or a withdraw that one dropped
    // to 0 in its middle completes is among « d'autres actions fatigantes », as a charge (the strain weighs
    // whether it is disabled once done).
    if matches!(action, MovementAction::Withdraw | MovementAction::Run) && !dropped {
        world.write_message(Strain {
            creature: intent.creature,
            reason: "a standard action while disabled (004:274)".into(),
        });
    }
    if *action == MovementAction::Run && !underway.was_running {
        world.write_message(change(Condition::Running, true));
    }
    if let (MovementAction::Charge, Some(target), None) = (*action, intent.target, halt) {
        let ended =
            ChargeEnded { charger: intent.creature, target, finish: intent.finish, weapon: intent.weapon.clone() };
        charge_arrives(world, ended);
    }
    world.trigger(MoveEnded { mover: intent.creature });
    world.flush();
}

/// A charger arrives, on foot or in the air: « Après s'être déplacé ... Dans le même temps ... un malus de -2
/// à la CA » (004:457), in force now, as its attack comes, or the bull rush or overrun that takes its place
/// and the attacks of opportunity they draw (004:458, 004:534). Its rider charges with it: -2 to its AC too
/// (004:478). The actions readied for a charger's arrival go off, then its charge ends.
pub fn charge_arrives(world: &mut World, ended: ChargeEnded) {
    let riders: Vec<Entity> = world.get::<Riders>(ended.charger).map(|r| r.all().to_vec()).unwrap_or_default();
    for charger in std::iter::once(ended.charger).chain(riders) {
        gain_now(world, charger, Condition::Charging);
    }
    world.trigger(ChargeArrived { charger: ended.charger });
    world.flush();
    world.write_message(ended);
}

/// Gives `creature` `condition` at once (not by a [`ConditionChange`] applied later), with its fact.
pub fn gain_now(world: &mut World, creature: Entity, condition: Condition) {
    let Some(id) = world.get::<CreatureId>(creature).cloned() else { return };
    let gained = world.get_mut::<Conditions>(creature).is_some_and(|mut c| c.0.insert(condition));
    if gained {
        world.write_message(Fact::ConditionGained { creature: id, condition });
    }
}

/// DC of the Constitution check to go on running in round `round` (1-based) of a run: `None` during the
/// free rounds, then DC 10, 11, 12… one more each round; a failure stops the run for `RUN_REST_ROUNDS`,
/// 003:61, 004:249.
pub fn run_check_dc(constitution_score: u32, round: u32) -> Option<u32> {
    let free = free_run_rounds(constitution_score);
    (round > free).then(|| RUN_BASE_DC.saturating_add(round - free - 1))
}

/// DC of the first Constitution check to keep running past the free rounds, 004:249 (called by 003:61).
pub const RUN_BASE_DC: u32 = 10;

/// Rounds a creature may run without a check: its Constitution score, 003:61, 004:249.
pub fn free_run_rounds(constitution_score: u32) -> u32 {
    constitution_score
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
        assert!(resting.check_rest(6, MovementAction::DoubleMove, false).is_err());
        assert!(resting.check_rest(6, MovementAction::Move, false).is_ok());
        assert!(resting.check_rest(6, MovementAction::Move, true).is_err());
        assert!(resting.check_rest(15, MovementAction::Run, false).is_ok());
        assert!(resting.check_rest(15, MovementAction::Move, true).is_ok());
    }

    #[test]
    fn running_rounds_then_checks() {
        // 003:61, 004:249: Con 12 runs 12 rounds freely, then DC 10, 11, 12…
        assert_eq!(free_run_rounds(12), 12);
        assert_eq!(run_check_dc(12, 1), None);
        assert_eq!(run_check_dc(12, 12), None);
        assert_eq!(run_check_dc(12, 13), Some(10));
        assert_eq!(run_check_dc(12, 14), Some(11));
        assert_eq!(run_check_dc(12, 20), Some(17));
        assert_eq!(RUN_REST_ROUNDS, 10);
    }
}
