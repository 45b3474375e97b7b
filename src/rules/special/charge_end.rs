//! The special attack a charge may end in, in place of its one melee attack (« Après s'être déplacé, le
//! personnage peut délivrer une attaque au corps à corps, et une seule », 004:457): a trip, a disarm or a
//! sunder, each made « en remplacement d'une attaque de corps à corps » (004:483, 004:490, 004:499). The
//! charge pays for it, and its +2 goes on the attack roll it makes: the trip's touch attack (004:484), the
//! opposed attack roll of a disarm (004:493) or a sunder (004:501), not the trip's Strength check (the
//! charge's +2 on a Strength check is the bull rush's alone, 004:458).

use bevy::prelude::*;

use super::disarm::{DisarmPlan, plan_disarm};
use super::sunder::{SunderPlan, plan_sunder};
use super::trip::{TripPlan, held_trip_weapon, plan_trip};
use crate::rules::core::creature::{Armament, Shield};
use crate::rules::core::geometry::Square;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::moving::ChargeFinish;

/// The special attack ending a charge, planned.
#[derive(Clone, Debug)]
pub enum ChargeBlow {
    /// A trip.
    Trip(Box<TripPlan>),
    /// A disarm.
    Disarm(Box<DisarmPlan>),
    /// A sunder.
    Sunder(Box<SunderPlan>),
}

/// The weapon the blow ending a charge with `finish` strikes with, whose reach the charge's lanes take: the
/// one `named`, else for a trip a trip weapon in hand or the unarmed strike (004:483, 004:489), else the
/// charge's own (its first melee weapon ready, `None`).
pub fn weapon_for(armament: &Armament, finish: ChargeFinish, named: Option<&str>) -> Option<String> {
    match (named, finish) {
        (Some(name), _) => Some(name.to_owned()),
        (None, ChargeFinish::Trip) => held_trip_weapon(armament).map(|w| w.name.clone()),
        (None, _) => None,
    }
}

/// Whether a charge of `attacker` may end in the bull rush or the overrun `finish` names on `target`,
/// wherever its lane ends: the checks of the foe that do not hang on where the two stand (its size, its
/// height, a rider, one overrun a round; 004:446, 004:531), made before the charge moves as a trip's are.
pub fn check_charge_push(
    world: &mut World,
    (attacker, target): (Entity, Entity),
    finish: ChargeFinish,
) -> Result<(), Refusal> {
    if finish == ChargeFinish::Overrun {
        return super::overrun::overrunnable_in(world, (attacker, target));
    }
    let mut combatants = crate::rules::core::kept::kept::<
        crate::rules::attack::Combatant,
        With<crate::rules::core::creature::Creature>,
    >(world);
    let creatures = combatants.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    match finish {
        ChargeFinish::BullRush { .. } => super::bull_rush::rushable(&a, &t),
        _ => Ok(()),
    }
}

/// The special attack `finish` names, of `attacker` on `target` with `weapon`, planned as the rules will
/// plan it at the end of the charge's lane, `to`: `None` when the charge ends in its plain attack, a bull
/// rush or an overrun (planned by their own chapters).
pub fn plan_charge_blow(
    world: &mut World,
    (attacker, target): (Entity, Entity),
    (to, finish, weapon): (Square, ChargeFinish, Option<&str>),
) -> Option<Result<ChargeBlow, Refusal>> {
    let pair = (attacker, target);
    Some(match finish {
        ChargeFinish::Trip => super::plan_at_charge_end(
            world,
            pair,
            to,
            Box::new(|g, (a, t), budget| plan_trip(g, a, t, weapon, budget).map(|p| ChargeBlow::Trip(Box::new(p)))),
        ),
        ChargeFinish::Disarm => super::plan_at_charge_end(
            world,
            pair,
            to,
            Box::new(|g, pair, budget| plan_disarm(g, pair, weapon, budget).map(|p| ChargeBlow::Disarm(Box::new(p)))),
        ),
        ChargeFinish::Sunder { shield } => {
            let shield = shield.then(|| world.get::<Shield>(target).copied());
            super::plan_at_charge_end(
                world,
                pair,
                to,
                Box::new(move |g, pair, budget| {
                    plan_sunder(g, pair, (weapon, shield), budget).map(|p| ChargeBlow::Sunder(Box::new(p)))
                }),
            )
        }
        ChargeFinish::Attack | ChargeFinish::BullRush { .. } | ChargeFinish::Overrun => return None,
    })
}
