//! Riders, passengers and their mounts (004:470-482, 004:653-656, 004:806-824, 004:851-852): who rides what,
//! getting on and off in the fight, the rider sharing its mount's space wherever the mount goes, what a
//! high seat on a Huge mount does to reach, the total cover between riders and what is right below their
//! mount, and the share of a collision or a fall the riders take. The shared turn of a mount and its riders
//! is in [`crate::rules::turns`]; the flight a rider directs, in [`crate::rules::aerial::flying`].

use bevy::prelude::*;

use crate::rules::attack::Damage;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{Save, roll_save};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::{Fact, refuse};
use crate::rules::core::geometry::{Footprint, Square};
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionKind, TurnOrder};

/// A mount that has carried someone in this fight: with no rider left able to direct it, it avoids the fight
/// (004:482).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ridden;

/// The mount a creature has ridden in this fight, kept once it is off it.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rode(pub Entity);

/// Marks a mount ridden when someone gets on it, or starts on it, and the rider as having ridden it.
fn mark_ridden(on: On<Add, Riding>, riding: Query<&Riding>, mut commands: Commands) {
    if let Ok(mount) = riding.get(on.event().entity) {
        commands.entity(mount.0).insert(Ridden);
        commands.entity(on.event().entity).insert(Rode(mount.0));
    }
}

/// Climbs onto an adjacent ally's back: a move action (004:226, 004:654).
#[derive(Message, Clone, Copy, Debug)]
pub struct MountIntent {
    /// Who gets on.
    pub creature: Entity,
    /// Onto whom.
    pub mount: Entity,
    /// Quickly: a free action on a Ride check, DC 20; failed, the move action (004:227).
    pub fast: bool,
}

/// Gets off onto a free square next to the mount: a move action (004:226).
#[derive(Message, Clone, Copy, Debug)]
pub struct DismountIntent {
    /// Who gets off.
    pub creature: Entity,
    /// Where it stands then (the north-west square of its footprint).
    pub to: Square,
    /// Quickly: a free action on a Ride check, DC 20; failed, the move action (004:227).
    pub fast: bool,
}

/// The Ride DC to get on or off quickly, as a free action (004:227).
pub const FAST_MOUNT_RIDE_DC: i32 = 20;

/// A quick mount or dismount (004:227): the Ride check, DC 20, its Ride bonus or, untrained, its Dex
/// modifier (the sheet's Ride carries its armour's penalty). Whether it is made: a free action; else the move
/// action, which the creature must have left to try (« sans avoir au moins une action de mouvement »).
fn fast_ride(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    id: &CreatureId,
    sheet: (&Skills, &Abilities, &Conditions),
    getting_on: bool,
) -> bool {
    let bonus = dex_skill(sheet.0.ride, sheet.1, sheet.2);
    let reason = if getting_on { "getting on quickly (004:227)" } else { "getting off quickly (004:227)" };
    crate::rules::core::checks::roll_check(
        dice,
        facts,
        id,
        crate::rules::core::names::Check::Ride,
        reason,
        bonus,
        FAST_MOUNT_RIDE_DC,
    )
}

/// The Reflex save against a share of a collision (004:852).
pub const COLLISION_SHARE_REFLEX_DC: i32 = 15;

/// Getting on and off mounts, among the actions: before the ground movement.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RidingSystems;

/// Riders falling with their mounts or off them, as turns end.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FallenRiderSystems;

/// Riders controlling mounts not trained for war, as their turns begin.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MountControlSystems;

/// Riders and mounts.
pub fn plugin(app: &mut App) {
    app.add_message::<MountIntent>().add_message::<DismountIntent>().add_message::<TakeReinsIntent>();
    app.add_observer(mark_ridden);
    app.add_systems(
        Rules,
        (get_on, take_reins, get_off, carry_riders)
            .chain()
            .in_set(RulesSystems::Act)
            .in_set(RidingSystems)
            .before(crate::rules::turns::moving::MovementSystems),
    );
    app.add_systems(
        Rules,
        carry_riders
            .in_set(RulesSystems::Consequences)
            .after(crate::rules::magic::discharge_on_a_blow)
            .before(crate::rules::health::HealthSystems),
    );
    app.add_systems(
        Rules,
        (
            riders_fall_with_their_mounts,
            unconscious_riders_slide_off,
            riders_thrown_by_falling_mounts,
            pull_riders_down,
            carry_riders,
        )
            .chain()
            .in_set(RulesSystems::Turns)
            .in_set(FallenRiderSystems),
    );
    app.configure_sets(Rules, FallenRiderSystems.before(crate::rules::turns::moving::RestSystems));
    app.add_systems(
        Rules,
        control_frightened_mounts
            .in_set(RulesSystems::Turns)
            .in_set(MountControlSystems)
            .after(crate::rules::turns::TurnSystems)
            .after(crate::rules::special::turning::cornered_cower),
    );
    // A mount placed on the nearest legal space after a fall takes its riders with it.
    app.add_systems(
        Rules,
        carry_riders
            .in_set(RulesSystems::Turns)
            .after(crate::rules::turns::moving::RestSystems)
            .before(crate::rules::special::turning::turner_comes_near),
    );
}

/// The Ride check's DC to control a mount not trained for war, each round (004:473).
pub const CONTROL_RIDE_DC: i32 = 20;

