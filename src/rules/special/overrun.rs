//! Overrun (Renversement, 004:531-537). A standard action taken during a move, once a round, on a foe at
//! most one size larger (004:531): the mover tries to go through the foe's space. The defender avoids it,
//! and the mover goes on through, or blocks (004:533); against Improved Overrun it must block (004:536).
//! Blocked: the mover's Strength against the defender's better of Strength and Dexterity, +4 per size
//! category above Medium and -4 below, +2 charging, +4 to a defender with more than two legs or otherwise
//! stable (004:534). Won, the defender falls prone and the move goes on; lost, the defender at once tries to
//! knock the mover down, its Strength against the mover's better of Strength and Dexterity with the size
//! terms alone, and the mover falls back 1.5 m the way it came, prone if knocked down or if that square is
//! taken, its move over (004:534-535).
//!
//! Our rulings (docs/rulings.md): the overrun is made from a square next to the foe, with the turn's
//! standard action left and either its move action too (the move it is made during takes the mover through
//! the foe's space) or the move that brought it there, its only movement this round, going on: either way
//! to the first space beyond the foe, within its speed and what it has travelled this round. The mover came to
//! its square by that move's way, so falling back 1.5 m leaves it there. A defender avoids when its chance
//! to win the block is below one in two, and blocks otherwise; an avoided overrun spends no standard action
//! (004:533). A mount's overrun is the mounted overrun: the mount's Strength and size make the check
//! (004:537); its rider's Trample forbids the foe to avoid it and, the foe knocked down, the mount strikes it
//! with its hoof (else a claw, else its first natural weapon, 004:537), no action of its own.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::Side;
use crate::rules::attack::{Combatant, CombatantItem};
use crate::rules::core::checks::{Check, contest};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::Footprint;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionBudget, ActionKind, Provoking};

/// Asks to overrun a foe.
#[derive(Message, Clone, Debug)]
pub struct OverrunIntent {
    /// Who.
    pub attacker: Entity,
    /// Whom.
    pub target: Entity,
    /// At the end of a charge, its actions already spent: +2, and it may go on (004:533-534).
    pub charge: bool,
}

/// The round of a creature's last overrun: one a round (004:531).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overran(pub u32);

/// An overrun checked and ready.
#[derive(Clone, Debug)]
pub struct OverrunPlan {
    /// The mover's Strength check (004:534).
    pub attacker: Side,
    /// The defender's better of Strength and Dexterity, with stability (004:534).
    pub defender: Side,
    /// The defender knocking the mover down after winning: its Strength, size alone (004:534).
    pub knock: Side,
    /// The mover resisting that: its better of Strength and Dexterity, size alone.
    pub resist: Side,
    /// Where the mover ends when it goes through.
    pub beyond: Footprint,
    /// Squares of movement the passage takes, as a move pays them: the diagonals alternating, hampered
    /// ground doubling (000:61, 000:92-98).
    pub squares: u32,
    /// The diagonals' alternation after the passage, for the move going on (000:61).
    pub odd_diagonal: bool,
    /// The footprints the passage leaves, its start first: each provokes from the foes threatening it
    /// (004:65), the foe passed aside.
    pub left: Vec<Footprint>,
    /// The defender blocks (must against Improved Overrun, 004:536, or a mount whose rider has Trample,
    /// 004:537; else by its chance).
    pub blocks: bool,
    /// The hoof the mount strikes a foe it knocked down with, its rider having Trample (004:537).
    pub hoof: Option<String>,
    /// The move it is made during.
    pub during: During,
}

