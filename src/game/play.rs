//! Playing with the mouse: the square under the cursor, the mode chosen in the action bar, the previews
//! of the active creature, clicks and keys turned into steps, the AI's turns, restarts. Every action goes
//! through [`crate::scenario::apply_step`], as a scenario's would, and is kept in [`History`] (what a saved
//! battle replays).

use std::collections::{HashMap, VecDeque};

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

use super::square_of;
use crate::data::level::Control;
use crate::encounter::{ActiveEncounter, begin, spawn_encounter};
use crate::preview::{
    AttackPreview, FlightStrike, MoveOptions, PathPreview, attack_preview, charge_lanes, move_options, path_preview,
};
use crate::rules::attack::AttackRequest;
use crate::rules::command::Command;
use crate::rules::core::creature::*;
use crate::rules::core::facts::EventLog;
use crate::rules::core::geometry::Square;
use crate::rules::core::reach::threatened_squares;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::RulesStep;
use crate::rules::movement::{ChargeLane, MovementAction};
use crate::rules::turns::FullAttackUnderway;
use crate::rules::turns::TurnOrder;
use crate::rules::turns::ready::{ReadiedAction, Trigger};

/// Frames between two steps of an AI turn, so a player can follow it.
pub const AI_PACE_FRAMES: u32 = 6;

/// The square under the cursor, if the cursor is over the board and not over a panel.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct Hover {
    /// The square.
    pub square: Option<Square>,
    /// The creature whose token is under the cursor, the topmost: a rider on its mount, one of the
    /// creatures sharing a chase-scale square.
    pub token: Option<Entity>,
}

/// Starting again and carrying out the pending step: after the input, before the rules.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlaySystems;

/// What a click on the board does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Move to an empty square with the least action that reaches it; attack a foe.
    #[default]
    Auto,
    /// Move with this action.
    Move(MovementAction),
    /// One attack (a standard action).
    Attack,
    /// A full attack.
    FullAttack,
    /// Charge the foe clicked.
    Charge,
    /// Ready an attack: on the foe clicked, for when it acts; on any other square, for the first foe that
    /// steps into reach (004:620-622).
    Ready,
    /// Cast the chosen spell at the creature clicked, foe, ally or itself (004:190-200).
    Cast,
    /// Breathe the breath weapon at the creature clicked.
    Breath,
    /// A flyby attack (004:755), a swoop after 6 m of dives (004:751): the foe clicked first, struck on the
    /// way; then the square the flight ends on.
    Flyby,
    /// Fly into the flier clicked: a collision (004:758, 004:825).
    Ram,
    /// Bluff the pursuer clicked, then fly the turn into a cloud or the dive away (004:818).
    Bluff,
}

/// Where a flyby attack strikes: the foe, the part of the flight flown before the attack, and whether it
/// is a swoop (6 m of dives first, 004:751).
#[derive(Clone, Debug, PartialEq)]
pub struct FlybyPoint {
    /// The foe struck.
    pub target: Entity,
    /// The flight up to the attack.
    pub planned: crate::rules::aerial::route::PlannedFlight,
    /// A swoop: the claw for double damage, DC 20 (004:751).
    pub swoop: bool,
}

impl FlybyPoint {
    /// The square the attack is made from.
    pub fn at(&self) -> Option<Square> {
        self.planned.flight.waypoints.last().map(|w| w.square)
    }
}

/// The player's choices for the active creature.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub struct Choice {
    /// What a click does.
    pub mode: Mode,
    /// Fight defensively with the next attack (004:183).
    pub defensively: bool,
    /// Show the squares the foes threaten.
    pub show_threats: bool,
    /// Squares the path must pass, in order.
    pub waypoints: Vec<Square>,
    /// The weapon chosen; the first if `None`.
    pub weapon: Option<String>,
    /// The spell chosen in cast mode.
    pub spell: Option<String>,
    /// Steps of 1.5 m to climb (positive) or dive (negative) at the start of a flier's flight (Q and Z).
    pub climb: i32,
    /// The speed a flier declares for its turn (004:686), which its flight must keep to (V); `None` lets
    /// the length of the flight chosen say.
    pub speed: Option<crate::rules::core::names::SpeedStatus>,
    /// The declared stall is flown as a deceleration (004:759): a fly check, slow if it is made.
    pub decelerate: bool,
    /// In flyby mode, the attack chosen on the way.
    pub flyby: Option<FlybyPoint>,
    /// In bluff mode, the pursuer to mislead with the flight (004:818).
    pub bluff: Option<Entity>,
}

/// The creature last clicked on: its sheet stays in the panel.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct Selected(pub Option<Entity>);

/// Which of the party acting together (a rider, its mount, its passengers, 004:653-655) the player
/// commands now: `Tab` goes to the next.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commanded {
    /// The creature commanded.
    pub who: Option<Entity>,
    /// In which turn: the round and whose place it is. A new turn begins with the first of the party.
    pub turn: (u32, Option<Entity>),
}

/// Steps waiting to be carried out, one per frame.
#[derive(Resource, Default, Debug)]
pub struct Pending(pub VecDeque<Command>);

/// Every action taken since the battle began, in order: a saved battle replays them.
#[derive(Resource, Default, Debug, Clone)]
pub struct History(pub Vec<Command>);

/// Who plays each faction.
#[derive(Resource, Default, Debug, Clone)]
pub struct Controllers(pub HashMap<String, Control>);

impl Controllers {
    /// Who plays each faction as the level says.
    pub fn of(encounter: &crate::data::Encounter) -> Self {
        Controllers(encounter.factions.iter().map(|f| (f.name.clone(), f.control)).collect())
    }
}

/// Asks for the battle to start again from `encounter`.
#[derive(Resource, Debug, Clone)]
pub struct Restart {
    /// Replay these steps after the start (loading a saved battle).
    pub replay: Vec<Command>,
}

/// The dice seed of the battle.
#[derive(Resource, Debug, Clone, Copy)]
pub struct Seed(pub u64);

/// What the previews show now.
#[derive(Resource, Default)]
pub struct Previews {
    key: Option<PreviewKey>,
    /// Bumped whenever the previews change, for the overlays.
    pub generation: u64,
    /// The creature whose turn it is, when a person plays it.
    pub active: Option<Entity>,
    /// Where it can go.
    pub options: MoveOptions,
    /// The path to the hovered square.
    pub path: Option<Result<PathPreview, Refusal>>,
    /// The creature under the cursor.
    pub hovered: Option<Entity>,
    /// The attack on the hovered foe.
    pub attack: Option<Result<AttackPreview, Refusal>>,
    /// The spell on the hovered creature, in cast mode.
    pub cast: Option<Result<crate::preview::CastPreview, Refusal>>,
    /// Whom a breath at the hovered creature would cover, in breath mode.
    pub breath: Option<Result<Vec<Entity>, Refusal>>,
    /// For a flier in the air: every square its flight can end on this turn, with the flight (004:671-786).
    pub flights: Option<std::collections::HashMap<Square, crate::rules::aerial::route::PlannedFlight>>,
    /// In flyby and ram modes, the flight a click on the hovered creature would fly: to strike it on the
    /// way (before the end is chosen), or into it; or the rule that leaves none.
    pub manoeuvre: Option<Result<crate::rules::aerial::route::PlannedFlight, Refusal>>,
    /// The charge lanes toward the hovered foe, in charge mode.
    pub lanes: Option<Result<Vec<ChargeLane>, Refusal>>,
    /// Squares the foes of the active creature threaten, when asked.
    pub threatened: Vec<Square>,
}

