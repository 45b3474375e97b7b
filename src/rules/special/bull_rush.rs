//! Bull rush (Bousculade, 004:446-450), as a standard action or at the end of a charge (004:446, 004:458).
//! The attacker enters the space of a foe at most one size larger (004:446); that provokes from the target,
//! unless the attacker has Improved Bull Rush, and from every other foe that threatens it, whose attacks
//! strike the target instead on 25 or less on a d% rolled after the attack roll (004:447). Then opposed
//! Strength checks, +4 per size category above Medium and -4 per category below, +2 on a charge, the
//! target +4 if it has more than two legs or is otherwise stable (004:448). Won, the target is pushed back
//! 1.5 m, and 1.5 m more per 5 points of the margin if the attacker follows it, never beyond the
//! attacker's movement for the round; each square either leaves provokes from the others around, not
//! from the pair (004:449). Lost, the attacker is thrown back 1.5 m to where it came from, prone if that
//! square is taken (004:450).
//!
//! Our rulings (docs/rulings.md): the attacker starts next to its target and the two stand at one height;
//! the push goes straight away from the attacker, the direction of the line between their centres rounded
//! to one of the eight; it stops short of a square the target may not stand on (a wall, a pit, another
//! creature, a wall between) or, when following, one the attacker may not follow into; the follow is
//! paid as a move pays its squares, out of the attacker's speed (twice it on a charge) less what it moved
//! this round.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::Side;
use crate::rules::attack::{Combatant, CombatantItem, provoke_as};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{Check, contest_by};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Direction, Footprint};
use crate::rules::core::kept::kept;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::movement::cost::step_cost;
use crate::rules::movement::{MovementAction, StepWorld, occupants_for};
use crate::rules::opportunity::{Reactions, threatening_in_place};
use crate::rules::turns::moving::{ChargeEnded, ChargeFinish, MoverView, Trail, Travelled, bodies, move_query};
use crate::rules::turns::{ActionBudget, ActionKind, MovementMade, Provoking, TurnOrder};

/// Asks to bull rush a foe.
#[derive(Message, Clone, Debug)]
pub struct BullRushIntent {
    /// Who rushes.
    pub attacker: Entity,
    /// Whom.
    pub target: Entity,
    /// It does not follow the foe it pushes (004:449).
    pub stay: bool,
    /// At the end of a charge (004:458): its full-round action is paid, +2 on the check.
    pub charge: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<BullRushIntent>();
    app.add_systems(
        Rules,
        (rush_at_the_end_of_a_charge, resolve_bull_rushes).chain().in_set(RulesSystems::Act).after(super::feint::feint),
    );
}

/// A bull rush checked and ready: who strikes as the attacker enters, the two sides of the check, and
/// where a win would push the target and take the attacker.
#[derive(Clone, Debug)]
pub struct BullRushPlan {
    /// The foes that strike as the attacker enters the target's space, in initiative order (004:447).
    pub provokers: Vec<Entity>,
    /// Whether the target is among them (not against Improved Bull Rush, 004:447).
    pub target_strikes: bool,
    /// The attacker's Strength check (004:448).
    pub attacker: Side,
    /// The target's (004:448).
    pub defender: Side,
    /// Where the push goes.
    pub direction: Direction,
    /// The target's squares after each 1.5 m of the push, as far as it could go (004:449).
    pub pushes: Vec<Footprint>,
    /// The attacker's squares after each 1.5 m it follows; empty if it stays.
    pub follows: Vec<Footprint>,
    /// What each 1.5 m followed costs in movement, and whether an odd number of diagonals is taken once
    /// it is (one alternation a turn, RULES-INDEX): the round's movement it uses (004:449).
    pub follow_costs: Vec<(u32, bool)>,
    /// The last push carries the target over a pit, into which it falls (our ruling, docs/rulings.md).
    pub into_pit: bool,
}

impl BullRushPlan {
    /// How many 1.5 m steps a win by `margin` pushes the target: one, and one more per 5 points when the
    /// attacker follows (004:449), as far as the way goes.
    pub fn steps_for(&self, margin: i32) -> usize {
        let wanted = if self.follows.is_empty() { 1 } else { 1 + (margin.max(0) / 5) as usize };
        wanted.min(self.pushes.len())
    }