impl OverrunPlan {
    /// The chance the mover goes through: always if avoided, else the chance it wins the block.
    pub fn chance(&self) -> f32 {
        if self.blocks { self.attacker.chance_against(&self.defender) } else { 1.0 }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<OverrunIntent>();
    app.add_systems(
        Rules,
        (overrun_at_the_end_of_a_charge, resolve_overruns).chain().in_set(RulesSystems::Act).after(super::splash::burn),
    );
}

/// A charge that ends in an overrun overruns (004:533-534).
fn overrun_at_the_end_of_a_charge(
    mut ended: MessageReader<crate::rules::turns::moving::ChargeEnded>,
    mut overruns: MessageWriter<OverrunIntent>,
) {
    for charge in ended.read() {
        if charge.finish == crate::rules::turns::moving::ChargeFinish::Overrun {
            overruns.write(OverrunIntent { attacker: charge.charger, target: charge.target, charge: true });
        }
    }
}

/// A side checking the better of Strength and Dexterity with the size term, and stability if `resisting`.
fn better_side(c: &CombatantItem, resisting: bool) -> Side {
    let (str, dex) = (ability_modifier(c.abilities.str), ability_modifier(c.in_play().dex));
    let check = if dex > str { Check::Dexterity } else { Check::Strength };
    super::strength_side(c, check, resisting)
}

/// What a creature moved this round, as an overrun reads it: the squares and the move actions of movement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MovedSoFar {
    /// Squares paid.
    pub squares: u32,
    /// Move actions of movement taken (a 5-foot step takes none).
    pub moves: u32,
}

impl MovedSoFar {
    /// What `travelled` says of `round`.
    pub fn of(travelled: Option<&crate::rules::turns::moving::Travelled>, round: u32) -> Self {
        travelled.map_or_else(Self::default, |t| MovedSoFar { squares: t.in_round(round), moves: t.moves_in(round) })
    }
}

/// How an overrun is taken « au cours d'un déplacement » (004:531): in the move action it starts, or in the
/// one move action that brought the mover next to its foe, going on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum During {
    /// A charge, which paid for it all (004:533-534).
    Charge,
    /// A move action begun with the passage.
    NewMove,
    /// The move action already taken this round, going on.
    MoveGoingOn,
}

/// The move an overrun off a charge is made during (004:531), from the turn's actions and what the creature
/// moved this round: one it begins with the passage, its move and standard actions left; or the one move
/// action of movement it took this round going on, its standard action left. Never after a 5-foot step
/// (004:259). The rules and the action bar both ask this.
pub fn during_a_move(budget: &ActionBudget, moved: MovedSoFar) -> Result<During, Refusal> {
    budget.check_movement()?;
    if budget.check(ActionKind::FullRound).is_ok() {
        Ok(During::NewMove)
    } else if moved.moves == 1 && budget.check(ActionKind::Standard).is_ok() {
        Ok(During::MoveGoingOn)
    } else {
        Err(Refusal::new(
            "an overrun is made during a move: its standard action and a move action to take or going on are needed",
            "004:531",
        ))
    }
}

/// Whether `t` is a foe `a` may overrun wherever they stand, `overran` the round of its last overrun: in the
/// fight, seen, at most one size larger, a foe, one overrun a round (004:531), on its own feet (not a rider,
/// [`super::not_a_rider`]), on its level. What a charge ending in an overrun is checked for before it moves.
pub fn overrunnable(
    (a, t): (&CombatantItem, &CombatantItem),
    (round, overran): (u32, Option<u32>),
) -> Result<(), Refusal> {
    crate::rules::core::creature::within_the_fight(t.conditions)?;
    crate::rules::core::creature::in_sight_of(t.hidden, a.entity, t.id)?;
    if a.size.steps_to(*t.size) > 1 {
        return Err(Refusal::new("a foe more than one size larger cannot be overrun", "004:531"));
    }
    if a.faction == t.faction {
        return Err(Refusal::new("an ally lets it pass: no overrun is needed", "004:531"));
    }
    if overran == Some(round) {
        return Err(Refusal::new("one overrun a round", "004:531"));
    }
    super::not_a_rider(t, "overrun")?;
    if a.altitude.0 != t.altitude.0 {
        return Err(Refusal::new("the foe is not on its level", "004:531"));
    }
    Ok(())
}

/// [`overrunnable`] of `attacker` and `target` as things stand in `world`.
pub fn overrunnable_in(world: &mut World, (attacker, target): (Entity, Entity)) -> Result<(), Refusal> {
    let round = world.resource::<crate::rules::turns::TurnOrder>().round;
    let overran = world.get::<Overran>(attacker).map(|o| o.0);
    let mut combatants = crate::rules::core::kept::kept::<Combatant, With<Creature>>(world);
    let creatures = combatants.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    overrunnable((&a, &t), (round, overran))
}

