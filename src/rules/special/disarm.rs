//! Disarm (Désarmement, 004:490-498), and picking up what falls (004:128). In place of a melee attack, the
//! attacker tries to make its foe drop the weapon it holds. It provokes from the foe unless it has Improved
//! Disarm, and an attack of opportunity that wounds it spoils the disarm (004:492). Then opposed attack
//! rolls with their weapons: +4 with a two-handed weapon, -4 with a light one (an unarmed strike is light),
//! +4 per size category to the larger, -4 to the defender whose item is not a melee weapon (004:493). Won
//! with a weapon, the foe's weapon falls at its feet; won unarmed, the attacker holds it (004:494). Lost, the
//! defender may at once try to disarm it back, provoking nothing, and a failure there ends it; a defender
//! whose item is not a melee weapon cannot (004:491, 004:495).
//!
//! A weapon on the ground lies on its square, an object on the board (`attack::gear`, where picking it up
//! is, 004:128).
//!
//! Our rulings (docs/rulings.md): the disarm is the turn's standard action (the attack it replaces); the
//! item is the first manufactured weapon the foe holds; the attack rolls are each weapon's attack bonus
//! (base attack, ability, size, Weapon Focus) with the disarm's terms, not the situation's; ties go to the
//! higher bonus, then a die; the defender always tries to disarm back when it may.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::{Ground, Side};
use crate::rules::attack::disarming::{DisarmRolls, WeaponLoss};
use crate::rules::attack::gear::take_in_hand;
use crate::rules::attack::{Combatant, CombatantItem, prepare_attack, provoke_as};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionBudget, Provoking};

/// Asks to disarm a foe.
#[derive(Message, Clone, Debug)]
pub struct DisarmIntent {
    /// Who disarms.
    pub attacker: Entity,
    /// Whom.
    pub target: Entity,
    /// With which weapon: its first melee weapon if `None`; `unarmed strike` to take the weapon in hand.
    pub weapon: Option<String>,
    /// An object the foe carries to snatch rather than its weapon (a potion, a flask), unarmed (004:497).
    pub object: Option<String>,
    /// In place of the attack ending a charge (004:457): paid by it, its attack roll at +2.
    pub charge: bool,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<DisarmIntent>();
    app.add_systems(
        Rules,
        (disarm_at_the_end_of_a_charge, resolve_disarms)
            .chain()
            .in_set(RulesSystems::Act)
            .after(super::turning::turn_undead),
    );
}

/// A charge that ends in a disarm disarms (004:457, 004:490).
fn disarm_at_the_end_of_a_charge(
    mut ended: MessageReader<crate::rules::turns::moving::ChargeEnded>,
    mut disarms: MessageWriter<DisarmIntent>,
) {
    for charge in ended.read().filter(|c| c.finish == crate::rules::turns::moving::ChargeFinish::Disarm) {
        disarms.write(DisarmIntent {
            attacker: charge.charger,
            target: charge.target,
            weapon: charge.weapon.clone(),
            object: None,
            charge: true,
        });
    }
}

/// A disarm checked and ready: the two attack rolls' sides and whether it provokes.
#[derive(Clone, Debug)]
pub struct DisarmPlan {
    /// The attacker's weapon.
    pub weapon: Weapon,
    /// The weapon it would take.
    pub item: Weapon,
    /// The attacker's attack roll (004:493).
    pub attacker: Side,
    /// The defender's.
    pub defender: Side,
    /// Without Improved Disarm it provokes from the foe (004:492).
    pub provokes: bool,
    /// The defender may disarm back if it wins: its item is a melee weapon (004:491, 004:495).
    pub counter: bool,
    /// The carried object snatched, in place of the weapon (004:497): `item` is then the weapon the defender
    /// resists with.
    pub object: Option<String>,
}

impl DisarmPlan {
    /// The chance to win the opposed rolls.
    pub fn chance(&self) -> f32 {
        self.attacker.chance_against(&self.defender)
    }
}

pub use crate::rules::attack::disarming::{disarm_side, disarming_side, held_weapon};

/// Whether `attacker` may disarm `target` now, and how: a melee attack it could make now (reach, sight, its
/// standard action), a weapon the foe holds.
pub fn plan_disarm(
    ground: &Ground<'_, '_, '_>,
    (attacker, target): (&CombatantItem, &CombatantItem),
    weapon: Option<&str>,
    budget: &ActionBudget,
) -> Result<DisarmPlan, Refusal> {
    // The attack it replaces first (the turn, the action, the reach), then the item.
    let attack = melee_attack(ground, (attacker, target), weapon, budget, ("disarm", "004:490"))?;
    let Some(item) = held_weapon(target) else {
        return Err(Refusal::new("it holds no weapon to take: natural weapons cannot be disarmed", "004:490"));
    };
    let melee_item = !crate::rules::core::creature::is_ranged(&item);
    let mut defender = disarming_side(target, &item, attacker, melee_item);
    if target.conditions.has(Condition::Pinned) {
        defender.terms.push(Modifier::new(4, "pinned, it resists at +4 (004:611)"));
    }
    let mut side = disarming_side(attacker, &attack.weapon, target, true);
    ground.at_blow(&mut side.terms);
    ground.charging(&mut side);
    Ok(DisarmPlan {
        attacker: side,
        defender,
        provokes: !attacker.feats.has(Feat::ImprovedDisarm),
        counter: melee_item,
        weapon: attack.weapon,
        item,
        object: None,
    })
}