#[derive(Clone, Debug, PartialEq)]
struct PreviewKey {
    active: Option<Entity>,
    facts: usize,
    hover: Option<Square>,
    token: Option<Entity>,
    choice: Choice,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Hover>()
        .init_resource::<Choice>()
        .init_resource::<Pending>()
        .init_resource::<History>()
        .init_resource::<Selected>()
        .init_resource::<Commanded>()
        .init_resource::<Previews>();
    app.configure_sets(Update, PlaySystems.after(super::input::InputSystems).before(RulesStep));
    app.add_systems(Update, (restart, apply_pending).chain().in_set(PlaySystems));
    app.add_systems(Update, (play_ai, update_previews).chain().after(RulesStep).before(super::ViewSystems::Spawn));
    app.add_systems(Update, (keys, clicks).chain().in_set(super::input::InputSystems));
}

/// The creature whose turn it is, if a person plays it: of a party acting together, the one commanded.
pub fn human_turn(world: &World) -> Option<Entity> {
    let order = world.resource::<TurnOrder>();
    if order.ended {
        return None;
    }
    let turn = (order.round, order.place_holder());
    let commanded = world
        .get_resource::<Commanded>()
        .filter(|c| c.turn == turn)
        .and_then(|c| c.who)
        .filter(|c| order.acting.contains(c));
    let current = commanded.or(order.current_entity())?;
    let faction = world.get::<Faction>(current)?;
    let controllers = world.get_resource::<Controllers>()?;
    (controllers.0.get(&faction.0).copied().unwrap_or_default() == Control::Human).then_some(current)
}

/// The creature that flies when `me` flies: the mount it directs as its rider (004:807), else itself.
pub fn flier_of(world: &World, me: Entity) -> Entity {
    crate::rules::mounted::directed_mount(world, me).unwrap_or(me)
}

/// The step that gets `me` on an ally next to it, or off its mount onto the first free square beside it
/// (004:226): what `N` does. `None` when there is no mount to get on.
pub fn ride_step(world: &mut World, me: Entity) -> Option<Command> {
    let creature = id_of(world, me);
    if let Some(riding) = world.get::<crate::rules::core::creature::Riding>(me).copied() {
        let mount = riding.0;
        let (position, space) = (world.get::<Position>(mount)?.0, *world.get::<Space>(mount)?);
        let at = space.at(position);
        let mut around: Vec<Square> = (at.origin.y - 1..=at.origin.y + at.height)
            .flat_map(|y| (at.origin.x - 1..=at.origin.x + at.width).map(move |x| Square::new(x, y)))
            .filter(|s| !at.contains(*s))
            .filter(|s| world.resource::<crate::rules::core::battlefield::Battlefield>().contains(*s))
            .collect();
        around.sort_by_key(|s| (s.y, s.x));
        let free = around.into_iter().find(|s| creature_at(world, *s).is_none())?;
        return Some(Command::Dismount { creature, to: free });
    }
    let mount = mount_beside(world, me)?;
    Some(Command::Mount { creature, mount: id_of(world, mount) })
}

/// The ally `me` could get on now, if any ([`crate::rules::mounted::mount_beside`] over the roster).
fn mount_beside(world: &World, me: Entity) -> Option<Entity> {
    let roster = world.get_resource::<crate::rules::core::creature::Roster>()?;
    crate::rules::mounted::mount_beside(world, me, roster.0.values().copied())
}

/// The creature the cursor points at on `square`: the one whose token is under it (a rider on its mount,
/// one of several in a chase-scale square), else the one standing there.
pub fn pointed_at(world: &mut World, square: Square) -> Option<Entity> {
    let token = world.resource::<Hover>().token.filter(|e| {
        world.get::<Position>(*e).zip(world.get::<Space>(*e)).is_some_and(|(p, s)| s.at(p.0).contains(square))
    });
    token.or_else(|| creature_at(world, square))
}

/// The creature standing on `square`, if any.
pub fn creature_at(world: &mut World, square: Square) -> Option<Entity> {
    let mut q = world.query_filtered::<(Entity, &Position, &Space, &Conditions), With<Creature>>();
    let mut found: Vec<(bool, Entity)> = q
        .iter(world)
        .filter(|(_, p, s, _)| s.at(p.0).contains(square))
        .map(|(e, _, _, c)| (c.has(Condition::Dead), e))
        .collect();
    // The living over the dead.
    found.sort();
    found.first().map(|(_, e)| *e)
}

fn id_of(world: &World, entity: Entity) -> CreatureId {
    world.get::<CreatureId>(entity).cloned().unwrap_or_default()
}

/// The action a click in auto mode moves with: a move or a double move, or a run beyond; a 5-foot step
/// when it is all that is left or when it avoids an attack of opportunity the move would provoke.
fn auto_action(
    world: &mut World,
    creature: Entity,
    options: &MoveOptions,
    to: Square,
    waypoints: &[Square],
) -> Option<MovementAction> {
    let (least, _) = options.at(to)?;
    if least != MovementAction::FiveFootStep {
        return Some(least);
    }
    let move_open = options.open.iter().any(|(a, r)| *a == MovementAction::Move && r.is_ok());
    if !move_open || !waypoints.is_empty() {
        return Some(if move_open { MovementAction::Move } else { least });
    }
    match path_preview(world, creature, MovementAction::Move, to, waypoints) {
        Ok(p) if p.provocations.is_empty() => Some(MovementAction::Move),
        _ => Some(MovementAction::FiveFootStep),
    }
}

/// The path a click on `to` would take now.
fn path_for(
    world: &mut World,
    creature: Entity,
    choice: &Choice,
    options: &MoveOptions,
    to: Square,
) -> Option<Result<PathPreview, Refusal>> {
    let action = match choice.mode {
        Mode::Move(action) => action,
        // A click on a square in the middle of a full attack gives up the rest for a move (004:232).
        Mode::FullAttack if world.get::<FullAttackUnderway>(creature).is_some() => MovementAction::Move,
        // Out of reach: ask for the farthest move anyway, for the refusal that says why.
        Mode::Auto => {
            auto_action(world, creature, options, to, &choice.waypoints).unwrap_or(MovementAction::DoubleMove)
        }
        _ => return None,
    };
    let first = path_preview(world, creature, action, to, &choice.waypoints);
    // A path bent through waypoints may need the double move where the straight one needed a move.
    let double_open = options.open.iter().any(|(a, r)| *a == MovementAction::DoubleMove && r.is_ok());
    if first.is_err() && choice.mode == Mode::Auto && action == MovementAction::Move && double_open {
        let second = path_preview(world, creature, MovementAction::DoubleMove, to, &choice.waypoints);
        if second.is_ok() {
            return Some(second);
        }
    }
    Some(first)
}

fn request(choice: &Choice, underway: bool) -> AttackRequest<'_> {
    AttackRequest {
        weapon: choice.weapon.as_deref(),
        full: choice.mode == Mode::FullAttack,
        defensively: choice.defensively,
        paid: underway && choice.mode == Mode::FullAttack,
        ..default()
    }
}

