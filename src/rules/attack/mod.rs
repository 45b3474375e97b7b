//! Attacks and damage (004:1-43, 004:164-189): a single attack as a standard action, melee or ranged,
//! every modifier named, criticals confirmed, damage handed to the health chapter.

pub mod disarming;
pub mod gear;
pub mod hiding;
pub mod manoeuvre;
pub mod poison;
pub mod roll;
pub mod underwater;

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

pub use crate::rules::core::cover::{self, Bystander, Cover, concealment, melee_cover, ranged_cover};
pub use roll::*;

use crate::rules::core::altitude::{vertical_reach, vertical_steps};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{Save, roll_save};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Diagonals, Footprint, Square};
use crate::rules::core::names::Action;
use crate::rules::core::reach::{WeaponReach, melee_reaches, melee_reaches_at_height, threatening_weapons};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::moving::{Pace, RiderAct, RiderActed};
use crate::rules::turns::{
    ActionBudget, ActionKind, BegunAction, FullAttackUnderway, FullRoundBegun, MidAction, Provoking, Strain, TurnOrder,
};

/// Asks for a single attack (a standard action) against a target.
#[derive(Message, Clone, Debug)]
pub struct AttackIntent {
    /// The attacker.
    pub attacker: Entity,
    /// The target.
    pub target: Entity,
    /// The weapon by name; `None` uses the first (the first melee weapon for a charge).
    pub weapon: Option<String>,
    /// The attack that ends a charge: its full-round action is already spent; +2 to hit (004:457).
    pub charge: bool,
    /// Fighting defensively: -4 to its attacks this round, +2 dodge to AC until its next turn (004:183).
    pub defensively: bool,
    /// A full attack, a full-round action: every attack its base attack bonus gives, from the best (+6/+1,
    /// +11/+6/+1, …), against the same target (004:229-231, RULES-INDEX).
    pub full: bool,
    /// An unarmed strike meant to deal lethal damage: -4 to hit, none with Improved Unarmed Strike (004:173).
    pub lethal: bool,
    /// A lethal melee weapon meant to deal nonlethal damage: -4 to hit (004:302).
    pub nonlethal: bool,
    /// Power Attack: this much off the melee attack roll, onto its damage (the d20 feat; docs/rulings.md).
    pub power: u32,
    /// A readied attack set off by its trigger: taken out of turn, its standard action already spent
    /// (004:620-622).
    pub readied: bool,
    /// A full attack with two weapons: the main hand's iterative attacks and one attack with the weapon
    /// held in the off hand, each at the penalty of the two-weapon table (004:462-472).
    pub two_weapons: bool,
    /// For a full attack, at most this many blows now; the rest stay underway, to be taken by the next
    /// full-attack intent or given up for a move action (004:232). `None`: every blow at once.
    pub blows: Option<u32>,
    /// The claw of a dive attack: its action already spent, damage doubled (004:753).
    pub dive: bool,
    /// The claw of a swoop: damage doubled, with the standard action (004:751).
    pub swoop: bool,
    /// The hoof of a mount that tramples the foe its overrun knocked down: no action of its own (004:537).
    pub trample: bool,
    /// The extra attack of Cleave, made as soon as it applies, no action of its own (004:234).
    pub cleave: bool,
}

impl AttackIntent {
    /// One attack (a standard action) with `weapon`, nothing else asked: the other fields say what more.
    pub fn new(attacker: Entity, target: Entity, weapon: Option<String>) -> Self {
        AttackIntent {
            attacker,
            target,
            weapon,
            charge: false,
            defensively: false,
            full: false,
            lethal: false,
            nonlethal: false,
            power: 0,
            readied: false,
            two_weapons: false,
            blows: None,
            dive: false,
            swoop: false,
            trample: false,
            cleave: false,
        }
    }
}

/// Prepares the off-hand blow of a full attack with two weapons and puts the main hand's penalty on
/// `main` (004:462-472). `like` is the main hand's request: fighting defensively or striking to kill
/// unarmed applies to both hands.
#[expect(clippy::too_many_arguments, reason = "prepare_attack's inputs, plus the main hand's plan and request")]
pub fn plan_off_hand(
    field: &Battlefield,
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    attacker: &CombatantItem,
    target: &CombatantItem,
    main: &mut AttackPlan,
    budget: &ActionBudget,
    like: AttackRequest<'_>,
) -> Result<AttackPlan, Refusal> {
    if attacker.conditions.has(Condition::Grappling) {
        return Err(Refusal::new("no fighting with two weapons in a grapple", "004:594"));
    }
    reins_in_hand(order, attacker, &main.weapon, true)?;
    // A double weapon's other head is the off-hand weapon (004:471); a thrown weapon's, one thrown from the
    // other hand (004:472).
    let double = main.weapon.double && !is_ranged(&main.weapon);
    let thrown = is_thrown(&main.weapon);
    if main.weapon.off_hand && !double {
        return Err(Refusal::new(
            format!(
                "the {} is in its off hand: with two weapons, a weapon in its main hand strikes this foe beside it",
                main.weapon.name
            ),
            "004:231, 004:462",
        ));
    }
    let off = if double {
        main.weapon.name.clone()
    } else {
        off_hand_pair(attacker.armament, &main.weapon)
            .map(|w| w.name.clone())
            .ok_or_else(|| Refusal::new(format!("{} holds no weapon in its off hand", attacker.id), "004:462"))?
    };
    let request = AttackRequest {
        weapon: Some(off.as_str()),
        full: true,
        paid: true,
        defensively: like.defensively,
        lethal: like.lethal,
        nonlethal: like.nonlethal,
        power: like.power,
        ..default()
    };
    let mut off_plan = prepare_attack(field, order, creatures, attacker, target, request, budget)?;
    if thrown || (!double && off == main.weapon.name) {
        // Found by name, the plan may have taken the main hand's like weapon (two daggers, two javelins): this
        // one is the off hand's.
        let handling = off_plan.weapon.handling;
        held_as(&mut off_plan, attacker.abilities, handling, true);
    }
    if double {
        // Each head held as in one hand: the main head's Str x1, the other's x0.5 in the off hand, Power
        // Attack as a one-handed and a light weapon (our ruling, docs/rulings.md).
        held_as(main, attacker.abilities, Handling::OneHanded, false);
        held_as(&mut off_plan, attacker.abilities, Handling::Light, true);
    }
    let light = off_plan.weapon.handling == Handling::Light || off_plan.weapon.unarmed;
    let (main_penalty, off_penalty) = two_weapon_penalties(light, attacker.feats.has(Feat::TwoWeaponFighting));
    main.modifiers.push(Modifier::new(main_penalty, "two weapons, main hand (004:467-470)"));
    off_plan.modifiers.push(Modifier::new(off_penalty, "two weapons, off hand (004:467-470)"));
    Ok(off_plan)
}

/// `plan`'s weapon held as `handling`, in the off hand or not: its Strength term (004:24-26) and its Power
/// Attack damage written again.
fn held_as(plan: &mut AttackPlan, abilities: &Abilities, handling: Handling, off_hand: bool) {
    plan.weapon.handling = handling;
    plan.weapon.off_hand = off_hand;
    plan.damage_modifiers.retain(|m| !m.source.starts_with("Str"));
    if let Some(strength) = strength_to_damage(abilities, &plan.weapon) {
        plan.damage_modifiers.insert(0, strength);
    }
    let traded = plan.modifiers.iter().find(|m| m.source == "Power Attack").map(|m| -m.value);
    if let Some(n) = traded {
        plan.damage_modifiers.retain(|m| m.source != "Power Attack");
        let damage = power_damage(&plan.weapon, n);
        if damage != 0 {
            plan.damage_modifiers.push(Modifier::new(damage, "Power Attack"));
        }
    }
}

/// What a grapple leaves of an attack (004:594, 004:613-614): a grappler strikes only those it grapples,
/// unarmed, with a natural weapon or a light one, at -4; pinned, it strikes no one. One who is not
/// grappling attacks a grappler as any foe. (Pinning a foe, it uses no weapon against anyone: checked where
/// every creature is known, [`prepare_attack`].)
pub fn in_a_grapple(
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
    modifiers: &mut Vec<Modifier>,
) -> Result<(), Refusal> {
    if !attacker.conditions.has(Condition::Grappling) {
        return Ok(());
    }
    crate::rules::core::creature::not_pinned(attacker.conditions)?;
    if !Grapple::holds(attacker.grapple, target.entity) {
        return Err(Refusal::new("grappling, it can strike only those it grapples", "004:594"));
    }
    if !(weapon.natural || weapon.unarmed || weapon.handling == Handling::Light) || is_ranged(weapon) {
        return Err(Refusal::new(
            format!("in a grapple it strikes unarmed, with a natural weapon or a light one, not the {}", weapon.name),
            "004:594",
        ));
    }
    modifiers.push(Modifier::new(-4, "in a grapple (004:594)"));
    Ok(())
}

/// Whether a creature's full attack with `main` (its first weapon ready if none is named) strikes with two
/// weapons (004:462): it holds a weapon in its off hand that pairs with it ([`pairs_with`]), or `main` is a
/// double weapon (004:471) and it has Two-Weapon Fighting (without the feat the other head's -4/-8 is seldom
/// worth it: our ruling, docs/rulings.md). The bar, the previews and the AI ask the same.
pub fn fights_with_two_weapons(armament: &Armament, feats: &Feats, main: Option<&str>) -> bool {
    two_weapons_with(armament, main, |double| !double || feats.has(Feat::TwoWeaponFighting))
}

/// Whether a full attack with `main` could strike with two weapons at all (004:462, 004:471-472): a double
/// weapon, or a weapon in the off hand that pairs with it. The player chooses between one and two.
pub fn could_fight_with_two_weapons(armament: &Armament, main: Option<&str>) -> bool {
    two_weapons_with(armament, main, |_| true)
}

/// Whether `main` (the first weapon ready if none is named) has a second weapon beside it, a double weapon's
/// other head (taken if `take(true)`) or an off-hand weapon that pairs with it (if `take(false)`).
fn two_weapons_with(armament: &Armament, main: Option<&str>, take: impl Fn(bool) -> bool) -> bool {
    let Some(main) = armament.ready().find(|w| main.is_none_or(|m| w.name == m)) else { return false };
    (main.double && !is_ranged(main) && take(true)) || (off_hand_pair(armament, main).is_some() && take(false))
}

/// The weapon `name`d, if it is the one held in the off hand.
fn off_hand_named<'a>(armament: &'a Armament, name: Option<&str>) -> Option<&'a Weapon> {
    name.and_then(|n| armament.chosen(Some(n))).filter(|w| w.off_hand)
}

/// The weapon held in the off hand that strikes beside `main` (not `main` itself, the off hand's weapon
/// planned as the main blow: it strikes once, 004:462).
fn off_hand_pair<'a>(armament: &'a Armament, main: &Weapon) -> Option<&'a Weapon> {
    armament.ready().find(|w| w.off_hand && !(main.off_hand && w.name == main.name) && pairs_with(main, w))
}

/// Whether a full attack strikes with two weapons: as the player chose, if it could, else the default.
pub fn with_two_weapons(armament: &Armament, feats: &Feats, main: Option<&str>, chosen: Option<bool>) -> bool {
    match chosen {
        Some(two) => two && could_fight_with_two_weapons(armament, main),
        None => fights_with_two_weapons(armament, feats, main),
    }
}

/// Whether `off`, in the off hand, strikes beside `main` in a full attack with two weapons: melee beside
/// melee (004:462), hurled beside hurled (004:472: « une arme de jet dans chaque main », the sling among
/// them). A bow or a crossbow pairs with nothing.
pub fn pairs_with(main: &Weapon, off: &Weapon) -> bool {
    match (hurled(main), hurled(off)) {
        (true, true) => true,
        (false, false) => !is_ranged(main) && !is_ranged(off),
        _ => false,
    }
}

/// A weapon hurled from one hand: thrown, or a sling, which 004:472 counts among them (« la fronde … à une
/// main »).
fn hurled(weapon: &Weapon) -> bool {
    is_thrown(weapon) || (matches!(weapon.delivery, Delivery::Projectile { .. }) && weapon.name == "sling")
}

/// A weapon thrown by hand (not a splash weapon, which has its own rules, 004:528).
fn is_thrown(weapon: &Weapon) -> bool {
    matches!(weapon.delivery, Delivery::Thrown { .. }) && weapon.splash.is_none()
}

/// The penalties of fighting with two weapons, main hand then off hand (004:467-470): -6/-10, a light
/// off-hand weapon -4/-8, with Two-Weapon Fighting -4/-4, both -2/-2.
pub fn two_weapon_penalties(off_hand_light: bool, feat: bool) -> (i32, i32) {
    match (off_hand_light, feat) {
        (false, false) => (-6, -10),
        (true, false) => (-4, -8),
        (false, true) => (-4, -4),
        (true, true) => (-2, -2),
    }
}

/// Delivers a coup de grâce: a full-round action against a helpless foe, with a melee weapon or a bow or
/// crossbow from an adjacent square; it hits and is a critical; the foe then saves (Fortitude, DC 10 + the
/// damage) or dies (004:424-427).
#[derive(Message, Clone, Debug)]
pub struct CoupDeGraceIntent {
    /// Who strikes.
    pub attacker: Entity,
    /// The helpless foe.
    pub target: Entity,
    /// The weapon by name; the first if absent.
    pub weapon: Option<String>,
    /// Lethal damage declared with an unarmed strike (004:173).
    pub lethal: bool,
}

/// Stands up from prone (a move action that provokes, 004:225) or drops prone (a free action, 004:255).
#[derive(Message, Clone, Debug)]
pub struct StanceIntent {
    /// Who.
    pub creature: Entity,
    /// `true` to stand up, `false` to drop prone.
    pub stand_up: bool,
    /// Taken as a readied action, outside its turn (004:621).
    pub readied: bool,
}

/// Takes the total defence: a standard action, +4 to AC until the next turn, no attacks of opportunity
/// (004:211).
#[derive(Message, Clone, Debug)]
pub struct TotalDefenseIntent {
    /// Who defends.
    pub creature: Entity,
    /// A readied total defence set off by its trigger: out of turn, its action already spent (004:621).
    pub readied: bool,
}

/// The base attack of each blow an attack with `weapon` strikes: for a full attack one per iterative
/// attack, except with a crossbow whose loading takes an action, which shoots once a round (004:120,
/// 004:137); otherwise the one.
pub fn blow_bonuses(attacker: &CombatantItem, weapon: &Weapon, full: bool) -> Vec<i32> {
    let base = attacker.base_attack.0;
    let rapid = attacker.feats.has(Feat::RapidReload);
    if full && weapon.natural {
        // « une attaque à outrance à l'aide de toutes ses armes naturelles » (004:696): each natural weapon
        // once (a secondary one at 5 less, a term of its own), no iterative attacks.
        return vec![base; natural_weapons(attacker.armament).len().max(1)];
    }
    if full && !crate::rules::core::gear::one_shot_a_round(weapon, rapid) {
        iterative_bonuses(base)
    } else {
        vec![base]
    }
}

/// A creature's natural weapons, each as many times as it has of them (two claws): the blows of a full
/// attack made with them (004:696), the primary ones first.
pub fn natural_weapons(armament: &Armament) -> Vec<&Weapon> {
    let (primary, secondary): (Vec<&Weapon>, Vec<&Weapon>) =
        armament.ready().filter(|w| w.natural).partition(|w| !w.secondary);
    primary.into_iter().chain(secondary).flat_map(|w| std::iter::repeat_n(w, w.count.max(1) as usize)).collect()
}

/// The attack bonuses of a full attack: the base attack bonus, then 5 less for each further attack while
/// it stays above 0 (RULES-INDEX: +6/+1, +11/+6/+1).
pub fn iterative_bonuses(base_attack: i32) -> Vec<i32> {
    let mut out = vec![base_attack];
    let mut next = base_attack.saturating_sub(5);
    // A base attack is at most +60 (checked where creatures are read): 12 blows; never more, whatever comes.
    while next > 0 && out.len() < 12 {
        out.push(next);
        next -= 5;
    }
    out
}

/// Point Blank Shot works within 9 m.
pub const POINT_BLANK_M: f32 = 9.0;

/// Attacks and damage.
pub fn plugin(app: &mut App) {
    app.add_message::<AttackIntent>().add_message::<TotalDefenseIntent>().add_message::<CoupDeGraceIntent>();
    app.add_message::<StanceIntent>().add_message::<Damage>().add_message::<Slay>();
    app.add_message::<manoeuvre::PulledDown>();
    hiding::plugin(app);
    app.add_systems(Rules, deliver_coups_de_grace.in_set(RulesSystems::Act).after(resolve_attacks));
    app.add_systems(Rules, mark_melee_assailed.in_set(RulesSystems::Record));
    app.add_systems(Rules, change_stances.in_set(RulesSystems::Act).after(deliver_coups_de_grace));
    app.add_message::<gear::HandleIntent>().add_message::<gear::PickUpIntent>().add_message::<gear::ShieldIntent>();
    app.add_systems(
        Rules,
        (gear::handle_weapons, gear::handle_shields, gear::resolve_pick_ups)
            .chain()
            .in_set(RulesSystems::Act)
            .after(change_stances),
    );
    app.add_systems(
        Rules,
        (take_total_defense, hiding::hide_on_foot)
            .chain()
            .in_set(RulesSystems::Act)
            .after(crate::rules::turns::ready::ReadySystems)
            .before(crate::rules::turns::moving::MovementSystems),
    );
    app.add_systems(
        Rules,
        (attack_at_the_end_of_a_charge, resolve_attacks)
            .chain()
            .in_set(RulesSystems::Act)
            .after(crate::rules::turns::moving::MovementSystems),
    );
    app.add_systems(Rules, end_full_attacks.in_set(RulesSystems::Turns).after(crate::rules::turns::ready::lapse));
    app.add_systems(Rules, cleave.in_set(RulesSystems::Turns).before(crate::rules::turns::TurnSystems));
}

/// The round of a creature's last Cleave: one a round.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cleaved(pub u32);