/// The objects a creature carries that a disarm may snatch (004:497): its items (potions) and its splash
/// weapons (flasks), all carried loose on a belt or in a pouch (our ruling: nothing the game knows is
/// strapped on like a ring).
pub fn snatchable(c: &CombatantItem, items: Option<&Items>) -> Vec<String> {
    carried_objects(items, c.armament)
}

/// The objects carried loose that a creature's items and weapons give (004:497, 004:504): its items, then
/// its splash weapons.
pub fn carried_objects(items: Option<&Items>, armament: &Armament) -> Vec<String> {
    let flasks = armament.0.iter().filter(|w| w.splash.is_some()).map(|w| w.name.clone());
    items.into_iter().flat_map(|i| i.0.iter().map(|item| item.name.clone())).chain(flasks).collect()
}

/// Whether `attacker` may snatch `object` from `target` now, and how (004:497-498): a disarm made unarmed
/// to catch it, +4 for an object loosely carried; the defender's attack roll with its weapon, -4 for an
/// object that is no melee weapon (004:491), +4 pinned (004:611); no disarming back.
pub fn plan_snatch(
    ground: &Ground<'_, '_, '_>,
    (attacker, target): (&CombatantItem, &CombatantItem),
    (object, carried): (&str, &[String]),
    budget: &ActionBudget,
) -> Result<DisarmPlan, Refusal> {
    if !carried.iter().any(|o| o == object) {
        return Err(Refusal::new(format!("{} carries no {object}", target.id), "004:497"));
    }
    let attack = melee_attack(ground, (attacker, target), Some("unarmed strike"), budget, ("disarm", "004:497"))?;
    let mut side = disarming_side(attacker, &attack.weapon, target, true);
    ground.at_blow(&mut side.terms);
    ground.charging(&mut side);
    side.terms.push(Modifier::new(4, "an object carried loose (004:497)"));
    let resisting = held_weapon(target)
        .or_else(|| target.armament.0.iter().find(|w| w.unarmed).cloned())
        .unwrap_or_else(|| attack.weapon.clone());
    let mut defender = disarming_side(target, &resisting, attacker, false);
    if target.conditions.has(Condition::Pinned) {
        defender.terms.push(Modifier::new(4, "pinned, it resists at +4 (004:611)"));
    }
    Ok(DisarmPlan {
        attacker: side,
        defender,
        provokes: !attacker.feats.has(Feat::ImprovedDisarm),
        counter: false,
        weapon: attack.weapon,
        item: resisting,
        object: Some(object.to_string()),
    })
}