/// Recomputes the previews when the turn, the state, the cursor's square or the choices change.
pub fn update_previews(world: &mut World) {
    let active = human_turn(world);
    // A flier's climb and declared speed are for its own turn (004:686).
    if world.resource::<Previews>().key.as_ref().is_some_and(|k| k.active != active) {
        let mut choice = world.resource_mut::<Choice>();
        if choice.climb != 0
            || choice.speed.is_some()
            || choice.decelerate
            || choice.flyby.is_some()
            || choice.bluff.is_some()
        {
            choice.climb = 0;
            choice.speed = None;
            choice.decelerate = false;
            choice.flyby = None;
            choice.bluff = None;
        }
    }
    let key = PreviewKey {
        active,
        facts: world.resource::<EventLog>().0.len(),
        hover: world.resource::<Hover>().square,
        token: world.resource::<Hover>().token,
        choice: world.resource::<Choice>().clone(),
    };
    if world.resource::<Previews>().key.as_ref() == Some(&key) {
        return;
    }
    let turn_changed = world.resource::<Previews>().key.as_ref().is_none_or(|k| k.active != active);
    if turn_changed && active.is_some() {
        world.insert_resource(Selected(active));
    }
    let mut previews = Previews { generation: world.resource::<Previews>().generation + 1, active, ..default() };
    previews.hovered = key.hover.and_then(|s| pointed_at(world, s));
    if let Some(me) = active {
        // Where the creature can go changes with the state and the choices, not with the cursor.
        let old = world.resource::<Previews>();
        let same_state = old
            .key
            .as_ref()
            .is_some_and(|k| k.active == key.active && k.facts == key.facts && k.choice.mode == key.choice.mode);
        let same_flight = old.key.as_ref().is_some_and(|k| same_flight(&k.choice, &key.choice));
        let old_flights = (same_state && same_flight).then(|| old.flights.clone());
        previews.options = if same_state { old.options.clone() } else { move_options(world, me) };
        previews.flights = match old_flights {
            Some(flights) => flights,
            None => flights_for(world, me, &key.choice),
        };
        let hovered_foe = previews.hovered.filter(|e| *e != me && world.get::<Faction>(*e) != world.get::<Faction>(me));
        if key.choice.mode == Mode::Cast
            && let (Some(target), Some(spell)) = (previews.hovered, key.choice.spell.as_deref())
        {
            previews.cast = Some(crate::preview::cast_preview(world, me, target, spell));
        }
        if key.choice.mode == Mode::Breath
            && let Some(target) = previews.hovered.filter(|e| *e != me)
        {
            previews.breath = Some(crate::rules::breath::breath_preview(world, me, target));
        }
        // The manoeuvre a click on the hovered creature would fly.
        if previews.flights.is_some()
            && let Some(target) = previews.hovered.filter(|e| *e != me)
        {
            previews.manoeuvre = match key.choice.mode {
                Mode::Flyby if key.choice.flyby.is_none() => {
                    Some(flyby_point(world, me, target).map(|point| point.planned))
                }
                Mode::Ram => Some(ram_flight(world, me, target).map(|(planned, _)| planned)),
                _ => None,
            };
        }
        match (hovered_foe, key.hover) {
            (Some(_), _)
                if matches!(key.choice.mode, Mode::Cast | Mode::Breath | Mode::Flyby | Mode::Ram | Mode::Bluff) => {}
            (Some(foe), _) => {
                if key.choice.mode == Mode::Charge {
                    previews.lanes = Some(charge_lanes(world, me, foe));
                } else {
                    let underway = world.get::<FullAttackUnderway>(me).is_some();
                    previews.attack = Some(attack_preview(world, me, foe, request(&key.choice, underway)));
                }
            }
            // A flier in the air has its flights instead of a ground path.
            (None, Some(_)) if previews.flights.is_some() => {}
            (None, Some(square)) if previews.hovered.is_none() => {
                previews.path = path_for(world, me, &key.choice, &previews.options, square);
            }
            _ => {}
        }
        if key.choice.show_threats {
            previews.threatened = foes_threatened(world, me);
        }
    }
    previews.key = Some(key);
    world.insert_resource(previews);
}

/// The flights of `me` with the choice's climbs first, at its declared speed: the previews' when they were
/// planned for this state and choice (planning takes milliseconds, the HUD asks on every cursor move), else
/// planned afresh.
fn flights_of(
    world: &mut World,
    me: Entity,
    choice: &Choice,
) -> Option<std::collections::HashMap<Square, crate::rules::aerial::route::PlannedFlight>> {
    let facts = world.resource::<EventLog>().0.len();
    let previews = world.resource::<Previews>();
    let current = previews
        .key
        .as_ref()
        .is_some_and(|k| k.active == Some(me) && k.facts == facts && same_flight(&k.choice, choice));
    if current {
        return previews.flights.clone();
    }
    flights_for(world, me, choice)
}

/// Whether two choices ask for the same flights.
fn same_flight(a: &Choice, b: &Choice) -> bool {
    a.climb == b.climb && a.speed == b.speed && a.decelerate == b.decelerate && a.flyby == b.flyby && a.bluff == b.bluff
}

/// The flights `me` (its mount, when it rides one) can fly now as the choice asks: after its climbs and
/// dives, or after the flyby attack chosen; at the speed declared; flown as a deceleration (004:759) or
/// with a flyby attack (004:755) only where the rules allow that manoeuvre. `None` when it cannot fly.
pub fn flights_for(
    world: &mut World,
    me: Entity,
    choice: &Choice,
) -> Option<std::collections::HashMap<Square, crate::rules::aerial::route::PlannedFlight>> {
    use crate::rules::aerial::flying;
    let flier = flier_of(world, me);
    let prefix = match &choice.flyby {
        Some(point) => point.planned.steps.clone(),
        None => climb_steps(choice.climb),
    };
    let declared = if choice.decelerate { Some(crate::rules::core::names::SpeedStatus::Stall) } else { choice.speed };
    let mut flights = flying::plan_flights(world, flier, &prefix, declared)?;
    let maneuverability = world.get::<Speed>(flier)?.fly?.maneuverability;
    let scale = world.resource::<crate::rules::core::battlefield::Battlefield>().scale();
    if choice.decelerate {
        flights.retain(|_, p| flying::deceleration_fits(&p.flight, maneuverability, scale).is_ok());
    }
    if let Some(point) = &choice.flyby {
        let after = point.planned.steps.len();
        flights
            .retain(|_, p| flying::flyby_fits(&p.flight, &p.steps, after, point.swoop, maneuverability, scale).is_ok());
        // Ending the flight where it strikes.
        if let Some(at) = point.at() {
            flights.insert(at, point.planned.clone());
        }
    }
    // A Bluff comes before a turn into a cloud or a dive away (004:818).
    if choice.bluff.is_some() {
        let field = world.resource::<crate::rules::core::battlefield::Battlefield>();
        flights.retain(|_, p| {
            let cloud = p.flight.waypoints.last().is_some_and(|w| field.is_foggy(w.square));
            flying::bluff_fits(&p.steps, cloud, scale).is_ok()
        });
    }
    Some(flights)
}

/// The speeds the flier `flier` may declare, each with whether it is flown as a deceleration, `None` (the
/// flight's length says) first: a hover for perfect and good fliers and the Hover feat (004:708), a stall
/// and a deceleration for the others (perfect and good fliers only stall by choice, which we do not offer:
/// 004:702, 004:759), slow, fast and top speed (004:689-695).
pub fn declarable(world: &World, flier: Entity) -> Vec<(Option<crate::rules::core::names::SpeedStatus>, bool)> {
    use crate::rules::core::names::SpeedStatus;
    let Some(wings) = world.get::<Speed>(flier).and_then(|s| s.fly) else { return vec![(None, false)] };
    let nimble = crate::rules::core::sight::is_nimble(wings.maneuverability);
    let hover = nimble || world.get::<Feats>(flier).is_some_and(|f| f.has(Feat::Hover));
    let mut out = vec![(None, false)];
    if hover {
        out.push((Some(SpeedStatus::Hover), false));
    }
    if !nimble {
        out.extend([(Some(SpeedStatus::Stall), false), (Some(SpeedStatus::Stall), true)]);
    }
    out.extend([SpeedStatus::Slow, SpeedStatus::Fast, SpeedStatus::TopSpeed].map(|s| (Some(s), false)));
    out
}

