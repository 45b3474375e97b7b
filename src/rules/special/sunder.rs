//! Sunder (Destruction d'arme, 004:499-523). With a slashing or bludgeoning weapon, in place of a melee
//! attack, the attacker strikes the weapon its foe holds (004:499). It provokes from the foe unless it has
//! Improved Sunder (004:500). Opposed attack rolls: +4 with a two-handed weapon, -4 with a light one, +4 per
//! size category to the larger (004:501). Won, the attacker rolls its damage as usual, and what passes the
//! weapon's hardness comes off its hit points, the table of 004:505-523 giving both (004:502); lost, no
//! damage (004:503).
//!
//! Our rulings (docs/rulings.md): the sunder is the turn's standard action; the item struck is the foe's first
//! manufactured weapon; a weapon at half its hit points or fewer is broken (-2 on attack and damage rolls,
//! the d20 standard), at 0 destroyed and gone; shields, armour and objects held by AC (004:504) are not
//! played yet.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::Side;
use super::disarm::{disarm_side, held_weapon, melee_attack};
use crate::rules::attack::disarming::{SunderRolls, WeaponDamage};
use crate::rules::attack::{Combatant, CombatantItem, provoke_as};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionBudget, Provoking};

/// Asks to sunder a foe's weapon.
#[derive(Message, Clone, Debug)]
pub struct SunderIntent {
    /// Who strikes.
    pub attacker: Entity,
    /// Whose weapon.
    pub target: Entity,
    /// With which weapon: its first melee weapon if `None`.
    pub weapon: Option<String>,
    /// Strike the foe's shield rather than its weapon (004:499).
    pub shield: bool,
    /// Strike an object the foe carries (a flask, a potion) by its AC rather than its weapon (004:504).
    pub object: Option<String>,
    /// In place of the attack ending a charge (004:457): paid by it, its attack roll at +2.
    pub charge: bool,
}

/// A blow at an object a foe carries, checked and ready (004:504): a plain attack roll against the object's
/// AC, 10 + its size modifier + its bearer's Dexterity modifier.
#[derive(Clone, Debug)]
pub struct ObjectSunderPlan {
    /// The attacker's weapon.
    pub weapon: Weapon,
    /// The object.
    pub object: String,
    /// The attack roll's terms.
    pub modifiers: Vec<Modifier>,
    /// The object's AC and its parts.
    pub armor_class: (i32, Vec<Modifier>),
    /// The damage bonus of the blow.
    pub damage_bonus: i32,
    /// It provokes from the bearer, as attacking a held object does (004:504); not with Improved Sunder.
    pub provokes: bool,
}

/// The size modifier of the objects a creature carries that a blow can strike: vials and flasks, Diminutive
/// (our ruling: the text gives the rule, not the objects' sizes).
pub const CARRIED_OBJECT_SIZE: i32 = 4;
/// The hardness and hit points of a glass vial or flask (our ruling: the table of 004:505-523 gives none).
pub const VIAL: (u32, u32) = (1, 1);

/// Whether `attacker` may strike `object`, carried by `target`, now (004:504): worn armour cannot be
/// destroyed; the object must be carried; the melee attack it replaces must be possible.
pub fn plan_object_sunder(
    ground: &super::Ground<'_, '_, '_>,
    (attacker, target): (&CombatantItem, &CombatantItem),
    (weapon, object, carried): (Option<&str>, &str, &[String]),
    budget: &ActionBudget,
) -> Result<ObjectSunderPlan, Refusal> {
    if matches!(object, "armour" | "armor") {
        return Err(Refusal::new("armour worn by another cannot be destroyed", "004:504"));
    }
    if !carried.iter().any(|o| o == object) {
        return Err(Refusal::new(format!("{} carries no {object}", target.id), "004:504"));
    }
    let attack = melee_attack(ground, (attacker, target), weapon, budget, ("sunder", "004:504"))?;
    let dex = ability_modifier(target.in_play().dex);
    let parts = vec![
        Modifier::new(10, "base"),
        Modifier::new(CARRIED_OBJECT_SIZE, "a Diminutive object (our ruling)"),
        Modifier::new(dex, "its bearer's Dex (004:504)"),
    ];
    let modifiers: Vec<Modifier> =
        attack.modifiers.iter().filter(|m| !m.source.starts_with("flanking")).cloned().collect();
    Ok(ObjectSunderPlan {
        damage_bonus: attack.damage_modifiers.iter().map(|m| m.value).sum(),
        provokes: !attacker.feats.has(Feat::ImprovedSunder),
        weapon: attack.weapon,
        object: object.to_string(),
        modifiers,
        armor_class: (10 + CARRIED_OBJECT_SIZE + dex, parts),
    })
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<SunderIntent>();
    app.add_systems(
        Rules,
        (sunder_at_the_end_of_a_charge, resolve_sunders)
            .chain()
            .in_set(RulesSystems::Act)
            .after(super::disarm::resolve_disarms),
    );
}

