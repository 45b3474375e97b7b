//! What the active creature could do, worked out when the turn, the state or the square under the cursor
//! changes: where it can move and at what cost, the path to the hovered square with its attacks of
//! opportunity, the attack or spell on the hovered creature, a flier's flights and manoeuvres.

use bevy::prelude::*;

use crate::preview::{
    FlightStrike, MoveOptions, PathPreview, attack_preview, charge_lanes, move_options_as, path_preview_as,
};
use crate::rules::attack::AttackRequest;
use crate::rules::command::Command;
use crate::rules::core::creature::*;
use crate::rules::core::facts::EventLog;
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;
use crate::rules::core::reach::threatened_squares;
use crate::rules::core::refusal::Refusal;
use crate::rules::movement::{ChargeLane, MovementAction};
use crate::rules::special::charge_end::ChargeBlow;
use crate::rules::turns::FullAttackUnderway;
use crate::rules::turns::moving::ChargeFinish;

use super::state::*;
use super::turn::*;

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
    let tumble = world.resource::<Choice>().tumble;
    match path_preview_as(world, creature, (MovementAction::Move, tumble), to, waypoints) {
        Ok(p) if p.provocations.is_empty() => Some(MovementAction::Move),
        _ => Some(MovementAction::FiveFootStep),
    }
}

/// The path a click on `to` would take now.
pub(super) fn path_for(
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
    let first = path_preview_as(world, creature, (action, choice.tumble), to, &choice.waypoints);
    // A path bent through waypoints may need the double move where the straight one needed a move.
    let double_open = options.open.iter().any(|(a, r)| *a == MovementAction::DoubleMove && r.is_ok());
    if first.is_err() && choice.mode == Mode::Auto && action == MovementAction::Move && double_open {
        let second =
            path_preview_as(world, creature, (MovementAction::DoubleMove, choice.tumble), to, &choice.waypoints);
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
        lethal: choice.other_damage,
        nonlethal: choice.other_damage,
        power: choice.power,
        paid: underway && choice.mode == Mode::FullAttack,
        two_weapons: choice.two_weapons,
        ..default()
    }
}

/// The preview of what a click on the creature `friend` would do in a mode aimed at one's own side: first aid
/// (004:283), releasing an undead commanded (004:566).
fn on_a_friend(world: &mut World, me: Entity, friend: Entity, mode: Mode, previews: &mut Previews) {
    match mode {
        Mode::FirstAid => previews.first_aid = Some(crate::preview::first_aid_preview(world, me, friend)),
        Mode::Release => previews.release = Some(crate::rules::special::turning::plan_release(world, me, friend)),
        _ => {}
    }
}

/// The weapon chosen, for a charge's blow: the one chosen if it is a melee weapon in hand (the charger's or
/// its rider's), else none, the charge striking with its first melee weapon (a bow chosen for shots does
/// not stop a charge).
pub fn charge_weapon_choice(world: &World, me: Entity, choice: &super::state::Choice) -> Option<String> {
    let own = world.get::<crate::rules::core::creature::Armament>(me)?;
    let rider = crate::rules::turns::moving::rider_armament(world, me);
    choice.weapon.clone().filter(|w| crate::rules::turns::moving::check_charge_weapon(own, rider, Some(w)).is_ok())
}

