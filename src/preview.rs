//! What a creature could do, asked before it acts: where it can go this turn and with which action, the
//! path to a square (through waypoints) with the attacks of opportunity on the way, and the attack it
//! could make on a foe with its chance to hit. The move preview, the attack preview and the AI read these;
//! they go through the very functions the rules resolve with, so the preview never disagrees with the
//! result.

use std::collections::HashMap;

use bevy::prelude::*;

use crate::rules::attack::{AttackPlan, AttackRequest, Combatant, chance_to_hit, prepare_attack};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::{Diagonals, Footprint, Square};
use crate::rules::core::kept::kept;
use crate::rules::core::refusal::Refusal;
use crate::rules::movement::{ChargeLane, Danger, MoveQuery, MovementAction, Route, reachable};
use crate::rules::opportunity::{Provoked, Reactions, Threat, danger_of, provocations, threats_to};
use crate::rules::turns::moving::{
    Exertion, MoverView, RiderActed, Travelled, bodies, check_action, move_query, rider_allows,
};
use crate::rules::turns::{ActionBudget, TurnOrder};

/// The movement actions the move preview shades, cheapest first.
pub const SHADED: [MovementAction; 5] = [
    MovementAction::FiveFootStep,
    MovementAction::Crawl,
    MovementAction::Move,
    MovementAction::DoubleMove,
    MovementAction::Run,
];

/// Where a creature can end a move this turn, each square with the cheapest action that reaches it.
#[derive(Clone, Debug, Default)]
pub struct MoveOptions {
    /// Square → (the least action that reaches it, its cost in squares).
    pub squares: HashMap<Square, (MovementAction, u32)>,
    /// The movement actions open now, or why each is not.
    pub open: Vec<(MovementAction, Result<u32, Refusal>)>,
}

impl MoveOptions {
    /// The action and cost that reach `square`, if any.
    pub fn at(&self, square: Square) -> Option<(MovementAction, u32)> {
        self.squares.get(&square).copied()
    }
}

/// A path to a square, checked as the rules will check it, with the attacks of opportunity it provokes.
#[derive(Clone, Debug)]
pub struct PathPreview {
    /// The action it takes.
    pub action: MovementAction,
    /// The squares, step by step (what the move intent carries).
    pub squares: Vec<Square>,
    /// The route with the cost of each step.
    pub route: Route,
    /// Where foes would strike, who and why.
    pub provocations: Vec<Provoking>,
}

/// One step of a path where foes would strike.
#[derive(Clone, Debug)]
pub struct Provoking {
    /// Steps taken before they strike.
    pub after_steps: usize,
    /// Where the mover stands then.
    pub square: Square,
    /// Who strikes, in order.
    pub from: Vec<Entity>,
    /// Why, with the rule.
    pub reason: &'static str,
}

/// An attack that could be made now, with its odds.
#[derive(Clone, Debug)]
pub struct AttackPreview {
    /// The plan: modifiers, AC and its parts, miss chance.
    pub plan: AttackPlan,
    /// The attack bonus of each blow (one, or the iterative attacks of a full attack).
    pub bonuses: Vec<i32>,
    /// The chance that each blow hits.
    pub chances: Vec<f32>,
    /// The Ride check to guide its mount with its knees this attack calls for first (004:476): the rider's
    /// bonus and its chance, when one is still to roll this round and can fail.
    pub knees: Option<(i32, f32)>,
}