/// The melee attack `attacker` could make on `target` now with `weapon` that a disarm or a sunder replaces
/// (`what`, with its `rule`): planned as any attack (reach, sight, its standard action), refused if ranged.
pub fn melee_attack(
    ground: &Ground<'_, '_, '_>,
    (attacker, target): (&CombatantItem, &CombatantItem),
    weapon: Option<&str>,
    budget: &ActionBudget,
    (what, rule): (&str, &'static str),
) -> Result<crate::rules::attack::AttackPlan, Refusal> {
    // A pinner may disarm the foe it pins (004:611); no other special attack is made in a grapple.
    if !(what == "disarm" && Grapple::pins(attacker.entity, target.grapple, target.conditions)) {
        out_of_grapple(attacker.conditions, what)?;
    }
    let request = crate::rules::attack::AttackRequest { disarming: what == "disarm", ..ground.replaced_attack(weapon) };
    let mut attack = prepare_attack(ground.field, ground.order, ground.creatures, attacker, target, request, budget)?;
    if crate::rules::core::creature::is_ranged(&attack.weapon) {
        return Err(Refusal::new(format!("a {what} replaces a melee attack"), rule));
    }
    ground.at_blow(&mut attack.modifiers);
    Ok(attack)
}

/// Carries out disarm intents: checked and paid for, the foe's attack of opportunity (a wound spoils it),
/// the opposed rolls, then the weapon falls or changes hands, or the foe disarms back.
pub(super) fn resolve_disarms(world: &mut World, mut intents: Local<MessageCursor<DisarmIntent>>) {
    let read: Vec<DisarmIntent> = intents.read(world.resource::<Messages<DisarmIntent>>()).cloned().collect();
    for intent in read {
        let Ok(Some(plan)) = world.run_system_cached_with(prepare_disarm, intent.clone()) else { continue };
        if plan.provokes {
            let provoking = Provoking {
                only: Some(intent.target),
                ..Provoking::new(intent.attacker, Action::Disarm, "a disarm (004:492)")
            };
            let provoked = provoke_as(world, provoking);
            if provoked.dropped {
                continue;
            }
            if provoked.wounded {
                refuse_after(
                    world,
                    intent.attacker,
                    "the attack of opportunity wounded it: the disarm fails (004:492)",
                );
                continue;
            }
        }
        if let Ok(Some(loss)) = world.run_system_cached_with(roll_disarm, (intent, plan)) {
            lose_weapon(world, loss);
        }
    }
}

fn refuse_after(world: &mut World, who: Entity, why: &str) {
    let Some(id) = world.get::<CreatureId>(who).cloned() else { return };
    world.write_message(Fact::ActionInterrupted { creature: id, action: Action::Disarm, reason: why.into() });
}

/// Checks a disarm and pays its standard action, or writes why not.
fn prepare_disarm(
    In(intent): In<DisarmIntent>,
    mut planning: super::Planning,
    items: Query<&Items>,
) -> Option<DisarmPlan> {
    let weapon = intent.weapon.as_deref();
    let object = intent.object.clone();
    let carried_items = items.get(intent.target).ok().cloned();
    planning.plan_and_pay_blow(
        (intent.attacker, intent.target),
        (Action::Disarm, intent.charge),
        Box::new(move |g, pair, budget| match &object {
            // « Si l'on veut attraper l'objet, ce désarmement doit se faire à mains nues » (004:497).
            Some(_) if weapon.is_some_and(|w| w != "unarmed strike") => Err(Refusal::new(
                format!("an object is snatched bare-handed, not with the {}", weapon.unwrap_or_default()),
                "004:497",
            )),
            Some(object) => {
                let carried = snatchable(pair.1, carried_items.as_ref());
                plan_snatch(g, pair, (object, &carried), budget)
            }
            None => plan_disarm(g, pair, weapon, budget),
        }),
    )
}

/// A weapon lost to a disarm (004:494), or the object snatched (004:497).
struct Loss {
    weapon: WeaponLoss,
    object: Option<String>,
}

/// The opposed attack rolls, and the defender's disarming back once (004:493-495): the weapon lost, if any.
fn roll_disarm(
    In((intent, plan)): In<(DisarmIntent, DisarmPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) -> Option<Loss> {
    let (attacker, target) = (creatures.get(intent.attacker).ok()?, creatures.get(intent.target).ok()?);
    let rolls = DisarmRolls {
        attacker: plan.attacker.clone(),
        defender: plan.defender.clone(),
        item: plan.item.clone(),
        unarmed: plan.weapon.unarmed,
        counter: plan.counter,
    };
    let reason = if plan.object.is_some() {
        "snatching an object: opposed attack rolls (004:493, 004:497)"
    } else {
        "a disarm: opposed attack rolls (004:493)"
    };
    let weapon =
        crate::rules::attack::disarming::roll_disarm((&mut dice, &mut facts), (&attacker, &target), &rolls, reason)?;
    // Only the attacker's win snatches the object; the defender disarms back a weapon (004:495, 004:497).
    let object = plan.object.filter(|_| weapon.by == attacker.entity);
    Some(Loss { weapon, object })
}

/// A weapon lost: out of the loser's hands, into the disarmer's if it disarmed unarmed, else on the ground
/// at the loser's feet (004:494); or the object snatched into the winner's hand (004:497).
fn lose_weapon(world: &mut World, loss: Loss) {
    let Loss { weapon, object } = loss;
    let Some(object) = object else {
        crate::rules::attack::disarming::lose_weapon(world, weapon);
        return;
    };
    let WeaponLoss { from, by, .. } = weapon;
    let (Some(loser), Some(winner)) = (world.get::<CreatureId>(from).cloned(), world.get::<CreatureId>(by).cloned())
    else {
        return;
    };
    let Some(at) = world.get::<Position>(from).map(|p| p.0) else { return };
    snatch(world, (from, by), &object);
    world.write_message(Fact::Disarmed { creature: loser, by: winner, weapon: object, taken: true, at });
}

/// Takes `object` off `from`'s belt: an item among its items, else a flask among its weapons; what it was.
pub fn take_object(world: &mut World, from: Entity, object: &str) -> (Option<Item>, Option<Weapon>) {
    let item = world.get_mut::<Items>(from).and_then(|mut items| {
        let i = items.0.iter().position(|it| it.name == object)?;
        Some(items.0.remove(i))
    });
    if item.is_some() {
        return (item, None);
    }
    let flask = world.get_mut::<Armament>(from).and_then(|mut armament| {
        let i = armament.0.iter().position(|w| w.name == object && w.splash.is_some())?;
        Some(armament.0.remove(i))
    });
    (None, flask)
}

/// The object passes from `from`'s belt into `by`'s hand (004:497): an item among its items, a flask among
/// its weapons.
fn snatch(world: &mut World, (from, by): (Entity, Entity), object: &str) {
    let (item, flask) = take_object(world, from, object);
    if let Some(item) = item {
        match world.get_mut::<Items>(by) {
            Some(mut items) => items.0.push(item),
            None => {
                world.entity_mut(by).insert(Items(vec![item]));
            }
        }
        return;
    }
    if let Some(flask) = flask {
        take_in_hand(world, by, flask);
    }
}