/// A rider on a mount not trained for war (« poneys, chevaux légers et lourds sont effrayés par les cris
/// et le bruit des armes ») controls it as its turn begins (« au début de chaque round »), with its move
/// action: Ride DC 20 (004:473), its Ride bonus or, untrained, its Dex modifier. Calming a frightened mount
/// provokes attacks of opportunity (004:119), struck before the check; a rider they drop controls nothing.
/// Made, its standard action remains; failed, the move action becomes a full-round action and it does
/// nothing else this turn, nor does its mount, which it did not master (our ruling, docs/rulings.md).
/// Passengers do not steer.
fn control_frightened_mounts(
    mut facts: MessageReader<Fact>,
    seated: Seated<'_, '_>,
    mounts: Query<&Traits>,
    states: Query<&Conditions>,
    mut commands: Commands,
) {
    let started: Vec<CreatureId> = facts
        .read()
        .filter_map(|f| match f {
            Fact::TurnStarted { creature, .. } => Some(creature.clone()),
            _ => None,
        })
        .collect();
    let mut steering: Vec<_> = seated
        .iter()
        // A rider who cannot act controls nothing: its mount acts on its own (docs/rulings.md).
        .filter(|(rider, id, riding, seat, _)| {
            !seat.passenger
                && started.contains(id)
                && mounts.get(riding.0).is_ok_and(|t| t.skittish)
                && states.get(*rider).is_ok_and(Conditions::can_act)
        })
        .map(|(rider, id, riding, ..)| (id.clone(), rider, riding.0))
        .collect();
    steering.sort();
    for (_, rider, mount) in steering {
        commands.queue(move |world: &mut World| control_mount(world, rider, mount));
    }
}

/// One rider's control of its frightened mount: the attacks of opportunity calming it provokes (004:119),
/// then the Ride check (004:473) and what it leaves of the rider's and the mount's turn.
fn control_mount(world: &mut World, rider: Entity, mount: Entity) {
    let why = "calming a frightened mount (004:119)";
    let provoked =
        crate::rules::attack::provoke_as(world, crate::rules::turns::Provoking::new(rider, Action::CalmMount, why));
    // The attacks of opportunity « sont résolues immédiatement » (004:70): struck as the turn begins, after
    // this run's consequences were drawn, their wounds are settled before the rider does anything else (a
    // rider they drop « ne peut plus rien faire », 004:278).
    if !provoked.struck_by.is_empty() {
        world.resource_mut::<crate::rules::core::systems::Unsettled>().0 = true;
    }
    if provoked.dropped {
        return;
    }
    let Some(id) = world.get::<CreatureId>(rider).cloned() else { return };
    let (Some(skills), Some(abilities)) = (world.get::<Skills>(rider), world.get::<Abilities>(rider)) else { return };
    let conditions = world.get::<Conditions>(rider).cloned().unwrap_or_default();
    let bonus = dex_skill(skills.ride, abilities, &conditions);
    let reason = "controlling a mount not trained for war (004:473)";
    let made = world.run_system_cached_with(ride_check, (id, reason, bonus)).unwrap_or(false);
    if made {
        if let Some(mut budget) = world.get_mut::<crate::rules::turns::ActionBudget>(rider) {
            let _ = budget.spend(ActionKind::Move);
        }
        return;
    }
    for who in [rider, mount] {
        if let Some(mut budget) = world.get_mut::<crate::rules::turns::ActionBudget>(who) {
            budget.lose_both_actions();
        }
    }
}

/// A Ride check against the control DC (004:473).
fn ride_check(
    In((id, reason, bonus)): In<(CreatureId, &'static str, i32)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) -> bool {
    crate::rules::core::checks::roll_check(
        &mut dice,
        &mut facts,
        &id,
        crate::rules::core::names::Check::Ride,
        reason,
        bonus,
        CONTROL_RIDE_DC,
    )
}

/// How many creatures a mount of `size` carries, its rider among them: one on a Large mount, two on a Huge
/// one, four on a Gargantuan, nine on a Colossal (our ruling, docs/rulings.md: a seat for each Medium
/// creature's 3 m of its back).
pub fn seats(size: Size) -> usize {
    match size {
        Size::Colossal => 9,
        Size::Gargantuan => 4,
        Size::Huge => 2,
        _ => 1,
    }
}

/// Whether `mount` can carry `rider`: a mount is at least one size larger than whoever rides it (our
/// ruling, docs/rulings.md, after 004:475).
pub fn may_carry(mount: Size, rider: Size) -> Result<(), Refusal> {
    if mount > rider {
        Ok(())
    } else {
        Err(Refusal::new(format!("a {} creature cannot carry a {} one", mount.words(), rider.words()), "004:475"))
    }
}

/// What a mount's collision deals each of its riders and passengers: half what the mount took (004:852).
pub fn collision_share(mount_took: i32) -> i32 {
    (mount_took / 2).max(1)
}

/// The bonus of a ridden flier's fly check: its own (Dex and the table's modifiers), or its rider's Ride
/// with the same modifiers when that is better (004:734, 004:811). Says which it is.
pub fn fly_check_bonus(dex_modifier: i32, table_modifier: i32, rider_ride: Option<i32>) -> (i32, &'static str) {
    match rider_ride {
        Some(ride) if ride > dex_modifier => (ride + table_modifier, "the rider's Ride"),
        _ => (dex_modifier + table_modifier, "Dex"),
    }
}

/// The mount `creature` directs as its rider, not a passenger (004:807), if it rides.
pub fn directed_mount(world: &World, creature: Entity) -> Option<Entity> {
    let riding = world.get::<Riding>(creature)?;
    let seat = world.get::<Seat>(creature)?;
    (!seat.passenger).then_some(riding.0)
}

/// The ally next to `creature` (in its square at chase scale) that could carry it, the first by id: larger
/// than it, not itself riding (004:226, 004:475). Reads the creatures of the roster.
pub fn mount_beside(world: &World, creature: Entity, creatures: impl Iterator<Item = Entity>) -> Option<Entity> {
    let faction = world.get::<Faction>(creature)?;
    let size = *world.get::<Size>(creature)?;
    let own = world.get::<Space>(creature)?.at(world.get::<Position>(creature)?.0);
    let chase =
        world.get_resource::<Battlefield>().is_some_and(|f| f.scale() == crate::rules::core::altitude::Scale::Chase);
    let mut mounts: Vec<(&CreatureId, Entity)> = creatures
        .filter(|e| *e != creature && world.get::<Riding>(*e).is_none())
        .filter(|e| world.get::<Faction>(*e) == Some(faction) && world.get::<Size>(*e).is_some_and(|s| *s > size))
        .filter(|e| {
            world
                .get::<Space>(*e)
                .zip(world.get::<Position>(*e))
                .is_some_and(|(s, p)| if chase { s.at(p.0).overlaps(own) } else { s.at(p.0).touches(own) })
        })
        .filter_map(|e| world.get::<CreatureId>(e).map(|id| (id, e)))
        .collect();
    mounts.sort();
    mounts.first().map(|(_, e)| *e)
}

/// What riding needs of a creature.
type Getters<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static Faction,
        &'static Size,
        &'static Position,
        &'static Space,
        &'static Altitude,
        &'static Conditions,
        &'static mut crate::rules::turns::ActionBudget,
        Option<&'static Riding>,
        Option<&'static Riders>,
        &'static Speed,
        Option<&'static Seat>,
    ),
    With<Creature>,