/// The preview of what a click on `foe` would do in the chosen mode: an attack, a manoeuvre, a charge.
fn on_a_foe(world: &mut World, me: Entity, foe: Entity, choice: &super::state::Choice, previews: &mut Previews) {
    let weapon = choice.weapon.as_deref();
    match choice.mode {
        Mode::Aid(_) => {
            let prefer = world.resource::<super::state::Selected>().0;
            previews.aid = Some(crate::preview::aid_preview(world, me, foe, prefer));
        }
        Mode::Feint => previews.feint = Some(crate::preview::feint_preview(world, me, foe)),
        Mode::Trip => {
            let plain = crate::preview::trip_preview(world, me, foe);
            let trip = or_charging(world, (me, foe), (ChargeFinish::Trip, None), plain, previews, |blow| match blow {
                ChargeBlow::Trip(plan) => Some(crate::preview::TripPreview::of(*plan)),
                _ => None,
            });
            previews.trip = Some(trip);
        }
        Mode::Sunder | Mode::SunderShield => {
            let shield = choice.mode == Mode::SunderShield;
            let plain = crate::preview::sunder_preview(world, me, foe, (weapon, shield));
            let finish = ChargeFinish::Sunder { shield };
            let sunder = or_charging(world, (me, foe), (finish, weapon), plain, previews, |blow| match blow {
                ChargeBlow::Sunder(plan) => Some(*plan),
                _ => None,
            });
            previews.sunder = Some(sunder);
        }
        Mode::CoupDeGrace => {
            previews.coup_de_grace = Some(crate::preview::coup_de_grace_preview(world, me, foe, weapon));
        }
        Mode::Grapple(action) => previews.grapple = Some(crate::preview::grapple_preview(world, me, Some(foe), action)),
        Mode::Overrun => previews.overrun = Some(crate::rules::special::overrun::overrun_in(world, me, foe)),
        Mode::Disarm => {
            let plain = crate::preview::disarm_preview(world, me, foe, weapon);
            let disarm =
                or_charging(world, (me, foe), (ChargeFinish::Disarm, weapon), plain, previews, |blow| match blow {
                    ChargeBlow::Disarm(plan) => Some(*plan),
                    _ => None,
                });
            previews.disarm = Some(disarm);
        }
        Mode::Snatch => previews.disarm = Some(crate::preview::snatch_preview(world, me, foe)),
        Mode::BullRush => previews.bull_rush = Some(crate::preview::bull_rush_preview(world, me, foe, choice.stay)),
        Mode::Charge => {
            let weapon = charge_weapon_choice(world, me, choice);
            let mut lanes = charge_lanes(world, (me, weapon.as_deref()), foe);
            if let Ok(lanes) = &mut lanes {
                chosen_lane_first(world, lanes);
            }
            previews.lane_provocations = lane_provocations(world, me, &lanes);
            previews.lanes = Some(lanes);
        }
        _ => {
            let underway = world.get::<FullAttackUnderway>(me).is_some();
            let attack = attack_preview(world, me, foe, request(choice, underway));
            if attack.is_err() && choice.mode == Mode::Auto && previews.flights.is_none() {
                approach(world, me, foe, choice, previews);
            }
            if previews.approach.is_none() {
                previews.attack = Some(attack);
            }
        }
    }
}

/// A trip, a disarm or a sunder that the rules refuse where the creature stands (`plain`): at the end of a
/// charge instead (`finish`), when a lane reaches the foe and the rules would allow it there, with the
/// charge's +2 (004:457); previewed as the click would make it, the lanes and where they provoke shown.
fn or_charging<T>(
    world: &mut World,
    (me, foe): (Entity, Entity),
    (finish, weapon): (ChargeFinish, Option<&str>),
    plain: Result<T, Refusal>,
    previews: &mut Previews,
    take: impl FnOnce(ChargeBlow) -> Option<T>,
) -> Result<T, Refusal> {
    if plain.is_ok() {
        return plain;
    }
    let Some((mut lanes, Ok(blow))) = crate::preview::charge_blow_preview(world, (me, foe), (finish, weapon)) else {
        return plain;
    };
    chosen_lane_first(world, &mut lanes);
    let (Some(plan), Some(lane)) = (take(blow), lanes.first()) else { return plain };
    previews.approach = Some(Approach::Charge { foe, to: lane.to, finish });
    let lanes = Ok(lanes);
    previews.lane_provocations = lane_provocations(world, me, &lanes);
    previews.lanes = Some(lanes);
    Ok(plan)
}