    /// The chance to win the check.
    pub fn chance(&self) -> f32 {
        self.attacker.chance_against(&self.defender)
    }

    /// The chance the push carries the target into a pit: a win by 5 points for every 1.5 m before it
    /// (004:449); none when the way leads to no pit.
    pub fn pit_chance(&self) -> Option<f32> {
        let before = i32::try_from(self.pushes.len()).ok()? - 1;
        self.into_pit.then(|| {
            crate::rules::core::checks::contest_chance(self.attacker.bonus() - 5 * before, self.defender.bonus())
        })
    }
}

/// The bull rush's attacker side: Strength, size, +2 on a charge (004:448, 004:458).
pub fn rushing_side(c: &CombatantItem, charge: bool) -> Side {
    let mut side = super::strength_side(c, Check::Strength, false);
    if charge {
        side.terms.push(Modifier::new(2, "charging (004:448, 004:458)"));
    }
    side
}

/// The side that resists a bull rush: Strength, size, stability (004:448).
pub fn resisting_side(c: &CombatantItem) -> Side {
    super::strength_side(c, Check::Strength, true)
}

/// The eight-way direction straight away from `from` through `to`: the line between their centres.
pub fn away(from: Footprint, to: Footprint) -> Direction {
    let centre = |f: Footprint| (2 * f.origin.x + f.width, 2 * f.origin.y + f.height);
    let ((ax, ay), (bx, by)) = (centre(from), centre(to));
    let (dx, dy) = (bx - ax, by - ay);
    let (sx, sy) = match (dx.abs(), dy.abs()) {
        (x, y) if x > 2 * y => (dx.signum(), 0),
        (x, y) if y > 2 * x => (0, dy.signum()),
        _ => (dx.signum(), dy.signum()),
    };
    Direction::from_delta(sx, sy).unwrap_or(Direction::North)
}

/// A bull rush's foe is at most one size category larger than the rusher (004:446).
pub fn within_size(attacker: &CombatantItem, target: &CombatantItem) -> Result<(), Refusal> {
    if attacker.size.steps_to(*target.size) > 1 {
        return Err(Refusal::new("a foe more than one size larger cannot be bull rushed", "004:446"));
    }
    Ok(())
}

/// Whether `target` is a foe `attacker` may bull rush wherever it stands: in the fight, seen, at most one size
/// larger (004:446), on its own feet (not a rider, [`super::not_a_rider`]), at its height (our ruling). What
/// a charge ending in a bull rush is checked for before it moves.
pub fn rushable(attacker: &CombatantItem, target: &CombatantItem) -> Result<(), Refusal> {
    within_the_fight(target.conditions)?;
    crate::rules::core::creature::in_sight_of(target.hidden, attacker.entity, target.id)?;
    within_size(attacker, target)?;
    super::not_a_rider(target, "bull rush")?;
    if attacker.altitude.0 != target.altitude.0 {
        return Err(Refusal::new("the two must stand at one height to push (our ruling)", "004:447, docs/rulings.md"));
    }
    Ok(())
}

/// Whether `attacker` may bull rush `target` now, and how (the checks of 004:446-448 and our rulings).
pub fn check_bull_rush(
    order: &TurnOrder,
    attacker: &CombatantItem,
    target: &CombatantItem,
    budget: &ActionBudget,
    charge: bool,
) -> Result<(), Refusal> {
    order.check_turn(attacker.entity)?;
    out_of_grapple(attacker.conditions, "bull rush")?;
    super::afoot(attacker, "bull rush")?;
    if !charge {
        budget.check(ActionKind::Standard)?;
    }
    if !attacker.conditions.can_act() {
        return Err(Refusal::new("a helpless creature cannot rush", "004:278"));
    }
    if attacker.conditions.has(Condition::Prone) {
        return Err(Refusal::new("a prone creature cannot rush into a foe's space: it stands first", "004:225"));
    }
    if attacker.entity == target.entity {
        return Err(Refusal::new("one cannot rush oneself", "004:446"));
    }
    // « repousser l'adversaire », « On ne peut bousculer un ennemi » (004:446): a foe, not an ally.
    if attacker.faction == target.faction {
        return Err(Refusal::new("a bull rush pushes a foe, not an ally", "004:446"));
    }
    rushable(attacker, target)?;
    if !attacker.space.at(attacker.position.0).adjacent_to(target.space.at(target.position.0)) {
        return Err(Refusal::new(
            "the foe must stand next to it: a bull rush enters its space (our ruling; a charge brings it there)",
            "004:447, docs/rulings.md",
        ));
    }
    Ok(())
}