/// A flight the planner found for `me` (its mount, when it rides one), as a step, with what the choice
/// asks of it: a hover, a deceleration, the flyby attack chosen, the Bluff.
fn planned_step(
    world: &World,
    me: Entity,
    planned: &crate::rules::aerial::route::PlannedFlight,
    dive_at: Option<CreatureId>,
    choice: &Choice,
) -> Command {
    let mut step = Command::flight(id_of(world, flier_of(world, me)), planned.steps.clone(), dive_at);
    if let Command::Fly { hover, decelerate, flyby, swoop, bluff, .. } = &mut step {
        *hover = choice.speed == Some(crate::rules::core::names::SpeedStatus::Hover);
        *decelerate = choice.decelerate;
        if let Some(point) = &choice.flyby {
            *flyby = Some((id_of(world, point.target), point.planned.steps.len()));
            *swoop = point.swoop;
        }
        *bluff = choice.bluff.map(|p| id_of(world, p));
    }
    step
}

/// The flight to `square` the preview offers `me` as the choice asks, as a step; `None` when none ends
/// there.
fn flight_step(world: &mut World, me: Entity, square: Square) -> Option<Command> {
    let choice = world.resource::<Choice>().clone();
    let flights = flights_of(world, me, &choice)?;
    Some(planned_step(world, me, flights.get(&square)?, None, &choice))
}

/// Flights in order of preference for a strike: slow rather than fast, then the fewest fly checks, then
/// the cheapest.
fn strike_rank(at: &Square, planned: &crate::rules::aerial::route::PlannedFlight) -> (u8, usize, u32, i32, i32) {
    use crate::rules::core::names::SpeedStatus;
    let rank = match planned.flight.status {
        SpeedStatus::Slow | SpeedStatus::Hover => 0,
        SpeedStatus::Fast => 1,
        _ => 2,
    };
    (rank, planned.flight.checks.len(), planned.flight.spent, at.y, at.x)
}

/// How a flier in the air would strike the foe on `square`: the flight that ends where it threatens the
/// foe (slow rather than fast, then the cheapest), as a dive attack when the flight begins with 6 m of
/// dives (`Z` four times, 004:753), else the flight and then the attack with the standard action a slow
/// flight leaves. `None` when it is not a flier's turn, there is no foe there, or no flight reaches it.
pub fn flier_strike(world: &mut World, square: Square) -> Option<Vec<Command>> {
    let me = human_turn(world)?;
    if !matches!(world.resource::<Choice>().mode, Mode::Auto | Mode::Attack) {
        return None;
    }
    let foe = pointed_at(world, square)?;
    if world.get::<Faction>(foe) == world.get::<Faction>(me) {
        return None;
    }
    // A rider who can strike the foe from where it is strikes at once; otherwise its mount flies it
    // within its reach (004:807, 004:812).
    let flier = flier_of(world, me);
    if flier != me && crate::preview::attack_preview(world, me, foe, AttackRequest::default()).is_ok() {
        return None;
    }
    let choice = world.resource::<Choice>().clone();
    let flights = flights_of(world, me, &choice)?;
    let strike = FlightStrike::of(world, me, flier_of(world, me), foe)?;
    let dive = choice.climb <= -strike.scale.dive_attack_drop();
    let (_, planned) = flights
        .iter()
        .filter(|(at, planned)| strike.reaches(**at, planned) && (dive || strike_rank(at, planned).0 == 0))
        .min_by_key(|(at, planned)| strike_rank(at, planned))?;
    let creature = id_of(world, me);
    let fly = |dive_at: Option<CreatureId>| planned_step(world, me, planned, dive_at, &choice);
    let target = id_of(world, foe);
    Some(if dive {
        vec![fly(Some(target))]
    } else {
        vec![
            fly(None),
            Command::Attack {
                creature: creature.clone(),
                target,
                weapon: None,
                defensively: false,
                full: false,
                lethal: false,
                two_weapons: false,
                blows: None,
            },
        ]
    })
}

/// The flyby attack on `foe` a click chooses in flyby mode (004:755-757): the cheapest slow flight that
/// ends within the striker's reach of it with two manoeuvres left, a swoop when it begins with 6 m of dives
/// (`Z` four times, 004:751); or the rule that leaves none. A rider strikes from its mount's flight only
/// with Flyby Attack, and a ridden flier never swoops (004:656, 004:812).
pub fn flyby_point(world: &mut World, me: Entity, foe: Entity) -> Result<FlybyPoint, Refusal> {
    use crate::rules::turns::{ActionBudget, ActionKind};
    let grounded = || Refusal::new("not a flier in the air with its flight still to fly", "004:686");
    if world.get::<Faction>(foe) == world.get::<Faction>(me) {
        return Err(Refusal::new("a flyby attack strikes a foe", "004:755"));
    }
    world.get::<ActionBudget>(me).copied().unwrap_or_default().check(ActionKind::Standard)?;
    let flier = flier_of(world, me);
    let mut choice = world.resource::<Choice>().clone();
    choice.flyby = None;
    let strike = FlightStrike::of(world, me, flier_of(world, me), foe).ok_or_else(grounded)?;
    let swoop = choice.climb <= -strike.scale.dive_attack_drop();
    if flier != me {
        if !world.get::<Feats>(me).is_some_and(|f| f.has(Feat::FlybyAttack)) {
            return Err(Refusal::new(
                "the rider acts before or after its mount's move, not in the middle of it, without Flyby Attack",
                "004:812",
            ));
        }
        if swoop {
            return Err(Refusal::new("a ridden flier takes no standard action of its own: no swoop", "004:656"));
        }
    }
    let flights = flights_of(world, me, &choice).ok_or_else(grounded)?;
    let maneuverability = world.get::<Speed>(flier).and_then(|s| s.fly).ok_or_else(grounded)?.maneuverability;
    let reaching: Vec<_> = flights.iter().filter(|(at, planned)| strike.reaches(**at, planned)).collect();
    if reaching.is_empty() {
        return Err(Refusal::new("no flight this turn ends within its reach", "004:755"));
    }
    let mut why = None;
    reaching
        .into_iter()
        .filter(|(_, p)| {
            let fits = crate::rules::aerial::flying::flyby_fits(
                &p.flight,
                &p.steps,
                p.steps.len(),
                swoop,
                maneuverability,
                strike.scale,
            );
            why = why.take().or(fits.clone().err());
            fits.is_ok()
        })
        .min_by_key(|(at, planned)| strike_rank(at, planned))
        .map(|(_, planned)| FlybyPoint { target: foe, planned: planned.clone(), swoop })
        .ok_or_else(|| why.unwrap_or_else(grounded))
}