/// A charge that ends in a sunder sunders (004:457, 004:499).
fn sunder_at_the_end_of_a_charge(
    mut ended: MessageReader<crate::rules::turns::moving::ChargeEnded>,
    mut sunders: MessageWriter<SunderIntent>,
) {
    for charge in ended.read() {
        if let crate::rules::turns::moving::ChargeFinish::Sunder { shield } = charge.finish {
            sunders.write(SunderIntent {
                attacker: charge.charger,
                target: charge.target,
                weapon: charge.weapon.clone(),
                shield,
                object: None,
                charge: true,
            });
        }
    }
}

/// A sunder checked and ready.
#[derive(Clone, Debug)]
pub struct SunderPlan {
    /// The attacker's weapon.
    pub weapon: Weapon,
    /// The weapon struck.
    pub item: Weapon,
    /// Its hardness and full hit points (004:505-523).
    pub toughness: (u32, u32),
    /// The attacker's attack roll (004:501).
    pub attacker: Side,
    /// The defender's.
    pub defender: Side,
    /// The damage bonus of the attacker's blow.
    pub damage_bonus: i32,
    /// Without Improved Sunder it provokes from the foe (004:500).
    pub provokes: bool,
    /// The shield struck, in place of the weapon (004:499): `item` is then the weapon the defender rolls with.
    pub shield: Option<Shield>,
}

impl SunderPlan {
    /// The name of the object struck.
    pub fn struck(&self) -> &str {
        self.shield.map_or(self.item.name.as_str(), |s| s.kind.name())
    }

    /// Its hit points left before the blow.
    pub fn hit_points_left(&self) -> u32 {
        let lost = self.shield.map_or(self.item.hit_points_lost, |s| s.hit_points_lost);
        self.toughness.1.saturating_sub(lost)
    }
}

impl SunderPlan {
    /// The chance to win the opposed rolls.
    pub fn chance(&self) -> f32 {
        self.attacker.chance_against(&self.defender)
    }
}

/// Whether `attacker` may sunder `target`'s weapon now, and how.
pub fn plan_sunder(
    ground: &super::Ground<'_, '_, '_>,
    (attacker, target): (&CombatantItem, &CombatantItem),
    (weapon, shield): (Option<&str>, Option<Option<Shield>>),
    budget: &ActionBudget,
) -> Result<SunderPlan, Refusal> {
    let (item, toughness, struck_shield) = match shield {
        // Its shield: the defender rolls with its weapon (004:501), else its unarmed strike.
        Some(carried) => {
            let Some(carried) = carried else {
                return Err(Refusal::new(format!("{} carries no shield", target.id), "004:499"));
            };
            let rolling = held_weapon(target)
                .or_else(|| target.armament.ready().find(|w| !is_ranged(w)).cloned())
                .ok_or_else(|| Refusal::new(format!("{} has nothing to parry with", target.id), "004:501"))?;
            (rolling, carried.kind.hardness_and_hit_points(), Some(carried))
        }
        None => {
            let Some((item, toughness)) = held_weapon(target).and_then(|w| w.toughness().map(|t| (w, t))) else {
                return Err(Refusal::new(
                    "it holds no weapon to strike: natural weapons cannot be sundered",
                    "004:499",
                ));
            };
            (item, toughness, None)
        }
    };
    let attack = melee_attack(ground, (attacker, target), weapon, budget, ("sunder", "004:499"))?;
    if !attack.weapon.sunders {
        return Err(Refusal::new(
            format!("the {} neither slashes nor bludgeons: it cannot sunder", attack.weapon.name),
            "004:499",
        ));
    }
    let mut side = disarm_side(attacker, &attack.weapon, target, true);
    ground.at_blow(&mut side.terms);
    ground.charging(&mut side);
    Ok(SunderPlan {
        attacker: side,
        defender: disarm_side(target, &item, attacker, true),
        damage_bonus: attack.damage_modifiers.iter().map(|m| m.value).sum(),
        provokes: !attacker.feats.has(Feat::ImprovedSunder),
        weapon: attack.weapon,
        item,
        toughness,
        shield: struck_shield,
    })
}