>;

/// Gets creatures on their mounts: a move action next to an ally at the same height, with a seat free. The
/// mount then acts on its rider's next turn, and a passenger on it too (004:654-655).
#[expect(clippy::too_many_arguments, reason = "a system: one parameter per resource, query or message it touches")]
fn get_on(
    mut commands: Commands,
    mut intents: MessageReader<MountIntent>,
    mut order: ResMut<TurnOrder>,
    field: Res<Battlefield>,
    mut creatures: Getters<'_, '_>,
    sheets: Query<(&Skills, &Abilities, &Conditions)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let Ok([mut me, mount]) = creatures.get_many_mut([intent.creature, intent.mount]) else {
            if let Ok(me) = creatures.get(intent.creature) {
                refuse(&mut facts, me.1, Action::Mount, Refusal::new("no such mount, or itself", "004:226"));
            }
            continue;
        };
        let scale = field.scale();
        let (own, theirs) = (me.5.at(me.4.0), mount.5.at(mount.4.0));
        let taken = mount.10.map_or(0, |r| r.all().len());
        let checked = order
            .check_turn(intent.creature)
            .and_then(|()| crate::rules::core::creature::able_to_act(me.7))
            .and_then(|()| crate::rules::core::creature::on_its_feet(me.7))
            .and_then(|()| match (me.9, mount.9) {
                (Some(_), _) => Err(Refusal::new(format!("{} already rides", me.1), "004:226")),
                (_, Some(_)) => Err(Refusal::new(format!("{} rides another creature", mount.1), "004:475")),
                _ => Ok(()),
            })
            .and_then(|()| {
                if me.2 != mount.2 {
                    return Err(Refusal::new(format!("{} is no ally: it will not be ridden", mount.1), "004:807"));
                }
                if !mount.7.can_act() {
                    return Err(Refusal::new(format!("{} cannot carry anyone now", mount.1), "004:482"));
                }
                may_carry(*mount.3, *me.3)?;
                if taken >= seats(*mount.3) {
                    return Err(Refusal::new(
                        format!("{} has no seat left ({} for a {} mount)", mount.1, seats(*mount.3), mount.3.words()),
                        "004:655",
                    ));
                }
                let next_to = match scale {
                    crate::rules::core::altitude::Scale::Chase => own.overlaps(theirs),
                    crate::rules::core::altitude::Scale::Normal => own.touches(theirs),
                };
                if !next_to || me.6.0 != mount.6.0 {
                    return Err(Refusal::new(
                        format!("{} must be next to {} and at its height to get on", me.1, mount.1),
                        "004:654",
                    ));
                }
                Ok(())
            })
            .and_then(|()| me.8.check(ActionKind::Move))
            // Onto its mount's back is movement: not in a round with a 5-foot step (004:259).
            .and_then(|()| me.8.check_movement());
        if let Err(refusal) = checked {
            refuse(&mut facts, me.1, Action::Mount, refusal);
            continue;
        }
        let quick = intent.fast
            && sheets.get(intent.creature).is_ok_and(|sheet| fast_ride(&mut dice, &mut facts, me.1, sheet, true));
        if !quick {
            let _ = me.8.spend(ActionKind::Move);
        }
        me.8.movement = crate::rules::turns::MovementMade::Moved;
        me.8.got_on_or_off |= quick;
        // The first on its back directs it; whoever gets on after is a passenger (004:655).
        let passenger = taken > 0;
        let seat = Seat { passenger, high: crate::rules::core::reach::sits_high(*mount.3, *me.3) };
        commands.entity(intent.creature).insert((Riding(intent.mount), seat));
        facts.write(Fact::Mounted { creature: me.1.clone(), mount: mount.1.clone(), passenger });
        // The mount, or the passenger, waits for the rider's next turn (004:654-655): it gives up its place.
        let waits = if passenger { intent.creature } else { intent.mount };
        order.leave(waits);
    }
}