/// Whether `a` may overrun `t` now, and how.
pub fn plan_overrun(
    ground: &super::Ground<'_, '_, '_>,
    (a, t): (&CombatantItem, &CombatantItem),
    budget: &ActionBudget,
    (round, overran, moved, speed): (u32, Option<u32>, MovedSoFar, u32),
    charge: bool,
) -> Result<OverrunPlan, Refusal> {
    ground.order.check_turn(a.entity)?;
    able_to_act(a.conditions)?;
    on_its_feet(a.conditions)?;
    super::afoot(a, "overrun")?;
    overrunnable((a, t), (round, overran))?;
    let during = if charge { During::Charge } else { during_a_move(budget, moved)? };
    let (mine, theirs) = (a.space.at(a.position.0), t.space.at(t.position.0));
    if !mine.adjacent_to(theirs) {
        return Err(Refusal::new("it must stand next to the foe to go through its space", "004:531"));
    }
    let direction = super::bull_rush::away(mine, theirs);
    let (dx, dy) = direction.delta();
    let shifted = |k: i32| mine.at(mine.origin.offset(dx * k, dy * k));
    if !shifted(1).overlaps(theirs) {
        return Err(Refusal::new("it goes through the foe's space in a straight line", "004:531"));
    }
    let mut k = 1;
    while k < 8 && shifted(k).overlaps(theirs) {
        k += 1;
    }
    let beyond = shifted(k);
    // Through the foe's space by no wall and no wall corner (000:61, 000:106-107).
    crate::rules::movement::walls_between(ground.field, mine, beyond)
        .map_err(|blocked| Refusal::new(format!("it cannot go through: {blocked}"), "004:531, 000:106-107"))?;
    crate::rules::attack::may_stand(ground.field, ground.creatures.iter(), a, &[t.entity])(beyond)
        .map_err(|r| Refusal::new(format!("no room beyond the foe: {}", r.reason), "004:531"))?;
    // « au cours d'un déplacement » (004:531): the passage is movement, paid step by step as a move pays
    // it, the turn's alternation of diagonals carried on.
    // At a charge's end, it passes no ally either (« même un allié », 004:453, 000:67-68).
    let mover = crate::rules::movement::Mover {
        charging: during == During::Charge,
        ..crate::rules::movement::mover_of(*a.size, a.speed, a.altitude.0, a.traits, a.skills)
    };
    // Through its foe only: no other foe's space on the way (000:70-71).
    let occupants = crate::rules::attack::occupants_around(ground.creatures.iter(), a, &[t.entity]);
    let map = crate::rules::movement::StepWorld { field: ground.field, occupants: &occupants };
    let (mut squares, mut odd) = (0, budget.odd_diagonal);
    for step in 0..k {
        let (_, entry) = map
            .step(&mover, shifted(step), direction, mine)
            .map_err(|blocked| Refusal::new(format!("it cannot go through: {blocked}"), "004:531, 000:106-107"))?;
        let (cost, now_odd) = crate::rules::movement::cost::step_cost(
            ground.field.diagonals(),
            direction.is_diagonal(),
            entry.hampering,
            odd,
        );
        (squares, odd) = (squares + cost, now_odd);
    }
    // A charge moves up to twice the speed (004:451), a move action the speed, counting what it moved
    // this round: its speed as its moves have it (in armour, under its load).
    let allowance = if during == During::Charge { 2 * speed } else { speed };
    if moved.squares + squares > allowance {
        return Err(Refusal::new("not enough movement left to go through its space", "004:531"));
    }
    let mut attacker = super::strength_side(a, Check::Strength, false);
    if charge {
        attacker.terms.push(Modifier::new(2, "charging (004:534)"));
    }
    let defender = better_side(t, true);
    let trampling = tramples(ground, a);
    // A defender that cannot act chooses nothing and blocks nothing: its space is passed as a helpless
    // foe's (000:71; our ruling).
    let blocks = t.conditions.can_act()
        && (a.feats.has(Feat::ImprovedOverrun) || trampling || defender.chance_against(&attacker) >= 0.5);
    let hoof = if trampling { hoof_of(a) } else { None };
    Ok(OverrunPlan {
        attacker,
        defender,
        knock: super::strength_side(t, Check::Strength, false),
        resist: better_side(a, false),
        beyond,
        squares,
        odd_diagonal: odd,
        left: (0..k).map(shifted).collect(),
        blocks,
        hoof,
        during,
    })
}