/// Cleave (the d20 feat; 004:234 says its extra attack comes as soon as it applies): a melee blow that drops
/// its foe (dying, unconscious or dead) gives its striker, once a round, an extra melee attack with the same
/// weapon on another foe within reach, no action of its own; the foe within reach with the fewest hit
/// points, ties by id (our ruling: the game chooses for the player).
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
fn cleave(
    mut facts: MessageReader<Fact>,
    mut attacks: MessageWriter<AttackIntent>,
    (order, field): (Res<TurnOrder>, Res<Battlefield>),
    roster: Res<Roster>,
    creatures: Query<Combatant, With<Creature>>,
    cleaved: Query<&Cleaved>,
    (mut commands, mut unsettled): (Commands, ResMut<crate::rules::core::systems::Unsettled>),
    mut last: Local<Option<(CreatureId, CreatureId, String)>>,
) {
    for fact in facts.read() {
        match fact {
            Fact::AttackRolled { attacker, target, weapon, hit, .. } => {
                *last = hit.then(|| (attacker.clone(), target.clone(), weapon.clone()));
            }
            // Only the blow's own damage drops its foe for Cleave: another's damage, a breath, a spell or
            // a new turn between the two leaves it to what dealt it.
            Fact::DamageDealt { attacker, target, .. }
                if last.as_ref().is_some_and(|(a, t, _)| a != attacker || t != target) =>
            {
                *last = None;
            }
            Fact::Breathed { .. } | Fact::CastingBegun { .. } | Fact::TurnStarted { .. } | Fact::TurnEnded { .. } => {
                *last = None;
            }
            Fact::ConditionGained { creature, condition } if DROPPED.contains(condition) => {
                let Some((attacker, target, weapon)) = last.clone().filter(|(_, t, _)| t == creature) else { continue };
                *last = None;
                let Some(a) = roster.get(&attacker.0).and_then(|e| creatures.get(e).ok()) else { continue };
                let melee = a.armament.0.iter().find(|w| w.name == weapon).filter(|w| !is_ranged(w)).cloned();
                let Some(melee) = melee else { continue };
                // Once a round with Cleave; as often as a foe drops with Great Cleave (004:234).
                let once_more = !cleaved.get(a.entity).is_ok_and(|c| c.0 == order.round);
                if !(a.feats.has(Feat::GreatCleave) || (a.feats.has(Feat::Cleave) && once_more)) {
                    continue;
                }
                // The foes the rules let it strike now with that weapon: reach, height, sight (one predicate).
                // « dès qu'elle s'applique » (004:234): in its own turn or another's (an attack of
                // opportunity, a readied blow).
                let request =
                    AttackRequest { weapon: Some(&melee.name), paid: true, anytime: true, ..Default::default() };
                let budget = ActionBudget::default();
                // Not the rider of a mount that cannot fly on: it falls with it, out of this blow's way.
                let falling = |c: &CombatantItem| {
                    c.riding.and_then(|r| creatures.get(r.0).ok()).is_some_and(|mount| {
                        mount.in_the_air() && (!mount.conditions.can_act() || mount.id.0 == target.0)
                    })
                };
                let mut next: Vec<CombatantItem> = creatures
                    .iter()
                    .filter(|c| c.faction != a.faction && c.id != &target && c.conditions.can_act())
                    .filter(|c| !falling(c))
                    .filter(|c| prepare_attack(&field, &order, &creatures, &a, c, request, &budget).is_ok())
                    .collect();
                next.sort_by(|x, y| (x.hit_points.current, x.id).cmp(&(y.hit_points.current, y.id)));
                let Some(foe) = next.first() else { continue };
                commands.entity(a.entity).insert(Cleaved(order.round));
                attacks.write(AttackIntent {
                    cleave: true,
                    ..AttackIntent::new(a.entity, foe.entity, Some(weapon.clone()))
                });
                // « dès qu'elle s'applique »: struck in this same pass of the rules, before anything else the
                // creature does.
                unsettled.0 = true;
            }
            _ => {}
        }
    }
}

/// A charge ends in one melee attack, at +2 (004:457): its full-round action is already spent. A mount that
/// charged to where its rider's reach weapon strikes (a lance, 004:478) leaves the blow to its rider, its
/// own not reaching there (our ruling, docs/rulings.md); so does a ridden flier in the air, which strikes
/// no blow of its own (004:656, 004:812).
fn attack_at_the_end_of_a_charge(
    mut ended: MessageReader<crate::rules::turns::moving::ChargeEnded>,
    mut attacks: MessageWriter<AttackIntent>,
    riders: Query<&Riders>,
    gear: Query<&Armament>,
    aloft: Query<(&Speed, &Altitude)>,
) {
    use crate::rules::turns::moving::charges_with_reach;
    for charge in ended.read().filter(|c| c.finish == crate::rules::turns::moving::ChargeFinish::Attack) {
        let ridden = riders.get(charge.charger).is_ok_and(|r| !r.all().is_empty());
        if ridden && aloft.get(charge.charger).is_ok_and(|(s, a)| crate::rules::core::creature::flying(s, a.0)) {
            continue;
        }
        let rider = riders.get(charge.charger).ok().and_then(|r| r.all().first()).and_then(|r| gear.get(*r).ok());
        if let (Ok(own), Some(rider)) = (gear.get(charge.charger), rider)
            && charges_with_reach(own, Some(rider), charge.weapon.as_deref()).long()
            && !charges_with_reach(own, None, charge.weapon.as_deref()).long()
        {
            continue;
        }
        // The weapon named, if the charger holds it ready for a melee blow (004:457).
        let named = charge.weapon.as_deref();
        let weapon = gear
            .get(charge.charger)
            .ok()
            .and_then(|own| crate::rules::turns::moving::charge_weapon(own, named))
            .filter(|w| Some(w.name.as_str()) == named)
            .map(|w| w.name.clone());
        attacks.write(AttackIntent { charge: true, ..AttackIntent::new(charge.charger, charge.target, weapon) });
    }
}

/// A full attack not finished by the end of the turn is over (004:229-232); a full-round action begun and
/// not finished in the next round is lost (004:212).
pub fn end_full_attacks(
    mut commands: Commands,
    order: Res<TurnOrder>,
    underway: Query<Entity, With<FullAttackUnderway>>,
    begun: Query<(Entity, &CreatureId, &FullRoundBegun)>,
    mut facts: MessageWriter<Fact>,
) {
    for entity in &underway {
        if order.current_entity() != Some(entity) {
            commands.entity(entity).remove::<FullAttackUnderway>();
        }
    }
    for (entity, id, b) in &begun {
        let past = order.round > b.round + 1
            || (order.round == b.round + 1 && order.current_entity() != Some(entity) && {
                let at = order.entries.iter().position(|e| e.entity == entity);
                at.is_some_and(|at| order.current.is_some_and(|now| now > at))
            });
        if past {
            commands.entity(entity).remove::<FullRoundBegun>();
            facts.write(Fact::FullRoundActionLost { creature: id.clone(), action: b.action.action() });
        }
    }
}

/// What an attack needs to know of one creature.
#[derive(bevy::ecs::query::QueryData)]
pub struct Combatant {
    /// The entity.
    pub entity: Entity,
    /// Id.
    pub id: &'static CreatureId,
    /// Side.
    pub faction: &'static Faction,
    /// Size.
    pub size: &'static Size,
    /// Reach.
    pub reach: &'static Reach,
    /// Position.
    pub position: &'static Position,
    /// Space taken.
    pub space: &'static Space,
    /// Abilities.
    pub abilities: &'static Abilities,
    /// BAB.
    pub base_attack: &'static BaseAttack,
    /// AC parts.
    pub defense: &'static Defense,
    /// Weapons.
    pub armament: &'static Armament,
    /// Feats.
    pub feats: &'static Feats,
    /// Traits.
    pub traits: &'static Traits,
    /// Conditions.
    pub conditions: &'static Conditions,
    /// Hit points.
    pub hit_points: &'static HitPoints,
    /// Base saves.
    pub saves: &'static Saves,
    /// Height above the ground (higher ground, 004:377).
    pub altitude: &'static Altitude,
    /// Where it faces (a flier's blind spot, 004:675).
    pub heading: &'static Heading,
    /// Its speeds (whether it flies, and how well).
    pub speed: &'static Speed,
    /// Its seat, if it rides (004:806-815).
    pub seat: Option<&'static crate::rules::core::creature::Seat>,
    /// Its skills (Ride, to stay on its mount when tripped, 004:488).
    pub skills: &'static crate::rules::core::creature::Skills,
    /// Those on its back, if it is a mount.
    pub riders: Option<&'static crate::rules::core::creature::Riders>,
    /// The foes that lost sight of it, if it hid from its pursuers (004:816-817).
    pub hidden: Option<&'static crate::rules::core::creature::Hidden>,
    /// The aid another bonuses it holds (004:444).
    pub aided: Option<&'static Aided>,
    /// The feints it fell for (004:524).
    pub feinted: Option<&'static Feinted>,
    /// The grapple it is in (004:576-618).
    pub grapple: Option<&'static crate::rules::core::creature::Grapple>,
    /// Its shield, which takes a hand unless strapped (004:127, 004:221).
    pub shield: Option<&'static crate::rules::core::creature::Shield>,
    /// The mount it rides, if any.
    pub riding: Option<&'static crate::rules::core::creature::Riding>,
    /// Its last move's action and round: its rider's attacks read it (004:477, 004:479).
    pub last_move: Option<&'static crate::rules::turns::moving::LastMove>,
    /// The squares it paid moving this round.
    pub travelled: Option<&'static crate::rules::turns::moving::Travelled>,
    /// Where it stood along its movement this round: its rider shoots from its halfway point (004:479).
    pub trail: Option<&'static crate::rules::turns::moving::Trail>,
    /// What its rider did this round that its pace must keep to (004:477-480).
    pub rider_acted: Option<&'static RiderActed>,
    /// It hovers in the air (004:708-709).
    pub hovering: Has<crate::rules::core::creature::Hovering>,
    /// Its Ride check this round to guide its mount with its knees, if it made one (004:476).
    pub knees: Option<&'static Knees>,
    /// What its attacks of opportunity do: strike, or trip (004:483, 004:489).
    pub opportunity_choice: Option<&'static manoeuvre::OpportunityChoice>,
    /// It is being attacked in melee: some creature attacked it so and has not had a turn since (004:180).
    pub assailed: Has<MeleeAssailed>,
    /// It holds a touch spell's charge: armed (004:170-171).
    pub holding_charge: Has<crate::rules::core::creature::HoldingCharge>,
}

impl CombatantItem<'_, '_> {
    /// Whether it is a flier in the air, a walker on a ledge not (`creature::flying`).
    pub fn in_the_air(&self) -> bool {
        crate::rules::core::creature::flying(self.speed, self.altitude.0)
    }

    /// Whether its unarmed strike threatens and strikes by opportunity (004:170-171).
    pub fn armed_unarmed(&self) -> bool {
        crate::rules::core::creature::armed_unarmed(self.traits, self.feats, self.holding_charge)
    }

    /// Its abilities as its conditions leave them: Dex 0 helpless or pinned, Dex -4 entangled (004:423,
    /// 004:394, 004:378), for its checks and skills (`creature::abilities_in_play`).
    pub fn in_play(&self) -> Abilities {
        crate::rules::core::creature::abilities_in_play(self.abilities, self.conditions)
    }
}

/// A creature being attacked in melee: the creatures that attacked it in melee and have not had a turn since
/// (« Un personnage inconscient ou immobilisé ... n'est considéré au corps à corps que s'il se fait
/// attaquer », 004:180; docs/rulings.md).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct MeleeAssailed(pub Vec<Entity>);

/// Marks each creature a melee attack is rolled at with its attacker, and takes the attacker off every mark
/// as its next turn begins: whether a creature is being attacked, for the shots into melee (004:180).
fn mark_melee_assailed(
    mut facts: MessageReader<Fact>,
    roster: Option<Res<Roster>>,
    armaments: Query<&Armament>,
    mut marked: Query<(Entity, &mut MeleeAssailed)>,
    mut commands: Commands,
) {
    let Some(roster) = roster else { return };
    // Who attacks whom, as the facts go: the marks as they stand, then each fact in turn.
    let mut marks: std::collections::BTreeMap<Entity, Vec<Entity>> =
        marked.iter().map(|(e, m)| (e, m.0.clone())).collect();
    let before = marks.clone();
    for fact in facts.read() {
        match fact {
            Fact::AttackRolled { attacker, target, weapon, .. } => {
                let (Some(&a), Some(&t)) = (roster.0.get(attacker), roster.0.get(target)) else { continue };
                let ranged = armaments.get(a).is_ok_and(|arm| arm.0.iter().any(|w| &w.name == weapon && is_ranged(w)));
                let by = marks.entry(t).or_default();
                if !ranged && !by.contains(&a) {
                    by.push(a);
                }
            }
            Fact::TurnStarted { creature, .. } => {
                if let Some(&e) = roster.0.get(creature) {
                    marks.values_mut().for_each(|by| by.retain(|x| *x != e));
                }
            }
            _ => {}
        }
    }
    if marks == before {
        return;
    }
    for (target, by) in marks {
        match marked.get_mut(target) {
            Ok((_, _)) if by.is_empty() => {
                commands.entity(target).remove::<MeleeAssailed>();
            }
            Ok((_, mut mark)) => mark.0 = by,
            Err(_) if !by.is_empty() => {
                commands.entity(target).insert(MeleeAssailed(by));
            }
            Err(_) => {}
        }
    }
}

/// A creature's body, as the movement rules meet it (a breath's cone, a grappler's or an overrunner's space).
pub fn body_of(c: &CombatantItem) -> Body {
    Body {
        entity: c.entity,
        id: c.id.clone(),
        faction: c.faction.clone(),
        footprint: c.space.at(c.position.0),
        altitude: c.altitude.0,
        heading: c.heading.0,
        size: *c.size,
        helpless: c.conditions.is_helpless(),
        traits: c.traits.clone(),
    }
}

/// Whether `me` may stand on a space, as a move's end must (000:126-129), the creatures of `ignoring` set
/// aside (a grappler's foe, an overrun's): the refusal says why not.
pub fn may_stand<'a>(
    field: &'a Battlefield,
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
    me: &CombatantItem,
    ignoring: &[Entity],
) -> impl Fn(Footprint) -> Result<(), Refusal> + 'a {
    let occupants = occupants_around(creatures, me, ignoring);
    let mover = crate::rules::movement::mover_of(*me.size, me.speed, me.altitude.0, me.traits, me.skills);
    move |at| {
        let ground = crate::rules::movement::StepWorld { field, occupants: &occupants };
        crate::rules::movement::legal_space(&ground, &mover, at)
    }
}

/// The creatures about `me` as its moves meet them, those in `ignoring` and those riding aside.
pub fn occupants_around<'a>(
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
    me: &CombatantItem,
    ignoring: &[Entity],
) -> Vec<crate::rules::movement::cost::Occupant> {
    let others: Vec<Body> =
        creatures.filter(|c| c.seat.is_none() && !ignoring.contains(&c.entity)).map(|c| body_of(&c)).collect();
    crate::rules::movement::occupants_for(&others, &body_of(me))
}

/// Whether `me` may go from where it stands into the space given, step by step as a move goes (walls, pits,
/// foes' spaces; `way_between`), the creatures in `ignoring` aside: a grappler's way into its foe's space
/// (004:586).
pub fn may_go_into<'a>(
    field: &'a Battlefield,
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
    me: &CombatantItem,
    ignoring: &[Entity],
) -> impl Fn(Footprint) -> Result<(), Refusal> + 'a {
    let occupants = occupants_around(creatures, me, ignoring);
    let mover = crate::rules::movement::mover_of(*me.size, me.speed, me.altitude.0, me.traits, me.skills);
    let from = me.space.at(me.position.0);
    move |to| {
        let ground = crate::rules::movement::StepWorld { field, occupants: &occupants };
        crate::rules::movement::cost::way_between(&ground, &mover, from, to)
            .map_err(|blocked| Refusal::new(blocked.to_string(), blocked.rule()))
    }
}

/// A prepared attack: the modifiers and the AC it is rolled against, or why it cannot be made.
#[derive(Clone, Debug, PartialEq)]
pub struct AttackPlan {
    /// The weapon.
    pub weapon: Weapon,
    /// Attack modifiers with sources.
    pub modifiers: Vec<Modifier>,
    /// The AC aimed at.
    pub armor_class: i32,
    /// Its parts.
    pub armor_class_parts: Vec<Modifier>,
    /// Damage modifiers.
    pub damage_modifiers: Vec<Modifier>,
    /// Miss chance from concealment, in percent (004:407-413).
    pub miss_chance: u32,
    /// An unarmed strike dealing lethal damage (004:173).
    pub lethal: bool,
    /// A lethal weapon dealing nonlethal damage (004:302).
    pub nonlethal: bool,
    /// Damage multipliers besides a critical's, each with its source (a spear set against a charge, x2).
    pub multipliers: Vec<Modifier>,
    /// Extra damage dice, thrown once (004:27).
    pub extra_dice: Vec<crate::rules::core::dice::DiceExpr>,
    /// Half damage: a blow struck in the water (004:637-645).
    pub halved: bool,
    /// A threat must be confirmed by a second roll (004:185); a table may make every threat a critical.
    pub confirm_criticals: bool,
    /// Why its blow deals no damage, if it cannot (a whip against armour, [`whip_stopped`]).
    pub harmless: Option<&'static str>,
}

impl AttackPlan {
    /// Whether its blows deal nonlethal damage: an unarmed strike not made lethal, a whip, a lethal weapon
    /// struck to subdue (004:168, 004:302).
    pub fn deals_nonlethal(&self) -> bool {
        self.nonlethal || self.weapon.nonlethal_blows(self.lethal)
    }

    /// The chance it hits: its bonus against the AC aimed at, concealment's miss chance counted (004:4).
    pub fn chance(&self) -> f32 {
        chance_to_hit(self.modifiers.iter().map(|m| m.value).sum(), self.armor_class, self.miss_chance)
    }

    /// Whether its damage carries a sneak attack's dice (004:27): dice beyond the weapon's own.
    pub fn sneaks(&self) -> bool {
        self.extra_dice.len() > usize::from(self.weapon.extra.is_some())
    }

    /// Its mean damage on a hit, criticals aside: the dice's mean and the modifiers, multiplied, halved in
    /// the water, at least 1 (004:17).
    pub fn mean_damage(&self) -> f32 {
        if self.harmless.is_some() {
            return 0.0;
        }
        let mean = |d: &crate::rules::core::dice::DiceExpr| (d.min() + d.max()) as f32 / 2.0;
        let flat: i32 = self.damage_modifiers.iter().map(|m| m.value).sum();
        let extra: f32 = self.extra_dice.iter().map(mean).sum();
        let multiplier =
            roll::combined_multiplier(&self.multipliers.iter().map(|m| m.value.max(1) as u32).collect::<Vec<_>>())
                as f32;
        let base = (mean(&self.weapon.damage) + flat as f32) * multiplier + extra;
        let base = if self.halved { base / 2.0 } else { base };
        base.max(1.0)
    }
}

/// Where and how an attack is made.
#[derive(Clone, Copy, Debug)]
pub struct AttackSituation<'a> {
    /// The weapon by name; the first (the first melee one for a charge or an attack of opportunity).
    pub weapon: Option<&'a str>,
    /// The attacker's squares.
    pub own: Footprint,
    /// The target's squares at that moment (a mover's squares mid-move).
    pub theirs: Footprint,
    /// One of the attacker's allies stands within 1.5 m of the target (shooting into melee, 004:180-182).
    pub allies_near_target: bool,
    /// The attack ending a charge: +2 (004:457).
    pub charge: bool,
    /// An attack of opportunity: melee only, with a weapon it threatens with (004:62, 004:68).
    pub opportunity: bool,
    /// What the target is doing at that moment that its conditions do not show yet (a mover struck in the
    /// middle of its move); `None` reads its conditions.
    pub mid_action: Option<MidAction>,
    /// The ally with whom the attacker flanks the target, if any (004:417-421).
    pub flanking_with: Option<&'a str>,
    /// The cover the target has from the attacker (004:398-406).
    pub cover: &'a Cover,
    /// The concealment miss chance, in percent (004:407-413).
    pub miss_chance: u32,
    /// The target cannot see the attacker at that moment ([`attacker_unseen`]): its Dex bonus does not
    /// serve it (004:31, 004:379).
    pub unseen: bool,
    /// The scale of the field's squares (004:647-652).
    pub scale: crate::rules::core::altitude::Scale,
    /// The table's switches against the texts (flanking, critical confirmation).
    pub house: crate::rules::core::battlefield::HouseRules,
    /// The water around the attack (004:632-645).
    pub waters: underwater::Waters,
    /// A blow after the one a feint was spent on (004:524): the feint takes no Dex from it.
    pub feint_spent: bool,
}

/// The cover `target` has from `attacker` with `weapon`: the melee rule against an adjacent target, the
/// ranged rule otherwise, a reach weapon's blow at a foe not adjacent too (« on utilise la règle des armes à
/// distance », 004:399), creatures between giving it soft cover (004:398, 004:404).
pub fn cover_against(
    field: &Battlefield,
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon_ranged: bool,
    bystanders: &[Bystander],
) -> Cover {
    let own = (attacker.space.at(attacker.position.0), attacker.altitude.0);
    cover_between(field, own, (target.space.at(target.position.0), target.altitude.0), weapon_ranged, bystanders)
}

/// [`cover_against`] between two footprints at their altitudes: the target's where it stands at that
/// moment (a mover struck in the middle of its move).
pub fn cover_between(
    field: &Battlefield,
    own: (Footprint, i32),
    theirs: (Footprint, i32),
    weapon_ranged: bool,
    bystanders: &[Bystander],
) -> Cover {
    if !weapon_ranged && own.0.touches(theirs.0) {
        crate::rules::core::cover::melee_cover_among(field, (own, theirs), bystanders)
    } else {
        crate::rules::core::cover::ranged_cover_at(field, (own, theirs), bystanders)
    }
}