/// The movement view of `creature` now, with the squares its foes threaten when `avoid` is set.
pub fn with_move_query<T>(
    world: &mut World,
    creature: Entity,
    avoid: bool,
    f: impl FnOnce(&MoveQuery<'_>, &MoverViewItemRef) -> T,
) -> Option<T> {
    with_move_query_as(world, creature, (avoid, false), f)
}

/// [`with_move_query`] for a tumbling mover too (000:78-79): half speed, through foes' spaces, with what
/// refuses the tumble for each action.
pub fn with_move_query_as<T>(
    world: &mut World,
    creature: Entity,
    (avoid, tumble): (bool, bool),
    f: impl FnOnce(&MoveQuery<'_>, &MoverViewItemRef) -> T,
) -> Option<T> {
    let danger = if avoid { danger_for(world, creature) } else { None };
    let mut q = kept::<MoverView, ()>(world);
    let world: &World = world;
    let all = bodies(q.iter(world));
    let me = q.get(world, creature).ok()?;
    let field = world.resource::<Battlefield>();
    let mut query = move_query(field, &all, &me);
    query.danger = danger;
    let tumbler = tumble.then(|| Tumbler {
        skills: me.skills.clone(),
        encumbrance: *me.encumbrance,
        traits: me.traits.clone(),
        medium: query.mover.medium,
        prone: me.conditions.has(Condition::Prone),
    });
    if tumble {
        query = query.tumbling();
    }
    // A creature whose turn it is not is asked of its own turn, as it begins (docs/scenarios.md).
    let order = world.resource::<TurnOrder>();
    let budget = if order.acting.contains(&creature) {
        *me.budget
    } else {
        crate::rules::turns::turn_budget(order.round, me.conditions, me.budget.riding)
    };
    let facts = MoverViewItemRef {
        budget,
        conditions: me.conditions.clone(),
        reach: me.reach.0,
        grounded: crate::rules::movement::check_grounded(field.scale(), me.speed, me.altitude),
        tumbler,
        rider_bound: RiderBound {
            acted: me.rider_acted.copied(),
            travelled: me.travelled.copied(),
            round: order.round,
            speed: query.speed,
        },
        exertion: *me.exertion,
    };
    Some(f(&query, &facts))
}

/// What a tumble's check reads of the mover (000:78-79).
#[derive(Clone, Debug)]
pub struct Tumbler {
    skills: Skills,
    encumbrance: Encumbrance,
    traits: Traits,
    medium: crate::rules::movement::Medium,
    prone: bool,
}

impl Tumbler {
    /// Whether it may tumble with `action`, and its Tumble bonus.
    pub fn check(&self, action: MovementAction) -> Result<i32, Refusal> {
        crate::rules::movement::check_tumble(
            action,
            &self.skills,
            (self.medium, self.prone),
            &self.encumbrance,
            &self.traits,
        )
    }
}

/// What the previews read of the mover besides its movement view.
#[derive(Clone, Debug)]
pub struct MoverViewItemRef {
    /// Its action budget.
    pub budget: ActionBudget,
    /// Its conditions.
    pub conditions: Conditions,
    /// Its natural reach.
    pub reach: u32,
    /// Whether it may move over the ground, or flies (004:671-673).
    pub grounded: Result<(), Refusal>,
    /// Asked to tumble: what its check reads (000:78-79).
    pub tumbler: Option<Tumbler>,
    /// A mount whose rider acted this round: the pace it must keep to (004:477-480).
    pub rider_bound: RiderBound,
    /// How long it has run, and whether it must rest (004:249).
    pub exertion: Exertion,
}

impl MoverViewItemRef {
    /// Its rest after a run, as of this round (004:249).
    pub fn rest(&self) -> (&Exertion, u32) {
        (&self.exertion, self.rider_bound.round)
    }
}

/// What a mount's rider did this round binds the mount's pace (004:477-480).
#[derive(Clone, Copy, Debug)]
pub struct RiderBound {
    acted: Option<RiderActed>,
    travelled: Option<Travelled>,
    round: u32,
    speed: u32,
}

impl RiderBound {
    /// Whether a move of `action` along `route` from `from` keeps to it.
    pub fn allows(
        &self,
        action: MovementAction,
        route: &Route,
        from: Square,
        diagonals: Diagonals,
    ) -> Result<(), Refusal> {
        let distance = route.distance(from, route.steps.len(), diagonals);
        rider_allows(
            self.acted.as_ref(),
            self.travelled.as_ref(),
            self.round,
            (action, route.cost, distance, self.speed),
        )
    }

    /// Whether a rider's action this round binds the mount at all.
    pub fn binds(&self) -> bool {
        self.acted.is_some_and(|a| a.round == self.round)
    }
}

/// The foes who could strike `creature` now, in initiative order, those it already provoked this turn, and
/// whether it is smaller than a square.
fn threats_against(world: &mut World, creature: Entity) -> Option<(Vec<Threat>, Vec<Entity>, bool)> {
    let order = world.resource::<TurnOrder>().initiative();
    let reactions: HashMap<Entity, Reactions> =
        kept::<(Entity, &Reactions), ()>(world).iter(world).map(|(e, r)| (e, *r)).collect();
    let already = world.get::<Provoked>(creature).map(|p| p.0.clone()).unwrap_or_default();
    let mut state = kept::<Combatant, With<Creature>>(world);
    let combatants = state.query(world);
    let me = combatants.get(creature).ok()?;
    let threats = threats_to(
        world.resource::<Battlefield>(),
        &me,
        combatants.iter(),
        |e| reactions.get(&e).copied().unwrap_or_default(),
        &order,
    );
    Some((threats, already, me.size.is_smaller_than_a_square()))
}

/// The squares the foes who could still strike `creature` this turn threaten.
pub fn danger_for(world: &mut World, creature: Entity) -> Option<Danger> {
    let (threats, already, _) = threats_against(world, creature)?;
    let field = world.resource::<Battlefield>();
    Some(danger_of(&threats, &already, field.width(), field.height()))
}

/// Every square `creature` can end a move on this turn, shaded by the least action that reaches it.
pub fn move_options(world: &mut World, creature: Entity) -> MoveOptions {
    move_options_as(world, creature, false)
}

/// [`move_options`], tumbling or not (000:78-79): a tumble's squares at half speed, through foes' spaces.
pub fn move_options_as(world: &mut World, creature: Entity, tumble: bool) -> MoveOptions {
    let every: Vec<MovementAction> =
        SHADED.into_iter().chain([MovementAction::Withdraw, MovementAction::Charge]).collect();
    let mut options = with_move_query_as(world, creature, (false, tumble), |query, me| options_in(query, me, &every))
        .unwrap_or_default();
    // A turned undead flees its turner (004:549): the squares it may not move to are not shown as open.
    if world.get::<crate::rules::special::turning::TurnedBy>(creature).is_some() {
        options.squares.retain(|square, _| crate::rules::special::turning::fleeing(world, creature, *square).is_ok());
    }
    options
}

/// Whether `action` is open to the mover now, before any square is asked: on the ground, its turn's actions
/// left for it, its conditions (`check_action`). What the board, the queries and the moves share.
pub fn action_open(query: &MoveQuery<'_>, me: &MoverViewItemRef, action: MovementAction) -> Result<(), Refusal> {
    me.grounded.clone().and_then(|()| check_action(action, &me.budget, query.speed, &me.conditions, me.rest()))
}

/// The options of a query made for `actions` only, in their order: each square with the first of them that
/// reaches it (the squares of the shaded actions among them, the others only open or not).
fn options_in(query: &MoveQuery<'_>, me: &MoverViewItemRef, actions: &[MovementAction]) -> MoveOptions {
    let mut options = MoveOptions::default();
    for &action in actions {
        let open = action_open(query, me, action)
            .and_then(|()| me.tumbler.as_ref().map_or(Ok(0), |t| t.check(action)).map(|_| ()))
            .map(|()| query.allowance(action));
        options.open.push((action, open.clone()));
        if open.is_err() || !SHADED.contains(&action) {
            continue;
        }
        let diagonals = query.world().field.diagonals();
        for d in query.destinations(action) {
            // A mount its rider's action binds: the distance of the way there (rare, and asked only then).
            let allowed = !me.rider_bound.binds()
                || query
                    .route(action, d.square, None)
                    .is_ok_and(|route| me.rider_bound.allows(action, &route, query.start.origin, diagonals).is_ok());
            if allowed {
                options.squares.entry(d.square).or_insert((action, d.cost));
            }
        }
    }
    options
}

/// The squares `creature` could end a move on with `actions` (as [`options_in`]), and the path to
/// each square `choose` picks among them, with the attacks of opportunity it provokes (as
/// [`path_preview_as`]), in one query: what the AI weighs as it closes in. One search per action serves
/// both: the danger the paths avoid orders paths of equal cost only, so the squares and their costs are
/// the same.
pub fn approach(
    world: &mut World,
    creature: Entity,
    tumble: bool,
    actions: &[MovementAction],
    choose: impl FnOnce(&MoveOptions) -> Vec<(Square, MovementAction)>,
) -> Vec<((Square, MovementAction), Result<PathPreview, Refusal>)> {
    previews_in(world, creature, tumble, |query, me| choose(&options_in(query, me, actions)))
}

/// The path `creature` would take with `action` to `to`, through `waypoints` in order: the cheapest legs,
/// each the safest among the cheapest, then the whole checked as the rules will check it.
pub fn path_preview(
    world: &mut World,
    creature: Entity,
    action: MovementAction,
    to: Square,
    waypoints: &[Square],
) -> Result<PathPreview, Refusal> {
    path_preview_as(world, creature, (action, false), to, waypoints)
}

/// [`path_preview`], tumbling or not (000:78-79).
pub fn path_preview_as(
    world: &mut World,
    creature: Entity,
    (action, tumble): (MovementAction, bool),
    to: Square,
    waypoints: &[Square],
) -> Result<PathPreview, Refusal> {
    if waypoints.is_empty() {
        let found = previews_in(world, creature, tumble, |_, _| vec![(to, action)]).pop();
        return found.map_or_else(|| Err(Refusal::new("no such creature", "data")), |(_, preview)| preview);
    }
    let found = with_move_query_as(world, creature, (true, tumble), |query, me| {
        // A flier in the air, or anyone at chase scale, does not walk.
        me.grounded.clone()?;
        if let Some(tumbler) = &me.tumbler {
            tumbler.check(action)?;
        }
        let mut squares: Vec<Square> = Vec::new();
        let mut from = query.start;
        for &leg_end in waypoints.iter().chain(std::iter::once(&to)) {
            let leg = reachable(
                &query.world(),
                &query.mover,
                from,
                query.allowance(action),
                crate::rules::movement::SearchRules { odd_diagonal: false, ..action.search_rules() },
            )
            .route_to(leg_end)
            .ok_or_else(|| Refusal::new(format!("{leg_end} cannot be reached from {}", from.origin), "000:8-22"))?;
            squares.extend(leg.squares());
            from = leg.end_footprint().map(|f| Footprint::new(f.origin, query.start.width)).unwrap_or(from);
        }
        query.route(action, to, Some(&squares)).map(|r| (r, me.rider_bound))
    })
    .ok_or_else(|| Refusal::new("no such creature", "data"))?;
    let (route, bound) = found?;
    let start = with_move_query(world, creature, false, |q, _| q.start).expect("the creature exists");
    bound.allows(action, &route, start.origin, crate::rules::core::battlefield::diagonals_in(world))?;
    let squares: Vec<Square> = route.squares().collect();
    let provocations = provocations_along(world, creature, start, &route, action);
    Ok(PathPreview { action, squares, route, provocations })
}

/// The path to each (square, action) `choose` picks, found in one query (each action's search made once),
/// with the attacks of opportunity it provokes (the foes' threats read once an action).
fn previews_in(
    world: &mut World,
    creature: Entity,
    tumble: bool,
    choose: impl FnOnce(&MoveQuery<'_>, &MoverViewItemRef) -> Vec<(Square, MovementAction)>,
) -> Vec<((Square, MovementAction), Result<PathPreview, Refusal>)> {
    let found = with_move_query_as(world, creature, (true, tumble), |query, me| {
        let chosen = choose(query, me);
        let routes: Vec<Result<Route, Refusal>> = chosen
            .iter()
            .map(|(to, action)| {
                // A flier in the air, or anyone at chase scale, does not walk.
                me.grounded.clone()?;
                if let Some(tumbler) = &me.tumbler {
                    tumbler.check(*action)?;
                }
                let route = query.route(*action, *to, None)?;
                let diagonals = query.world().field.diagonals();
                me.rider_bound.allows(*action, &route, query.start.origin, diagonals).map(|()| route)
            })
            .collect();
        (chosen, routes, query.start)
    });
    let Some((chosen, routes, start)) = found else { return Vec::new() };
    let mut provocations: Vec<Vec<Provoking>> = vec![Vec::new(); chosen.len()];
    let mut actions: Vec<MovementAction> = Vec::new();
    for (_, action) in &chosen {
        if !actions.contains(action) {
            actions.push(*action);
        }
    }
    for action in actions {
        let mine: Vec<usize> = (0..chosen.len()).filter(|i| chosen[*i].1 == action && routes[*i].is_ok()).collect();
        let walked: Vec<&Route> = mine.iter().filter_map(|i| routes[*i].as_ref().ok()).collect();
        for (i, found) in mine.into_iter().zip(provocations_along_each(world, creature, start, &walked, action)) {
            provocations[i] = found;
        }
    }
    chosen
        .into_iter()
        .zip(routes.into_iter().zip(provocations))
        .map(|((to, action), (route, provocations))| {
            let preview = route.map(|route| {
                let squares: Vec<Square> = route.squares().collect();
                PathPreview { action, squares, route, provocations }
            });
            ((to, action), preview)
        })
        .collect()
}

/// Which foes a route would provoke, and where (004:64-71).
pub fn provocations_along(
    world: &mut World,
    mover: Entity,
    start: Footprint,
    route: &Route,
    action: MovementAction,
) -> Vec<Provoking> {
    provocations_along_each(world, mover, start, &[route], action).pop().unwrap_or_default()
}

/// The attacks of opportunity `flight` of `flier` from where it is would provoke (004:64-65, 004:656), as
/// the rules strike them: leg by leg (`legs_of`), each foe that threatens a square the flier leaves, at the
/// height it leaves it, once for the turn's movement; none at chase scale (nobody threatens there).
pub fn flight_provocations(
    world: &mut World,
    flier: Entity,
    flight: &crate::rules::aerial::route::Flight,
) -> Vec<Provoking> {
    if world.resource::<Battlefield>().scale() != crate::rules::core::altitude::Scale::Normal {
        return Vec::new();
    }
    let order = world.resource::<TurnOrder>().initiative();
    let reactions: HashMap<Entity, Reactions> =
        kept::<(Entity, &Reactions), ()>(world).iter(world).map(|(e, r)| (e, *r)).collect();
    let mut struck = world.get::<Provoked>(flier).map(|p| p.0.clone()).unwrap_or_default();
    let mut state = kept::<Combatant, With<Creature>>(world);
    let combatants = state.query(world);
    let field = world.resource::<Battlefield>();
    let Ok(me) = combatants.get(flier) else { return Vec::new() };
    let legs =
        crate::rules::aerial::flying::legs_of(me.space.at(me.position.0), me.altitude.0, &flight.waypoints, None);
    let mut out = Vec::new();
    let mut at_height: Option<(i32, Vec<Threat>)> = None;
    for (i, leg) in legs.iter().enumerate() {
        if at_height.as_ref().is_none_or(|(h, _)| *h != leg.altitude) {
            let reacting = |e: Entity| reactions.get(&e).copied().unwrap_or_default();
            let threats =
                crate::rules::opportunity::threats_at(field, (&me, leg.altitude), combatants.iter(), reacting, &order);
            at_height = Some((leg.altitude, threats));
        }
        let Some((_, threats)) = &at_height else { continue };
        let from: Vec<Entity> = threats
            .iter()
            .filter(|t| !struck.contains(&t.entity) && leg.left.iter().any(|s| t.threatens(*s)))
            .filter(|t| {
                combatants.get(t.entity).is_ok_and(|a| {
                    // At the leg's height: cover and the water as the rules' flight judges them (004:783).
                    crate::rules::opportunity::may_strike_at(field, &combatants, &a, &me, (leg.at, leg.altitude))
                })
            })
            .map(|t| t.entity)
            .collect();
        if !from.is_empty() {
            struck.extend(from.iter().copied());
            out.push(Provoking {
                after_steps: i,
                square: leg.at.origin,
                from,
                reason: crate::rules::opportunity::LEAVING,
            });
        }
    }
    out
}

/// [`provocations_along`] for each of `routes` from `start`, the foes' threats read once.
fn provocations_along_each(
    world: &mut World,
    mover: Entity,
    start: Footprint,
    routes: &[&Route],
    action: MovementAction,
) -> Vec<Vec<Provoking>> {
    let none = || vec![Vec::new(); routes.len()];
    // A 5-foot step provokes nothing but a tiny creature's into a foe's space (000:80-82): the threats are
    // read only for those.
    let tiny = world.get::<Size>(mover).is_some_and(|s| s.is_smaller_than_a_square());
    if action == MovementAction::FiveFootStep && !tiny {
        return none();
    }
    let Some((threats, already, tiny)) = threats_against(world, mover) else { return none() };
    let mut state = kept::<Combatant, With<Creature>>(world);
    let combatants = state.query(world);
    let field = world.resource::<Battlefield>();
    let Ok(me) = combatants.get(mover) else { return none() };
    let strikes_at = |foe: Entity, at: Footprint| {
        combatants
            .get(foe)
            .is_ok_and(|a| crate::rules::opportunity::may_strike_at(field, &combatants, &a, &me, (at, me.altitude.0)))
    };
    routes
        .iter()
        .map(|route| {
            provocations(start, route, &threats, (tiny, action), &already, &strikes_at)
                .into_iter()
                .map(|p| Provoking { after_steps: p.after_steps, square: p.square, from: p.from, reason: p.reason })
                .collect()
        })
        .collect()
}

/// The charge lanes from `charger` toward `target`, or why there is none (004:451-459).
pub fn charge_lanes(
    world: &mut World,
    (charger, weapon): (Entity, Option<&str>),
    target: Entity,
) -> Result<Vec<ChargeLane>, Refusal> {
    let mut q = kept::<MoverView, ()>(world);
    let aim = q
        .get(world, target)
        .ok()
        .map(|t| t.space.at(t.position.0))
        .ok_or_else(|| Refusal::new("no such target", "data"))?;
    // The foe in sight as the turn begins (004:454).
    crate::rules::turns::moving::charge_sight(world, charger, target)?;
    let rider_gear = crate::rules::turns::moving::rider_armament(world, charger);
    let own = world.get::<Armament>(charger);
    if !own.into_iter().chain(rider_gear).any(|a| a.ready().any(|w| !is_ranged(w))) {
        return Err(Refusal::new("a charge ends in a melee attack and there is no melee weapon", "004:457"));
    }
    let reach_weapon = own.map_or(crate::rules::core::reach::WeaponReach::Natural, |own| {
        crate::rules::turns::moving::charges_with_reach(own, rider_gear, weapon)
    });
    let mut height = |e: Entity| q.get(world, e).ok().map(|c| (c.altitude.0, *c.size, c.reach.0));
    let (mine, theirs) = (height(charger), height(target));
    let mut rise = 0;
    if let (Some((a, a_size, reach)), Some((b, b_size, _))) = (mine, theirs) {
        rise =
            crate::rules::core::altitude::vertical_steps(world.resource::<Battlefield>().scale(), a, a_size, b, b_size);
        if rise > crate::rules::core::altitude::vertical_reach(reach, reach_weapon) {
            return Err(Refusal::new("the foe is out of reach in height for a charge", "004:783-784"));
        }
    }
    with_move_query(world, charger, false, |query, me| {
        me.grounded.clone()?;
        check_action(MovementAction::Charge, &me.budget, query.speed, &me.conditions, me.rest())?;
        let lanes = query.charge_lanes((aim, rise), me.reach, reach_weapon)?;
        // A die thrown this turn for this charge has said which square it ends on (000:63-65).
        crate::rules::turns::moving::after_the_kept_die(lanes, (query.start.origin, aim.origin), &me.budget)
            .or_else(|to| query.charge_lanes_to((aim, rise), me.reach, reach_weapon, Some(to)).map(|_| Vec::new()))
    })
    .unwrap_or_else(|| Err(Refusal::new("no such creature", "data")))
}

/// For each of `targets`, whether `weapon` of `attacker` reaches it where they stand
/// ([`crate::rules::attack::within_reach`]): cheap beside an attack's preview, whose cover and other terms
/// an attack out of reach is refused without. True where either is unknown: the preview tells.
pub fn weapon_reaches(world: &mut World, attacker: Entity, targets: &[Entity], weapon: &str) -> Vec<bool> {
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let field = world.resource::<Battlefield>();
    let terms = (field.scale(), field.diagonals());
    let Ok(a) = creatures.get(attacker) else { return vec![true; targets.len()] };
    let Some(held) = a.armament.0.iter().find(|w| w.name == weapon) else { return vec![true; targets.len()] };
    let own = a.space.at(a.position.0);
    targets
        .iter()
        .map(|t| {
            creatures.get(*t).map_or(true, |t| {
                crate::rules::attack::within_reach(&a, &t, held, (own, t.space.at(t.position.0)), terms).is_ok()
            })
        })
        .collect()
}

/// The attack `attacker` could make on `target` now with `request`, and its odds, or the rule that
/// forbids it.
pub fn attack_preview(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    request: AttackRequest<'_>,
) -> Result<AttackPreview, Refusal> {
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    if a.faction == t.faction {
        return Err(Refusal::new(format!("{} is an ally", t.id), "our ruling: no attacks on allies from the map"));
    }
    let budget = world.get::<ActionBudget>(attacker).copied().unwrap_or_default();

    let field = world.resource::<Battlefield>();
    let order = world.resource::<TurnOrder>();
    let mut plan = prepare_attack(field, order, &creatures, &a, &t, request, &budget)?;
    // A full attack with a weapon in the off hand adds its blow, both at the two-weapon penalties.
    let off_hand = if request.full
        && crate::rules::attack::with_two_weapons(a.armament, a.feats, request.weapon, request.two_weapons)
    {
        Some(crate::rules::attack::plan_off_hand(field, order, &creatures, &a, &t, &mut plan, &budget, request)?)
    } else {
        None
    };
    let base = a.base_attack.0;
    let rest = total(&plan.modifiers) - base;
    let mut bonuses: Vec<i32> =
        crate::rules::attack::blow_bonuses(&a, &plan.weapon, request.full).into_iter().map(|b| b + rest).collect();
    let mut chances: Vec<f32> = bonuses.iter().map(|&b| chance_to_hit(b, plan.armor_class, plan.miss_chance)).collect();
    let two_weapons = off_hand.is_some();
    if let Some(off) = off_hand {
        let bonus = total(&off.modifiers);
        bonuses.push(bonus);
        chances.push(chance_to_hit(bonus, off.armor_class, off.miss_chance));
    }
    let knees = (crate::rules::attack::takes_both_hands(&a, &plan.weapon, two_weapons)
        && a.knees.is_none_or(|k| k.round != order.round))
    .then(|| crate::rules::attack::knees_bonus(&a))
    .flatten()
    .map(|bonus| (bonus, CastPreview::chance(bonus, crate::rules::attack::KNEES_RIDE_DC)));
    Ok(AttackPreview { plan, bonuses, chances, knees })
}

/// A trip `attacker` could make on `target` now (004:483-489): the touch attack and its chance, the two sides
/// of the check, the chance of laying the foe down, and whether it provokes.
#[derive(Clone, Debug)]
pub struct TripPreview {
    /// The trip as the rules would make it.
    pub plan: crate::rules::special::trip::TripPlan,
    /// The chance the touch attack lands.
    pub touch_chance: f32,
    /// The chance of winning the check once touched.
    pub check_chance: f32,
}

/// The trip `attacker` could make on `target` now, through the rules' own plan.
pub fn trip_preview(world: &mut World, attacker: Entity, target: Entity) -> Result<TripPreview, Refusal> {
    use crate::rules::special::{plan_in, trip::plan_trip};
    let plan = plan_in(world, (attacker, target), Box::new(|g, (a, t), budget| plan_trip(g, a, t, None, budget)))?;
    Ok(TripPreview::of(plan))
}

impl TripPreview {
    /// The odds of a planned trip.
    pub fn of(plan: crate::rules::special::trip::TripPlan) -> TripPreview {
        let touch_chance = chance_to_hit(total(&plan.touch.modifiers), plan.touch.armor_class, plan.touch.miss_chance);
        let check_chance = plan.attacker.chance_against(&plan.defender);
        TripPreview { plan, touch_chance, check_chance }
    }
}

/// The trip, disarm or sunder (`finish`) that would end `attacker`'s charge on `target`, out of its reach
/// (004:457): where the first lane ends, its lanes, and the special attack planned by the rules as it would
/// be made there, with the charge's +2; `None` when no lane reaches it.
pub fn charge_blow_preview(
    world: &mut World,
    (attacker, target): (Entity, Entity),
    (finish, weapon): (crate::rules::turns::moving::ChargeFinish, Option<&str>),
) -> Option<(Vec<ChargeLane>, Result<crate::rules::special::charge_end::ChargeBlow, Refusal>)> {
    use crate::rules::special::charge_end::{plan_charge_blow, weapon_for};
    let weapon = world.get::<Armament>(attacker).and_then(|a| weapon_for(a, finish, weapon));
    let lanes = charge_lanes(world, (attacker, weapon.as_deref()), target).ok()?;
    let to = lanes.first()?.to;
    let planned = plan_charge_blow(world, (attacker, target), (to, finish, weapon.as_deref()))?;
    Some((lanes, planned))
}

/// A charge a flier in the air could fly at `foe` now (004:451-459, 004:693): its flight
/// ([`crate::rules::aerial::flying::plan_charge`]) and the blow at its end as the rules would make it there,
/// with the charge's +2, and its odds.
pub fn flying_charge_preview(
    world: &mut World,
    flier: Entity,
    foe: Entity,
) -> Result<(Vec<crate::rules::aerial::route::FlightStep>, AttackPreview), Refusal> {
    let (steps, end) = crate::rules::aerial::flying::plan_charge(world, flier, foe)?;
    // Previewed from where the flight ends, the flier put back after.
    let place = |world: &mut World, (square, height): (Square, i32)| -> Option<(Square, i32)> {
        let mut position = world.get_mut::<Position>(flier)?;
        let before = std::mem::replace(&mut position.bypass_change_detection().0, square);
        let mut altitude = world.get_mut::<Altitude>(flier)?;
        Some((before, std::mem::replace(&mut altitude.bypass_change_detection().0, height)))
    };
    let own = place(world, (end.square, end.altitude)).ok_or_else(|| Refusal::new("no such creature", "data"))?;
    let attack = attack_preview(world, flier, foe, AttackRequest { charge: true, ..AttackRequest::default() });
    place(world, own);
    Ok((steps, attack?))
}

/// An aid another `aider` could give now against `foe` (004:444): the ally it would aid (of the allies
/// engaged with the foe, `prefer` if it is one, else the first by id), the attack against AC 10 and its chance.
#[derive(Clone, Debug)]
pub struct AidPreview {
    /// The ally aided.
    pub ally: Entity,
    /// The attack against AC 10.
    pub plan: crate::rules::attack::AttackPlan,
    /// Its chance.
    pub chance: f32,
    /// The foe strikes first: an unarmed distraction provokes it, and it threatens the aider (004:168).
    pub foe_strikes: bool,
}

/// The aid `aider` could give against `foe` now, through the rules' own plan.
pub fn aid_preview(
    world: &mut World,
    aider: Entity,
    foe: Entity,
    prefer: Option<Entity>,
) -> Result<AidPreview, Refusal> {
    let strikers = strikers_in_place(world, aider).unwrap_or_default();
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let (Ok(a), Ok(f)) = (creatures.get(aider), creatures.get(foe)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let budget = world.get::<ActionBudget>(aider).copied().unwrap_or_default();
    let field = world.resource::<Battlefield>();
    let order = world.resource::<TurnOrder>();
    let mut allies: Vec<_> = creatures.iter().filter(|c| c.faction == a.faction && c.entity != aider).collect();
    allies.sort_by_key(|c| (Some(c.entity) != prefer, c.id.clone()));
    let mut first_refusal = None;
    for ally in allies {
        match crate::rules::special::aid::plan_aid(field, order, &creatures, (&a, &ally, &f), &budget) {
            Ok(plan) => {
                let chance = chance_to_hit(total(&plan.modifiers), plan.armor_class, plan.miss_chance);
                let foe_strikes =
                    crate::rules::special::aid::unarmed_provokes(world, aider, &plan.weapon) && strikers.contains(&foe);
                return Ok(AidPreview { ally: ally.entity, plan, chance, foe_strikes });
            }
            Err(refusal) => {
                first_refusal.get_or_insert(refusal);
            }
        }
    }
    Err(first_refusal.unwrap_or_else(|| Refusal::new("no ally to aid", "004:444")))
}

/// The sunder `attacker` could make on `target`'s weapon (or its shield) now, through the rules' own plan
/// (004:499-523).
pub fn sunder_preview(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    (weapon, shield): (Option<&str>, bool),
) -> Result<crate::rules::special::sunder::SunderPlan, Refusal> {
    use crate::rules::special::{plan_in, sunder::plan_sunder};
    let shield = shield.then(|| world.get::<Shield>(target).copied());
    plan_in(world, (attacker, target), Box::new(move |g, pair, budget| plan_sunder(g, pair, (weapon, shield), budget)))
}

/// The disarm `attacker` could make on `target` now, through the rules' own plan (004:490-498).
pub fn disarm_preview(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    weapon: Option<&str>,
) -> Result<crate::rules::special::disarm::DisarmPlan, Refusal> {
    use crate::rules::special::{disarm::plan_disarm, plan_in};
    plan_in(world, (attacker, target), Box::new(|g, pair, budget| plan_disarm(g, pair, weapon, budget)))
}

/// The first object `target` carries that `attacker` could snatch, and the plan (004:497-498).
pub fn snatch_preview(
    world: &mut World,
    attacker: Entity,
    target: Entity,
) -> Result<crate::rules::special::disarm::DisarmPlan, Refusal> {
    use crate::rules::special::{disarm, plan_in};
    let items = world.get::<Items>(target).cloned();
    plan_in(
        world,
        (attacker, target),
        Box::new(move |g, pair, budget| {
            let carried = disarm::snatchable(pair.1, items.as_ref());
            let Some(object) = carried.first().cloned() else {
                return Err(Refusal::new(format!("{} carries nothing to snatch", pair.1.id), "004:497"));
            };
            disarm::plan_snatch(g, pair, (&object, &carried), budget)
        }),
    )
}

/// The first aid `healer` could give `patient` now (004:283).
pub fn first_aid_preview(
    world: &mut World,
    healer: Entity,
    patient: Entity,
) -> Result<crate::rules::health::first_aid::FirstAidPlan, Refusal> {
    crate::rules::special::plan_in(
        world,
        (healer, patient),
        Box::new(|g, pair, budget| crate::rules::health::first_aid::plan_first_aid(g.order, pair, budget)),
    )
}

/// A grapple move `attacker` could make on `target` now (004:576-618): a grab's touch attack and check, or
/// a move inside the grapple with its checks; the chance, and who strikes as it starts and enters.
#[derive(Clone, Debug)]
pub struct GrapplePreview {
    /// The move.
    pub action: crate::rules::special::grapple::GrappleMove,
    /// A grab's plan.
    pub grab: Option<crate::rules::special::grapple::GrabPlan>,
    /// A move inside the grapple's plan.
    pub hold: Option<crate::rules::special::grapple::HoldPlan>,
    /// The chance it succeeds (the touch attack and the check, for a grab).
    pub chance: f32,
    /// The touch attack's chance, for a grab that needs one.
    pub touch_chance: Option<f32>,
    /// The foes that would strike it as it moves into its foe's space (004:586).
    pub strikers: Vec<Entity>,
    /// The foe would strike as the grab begins: it provokes and the foe can strike now (004:581).
    pub target_strikes: bool,
}

/// Moving `mover`'s grapple to `to` (004:602), as the rules would carry it out now: the check against every
/// one in the grapple, and the foes that would strike as it leaves squares they threaten on its way (004:65).
pub fn grapple_move_preview(
    world: &mut World,
    mover: Entity,
    to: crate::rules::core::geometry::Square,
) -> Result<GrapplePreview, Refusal> {
    use crate::rules::special::grapple::{GrappleMove, grapple_destination};
    let preview = grapple_preview(world, mover, None, GrappleMove::Move)?;
    let shift = grapple_destination(world, mover, to)?;
    let group: Vec<Entity> = shift.members.iter().map(|(e, _)| *e).collect();
    let strikers = strikers_leaving(world, mover, &shift.left())?.into_iter().filter(|e| !group.contains(e)).collect();
    Ok(GrapplePreview { strikers, ..preview })
}

/// The foes that would strike `who` as it leaves `squares` (004:65), through the rules' own predicate: each
/// that threatens one of them and has an attack of opportunity left.
pub fn strikers_leaving(world: &mut World, who: Entity, squares: &[Square]) -> Result<Vec<Entity>, Refusal> {
    let mut state = kept::<crate::rules::attack::Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let me = creatures.get(who).map_err(|_| Refusal::new("no such creature", "data"))?;
    let reactions = |e: Entity| world.get::<crate::rules::opportunity::Reactions>(e).copied().unwrap_or_default();
    let order = world.resource::<TurnOrder>().initiative();
    Ok(crate::rules::opportunity::threatening_any_of(
        world.resource::<crate::rules::core::battlefield::Battlefield>(),
        &me,
        &creatures,
        reactions,
        &order,
        squares,
    ))
}

/// The foes that would strike `who` for an action that provokes where it stands (004:66), through the
/// rules' own predicate: each that threatens it and has an attack of opportunity left.
pub fn strikers_in_place(world: &mut World, who: Entity) -> Result<Vec<Entity>, Refusal> {
    let own: Vec<Square> = match (world.get::<Space>(who), world.get::<Position>(who)) {
        (Some(space), Some(position)) => space.at(position.0).squares().collect(),
        _ => return Err(Refusal::new("no such creature", "data")),
    };
    strikers_leaving(world, who, &own)
}

/// What handling a weapon would cost `who` now, and who would strike (putting one away provokes, 004:129).
#[derive(Clone, Debug)]
pub struct HandlePreview {
    /// The action it takes and its rule.
    pub cost: crate::rules::attack::gear::HandleCost,
    /// The foes that would strike.
    pub strikers: Vec<Entity>,
}

/// Strapping on (`ready`) or loosing `who`'s shield, as the rules would carry it out now (004:127, 004:221).
pub fn shield_preview(world: &mut World, who: Entity, ready: bool) -> Result<HandlePreview, Refusal> {
    let cost = crate::rules::attack::gear::check_shield(world, who, ready)?;
    let strikers = if cost.provokes { strikers_in_place(world, who)? } else { Vec::new() };
    Ok(HandlePreview { cost, strikers })
}

/// Drawing, putting away or dropping `weapon`, as the rules would carry it out now.
pub fn handle_preview(
    world: &mut World,
    who: Entity,
    weapon: &str,
    handle: crate::rules::attack::gear::Handle,
) -> Result<HandlePreview, Refusal> {
    let cost = crate::rules::attack::gear::check_handle(world, who, weapon, handle)?;
    let strikers = if cost.provokes { strikers_in_place(world, who)? } else { Vec::new() };
    Ok(HandlePreview { cost, strikers })
}

/// The grapple move `attacker` could make on `target` now, through the rules' own plan; `target` may be
/// left out for a break or an escape.
pub fn grapple_preview(
    world: &mut World,
    attacker: Entity,
    target: Option<Entity>,
    action: crate::rules::special::grapple::GrappleMove,
) -> Result<GrapplePreview, Refusal> {
    use crate::rules::special::grapple::{GrappleMove, default_foe, plan_grab, plan_hold};
    use crate::rules::special::plan_in;
    let target = match target {
        Some(t) => t,
        None => {
            let mut q = kept::<crate::rules::attack::Combatant, With<Creature>>(world);
            let me = q.get(world, attacker).map_err(|_| Refusal::new("no such creature", "data"))?;
            default_foe(&me, action).ok_or_else(|| Refusal::new("it is in no grapple", "004:592"))?
        }
    };
    if action != GrappleMove::Grab {
        let hold =
            plan_in(world, (attacker, target), Box::new(move |g, pair, budget| plan_hold(g, pair, budget, action)))?;
        return Ok(GrapplePreview {
            action,
            chance: hold.chance(),
            hold: Some(hold),
            grab: None,
            touch_chance: None,
            strikers: Vec::new(),
            target_strikes: false,
        });
    }
    let grab = plan_in(world, (attacker, target), Box::new(plan_grab))?;
    let touch_chance = grab.touch.as_ref().map(|t| chance_to_hit(total(&t.modifiers), t.armor_class, t.miss_chance));
    let grapplers = world.get::<Grapple>(target).map(|g| g.with.clone()).unwrap_or_default();
    let threatening = strikers_in_place(world, attacker)?;
    let strikers = threatening.iter().copied().filter(|e| *e != target && !grapplers.contains(e)).collect();
    let target_strikes = grab.provokes && threatening.contains(&target);
    Ok(GrapplePreview {
        action,
        chance: grab.chance(touch_chance.unwrap_or(1.0)),
        touch_chance,
        grab: Some(grab),
        hold: None,
        strikers,
        target_strikes,
    })
}

/// The throw of a splash weapon `thrower` could make now at `aim` (004:528-530), through the rules' own plan.
pub fn throw_preview(
    world: &mut World,
    thrower: Entity,
    aim: crate::rules::special::splash::Aim,
    weapon: Option<&str>,
) -> Result<crate::rules::special::splash::ThrowPlan, Refusal> {
    use crate::rules::special::splash::plan_throw;
    let target = match aim {
        crate::rules::special::splash::Aim::Creature(target) => target,
        crate::rules::special::splash::Aim::Corner(_) => thrower,
    };
    crate::rules::special::plan_in(
        world,
        (thrower, target),
        Box::new(move |g, (me, _), budget| plan_throw(g, me, aim, weapon, budget)),
    )
}

/// The coup de grâce `attacker` could deliver to `target` now (004:424-427): the weapon it would strike
/// with, or why not (its turn, a full-round action, a helpless foe within its reach, not immune).
pub fn coup_de_grace_preview(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    weapon: Option<&str>,
) -> Result<Weapon, Refusal> {
    crate::rules::special::plan_in(
        world,
        (attacker, target),
        Box::new(move |g, (a, t), budget| {
            g.order.check_turn(a.entity)?;
            able_to_act(a.conditions)?;
            budget.check_full_round().or_else(|r| if budget.restricted { Ok(()) } else { Err(r) })?;
            let chosen = a.armament.chosen(weapon);
            let chosen = chosen.ok_or_else(|| Refusal::new("no such weapon", "data"))?.clone();
            crate::rules::attack::check_coup_de_grace((g.field, g.order, g.creatures), a, t, &chosen)?;
            Ok(chosen)
        }),
    )
}

/// A bull rush `attacker` could make on `target` now (004:446-450): from where it stands if the foe is next
/// to it, else at the end of a charge (004:458); who strikes as it enters, the two sides with their terms,
/// the chance, and where a win would push the foe and take the attacker.
#[derive(Clone, Debug)]
pub struct BullRushPreview {
    /// Where the charge that brings it next to the foe ends, if it charges first.
    pub charge_to: Option<Square>,
    /// The plan: from where it stands, or (for a charge) the check alone, the way known once it arrives.
    pub plan: crate::rules::special::bull_rush::BullRushPlan,
    /// The chance to win the check.
    pub chance: f32,
}

/// The bull rush `attacker` could make on `target` now, through the rules' own plan; `stay` if it would
/// not follow its push.
pub fn bull_rush_preview(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    stay: bool,
) -> Result<BullRushPreview, Refusal> {
    use crate::rules::special::bull_rush::{
        BullRushIntent, BullRushPlan, plan_bull_rush, resisting_side, rushing_side,
    };
    let intent = BullRushIntent { attacker, target, stay, charge: false };
    let adjacent = {
        let at = |e: Entity| world.get::<Position>(e).zip(world.get::<Space>(e)).map(|(p, s)| s.at(p.0));
        at(attacker).zip(at(target)).is_some_and(|(a, t)| a.adjacent_to(t))
    };
    if adjacent {
        let plan = plan_bull_rush(world, &intent)?;
        return Ok(BullRushPreview { charge_to: None, chance: plan.chance(), plan });
    }
    let lane = crate::rules::turns::moving::charge_lanes_of(world, (attacker, None), target, true)
        .ok_or_else(|| Refusal::new("no such creature", "data"))?
        .map_err(|refusal| {
            Refusal::new(
                format!("not next to the foe, and no charge brings it there: {}", refusal.reason),
                refusal.rule,
            )
        })?;
    let Some(lane) = lane.first() else { return Err(Refusal::new("no clear charge lane", "004:452-453")) };
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    // What the charge's end asks before it moves (charge_end::check_charge_push): size, a rider, height,
    // sight (004:446, 004:474).
    crate::rules::special::bull_rush::rushable(&a, &t)?;
    let budget = world.get::<ActionBudget>(attacker).copied().unwrap_or_default();
    budget.check(crate::rules::turns::ActionKind::FullRound)?;
    let plan = BullRushPlan {
        provokers: Vec::new(),
        target_strikes: false,
        attacker: rushing_side(&a, true),
        defender: resisting_side(&t),
        direction: crate::rules::special::bull_rush::away(a.space.at(lane.to), t.space.at(t.position.0)),
        pushes: Vec::new(),
        follows: Vec::new(),
        follow_costs: Vec::new(),
        into_pit: false,
    };
    Ok(BullRushPreview { charge_to: Some(lane.to), chance: plan.chance(), plan })
}

/// A feint `feinter` could make on `target` now (004:524-527): the two sides with their terms, and the chance.
#[derive(Clone, Debug)]
pub struct FeintPreview {
    /// The check as the rules would make it.
    pub plan: crate::rules::special::feint::FeintPlan,
    /// The chance the Bluff beats the Sense Motive.
    pub chance: f32,
}

/// The feint `feinter` could make on `target` now, through the rules' own plan.
pub fn feint_preview(world: &mut World, feinter: Entity, target: Entity) -> Result<FeintPreview, Refusal> {
    use crate::rules::special::feint::{plan_feint, sum};
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(feinter), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let (Some(a_skills), Some(t_skills)) = (world.get::<Skills>(feinter), world.get::<Skills>(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let budget = world.get::<ActionBudget>(feinter).copied().unwrap_or_default();
    let field = world.resource::<crate::rules::core::battlefield::Battlefield>();
    let plan = plan_feint((world.resource::<TurnOrder>(), field), (&a, a_skills), (&t, t_skills), &budget)?;
    let chance = crate::rules::core::checks::beat_chance(sum(&plan.bluff), sum(&plan.sense_motive));
    Ok(FeintPreview { plan, chance })
}

/// A spell `caster` could cast at `target` now: who would strike as it casts, and the Concentration it
/// would need to cast defensively instead.
#[derive(Clone, Debug, PartialEq)]
pub struct CastPreview {
    /// The spell.
    pub spell: crate::rules::magic::KnownSpell,
    /// The foes whose attacks of opportunity the casting provokes (none when cast defensively).
    pub provokes_from: Vec<String>,
    /// Concentration DC to cast defensively (004:197).
    pub defensive_dc: i32,
    /// The caster's Concentration bonus.
    pub concentration: i32,
    /// The Concentration DC its mount's pace this round calls for, and why (004:480).
    pub jolted: Option<(i32, &'static str)>,
    /// The Concentration DC of a cast between two moves of its mount, when it may cast so (004:480).
    pub between_moves: Option<i32>,
}

impl CastPreview {
    /// The chance, 0 to 1, of a Concentration check of this bonus against `dc` (a d20, no automatic results).
    pub fn chance(bonus: i32, dc: i32) -> f32 {
        crate::rules::core::checks::check_chance(bonus, dc)
    }
}

/// The spell `caster` could cast at `target` now, or the rule that forbids it (004:190-200).
pub fn cast_preview(world: &mut World, caster: Entity, target: Entity, spell: &str) -> Result<CastPreview, Refusal> {
    let (threats, _, _) = threats_against(world, caster).ok_or_else(|| Refusal::new("no such creature", "data"))?;
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = state.query(world);
    let (Ok(c), Ok(t)) = (creatures.get(caster), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let magic = world
        .get::<crate::rules::magic::Spellcasting>(caster)
        .ok_or_else(|| Refusal::new(format!("{} casts no spells", c.id), "data"))?;
    let budget = world.get::<ActionBudget>(caster).copied().unwrap_or_default();
    let field = world.resource::<Battlefield>();
    let order = world.resource::<TurnOrder>();
    let index = crate::rules::magic::check_cast(order, field, &c, &t, magic, Some(&budget), spell)?;
    let own = c.space.at(c.position.0);
    let provokes_from = threats
        .iter()
        .filter(|t| own.squares().any(|s| t.threatens(s)))
        .filter_map(|t| world.get::<CreatureId>(t.entity).map(|id| id.0.clone()))
        .collect();
    let known = magic.spells[index].clone();
    let skills = world.get::<Skills>(caster).cloned().unwrap_or_default();
    let jolted = crate::rules::magic::jolted(order, &creatures, &c, known.def.level);
    let between_moves =
        crate::rules::magic::between_moves(order, &creatures, &c).ok().map(|()| 10 + known.def.level as i32);
    Ok(CastPreview {
        jolted,
        between_moves,
        defensive_dc: crate::rules::magic::defensive_dc(known.def.level),
        concentration: crate::rules::magic::concentration_bonus(&skills, c.abilities),
        spell: known,
        provokes_from,
    })
}

/// What striking a foe from the end of a flight needs: the striker's reach, the flier's size and width,
/// the foe's place, height and size. The game's flight strikes and the AI's read it.
pub struct FlightStrike {
    reach: u32,
    size: Size,
    side: i32,
    their_at: Footprint,
    their_altitude: i32,
    their_size: Size,
    /// The battlefield's scale.
    pub scale: crate::rules::core::altitude::Scale,
    /// How the battlefield counts diagonals.
    pub diagonals: crate::rules::core::geometry::Diagonals,
}

impl FlightStrike {
    /// `striker` striking `foe` from the flight of `flier`: its mount, or itself.
    pub fn of(world: &World, striker: Entity, flier: Entity, foe: Entity) -> Option<Self> {
        let (p, s) = (world.get::<Position>(foe)?, world.get::<Space>(foe)?);
        Some(FlightStrike {
            reach: world.get::<Reach>(striker)?.0,
            size: *world.get::<Size>(flier)?,
            side: world.get::<Space>(flier)?.width,
            their_at: s.at(p.0),
            their_altitude: world.get::<Altitude>(foe)?.0,
            their_size: *world.get::<Size>(foe)?,
            scale: world.resource::<Battlefield>().scale(),
            diagonals: world.resource::<Battlefield>().diagonals(),
        })
    }

    /// Whether the flight `planned`, ending on `at`, leaves the foe within reach, heights counted
    /// (004:783-784).
    pub fn reaches(&self, at: Square, planned: &crate::rules::aerial::planner::PlannedFlight) -> bool {
        use crate::rules::core::altitude::vertical_steps;
        use crate::rules::core::reach::melee_reaches_at_height;
        let end = planned.flight.waypoints.last().map_or(0, |w| w.altitude);
        let rise = vertical_steps(self.scale, end, self.size, self.their_altitude, self.their_size);
        let both = (Footprint::new(at, self.side), self.their_at);
        melee_reaches_at_height(
            (self.diagonals, self.scale),
            self.reach,
            crate::rules::core::reach::WeaponReach::Natural,
            both,
            rise,
        )
    }
}