/// Puts first the lane a click takes: the one ending on the last waypoint marked (a right click on the
/// square to charge to, among the lanes the rules allow, 004:453), else the rules' first.
pub fn chosen_lane_first(world: &World, lanes: &mut [ChargeLane]) {
    let Some(mark) = world.resource::<Choice>().waypoints.last().copied() else { return };
    if let Some(i) = lanes.iter().position(|l| l.to == mark) {
        lanes[..=i].rotate_right(1);
    }
}

/// Where a charge along the first of `lanes` would provoke (the lane a click takes).
fn lane_provocations(
    world: &mut World,
    me: Entity,
    lanes: &Result<Vec<ChargeLane>, crate::rules::core::refusal::Refusal>,
) -> Vec<crate::preview::Provoking> {
    let (Ok(lanes), Some(position), Some(space)) = (lanes, world.get::<Position>(me), world.get::<Space>(me)) else {
        return Vec::new();
    };
    let Some(lane) = lanes.first() else { return Vec::new() };
    let (start, route) = (space.at(position.0), lane.route.clone());
    crate::preview::provocations_along(world, me, start, &route, MovementAction::Charge)
}

fn set_position(world: &mut World, creature: Entity, square: Square) {
    if let Some(mut position) = world.get_mut::<Position>(creature) {
        position.0 = square;
    }
}

/// A foe out of reach in the automatic mode: the sensible compound action, previewed as the click would
/// make it. First a walk within reach (a 5-foot step or a move) that leaves a standard action for the
/// blow: of the squares from which the rules allow the attack, the one whose path provokes least, then the
/// cheapest. Else a charge, when a lane reaches the foe (004:455-459).
fn approach(world: &mut World, me: Entity, foe: Entity, choice: &Choice, previews: &mut Previews) {
    let Some(own) = world.get::<Position>(me).map(|p| p.0) else { return };
    let Some(side) = world.get::<Space>(me).map(|s| s.at(own).width) else { return };
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let Some(there) = world.get::<Position>(foe).zip(world.get::<Space>(foe)).map(|(p, s)| s.at(p.0)) else {
        return;
    };
    let mut walks: Vec<(u32, Square, MovementAction)> = previews
        .options
        .squares
        .iter()
        .filter(|(_, (action, _))| matches!(action, MovementAction::FiveFootStep | MovementAction::Move))
        .filter(|(square, _)| {
            crate::rules::core::geometry::Footprint::new(**square, side).distance_to(there, diagonals) <= 4
        })
        .map(|(square, (action, cost))| (*cost, *square, *action))
        .collect();
    walks.sort_by_key(|(cost, square, _)| (*cost, square.y, square.x));
    let request = request(choice, false);
    let mut best: Option<(usize, u32, PathPreview, crate::preview::AttackPreview)> = None;
    for (cost, square, action) in walks {
        // The blow as the rules would plan it from that square: the creature set there for the asking.
        set_position(world, me, square);
        let blow = attack_preview(world, me, foe, request);
        set_position(world, me, own);
        let Ok(blow) = blow else { continue };
        let Ok(path) = path_preview_as(world, me, (action, choice.tumble), square, &[]) else { continue };
        let provoked: usize = path.provocations.iter().map(|p| p.from.len()).sum();
        if best.as_ref().is_none_or(|(p, c, ..)| (provoked, cost) < (*p, *c)) {
            best = Some((provoked, cost, path, blow));
        }
    }
    if let Some((_, _, path, blow)) = best {
        let to = *path.squares.last().unwrap_or(&own);
        previews.approach = Some(Approach::MoveThenAttack { foe, to, action: path.action, path: path.squares.clone() });
        previews.path = Some(Ok(path));
        previews.attack = Some(Ok(blow));
        return;
    }
    let weapon = charge_weapon_choice(world, me, choice);
    if let Ok(mut lanes) = charge_lanes(world, (me, weapon.as_deref()), foe)
        && let Some(lane) = {
            chosen_lane_first(world, &mut lanes);
            lanes.first()
        }
    {
        previews.approach = Some(Approach::Charge { foe, to: lane.to, finish: ChargeFinish::Attack });
        let lanes = Ok(lanes);
        previews.lane_provocations = lane_provocations(world, me, &lanes);
        previews.lanes = Some(lanes);
    }
}