/// Whether `c` controls the space `theirs` of a creature at `altitude` of `size`: able to act and to
/// threaten, a weapon it threatens with reaching it on the ground and in height, and a line of effect to it
/// (no total cover against its blow, 004:406). « Seul un allié qui est en mesure de porter une attaque de
/// corps à corps sur un adversaire (c'est ce que signifie contrôler l'espace qu'il occupe) » (004:420): the
/// one predicate of flanking (004:417-420), of two creatures in melee for a shot into it (004:180), of a foe
/// engaged with an ally for aid another (004:444) and of a feint's foe in reach.
pub fn controls(field: &Battlefield, c: &CombatantItem, (theirs, altitude, size, high): Placed) -> bool {
    if !c.conditions.can_act() || c.conditions.threatens_nothing() {
        return false;
    }
    // Nothing is struck in a flier's blind spot (004:675-676), as `check_sight` refuses the blow.
    let blind = blind_of(c);
    if !blind.is_empty() && theirs.squares().all(|s| blind.contains(&s)) {
        return false;
    }
    let own = c.space.at(c.position.0);
    let armed = c.armed_unarmed();
    let rise = vertical_steps(field.scale(), c.altitude.0, *c.size, altitude, size);
    // From a high seat on a Huge mount, with reach only, beside the mount; at one, from beside the mount
    // with reach or a weapon beside it (004:814).
    let seats = (rise, c.seat.is_some_and(|s| s.high), high);
    let reaches = threatening_weapons(&c.armament.0, armed).iter().any(|w| {
        let both = (field.diagonals(), field.scale());
        crate::rules::core::reach::melee_reaches_seated(both, c.reach.0, w.reach_kind(), (own, theirs), seats)
    });
    reaches && melee_cover(field, own, theirs) != Cover::Total
}

/// A creature as [`controls`] reads it: its space, height, size and whether it sits high on a Huge mount.
pub type Placed = (Footprint, i32, Size, bool);

/// The space, height and size of `c`, as [`controls`] reads a creature.
pub fn placed(c: &CombatantItem) -> Placed {
    placed_on(c, c.space.at(c.position.0))
}

/// [`placed`] with `c` on `theirs` (a mover struck in the middle of its move).
pub fn placed_on(c: &CombatantItem, theirs: Footprint) -> Placed {
    (theirs, c.altitude.0, *c.size, c.seat.is_some_and(|s| s.high))
}

/// The first ally (by id) with whom `attacker` flanks `target` in melee: an ally that has reach and
/// controls the target's space, on the opposite border (004:417-421). Creatures of reach 0 never flank.
pub fn flanking_ally<'a>(
    field: &Battlefield,
    attacker: &CombatantItem,
    target: &CombatantItem,
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
) -> Option<String> {
    flanking_ally_at(field, attacker, (target, target.space.at(target.position.0)), creatures)
}

/// [`flanking_ally`] against a target standing on `theirs` (a mover struck in the middle of its move). An
/// ally that lost sight of the target (it hid, 004:403) cannot attack it, so does not flank it (004:420).
pub fn flanking_ally_at<'a>(
    field: &Battlefield,
    attacker: &CombatantItem,
    (target, theirs): (&CombatantItem, Footprint),
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
) -> Option<String> {
    let own = attacker.space.at(attacker.position.0);
    let mut allies: Vec<CombatantItem> = able_flankers(field, attacker, (target, theirs), creatures)
        .into_iter()
        .filter(|c| flanks(own, c.space.at(c.position.0), theirs))
        .collect();
    allies.sort_by(|a, b| a.id.cmp(b.id));
    allies.first().map(|c| c.id.0.clone())
}

/// The allies of `attacker` able to flank `target` on `theirs` with it, wherever it stands (004:417-420):
/// of its side, threatening the target (« Seul un allié qui est en mesure de porter une attaque de corps à
/// corps », 004:420: reach, in height, able to act, not lost sight of it), the table playing flanking; the
/// attacker itself able to strike in melee. What [`flanking_ally_at`] and the AI choosing where to stand ask.
pub fn able_flankers<'a>(
    field: &Battlefield,
    attacker: &CombatantItem,
    (target, theirs): (&CombatantItem, Footprint),
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
) -> Vec<CombatantItem<'a, 'a>> {
    // A table that plays without flanking (a house rule) gives none.
    if attacker.reach.0 == 0 || !field.house_rules().flanking {
        return Vec::new();
    }
    let body = placed_on(target, theirs);
    creatures
        .filter(|c| c.entity != attacker.entity && c.entity != target.entity)
        .filter(|c| c.faction == attacker.faction && c.reach.0 > 0)
        .filter(|c| !crate::rules::core::creature::lost_sight(target.hidden, c.entity))
        .filter(|c| controls(field, c, body))
        .collect()
}

/// Prepares an attack of `attacker` on `target`, or says which rule forbids it: the weapon, the target
/// (004:3, 004:38), the attack bonus and the attacker's modifiers (004:372-382), what the attacker can see
/// and reach (004:62-63, 004:174, 004:675-680, 004:783-815), the situation (flanking, charging, squeezing),
/// then the Armor Class with the defender's modifiers and cover (004:383-407).
pub fn plan_attack(
    attacker: &CombatantItem,
    target: &CombatantItem,
    situation: AttackSituation<'_>,
) -> Result<AttackPlan, Refusal> {
    let rise = vertical_steps(situation.scale, attacker.altitude.0, *attacker.size, target.altitude.0, *target.size);
    let weapon = choose_weapon(attacker, &situation, (rise, target.seat.is_some_and(|s| s.high)))?;
    plan_attack_with(attacker, target, weapon, situation)
}

/// [`plan_attack`] with a weapon already chosen, the attacker's own or not (a grappler turning its foe's
/// light weapon against it, 004:609).
pub fn plan_attack_with(
    attacker: &CombatantItem,
    target: &CombatantItem,
    mut weapon: Weapon,
    situation: AttackSituation<'_>,
) -> Result<AttackPlan, Refusal> {
    check_target(attacker, target)?;
    let (attacker_abilities, target_abilities) = (entangled(attacker), entangled(target));
    let mut modifiers =
        attack_bonus(*attacker.base_attack, &attacker_abilities, *attacker.size, attacker.feats, &weapon);
    attacker_modifiers(attacker, (target, situation.waters.target.is_some()), &weapon, &mut modifiers)?;
    let mut damage_modifiers = weapon_damage_terms(attacker, &weapon);
    check_sight(attacker, target, &situation)?;
    reach_and_range(attacker, target, &weapon, &situation, &mut modifiers, &mut damage_modifiers)?;
    situation_modifiers(attacker, &weapon, &situation, &mut modifiers)?;
    let halved = underwater::water_terms(&situation.waters, &weapon, &mut modifiers)?;
    if target.conditions.has(Condition::OffBalance) {
        modifiers.push(Modifier::new(2, "against a foe off balance in the water (004:645)"));
    }
    let (mut armor_class, mut armor_class_parts) =
        defended_armor_class(attacker, target, &target_abilities, &weapon, &situation)?;
    // An ally's aid another: +2 on this attack against the foe it distracted, or +2 AC against that foe's
    // attack (004:444).
    let aid = Aided::bonus(attacker.aided, AidKind::Attack, target.entity);
    if aid != 0 {
        modifiers.push(Modifier::new(aid, AID_ON_ATTACK));
    }
    let aided = Aided::bonus(target.aided, AidKind::Defense, attacker.entity);
    if aided != 0 {
        armor_class += aided;
        armor_class_parts.push(Modifier::new(aided, AID_ON_ARMOR_CLASS));
    }
    if quenched(&weapon, &situation.waters) {
        weapon.extra = None;
        damage_modifiers.push(Modifier::new(0, QUENCHED));
    }
    let mut extra_dice: Vec<crate::rules::core::dice::DiceExpr> = weapon.extra.into_iter().collect();
    if let Some((dice, why)) = sneak_attack(attacker, target, &weapon, &situation) {
        extra_dice.push(dice);
        damage_modifiers.push(Modifier::new(0, format!("sneak attack {dice}: {why} (004:27)")));
    }
    let touch = held_touch(attacker, &weapon, &situation);
    let harmless = touch.or_else(|| whip_stopped(&weapon, target.defense));
    let mut plan = AttackPlan {
        weapon,
        modifiers,
        armor_class,
        armor_class_parts,
        damage_modifiers,
        miss_chance: situation.miss_chance,
        lethal: false,
        nonlethal: false,
        multipliers: Vec::new(),
        extra_dice,
        halved,
        confirm_criticals: situation.house.confirm_criticals,
        harmless,
    };
    if touch.is_some() {
        as_touch_attack(&mut plan);
    }
    Ok(plan)
}

/// Why an attack of opportunity of a caster holding a touch spell's charge, with its bare hand, is the
/// touch that delivers the spell (« le personnage peut porter des attaques d'opportunité », 004:170-171): a
/// touch attack (004:199), the spell its whole effect (the magic chapter delivers it on the hit, 004:201);
/// `None` for any other blow.
fn held_touch(attacker: &CombatantItem, weapon: &Weapon, situation: &AttackSituation<'_>) -> Option<&'static str> {
    // A creature armed without the charge strikes its blow and delivers the spell with it (004:201).
    let armed = crate::rules::core::creature::armed_unarmed(attacker.traits, attacker.feats, false);
    (situation.opportunity && attacker.holding_charge && weapon.unarmed && !armed)
        .then_some("the touch of a charge held delivers its spell, no blow of its own (004:170-171, 004:199)")
}

/// Why a whip's lash hurts nothing: its foe has an armour bonus of +1 or more or a natural armour of +3 or
/// more (the d20 standard's whip; docs/rulings.md).
pub fn whip_stopped(weapon: &Weapon, defense: &Defense) -> Option<&'static str> {
    (weapon.whip && (defense.armor >= 1 || defense.natural >= 3))
        .then_some("a whip deals no damage through an armour bonus of +1 or a natural armour of +3 (docs/rulings.md)")
}

/// The weapon an attack is made with: the one named, if in hand (004:218); else for an attack of
/// opportunity the first it threatens with that reaches (004:62, 004:68), for a charge the first melee
/// weapon ready, otherwise the first ready.
fn choose_weapon(
    attacker: &CombatantItem,
    situation: &AttackSituation<'_>,
    (rise, target_high): (u32, bool),
) -> Result<Weapon, Refusal> {
    let AttackSituation { weapon: weapon_name, own, theirs, charge, opportunity, scale, .. } = *situation;
    // What reaches: across and in height, and a rider's high seat on a Huge mount (004:813-814).
    let seats = (rise, attacker.seat.is_some_and(|s| s.high), target_high);
    let reaches_with = |w: &Weapon| {
        let both = (situation.house.diagonals, scale);
        crate::rules::core::reach::melee_reaches_seated(both, attacker.reach.0, w.reach_kind(), (own, theirs), seats)
    };
    let armed = attacker.armed_unarmed();
    // Into its blind spot a flier strikes with its tail alone (004:676).
    let unseen = unseen_of(attacker);
    let behind = !unseen.is_empty() && theirs.squares().all(|s| unseen.contains(&s));
    let tail = attacker.armament.0.iter().find(|w| crate::rules::core::sight::reaches_blind_spot(w));
    match (behind, tail, weapon_name) {
        (true, Some(_), Some(name)) if tail.is_some_and(|t| t.name != name) => {
            return Err(Refusal::new(format!("only its tail reaches its blind spot, not its {name}"), "004:676"));
        }
        (true, Some(tail), _) => return Ok(tail.clone()),
        _ => {}
    }
    match weapon_name {
        Some(name) => match attacker.armament.0.iter().find(|w| w.name == name) {
            Some(put_away) if put_away.stowed => {
                return Err(Refusal::new(format!("the {name} is not in hand: draw it first"), "004:218"));
            }
            found => found,
        },
        // The weapon that reaches it, across and in height (004:783).
        None if opportunity => threatening_weapons(&attacker.armament.0, armed).into_iter().find(|w| reaches_with(w)),
        None if charge => attacker.armament.ready().find(|w| !is_ranged(w)),
        // None named: the first in hand, unless it is a melee weapon that does not reach and another in hand
        // does (a lance and a short sword against a foe beside it: the sword); never the bare fist while a
        // weapon is held (a longspear against a foe beside it strikes nothing, 004:166).
        None => {
            let reaches = |w: &&Weapon| !is_ranged(w) && !w.unarmed && reaches_with(w);
            let first = attacker.armament.first_in_hand();
            match first {
                Some(w) if !is_ranged(w) && !reaches(&w) => attacker.armament.ready().find(reaches).or(first),
                _ => first,
            }
        }
    }
    .map(|weapon| gripped(attacker, weapon.clone()))
    .ok_or_else(|| Refusal::new(format!("{} has no weapon named {}", attacker.id, weapon_name.unwrap_or("")), "data"))
    .and_then(|weapon| crate::rules::core::gear::check_loaded(&weapon).map(|()| weapon))
}

/// `weapon` as `attacker` holds it to strike: a one-handed weapon in both hands when the other is free
/// (004:26, [`crate::rules::core::gear::grips_in_both_hands`]), but for a rider's, whose other hand holds
/// the reins (004:476; a passenger holds none), or for one whose other hand holds a touch spell's charge
/// (004:201: what that hand touches, the spell strikes).
pub fn gripped(attacker: &CombatantItem, mut weapon: Weapon) -> Weapon {
    let reins = attacker.riding.is_some() && attacker.seat.is_none_or(|s| !s.passenger);
    weapon.two_hands = !reins
        && !attacker.holding_charge
        && crate::rules::core::gear::grips_in_both_hands(attacker.armament, attacker.shield, &weapon);
    weapon
}

/// Whether `target` may be attacked at all: alive, another creature, not at the bottom of a pit, still in
/// sight (004:3, 004:38, docs/rulings.md, 004:816-817).
pub fn check_target(attacker: &CombatantItem, target: &CombatantItem) -> Result<(), Refusal> {
    if target.conditions.has(Condition::Dead) {
        return Err(Refusal::new(format!("{} is dead", target.id), "004:38, 004:271"));
    }
    crate::rules::core::creature::within_the_fight(target.conditions)?;
    if target.entity == attacker.entity {
        return Err(Refusal::new("a creature does not attack itself", "004:3"));
    }
    crate::rules::core::creature::in_sight_of(target.hidden, attacker.entity, target.id)?;
    Ok(())
}

/// A creature's abilities with an entanglement's Dex -4 (004:378): for the attacker's ranged bonus and the
/// defender's AC.
fn entangled(c: &CombatantItem) -> Abilities {
    let mut abilities = *c.abilities;
    if c.conditions.has(Condition::Entangled) {
        abilities.dex -= 4;
    }
    abilities
}

/// The attacker's rows of the attack modifiers table (004:372-382), and the prone archer's refusal.
fn attacker_modifiers(
    attacker: &CombatantItem,
    (target, swimming): (&CombatantItem, bool),
    weapon: &Weapon,
    modifiers: &mut Vec<Modifier>,
) -> Result<(), Refusal> {
    attacker_refusal(attacker, weapon)?;
    in_a_grapple(attacker, target, weapon, modifiers)?;
    attacker_rows(attacker, modifiers);
    // Hidden from its target, it attacks unseen as an invisible attacker does (004:379; docs/rulings.md).
    if unseen_by(attacker, target) {
        modifiers.push(Modifier::new(2, "unseen: hidden from its target (004:379)"));
    }
    if !is_ranged(weapon) && attacker.altitude.0 > target.altitude.0 {
        modifiers.push(Modifier::new(1, "higher ground (004:377)"));
    } else if !swimming && mounted_above(attacker, target, weapon) {
        modifiers.push(Modifier::new(1, "mounted, above a foe on foot (004:477)"));
    }
    Ok(())
}

/// What forbids `attacker` any attack with `weapon`, whatever it aims at: a turned undead (004:549), a
/// hovering flier's wings (004:709). An attack on a creature and a flask thrown at an intersection ask it.
pub fn attacker_refusal(attacker: &CombatantItem, weapon: &Weapon) -> Result<(), Refusal> {
    if attacker.conditions.has(Condition::Turned) {
        return Err(Refusal::new("a turned undead flees and attacks no one", "004:549"));
    }
    // « Elle ne peut pas porter d'attaque à l'aide de ses ailes » (004:709).
    if weapon.wing && attacker.hovering && attacker.altitude.0 > 0 {
        return Err(Refusal::new("hovering, it cannot attack with its wings", "004:709"));
    }
    Ok(())
}

/// The rows of the attacker table that read the attacker alone (004:372-382; the prone row, by its weapon, is
/// among [`stance_rows`]): every attack asks them, a flask thrown at an intersection too (004:529).
pub fn attacker_rows(attacker: &CombatantItem, modifiers: &mut Vec<Modifier>) {
    for (condition, value, source) in [
        (Condition::Dazzled, -1, "dazzled (004:376)"),
        (Condition::Entangled, -2, "entangled (004:378)"),
        (Condition::Invisible, 2, "invisible attacker (004:379)"),
    ] {
        if attacker.conditions.has(condition) {
            modifiers.push(Modifier::new(value, source));
        }
    }
    // One row for both (« est secoué ou effrayé », 004:380): -2 once, shaken and frightened together.
    let (shaken, frightened) =
        (attacker.conditions.has(Condition::Shaken), attacker.conditions.has(Condition::Frightened));
    if shaken || frightened {
        modifiers.push(Modifier::new(-2, if frightened { "frightened (004:380)" } else { "shaken (004:380)" }));
    }
}

/// Whether a rider strikes a foe on foot of Medium size or smaller standing where its mount stands (the
/// ground, or a ledge), from its mount's height: +1 in melee, as from higher ground (004:477). A foe in the
/// water is not on foot: the attack's plan asks that too.
pub fn mounted_above(attacker: &CombatantItem, target: &CombatantItem, weapon: &Weapon) -> bool {
    !is_ranged(weapon)
        && attacker.seat.is_some()
        && attacker.altitude.0 == target.altitude.0
        && target.seat.is_none()
        && !target.in_the_air()
        && *target.size <= Size::Medium
}

/// Whether the attacker can see and strike the target's squares: not in a flier's blind spot (004:675-679),
/// nor right below a rider's mount (004:815).
fn check_sight(
    attacker: &CombatantItem,
    target: &CombatantItem,
    situation: &AttackSituation<'_>,
) -> Result<(), Refusal> {
    let AttackSituation { own, theirs, .. } = *situation;
    // A flier sees nothing and strikes nothing in its blind spot (004:675-676).
    let blind = crate::rules::attack::blind_of(attacker);
    if !blind.is_empty() && theirs.squares().all(|s| blind.contains(&s)) {
        return Err(Refusal::new(format!("{} is in its blind spot, behind it", target.id), "004:675-677"));
    }
    mount_between((attacker, own), (target, theirs))
}

/// Riders and what is right below their mount have total cover from each other, and no line of sight
/// (004:787, 004:815): no attack nor spell between them, either way.
pub fn mount_between(
    (attacker, own): (&CombatantItem, Footprint),
    (target, theirs): (&CombatantItem, Footprint),
) -> Result<(), Refusal> {
    if attacker.seat.is_some()
        && crate::rules::core::reach::covered_by_the_mount(own, attacker.altitude.0, theirs, target.altitude.0)
    {
        return Err(crate::rules::core::reach::below_the_mount(target.id));
    }
    if target.seat.is_some()
        && crate::rules::core::reach::covered_by_the_mount(theirs, target.altitude.0, own, attacker.altitude.0)
    {
        return Err(crate::rules::core::reach::below_the_mount(attacker.id));
    }
    Ok(())
}