/// Carries out sunder intents: checked and paid for, the foe's attack of opportunity, the opposed rolls,
/// then the damage past the hardness.
pub(super) fn resolve_sunders(world: &mut World, mut intents: Local<MessageCursor<SunderIntent>>) {
    let read: Vec<SunderIntent> = intents.read(world.resource::<Messages<SunderIntent>>()).cloned().collect();
    for intent in read {
        if intent.object.is_some() {
            strike_object(world, &intent);
            continue;
        }
        let Ok(Some(plan)) = world.run_system_cached_with(prepare_sunder, intent.clone()) else { continue };
        if plan.provokes && dropped_by_the_foe(world, &intent, "a sunder (004:500)") {
            continue;
        }
        let Ok(Some(lost)) = world.run_system_cached_with(roll_sunder, (intent.clone(), plan.clone())) else {
            continue;
        };
        if plan.shield.is_some() {
            damage_shield(world, intent.target, &plan, lost);
        } else {
            damage_weapon(world, intent.target, &plan, lost);
        }
    }
}

/// The foe's attack of opportunity on the sunderer, `why` it provokes: whether it dropped it.
fn dropped_by_the_foe(world: &mut World, intent: &SunderIntent, why: &'static str) -> bool {
    let provoking = Provoking { only: Some(intent.target), ..Provoking::new(intent.attacker, Action::Sunder, why) };
    provoke_as(world, provoking).dropped
}

/// A blow at a carried object (004:504): checked and paid for, the bearer's attack of opportunity, the attack
/// roll against the object's AC, then the damage past its hardness; a vial or flask at 0 is destroyed.
fn strike_object(world: &mut World, intent: &SunderIntent) {
    let Ok(Some(plan)) = world.run_system_cached_with(prepare_object_sunder, intent.clone()) else { return };
    if plan.provokes && dropped_by_the_foe(world, intent, "attacking a carried object (004:504)") {
        return;
    }
    let Ok(Some(destroyed)) = world.run_system_cached_with(roll_object_sunder, (intent.clone(), plan.clone())) else {
        return;
    };
    if destroyed {
        super::disarm::take_object(world, intent.target, &plan.object);
        let Some(id) = world.get::<CreatureId>(intent.target).cloned() else { return };
        world.write_message(Fact::WeaponDamaged {
            creature: id,
            weapon: plan.object.clone(),
            left: 0,
            state: Some("destroyed (004:502)".into()),
        });
    }
}

/// Checks a blow at a carried object and pays its standard action, or writes why not.
fn prepare_object_sunder(
    In(intent): In<SunderIntent>,
    mut planning: super::Planning,
    items: Query<&Items>,
) -> Option<ObjectSunderPlan> {
    let weapon = intent.weapon.clone();
    let object = intent.object.clone().unwrap_or_default();
    let carried_items = items.get(intent.target).ok().cloned();
    planning.plan_and_pay_blow(
        (intent.attacker, intent.target),
        (Action::Sunder, intent.charge),
        Box::new(move |g, pair, budget| {
            let carried = super::disarm::snatchable(pair.1, carried_items.as_ref());
            plan_object_sunder(g, pair, (weapon.as_deref(), &object, &carried), budget)
        }),
    )
}

