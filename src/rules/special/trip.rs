//! Trip (Croc-en-jambe, 004:483-489). In place of an unarmed melee attack, or with a trip weapon
//! (004:489), the attacker makes a melee touch attack (004:484, 004:199); if it touches, an opposed check:
//! its Strength against the defender's better of Strength and Dexterity, each +4 per size category above
//! Medium and -4 per category below, the defender +4 if it has more than two legs or is otherwise stable
//! (004:485). A tripped defender falls prone; a defender who wins may at once try to trip back (004:485).
//! An unarmed trip provokes from its target (004:484), not with Improved Trip (004:486, which names the
//! feat wrongly) nor with a trip weapon (004:486, 004:489). The target is at most one size larger
//! (004:483).

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::Side;
use crate::rules::attack::manoeuvre::{Falls, roll_trip_check, trippable};
pub use crate::rules::attack::manoeuvre::{PulledDown, resisting_side, tripping_side};
use crate::rules::attack::{AttackPlan, Combatant, CombatantItem, prepare_attack, provoke};
use crate::rules::core::checks::contest_chance;
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::ActionBudget;
use crate::rules::turns::moving::{ChargeEnded, ChargeFinish};

/// Asks to trip a foe.
#[derive(Message, Clone, Debug)]
pub struct TripIntent {
    /// Who trips.
    pub attacker: Entity,
    /// Whom.
    pub target: Entity,
    /// With which weapon: a trip weapon or the unarmed strike; if `None`, a trip weapon it holds, else its
    /// unarmed strike.
    pub weapon: Option<String>,
    /// In place of the attack ending a charge (004:457): paid by it, its touch attack at +2.
    pub charge: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<TripIntent>();
    app.add_systems(
        Rules,
        (trip_at_the_end_of_a_charge, resolve_trips)
            .chain()
            .in_set(RulesSystems::Act)
            .after(crate::rules::attack::gear::resolve_pick_ups),
    );
}

/// A charge that ends in a trip trips (004:457, 004:483).
fn trip_at_the_end_of_a_charge(mut ended: MessageReader<ChargeEnded>, mut trips: MessageWriter<TripIntent>) {
    for charge in ended.read().filter(|c| c.finish == ChargeFinish::Trip) {
        trips.write(TripIntent {
            attacker: charge.charger,
            target: charge.target,
            weapon: charge.weapon.clone(),
            charge: true,
        });
    }
}

/// A trip checked and ready: the touch attack, whether it provokes, and the two sides of the check.
#[derive(Clone, Debug)]
pub struct TripPlan {
    /// The melee touch attack (004:484).
    pub touch: AttackPlan,
    /// An unarmed trip without Improved Trip provokes from its target (004:484, 004:486), unless its maker
    /// is armed unarmed (004:168-171).
    pub provokes: bool,
    /// The attacker's Strength check (004:485).
    pub attacker: Side,
    /// The defender's better of Strength and Dexterity (004:485).
    pub defender: Side,
}

impl TripPlan {
    /// The chance the trip lays the foe down: the touch attack lands, then the check is won.
    pub fn chance(&self, touch_chance: f32) -> f32 {
        touch_chance * contest_chance(self.attacker.bonus(), self.defender.bonus())
    }
}

/// The weapon a trip is made with: the one asked for if it is a trip weapon or the unarmed strike (004:483,
/// 004:489); otherwise a trip weapon the attacker holds, else its unarmed strike.
pub fn trip_weapon(attacker: &CombatantItem, asked: Option<&str>) -> Result<String, Refusal> {
    let weapons = &attacker.armament.0;
    if let Some(name) = asked {
        return match weapons.iter().find(|w| w.name == name) {
            Some(w) if w.trip || w.unarmed => crate::rules::core::gear::put_away(w).map(|()| w.name.clone()),
            Some(_) => Err(Refusal::new(
                format!(
                    "the {name} is no trip weapon: trip unarmed or with a spiked chain, a flail, a dire flail, a whip, a guisarme, a halberd"
                ),
                "004:483, 004:489",
            )),
            None => Err(Refusal::new(format!("{} has no {name}", attacker.id), "data")),
        };
    }
    held_trip_weapon(attacker.armament)
        .map(|w| w.name.clone())
        .ok_or_else(|| Refusal::new("it has neither hands to trip with nor a trip weapon", "004:483"))
}