/// What the weapon reaches: heights (004:783-784) and the chase scale's bands (004:788-797); for a ranged
/// weapon the range, its increments and what shooting into melee costs (004:174-182); for a melee weapon
/// the reach, a rider's high seat included (004:62-63, 004:813-814).
fn reach_and_range(
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
    situation: &AttackSituation<'_>,
    modifiers: &mut Vec<Modifier>,
    damage_modifiers: &mut Vec<Modifier>,
) -> Result<(), Refusal> {
    let AttackSituation { own, theirs, allies_near_target, scale, .. } = *situation;
    within_reach(attacker, target, weapon, (own, theirs), (scale, situation.house.diagonals))?;
    if is_ranged(weapon) {
        let distance = crate::rules::core::altitude::separation_m(
            scale,
            situation.house.diagonals,
            (own, attacker.altitude.0),
            (theirs, target.altitude.0),
        );
        if let Some(point_blank) = point_blank_shot(attacker, distance) {
            modifiers.push(point_blank.clone());
            damage_modifiers.push(point_blank);
        }
        let penalty = range_penalty(weapon, distance).unwrap_or_default();
        if penalty != 0 {
            modifiers.push(Modifier::new(penalty, format!("range {distance} m (004:8, 004:174)")));
        }
        if allies_near_target && !attacker.feats.has(Feat::PreciseShot) {
            modifiers.push(Modifier::new(-4, "shooting into melee (004:180)"));
        }
    }
    Ok(())
}

/// The damage terms a blow with `weapon` carries whatever its target: the wielder's Strength (004:24-26)
/// and a broken weapon's -2 (our ruling). The attack's plan and the coup de grâce both start from them.
fn weapon_damage_terms(attacker: &CombatantItem, weapon: &Weapon) -> Vec<Modifier> {
    let mut terms: Vec<Modifier> = strength_to_damage(attacker.abilities, weapon).into_iter().collect();
    if weapon.broken() {
        terms.push(Modifier::new(-2, "broken weapon (our ruling)"));
    }
    terms
}

/// Point Blank Shot's +1 on a ranged attack's roll and damage within 9 m (our ruling, docs/rulings.md).
pub fn point_blank_shot(attacker: &CombatantItem, distance_m: f32) -> Option<Modifier> {
    (attacker.feats.has(Feat::PointBlankShot) && distance_m <= POINT_BLANK_M)
        .then(|| Modifier::new(1, "Point Blank Shot"))
}

/// Whether `weapon` reaches `target` from where each stands, as an attack asks it: the chase scale's bands
/// (004:788-797), a ranged weapon's maximum range (004:174), a melee weapon's reach across and in height
/// (004:62-63, 004:783-784), a rider's high seat (004:813-814). Where the cover and the rest of an attack's
/// terms are not worth weighing: the AI asks it first.
pub fn within_reach(
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
    (own, theirs): (Footprint, Footprint),
    (scale, diagonals): (crate::rules::core::altitude::Scale, Diagonals),
) -> Result<(), Refusal> {
    // Heights count (004:783-784): a creature's body rises from its altitude as high as its space is wide.
    let rise = vertical_steps(scale, attacker.altitude.0, *attacker.size, target.altitude.0, *target.size);
    // At chase scale, between the ground and a band, only what the band's row allows (004:788-797).
    let reaching = match weapon.delivery {
        Delivery::Melee => crate::rules::core::altitude::Reaching::Melee,
        Delivery::Thrown { .. } => crate::rules::core::altitude::Reaching::Thrown,
        Delivery::Projectile { .. } => crate::rules::core::altitude::Reaching::Projectile,
    };
    crate::rules::core::altitude::band_allows(scale, attacker.altitude.0, target.altitude.0, reaching)?;
    if is_ranged(weapon) {
        let distance = crate::rules::core::altitude::separation_m(
            scale,
            diagonals,
            (own, attacker.altitude.0),
            (theirs, target.altitude.0),
        );
        if range_penalty(weapon, distance).is_none() {
            return Err(Refusal::new(
                format!("{} is {distance} m away, beyond the {}'s maximum range", target.id, weapon.name),
                "004:174",
            ));
        }
        return Ok(());
    }
    if let Some(reaches) = crate::rules::core::reach::high_seat_reaches(
        diagonals,
        attacker.seat.is_some_and(|s| s.high),
        target.seat.is_some_and(|s| s.high),
        attacker.reach.0,
        weapon.reach_kind(),
        own,
        theirs,
    ) {
        // A rider high on a Huge mount (004:813-814).
        if !reaches {
            return Err(Refusal::new(
                format!("{} is out of reach of the {}: a rider high on a Huge mount", target.id, weapon.name),
                "004:814",
            ));
        }
    } else if !melee_reaches(diagonals, attacker.reach.0, weapon.reach_kind(), own, theirs)
        && !near_but_up(diagonals, attacker.reach.0, weapon.reach_kind(), (own, theirs), rise)
    {
        let rule = match weapon.reach_kind() {
            WeaponReach::Natural => "004:62",
            WeaponReach::Doubled => "004:63, 000:169-172",
            WeaponReach::Whip => "004:489, docs/rulings.md",
        };
        return Err(Refusal::new(format!("{} is out of reach of the {}", target.id, weapon.name), rule));
    }
    let high_seat = attacker.seat.is_some_and(|s| s.high) || target.seat.is_some_and(|s| s.high);
    let at_height = |rise| {
        let both = (diagonals, scale);
        melee_reaches_at_height(both, attacker.reach.0, weapon.reach_kind(), (own, theirs), rise)
    };
    let both = (diagonals, scale);
    if weapon.reach_kind() == WeaponReach::Doubled
        && !high_seat
        && !at_height(rise)
        && melee_reaches_at_height(both, attacker.reach.0, WeaponReach::Natural, (own, theirs), rise)
    {
        // Near enough up and across for its natural reach: a reach weapon strikes nothing there (004:63).
        return Err(Refusal::new(
            format!("{} is within its natural reach, where the {} strikes nothing", target.id, weapon.name),
            "004:63, 004:356",
        ));
    }
    if rise > vertical_reach(attacker.reach.0, weapon.reach_kind()) || (!high_seat && !at_height(rise)) {
        return Err(Refusal::new(
            format!(
                "{} is {} away in height, out of reach of the {}",
                target.id,
                match scale {
                    crate::rules::core::altitude::Scale::Normal => format!("{} m", rise.saturating_sub(1) as f32 * 1.5),
                    crate::rules::core::altitude::Scale::Chase => format!("{rise} bands"),
                },
                weapon.name
            ),
            "004:783-784",
        ));
    }
    Ok(())
}

/// Whether a reach weapon's foe, within the natural reach across, is `rise` steps up or down: height and
/// distance across make one distance (004:783), which may yet be the weapon's.
fn near_but_up(
    diagonals: Diagonals,
    natural: u32,
    reach_weapon: WeaponReach,
    (own, theirs): (Footprint, Footprint),
    rise: u32,
) -> bool {
    reach_weapon == WeaponReach::Doubled
        && rise > 0
        && melee_reaches(diagonals, natural, WeaponReach::Natural, own, theirs)
}

/// What the situation gives the attack: flanking (004:417), a charge (004:457), squeezing (000:113-123),
/// fighting defensively (004:183), lying prone (004:375).
fn situation_modifiers(
    attacker: &CombatantItem,
    weapon: &Weapon,
    situation: &AttackSituation<'_>,
    modifiers: &mut Vec<Modifier>,
) -> Result<(), Refusal> {
    let AttackSituation { flanking_with, charge, .. } = *situation;
    if let Some(ally) = flanking_with
        && !is_ranged(weapon)
    {
        modifiers.push(Modifier::new(2, format!("flanking with {ally} (004:417)")));
    }
    if charge {
        if is_ranged(weapon) {
            return Err(Refusal::new("a charge ends in a melee attack", "004:457"));
        }
        modifiers.push(Modifier::new(2, "charge (004:457)"));
    }
    stance_rows(attacker, weapon, modifiers)
}

/// What the attacker's own stance gives any attack (squeezing, 000:113-123; fighting defensively, 004:183;
/// lying prone, 004:375): a flask thrown at an intersection asks it too (004:529).
pub fn stance_rows(attacker: &CombatantItem, weapon: &Weapon, modifiers: &mut Vec<Modifier>) -> Result<(), Refusal> {
    if attacker.conditions.has(Condition::SqueezedTight) {
        return Err(Refusal::new("no attack while squeezing narrower than half its space", "000:121-123"));
    }
    if attacker.conditions.has(Condition::Squeezed) {
        modifiers.push(Modifier::new(-4, "squeezing (000:113)"));
    }
    if attacker.conditions.has(Condition::FightingDefensively) {
        modifiers.push(Modifier::new(-4, "fighting defensively (004:183)"));
    }
    // « ... à terre ou à plat ventre | -4 | -1 | » (004:375): -4 in melee, -1 at range, as the table reads
    // (RULES-INDEX names the footnote digits glued to its cells; this one is not among them).
    if attacker.conditions.has(Condition::Prone) {
        if is_ranged(weapon) {
            modifiers.push(Modifier::new(-1, "prone attacker, ranged (004:375)"));
        } else {
            modifiers.push(Modifier::new(-4, "prone attacker, melee (004:375)"));
        }
    }
    Ok(())
}

/// The sneak attack dice `attacker` adds to this attack, and why (« attaque sournoise », 004:27, 004:425;
/// the d20 rogue's rule, docs/rulings.md): a melee attack or a ranged one within 9 m, on a foe it flanks,
/// one denied its Dex bonus to AC, helpless or pinned (Dex 0); not on a foe immune to critical hits nor one
/// concealed.
pub fn sneak_attack(
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
    situation: &AttackSituation<'_>,
) -> Option<(crate::rules::core::dice::DiceExpr, &'static str)> {
    let dice = attacker.traits.sneak_attack?;
    if target.traits.immune_to_criticals || situation.miss_chance > 0 {
        return None;
    }
    // A ranged one within 9 m, heights counting (004:783-784), as Point Blank Shot's 9 m.
    let (own, theirs) = (situation.own, situation.theirs);
    if is_ranged(weapon)
        && crate::rules::core::altitude::separation_m(
            situation.scale,
            situation.house.diagonals,
            (own, attacker.altitude.0),
            (theirs, target.altitude.0),
        ) > SNEAK_ATTACK_RANGE_M
    {
        return None;
    }
    // Flanking is a melee attack's (004:381, 004:417): a shot finds no foe flanked.
    let why = if situation.flanking_with.is_some() && !is_ranged(weapon) {
        "flanked"
    } else if target.conditions.is_helpless() {
        "helpless"
    } else if target.conditions.has(Condition::Pinned) {
        // Dex 0, as the helpless (004:394, footnote 4): no Dex bonus to AC.
        "pinned"
    } else {
        denied_dex(attacker, target, weapon, (situation.mid_action, situation.unseen, situation.feint_spent))
            .map(|_| "denied its Dex bonus")?
    };
    Some((dice, why))
}

/// The farthest a ranged sneak attack reaches: 9 m (30 feet, the d20 rogue's rule).
pub const SNEAK_ATTACK_RANGE_M: f32 = 9.0;

/// The part of the AC a feint takes the Dex away by (004:524).
const FEINTED: &str = "feinted: no Dex against this melee attack (004:524)";

/// Why `target` is denied its Dex bonus to AC against this attack, if it is (004:53, 004:248, 004:379,
/// 004:386-397, 004:524, 004:645, 000:121-123): the one predicate the AC and sneak attack share.
pub fn denied_dex(
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
    (mid_action, unseen, feint_spent): (Option<MidAction>, bool, bool),
) -> Option<&'static str> {
    let now = mid_action.unwrap_or(MidAction::of(target.conditions));
    // The defender rows that take away the Dex bonus (004:386-397), with the reason the log gives.
    let dex_lost_to = [
        (Condition::Blinded, "blinded: no Dex (004:386)"),
        (Condition::Cowering, "cowering: no Dex (004:388)"),
        (Condition::Stunned, "stunned: no Dex (004:397)"),
        (Condition::OffBalance, "off balance in the water: no Dex (004:645)"),
        (Condition::Grappling, "grappling: no Dex against those outside the grapple (004:391, 004:590)"),
    ]
    .into_iter()
    .filter(|(c, _)| *c != Condition::Grappling || !Grapple::holds(target.grapple, attacker.entity))
    .find(|(c, _)| target.conditions.has(*c))
    .map(|(_, why)| why)
    .or((attacker.conditions.has(Condition::Invisible) && !target.traits.uncanny_dodge)
        .then_some("against an invisible attacker: no Dex (004:379)"))
    .or((unseen_by(attacker, target) && !target.traits.uncanny_dodge)
        .then_some("against an attacker hidden from it: no Dex (004:379)"))
    .or((unseen && !target.traits.uncanny_dodge)
        .then_some("against an attacker it cannot see: no Dex (004:31, 004:379)"))
    .or((Feinted::by(target.feinted, attacker.entity) && !is_ranged(weapon) && !feint_spent).then_some(FEINTED));
    if now.tight {
        Some("squeezing with Escape Artist: no Dex (000:121-123)")
    } else if dex_lost_to.is_some() {
        dex_lost_to
    } else if target.conditions.has(Condition::FlatFooted) && !target.traits.uncanny_dodge {
        Some("flat-footed: no Dex (004:53)")
    } else if now.running && !target.feats.has(Feat::Run) {
        Some("running: no Dex (004:248)")
    } else {
        None
    }
}

/// The Armor Class the attack is rolled against, with its parts: the defender's AC, the Dex it loses
/// (flat-footed, running, blinded, cowering, stunned, grappling, squeezed tight, an invisible attacker), the
/// defender's rows of the modifiers table (004:383-397), total defence, fighting defensively, cover
/// (004:398-407) and a charge's -2 (004:457).
#[expect(clippy::too_many_lines, reason = "the defender's half of the modifiers table, row by row (004:383-407)")]
fn defended_armor_class(
    attacker: &CombatantItem,
    target: &CombatantItem,
    target_abilities: &Abilities,
    weapon: &Weapon,
    situation: &AttackSituation<'_>,
) -> Result<(i32, Vec<Modifier>), Refusal> {
    let AttackSituation { mid_action, cover, unseen, feint_spent, .. } = *situation;
    let ac = armor_class(target.defense, target_abilities, *target.size);
    let now = mid_action.unwrap_or(MidAction::of(target.conditions));
    let denied = denied_dex(attacker, target, weapon, (mid_action, unseen, feint_spent));
    let (armor_class, mut armor_class_parts) = if let Some(why) = denied {
        let mut parts: Vec<Modifier> =
            ac.parts.iter().filter(|m| !(m.source == "Dex" && m.value > 0) && m.source != "dodge").cloned().collect();
        parts.push(Modifier::new(0, why));
        (ac.flat_footed, parts)
    } else {
        (ac.normal, ac.parts.clone())
    };
    let mut loses_dex = denied.is_some();
    let mut armor_class = armor_class;
    if now.squeezed || now.tight {
        armor_class -= 4;
        armor_class_parts.push(Modifier::new(-4, "squeezing (000:113)"));
    }
    // Where the Dex bonus no longer counts the dodge bonuses go with it (004:36): a helpless or pinned
    // defender's Dex is 0.
    let lose_dodge = |armor_class: &mut i32, parts: &mut Vec<Modifier>, why: &'static str| {
        let dodge: i32 = parts.iter().filter(|m| m.source == "dodge").map(|m| m.value).sum();
        if dodge != 0 {
            *armor_class -= dodge;
            parts.push(Modifier::new(-dodge, why));
        }
    };
    // The defender table (004:383-397): helpless -4 against melee and Dex 0 (004:423); prone -4 against
    // melee, +4 against ranged attacks, a helpless creature lying down taking both rows.
    if target.conditions.is_helpless() {
        let dex = dex_to_ac(target_abilities, target.defense);
        let counted = if loses_dex { dex.min(0) } else { dex };
        let to_zero = -5 - counted;
        if to_zero != 0 {
            armor_class += to_zero;
            armor_class_parts.push(Modifier::new(to_zero, "helpless: Dex 0 (004:423)"));
        }
        if !loses_dex {
            lose_dodge(&mut armor_class, &mut armor_class_parts, "helpless: no dodge bonus (004:36)");
            loses_dex = true;
        }
        if !is_ranged(weapon) {
            armor_class -= 4;
            armor_class_parts.push(Modifier::new(-4, "helpless, against melee (004:423)"));
        }
    }
    if target.conditions.has(Condition::Prone) {
        let (value, source) = if is_ranged(weapon) {
            (4, "prone, against ranged (004:395)")
        } else {
            (-4, "prone, against melee (004:395)")
        };
        armor_class += value;
        armor_class_parts.push(Modifier::new(value, source));
    }
    // The other defender rows (004:386-397).
    let ranged = is_ranged(weapon);
    let mut defender_row = |value: i32, source: &str| {
        if value != 0 {
            armor_class += value;
            armor_class_parts.push(Modifier::new(value, source));
        }
    };
    if target.conditions.has(Condition::Blinded) {
        defender_row(-2, "blinded (004:386)");
    }
    if target.conditions.has(Condition::Cowering) {
        defender_row(-2, "cowering (004:388)");
    }
    if target.conditions.has(Condition::Stunned) {
        defender_row(-2, "stunned (004:397)");
    }
    if target.conditions.has(Condition::Kneeling) && !target.conditions.has(Condition::Prone) {
        defender_row(
            if ranged { 2 } else { -2 },
            if ranged { "kneeling, against ranged (004:393)" } else { "kneeling, against melee (004:393)" },
        );
    }
    if target.conditions.has(Condition::Pinned) && !target.conditions.is_helpless() {
        // Dex counted as 0 (004:394, footnote 4); -4 against melee.
        let dex = dex_to_ac(target_abilities, target.defense);
        let counted = if loses_dex { dex.min(0) } else { dex };
        defender_row(-5 - counted, "pinned: Dex 0 (004:394)");
        if !ranged && !Grapple::pinned_by(target.grapple, attacker.entity) {
            defender_row(-4, "pinned, against melee but its pinner's (004:394, 004:614)");
        }
        if !loses_dex {
            lose_dodge(&mut armor_class, &mut armor_class_parts, "pinned: no dodge bonus (004:36)");
            loses_dex = true;
        }
    }
    // « un bonus de +4 à la CA » (004:211), of no named type, unlike fighting defensively's dodge bonus
    // (004:183): kept when the defender loses its Dex bonus, not once it is helpless (it defends itself no
    // more, 004:423).
    if target.conditions.has(Condition::TotalDefense) && !target.conditions.is_helpless() {
        armor_class += 4;
        armor_class_parts.push(Modifier::new(4, "total defence (004:211)"));
    }
    // Mobility: +4 dodge against the attacks of opportunity its own movement provokes (the d20 feat).
    if !loses_dex && now.moving && target.feats.has(Feat::Mobility) {
        armor_class += 4;
        armor_class_parts.push(Modifier::new(4, "Mobility, moving in a threatened area (d20 feat; our ruling)"));
    }
    if !loses_dex && target.conditions.has(Condition::FightingDefensively) {
        armor_class += 2;
        armor_class_parts.push(Modifier::new(2, "dodge, fighting defensively (004:183)"));
    }
    match cover {
        Cover::Total => return Err(Refusal::new(format!("{} has total cover", target.id), "004:406")),
        Cover::Hard { what } => {
            armor_class += 4;
            armor_class_parts.push(Modifier::new(4, format!("cover: {what} (004:398)")));
        }
        Cover::Soft { creature } => {
            armor_class += 4;
            armor_class_parts.push(Modifier::new(4, format!("soft cover: {creature} (004:404)")));
        }
        Cover::Improved { what } => {
            armor_class += 8;
            armor_class_parts.push(Modifier::new(8, format!("improved cover: {what} (004:407)")));
        }
        Cover::Water => {
            armor_class += 8;
            armor_class_parts.push(Modifier::new(8, "improved cover: in the water, against a foe out of it (004:634)"));
        }
        Cover::None => {}
    }
    if now.charging {
        armor_class -= 2;
        armor_class_parts.push(Modifier::new(-2, "charging (004:457)"));
    }
    Ok((armor_class, armor_class_parts))
}