/// The attack roll against the object's AC and, on a hit, the damage past its hardness (004:504, 004:502):
/// whether the object is destroyed.
fn roll_object_sunder(
    In((intent, plan)): In<(SunderIntent, ObjectSunderPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) -> Option<bool> {
    let (attacker, target) = (creatures.get(intent.attacker).ok()?, creatures.get(intent.target).ok()?);
    let roll = dice.d20();
    let bonus = plan.modifiers.iter().map(|m| m.value).sum();
    let (armor_class, parts) = plan.armor_class.clone();
    let judged = crate::rules::attack::roll::judge_attack(roll, bonus, armor_class, 21);
    facts.write(Fact::AttackRolled {
        attacker: attacker.id.clone(),
        target: target.id.clone(),
        weapon: plan.weapon.name.clone(),
        roll,
        modifiers: plan.modifiers.clone(),
        total: judged.total,
        armor_class,
        armor_class_parts: parts,
        hit: judged.hit,
        threat: false,
    });
    if !judged.hit {
        return Some(false);
    }
    let (hardness, hit_points) = VIAL;
    let lost = crate::rules::attack::disarming::blow_past_hardness(
        (&mut dice, &mut facts),
        (&attacker, &target),
        (&plan.weapon, plan.damage_bonus),
        (&plan.object, hardness),
    );
    Some(lost >= hit_points)
}

/// Checks a sunder and pays its standard action, or writes why not.
fn prepare_sunder(
    In(intent): In<SunderIntent>,
    mut planning: super::Planning,
    shields: Query<&Shield>,
) -> Option<SunderPlan> {
    let weapon = intent.weapon.as_deref();
    let shield = intent.shield.then(|| shields.get(intent.target).ok().copied());
    planning.plan_and_pay_blow(
        (intent.attacker, intent.target),
        (Action::Sunder, intent.charge),
        Box::new(move |g, pair, budget| plan_sunder(g, pair, (weapon, shield), budget)),
    )
}

/// The opposed rolls (004:501) and, won, the damage rolled as usual (004:502): the hit points the weapon
/// loses past its hardness.
fn roll_sunder(
    In((intent, plan)): In<(SunderIntent, SunderPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) -> Option<u32> {
    let (attacker, target) = (creatures.get(intent.attacker).ok()?, creatures.get(intent.target).ok()?);
    let rolls = SunderRolls {
        attacker: plan.attacker.clone(),
        defender: plan.defender.clone(),
        weapon: plan.weapon.clone(),
        damage_bonus: plan.damage_bonus,
        struck: plan.struck().to_string(),
        hardness: plan.toughness.0,
    };
    crate::rules::attack::disarming::roll_sunder(
        (&mut dice, &mut facts),
        (&attacker, &target),
        &rolls,
        "a sunder: opposed attack rolls (004:501)",
    )
}

/// The weapon loses `lost` hit points: broken at half (our ruling), destroyed and gone at 0 (004:502).
fn damage_weapon(world: &mut World, holder: Entity, plan: &SunderPlan, lost: u32) {
    let (_, hit_points) = plan.toughness;
    let weapon = plan.item.name.clone();
    crate::rules::attack::disarming::damage_weapon(world, WeaponDamage { holder, weapon, hit_points, lost });
}

/// The shield loses `lost` hit points: broken at half, it gives half its bonus; destroyed at 0, none, and is
/// gone (004:502; our ruling for the broken shield after the d20 standard).
fn damage_shield(world: &mut World, holder: Entity, plan: &SunderPlan, lost: u32) {
    let Some(id) = world.get::<CreatureId>(holder).cloned() else { return };
    let Some(mut shield) = world.get::<Shield>(holder).copied() else { return };
    let (_, hit_points) = plan.toughness;
    let was_broken = 2 * shield.hit_points_lost >= hit_points;
    shield.hit_points_lost += lost;
    let left = hit_points.saturating_sub(shield.hit_points_lost);
    let broken = 2 * shield.hit_points_lost >= hit_points;
    let (bonus, state) = if left == 0 {
        world.entity_mut(holder).remove::<Shield>();
        (0, Some("destroyed (004:502)"))
    } else {
        world.entity_mut(holder).insert(shield);
        let state = (broken && !was_broken).then_some("broken: half its AC bonus (our ruling)");
        (shield.armor_class(), state)
    };
    if let Some(mut defense) = world.get_mut::<Defense>(holder) {
        defense.shield = bonus;
    }
    world.write_message(Fact::WeaponDamaged {
        creature: id,
        weapon: shield.kind.name().to_string(),
        left,
        state: state.map(str::to_string),
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::core::creature::{Handling, Make, ShieldKind, hardness_and_hit_points};

    #[test]
    fn the_shields_of_the_hardness_table_004_518_523() {
        let rows = [
            (ShieldKind::Buckler, (10, 5)),
            (ShieldKind::LightWooden, (5, 7)),
            (ShieldKind::HeavyWooden, (5, 15)),
            (ShieldKind::LightSteel, (10, 10)),
            (ShieldKind::HeavySteel, (10, 20)),
            (ShieldKind::Tower, (5, 20)),
        ];
        for (kind, expected) in rows {
            assert_eq!(kind.hardness_and_hit_points(), expected, "{kind:?}");
        }
    }

    #[test]
    fn the_hardness_table_row_by_row_004_505_523() {
        let rows = [
            (Make::Blade, Handling::Light, (10, 2)),
            (Make::Blade, Handling::OneHanded, (10, 5)),
            (Make::Blade, Handling::TwoHanded, (10, 10)),
            (Make::MetalHaft, Handling::Light, (10, 10)),
            (Make::MetalHaft, Handling::OneHanded, (10, 20)),
            (Make::WoodHaft, Handling::Light, (5, 2)),
            (Make::WoodHaft, Handling::OneHanded, (5, 5)),
            (Make::WoodHaft, Handling::TwoHanded, (5, 10)),
            (Make::Projectile, Handling::TwoHanded, (5, 5)),
        ];
        for (make, handling, expected) in rows {
            assert_eq!(hardness_and_hit_points(make, handling), expected, "{make:?} {handling:?}");
        }
    }
}