/// Gets creatures off their mounts onto a free square next to it, at the mount's height: a move action
/// (004:226). A creature that gets off acts on its own from the next round: it takes its place in the
/// order just before the turn now being played.
#[expect(clippy::too_many_arguments, reason = "a system: one parameter per resource, query or message it touches")]
fn get_off(
    mut commands: Commands,
    mut intents: MessageReader<DismountIntent>,
    mut order: ResMut<TurnOrder>,
    field: Res<Battlefield>,
    mut creatures: Getters<'_, '_>,
    sheets: Query<(&Skills, &Abilities, &Conditions)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let Ok(me) = creatures.get(intent.creature) else { continue };
        let Some(Riding(mount)) = me.9.copied() else {
            refuse(&mut facts, me.1, Action::Dismount, Refusal::new(format!("{} rides nothing", me.1), "004:226"));
            continue;
        };
        let Ok(ridden) = creatures.get(mount) else { continue };
        let scale = field.scale();
        let mount_at = ridden.5.at(ridden.4.0);
        let space = Space::at_scale(scale, *me.3);
        let landing = space.at(intent.to);
        let others: Vec<Footprint> = creatures
            .iter()
            .filter(|c| c.0 != intent.creature && c.9.is_none() && c.6.0 == ridden.6.0)
            .map(|c| c.5.at(c.4.0))
            .collect();
        let checked = order
            .check_turn(intent.creature)
            .and_then(|()| crate::rules::core::creature::able_to_act(me.7))
            .and_then(|()| {
                let next_to = match scale {
                    crate::rules::core::altitude::Scale::Chase => landing.touches(mount_at),
                    crate::rules::core::altitude::Scale::Normal => {
                        landing.adjacent_to(mount_at) && !landing.squares().any(|s| mount_at.contains(s))
                    }
                };
                if !next_to {
                    return Err(Refusal::new(format!("{} is not next to the mount", intent.to), "004:226"));
                }
                if landing.squares().any(|s| !field.contains(s) || field.terrain(s).blocks()) {
                    return Err(Refusal::new(format!("{} is a wall or off the map", intent.to), "000:74"));
                }
                // A pit, an obstacle or a low wall is no place to stand: crossed, never stopped on (000:99-105);
                // a rider getting off in the air flies over it.
                if !flying(ridden.11, ridden.6.0) && landing.squares().any(|s| !ground_to_stand_on(&field, s)) {
                    return Err(Refusal::new(
                        format!("{} is no place to stand: a pit, or an obstacle crossed and never stood on", intent.to),
                        "000:99-105",
                    ));
                }
                let crowded = scale == crate::rules::core::altitude::Scale::Normal
                    && others.iter().any(|o| o.squares().any(|s| landing.contains(s)));
                if crowded {
                    return Err(Refusal::new(format!("{} is taken", intent.to), "000:74-75"));
                }
                if flying(ridden.11, ridden.6.0) && me.11.fly.is_none() {
                    return Err(Refusal::new(
                        format!("{} cannot fly: getting off in the air, it would fall", me.1),
                        "004:807",
                    ));
                }
                Ok(())
            });
        if let Err(refusal) = checked {
            refuse(&mut facts, me.1, Action::Dismount, refusal);
            continue;
        }
        let (id, mount_id) = (me.1.clone(), ridden.1.clone());
        let passenger = me.12.is_some_and(|s| s.passenger);
        let Ok(mut me) = creatures.get_mut(intent.creature) else { continue };
        // Off its mount's back onto a square beside it is movement: not in a round with a 5-foot step (004:259).
        if let Err(refusal) = me.8.check(ActionKind::Move).and_then(|()| me.8.check_movement()) {
            refuse(&mut facts, &id, Action::Dismount, refusal);
            continue;
        }
        let quick = intent.fast
            && sheets.get(intent.creature).is_ok_and(|sheet| fast_ride(&mut dice, &mut facts, &id, sheet, false));
        if !quick {
            let _ = me.8.spend(ActionKind::Move);
        }
        me.8.movement = crate::rules::turns::MovementMade::Moved;
        me.8.got_on_or_off |= quick;
        commands.entity(intent.creature).remove::<(Riding, Seat)>().insert((Position(intent.to), space));
        facts.write(Fact::Dismounted { creature: id.clone(), mount: mount_id.clone(), to: intent.to });
        // Whoever now leads a turn of its own takes its place in the order (004:653-655).
        if passenger {
            order.rejoin(intent.creature, id);
        } else {
            order.rejoin(mount, mount_id);
        }
    }
}

/// A passenger takes the reins of its mount (004:822).
#[derive(Message, Clone, Copy, Debug)]
pub struct TakeReinsIntent {
    /// The passenger.
    pub creature: Entity,
}

/// How a passenger comes to the reins (004:822).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatChange {
    /// The rider's seat is free: a short, unobstructed shift along the saddle, a 5-foot step.
    IntoFreeSeat,
    /// The rider sits there: the two change places, a move action of the one taking the reins (our ruling:
    /// the rider, who may be senseless, is moved, not moving).
    WithTheRider,
}