/// Whether a click in `mode` on a foe does something other than an attack or a manoeuvre on it, previewed
/// apart.
fn aims_elsewhere(mode: Mode) -> bool {
    matches!(mode, Mode::Cast | Mode::Breath | Mode::Flyby | Mode::Ram | Mode::Bluff | Mode::Throw)
}

/// The throw of a splash weapon at the hovered creature, else at the intersection nearest the cursor.
fn throw_at_hover(
    world: &mut World,
    me: Entity,
    hovered: Option<Entity>,
    weapon: Option<&str>,
) -> Option<Result<crate::rules::special::splash::ThrowPlan, Refusal>> {
    use crate::rules::special::splash::Aim;
    let corner = world.resource::<super::state::Hover>().corner;
    let aim = match (hovered.filter(|e| *e != me), corner) {
        (Some(target), _) => Aim::Creature(target),
        (None, Some(corner)) => Aim::Corner(corner),
        (None, None) => return None,
    };
    Some(crate::preview::throw_preview(world, me, aim, weapon))
}

/// The foes that would strike `me` for an action that provokes where it stands (004:66): the last ones while
/// the state is the same (the cursor moving changes nothing of it).
fn strikers_here(world: &mut World, me: Entity, same_state: bool) -> Vec<Entity> {
    if same_state {
        return world.resource::<Previews>().strikers_here.clone();
    }
    crate::preview::strikers_in_place(world, me).unwrap_or_default()
}