/// The natural weapon a trampling mount strikes with (004:537): its hoof, else a claw, else its first.
fn hoof_of(mount: &CombatantItem) -> Option<String> {
    let natural: Vec<&Weapon> = mount.armament.0.iter().filter(|w| w.natural && !is_ranged(w)).collect();
    ["hoof", "claw"]
        .iter()
        .find_map(|n| natural.iter().find(|w| w.name.contains(n)))
        .or(natural.first())
        .map(|w| w.name.clone())
}

/// Whether `mount` overruns under a rider with Trample who directs it (004:537). A mount's overrun is the
/// mounted overrun: its Strength and its size are the check's (the overrunner is the mount).
fn tramples(ground: &super::Ground<'_, '_, '_>, mount: &CombatantItem) -> bool {
    mount.riders.is_some_and(|riders| {
        riders.all().iter().any(|r| {
            ground.creatures.get(*r).is_ok_and(|c| {
                c.feats.has(Feat::Trample) && crate::rules::core::creature::directs(c.seat, c.conditions)
            })
        })
    })
}

/// `plan_overrun` of `attacker` on `target` as things stand in `world`: what the preview shows.
pub fn overrun_in(world: &mut World, attacker: Entity, target: Entity) -> Result<OverrunPlan, Refusal> {
    let round = world.resource::<crate::rules::turns::TurnOrder>().round;
    let overran = world.get::<Overran>(attacker).map(|o| o.0);
    let moved = MovedSoFar::of(world.get::<crate::rules::turns::moving::Travelled>(attacker), round);
    let speed = move_speed(world, attacker);
    super::plan_in(
        world,
        (attacker, target),
        Box::new(move |g, pair, budget| plan_overrun(g, pair, budget, (round, overran, moved, speed), false)),
    )
}

/// A creature's speed in squares as its moves have it: in armour, under its load, in the water (the move
/// an overrun is made during).
fn move_speed(world: &mut World, creature: Entity) -> u32 {
    crate::rules::turns::moving::with_move_query(world, creature, |query, _| query.speed).unwrap_or_default()
}

/// Where a charge that ends in an overrun of `target` would stop, if `attacker` is not next to it and a
/// clear lane brings it there (004:452-453): the game charges there first.
pub fn charge_to_overrun(
    world: &mut World,
    attacker: Entity,
    target: Entity,
) -> Option<crate::rules::core::geometry::Square> {
    let footprint =
        |world: &World, e: Entity| world.get::<Space>(e).zip(world.get::<Position>(e)).map(|(s, p)| s.at(p.0));
    let (mine, theirs) = (footprint(world, attacker)?, footprint(world, target)?);
    if mine.touches(theirs) {
        return None;
    }
    // A foe that could be overrun from nowhere is not charged: the overrun's own refusal says why.
    overrunnable_in(world, (attacker, target)).ok()?;
    let lanes = crate::rules::turns::moving::charge_lanes_of(world, (attacker, None), target, true)?.ok()?;
    lanes.first().map(|l| l.to)
}

/// The move goes on through the foe's space: each further square it leaves provokes from the foes
/// threatening it, each once (004:65, 004:68), the foe passed lying down or having let it by (`except`);
/// each square it steps into sets off the attacks readied for a foe stepping into reach (004:621), as a
/// walker's step does. Whether it came through, not dropped on the way.
fn passes_through(
    world: &mut World,
    intent: &OverrunIntent,
    (first, further): (Footprint, &[Footprint]),
    mut except: Vec<Entity>,
) -> bool {
    let steps_into = |world: &mut World, (at, before): (Footprint, Footprint)| {
        crate::rules::opportunity::step_entered(world, intent.attacker, (at, (before, None)), intent.charge)
    };
    let mut dropped = further.first().is_some_and(|next| steps_into(world, (*next, first)));
    for (i, at) in further.iter().enumerate() {
        if dropped {
            break;
        }
        let leaving = Provoking {
            except: except.clone(),
            leaving: Some(at.squares().collect()),
            at: Some(*at),
            ..Provoking::new(intent.attacker, Action::Overrun, "moving through its foe's space (004:531)")
        };
        let done = crate::rules::opportunity::provoke_by_moving(world, leaving, intent.charge);
        except.extend(done.struck_by);
        dropped = done.dropped || further.get(i + 1).is_some_and(|next| steps_into(world, (*next, *at)));
    }
    if dropped {
        crate::rules::opportunity::movement_over(world, intent.attacker);
    }
    !dropped
}