/// Whether a creature can take the reins of the mount it is on, and how (004:822): only a passenger can,
/// not on the turn it got on (our ruling: its place in the order is still its own until that turn ends).
pub fn seat_change(seat: Option<&Seat>, rider_on_it: bool, got_on_now: bool) -> Result<SeatChange, Refusal> {
    match seat {
        None => Err(Refusal::new("it rides nothing", "004:822")),
        Some(s) if !s.passenger => Err(Refusal::new("it holds the reins already", "004:822")),
        Some(_) if got_on_now => Err(Refusal::new(
            "it got on this turn: it takes the reins from its next turn (our ruling)",
            "004:654-655, 004:822",
        )),
        Some(_) if rider_on_it => Ok(SeatChange::WithTheRider),
        Some(_) => Ok(SeatChange::IntoFreeSeat),
    }
}

/// Whether `creature`, whose turn it is, can take the reins now, and how: for the action bar.
pub fn reins_allowed(world: &World, creature: Entity) -> Result<SeatChange, Refusal> {
    let seat = world.get::<Seat>(creature);
    let mount = world.get::<Riding>(creature).map(|r| r.0);
    let rider = mount.and_then(|m| rider_of(world, m));
    let order = world.resource::<TurnOrder>();
    let change = seat_change(seat, rider.is_some(), order.leaving.contains(&creature))?;
    let budget = world.get::<crate::rules::turns::ActionBudget>(creature).copied().unwrap_or_default();
    match change {
        SeatChange::IntoFreeSeat => budget.check_five_foot_step()?,
        SeatChange::WithTheRider => budget.check(ActionKind::Move)?,
    }
    Ok(change)
}

/// The rider of `mount`, not a passenger, if it has one.
fn rider_of(world: &World, mount: Entity) -> Option<Entity> {
    let riders = world.get::<Riders>(mount)?;
    riders.all().iter().copied().find(|r| world.get::<Seat>(*r).is_some_and(|s| !s.passenger))
}

/// Passengers take the reins (004:822): into the free rider's seat with a 5-foot step, or changing places
/// with the rider for a move action. The party's place in the order passes to the new rider.
fn take_reins(
    mut commands: Commands,
    mut intents: MessageReader<TakeReinsIntent>,
    mut order: ResMut<TurnOrder>,
    mut creatures: Getters<'_, '_>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let Ok(me) = creatures.get(intent.creature) else { continue };
        let id = me.1.clone();
        let mount = me.9.map(|r| r.0);
        let Some((mount, mount_id)) = mount.and_then(|m| creatures.get(m).ok()).map(|m| (m.0, m.1.clone())) else {
            refuse(&mut facts, &id, Action::TakeReins, Refusal::new("it rides nothing", "004:822"));
            continue;
        };
        let on_it: Vec<Entity> =
            creatures.get(mount).ok().and_then(|m| m.10).map(|r| r.all().to_vec()).unwrap_or_default();
        let rider = on_it.iter().copied().find(|r| creatures.get(*r).is_ok_and(|c| c.12.is_some_and(|s| !s.passenger)));
        let checked = order
            .check_turn(intent.creature)
            .and_then(|()| crate::rules::core::creature::able_to_act(me.7))
            .and_then(|()| seat_change(me.12, rider.is_some(), order.leaving.contains(&intent.creature)));
        let change = match checked {
            Ok(change) => change,
            Err(refusal) => {
                refuse(&mut facts, &id, Action::TakeReins, refusal);
                continue;
            }
        };
        let Ok(mut me) = creatures.get_mut(intent.creature) else { continue };
        let paid = match change {
            SeatChange::IntoFreeSeat => me.8.check_five_foot_step().map(|()| {
                me.8.movement = crate::rules::turns::MovementMade::FiveFootStep;
                "5-foot step"
            }),
            SeatChange::WithTheRider => me.8.spend(ActionKind::Move).map(|()| "move"),
        };
        let action = match paid {
            Ok(action) => action,
            Err(refusal) => {
                refuse(&mut facts, &id, Action::TakeReins, refusal);
                continue;
            }
        };
        let my_seat = me.12.copied().unwrap_or_default();
        commands.entity(intent.creature).insert(Seat { passenger: false, ..my_seat });
        let from = rider.and_then(|r| creatures.get(r).ok()).map(|r| {
            commands.entity(r.0).insert(Seat { passenger: true, ..r.12.copied().unwrap_or_default() });
            r.1.clone()
        });
        // The party's place was the rider's, or the mount's when it had none (004:653-655).
        order.hand_over(rider.unwrap_or(mount), intent.creature, id.clone());
        facts.write(Fact::ReinsTaken { creature: id, mount: mount_id, from, action: action.into() });
    }
}

/// Where a mount is, as its riders follow it.
type MountPlaces<'w, 's> = Query<
    'w,
    's,
    (&'static Position, &'static Space, &'static Altitude, &'static Heading),
    (With<Riders>, Without<Riding>),
>;

/// Sets every rider where its mount is: the same squares, height and heading (004:475, 004:813).
pub fn carry_riders(
    mounts: MountPlaces<'_, '_>,
    mut riders: Query<(&Riding, &mut Position, &mut Space, &mut Altitude, &mut Heading), Without<Riders>>,
) {
    for (riding, mut position, mut space, mut altitude, mut heading) in &mut riders {
        let Ok((p, s, a, h)) = mounts.get(riding.0) else { continue };
        position.set_if_neq(*p);
        space.set_if_neq(*s);
        altitude.set_if_neq(*a);
        heading.set_if_neq(*h);
    }
}