/// The flight into the flier `foe` a click makes in ram mode (004:758, 004:825): the cheapest flight at
/// the speed declared, after the climbs and dives chosen, that ends in its space at its height (at chase
/// scale in its square and band, with the two manoeuvres of the collision left); or the rule that leaves
/// none.
pub fn ram_flight(
    world: &mut World,
    me: Entity,
    foe: Entity,
) -> Result<(crate::rules::aerial::route::PlannedFlight, Command), Refusal> {
    use crate::rules::aerial::flying;
    use crate::rules::core::altitude::Scale;
    let grounded = || Refusal::new("not a flier in the air with its flight still to fly", "004:686");
    let flier = flier_of(world, me);
    if foe == flier || foe == me {
        return Err(Refusal::new("a flier collides with another", "004:825"));
    }
    let their_altitude = world.get::<Altitude>(foe).map_or(0, |a| a.0);
    if their_altitude <= 0 {
        return Err(Refusal::new(format!("{} is not flying", id_of(world, foe)), "004:758"));
    }
    let choice = world.resource::<Choice>().clone();
    let scale = world.resource::<crate::rules::core::battlefield::Battlefield>().scale();
    // At chase scale a square holds many: the flights the preview has already reach the foe's square. At
    // normal scale the foe's space stops them, and they are planned again through it.
    let flights = match scale {
        Scale::Chase => flights_of(world, me, &choice),
        Scale::Normal => {
            let declared =
                if choice.decelerate { Some(crate::rules::core::names::SpeedStatus::Stall) } else { choice.speed };
            flying::plan_flights_through(world, flier, &climb_steps(choice.climb), declared, Some(foe))
        }
    }
    .ok_or_else(grounded)?;
    let maneuverability = world.get::<Speed>(flier).and_then(|s| s.fly).ok_or_else(grounded)?.maneuverability;
    let (my_size, side) =
        (*world.get::<Size>(flier).ok_or_else(grounded)?, world.get::<Space>(flier).ok_or_else(grounded)?.width);
    let their_at = {
        let (p, s) = (world.get::<Position>(foe).ok_or_else(grounded)?, world.get::<Space>(foe).ok_or_else(grounded)?);
        s.at(p.0)
    };
    let their_size = world.get::<Size>(foe).copied().unwrap_or_default();
    let enters = |at: Square, planned: &crate::rules::aerial::route::PlannedFlight| {
        let alt = planned.flight.waypoints.last().map_or(0, |w| w.altitude);
        crate::rules::core::geometry::Footprint::new(at, side).overlaps(their_at)
            && match scale {
                Scale::Chase => alt == their_altitude,
                Scale::Normal => flying::heights_overlap(scale, (alt, my_size), (their_altitude, their_size)),
            }
    };
    let entering: Vec<_> = flights.iter().filter(|(at, planned)| enters(**at, planned)).collect();
    if entering.is_empty() {
        return Err(Refusal::new(
            match scale {
                Scale::Chase => "no flight this turn ends in its square and band: climb (Q) or dive (Z) a band first",
                Scale::Normal => "no flight this turn enters its space at its height: climb (Q) or dive (Z) first",
            },
            "004:758",
        ));
    }
    let mut why = None;
    let (_, planned) = entering
        .into_iter()
        .filter(|(_, p)| {
            let fits = match scale {
                Scale::Chase => flying::collision_fits(&p.flight, maneuverability, scale),
                Scale::Normal => Ok(()),
            };
            why = why.take().or(fits.clone().err());
            fits.is_ok()
        })
        .min_by_key(|(at, planned)| strike_rank(at, planned))
        .ok_or_else(|| why.unwrap_or_else(grounded))?;
    let mut step = planned_step(world, me, planned, None, &choice);
    if let Command::Fly { ram, .. } = &mut step {
        *ram = (scale == Scale::Chase).then(|| id_of(world, foe));
    }
    Ok((planned.clone(), step))
}

/// The climbs or dives a flier's flight begins with.
pub fn climb_steps(climb: i32) -> Vec<crate::rules::aerial::route::FlightStep> {
    use crate::rules::aerial::route::FlightStep;
    let step = if climb > 0 { FlightStep::Climb } else { FlightStep::Dive { far: false } };
    vec![step; climb.unsigned_abs() as usize]
}

/// Every square a foe of `me` threatens: within its reach, not in a flier's blind spot (004:675-680).
pub fn foes_threatened(world: &mut World, me: Entity) -> Vec<Square> {
    let Some(mine) = world.get::<Faction>(me).cloned() else { return Vec::new() };
    let my_height = (world.get::<Altitude>(me).map_or(0, |a| a.0), world.get::<Size>(me).copied().unwrap_or_default());
    let (width, height, scale) = {
        let field = world.resource::<crate::rules::core::battlefield::Battlefield>();
        (field.width(), field.height(), field.scale())
    };
    let mut q = world.query::<(
        &Faction,
        &Position,
        &Space,
        &Reach,
        &Armament,
        &Traits,
        &Feats,
        &Conditions,
        (&Altitude, &Heading, &Speed, &Size),
    )>();
    let mut squares: Vec<Square> = q
        .iter(world)
        .filter(|(f, .., c, _)| **f != mine && c.can_act() && !c.threatens_nothing())
        .flat_map(|(_, position, space, reach, armament, traits, feats, _, (altitude, heading, speed, size))| {
            let armed = traits.armed_unarmed || feats.has(Feat::ImprovedUnarmedStrike);
            // A foe too far above or below `me` threatens nothing it could reach (004:783-784).
            let rise = crate::rules::core::altitude::vertical_steps(scale, altitude.0, *size, my_height.0, my_height.1);
            let weapons: Vec<Weapon> = crate::rules::core::reach::threatening_weapons(&armament.0, armed)
                .into_iter()
                .filter(|w| rise <= crate::rules::core::altitude::vertical_reach(reach.0, w.reach))
                .cloned()
                .collect();
            let at = space.at(position.0);
            let behind = crate::rules::core::sight::unthreatened_behind(
                at,
                altitude.0,
                heading.0,
                speed,
                traits.all_round_vision,
                &armament.0,
            );
            threatened_squares(at, reach.0, &weapons, armed, width, height)
                .into_iter()
                .filter(move |s| !behind.contains(s))
        })
        .collect();
    squares.sort_by_key(|s| (s.y, s.x));
    squares.dedup();
    squares
}