/// What a trip is made with when none is named: a trip weapon in hand, else the unarmed strike (004:483,
/// 004:489).
pub fn held_trip_weapon(armament: &Armament) -> Option<&Weapon> {
    armament.ready().find(|w| w.trip).or_else(|| armament.0.iter().find(|w| w.unarmed))
}

/// Whether `attacker` may trip `target` now, and how: the target at most one size larger (004:483), on its
/// feet and on the ground (our ruling: a flier in the air has nothing to trip on), within reach of the
/// weapon, the attacker's turn and its standard action left; the touch attack is planned as any attack, the
/// target's armour, shield and natural armour left out (004:199).
pub fn plan_trip(
    ground: &super::Ground<'_, '_, '_>,
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: Option<&str>,
    budget: &ActionBudget,
) -> Result<TripPlan, Refusal> {
    out_of_grapple(attacker.conditions, "trip")?;
    trippable(attacker, target)?;
    let weapon = trip_weapon(attacker, weapon)?;
    let request = ground.replaced_attack(Some(&weapon));
    let mut touch = prepare_attack(ground.field, ground.order, ground.creatures, attacker, target, request, budget)?;
    crate::rules::attack::as_touch_attack(&mut touch);
    ground.at_blow(&mut touch.modifiers);
    // « Le personnage s'expose donc » (004:484): for its unarmed attack, which provokes as any does, not by
    // one armed unarmed (004:168-171, Improved Unarmed Strike).
    let provokes = touch.weapon.unarmed && !attacker.armed_unarmed() && !attacker.feats.has(Feat::ImprovedTrip);
    Ok(TripPlan { touch, provokes, attacker: tripping_side(attacker), defender: resisting_side(target) })
}

/// Carries out trip intents one after the other: checked and paid for, the attack of opportunity of an
/// unarmed trip (004:484) first, then the touch attack and the check.
pub(super) fn resolve_trips(world: &mut World, mut intents: Local<MessageCursor<TripIntent>>) {
    let read: Vec<TripIntent> = intents.read(world.resource::<Messages<TripIntent>>()).cloned().collect();
    for intent in read {
        let Ok(Some(plan)) = world.run_system_cached_with(prepare_trip, intent.clone()) else { continue };
        if plan.provokes
            && provoke(world, intent.attacker, Some(intent.target), Action::Trip, "an unarmed trip (004:484)")
        {
            continue;
        }
        let _ = world.run_system_cached_with(roll_trip, (intent, plan));
    }
}

/// Checks a trip and pays its standard action, or writes why not.
fn prepare_trip(In(intent): In<TripIntent>, mut planning: super::Planning) -> Option<TripPlan> {
    let weapon = intent.weapon.as_deref();
    planning.plan_and_pay_blow(
        (intent.attacker, intent.target),
        (Action::Trip, intent.charge),
        Box::new(|g, (a, t), budget| plan_trip(g, a, t, weapon, budget)),
    )
}

/// The touch attack, then the opposed check; prone the loser of a check: the defender, or the attacker if
/// the defender, having won, trips back (004:485).
fn roll_trip(
    In((intent, plan)): In<(TripIntent, TripPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut falls: Falls,
) {
    let (Ok(attacker), Ok(target)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else { return };
    if !crate::rules::attack::roll_touch_attack(&plan.touch, attacker.id, target.id, &mut dice, &mut facts) {
        return;
    }
    roll_trip_check(
        (&mut dice, &mut facts, &mut falls),
        &attacker,
        &target,
        "a trip: Strength against the better of Strength and Dexterity (004:485)",
    );
}