/// Plans `intent` in `world`: checked, its provokers, its sides, and the way the push could go.
pub fn plan_bull_rush(world: &mut World, intent: &BullRushIntent) -> Result<BullRushPlan, Refusal> {
    let mut combatants = kept::<Combatant, With<Creature>>(world);
    let mut movers = kept::<MoverView, With<Creature>>(world);
    let world: &World = world;
    let creatures = combatants.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let order = world.resource::<TurnOrder>();
    let field = world.resource::<Battlefield>();
    let budget = world.get::<ActionBudget>(intent.attacker).copied().unwrap_or_default();
    check_bull_rush(order, &a, &t, &budget, intent.charge)?;
    let reactions = |e: Entity| world.get::<Reactions>(e).copied().unwrap_or_default();
    let improved = a.feats.has(Feat::ImprovedBullRush);
    let provokers: Vec<Entity> = threatening_in_place(field, &a, &creatures, reactions, &order.initiative())
        .into_iter()
        .filter(|e| !(improved && *e == t.entity))
        .collect();
    let target_strikes = provokers.contains(&t.entity);
    // The way: the target's squares step by step, the attacker's behind it while it may follow.
    let movers = movers.query(world);
    let all = bodies(movers.iter());
    let (Ok(me), Ok(them)) = (movers.get(intent.attacker), movers.get(intent.target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let (mine, theirs) = (move_query(field, &all, &me), move_query(field, &all, &them));
    let travelled = world.get::<Travelled>(intent.attacker).map_or(0, |t| t.in_round(order.round));
    let left = left_to_follow(&mine, intent.charge, travelled, me.budget.movement);
    let direction = away(mine.start, theirs.start);
    // « Le personnage doit commencer par entrer dans l'espace de sa cible » (004:447): through no wall.
    crate::rules::movement::walls_in_the_way(field, mine.start, direction).map_err(|blocked| {
        Refusal::new(format!("it cannot enter its foe's space: {blocked}"), "004:447, 000:106-107")
    })?;
    let (mut pushes, mut follows, mut follow_costs) = (Vec::new(), Vec::new(), Vec::new());
    let mut bodies = all.clone();
    let (mut at, mut behind, mut paid, mut odd) = (theirs.start, mine.start, 0, me.budget.odd_diagonal);
    let place = |bodies: &mut Vec<Body>, who: Entity, f: Footprint| {
        if let Some(b) = bodies.iter_mut().find(|b| b.entity == who) {
            b.footprint = f;
        }
    };
    let body = |bodies: &[Body], who: Entity| bodies.iter().find(|b| b.entity == who).cloned();
    // A creature that flies catches itself at the lip; one in a grapple is held there (our rulings).
    let may_fall = t.speed.fly.is_none() && !t.conditions.has(Condition::Grappling);
    let mut into_pit = false;
    while let Some(pushed) = body(&bodies, intent.target) {
        let occupants = occupants_for(&bodies, &pushed);
        let ground = StepWorld { field, occupants: &occupants };
        let (next, entry, over_pit) = match ground.step(&theirs.mover, at, direction, at) {
            Ok((next, entry)) => (next, entry, false),
            Err(crate::rules::movement::Blocked::Pit { .. }) if may_fall => {
                match over_a_pit(&ground, &theirs.mover, at, direction) {
                    Some((next, entry)) => (next, entry, true),
                    None => break,
                }
            }
            Err(_) => break,
        };
        if !entry.can_stop && !over_pit {
            break;
        }
        // The pit only when the push gets there: a first 1.5 m, or a step the attacker follows.
        if intent.stay || (over_pit && pushes.is_empty()) {
            pushes.push(next);
            into_pit = over_pit;
            break;
        }
        place(&mut bodies, intent.target, next);
        let Some(follower) = body(&bodies, intent.attacker) else { break };
        let occupants = occupants_for(&bodies, &follower);
        let ground = StepWorld { field, occupants: &occupants };
        let followed = ground.step(&mine.mover, behind, direction, behind).ok().filter(|(_, e)| e.can_stop);
        let cost = followed.map(|(_, e)| step_cost(field.diagonals(), direction.is_diagonal(), e.hampering, odd));
        match (followed, cost) {
            (Some((then, _)), Some((cost, now_odd))) if paid + cost <= left => {
                pushes.push(next);
                follows.push(then);
                follow_costs.push((cost, now_odd));
                place(&mut bodies, intent.attacker, then);
                (at, behind, paid, odd) = (next, then, paid + cost, now_odd);
                if over_pit {
                    into_pit = true;
                    break;
                }
            }
            // It cannot follow the first 1.5 m: the target goes that far alone (004:449).
            _ if pushes.is_empty() => {
                pushes.push(next);
                break;
            }
            _ => break,
        }
    }
    Ok(BullRushPlan {
        provokers,
        target_strikes,
        attacker: rushing_side(&a, intent.charge),
        defender: resisting_side(&t),
        direction,
        pushes,
        follows,
        follow_costs,
        into_pit,
    })
}

/// The squares of movement the rusher has left to follow its push (004:449): the round's movement, its speed
/// (twice on a charge) or whatever part of a move goes on after an overrun, less what it `travelled`; none
/// after a 5-foot step (004:259: the target goes 1.5 m alone).
fn left_to_follow(
    mine: &crate::rules::movement::MoveQuery<'_>,
    charge: bool,
    travelled: u32,
    made: MovementMade,
) -> u32 {
    let action = if charge { MovementAction::Charge } else { MovementAction::Move };
    let allowed = if mine.going_on.is_some() { mine.speed } else { mine.allowance(action) };
    if made == MovementMade::FiveFootStep { 0 } else { allowed.saturating_sub(travelled) }
}

/// The step of a push that carries `mover` over a pit: where it would be were the pit ground, if walls,
/// corners and other creatures let it get there (our ruling, docs/rulings.md).
fn over_a_pit(
    ground: &StepWorld<'_>,
    mover: &crate::rules::movement::Mover,
    at: Footprint,
    direction: Direction,
) -> Option<(Footprint, crate::rules::movement::cost::Entry)> {
    let over = crate::rules::movement::Mover { medium: crate::rules::movement::Medium::Fly, ..*mover };
    ground.step(&over, at, direction, at).ok()
}

/// A charge that ends in a bull rush rushes (004:458).
fn rush_at_the_end_of_a_charge(mut ended: MessageReader<ChargeEnded>, mut rushes: MessageWriter<BullRushIntent>) {
    for charge in ended.read() {
        if let ChargeFinish::BullRush { stay } = charge.finish {
            rushes.write(BullRushIntent { attacker: charge.charger, target: charge.target, stay, charge: true });
        }
    }
}

/// Carries out bull rush intents one after the other: checked and paid for, the attacks of opportunity
/// of entering the target's space, the check, then the push square by square.
pub(super) fn resolve_bull_rushes(world: &mut World, mut intents: Local<MessageCursor<BullRushIntent>>) {
    let read: Vec<BullRushIntent> = intents.read(world.resource::<Messages<BullRushIntent>>()).cloned().collect();
    for intent in read {
        let planned = plan_bull_rush(world, &intent);
        let Ok(Some(plan)) = world.run_system_cached_with(pay_bull_rush, (intent.clone(), planned)) else {
            continue;
        };
        // Improved Bull Rush spares the attacker its target's attack (004:447).
        let except = if plan.target_strikes { Vec::new() } else { vec![intent.target] };
        let entering = Provoking {
            except,
            shared_with: Some(intent.target),
            ..Provoking::new(intent.attacker, Action::BullRush, "entering a foe's space in a bull rush (004:447)")
        };
        // A blow that strayed to the target and dropped it ends the rush there too: no check against a body
        // (004:447).
        let entered = provoke_as(world, entering);
        if entered.dropped || entered.shared_dropped {
            continue;
        }
        let Ok(Some((won, margin))) = world.run_system_cached_with(roll_bull_rush, (intent.clone(), plan.clone()))
        else {
            continue;
        };
        if won && plan.steps_for(margin) == 0 {
            // Won, with no space behind the foe to push it into: it stays, and the log says why.
            stays(world, &intent);
        } else if won {
            push(world, &intent, &plan, plan.steps_for(margin));
            crate::rules::opportunity::movement_over(world, intent.attacker);
        } else {
            thrown_back(world, &intent);
        }
    }
}

/// Pays a planned bull rush's standard action (a charge's is paid), or writes why it is refused.
fn pay_bull_rush(
    In((intent, planned)): In<(BullRushIntent, Result<BullRushPlan, Refusal>)>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut paying: super::Paying,
) -> Option<BullRushPlan> {
    let attacker = creatures.get(intent.attacker).ok()?;
    let mut budget = budgets.get_mut(intent.attacker).ok()?;
    if intent.charge {
        // The charge paid its full-round action (004:451).
        let plan = planned.map_err(|refusal| paying.refuse(&attacker, Action::BullRush, refusal)).ok()?;
        paying.strain_of_a_charge(&attacker);
        return Some(plan);
    }
    paying.pay(planned, &attacker, (Action::BullRush, |_| ActionKind::Standard), &mut budget)
}

/// The opposed Strength checks (004:448): whether the attacker won, and by how much.
fn roll_bull_rush(
    In((intent, plan)): In<(BullRushIntent, BullRushPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) -> Option<(bool, i32)> {
    let (attacker, target) = (creatures.get(intent.attacker).ok()?, creatures.get(intent.target).ok()?);
    Some(contest_by(
        &mut dice,
        &mut facts,
        (attacker.id, plan.attacker.check, &plan.attacker.terms),
        (target.id, plan.defender.check, &plan.defender.terms),
        "a bull rush: Strength against Strength (004:448)",
    ))
}

/// Pushes the target `steps` squares along the plan's way, the attacker following if it does; each
/// square left provokes from the others that threaten it, once each, not from the pair nor those riding
/// either, who move with it (« seuls les intervenants extérieurs », 004:449). A creature dropped on the
/// way stops there.
fn push(world: &mut World, intent: &BullRushIntent, plan: &BullRushPlan, steps: usize) {
    let with_riders = |who: Entity| {
        let riders = world.get::<crate::rules::core::creature::Riders>(who).map(|r| r.all().to_vec());
        std::iter::once(who).chain(riders.unwrap_or_default()).collect::<Vec<Entity>>()
    };
    let (mut struck_target, mut struck_attacker) = (with_riders(intent.attacker), with_riders(intent.target));
    for step in 0..steps {
        // The two go together: a blow by the rusher's allies strikes it instead on 25% (004:447).
        let leaving = Provoking {
            except: struck_target.clone(),
            shared_with: Some(intent.attacker),
            ..Provoking::new(intent.target, Action::BullRush, "pushed out of a threatened square (004:449)")
        };
        let provoked = provoke_as(world, leaving);
        struck_target.extend(provoked.struck_by);
        // The target dropped, or the rusher beside it by a blow that strayed: the push stops (004:447).
        if provoked.dropped || provoked.shared_dropped {
            return;
        }
        move_to(world, intent.target, plan.pushes[step], "pushed by a bull rush (004:449)");
        if plan.into_pit && step + 1 == plan.pushes.len() {
            let _ = world.run_system_cached_with(fall_into_the_pit, intent.target);
        }
        let Some(&then) = plan.follows.get(step) else { return };
        let following = Provoking {
            except: struck_attacker.clone(),
            shared_with: Some(intent.target),
            ..Provoking::new(
                intent.attacker,
                Action::BullRush,
                "following its push out of a threatened square (004:449)",
            )
        };
        let provoked = crate::rules::opportunity::provoke_by_moving(world, following, intent.charge);
        struck_attacker.extend(provoked.struck_by);
        // The rusher dropped, or the foe it pushes by a blow that strayed: it goes no further (004:447).
        if provoked.dropped || provoked.shared_dropped {
            return;
        }
        let footprint = |world: &World| {
            world.get::<Space>(intent.attacker).zip(world.get::<Position>(intent.attacker)).map(|(s, p)| s.at(p.0))
        };
        let before = footprint(world);
        move_to(world, intent.attacker, then, "following the foe it pushes (004:449)");
        // Its own movement: a readier's reach it steps into strikes (004:621).
        if let (Some(before), Some(at)) = (before, footprint(world))
            && crate::rules::opportunity::step_entered(world, intent.attacker, (at, (before, None)), intent.charge)
        {
            return;
        }
        if let (Some(&paid), Some(before)) = (plan.follow_costs.get(step), before) {
            count_the_follow(world, intent.attacker, paid, before);
        }
    }
}

/// Counts 1.5 m followed against the round's movement (004:449 « ne peut en aucun cas dépasser la distance
/// de déplacement qui lui est allouée pour le round »): its squares travelled, the move action left shorter
/// by as much, the diagonals' alternation carried on, and movement made (no 5-foot step after it, 004:259),
/// and the step on its trail from `before`.
fn count_the_follow(world: &mut World, attacker: Entity, (cost, odd): (u32, bool), before: Footprint) {
    let round = world.resource::<TurnOrder>().round;
    let at = world.get::<Space>(attacker).zip(world.get::<Position>(attacker)).map(|(s, p)| s.at(p.0));
    if let (Some(at), Some(mut trail)) = (at, world.get_mut::<Trail>(attacker)) {
        trail.extend(round, before, [(at, cost)]);
    }
    if let Some(mut travelled) = world.get_mut::<Travelled>(attacker) {
        // Each push followed is 1.5 m (004:449).
        travelled.add(round, cost, 1);
    }
    if let Some(mut budget) = world.get_mut::<ActionBudget>(attacker) {
        budget.followed += cost;
        budget.odd_diagonal = odd;
        budget.movement = MovementMade::Moved;
    }
}

/// A creature pushed over a pit falls to its bottom (our ruling, docs/rulings.md).
fn fall_into_the_pit(
    In(who): In<Entity>,
    ids: Query<&CreatureId>,
    field: Res<Battlefield>,
    mut dice: ResMut<Dice>,
    mut out: crate::rules::health::falls::FallOutput,
) {
    if let Ok(id) = ids.get(who) {
        out.into_the_pit(who, id, field.pit_depth_m(), &mut dice);
    }
}

/// A lost bull rush throws the attacker back 1.5 m to the square it came from, prone if that square is
/// taken (004:450): on the grid it never left its square, which is its own and free.
fn thrown_back(world: &mut World, intent: &BullRushIntent) {
    let Some(at) = world.get::<Position>(intent.attacker).map(|p| p.0) else { return };
    let Some(id) = world.get::<CreatureId>(intent.attacker).cloned() else { return };
    world.write_message(Fact::Pushed {
        creature: id,
        from: at,
        to: at,
        reason: "the bull rush fails: thrown back to where it came from (004:450)".into(),
    });
}

/// A bull rush won whose foe has no space behind it to be pushed into (a wall, the map's edge, a creature, a
/// wall's corner): it stays where it stands (004:449, docs/rulings.md "Bull rush").
fn stays(world: &mut World, intent: &BullRushIntent) {
    let Some(at) = world.get::<Position>(intent.target).map(|p| p.0) else { return };
    let Some(id) = world.get::<CreatureId>(intent.target).cloned() else { return };
    let reason = "won, but no space behind it to push it into: it stays (004:449, docs/rulings.md)";
    world.write_message(Fact::Pushed { creature: id, from: at, to: at, reason: reason.into() });
}

/// Moves `who` onto `to`, with the fact.
fn move_to(world: &mut World, who: Entity, to: Footprint, reason: &str) {
    let Some(id) = world.get::<CreatureId>(who).cloned() else { return };
    let Some(mut position) = world.get_mut::<Position>(who) else { return };
    let from = position.0;
    position.0 = to.origin;
    world.write_message(Fact::Pushed { creature: id, from, to: to.origin, reason: reason.into() });
}