/// The step a left click on `square` asks for, if any.
pub fn click_step(world: &mut World, square: Square) -> Option<Command> {
    let me = human_turn(world)?;
    let choice = world.resource::<Choice>().clone();
    let my_id = id_of(world, me);
    if let Some(there) = pointed_at(world, square)
        && choice.mode == Mode::Breath
        && there != me
    {
        return Some(Command::Breathe { creature: my_id, toward: id_of(world, there) });
    }
    if let Some(there) = pointed_at(world, square)
        && choice.mode == Mode::Cast
    {
        let spell = choice.spell.clone()?;
        return Some(Command::Cast {
            creature: my_id,
            spell,
            target: Some(id_of(world, there)),
            defensively: choice.defensively,
        });
    }
    if let Some(there) = pointed_at(world, square) {
        // A flier that declared a hover stays where it is by a click on itself (004:708).
        if (there == me || there == flier_of(world, me))
            && choice.speed == Some(crate::rules::core::names::SpeedStatus::Hover)
            && let Some(flights) = flights_of(world, me, &choice)
        {
            let origin = world.get::<Position>(flier_of(world, me))?.0;
            return flights.get(&origin).map(|planned| planned_step(world, me, planned, None, &choice));
        }
        if there == me || world.get::<Faction>(there) == world.get::<Faction>(me) {
            return None;
        }
        let target = id_of(world, there);
        return Some(match choice.mode {
            Mode::Ready => Command::Ready {
                creature: my_id,
                action: ReadiedAction::Attack { target: Some(target.clone()), weapon: choice.weapon.clone() },
                trigger: Trigger::Acts(target),
            },
            Mode::Charge => {
                let to = charge_lanes(world, me, there).ok().and_then(|l| l.first().map(|l| l.to));
                Command::Charge { creature: my_id, target, to }
            }
            mode => Command::Attack {
                creature: my_id,
                target,
                weapon: choice.weapon.clone(),
                defensively: choice.defensively,
                full: mode == Mode::FullAttack,
                lethal: false,
                // A full attack uses the off-hand weapon too when the creature holds one (004:462).
                two_weapons: mode == Mode::FullAttack
                    && world.get::<Armament>(me).is_some_and(crate::rules::attack::holds_off_hand),
                // One blow a click: after the first the player may give up the rest to move (004:232).
                blows: (mode == Mode::FullAttack).then_some(1),
            },
        });
    }
    if choice.mode == Mode::Ready {
        return Some(Command::Ready {
            creature: my_id,
            action: ReadiedAction::Attack { target: None, weapon: choice.weapon.clone() },
            trigger: Trigger::EntersThreatened,
        });
    }
    // A flier in the air flies to the square, by the flight the preview shows; a rider's mount flies.
    if let Some(flights) = flights_of(world, me, &choice) {
        return flights.get(&square).map(|planned| planned_step(world, me, planned, None, &choice));
    }
    let options = move_options(world, me);
    match path_for(world, me, &choice, &options, square)? {
        Ok(path) => Some(Command::Move { creature: my_id, to: square, action: path.action, path: Some(path.squares) }),
        // Refused moves are still sent: the rules refuse them in the log, naming the rule.
        Err(_) => {
            let action = match choice.mode {
                Mode::Move(a) => a,
                _ => MovementAction::Move,
            };
            Some(Command::Move { creature: my_id, to: square, action, path: None })
        }
    }
}

/// Left click: act on the square; right click: add or remove a waypoint.
fn clicks(world: &mut World) {
    let (left, right) = {
        let buttons = world.resource::<ButtonInput<MouseButton>>();
        (buttons.just_pressed(MouseButton::Left), buttons.just_pressed(MouseButton::Right))
    };
    if !(left || right) {
        return;
    }
    if world.get_resource::<EguiWantsInput>().is_some_and(|w| w.wants_any_pointer_input()) {
        return;
    }
    let Some(square) = world.resource::<Hover>().square else { return };
    if right {
        let mut choice = world.resource_mut::<Choice>();
        if let Some(i) = choice.waypoints.iter().position(|w| *w == square) {
            choice.waypoints.remove(i);
        } else {
            choice.waypoints.push(square);
        }
        return;
    }
    click(world, square);
}

/// What a left click on `square` does: an action of the creature whose turn it is, a flyby attack chosen,
/// or a creature selected.
pub fn click(world: &mut World, square: Square) {
    // A flier in the air clicking a foe flies beside it and strikes, or dives on it (004:753).
    if let Some(steps) = flier_strike(world, square) {
        world.resource_mut::<Pending>().0.extend(steps);
        flown(&mut world.resource_mut::<Choice>());
        return;
    }
    if let Some(me) = human_turn(world) {
        let mode = world.resource::<Choice>().mode;
        let there = pointed_at(world, square);
        // Flyby mode: the foe struck on the way first, then the end of the flight (004:755).
        if mode == Mode::Flyby {
            if world.resource::<Choice>().flyby.is_some() {
                if let Some(step) = flight_step(world, me, square) {
                    world.resource_mut::<Pending>().0.push_back(step);
                    flown(&mut world.resource_mut::<Choice>());
                }
            } else if let Some(foe) = there
                && let Ok(point) = flyby_point(world, me, foe)
            {
                world.resource_mut::<Choice>().flyby = Some(point);
            }
            return;
        }
        // Bluff mode: the pursuer first, then the flight that turns into a cloud or dives away (004:818).
        if mode == Mode::Bluff && world.resource::<Choice>().bluff.is_none() {
            if let Some(foe) = there.filter(|f| world.get::<Faction>(*f) != world.get::<Faction>(me)) {
                world.resource_mut::<Choice>().bluff = Some(foe);
            }
            return;
        }
        if mode == Mode::Bluff {
            if let Some(step) = flight_step(world, me, square) {
                world.resource_mut::<Pending>().0.push_back(step);
                flown(&mut world.resource_mut::<Choice>());
            }
            return;
        }
        if mode == Mode::Ram {
            if let Some(foe) = there
                && let Ok((_, step)) = ram_flight(world, me, foe)
            {
                world.resource_mut::<Pending>().0.push_back(step);
                flown(&mut world.resource_mut::<Choice>());
            }
            return;
        }
    }
    if let Some(step) = click_step(world, square) {
        // A full attack goes on blow by blow: the mode stays until the player changes it.
        let keep = matches!(step, Command::Attack { full: true, .. });
        let flew = matches!(step, Command::Fly { .. });
        world.resource_mut::<Pending>().0.push_back(step);
        let mut choice = world.resource_mut::<Choice>();
        choice.waypoints.clear();
        if flew {
            flown(&mut choice);
        }
        if !keep {
            choice.mode = Mode::Auto;
        }
    } else if let Some(creature) = pointed_at(world, square) {
        world.insert_resource(Selected(Some(creature)));
    }
}

/// After a flight the choices made for it are spent: climbs, declared speed, manoeuvres, the mode.
fn flown(choice: &mut Choice) {
    choice.climb = 0;
    choice.speed = None;
    choice.decelerate = false;
    choice.flyby = None;
    choice.bluff = None;
    choice.mode = Mode::Auto;
}

/// One entry of the action bar.
#[derive(Clone, Debug)]
pub struct BarAction {
    /// The key.
    pub key: KeyCode,
    /// The label with its key.
    pub label: &'static str,
    /// What it does.
    pub kind: BarKind,
}

/// What an action-bar entry does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// Choose a click mode.
    Mode(Mode),
    /// Toggle fighting defensively.
    Defensively,
    /// Total defence now.
    TotalDefense,
    /// Stand up.
    StandUp,
    /// Drink a healing potion.
    Potion,
    /// Delay.
    Delay,
    /// End the turn.
    EndTurn,
    /// Show the foes' threatened squares.
    Threats,
    /// Cast mode, and the next spell each time.
    Cast,
    /// Get on an ally's back, or off one's mount.
    Ride,
    /// The next speed a flier in the air may declare (004:686-709).
    Speed,
    /// Hide from the pursuers after the flight (004:816-817).
    Hide,
    /// A passenger takes the reins of its mount (004:822).
    Reins,
}