/// Beyond the foe, a readier's reach it steps into strikes (004:621): whether it dropped it there, where it
/// goes no farther.
fn steps_beyond(world: &mut World, intent: &OverrunIntent, (beyond, before): (Footprint, Footprint)) -> bool {
    let dropped =
        crate::rules::opportunity::step_entered(world, intent.attacker, (beyond, (before, None)), intent.charge);
    crate::rules::opportunity::movement_over(world, intent.attacker);
    dropped
}

/// Carries out overruns: checked and paid, then avoided or blocked, the checks, and the passage or the fall
/// back.
fn resolve_overruns(world: &mut World, mut intents: Local<MessageCursor<OverrunIntent>>) {
    let read: Vec<OverrunIntent> = intents.read(world.resource::<Messages<OverrunIntent>>()).cloned().collect();
    for intent in read {
        let speed = move_speed(world, intent.attacker);
        let Ok(Some(plan)) = world.run_system_cached_with(prepare_overrun, (intent.clone(), speed)) else { continue };
        let round = world.resource::<crate::rules::turns::TurnOrder>().round;
        world.entity_mut(intent.attacker).insert(Overran(round));
        let (Some(id), Some(foe)) =
            (world.get::<CreatureId>(intent.attacker).cloned(), world.get::<CreatureId>(intent.target).cloned())
        else {
            continue;
        };
        // Into the foe's space, it leaves the square next to it first: the foes threatening that square strike,
        // the foe passed among them (004:65; the d20 standard's first step, lost from the steps of 004:532),
        // before the foe chooses; one it drops goes no farther.
        let Some((first, further)) = plan.left.split_first() else { continue };
        let entering = Provoking {
            leaving: Some(first.squares().collect()),
            at: Some(*first),
            ..Provoking::new(intent.attacker, Action::Overrun, "moving through its foe's space (004:531)")
        };
        let entered = crate::rules::opportunity::provoke_by_moving(world, entering, intent.charge);
        if entered.dropped {
            continue;
        }
        world.write_message(Fact::OverrunMet { creature: id.clone(), target: foe, blocks: plan.blocks });
        let through = if plan.blocks {
            world.run_system_cached_with(roll_overrun, (intent.clone(), plan.clone())).unwrap_or(false)
        } else {
            true
        };
        if !through {
            // « ce qui finit son mouvement » (004:535): no more movement this turn, a 5-foot step neither
            // (004:259).
            if let Some(mut budget) = world.get_mut::<ActionBudget>(intent.attacker) {
                budget.movement = crate::rules::turns::MovementMade::Moved;
                budget.going_on = None;
            }
            continue;
        }
        // The trampling mount's hoof on the foe it knocked down, with no action of its own (004:537).
        if plan.blocks
            && let Some(hoof) = &plan.hoof
        {
            world.write_message(crate::rules::attack::AttackIntent {
                trample: true,
                ..crate::rules::attack::AttackIntent::new(intent.attacker, intent.target, Some(hoof.clone()))
            });
            // At once, within the overrun (« peut porter un coup de sabot », 004:537): the rules run again
            // before the next command, which may be the rest of its move (004:535).
            world.resource_mut::<crate::rules::core::systems::Unsettled>().0 = true;
        }
        let mut except = entered.struck_by;
        except.push(intent.target);
        if !passes_through(world, &intent, (*first, further), except) {
            continue;
        }
        let Some(mut position) = world.get_mut::<Position>(intent.attacker) else { continue };
        let from = position.0;
        position.0 = plan.beyond.origin;
        if steps_beyond(world, &intent, (plan.beyond, further.last().copied().unwrap_or(*first))) {
            continue;
        }
        // Its speed as its moves have it, in armour, under its load (004:479 reads the move's pace by it).
        let land = move_speed(world, intent.attacker);
        if let Some(mut trail) = world.get_mut::<crate::rules::turns::moving::Trail>(intent.attacker) {
            let before = Footprint { origin: from, ..plan.beyond };
            trail.extend(round, before, [(plan.beyond, plan.squares)]);
        }
        if let Some(mut travelled) = world.get_mut::<crate::rules::turns::moving::Travelled>(intent.attacker) {
            // A move begun with the passage is a move action of movement (004:479 reads them).
            if plan.during == During::NewMove {
                let speed = land;
                travelled.record(
                    round,
                    crate::rules::movement::MovementAction::Move,
                    (plan.squares, plan.squares),
                    speed,
                );
            } else {
                travelled.add(round, plan.squares, plan.squares);
            }
        }
        // Through, the move goes on (004:535): the rest of its move action's movement, no action more; a
        // charge ends there (our ruling).
        let speed = crate::rules::turns::moving::with_move_query(world, intent.attacker, |q, _| q.speed);
        let travelled = world
            .get::<crate::rules::turns::moving::Travelled>(intent.attacker)
            .map_or(plan.squares, |t| t.in_round(round));
        let left = speed.unwrap_or_default().saturating_sub(travelled);
        if let Some(mut budget) = world.get_mut::<ActionBudget>(intent.attacker) {
            budget.movement = crate::rules::turns::MovementMade::Moved;
            budget.going_on = (plan.during != During::Charge && left > 0).then_some(left);
            budget.odd_diagonal = plan.odd_diagonal;
        }
        world.write_message(Fact::Pushed {
            creature: id,
            from,
            to: plan.beyond.origin,
            reason: "through its foe's space (004:531, 004:535)".into(),
        });
    }
}