/// The riders of a mount that fell fall with it: when it hits the ground, each takes the falling damage of
/// the same height, rolled for each (our ruling, docs/rulings.md).
fn riders_fall_with_their_mounts(
    mut io: ParamSet<(MessageReader<Fact>, crate::rules::health::falls::FallOutput)>,
    mounts: Query<(&CreatureId, &Riders)>,
    riders: Query<&CreatureId>,
    mut dice: ResMut<Dice>,
) {
    let landed: Vec<(CreatureId, f32)> = io
        .p0()
        .read()
        .filter_map(|f| match f {
            Fact::Fell { creature, metres, altitude_m, .. } if *altitude_m <= 0.0 => Some((creature.clone(), *metres)),
            _ => None,
        })
        .collect();
    let mut out = io.p1();
    for (mount_id, metres) in landed {
        let Some((_, on_it)) = mounts.iter().find(|(id, _)| **id == mount_id) else { continue };
        for rider in on_it.all() {
            let Ok(id) = riders.get(*rider) else { continue };
            out.hit_the_ground(*rider, id, metres, &mut dice);
        }
    }
}

/// The chance in a hundred a rider knocked out keeps its seat: 50, or 75 in a military saddle (004:482).
pub fn saddle_kept_percent(military_saddle: bool) -> u32 {
    if military_saddle { 75 } else { 50 }
}

/// Where a rider sliding off its mount comes to lie: under the mount, on the first of its squares nobody
/// stands on, when the mount flies in the air (`aloft`); else, or when all are taken, on the first free
/// square next to it (our ruling, docs/rulings.md); at chase scale, the mount's square. `taken` says whether
/// a square is a wall or someone stands there.
pub fn where_it_falls(
    scale: crate::rules::core::altitude::Scale,
    mount: Footprint,
    aloft: bool,
    taken: impl Fn(Square) -> bool,
) -> Square {
    if scale == crate::rules::core::altitude::Scale::Chase {
        return mount.origin;
    }
    let under = mount.squares().filter(|_| aloft).find(|s| !taken(*s));
    let ring = Footprint::rect(mount.origin.offset(-1, -1), mount.width + 2, mount.height + 2);
    under.or_else(|| ring.squares().find(|s| !mount.contains(*s) && !taken(*s))).unwrap_or(mount.origin)
}

/// Who rides what, as a rider knocked out on its mount needs it.
type Seated<'w, 's> =
    Query<'w, 's, (Entity, &'static CreatureId, &'static Riding, &'static Seat, &'static Size), With<Creature>>;

/// Who stands where on the ground, for the square a rider falls on.
type Standing<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static Position,
        &'static Space,
        &'static Altitude,
        Has<MilitarySaddle>,
        &'static Speed,
    ),
    Without<Riding>,
>;

/// Where a rider coming off a mount lands, and from what height it falls: the ground under a flier in the
/// air, from the flier's height; the mount's own footing beside a walker, on a ledge too (`flying`).
fn landing(altitude: &Altitude, speed: &Speed) -> (bool, i32) {
    let aloft = flying(speed, altitude.0);
    (aloft, if aloft { 0 } else { altitude.0 })
}

/// Whether `s` is ground a creature getting off a mount may stand on: on the map, no wall, no pit, no
/// obstacle or low wall, which is crossed and never stood on (000:99-105, 000:126-129). One predicate for
/// getting off, being thrown off and the window's dismount key.
pub fn ground_to_stand_on(field: &Battlefield, s: Square) -> bool {
    field.contains(s)
        && !field.terrain(s).blocks()
        && field.terrain(s) != crate::rules::core::battlefield::Terrain::Pit
        && !field.terrain(s).is_obstacle()
        && !field.has_obstacle(s)
}

/// Whether a rider coming off `mount` cannot land on `s` at `height`: no ground to stand on there
/// ([`ground_to_stand_on`]), or another creature standing there at that height.
fn landing_taken(field: &Battlefield, standing: &Standing<'_, '_>, (mount, height): (Entity, i32), s: Square) -> bool {
    !ground_to_stand_on(field, s)
        || standing.iter().any(|(e, _, p, sp, a, ..)| e != mount && a.0 == height && sp.at(p.0).contains(s))
}

/// Takes a rider off its mount and sets it on its feet at `to`, `height` up (a ledge's).
fn set_down(
    commands: &mut Commands,
    (rider, size): (Entity, Size),
    (to, height): (Square, i32),
    scale: crate::rules::core::altitude::Scale,
) {
    commands.entity(rider).remove::<(Riding, Seat)>().insert((
        Position(to),
        Space::at_scale(scale, size),
        Altitude(height),
    ));
}

/// Whoever leads a turn of its own once a rider is off takes its place in the order, as when getting off
/// (004:653-655): a passenger itself, else the mount its rider left.
fn lead_own_turn(
    order: &mut TurnOrder,
    passenger: bool,
    (rider, id): (Entity, &CreatureId),
    (mount, mount_id): (Entity, &CreatureId),
) {
    if passenger {
        order.rejoin(rider, id.clone());
    } else {
        order.rejoin(mount, mount_id.clone());
    }
}