/// The action bar, in order.
pub const BAR: &[BarAction] = &[
    BarAction { key: KeyCode::KeyM, label: "Move [M]", kind: BarKind::Mode(Mode::Move(MovementAction::Move)) },
    BarAction { key: KeyCode::KeyA, label: "Attack [A]", kind: BarKind::Mode(Mode::Attack) },
    BarAction { key: KeyCode::KeyF, label: "Full attack [F]", kind: BarKind::Mode(Mode::FullAttack) },
    BarAction { key: KeyCode::KeyC, label: "Charge [C]", kind: BarKind::Mode(Mode::Charge) },
    BarAction { key: KeyCode::KeyR, label: "Run [R]", kind: BarKind::Mode(Mode::Move(MovementAction::Run)) },
    BarAction { key: KeyCode::KeyW, label: "Withdraw [W]", kind: BarKind::Mode(Mode::Move(MovementAction::Withdraw)) },
    BarAction {
        key: KeyCode::KeyS,
        label: "5-foot step [S]",
        kind: BarKind::Mode(Mode::Move(MovementAction::FiveFootStep)),
    },
    BarAction { key: KeyCode::KeyD, label: "Total defence [D]", kind: BarKind::TotalDefense },
    BarAction { key: KeyCode::KeyG, label: "Defensively [G]", kind: BarKind::Defensively },
    BarAction { key: KeyCode::KeyU, label: "Stand up [U]", kind: BarKind::StandUp },
    BarAction { key: KeyCode::KeyP, label: "Potion [P]", kind: BarKind::Potion },
    BarAction { key: KeyCode::KeyY, label: "Ready [Y]", kind: BarKind::Mode(Mode::Ready) },
    BarAction { key: KeyCode::KeyK, label: "Cast [K]", kind: BarKind::Cast },
    BarAction { key: KeyCode::KeyB, label: "Breathe [B]", kind: BarKind::Mode(Mode::Breath) },
    BarAction { key: KeyCode::KeyN, label: "Mount / get off [N]", kind: BarKind::Ride },
    BarAction { key: KeyCode::KeyO, label: "Take the reins [O]", kind: BarKind::Reins },
    BarAction { key: KeyCode::KeyV, label: "Declared speed [V]", kind: BarKind::Speed },
    BarAction { key: KeyCode::KeyH, label: "Flyby [H]", kind: BarKind::Mode(Mode::Flyby) },
    BarAction { key: KeyCode::KeyX, label: "Collide [X]", kind: BarKind::Mode(Mode::Ram) },
    BarAction { key: KeyCode::KeyJ, label: "Bluff [J]", kind: BarKind::Mode(Mode::Bluff) },
    BarAction { key: KeyCode::KeyI, label: "Hide [I]", kind: BarKind::Hide },
    BarAction { key: KeyCode::KeyL, label: "Delay [L]", kind: BarKind::Delay },
    BarAction { key: KeyCode::KeyE, label: "End turn [E]", kind: BarKind::EndTurn },
    BarAction { key: KeyCode::KeyT, label: "Threats [T]", kind: BarKind::Threats },
];

/// Whether an action-bar entry can be used now, or the rule that forbids it.
pub fn bar_state(world: &World, kind: BarKind) -> Result<(), Refusal> {
    use crate::rules::turns::{ActionBudget, ActionKind};
    if kind == BarKind::Threats {
        return Ok(());
    }
    let Some(me) = human_turn(world) else {
        return Err(Refusal::new("not the turn of a creature you play", "004:73"));
    };
    let budget = world.get::<ActionBudget>(me).copied().unwrap_or_default();
    let conditions = world.get::<Conditions>(me).cloned().unwrap_or_default();
    let previews = world.resource::<Previews>();
    let open = |action: MovementAction| {
        previews.options.open.iter().find(|(a, _)| *a == action).map_or(Ok(()), |(_, r)| r.clone().map(|_| ()))
    };
    match kind {
        BarKind::Mode(Mode::Move(action)) => open(action),
        BarKind::Mode(Mode::Charge) => open(MovementAction::Charge),
        BarKind::Mode(Mode::Breath) => match world.get::<crate::rules::breath::Breath>(me) {
            None => Err(Refusal::new("has no breath weapon", "data")),
            Some(b) => b.ready(world.resource::<TurnOrder>().round).and_then(|()| budget.check(ActionKind::Standard)),
        },
        BarKind::Mode(Mode::Attack | Mode::Ready) | BarKind::TotalDefense | BarKind::Defensively => {
            budget.check(ActionKind::Standard)
        }
        BarKind::Mode(Mode::FullAttack) if world.get::<FullAttackUnderway>(me).is_some() => Ok(()),
        BarKind::Mode(Mode::FullAttack) => budget.check(ActionKind::FullRound),
        BarKind::Mode(Mode::Auto | Mode::Cast) | BarKind::EndTurn | BarKind::Delay => Ok(()),
        BarKind::StandUp => {
            if conditions.has(Condition::Prone) {
                budget.check(ActionKind::Move)
            } else {
                Err(Refusal::new("standing already", "004:225"))
            }
        }
        BarKind::Potion => match first_potion(world, me) {
            Some(_) => budget.check(ActionKind::Standard),
            None => Err(Refusal::new("carries no healing potion", "004:96")),
        },
        BarKind::Threats => Ok(()),
        BarKind::Ride => {
            let riding = world.get::<crate::rules::core::creature::Riding>(me).is_some();
            if riding || mount_beside(world, me).is_some() {
                budget.check(ActionKind::Move)
            } else {
                Err(Refusal::new("no ally larger than it next to it to get on", "004:226"))
            }
        }
        BarKind::Speed | BarKind::Mode(Mode::Ram | Mode::Bluff) => in_flight(world),
        BarKind::Hide => crate::rules::aerial::pursuit::hide_allowed(world, me),
        BarKind::Reins => crate::rules::mounted::reins_allowed(world, me).map(|_| ()),
        BarKind::Mode(Mode::Flyby) => in_flight(world).and_then(|()| budget.check(ActionKind::Standard)),
        BarKind::Cast => {
            if castable(world, me).is_empty() {
                Err(Refusal::new("knows no spell it can still cast", "004:190"))
            } else {
                budget.check(ActionKind::Standard)
            }
        }
    }
}

/// Whether the creature whose turn it is flies and has its flight still to fly.
fn in_flight(world: &World) -> Result<(), Refusal> {
    if world.resource::<Previews>().flights.is_some() {
        Ok(())
    } else {
        Err(Refusal::new("not a flier in the air with its flight still to fly", "004:686"))
    }
}

/// The spells a creature can still cast, in its order.
pub fn castable(world: &World, creature: Entity) -> Vec<String> {
    world
        .get::<crate::rules::magic::Spellcasting>(creature)
        .map_or(Vec::new(), |m| m.castable().map(|s| s.name.clone()).collect())
}

/// The first healing item a creature carries.
pub fn first_potion(world: &World, creature: Entity) -> Option<String> {
    world.get::<Items>(creature)?.0.iter().find(|i| i.heal.is_some()).map(|i| i.name.clone())
}

/// Carries out an action-bar entry for the active creature.
pub fn use_bar(world: &mut World, kind: BarKind) {
    if kind == BarKind::Threats {
        let mut choice = world.resource_mut::<Choice>();
        choice.show_threats = !choice.show_threats;
        return;
    }
    let Some(me) = human_turn(world) else { return };
    let creature = id_of(world, me);
    let step = match kind {
        BarKind::Mode(mode) => {
            let mut choice = world.resource_mut::<Choice>();
            choice.mode = if choice.mode == mode { Mode::Auto } else { mode };
            choice.flyby = None;
            choice.bluff = None;
            return;
        }
        BarKind::Defensively => {
            let mut choice = world.resource_mut::<Choice>();
            choice.defensively = !choice.defensively;
            return;
        }
        BarKind::TotalDefense => Command::TotalDefense { creature },
        BarKind::StandUp => Command::StandUp { creature },
        BarKind::Potion => match first_potion(world, me) {
            Some(item) => Command::UseItem { creature, item },
            None => return,
        },
        BarKind::Delay => Command::Delay { creature },
        BarKind::Hide => Command::Hide { creature },
        BarKind::Reins => Command::TakeReins { creature },
        BarKind::EndTurn => Command::EndTurn { creature },
        BarKind::Ride => match ride_step(world, me) {
            Some(step) => step,
            None => return,
        },
        BarKind::Threats => return,
        BarKind::Speed => {
            let speeds = declarable(world, flier_of(world, me));
            let mut choice = world.resource_mut::<Choice>();
            let now = (choice.speed, choice.decelerate);
            let next = speeds.iter().position(|s| *s == now).map_or(0, |i| (i + 1) % speeds.len());
            (choice.speed, choice.decelerate) = speeds[next];
            choice.flyby = None;
            return;
        }
        BarKind::Cast => {
            // Each press goes to the next spell, then back to no mode.
            let spells = castable(world, me);
            let mut choice = world.resource_mut::<Choice>();
            let next = match (&choice.mode, &choice.spell) {
                (Mode::Cast, Some(now)) => spells.iter().position(|s| s == now).and_then(|i| spells.get(i + 1)),
                _ => spells.first(),
            };
            match next {
                Some(spell) => {
                    choice.mode = Mode::Cast;
                    choice.spell = Some(spell.clone());
                }
                None => {
                    choice.mode = Mode::Auto;
                    choice.spell = None;
                }
            }
            return;
        }
    };
    world.resource_mut::<Pending>().0.push_back(step);
    *world.resource_mut::<Choice>() = Choice { show_threats: world.resource::<Choice>().show_threats, ..default() };
}