/// Recomputes the previews when the turn, the state, the cursor's square or the choices change.
pub fn update_previews(world: &mut World) {
    let active = human_turn(world);
    forget_turn_choices(world, active);
    let key = PreviewKey {
        active,
        facts: world.resource::<EventLog>().0.len(),
        hover: world.resource::<Hover>().square,
        corner: world.resource::<Hover>().corner,
        token: world.resource::<Hover>().token,
        choice: world.resource::<Choice>().clone(),
        language: crate::locale::language(),
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
        let same_state = old.key.as_ref().is_some_and(|k| {
            k.active == key.active
                && k.facts == key.facts
                && k.choice.mode == key.choice.mode
                && k.choice.tumble == key.choice.tumble
        });
        let same_flight = old.key.as_ref().is_some_and(|k| same_flight(&k.choice, &key.choice));
        let old_flights = (same_state && same_flight).then(|| old.flights.clone());
        previews.options = if same_state { old.options.clone() } else { move_options_as(world, me, key.choice.tumble) };
        previews.strikers_here = strikers_here(world, me, same_state);
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
            let breath = crate::rules::breath::breath_preview(world, me, target);
            previews.breath_saves = match &breath {
                Ok(covered) => crate::rules::breath::breath_saves(world, me, covered),
                Err(_) => Vec::new(),
            };
            previews.breath = Some(breath);
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
        if key.choice.mode == Mode::Grapple(crate::rules::special::grapple::GrappleMove::Move)
            && let Some(square) = key.hover.filter(|_| previews.hovered.is_none())
        {
            previews.grapple = Some(crate::preview::grapple_move_preview(world, me, square));
        }
        if let Some(friend) = previews.hovered.filter(|e| *e != me) {
            on_a_friend(world, me, friend, key.choice.mode, &mut previews);
        }
        if key.choice.mode == Mode::Throw {
            previews.throw = throw_at_hover(world, me, previews.hovered, key.choice.weapon.as_deref());
        }
        if let Mode::Turn(kind) = key.choice.mode {
            previews.turning = Some(crate::rules::special::turning::plan_turning(world, me, kind));
        }
        match (hovered_foe, key.hover) {
            (Some(_), _) if aims_elsewhere(key.choice.mode) => {}
            (Some(foe), _) => {
                on_a_foe(world, me, foe, &key.choice, &mut previews);
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

/// A flier's climb and declared speed are for its own turn (004:686): forgotten when another's begins.
fn forget_turn_choices(world: &mut World, active: Option<Entity>) {
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
}

/// The flights of `me` with the choice's climbs first, at its declared speed: the previews' when they were
/// planned for this state and choice (planning takes milliseconds, the HUD asks on every cursor move), else
/// planned afresh.
pub(super) fn flights_of(
    world: &mut World,
    me: Entity,
    choice: &Choice,
) -> Option<std::collections::HashMap<Square, crate::rules::aerial::planner::PlannedFlight>> {
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
/// dives, or after the flyby attack chosen; at the speed declared; flown as a deceleration (004:760) or
/// with a flyby attack (004:755) only where the rules allow that manoeuvre. `None` when it cannot fly.
pub fn flights_for(
    world: &mut World,
    me: Entity,
    choice: &Choice,
) -> Option<std::collections::HashMap<Square, crate::rules::aerial::planner::PlannedFlight>> {
    use crate::rules::aerial::flying;
    let flier = flier_of(world, me);
    let prefix = match &choice.flyby {
        Some(point) => point.planned.steps.clone(),
        None => climb_steps(choice.climb),
    };
    let mut flights = if choice.decelerate {
        flying::plan_decelerations(world, flier, &prefix)?
    } else {
        flying::plan_flights(world, flier, &prefix, choice.speed)?
    };
    let maneuverability = world.get::<Speed>(flier)?.fly?.maneuverability;
    let scale = world.resource::<crate::rules::core::battlefield::Battlefield>().scale();
    if choice.decelerate {
        flights.retain(|_, p| flying::deceleration_fits(&p.flight, maneuverability, scale).is_ok());
    }
    if let Some(point) = &choice.flyby {
        let after = point.planned.steps.len();
        let count = 1 + u32::from(choice.decelerate);
        flights.retain(|_, p| {
            flying::flyby_fits(&p.flight, &p.steps, after, point.swoop, maneuverability, scale).is_ok()
                && flying::advanced_maneuvers_fit(&p.flight, count, maneuverability, scale).is_ok()
        });
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
pub(super) fn planned_step(
    world: &World,
    me: Entity,
    planned: &crate::rules::aerial::planner::PlannedFlight,
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
pub(super) fn flight_step(world: &mut World, me: Entity, square: Square) -> Option<Command> {
    let choice = world.resource::<Choice>().clone();
    let flights = flights_of(world, me, &choice)?;
    Some(planned_step(world, me, flights.get(&square)?, None, &choice))
}

/// Flights in order of preference for a strike: slow rather than fast, then the fewest fly checks, then
/// the cheapest.
fn strike_rank(at: &Square, planned: &crate::rules::aerial::planner::PlannedFlight) -> (u8, usize, u32, i32, i32) {
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
    let strike = FlightStrike::of(world, me, flier_of(world, me), foe)?;
    let dive = choice.climb <= -strike.scale.dive_attack_drop();
    // A dive attack's dives are its descent, not manoeuvres of their own (004:753, docs/rulings.md).
    let flights = if dive {
        crate::rules::aerial::flying::plan_attack_flights(world, flier, &climb_steps(choice.climb), choice.speed)?
    } else {
        flights_of(world, me, &choice)?
    };
    let best = flights
        .iter()
        .filter(|(at, planned)| strike.reaches(**at, planned) && (dive || strike_rank(at, planned).0 == 0))
        .min_by_key(|(at, planned)| strike_rank(at, planned));
    let creature = id_of(world, me);
    // Out of a slow flight's reach, a flier flying for itself charges: straight at the foe, up to twice its
    // speed, its blow at +2 (004:451-459, 004:693).
    let Some((_, planned)) = best else {
        if flier != me || dive {
            return None;
        }
        let (steps, _) = crate::preview::flying_charge_preview(world, me, foe).ok()?;
        return Some(vec![Command::flying_charge(creature, steps, id_of(world, foe))]);
    };
    let fly = |dive_at: Option<CreatureId>| planned_step(world, me, planned, dive_at, &choice);
    let target = id_of(world, foe);
    Some(if dive { vec![fly(Some(target))] } else { vec![fly(None), Command::attack(creature.clone(), target, None)] })
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
    // A swoop's dives are its descent, not manoeuvres of their own (004:751, docs/rulings.md).
    let flights = if swoop {
        crate::rules::aerial::flying::plan_attack_flights(world, flier, &climb_steps(choice.climb), choice.speed)
    } else {
        flights_of(world, me, &choice)
    }
    .ok_or_else(grounded)?;
    let maneuverability = world.get::<Speed>(flier).and_then(|s| s.fly).ok_or_else(grounded)?.maneuverability;
    if flier == me {
        let feat = world.get::<Feats>(me).is_some_and(|f| f.has(Feat::FlybyAttack));
        let hover = choice.speed == Some(crate::rules::core::names::SpeedStatus::Hover);
        crate::rules::aerial::flying::flyby_tried(feat, (maneuverability, hover), swoop)?;
    }
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
) -> Result<(crate::rules::aerial::planner::PlannedFlight, Command), Refusal> {
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
    let enters = |at: Square, planned: &crate::rules::aerial::planner::PlannedFlight| {
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
    let (width, height, scale, diagonals) = {
        let field = world.resource::<crate::rules::core::battlefield::Battlefield>();
        (field.width(), field.height(), field.scale(), field.diagonals())
    };
    let mut q = kept::<
        (
            &Faction,
            &Position,
            &Space,
            &Reach,
            &Armament,
            &Traits,
            &Feats,
            (
                &Conditions,
                Has<crate::rules::core::creature::HoldingCharge>,
                Option<&crate::rules::core::creature::Seat>,
            ),
            (&Altitude, &Heading, &Speed, &Size, Has<crate::rules::core::creature::Hovering>),
        ),
        (),
    >(world);
    let mut squares: Vec<Square> = q
        .iter(world)
        .filter(|(f, .., (c, _, _), _)| **f != mine && c.can_act() && !c.threatens_nothing())
        .flat_map(
            |(
                _,
                position,
                space,
                reach,
                armament,
                traits,
                feats,
                (_, holding, seat),
                (altitude, heading, speed, size, hovering),
            )| {
                let high = seat.is_some_and(|s| s.high);
                let armed = crate::rules::core::creature::armed_unarmed(traits, feats, holding);
                // A foe too far above or below `me` threatens nothing it could reach (004:783-784).
                let rise =
                    crate::rules::core::altitude::vertical_steps(scale, altitude.0, *size, my_height.0, my_height.1);
                let weapons: Vec<Weapon> = crate::rules::core::reach::threatening_weapons(&armament.0, armed)
                    .into_iter()
                    .filter(|w| rise <= crate::rules::core::altitude::vertical_reach(reach.0, w.reach_kind()))
                    .cloned()
                    .collect();
                let at = space.at(position.0);
                let behind = crate::rules::core::sight::unthreatened_behind(
                    at,
                    (altitude.0, heading.0),
                    (speed, hovering),
                    traits.all_round_vision,
                    &armament.0,
                );
                let near = threatened_squares(diagonals, (at, high), reach.0, &weapons, armed, width, height);
                // Across and in height, one distance (004:783); from a high seat (004:814).
                let reaches_up = move |s: &Square| {
                    weapons.iter().any(|w| {
                        let both = (at, crate::rules::core::geometry::Footprint::new(*s, 1));
                        crate::rules::core::reach::melee_reaches_seated(
                            (diagonals, scale),
                            reach.0,
                            w.reach_kind(),
                            both,
                            (rise, high, false),
                        )
                    })
                };
                near.into_iter().filter(move |s| !behind.contains(s) && reaches_up(s))
            },
        )
        .collect();
    squares.sort_by_key(|s| (s.y, s.x));
    squares.dedup();
    squares
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, update_previews.after(play_ai).in_set(super::ViewSystems::Think));
}