/// A rider or passenger knocked out on its mount keeps its seat on a d100 of 50 or less (75 in a military
/// saddle); otherwise it falls
/// (004:482): 1d6 off a mount on the ground, the falling damage of the mount's height off a flier (our
/// ruling), prone under or beside the mount. Whoever then leads a turn of its own takes its place in the
/// order, as when getting off (004:653-655).
fn unconscious_riders_slide_off(
    mut commands: Commands,
    mut io: ParamSet<(MessageReader<Fact>, crate::rules::health::falls::FallOutput)>,
    seated: Seated<'_, '_>,
    standing: Standing<'_, '_>,
    mut order: ResMut<TurnOrder>,
    field: Res<Battlefield>,
    mut dice: ResMut<Dice>,
) {
    // Killed outright, it lost consciousness too (« perd connaissance »); one that was out already (it
    // loses its unconsciousness as it dies) rolled when it fell unconscious.
    let (mut fainted, mut died, mut was_out) = (Vec::new(), Vec::new(), Vec::new());
    for fact in io.p0().read() {
        match fact {
            Fact::ConditionGained { creature, condition: Condition::Unconscious } => fainted.push(creature.clone()),
            Fact::ConditionGained { creature, condition: Condition::Dead } => died.push(creature.clone()),
            Fact::ConditionLost { creature, condition: Condition::Unconscious } => was_out.push(creature.clone()),
            _ => {}
        }
    }
    let knocked_out = |id: &CreatureId| fainted.contains(id) || (died.contains(id) && !was_out.contains(id));
    let mut out = io.p1();
    let scale = field.scale();
    for (rider, id, riding, seat, size) in seated.iter().filter(|c| knocked_out(c.1)) {
        let Ok((mount, mount_id, at, space, altitude, military, speed)) = standing.get(riding.0) else { continue };
        let roll = dice.d100();
        let percent = saddle_kept_percent(military);
        let kept = roll <= percent;
        let mount_at = space.at(at.0);
        let (aloft, height) = landing(altitude, speed);
        let to = (!kept)
            .then(|| where_it_falls(scale, mount_at, aloft, |s| landing_taken(&field, &standing, (mount, height), s)));
        out.tell(Fact::SaddleKept { creature: id.clone(), mount: mount_id.clone(), roll, percent, kept, to });
        let Some(to) = to else { continue };
        set_down(&mut commands, (rider, *size), (to, height), scale);
        let damage = if aloft {
            crate::rules::health::falls::falling_damage(scale.height_m(altitude.0))
        } else {
            Some(crate::rules::core::dice::DiceExpr::new(1, 6))
        };
        out.fall_for(rider, id, damage, &mut dice);
        lead_own_turn(&mut order, seat.passenger, (rider, id), (mount, mount_id));
    }
}

/// The Ride check's DC to soften the fall when its mount falls (004:481).
pub const MOUNT_FALLS_RIDE_DC: i32 = 15;

/// The damage of a rider's fall when its mount falls and its Ride check fails (004:481).
pub const MOUNT_FALLS_DAMAGE: crate::rules::core::dice::DiceExpr = crate::rules::core::dice::DiceExpr::new(1, 6);

/// A mount on the ground that falls (prone, unconscious or dead) throws its riders (004:481: « Si la monture
/// tombe pour une raison ou une autre »): each makes a Ride check, DC 15 (its Ride, else its Dex modifier);
/// made, it softens the fall and lands on its feet; failed, it takes 1d6 and lies prone (our ruling for
/// where and how it lands, docs/rulings.md), under or beside the mount as a rider sliding off does. A rider
/// that cannot act falls without a check; the dead slide off unharmed. Whoever
/// then leads a turn of its own takes its place in the order (004:653-655).
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per query or resource it reads")]
fn riders_thrown_by_falling_mounts(
    mut commands: Commands,
    mut io: ParamSet<(MessageReader<Fact>, crate::rules::health::falls::FallOutput)>,
    seated: Seated<'_, '_>,
    standing: Standing<'_, '_>,
    skills: Query<(&Skills, &Abilities, &Conditions)>,
    mut order: ResMut<TurnOrder>,
    field: Res<Battlefield>,
    mut dice: ResMut<Dice>,
) {
    let fallen: Vec<CreatureId> = io
        .p0()
        .read()
        .filter_map(|f| match f {
            Fact::ConditionGained {
                creature,
                condition: Condition::Prone | Condition::Unconscious | Condition::Dead,
            } => Some(creature.clone()),
            _ => None,
        })
        .collect();
    let mut out = io.p1();
    let scale = field.scale();
    let mut thrown: Vec<_> = seated
        .iter()
        .filter(|c| standing.get(c.2.0).is_ok_and(|m| !flying(m.6, m.4.0) && fallen.contains(m.1)))
        .collect();
    thrown.sort_by(|a, b| a.1.cmp(b.1));
    for (rider, id, riding, seat, size) in thrown {
        let Ok((mount, mount_id, at, space, altitude, _, _)) = standing.get(riding.0) else { continue };
        let Ok((ride, abilities, conditions)) = skills.get(rider) else { continue };
        // The dead fall without a check or harm; one that cannot act falls without a check.
        let dead = conditions.has(Condition::Dead);
        let softened = dead
            || (conditions.can_act() && {
                let bonus = dex_skill(ride.ride, abilities, conditions);
                let reason = format!("its mount {mount_id} falls (004:481)");
                crate::rules::core::checks::roll_check(
                    &mut dice,
                    &mut out.facts,
                    id,
                    crate::rules::core::names::Check::Ride,
                    reason,
                    bonus,
                    MOUNT_FALLS_RIDE_DC,
                )
            });
        let to =
            where_it_falls(scale, space.at(at.0), false, |s| landing_taken(&field, &standing, (mount, altitude.0), s));
        set_down(&mut commands, (rider, *size), (to, altitude.0), scale);
        out.tell(Fact::Dismounted { creature: id.clone(), mount: mount_id.clone(), to });
        if !softened {
            out.fall_for(rider, id, Some(MOUNT_FALLS_DAMAGE), &mut dice);
        }
        lead_own_turn(&mut order, seat.passenger, (rider, id), (mount, mount_id));
    }
}