/// Keyboard shortcuts of the action bar; Escape clears the mode and waypoints, Backspace the last waypoint.
fn keys(world: &mut World) {
    if world.get_resource::<EguiWantsInput>().is_some_and(|w| w.wants_any_keyboard_input()) {
        return;
    }
    let pressed: Vec<KeyCode> = world.resource::<ButtonInput<KeyCode>>().get_just_pressed().copied().collect();
    for key in pressed {
        if let Some(entry) = BAR.iter().find(|b| b.key == key) {
            if bar_state(world, entry.kind).is_ok() {
                use_bar(world, entry.kind);
            }
            continue;
        }
        match key {
            KeyCode::Backspace => {
                world.resource_mut::<Choice>().waypoints.pop();
            }
            KeyCode::Escape => {
                let mut choice = world.resource_mut::<Choice>();
                choice.waypoints.clear();
                choice.flyby = None;
                choice.bluff = None;
                choice.mode = Mode::Auto;
            }
            KeyCode::KeyQ | KeyCode::KeyZ => {
                // At chase scale a flight climbs or dives one band at most (004:749).
                let most = match world.resource::<crate::rules::core::battlefield::Battlefield>().scale() {
                    crate::rules::core::altitude::Scale::Chase => 1,
                    crate::rules::core::altitude::Scale::Normal => i32::MAX,
                };
                let change = if key == KeyCode::KeyQ { 1 } else { -1 };
                let mut choice = world.resource_mut::<Choice>();
                choice.climb = (choice.climb + change).clamp(-most, most);
                choice.flyby = None;
            }
            KeyCode::Tab => {
                // The next of the party acting together (004:653-655).
                let order = world.resource::<TurnOrder>();
                let party = order.acting.clone();
                let turn = (order.round, order.place_holder());
                let now = human_turn(world);
                if let Some(i) = now.and_then(|n| party.iter().position(|e| *e == n)) {
                    let next = party[(i + 1) % party.len()];
                    world.insert_resource(Commanded { who: Some(next), turn });
                    world.insert_resource(Selected(Some(next)));
                }
            }
            KeyCode::F5 => super::save::save_and_tell(world),
            KeyCode::F9 => super::save::load_or_tell(world),
            KeyCode::Enter => {
                if let Some(me) = human_turn(world) {
                    let creature = id_of(world, me);
                    world.resource_mut::<Pending>().0.push_back(Command::EndTurn { creature });
                }
            }
            _ => {}
        }
    }
}

/// Carries out the next pending command, keeping it in the history.
fn apply_pending(world: &mut World) {
    let Some(command) = world.resource_mut::<Pending>().0.pop_front() else { return };
    if let Err(unknown) = crate::rules::command::perform(world, &command) {
        world.insert_resource(super::hud::Notice(Some((true, unknown.to_string()))));
        return;
    }
    world.resource_mut::<History>().0.push(command);
}

/// The AI plays the creature whose turn it is when its faction is the computer's.
fn play_ai(world: &mut World, mut waited: Local<u32>, mut steps: Local<(Option<(u32, Entity)>, u32)>) {
    if !world.resource::<Pending>().0.is_empty() || world.contains_resource::<Restart>() {
        return;
    }
    let order = world.resource::<TurnOrder>();
    if order.ended {
        return;
    }
    let Some(current) = order.current_entity() else { return };
    let turn = (order.round, current);
    if human_turn(world).is_some() {
        return;
    }
    *waited += 1;
    if *waited < AI_PACE_FRAMES {
        return;
    }
    *waited = 0;
    if steps.0 != Some(turn) {
        *steps = (Some(turn), 0);
    }
    steps.1 += 1;
    // A turn never takes more than a handful of steps; past that the AI ends it.
    let step = if steps.1 > 8 {
        Command::EndTurn { creature: id_of(world, current) }
    } else {
        crate::ai::next_step(world, current)
    };
    world.resource_mut::<Pending>().0.push_back(step);
}

/// Starts the battle again (restart, a new level, a loaded save), then queues the steps to replay.
fn restart(world: &mut World) {
    let Some(Restart { replay }) = world.remove_resource::<Restart>() else { return };
    let Some(ActiveEncounter(encounter)) = world.get_resource::<ActiveEncounter>().cloned() else { return };
    let seed = world.get_resource::<Seed>().map_or(0, |s| s.0);
    spawn_encounter(world, &encounter, seed, &[]);
    begin(world, &encounter.name, seed);
    world.insert_resource(History::default());
    world.insert_resource(Pending(replay.into()));
    world.insert_resource(Choice::default());
}

/// The square under the cursor, from the window's cursor through the camera.
pub fn cursor_square(window: &Window, camera: &Camera, transform: &GlobalTransform, map_height: i32) -> Option<Square> {
    let cursor = window.cursor_position()?;
    let world = camera.viewport_to_world_2d(transform, cursor).ok()?;
    Some(square_of(world, map_height))
}

/// Tracks the hovered square.
pub(super) fn track_hover(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    encounter: Option<Res<ActiveEncounter>>,
    wants: Option<Res<EguiWantsInput>>,
    tokens: Query<(&super::tokens::Token, &Transform)>,
    sizes: Query<&Size>,
    mut hover: ResMut<Hover>,
) {
    let Some(encounter) = encounter else { return };
    let field = &encounter.0.battlefield;
    let over_ui = wants.is_some_and(|w| w.is_pointer_over_area());
    let square = if over_ui { None } else { cursor_square(&window, camera.0, camera.1, field.height()) }
        .filter(|s| s.x >= 0 && s.y >= 0 && s.x < field.width() && s.y < field.height());
    // The topmost token whose disc is under the cursor.
    let point = window.cursor_position().and_then(|c| camera.0.viewport_to_world_2d(camera.1, c).ok());
    let token = point.filter(|_| square.is_some()).and_then(|point| {
        tokens
            .iter()
            .filter(|(token, transform)| {
                let side =
                    sizes.get(token.creature).map_or(super::TILE_PX, |s| super::tokens::token_side(field.scale(), *s));
                transform.translation.truncate().distance(point) <= side * 0.46 * transform.scale.x
            })
            .max_by(|a, b| a.1.translation.z.total_cmp(&b.1.translation.z).then(b.0.creature.cmp(&a.0.creature)))
            .map(|(token, _)| token.creature)
    });
    if hover.square != square || hover.token != token {
        hover.square = square;
        hover.token = token;
    }
}