/// Checks an overrun and pays for it: the move action always, the standard action if blocked (004:533).
fn prepare_overrun(
    In((intent, speed)): In<(OverrunIntent, u32)>,
    field: Res<crate::rules::core::battlefield::Battlefield>,
    order: Res<crate::rules::turns::TurnOrder>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    extra: Query<(Option<&Overran>, Option<&crate::rules::turns::moving::Travelled>)>,
    mut paying: super::Paying,
) -> Option<OverrunPlan> {
    let (a, t) = (creatures.get(intent.attacker).ok()?, creatures.get(intent.target).ok()?);
    let mut budget = budgets.get_mut(intent.attacker).ok()?;
    let (overran, travelled) = extra.get(intent.attacker).ok()?;
    let ground = super::Ground::new(&field, &order, &creatures);
    let state = (order.round, overran.map(|o| o.0), MovedSoFar::of(travelled, order.round), speed);
    let planned = plan_overrun(&ground, (&a, &t), &budget, state, intent.charge);
    // A charge paid for it all (004:451); a move going on, its move action already.
    let kind = |plan: &OverrunPlan| if plan.during == During::NewMove { ActionKind::Move } else { ActionKind::Free };
    let plan = paying.pay(planned, &a, (Action::Overrun, kind), &mut budget)?;
    if intent.charge {
        paying.strain_of_a_charge(&a);
    }
    if plan.blocks && !intent.charge {
        paying.pay(Ok(()), &a, (Action::Overrun, |_| ActionKind::Standard), &mut budget);
    }
    Some(plan)
}

/// The block: the mover's Strength against the defender's; lost, the defender's knock and the fall back
/// (004:534-535). Whether the mover goes through.
fn roll_overrun(
    In((intent, plan)): In<(OverrunIntent, OverrunPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut falls: crate::rules::attack::manoeuvre::Falls,
) -> bool {
    let (Ok(a), Ok(t)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else { return false };
    let won = contest(
        &mut dice,
        &mut facts,
        (a.id, plan.attacker.check, &plan.attacker.terms),
        (t.id, plan.defender.check, &plan.defender.terms),
        "an overrun blocked: Strength against the better of Strength and Dexterity (004:534)",
    );
    if won {
        falls.lay_down(&t);
        return true;
    }
    let knocked = contest(
        &mut dice,
        &mut facts,
        (t.id, plan.knock.check, &plan.knock.terms),
        (a.id, plan.resist.check, &plan.resist.terms),
        "knocking the overrunner down (004:534)",
    );
    let at = a.position.0;
    facts.write(Fact::Pushed {
        creature: a.id.clone(),
        from: at,
        to: at,
        reason: "the overrun fails: back 1.5 m the way it came, its move over (004:535)".into(),
    });
    if knocked {
        falls.lay_down(&a);
    }
    false
}