/// A rider tripped off its mount (004:488), prone, lies on the ground under or beside it, where a rider
/// sliding off would (our ruling: no damage, the text names none); whoever then leads a turn of its own
/// takes its place in the order, as when getting off (004:653-655).
fn pull_riders_down(
    mut commands: Commands,
    mut pulled: MessageReader<crate::rules::special::trip::PulledDown>,
    seated: Seated<'_, '_>,
    standing: Standing<'_, '_>,
    mut order: ResMut<TurnOrder>,
    field: Res<Battlefield>,
    mut facts: MessageWriter<Fact>,
) {
    let scale = field.scale();
    for down in pulled.read() {
        let Ok((rider, id, riding, seat, size)) = seated.get(down.rider) else { continue };
        let Ok((mount, mount_id, at, space, altitude, _, speed)) = standing.get(riding.0) else { continue };
        let (aloft, height) = landing(altitude, speed);
        let to = where_it_falls(scale, space.at(at.0), aloft, |s| landing_taken(&field, &standing, (mount, height), s));
        set_down(&mut commands, (rider, *size), (to, height), scale);
        facts.write(Fact::Dismounted { creature: id.clone(), mount: mount_id.clone(), to });
        lead_own_turn(&mut order, seat.passenger, (rider, id), (mount, mount_id));
    }
}

/// The riders' share of a collision (004:851-852): half of what their mount took, each rider and passenger
/// saving (Reflex DC 15) for half of that.
pub fn share_collision(
    riders: &[Entity],
    mount_took: i32,
    saves: &Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    damage: &mut MessageWriter<Damage>,
) {
    for rider in riders {
        let Ok((id, rider_saves, abilities, conditions)) = saves.get(*rider) else { continue };
        let mut amount = collision_share(mount_took);
        let success = roll_save(
            dice,
            facts,
            id,
            Save::Reflex,
            rider_saves,
            &abilities_in_play(abilities, conditions),
            "its mount's collision, for half of its share (004:852)",
            COLLISION_SHARE_REFLEX_DC,
        );
        if success {
            amount = (amount / 2).max(1);
        }
        facts.write(Fact::CollisionShared { creature: id.clone(), total: amount });
        damage.write(Damage { target: *rider, amount, nonlethal: false, from_one_attack: false });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_military_saddle_keeps_a_senseless_rider_on_more_often_004_482() {
        assert_eq!((saddle_kept_percent(false), saddle_kept_percent(true)), (50, 75));
    }

    #[test]
    fn only_a_passenger_takes_the_reins_by_a_step_or_a_change_of_places_004_822() {
        let passenger = Seat { passenger: true, high: false };
        let rider = Seat { passenger: false, high: false };
        assert_eq!(seat_change(Some(&passenger), true, false), Ok(SeatChange::WithTheRider));
        assert_eq!(seat_change(Some(&passenger), false, false), Ok(SeatChange::IntoFreeSeat));
        assert!(seat_change(Some(&rider), false, false).unwrap_err().reason.contains("holds the reins"));
        assert!(seat_change(None, false, false).unwrap_err().reason.contains("rides nothing"));
        assert!(seat_change(Some(&passenger), true, true).unwrap_err().reason.contains("got on this turn"));
    }

    #[test]
    fn a_rider_knocked_out_falls_under_its_flier_or_beside_its_mount_004_482() {
        use crate::rules::core::altitude::Scale;
        let griffon = Footprint::new(Square::new(6, 5), 2);
        let nobody = |_: Square| false;
        assert_eq!(where_it_falls(Scale::Normal, griffon, true, nobody), Square::new(6, 5), "under it");
        let swordsman_below = |s: Square| s == Square::new(6, 5);
        assert_eq!(where_it_falls(Scale::Normal, griffon, true, swordsman_below), Square::new(7, 5));
        assert_eq!(where_it_falls(Scale::Normal, griffon, false, nobody), Square::new(5, 4), "beside it");
        assert_eq!(where_it_falls(Scale::Chase, Footprint::new(Square::new(3, 3), 1), true, nobody), Square::new(3, 3));
    }

    #[test]
    fn a_mount_is_larger_than_its_rider_and_seats_grow_with_it() {
        assert!(may_carry(Size::Large, Size::Medium).is_ok());
        assert!(may_carry(Size::Medium, Size::Medium).is_err());
        assert!(may_carry(Size::Medium, Size::Large).is_err());
        assert_eq!([Size::Large, Size::Huge, Size::Gargantuan, Size::Colossal].map(seats), [1, 2, 4, 9]);
    }

    #[test]
    fn riders_take_half_a_collision_and_the_better_of_dex_and_ride() {
        assert_eq!(collision_share(36), 18);
        assert_eq!(collision_share(1), 1);
        assert_eq!(fly_check_bonus(2, -4, Some(7)), (3, "the rider's Ride"));
        assert_eq!(fly_check_bonus(2, -4, Some(1)), (-2, "Dex"));
        assert_eq!(fly_check_bonus(2, 0, None), (2, "Dex"));
    }
}