/// Damage an attack dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    /// Points of damage.
    pub amount: i32,
    /// Nonlethal.
    pub nonlethal: bool,
}

/// Makes `plan` a touch attack: the target's armour, shield and natural armour do not count; its deflection,
/// Dexterity, size and dodge do (004:199).
pub fn as_touch_attack(plan: &mut AttackPlan) {
    drop_armor_class_parts(plan, &["armour", "shield", "natural armour"]);
    plan.armor_class_parts.push(Modifier::new(0, "touch attack: no armour, shield or natural armour (004:199)"));
}

/// Rolls a touch attack that deals no damage of its own (a trip's, 004:484): the d20 against the touch AC,
/// a natural 1 missing and a 20 hitting (004:4), and concealment's miss chance (004:411); writes the facts.
/// Whether it touched.
pub fn roll_touch_attack(
    plan: &AttackPlan,
    attacker: &CreatureId,
    target: &CreatureId,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> bool {
    roll_to_hit(plan, (attacker, target), (NO_THREAT, None), dice, facts).is_some()
}

/// Rolls a touch attack delivering a spell: `None` if it misses; else whether it is a critical hit (« Les
/// sorts qui nécessitent un jet d'attaque ... peuvent obtenir un coup critique », 004:189, 004:199): a natural
/// 20 threatens (spells threaten on 20 alone, the d20 standard) and a second roll against the same AC
/// confirms it, as a weapon's (004:185); a creature immune to critical hits takes none.
pub fn roll_touch_spell(
    plan: &AttackPlan,
    (attacker, target): (&CreatureId, &CreatureId),
    target_traits: &Traits,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> Option<bool> {
    let rolled = roll_to_hit(plan, (attacker, target), (NO_THREAT, None), dice, facts)?;
    Some(critical_of(&rolled, plan, attacker, target_traits, dice, facts).is_some())
}

/// Whether a hit's threat is a critical hit (004:185): `None` if not (no threat, or a foe immune to
/// critical hits); `Some(true)` confirmed by a second roll against the same AC, written; `Some(false)`
/// unconfirmed, at a table that does not confirm threats (a house rule).
fn critical_of(
    rolled: &AttackRoll,
    plan: &AttackPlan,
    attacker: &CreatureId,
    target_traits: &Traits,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> Option<bool> {
    if !rolled.threat || target_traits.immune_to_criticals {
        return None;
    }
    if !plan.confirm_criticals {
        return Some(false);
    }
    let confirm = roll_attack(dice, &plan.modifiers, plan.armor_class, NO_THREAT);
    facts.write(Fact::CriticalConfirmationRolled {
        attacker: attacker.clone(),
        roll: confirm.roll,
        total: confirm.total,
        confirmed: confirm.hit,
    });
    confirm.hit.then_some(true)
}

/// A threat range no natural roll reaches but a natural 20: the roll threatens on 20 alone.
const NO_THREAT: u32 = 21;

/// Rolls a planned attack's d20 (or takes the `natural` roll already thrown) against its AC, threatening
/// from `threat_from`, then concealment's miss chance (004:411); writes both facts. The roll, if the attack
/// hit.
fn roll_to_hit(
    plan: &AttackPlan,
    (attacker, target): (&CreatureId, &CreatureId),
    (threat_from, natural): (u32, Option<u32>),
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> Option<AttackRoll> {
    let rolled = match natural {
        Some(roll) => roll::judge_attack(roll, total(&plan.modifiers), plan.armor_class, threat_from),
        None => roll_attack(dice, &plan.modifiers, plan.armor_class, threat_from),
    };
    facts.write(Fact::AttackRolled {
        attacker: attacker.clone(),
        target: target.clone(),
        weapon: plan.weapon.name.clone(),
        roll: rolled.roll,
        modifiers: plan.modifiers.clone(),
        total: rolled.total,
        armor_class: plan.armor_class,
        armor_class_parts: plan.armor_class_parts.clone(),
        hit: rolled.hit,
        threat: rolled.threat,
    });
    if !rolled.hit {
        return None;
    }
    if plan.miss_chance > 0 {
        let roll = dice.d100();
        let missed = roll <= plan.miss_chance;
        facts.write(Fact::ConcealmentRolled {
            attacker: attacker.clone(),
            target: target.clone(),
            chance: plan.miss_chance,
            roll,
            missed,
        });
        if missed {
            return None;
        }
    }
    Some(rolled)
}

/// Rolls a planned attack: the d20 against the AC, the confirmation of a threat (not against creatures
/// immune to critical hits), the damage; writes every fact. Returns the damage if it hit.
pub fn roll_planned_attack(
    plan: &AttackPlan,
    attacker: &CreatureId,
    target: &CreatureId,
    target_traits: &Traits,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> Option<Hit> {
    roll_planned_attack_from(None, plan, (attacker, target), target_traits, dice, facts)
}

/// [`roll_planned_attack`], its d20 already thrown if `natural` is given: an attack of opportunity whose
/// roll is made before the d% says whom it strikes (004:447).
pub fn roll_planned_attack_from(
    natural: Option<u32>,
    plan: &AttackPlan,
    (attacker, target): (&CreatureId, &CreatureId),
    target_traits: &Traits,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> Option<Hit> {
    let rolled = roll_to_hit(plan, (attacker, target), (plan.weapon.threat, natural), dice, facts)?;
    if let Some(reason) = plan.harmless {
        facts.write(Fact::NoDamage { attacker: attacker.clone(), target: target.clone(), reason: reason.to_string() });
        return None;
    }
    let mut multipliers: Vec<u32> = plan.multipliers.iter().map(|m| m.value as u32).collect();
    let mut multiplied_by: Vec<String> =
        plan.multipliers.iter().map(|m| format!("{} x{}", m.source, m.value)).collect();
    match critical_of(&rolled, plan, attacker, target_traits, dice, facts) {
        Some(true) => {
            multipliers.push(plan.weapon.multiplier);
            multiplied_by.push(format!("critical x{} (004:185)", plan.weapon.multiplier));
        }
        // A table that does not confirm threats (a house rule): every threat is a critical hit.
        Some(false) => {
            multipliers.push(plan.weapon.multiplier);
            multiplied_by.push(format!("critical x{} (004:185, unconfirmed: house rule)", plan.weapon.multiplier));
        }
        None => {}
    }
    // Every multiplier counts from the base damage (004:27); extra dice are thrown once.
    let multiplier = roll::combined_multiplier(&multipliers);
    let bonus = total(&plan.damage_modifiers);
    let mut rolled_damage = roll_damage(dice, &plan.weapon, bonus, multiplier, &plan.extra_dice);
    if plan.halved {
        // Halved after every multiplier, at least 1 as any damage (004:23).
        rolled_damage.total = (rolled_damage.total / 2).max(1);
        multiplied_by.push(underwater::HALF_DAMAGE.to_string());
    }
    let nonlethal = plan.deals_nonlethal();
    facts.write(Fact::DamageDealt {
        attacker: attacker.clone(),
        target: target.clone(),
        dice: rolled_damage.throws.iter().chain(&rolled_damage.extra).cloned().collect(),
        modifiers: plan.damage_modifiers.clone(),
        multiplier,
        multiplied_by,
        total: rolled_damage.total,
        nonlethal,
    });
    Some(Hit { amount: rolled_damage.total, nonlethal })
}

/// What kind of attack is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct AttackRequest<'a> {
    /// The weapon by name; the first (the first melee one for a charge) if `None`.
    pub weapon: Option<&'a str>,
    /// The attack ending a charge (its action already spent).
    pub charge: bool,
    /// A full attack.
    pub full: bool,
    /// Fighting defensively (004:183): the -4 applies to this very attack.
    pub defensively: bool,
    /// An unarmed strike dealing lethal damage, at -4 unless Improved Unarmed Strike (004:173).
    pub lethal: bool,
    /// A lethal melee weapon dealing nonlethal damage, at -4 (004:302).
    pub nonlethal: bool,
    /// Power Attack: this much off the melee attack roll, onto its damage (the d20 feat).
    pub power: u32,
    /// A readied attack: out of turn, already paid for (004:620-622).
    pub readied: bool,
    /// An attack made « dès qu'elle s'applique », in anyone's turn: Cleave's (004:234).
    pub anytime: bool,
    /// Its action already paid for (the off-hand blow of a full attack).
    pub paid: bool,
    /// A splash weapon thrown (004:528): only the splash chapter throws one.
    pub splash: bool,
    /// The attack roll of a disarm: a pinner may disarm the foe it pins, weaponless (004:611, 004:613).
    pub disarming: bool,
    /// The player's choice for a full attack: with two weapons or one; `None` takes
    /// [`fights_with_two_weapons`]'s default.
    pub two_weapons: Option<bool>,
    /// A blow after the one a feint was spent on (004:524).
    pub feint_spent: bool,
}

/// Whether a ranged attack of `attacker` at `target`, standing on `theirs`, shoots into melee (004:180-181):
/// an ally of the attacker able to act is in melee with it, one of the two controlling the other's space
/// ([`controls`]); and every part of the target lies within 3 m of an ally (« au moins à 3 mètres de
/// l'allié le plus proche, le malus de -4 ne s'applique pas »: the attacker aims at the part of a big
/// creature farthest from them, and a foe engaged only by a long reach 3 m away is shot freely). The
/// nearest ally is any living one, a helpless one lying by the target too, and heights count in the
/// distance (004:783: an ally on a ledge 3 m above is 3 m away).
pub fn shoots_into_melee(
    field: &Battlefield,
    creatures: &Query<Combatant, With<Creature>>,
    (attacker, own): (&CombatantItem, Footprint),
    (target, theirs): (&CombatantItem, Footprint),
) -> bool {
    // Shooting from its mount's halfway point (004:479), its mount and those riding with it were there too.
    let away = own != attacker.space.at(attacker.position.0);
    // « Un personnage inconscient ou immobilisé ... n'est considéré au corps à corps que s'il se fait
    // attaquer » (004:180): a helpless target or ally is in melee only while it is attacked in melee.
    let in_melee = |c: &CombatantItem| c.conditions.can_act() || c.assailed;
    if !in_melee(target) {
        return false;
    }
    let body = placed_on(target, theirs);
    let allies: Vec<CombatantItem> = creatures
        .iter()
        .filter(|c| c.entity != attacker.entity && c.faction == attacker.faction && !c.conditions.has(Condition::Dead))
        .filter(|c| !(away && rides_with(attacker, c)))
        .collect();
    // « au moins à 3 mètres de l'allié le plus proche, le malus de -4 ne s'applique pas » (004:181), the
    // distance of ranged attacks at either scale: at chase scale two sharing a square are 3 m apart (004:652),
    // so no -4 there.
    let near = |s: Square| {
        allies.iter().any(|c| {
            let at = (c.space.at(c.position.0), c.altitude.0);
            let there = (Footprint::new(s, 1), target.altitude.0);
            crate::rules::core::altitude::separation_m(field.scale(), field.diagonals(), at, there) < 3.0
        })
    };
    // The cheap distance first: the lines of effect of `controls` only for a target close to an ally.
    theirs.squares().all(near)
        && allies.iter().filter(|c| in_melee(c)).any(|c| controls(field, c, body) || controls(field, target, placed(c)))
}

/// The creatures that may stand between `attacker` and `target`, giving soft cover against ranged attacks
/// and a reach weapon's blows (004:398-399, 004:404).
pub fn bystanders_between(
    scale: crate::rules::core::altitude::Scale,
    creatures: &Query<Combatant, With<Creature>>,
    attacker: &CombatantItem,
    target: &CombatantItem,
) -> Vec<Bystander> {
    bystanders_from(scale, creatures, (attacker, attacker.space.at(attacker.position.0)), target)
}

/// [`bystanders_between`] with `attacker` on `own`: a rider shooting from its mount's halfway point (004:479).
pub fn bystanders_from(
    scale: crate::rules::core::altitude::Scale,
    creatures: &Query<Combatant, With<Creature>>,
    (attacker, own): (&CombatantItem, Footprint),
    target: &CombatantItem,
) -> Vec<Bystander> {
    bystanders_at(scale, creatures, (attacker, own), (target, target.space.at(target.position.0), target.altitude.0))
}

/// [`bystanders_from`] with `target` on `theirs` at `altitude`: a flier struck in the middle of its flight.
pub fn bystanders_at(
    scale: crate::rules::core::altitude::Scale,
    creatures: &Query<Combatant, With<Creature>>,
    (attacker, own): (&CombatantItem, Footprint),
    (target, theirs, altitude): (&CombatantItem, Footprint, i32),
) -> Vec<Bystander> {
    let ends = ((own, attacker.altitude.0, *attacker.size), (theirs, altitude, *target.size));
    // Its mount and those riding with it are where it is (004:475), wherever it shoots from (004:479).
    creatures
        .iter()
        .filter(|c| c.entity != attacker.entity && c.entity != target.entity && !rides_with(attacker, c))
        .filter(|c| in_the_way(scale, ends, (c.space.at(c.position.0), c.altitude.0, *c.size), c.conditions))
        .map(|c| Bystander { id: c.id.0.clone(), footprint: c.space.at(c.position.0) })
        .collect()
}

/// Whether `other` is the mount `rider` rides or rides it too: they share its space (004:475).
fn rides_with(rider: &CombatantItem, other: &CombatantItem) -> bool {
    let mount = rider.riding.map(|r| r.0);
    mount.is_some() && (Some(other.entity) == mount || other.riding.map(|r| r.0) == mount)
}

/// Whether a creature at `(footprint, altitude, size)` may give soft cover against the lines between
/// `ends` (004:404): not one at the bottom of a pit, nor a dead one, a body that is an object now, nor one
/// flying above or below the lines ([`crate::rules::core::cover::in_the_lines_height`]; our rulings).
pub fn in_the_way(
    scale: crate::rules::core::altitude::Scale,
    (attacker, target): ((Footprint, i32, Size), (Footprint, i32, Size)),
    (footprint, altitude, size): (Footprint, i32, Size),
    conditions: &Conditions,
) -> bool {
    // Each body from its feet to its top, in metres (the bands' own heights at chase scale).
    let body = |(at, altitude, size): (Footprint, i32, Size)| {
        (at, (scale.height_m(altitude), scale.height_m(altitude + scale.body_height(size))))
    };
    !conditions.has(Condition::InPit)
        && !conditions.has(Condition::Dead)
        && crate::rules::core::cover::in_the_lines_height(
            body(attacker),
            body(target),
            body((footprint, altitude, size)),
        )
}

/// Checks that `attacker` may attack `target` now (its turn, able to act, the action left) and prepares the
/// attack with everything the field gives: flanking, cover, concealment, shooting into melee. The attack
/// resolution and the game's attack preview both come through here.
pub fn prepare_attack(
    field: &Battlefield,
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    attacker: &CombatantItem,
    target: &CombatantItem,
    request: AttackRequest<'_>,
    budget: &ActionBudget,
) -> Result<AttackPlan, Refusal> {
    let theirs = target.space.at(target.position.0);
    let flanking = flanking_ally(field, attacker, target, creatures.iter());
    let ranged = match request.weapon {
        Some(name) => attacker.armament.0.iter().find(|w| w.name == name).is_some_and(is_ranged),
        None if request.charge => false,
        None => attacker.armament.first_in_hand().is_some_and(is_ranged),
    };
    let own = attacks_from(order, creatures, attacker, ranged);
    let allies_near_target = shoots_into_melee(field, creatures, (attacker, own), (target, theirs));
    let bystanders = bystanders_from(field.scale(), creatures, (attacker, own), target);
    let waters = underwater::waters(field, (attacker, own), (target, theirs));
    let cover = cover_between(field, (own, attacker.altitude.0), (theirs, target.altitude.0), ranged, &bystanders);
    let cover = underwater::with_water(cover, underwater::water_cover(&waters, !ranged));
    let miss_chance = miss_chance_from(field, (attacker, own), target, theirs, ranged);
    if !request.readied && !request.anytime {
        order.check_turn(attacker.entity)?;
    }
    if !attacker.conditions.can_act() {
        return Err(Refusal::new("a helpless creature cannot attack", "004:278"));
    }
    // A flier in the air directed by its rider flies; its rider strikes (004:656, 004:812).
    let directed = attacker.riders.is_some_and(|riders| {
        riders
            .all()
            .iter()
            .any(|r| creatures.get(*r).is_ok_and(|c| crate::rules::core::creature::directs(c.seat, c.conditions)))
    });
    if directed && attacker.in_the_air() && !request.readied && !request.paid {
        return Err(Refusal::new(
            format!(
                "{} is ridden in the air: it flies, charges or runs as its rider bids, and attacks only by a dive",
                attacker.id
            ),
            "004:656",
        ));
    }
    match (request.charge || request.readied || request.paid, request.full) {
        (true, _) => {}
        (false, true) => budget.check_full_round()?,
        (false, false) => budget.check(ActionKind::Standard)?,
    }
    let situation = AttackSituation {
        weapon: request.weapon,
        own,
        theirs,
        allies_near_target,
        charge: request.charge,
        opportunity: false,
        mid_action: None,
        flanking_with: flanking.as_deref(),
        cover: &cover,
        miss_chance,
        unseen: attacker_unseen(field, (attacker, own), (target, theirs)),
        scale: field.scale(),
        house: field.house_rules(),
        waters,
        feint_spent: request.feint_spent,
    };
    let mut plan = plan_attack(attacker, target, situation)?;
    // Pinning a foe, it can use no weapon, against anyone (004:613), and has only the options 004:610-611 list
    // (damage, the foe's own weapon, moving: grapple checks; a disarm, weaponless), no blow with fists or
    // teeth either.
    let pinning = || creatures.iter().any(|c| Grapple::pins(attacker.entity, c.grapple, c.conditions));
    let weaponless = plan.weapon.natural || plan.weapon.unarmed;
    if attacker.conditions.has(Condition::Grappling) && !(request.disarming && weaponless) && pinning() {
        return Err(Refusal::new("pinning a foe, it can use no weapon", "004:613"));
    }
    if plan.weapon.splash.is_some() && !request.splash {
        return Err(Refusal::new(format!("the {} is a splash weapon: throw it", plan.weapon.name), "004:528"));
    }
    if request.defensively && !attacker.conditions.has(Condition::FightingDefensively) {
        plan.modifiers.push(Modifier::new(-4, "fighting defensively (004:183)"));
    }
    // The other kind of damage than the weapon's, at -4 (004:173, 004:302-303): lethal with an unarmed
    // strike (no penalty with Improved Unarmed Strike) or a whip, nonlethal with a lethal melee weapon
    // (« une arme de corps à corps », 004:302: not a shot).
    let usually_nonlethal = plan.weapon.nonlethal_blows(false);
    if request.lethal && usually_nonlethal {
        if plan.weapon.whip {
            plan.modifiers.push(Modifier::new(-4, "lethal blow with a nonlethal weapon (004:303)"));
        } else if !attacker.feats.has(Feat::ImprovedUnarmedStrike) {
            plan.modifiers.push(Modifier::new(-4, "lethal unarmed strike (004:173)"));
        }
        plan.lethal = true;
    }
    if request.nonlethal && !usually_nonlethal {
        if is_ranged(&plan.weapon) {
            return Err(Refusal::new("nonlethal damage is dealt with a melee weapon, not a shot", "004:302"));
        }
        plan.modifiers.push(Modifier::new(-4, "nonlethal blow with a lethal weapon (004:302)"));
        plan.nonlethal = true;
    }
    if request.power > 0 {
        power_attack(attacker, &mut plan, request.power)?;
    }
    // « une arme disposée de la sorte inflige des dégâts doublés contre un adversaire lancé en pleine
    // charge » (004:628, 004:461): a readied spear striking a charger at its charge's end, whatever
    // triggered it (the one striking as it enters reach doubles in the attacks of opportunity's path), in
    // its charge's turn: the charging condition's -2 AC lasts to its next turn (004:457), the charge not.
    if request.readied
        && plan.weapon.brace
        && target.conditions.has(Condition::Charging)
        && order.is_acting(target.entity)
    {
        plan.multipliers.push(Modifier::new(2, "set against a charge (004:461)"));
    }
    mount_moved(order, creatures, (attacker, target), &mut plan, request.full)?;
    reins_in_hand(order, attacker, &plan.weapon, false)?;
    Ok(plan)
}

/// The Ride check's DC to guide a mount with the knees, a free action (004:476).
pub const KNEES_RIDE_DC: i32 = 5;

/// A rider's Ride check this round to guide its mount with its knees, and whether it made it (004:476).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knees {
    /// The round of the check.
    pub round: u32,
    /// Made.
    pub made: bool,
}

/// Whether an attack takes both of a rider's hands, one of which holds the reins: a two-handed weapon (a
/// bow, a greatsword) or a weapon in each hand (004:476: « utiliser ses deux mains pour attaquer »).
/// Passengers hold no reins; a strapped shield's hand holds them (our ruling, docs/rulings.md).
pub fn takes_both_hands(attacker: &CombatantItem, weapon: &Weapon, two_weapons: bool) -> bool {
    attacker.riding.is_some()
        && attacker.seat.is_some_and(|s| !s.passenger)
        && !weapon.natural
        && (weapon.wielded_two_handed() || two_weapons)
}

/// The Ride bonus a rider guides its mount with (its Ride, else its Dex modifier), when the check can fail;
/// `None` when no roll of the d20 fails it, and no roll is made.
pub fn knees_bonus(attacker: &CombatantItem) -> Option<i32> {
    let bonus = crate::rules::core::creature::dex_skill(attacker.skills.ride, attacker.abilities, attacker.conditions);
    (bonus + 1 < KNEES_RIDE_DC).then_some(bonus)
}

/// Refuses an attack that takes both of a rider's hands in a round its Ride check to guide its mount with
/// its knees failed (004:476).
fn reins_in_hand(
    order: &TurnOrder,
    attacker: &CombatantItem,
    weapon: &Weapon,
    two_weapons: bool,
) -> Result<(), Refusal> {
    let failed = attacker.knees.is_some_and(|k| k.round == order.round && !k.made);
    if failed && takes_both_hands(attacker, weapon, two_weapons) {
        return Err(Refusal::new(
            "its Ride check to guide its mount with its knees failed this round: one hand holds the reins",
            "004:476",
        ));
    }
    Ok(())
}

/// The damage Power Attack's `n` adds with `weapon`: twice with a two-handed weapon, none with a light one
/// (an unarmed strike and natural weapons excepted).
fn power_damage(weapon: &Weapon, n: i32) -> i32 {
    match weapon.handling {
        _ if weapon.wielded_two_handed() => 2 * n,
        Handling::Light if !weapon.natural && !weapon.unarmed => 0,
        _ => n,
    }
}

/// Power Attack (the d20 feat, named by the templates, not by the texts; docs/rulings.md): `n`, at most the
/// base attack bonus, off a melee attack roll and onto its damage, twice that with a two-handed weapon,
/// none with a light one (an unarmed strike and natural weapons excepted); a ranged attack takes none.
pub fn power_attack(attacker: &CombatantItem, plan: &mut AttackPlan, n: u32) -> Result<(), Refusal> {
    if !attacker.feats.has(Feat::PowerAttack) {
        return Err(Refusal::new("Power Attack is a feat it does not have", "docs/rulings.md"));
    }
    // It trades on melee attacks only: a shot takes none of it.
    if is_ranged(&plan.weapon) {
        return Ok(());
    }
    let most = attacker.base_attack.0.max(0) as u32;
    if n > most {
        return Err(Refusal::new(
            format!("Power Attack trades at most its base attack bonus, {most}"),
            "docs/rulings.md",
        ));
    }
    let n = n as i32;
    plan.modifiers.push(Modifier::new(-n, "Power Attack"));
    let damage = power_damage(&plan.weapon, n);
    if damage != 0 {
        plan.damage_modifiers.push(Modifier::new(damage, "Power Attack"));
    }
    Ok(())
}

/// What its mount's move this turn does to a rider's attack on the ground (004:477-479): after more
/// than 1.5 m of it, one melee attack only, no full attack; after its charge, a melee attack on the foe it
/// charged at +2 (004:478), a lance's damage doubled (004:460, 004:478); a ranged attack after its double
/// move (two move actions of movement, or beyond its speed) at -4, after its run at -8 (made from the
/// mount's halfway point, [`attacks_from`]).
pub fn mount_moved(
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    (attacker, target): (&CombatantItem, &CombatantItem),
    plan: &mut AttackPlan,
    full: bool,
) -> Result<(), Refusal> {
    let Some(mount) = attacker.riding.and_then(|r| creatures.get(r.0).ok()) else { return Ok(()) };
    // A flying mount's charge too (004:656): its rider's blow ends it.
    if !is_ranged(&plan.weapon) && charged_by_mount(order, &mount, target) {
        plan.modifiers.push(Modifier::new(2, "its mount's charge (004:478)"));
        if plan.weapon.lance {
            plan.multipliers.push(Modifier::new(2, "a lance on a mounted charge (004:460, 004:478)"));
        }
    }
    // In the air the aerial chapter rules the rest (004:806-812).
    if mount.in_the_air() {
        return Ok(());
    }
    let moved = travel_this_turn(order, &mount).map_or(0, |t| t.distance_in(order.round));
    if full && !is_ranged(&plan.weapon) && moved > 1 {
        return Err(Refusal::new(
            format!("{} moved more than 1.5 m this turn: one melee attack only", mount.id),
            "004:477",
        ));
    }
    if is_ranged(&plan.weapon) {
        plan.modifiers.extend(mount_pace_penalty(order, &mount));
    }
    Ok(())
}

/// What its ground mount's pace this round takes off a rider's ranged attack (004:479): -4 after its double
/// move, -8 after its run; the shots and the throws, at a creature or at an intersection, alike.
pub fn mount_pace_penalty(order: &TurnOrder, mount: &CombatantItem) -> Option<Modifier> {
    let double_move = travel_this_turn(order, mount).is_some_and(|t| t.double_move(order.round));
    match mount_pace(order, mount) {
        Pace::Ran => Some(Modifier::new(-8, "its mount's run (004:479)")),
        _ if double_move => Some(Modifier::new(-4, "its mount's double move (004:479)")),
        _ => None,
    }
}

/// Where `attacker` makes an attack from: a rider's ranged attack during its mount's double move or run on
/// the ground is made « au moment où la monture a parcouru la moitié de son déplacement » (004:479), from the
/// squares the mount stood on then ([`Trail::halfway`](crate::rules::turns::moving::Trail::halfway)); any
/// other attack from where it stands. The shot's range, its lines, its cover and concealment, and the foes
/// its shot provokes are all of that place.
pub fn attacks_from(
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    attacker: &CombatantItem,
    ranged: bool,
) -> Footprint {
    let here = attacker.space.at(attacker.position.0);
    let Some(mount) = attacker.riding.and_then(|r| creatures.get(r.0).ok()).filter(|_| ranged) else { return here };
    if mount.in_the_air() || mount_pace_penalty(order, &mount).is_none() {
        return here;
    }
    let halfway = mount.trail.and_then(|t| t.halfway(order.round));
    halfway.map_or(here, |at| attacker.space.at(at.origin))
}

/// Keeps on a rider's mount on the ground the pace a ranged attack or a full melee attack of its rider was
/// judged at, the first of the round (004:477-479).
fn rider_binds_its_mount(
    commands: &mut Commands,
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    rider: &CombatantItem,
    weapon: &Weapon,
    full: bool,
) {
    let Some(mount) = rider.riding.and_then(|r| creatures.get(r.0).ok()) else { return };
    let act = if is_ranged(weapon) {
        RiderAct::Ranged
    } else if full {
        RiderAct::FullMelee
    } else {
        return;
    };
    bind_the_mount(commands, order.round, &mount, act);
}

/// Keeps on `mount`, on the ground, the pace its rider's `act` in `round` was judged at, the first such act
/// of the round (004:477-480); in the air the aerial chapter rules instead.
pub fn bind_the_mount(commands: &mut Commands, round: u32, mount: &CombatantItem, act: RiderAct) {
    if !mount.in_the_air() && mount.rider_acted.is_none_or(|a| a.round != round) {
        commands.entity(mount.entity).insert(RiderActed::new(round, act, mount.travelled, mount.last_move));
    }
}

/// Whether `mount` charged `target` this round: its rider's melee blow at it ends the charge (004:478).
pub fn charged_by_mount(order: &TurnOrder, mount: &CombatantItem, target: &CombatantItem) -> bool {
    carried_this_turn(order, mount) && mount.last_move.and_then(|m| m.charged) == Some(target.entity)
}

/// Whether `mount` moved in the turn going on: it moves on its rider's initiative, as its rider bids
/// (004:474), so its move carries what its rider does in that turn (004:477-480), not a move it made in
/// its own turn before the rider got on, nor in the rider's turn for an act readied into another's.
pub fn carried_this_turn(order: &TurnOrder, mount: &CombatantItem) -> bool {
    mount.last_move.is_some_and(|m| m.round == order.round && m.turn == order.turns_begun)
}

/// What `mount` travelled this round, if it moved in the turn going on ([`carried_this_turn`]): what its
/// rider's acts read of its move (004:477-480).
pub fn travel_this_turn<'a>(
    order: &TurnOrder,
    mount: &CombatantItem<'a, '_>,
) -> Option<&'a crate::rules::turns::moving::Travelled> {
    mount.travelled.filter(|_| carried_this_turn(order, mount))
}

/// How far a rider's mount went this round on the ground, by the distance (004:480). In the air the aerial
/// chapter rules instead.
pub fn mount_pace(order: &TurnOrder, mount: &CombatantItem) -> Pace {
    match travel_this_turn(order, mount) {
        Some(travelled) if !mount.in_the_air() => travelled.pace(order.round, mount.last_move),
        _ => Pace::WithinSpeed,
    }
}

/// The miss chance `target`, standing on `theirs`, has against `attacker`'s attack (004:408-416): what the
/// target's own squares give against an adjacent melee attack; against a ranged attack or a reach weapon's
/// blow at a foe not adjacent, what the lines from the attacker cross (004:409); total against an
/// invisible target or for a blinded attacker. Every attack asks here: a turn's, an attack of
/// opportunity, a readied one, a coup de grâce.
pub fn miss_chance_at(
    field: &Battlefield,
    attacker: &CombatantItem,
    target: &CombatantItem,
    theirs: Footprint,
    ranged: bool,
) -> u32 {
    miss_chance_from(field, (attacker, attacker.space.at(attacker.position.0)), target, theirs, ranged)
}

/// [`miss_chance_at`] with `attacker` standing on `own`: a foe seeing a creature as it moves by.
pub fn miss_chance_from(
    field: &Battlefield,
    (attacker, own): (&CombatantItem, Footprint),
    target: &CombatantItem,
    theirs: Footprint,
    ranged: bool,
) -> u32 {
    let darkvision = darkvision_reaches_from(field, (attacker, own), (theirs, target.altitude.0));
    concealment(field, own, theirs, darkvision, !ranged && own.touches(theirs))
        .max(condition_miss_chance(attacker, target))
}

/// Whether `looker` can see `seen` (« les adversaires que le personnage peut voir », 004:243): `seen` is
/// not totally concealed from it (invisible, in the dark beyond its darkvision, itself blinded: 004:413-415,
/// as a melee blow would find it) and has not hidden from it (004:816-817).
pub fn sees(field: &Battlefield, looker: &CombatantItem, seen: &CombatantItem) -> bool {
    let theirs = seen.space.at(seen.position.0);
    miss_chance_at(field, looker, seen, theirs, false) < cover::TOTAL_CONCEALMENT
        && !crate::rules::core::creature::lost_sight(seen.hidden, looker.entity)
}

/// Whether `attacker`, standing on `own`, sees `theirs` at `altitude` by darkvision
/// ([`cover::darkvision_reaches`], 004:415).
pub fn darkvision_reaches_from(
    field: &Battlefield,
    (attacker, own): (&CombatantItem, Footprint),
    (theirs, altitude): (Footprint, i32),
) -> bool {
    cover::darkvision_reaches(field, attacker.traits.darkvision_m, (own, attacker.altitude.0), (theirs, altitude))
}

/// Whether `target`, on `theirs`, cannot see `attacker` on `own`: the attacker totally concealed from it (in
/// the dark beyond its sight, invisible, itself blinded), hidden from it, as [`sees`] asks, or wholly in
/// its blind spot, where a flier has no line of sight (004:676; [`unseen_from`]). « s'il ne les
/// voit pas venir, sa vitesse de réaction ne lui sert à rien » (004:31): it loses its Dex bonus to AC
/// against that attack (004:379), and a sneak attack finds it.
pub fn attacker_unseen(
    field: &Battlefield,
    (attacker, own): (&CombatantItem, Footprint),
    (target, theirs): (&CombatantItem, Footprint),
) -> bool {
    let behind = || {
        let blind = unseen_from(target, theirs);
        !blind.is_empty() && own.squares().all(|s| blind.contains(&s))
    };
    miss_chance_from(field, (target, theirs), attacker, own, false) >= cover::TOTAL_CONCEALMENT
        || crate::rules::core::creature::lost_sight(attacker.hidden, target.entity)
        || behind()
}

/// Whether `attacker`, not invisible, attacks `target` from hiding: `target` lost sight of it (004:403,
/// 004:412, 004:816-817). It attacks as an invisible attacker would (004:379); the attack shows it.
pub fn unseen_by(attacker: &CombatantItem, target: &CombatantItem) -> bool {
    !attacker.conditions.has(Condition::Invisible)
        && crate::rules::core::creature::lost_sight(attacker.hidden, target.entity)
}

/// The miss chance conditions give: an invisible target or a blinded attacker, total concealment, 50%
/// (004:413-415; a blinded creature sees no one, our ruling after 004:386).
pub fn condition_miss_chance(attacker: &CombatantItem, target: &CombatantItem) -> u32 {
    if target.conditions.has(Condition::Invisible) || attacker.conditions.has(Condition::Blinded) {
        cover::TOTAL_CONCEALMENT
    } else {
        0
    }
}

/// The chance, from 0 to 1, that one attack of `plan` with `bonus` in all hits: a natural 20 always hits,
/// a natural 1 always misses (004:4), then the concealment miss chance.
pub fn chance_to_hit(bonus: i32, armor_class: i32, miss_chance: u32) -> f32 {
    let hits = (1..=20).filter(|&roll| roll == 20 || (roll != 1 && roll + bonus >= armor_class)).count();
    hits as f32 / 20.0 * (100 - miss_chance.min(100)) as f32 / 100.0
}

/// Carries out attack intents, one after the other: each is checked and paid for, the attacks of
/// opportunity it provokes fall (a ranged or unarmed attack, 004:90, 004:168), then its blows are rolled.
fn resolve_attacks(world: &mut World, mut intents: Local<MessageCursor<AttackIntent>>) {
    let mut read: std::collections::VecDeque<AttackIntent> =
        intents.read(world.resource::<Messages<AttackIntent>>()).cloned().collect();
    while let Some(mut intent) = read.pop_front() {
        // A full attack from hiding: its first blow is unseen, and shows the attacker (004:379; docs/rulings.md):
        // that blow alone, then the rest, seen.
        let unseen = intent.full
            && intent.blows.is_none_or(|n| n > 1)
            && world.get::<Hidden>(intent.attacker).is_some_and(|h| h.from.contains(&intent.target));
        let rest = unseen.then(|| intent.blows.replace(1).map(|n| n - 1));
        if world.run_system_cached_with(guide_with_knees, intent.clone()).is_err() {
            continue;
        }
        let Ok(Some(prepared)) = world.run_system_cached_with(prepare_attack_intent, intent.clone()) else {
            continue;
        };
        if prepared.defensively {
            crate::rules::turns::moving::gain_now(world, intent.attacker, Condition::FightingDefensively);
        }
        if provoked_by_attacking(world, intent.attacker, prepared.provokes, prepared.from) {
            continue;
        }
        strike_blows(world, &intent, prepared);
        if let Some(rest) = rest {
            hiding::show(world, intent.attacker);
            if world.get::<FullAttackUnderway>(intent.attacker).is_some() && !foe_down(world, intent.target) {
                read.push_front(AttackIntent { blows: rest, ..intent });
            }
        }
    }
}

/// A rider about to attack with both hands in its turn guides its mount with its knees first, once a round:
/// Ride DC 5, a free action (004:476), rolled only when a roll can fail it. Failed, the attack is refused
/// by the checks that follow (`reins_in_hand`), and the rider may attack with one hand. An attack the rules
/// would refuse anyway rolls nothing: a refused action changes nothing.
fn guide_with_knees(
    In(intent): In<AttackIntent>,
    mut commands: Commands,
    (order, field): (Res<TurnOrder>, Res<Battlefield>),
    creatures: Query<Combatant, With<Creature>>,
    (underway, budgets): (Query<&FullAttackUnderway>, Query<&ActionBudget>),
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    let Ok(rider) = creatures.get(intent.attacker) else { return };
    if !order.acting.contains(&intent.attacker) || rider.knees.is_some_and(|k| k.round == order.round) {
        return;
    }
    let under = underway.get(intent.attacker).ok();
    let two_weapons = under.map_or(intent.two_weapons, |u| u.two_weapons);
    let Some(weapon) = rider.armament.chosen(intent.weapon.as_deref()) else { return };
    if !takes_both_hands(&rider, weapon, two_weapons && intent.full) {
        return;
    }
    let (Ok(target), Ok(budget)) = (creatures.get(intent.target), budgets.get(intent.attacker)) else { return };
    let request = attack_request(&intent, under);
    if prepare_attack(&field, &order, &creatures, &rider, &target, request, budget).is_err() {
        return;
    }
    let made = knees_bonus(&rider).is_none_or(|bonus| {
        crate::rules::core::checks::roll_check(
            &mut dice,
            &mut facts,
            rider.id,
            crate::rules::core::names::Check::Ride,
            "guiding its mount with its knees (004:476)",
            bonus,
            KNEES_RIDE_DC,
        )
    });
    commands.entity(intent.attacker).insert(Knees { round: order.round, made });
}

/// Lets the foes that threaten `who` strike at it for an action that provokes where it stands (004:66);
/// whether it dropped.
pub fn provoke(world: &mut World, who: Entity, only: Option<Entity>, action: Action, why: &'static str) -> bool {
    provoke_as(world, Provoking { only, ..Provoking::new(who, action, why) }).dropped
}

/// Lets the foes strike at a creature provoking as `provoking` says: who may strike, the space it shares.
/// The provocation, with whether it dropped and who struck.
pub fn provoke_as(world: &mut World, mut provoking: Provoking) -> Provoking {
    world.trigger_ref(&mut provoking);
    world.flush();
    provoking
}

/// An attack checked and paid for, its blows still to strike.
struct PreparedAttack {
    /// The main hand's plan.
    plan: AttackPlan,
    /// The off hand's, with two weapons.
    off_hand_plan: Option<AttackPlan>,
    /// A full attack begun earlier that this intent goes on with.
    underway: Option<FullAttackUnderway>,
    /// With two weapons.
    two_weapons: bool,
    /// With two weapons, the off hand strikes first (004:231).
    off_first: bool,
    /// It provokes where the attacker makes it: who may strike (all if `None`) and why.
    provokes: Option<(Option<Entity>, &'static str)>,
    /// Where it makes it, if not where it stands: a rider's shot from its mount's halfway point (004:479).
    from: Option<Footprint>,
    /// It begins fighting defensively (004:183).
    defensively: bool,
}

/// Checks an attack intent and pays for it, or writes why not.
fn prepare_attack_intent(
    In(intent): In<AttackIntent>,
    mut commands: Commands,
    underway: Query<&FullAttackUnderway>,
    (order, field): (Res<TurnOrder>, Res<Battlefield>),
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut facts: MessageWriter<Fact>,
) -> Option<PreparedAttack> {
    let (Ok(attacker), Ok(target)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else {
        return None;
    };
    let refuse = |refusal: Refusal| Fact::ActionRefused {
        creature: attacker.id.clone(),
        action: Action::Attack,
        reason: refusal.reason,
        rule: refusal.rule,
    };
    let Ok(mut budget) = budgets.get_mut(intent.attacker) else { return None };
    let underway = if intent.full { underway.get(intent.attacker).ok().cloned() } else { None };
    // Fighting defensively is chosen for the whole full attack, « toutes ses attaques » at -4 (004:183,
    // 004:233): not after a blow that went without it.
    if intent.defensively && underway.is_some() && !attacker.conditions.has(Condition::FightingDefensively) {
        facts.write(refuse(Refusal::new(
            "fighting defensively is chosen as the full attack begins: a blow went without it",
            "004:183, 004:233",
        )));
        return None;
    }
    let two_weapons = underway.as_ref().map_or(intent.two_weapons, |u| u.two_weapons);
    // With two weapons the attacker « choisit laquelle frappe en premier » (004:231): naming the off hand's
    // weapon, it strikes first; the main hand's weapon is still the main plan's.
    let off_first = underway.as_ref().map_or_else(
        || two_weapons && intent.full && off_hand_named(attacker.armament, intent.weapon.as_deref()).is_some(),
        |u| u.off_first,
    );
    let main_hand = off_hand_named(attacker.armament, intent.weapon.as_deref())
        .and_then(|off| attacker.armament.ready().find(|w| !w.off_hand && !w.natural && pairs_with(w, off)))
        .map(|w| w.name.clone())
        .filter(|_| two_weapons && intent.full);
    let request = AttackRequest {
        weapon: main_hand.as_deref().or(intent.weapon.as_deref()),
        ..attack_request(&intent, underway.as_ref())
    };
    let planned = prepare_attack(&field, &order, &creatures, &attacker, &target, request, &budget);
    let plan = match planned {
        Ok(plan) => plan,
        Err(refusal) => {
            facts.write(refuse(refusal));
            return None;
        }
    };
    // Two weapons (004:462-472): the off-hand weapon's plan, and the penalties on both hands.
    let mut plan = plan;
    if intent.dive {
        plan.multipliers.push(Modifier::new(2, "dive attack (004:753)"));
    } else if intent.swoop {
        plan.multipliers.push(Modifier::new(2, "swoop (004:751)"));
    }
    let mut off_hand_plan = None;
    if two_weapons {
        let planned = if intent.full {
            plan_off_hand(&field, &order, &creatures, &attacker, &target, &mut plan, &budget, request)
        } else {
            Err(Refusal::new("the off-hand attack comes with a full attack only", "004:462"))
        };
        match planned {
            Ok(off_plan) => off_hand_plan = Some(off_plan),
            Err(refusal) => {
                facts.write(refuse(refusal));
                return None;
            }
        }
    }
    // A full attack of a single blow (a base attack below +6, a crossbow shot once a round) is the attack
    // it begins with, a standard action: the full attack is told from it only by its second blow (004:231).
    let full =
        intent.full && (two_weapons || underway.is_some() || blow_bonuses(&attacker, &plan.weapon, true).len() > 1);
    if !intent.charge && !intent.readied && !intent.dive && !intent.trample && !intent.cleave && underway.is_none() {
        let _ = budget.spend(if full { ActionKind::FullRound } else { ActionKind::Standard });
    }
    if !intent.readied {
        rider_binds_its_mount(&mut commands, &order, &creatures, &attacker, &plan.weapon, full);
    }
    // Fighting defensively is in force from this attack on: against the foes its own provocation draws too
    // (004:183, 004:168), so it is given as the attack goes ahead, before them.
    let defensively = intent.defensively && !attacker.conditions.has(Condition::FightingDefensively);
    // A charge held does not arm its holder's own unarmed attack (« le personnage n'est pas considéré comme
    // armé et provoque normalement une attaque d'opportunité », 004:201).
    let armed = crate::rules::core::creature::armed_unarmed(attacker.traits, attacker.feats, false);
    let unarmed = plan.weapon.unarmed && !armed;
    // A ranged attack in a threatened square provokes (004:90, "Attaque à distance | Oui"): the foes strike
    // first, and an archer who drops does not shoot. An unarmed attack by a creature that is not "armed"
    // provokes from its armed target only, before it lands (004:168).
    let provokes = if unarmed {
        Some((Some(intent.target), "an unarmed attack on an armed foe (004:168)"))
    } else {
        provokes_as_a_shot(&plan.weapon).map(|why| (None, why))
    };
    let from = Some(attacks_from(&order, &creatures, &attacker, is_ranged(&plan.weapon)))
        .filter(|&at| at != attacker.space.at(attacker.position.0));
    Some(PreparedAttack { plan, off_hand_plan, underway, two_weapons, off_first, provokes, from, defensively })
}

/// The foes strike at an attacker whose attack provokes as `provokes` says (004:90, 004:168), where it makes
/// it (`from`, if not where it stands); whether one dropped it.
fn provoked_by_attacking(
    world: &mut World,
    attacker: Entity,
    provokes: Option<(Option<Entity>, &'static str)>,
    from: Option<Footprint>,
) -> bool {
    let Some((only, why)) = provokes else { return false };
    provoke_as(world, Provoking { only, at: from, ..Provoking::new(attacker, Action::Attack, why) }).dropped
}

/// What an attack intent asks for, going on with the full attack `underway` if any: its next blows are
/// paid for, and go at whichever foe it names (« il peut décider au fur et à mesure », 004:229).
fn attack_request<'a>(intent: &'a AttackIntent, underway: Option<&FullAttackUnderway>) -> AttackRequest<'a> {
    AttackRequest {
        weapon: intent.weapon.as_deref(),
        charge: intent.charge,
        full: intent.full,
        defensively: intent.defensively,
        lethal: intent.lethal,
        nonlethal: intent.nonlethal,
        power: intent.power,
        readied: intent.readied,
        anytime: intent.cleave,
        paid: underway.is_some() || intent.dive || intent.trample || intent.cleave,
        splash: false,
        disarming: false,
        two_weapons: Some(intent.two_weapons),
        feint_spent: false,
    }
}

/// Why the rules would refuse an attack intent as things stand, checked as [`prepare_attack_intent`]
/// checks it and paying nothing: a refused attack is no action, and sets off no readied action (004:621).
pub fn attack_refusal(
    In(intent): In<AttackIntent>,
    underway: Query<&FullAttackUnderway>,
    order: Res<TurnOrder>,
    creatures: Query<Combatant, With<Creature>>,
    budgets: Query<&ActionBudget>,
    field: Res<Battlefield>,
) -> Option<Refusal> {
    let (Ok(attacker), Ok(target)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else {
        return Some(Refusal::new("no such creature", "data"));
    };
    let budget = budgets.get(intent.attacker).copied().unwrap_or_default();
    let underway = if intent.full { underway.get(intent.attacker).ok().cloned() } else { None };
    let request = attack_request(&intent, underway.as_ref());
    prepare_attack(&field, &order, &creatures, &attacker, &target, request, &budget).err()
}

/// Where a readier whose readied attack falls out of its reach steps first, 1.5 m, to strike: « Le
/// personnage peut effectuer un pas de placement de 1,50 mètre en combinaison avec son action préparée,
/// mais uniquement s'il ne se déplace pas par ailleurs pendant tout le round » (004:623). The first square
/// of its 5-foot step from which the rules allow the attack, asked as they ask it (the attacker set there
/// for the question, then back); `None` when it strikes from where it stands, has moved this round, or no
/// step brings the foe within its reach.
pub fn step_to_strike(world: &mut World, intent: &AttackIntent) -> Option<Square> {
    world.run_system_cached_with(attack_refusal, intent.clone()).ok().flatten()?;
    let squares = world
        .run_system_cached_with(crate::rules::turns::moving::five_foot_step_squares, intent.attacker)
        .unwrap_or_default();
    let home = *world.get::<Position>(intent.attacker)?;
    let mut found = None;
    for square in squares {
        world.entity_mut(intent.attacker).insert(Position(square));
        if world.run_system_cached_with(attack_refusal, intent.clone()).ok().flatten().is_none() {
            found = Some(square);
            break;
        }
    }
    world.entity_mut(intent.attacker).insert(home);
    found
}

/// Whether a readied attack could strike now: from where the readier stands, or after the 5-foot step it may
/// take with it (004:623); the rules' own refusal asked as an attack asks it.
pub fn may_strike_readied(world: &mut World, intent: &AttackIntent) -> bool {
    world.run_system_cached_with(attack_refusal, intent.clone()).ok().flatten().is_none()
        || step_to_strike(world, intent).is_some()
}

/// The base attack term of an attack's modifiers (or of an opposed attack roll's), which a later blow of a
/// full attack sets to its iterative bonus (004:229).
pub fn base_attack_term(terms: &mut [Modifier]) -> Option<&mut Modifier> {
    terms.iter_mut().find(|m| m.source == "base attack")
}

/// Readies the blows of a prepared attack, in order, each plan with its own attack bonus: the iterative
/// attacks of a full attack (004:229), then the off hand's (004:462). Keeps a full attack underway when only
/// some of its blows are struck now.
fn ready_blows(
    In((intent, prepared)): In<(AttackIntent, PreparedAttack)>,
    mut commands: Commands,
    creatures: Query<Combatant, With<Creature>>,
    (field, order): (Res<Battlefield>, Res<TurnOrder>),
    mut strain: MessageWriter<Strain>,
) -> Blows {
    let Ok(attacker) = creatures.get(intent.attacker) else { return Blows::default() };
    let PreparedAttack { plan, off_hand_plan, underway, two_weapons, off_first, .. } = prepared;
    let first = underway.as_ref().map_or(0, |u| u.struck);
    // The attack action, once begun: it costs a creature disabled once it is done 1 hit point (004:274), a
    // readied one too, taken by a creature disabled since it readied it (readying while disabled left it
    // dying, and able to take nothing).
    if first == 0 {
        strain.write(Strain::standard_action(intent.attacker));
        // A mount's charge ends in its rider's blow: done then, it strains the mount too (004:274, 004:478).
        let mount = attacker.riding.and_then(|r| creatures.get(r.0).ok());
        if let (Some(mount), Ok(target)) = (mount, creatures.get(intent.target))
            && !is_ranged(&plan.weapon)
            && charged_by_mount(&order, &mount, &target)
        {
            strain.write(Strain::standard_action(mount.entity));
        }
    }
    let bonuses = blow_bonuses(&attacker, &plan.weapon, intent.full);
    // A full attack with natural weapons strikes with each (004:696): a blow whose weapon cannot strike this
    // foe (out of its reach) is lost.
    let naturals: Vec<Option<AttackPlan>> = if intent.full && plan.weapon.natural {
        let target = creatures.get(intent.target);
        natural_weapons(attacker.armament)
            .into_iter()
            .map(|w| {
                let own = if w.name == plan.weapon.name {
                    plan.clone()
                } else {
                    let request = AttackRequest {
                        weapon: Some(&w.name),
                        paid: true,
                        ..attack_request(&intent, underway.as_ref())
                    };
                    let target = target.as_ref().ok()?;
                    prepare_attack(&field, &order, &creatures, &attacker, target, request, &ActionBudget::default())
                        .ok()?
                };
                Some(own)
            })
            .collect()
    } else {
        Vec::new()
    };
    // Each blow: its bonus, its plan, whether it is the off hand's (at the first bonus, last or first as the
    // attacker chose, 004:231, 004:462).
    let off = off_hand_plan.as_ref().map(|p| (bonuses[0], Some(p), true));
    let all: Vec<(i32, Option<&AttackPlan>, bool)> = if !naturals.is_empty() {
        bonuses.iter().zip(naturals.iter()).map(|(b, p)| (*b, p.as_ref(), false)).collect()
    } else if off_first {
        off.into_iter().chain(bonuses.iter().map(|b| (*b, Some(&plan), false))).collect()
    } else {
        bonuses.iter().map(|b| (*b, Some(&plan), false)).chain(off).collect()
    };
    let all_count = all.len();
    let last = match intent.blows {
        Some(n) if intent.full => (first + n.max(1) as usize).min(all_count),
        _ => all_count,
    };
    if last < all.len() {
        commands.entity(intent.attacker).insert(FullAttackUnderway { struck: last, two_weapons, off_first });
    } else if underway.is_some() {
        commands.entity(intent.attacker).remove::<FullAttackUnderway>();
    }
    let mut blows = Vec::new();
    let main_first = usize::from(off_first);
    for (i, (bonus, plan, off_hand)) in all.into_iter().enumerate().take(last).skip(first) {
        let Some(plan) = plan else { continue };
        let mut this = plan.clone();
        // An aid another is for the next attack only (004:444): not the blows after it; a feint likewise
        // (« contre la prochaine attaque au corps à corps », 004:524).
        if !blows.is_empty() {
            if let Ok(target) = creatures.get(intent.target) {
                feint_spent(
                    &mut this,
                    (&field, &order, &creatures),
                    (&attacker, &target),
                    (&intent, underway.as_ref()),
                );
            }
            without_aid(&mut this);
        }
        if let Some(base) = base_attack_term(&mut this.modifiers) {
            base.value = bonus;
            if off_hand {
                base.source = "base attack, off hand".into();
            } else if i > 0 && !naturals.is_empty() {
                base.source = format!("base attack, natural weapon {} of the full attack", i + 1);
            } else if i > main_first {
                base.source = format!("base attack, attack {} of the full attack", i + 1 - main_first);
            }
        }
        blows.push(this);
    }
    Blows { plans: blows, first, total: all_count, two_weapons, off_first }
}

/// The blows an attack intent strikes now, and where they stand in its full attack.
#[derive(Default)]
struct Blows {
    /// Each blow's plan, in order.
    plans: Vec<AttackPlan>,
    /// How many blows of the full attack were struck before them.
    first: usize,
    /// How many blows the full attack has in all.
    total: usize,
    /// With two weapons.
    two_weapons: bool,
    /// The off hand's blow first.
    off_first: bool,
}

/// A blow after the one a feint was spent on (004:524): its AC and sneak attack as the rules give them
/// without the feint, its attack terms (the hand, the blow's bonus) left as they are.
fn feint_spent(
    plan: &mut AttackPlan,
    (field, order, creatures): (&Battlefield, &TurnOrder, &Query<Combatant, With<Creature>>),
    (attacker, target): (&CombatantItem, &CombatantItem),
    (intent, underway): (&AttackIntent, Option<&FullAttackUnderway>),
) {
    if !plan.armor_class_parts.iter().any(|m| m.source == FEINTED) {
        return;
    }
    let request = AttackRequest {
        weapon: Some(&plan.weapon.name),
        paid: true,
        feint_spent: true,
        ..attack_request(intent, underway)
    };
    let Ok(spent) = prepare_attack(field, order, creatures, attacker, target, request, &ActionBudget::default()) else {
        return;
    };
    let sneaks = spent.sneaks();
    plan.armor_class = spent.armor_class;
    plan.armor_class_parts = spent.armor_class_parts;
    if plan.sneaks() && !sneaks {
        plan.extra_dice.truncate(usize::from(plan.weapon.extra.is_some()));
        plan.damage_modifiers.retain(|m| !m.source.starts_with("sneak attack"));
    }
}

/// Takes an aid another's bonuses out of a plan: its first blow spent them (004:444).
fn without_aid(plan: &mut AttackPlan) {
    plan.modifiers.retain(|m| m.source != AID_ON_ATTACK);
    drop_armor_class_parts(plan, &[AID_ON_ARMOR_CLASS]);
}

/// Takes the parts of a plan's AC with these sources out of it, and their value out of its AC.
fn drop_armor_class_parts(plan: &mut AttackPlan, sources: &[&str]) {
    let dropped: i32 =
        plan.armor_class_parts.iter().filter(|m| sources.contains(&m.source.as_str())).map(|m| m.value).sum();
    plan.armor_class -= dropped;
    plan.armor_class_parts.retain(|m| !sources.contains(&m.source.as_str()));
}

/// Strikes the blows of a prepared attack one after the other. Each hit's damage is triggered, so the
/// chapter of health applies it and logs the hit points before the next blow is rolled (a foe dropped by the
/// first blow changes what the second may do, 004:229); no blow falls on a foe already down.
fn strike_blows(world: &mut World, intent: &AttackIntent, prepared: PreparedAttack) {
    let (provokes, from) = (prepared.provokes, prepared.from);
    let Ok(Blows { plans, first, total, two_weapons, off_first }) =
        world.run_system_cached_with(ready_blows, (intent.clone(), prepared))
    else {
        return;
    };
    for (i, plan) in plans.into_iter().enumerate() {
        // A weapon thrown is no longer in hand: a later blow of that hand needs another one drawn (004:218);
        // the other hand's still throws (004:472).
        let thrown = matches!(plan.weapon.delivery, Delivery::Thrown { .. });
        if thrown && !world.get::<Armament>(intent.attacker).is_some_and(|a| gear::in_hand(a, &plan.weapon)) {
            continue;
        }
        // A crossbow shot must be loaded again before it shoots (004:120, 004:137).
        if world
            .get::<Armament>(intent.attacker)
            .is_some_and(|a| a.ready().any(|w| w.name == plan.weapon.name && w.unloaded))
        {
            break;
        }
        // Each shot (or unarmed blow) of a full attack is an attack that provokes on its own: a foe with
        // Combat Reflexes strikes at each, one blow per opportunity (004:68, 004:90, 004:168). The first
        // provoked before the blows were readied.
        if i > 0 && provoked_by_attacking(world, intent.attacker, provokes, from) {
            break;
        }
        let weapon = plan.weapon.clone();
        let Ok(hit) = world.run_system_cached_with(strike_blow, (intent.clone(), plan)) else { return };
        gear::shot(world, intent.attacker, &weapon);
        if let Some(at) = world.get::<Position>(intent.target).map(|p| p.0) {
            gear::throw_away(world, intent.attacker, &weapon, at);
        }
        if let Some(damage) = hit {
            let wounded = damage.amount > 0;
            world.trigger(damage);
            world.flush();
            // A poisoned blow that deals damage: the poison's save (004:28).
            if let (Some(poison), true) = (weapon.poison, wounded) {
                let _ = world.run_system_cached_with(poison::envenom, (intent.attacker, intent.target, poison));
            }
        }
        // Its foe down, the blows left may go at another, or be given up for a move action (004:229, 004:232).
        if foe_down(world, intent.target) {
            if first + i + 1 < total {
                let rest = FullAttackUnderway { struck: first + i + 1, two_weapons, off_first };
                world.entity_mut(intent.attacker).insert(rest);
            }
            break;
        }
    }
}

/// Whether the foe of a full attack is down, its wounds applied blow by blow: the blows left are for
/// another (004:229), as Cleave reads a foe dropped (004:234).
fn foe_down(world: &World, target: Entity) -> bool {
    world.get::<Conditions>(target).is_none_or(|c| c.dropped())
}

/// Rolls one blow; the damage it deals, if it hits.
fn strike_blow(
    In((intent, plan)): In<(AttackIntent, AttackPlan)>,
    mut dice: ResMut<Dice>,
    creatures: Query<Combatant, With<Creature>>,
    mut facts: MessageWriter<Fact>,
) -> Option<Damage> {
    let (Ok(attacker), Ok(target)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else {
        return None;
    };
    let hit = roll_planned_attack(&plan, attacker.id, target.id, target.traits, &mut dice, &mut facts)?;
    Some(Damage { target: intent.target, amount: hit.amount, nonlethal: hit.nonlethal, from_one_attack: true })
}

/// Whether a creature in `state` may take total defence, its turn and action aside: able to act, and not in a
/// grapple, whose actions it is not among (004:592-613).
pub fn total_defense_refusal(state: &Conditions) -> Result<(), Refusal> {
    crate::rules::core::creature::able_to_act(state)
        .and_then(|()| crate::rules::core::creature::out_of_grapple(state, "total defence"))
}

/// Takes total defence: checks the turn and the standard action, then sets the condition until the next
/// turn (004:211).
pub fn take_total_defense(
    mut intents: MessageReader<TotalDefenseIntent>,
    order: Res<TurnOrder>,
    mut creatures: Query<(&CreatureId, &mut ActionBudget, &Conditions)>,
    mut facts: MessageWriter<Fact>,
    mut conditions: MessageWriter<ConditionChange>,
    mut strain: MessageWriter<Strain>,
) {
    for intent in intents.read() {
        let Ok((id, mut budget, state)) = creatures.get_mut(intent.creature) else { continue };
        let checked = order
            .check_turn_unless_readied(intent.creature, intent.readied)
            .and_then(|()| total_defense_refusal(state))
            .and_then(|()| budget.spend_unless_readied(ActionKind::Standard, intent.readied));
        match checked {
            Ok(()) => {
                conditions.write(ConditionChange {
                    creature: intent.creature,
                    condition: Condition::TotalDefense,
                    gained: true,
                });
                strain.write(Strain::standard_action(intent.creature));
            }
            Err(refusal) => {
                facts.write(Fact::ActionRefused {
                    creature: id.clone(),
                    action: Action::TotalDefense,
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
            }
        }
    }
}

/// Why a coup de grâce cannot be delivered, if it cannot (004:424-427).
pub fn check_coup_de_grace(
    (field, order, creatures): (&Battlefield, &TurnOrder, &Query<Combatant, With<Creature>>),
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
) -> Result<(), Refusal> {
    crate::rules::core::creature::within_the_fight(target.conditions)?;
    if !target.conditions.is_helpless() || target.conditions.has(Condition::Dead) {
        return Err(Refusal::new(format!("{} is not helpless", target.id), "004:424"));
    }
    if target.traits.immune_to_criticals {
        return Err(Refusal::new(format!("{} is immune to critical hits", target.id), "004:427"));
    }
    let own = attacker.space.at(attacker.position.0);
    let theirs = target.space.at(target.position.0);
    // « avec une arme de corps à corps … avec un arc ou une arbalète » from an adjacent square (004:424): no
    // sling, no thrown weapon.
    let bow = matches!(weapon.delivery, Delivery::Projectile { .. }) && weapon.name.contains("bow");
    let reaches = match weapon.delivery {
        Delivery::Melee => melee_reaches(field.diagonals(), attacker.reach.0, weapon.reach_kind(), own, theirs),
        // Adjacent in height too (004:783-784): one step between their bodies at most, as a square beside.
        Delivery::Projectile { .. } => {
            bow && own.touches(theirs)
                && vertical_steps(field.scale(), attacker.altitude.0, *attacker.size, target.altitude.0, *target.size)
                    <= 1
        }
        Delivery::Thrown { .. } => false,
    };
    if !reaches {
        return Err(Refusal::new(
            "a coup de grâce is struck in melee, or with a bow or crossbow from an adjacent square",
            "004:424",
        ));
    }
    // A crossbow shoots its coup de grâce as any shot: loaded (004:120, 004:137).
    crate::rules::core::gear::check_loaded(weapon)?;
    // It is an attack: none at a creature with total cover (004:406).
    if cover_against(field, attacker, target, is_ranged(weapon), &[]) == Cover::Total {
        return Err(Refusal::new(format!("{} has total cover", target.id), "004:406"));
    }
    // It is an attack (« porter un coup de grâce », 004:424): what refuses the attack refuses it (a prone
    // archer's bow, 004:375; a foe out of reach in height, 004:783-784; a grappler's foe outside its grapple,
    // 004:594; squeezed narrower than half its space, 000:121-123; out of sight), its action paid apart.
    let request = AttackRequest { weapon: Some(&weapon.name), paid: true, ..Default::default() };
    prepare_attack(field, order, creatures, attacker, target, request, &ActionBudget::default()).map(|_| ())
}

/// Whether `target` has total concealment from `attacker`'s coup de grâce with `weapon`: then it takes two
/// full-round actions in a row (004:427).
pub fn coup_de_grace_in_total_concealment(
    field: &Battlefield,
    attacker: &CombatantItem,
    target: &CombatantItem,
    weapon: &Weapon,
) -> bool {
    let theirs = target.space.at(target.position.0);
    miss_chance_at(field, attacker, target, theirs, is_ranged(weapon)) >= cover::TOTAL_CONCEALMENT
}

/// Carries out coups de grâce: the full-round action, the attacks of opportunity it provokes (004:426), the
/// automatic critical, then the Fortitude save against death.
fn deliver_coups_de_grace(world: &mut World, mut intents: Local<MessageCursor<CoupDeGraceIntent>>) {
    let read: Vec<CoupDeGraceIntent> = intents.read(world.resource::<Messages<CoupDeGraceIntent>>()).cloned().collect();
    for intent in read {
        let Ok(Some(weapon)) = world.run_system_cached_with(begin_coup_de_grace, intent.clone()) else { continue };
        if provoke(world, intent.attacker, None, Action::CoupDeGrace, "a coup de grâce (004:426)") {
            continue;
        }
        let attacker = intent.attacker;
        let _ = world.run_system_cached_with(strike_coup_de_grace, (intent, weapon.clone()));
        // A crossbow's coup de grâce is a shot: it must be loaded again (004:120, 004:137).
        gear::shot(world, attacker, &weapon);
    }
}

/// Checks a coup de grâce and pays for it (or begins it over two rounds), or writes why not; the weapon to
/// strike with when it is to be struck now.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
fn begin_coup_de_grace(
    In(intent): In<CoupDeGraceIntent>,
    mut commands: Commands,
    begun: Query<&FullRoundBegun>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut facts: MessageWriter<Fact>,
    mut strain: MessageWriter<Strain>,
) -> Option<Weapon> {
    let (Ok(attacker), Ok(target)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else {
        return None;
    };
    let Ok(mut budget) = budgets.get_mut(intent.attacker) else { return None };
    let weapon = attacker.armament.chosen(intent.weapon.as_deref());
    // A restricted creature begins a full-round action with one standard action and finishes it with
    // another the next round (004:86, 004:212); against total concealment the coup de grâce takes two
    // full-round actions in a row (004:427), the first begun, the second striking.
    let concealed =
        weapon.is_some_and(|w| coup_de_grace_in_total_concealment(&field, &attacker, &target, w)) && !budget.restricted;
    let step = if concealed { ActionKind::FullRound } else { ActionKind::Standard };
    let finishing = begun.get(intent.attacker).is_ok_and(|b| {
        b.action == BegunAction::CoupDeGrace { target: intent.target }
            && b.round + 1 == order.round
            && budget.check_kind(step).is_ok()
    });
    let beginning = !finishing && (budget.restricted || concealed) && budget.check_kind(step).is_ok();
    let checked = order
        .check_turn(intent.attacker)
        .and_then(|()| if finishing || beginning { Ok(()) } else { budget.check_full_round() })
        .and_then(|()| weapon.ok_or_else(|| Refusal::new("no such weapon", "data")))
        .and_then(|w| crate::rules::core::gear::put_away(w).map(|()| w))
        .and_then(|w| {
            check_coup_de_grace((&field, &order, &creatures), &attacker, &target, w)
                .map(|()| gripped(&attacker, w.clone()))
        });
    let weapon = match checked {
        Ok(weapon) => weapon,
        Err(refusal) => {
            facts.write(Fact::ActionRefused {
                creature: attacker.id.clone(),
                action: Action::CoupDeGrace,
                reason: refusal.reason,
                rule: refusal.rule,
            });
            return None;
        }
    };
    if beginning || finishing {
        strain.write(Strain::standard_action(intent.attacker));
    }
    if beginning {
        let _ = budget.spend(step);
        facts.write(Fact::FullRoundActionBegun { creature: attacker.id.clone(), action: Action::CoupDeGrace });
        commands
            .entity(intent.attacker)
            .insert(FullRoundBegun { action: BegunAction::CoupDeGrace { target: intent.target }, round: order.round });
        return None;
    }
    if finishing {
        let _ = budget.spend(step);
        commands.entity(intent.attacker).remove::<FullRoundBegun>();
    } else {
        let _ = budget.spend(ActionKind::FullRound);
    }
    Some(weapon)
}

/// What the log says of a weapon's fire put out by the water.
const QUENCHED: &str = "its fire goes out under water (004:635)";

/// Whether `weapon`'s fire is put out: « Les feux ordinaires … ne brûlent pas sous l'eau … les sorts et effets
/// magiques affichant le registre du feu sont inefficaces » (004:635): its extra fire dice count for nothing
/// when the attacker or its target is in the water, the blade striking under it.
pub fn quenched(weapon: &Weapon, waters: &underwater::Waters) -> bool {
    weapon.extra_fire && weapon.extra.is_some() && (waters.attacker.is_some() || waters.target.is_some())
}

/// Strikes a coup de grâce: it hits and is a critical; the foe saves (Fortitude, DC 10 + the damage) or
/// dies (004:424).
fn strike_coup_de_grace(
    In((intent, mut weapon)): In<(CoupDeGraceIntent, Weapon)>,
    mut dice: ResMut<Dice>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut slay: MessageWriter<Slay>,
) {
    let (Ok(attacker), Ok(target)) = (creatures.get(intent.attacker), creatures.get(intent.target)) else {
        return;
    };
    // The terms of any blow with the weapon, Point Blank Shot from the square beside, and half damage in
    // the water where the table says (004:637-645): an automatic critical of the same blow (004:424).
    let mut modifiers = weapon_damage_terms(&attacker, &weapon);
    let (own, theirs) = (attacker.space.at(attacker.position.0), target.space.at(target.position.0));
    if is_ranged(&weapon) {
        let distance = crate::rules::core::altitude::separation_m(
            field.scale(),
            field.diagonals(),
            (own, attacker.altitude.0),
            (theirs, target.altitude.0),
        );
        modifiers.extend(point_blank_shot(&attacker, distance));
    }
    let waters = underwater::waters(&field, (&attacker, own), (&target, theirs));
    let halved = underwater::water_terms(&waters, &weapon, &mut Vec::new()).unwrap_or(false);
    if quenched(&weapon, &waters) {
        weapon.extra = None;
        modifiers.push(Modifier::new(0, QUENCHED));
    }
    // A rogue adds its sneak attack to the coup de grâce's critical (004:425), its dice thrown once (004:27).
    let mut extra: Vec<crate::rules::core::dice::DiceExpr> = weapon.extra.into_iter().collect();
    if let Some(sneak) = attacker.traits.sneak_attack {
        extra.push(sneak);
        modifiers.push(Modifier::new(0, format!("sneak attack {sneak}: helpless (004:425)")));
    }
    facts.write(Fact::CoupDeGraceDelivered {
        attacker: attacker.id.clone(),
        target: target.id.clone(),
        weapon: weapon.name.clone(),
    });
    // A whip hurts nothing through armour (docs/rulings.md "The whip"): no damage, no save.
    if let Some(reason) = whip_stopped(&weapon, target.defense) {
        facts.write(Fact::NoDamage { attacker: attacker.id.clone(), target: target.id.clone(), reason: reason.into() });
        return;
    }
    let mut rolled = roll_damage(&mut dice, &weapon, total(&modifiers), weapon.multiplier, &extra);
    let mut multiplied_by = vec![format!("coup de grâce, an automatic critical x{} (004:424)", weapon.multiplier)];
    if halved {
        // Halved after the multiplier, at least 1 as any damage (004:23), as any blow in the water.
        rolled.total = (rolled.total / 2).max(1);
        multiplied_by.push(underwater::HALF_DAMAGE.to_string());
    }
    facts.write(Fact::DamageDealt {
        attacker: attacker.id.clone(),
        target: target.id.clone(),
        dice: rolled.throws.iter().chain(&rolled.extra).cloned().collect(),
        modifiers,
        multiplier: weapon.multiplier,
        multiplied_by,
        total: rolled.total,
        nonlethal: weapon.nonlethal_blows(intent.lethal),
    });
    damage.write(Damage {
        target: intent.target,
        amount: rolled.total,
        nonlethal: weapon.nonlethal_blows(intent.lethal),
        from_one_attack: true,
    });
    // Nonlethal damage kills no one (004:302-305): a coup de grâce dealt with it (unarmed unless lethal damage
    // is declared, 004:173; a whip) calls for no save against death (docs/rulings.md).
    if weapon.nonlethal_blows(intent.lethal) {
        return;
    }
    let dc = 10 + rolled.total;
    let saved = roll_save(
        &mut dice,
        &mut facts,
        target.id,
        Save::Fortitude,
        target.saves,
        target.abilities,
        "coup de grâce (004:424)",
        dc,
    );
    if !saved {
        slay.write(Slay { target: intent.target });
    }
}

/// Stands creatures up or drops them prone: standing up is a move action that provokes, the foes striking
/// while it is still prone (004:225, RULES-INDEX); dropping prone is a free action (004:255).
pub fn change_stances(world: &mut World, mut intents: Local<MessageCursor<StanceIntent>>) {
    let read: Vec<StanceIntent> = intents.read(world.resource::<Messages<StanceIntent>>()).cloned().collect();
    for intent in read {
        let Ok(true) = world.run_system_cached_with(pay_for_stance, intent.clone()) else { continue };
        if intent.stand_up && provoke(world, intent.creature, None, Action::StandUp, "standing up from prone (004:225)")
        {
            continue;
        }
        world.write_message(ConditionChange {
            creature: intent.creature,
            condition: Condition::Prone,
            gained: !intent.stand_up,
        });
    }
}

/// Checks a change of stance and pays for it, or writes why not; whether it goes ahead.
fn pay_for_stance(
    In(intent): In<StanceIntent>,
    order: Res<TurnOrder>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut facts: MessageWriter<Fact>,
) -> bool {
    let Ok(who) = creatures.get(intent.creature) else { return false };
    let Ok(mut budget) = budgets.get_mut(intent.creature) else { return false };
    let prone = who.conditions.has(Condition::Prone);
    let (action, kind) =
        if intent.stand_up { (Action::StandUp, ActionKind::Move) } else { (Action::DropProne, ActionKind::Free) };
    let checked = order
        .check_turn_unless_readied(intent.creature, intent.readied)
        .and_then(|()| crate::rules::core::creature::able_to_act(who.conditions))
        // Pinned, « incapable de bouger », it only breaks free (004:614).
        .and_then(|()| crate::rules::core::creature::not_pinned(who.conditions))
        .and_then(|()| match (intent.stand_up, prone) {
            (true, false) => Err(Refusal::new("it is not prone", "004:225")),
            (false, true) => Err(Refusal::new("it is already prone", "004:255")),
            (false, false) => ground_to_lie_on(&who),
            (true, true) => Ok(()),
        })
        .and_then(|()| budget.spend_unless_readied(kind, intent.readied));
    if let Err(refusal) = checked {
        facts.write(Fact::ActionRefused {
            creature: who.id.clone(),
            action,
            reason: refusal.reason,
            rule: refusal.rule,
        });
        return false;
    }
    true
}

/// Whether a creature has ground to drop prone on (« Tomber à terre sur sa case », 004:255): not a flier in
/// the air, nor a rider in its saddle (our ruling: it gets down first, docs/rulings.md).
pub fn ground_to_lie_on(who: &CombatantItem) -> Result<(), Refusal> {
    ground_under((who.speed, who.altitude.0), who.riding.is_some())
}

/// [`ground_to_lie_on`] from a creature's speed and altitude and whether it rides.
pub fn ground_under((speed, altitude): (&Speed, i32), riding: bool) -> Result<(), Refusal> {
    if hiding::flying(speed, altitude) {
        return Err(Refusal::new("in the air, it has no ground to drop prone on", "004:255"));
    }
    if riding {
        return Err(Refusal::new("in the saddle, it gets down before it drops prone", "004:255"));
    }
    Ok(())
}

/// Damage to apply to a creature, already rolled: written as a message, the chapter of health applies it with
/// the round's consequences; triggered as an event, at once (the blows of a full attack, 004:229).
#[derive(Message, Event, Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// Who takes it.
    pub target: Entity,
    /// How much.
    pub amount: i32,
    /// Nonlethal damage (004:301-308).
    pub nonlethal: bool,
    /// Dealt by one attack, spell or breath of a foe: only such damage, 50 points or more, calls for the save
    /// against massive damage (« une attaque si terrible », 004:272); a fall, strain or a shared collision
    /// does not (our ruling).
    pub from_one_attack: bool,
}

/// Kills a creature outright: a failed save against a coup de grâce (004:424) or massive damage.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct Slay {
    /// Who dies.
    pub target: Entity,
}

/// The squares a creature has no line of sight into: its blind spot while it flies, its tail or not
/// (004:676); a rider has none (004:680).
pub fn unseen_of(c: &CombatantItem) -> Vec<Square> {
    unseen_from(c, c.space.at(c.position.0))
}

/// [`unseen_of`] with `c` on `at`: a flier seen in the middle of its flight.
pub fn unseen_from(c: &CombatantItem, at: Footprint) -> Vec<Square> {
    if c.seat.is_some() {
        return Vec::new();
    }
    crate::rules::core::sight::unseen_behind(
        at,
        (c.altitude.0, c.heading.0),
        (c.speed, c.hovering),
        c.traits.all_round_vision,
    )
}

/// A creature's blind spot while it flies, where it threatens nothing and strikes nothing (004:675-680):
/// none with a tail attack (004:676); a rider has none, though its mount may (004:680).
pub fn blind_of(c: &CombatantItem) -> Vec<Square> {
    if crate::rules::core::sight::has_tail_attack(&c.armament.0) {
        return Vec::new();
    }
    unseen_of(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_weapon_table_004_467_470() {
        assert_eq!(two_weapon_penalties(false, false), (-6, -10));
        assert_eq!(two_weapon_penalties(true, false), (-4, -8));
        assert_eq!(two_weapon_penalties(false, true), (-4, -4));
        assert_eq!(two_weapon_penalties(true, true), (-2, -2));
    }

    fn weapon(name: &str, delivery: Delivery) -> Weapon {
        let plain = Weapon::plain(name, "1d4", crate::rules::core::creature::Handling::OneHanded);
        Weapon { threat: 20, delivery, off_hand: true, ..plain }
    }

    /// Melee beside melee (004:462), hurled beside hurled, the sling among them (004:472).
    #[test]
    fn two_weapons_pair_melee_with_melee_and_hurled_with_hurled_004_472() {
        let dagger = weapon("dagger", Delivery::Melee);
        let sword = weapon("short sword", Delivery::Melee);
        let javelin = weapon("javelin", Delivery::Thrown { increment_m: 9.0 });
        let sling = weapon("sling", Delivery::Projectile { increment_m: 15.0 });
        let crossbow = weapon("hand crossbow", Delivery::Projectile { increment_m: 9.0 });
        assert!(pairs_with(&sword, &dagger));
        assert!(pairs_with(&javelin, &javelin) && pairs_with(&sling, &sling) && pairs_with(&sling, &javelin));
        assert!(!pairs_with(&sling, &dagger), "a sling's shot and a dagger's stab are no pair");
        assert!(!pairs_with(&sword, &javelin) && !pairs_with(&crossbow, &dagger) && !pairs_with(&crossbow, &crossbow));
    }

    #[test]
    fn the_chance_to_hit_rounds_nothing_away() {
        assert_eq!(chance_to_hit(0, 11, 0), 0.5);
        assert_eq!(chance_to_hit(0, 11, 20), 0.4);
    }
}
