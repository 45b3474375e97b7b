//! Underwater combat (004:632-645): the Swim check a creature without a swim speed makes at the start of
//! each of its turns in deep water, the balance it loses when the check fails, and fire put out by the
//! water (004:635). The table's rows, who is in the water and what each row does to movement and attacks
//! are the core's (`core::water`), read by the movement costs and the attack chapter alike.

use bevy::prelude::*;

use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{roll_check, skill};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Check;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::core::water::{self, Swimmer};
use crate::rules::turns::TurnOrder;

/// The Swim check's DC in calm water (our ruling, docs/rulings.md: the text names the check, 004:643, not
/// its DC; the d20 standard's calm water).
pub const CALM_WATER_DC: i32 = 10;

pub fn plugin(app: &mut App) {
    app.add_systems(
        Rules,
        (swim_at_turn_start, steady_out_of_the_water)
            .chain()
            .in_set(RulesSystems::Turns)
            // The last of the turn's systems: the turn begun, the creatures come to rest where they stand.
            .after(crate::rules::special::turning::cornered_cower)
            .after(crate::rules::mounted::MountControlSystems),
    );
}

/// What the Swim check reads of a creature.
#[derive(bevy::ecs::query::QueryData)]
#[query_data(mutable)]
pub struct SwimmerView {
    entity: Entity,
    id: &'static CreatureId,
    size: &'static Size,
    speed: &'static Speed,
    traits: &'static Traits,
    skills: &'static Skills,
    abilities: &'static Abilities,
    position: &'static Position,
    seat: Option<&'static crate::rules::core::creature::Seat>,
    space: &'static Space,
    altitude: &'static Altitude,
    conditions: &'static mut Conditions,
}

/// The row of the table for a creature where it stands, its last check set aside: whether it must swim by
/// its Swim check.
fn swims_by_check(field: &Battlefield, c: &SwimmerViewItem) -> bool {
    let swimmer = Swimmer {
        floundering: false,
        carried: c.seat.is_some(),
        ..Swimmer::of(*c.size, c.speed, c.traits, &c.conditions)
    };
    water::row_at(field, c.space.at(c.position.0), c.altitude.0, swimmer).is_some_and(|row| row.swims_by_check())
}

/// At the start of its turn, a creature in deep water with neither a swim speed nor firm footing makes a
/// Swim check (004:643): success, it swims this turn at a quarter of its speed per move action; failure, it
/// flounders off balance until its next check (004:645). The Swim skill, or Strength untrained.
pub fn swim_at_turn_start(
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut last: Local<Option<u64>>,
    mut creatures: Query<SwimmerView>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    // Once a turn: its creature's place may move in the order during it (a readied action set off before
    // it, 004:624) and its turn goes on all the same.
    let now = order.turns_begun;
    // A delayed turn resumed is the round's one turn going on: its check was made as it began (004:630).
    if order.current.is_none() || *last == Some(now) || order.resumed {
        return;
    }
    *last = Some(now);
    for &entity in &order.acting {
        let Ok(mut c) = creatures.get_mut(entity) else { continue };
        if !c.conditions.can_act() || !swims_by_check(&field, &c) {
            continue;
        }
        let bonus = skill(c.skills.swim, c.abilities.str);
        let swims = roll_check(
            &mut dice,
            &mut facts,
            c.id,
            Check::Swim,
            "to swim in deep water (004:643)",
            bonus,
            CALM_WATER_DC,
        );
        set_off_balance(&mut c, !swims, &mut facts);
    }
}

/// A creature out of the water, or no longer swimming by its check (it found its footing), keeps its
/// balance.
fn steady_out_of_the_water(field: Res<Battlefield>, mut creatures: Query<SwimmerView>, mut facts: MessageWriter<Fact>) {
    for mut c in &mut creatures {
        if c.conditions.has(Condition::OffBalance) && !swims_by_check(&field, &c) {
            set_off_balance(&mut c, false, &mut facts);
        }
    }
}

fn set_off_balance(c: &mut SwimmerViewItem, off: bool, facts: &mut MessageWriter<Fact>) {
    let had = c.conditions.has(Condition::OffBalance);
    if off && !had {
        c.conditions.0.insert(Condition::OffBalance);
        facts.write(Fact::ConditionGained { creature: c.id.clone(), condition: Condition::OffBalance });
    } else if !off && had {
        c.conditions.0.remove(&Condition::OffBalance);
        facts.write(Fact::ConditionLost { creature: c.id.clone(), condition: Condition::OffBalance });
    }
}
