//! What disarm and sunder share (004:490-503), kept in the attack chapter because both replace a melee attack,
//! an attack of opportunity among them: the weapon a disarm takes or a sunder strikes, each side's opposed
//! attack roll (+4 two-handed, -4 light, the unarmed strike light, +4 a size category to the larger, -4 for
//! an item that is no melee weapon, 004:493, 004:501), the rolls themselves with the defender's disarming
//! back (004:495), and the weapon then lost (004:494) or damaged past its hardness (004:502).
//! `special::disarm` and `special::sunder` build the actions on them; `opportunity` makes them in place of a
//! blow.

use bevy::prelude::*;

use super::CombatantItem;
use super::manoeuvre::{OpportunityChoice, Side, threatening_weapons_of};
use crate::rules::core::checks::{Check, contest};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;

/// The weapon a creature holds that a disarm takes or a sunder strikes: its first manufactured weapon in hand
/// (natural weapons and the unarmed strike cannot be taken, nor a weapon put away).
pub fn held_weapon(c: &CombatantItem) -> Option<Weapon> {
    c.armament.ready().find(|w| super::gear::in_hand_to_disarm(w)).cloned()
}

/// One side's opposed attack roll with `weapon` against `foe` (004:493, 004:501): unseen from hiding, +2 as
/// any attack (004:379).
pub fn disarm_side(c: &CombatantItem, weapon: &Weapon, foe: &CombatantItem, melee_item: bool) -> Side {
    let their_size = *foe.size;
    let mut terms = attack_bonus(*c.base_attack, c.abilities, *c.size, c.feats, weapon);
    if super::unseen_by(c, foe) {
        terms.push(Modifier::new(2, "unseen: hidden from its target (004:379)"));
    }
    // Light and two-handed are the melee weapons' kinds: a bow held in two hands is neither (docs/rulings.md).
    let melee_weapon = !crate::rules::core::creature::is_ranged(weapon);
    match weapon.handling {
        Handling::TwoHanded if melee_weapon => terms.push(Modifier::new(4, "two-handed weapon (004:493)")),
        Handling::Light if melee_weapon => terms.push(Modifier::new(-4, "light weapon (004:493)")),
        Handling::OneHanded if weapon.unarmed => terms.push(Modifier::new(-4, "unarmed: light (004:493)")),
        Handling::OneHanded | Handling::TwoHanded | Handling::Light => {}
    }
    let larger = their_size.steps_to(*c.size);
    if larger > 0 {
        terms.push(Modifier::new(4 * larger, "larger (004:493)"));
    }
    if !melee_item {
        terms.push(Modifier::new(-4, "not a melee weapon (004:493)"));
    }
    Side { check: Check::Attack, terms }
}

/// A disarm's side: [`disarm_side`], and a whip's +2, to disarm as to keep its own weapon (the d20
/// standard's whip; docs/rulings.md).
pub fn disarming_side(c: &CombatantItem, weapon: &Weapon, foe: &CombatantItem, melee_item: bool) -> Side {
    let mut side = disarm_side(c, weapon, foe, melee_item);
    if weapon.whip {
        side.terms.push(Modifier::new(2, "a whip disarms at +2 (docs/rulings.md)"));
    }
    side
}

/// A disarm's opposed rolls, as planned: the two sides, the weapon taken, and what follows a win or a loss.
#[derive(Clone, Debug)]
pub struct DisarmRolls {
    /// The attacker's attack roll.
    pub attacker: Side,
    /// The defender's.
    pub defender: Side,
    /// The item the defender holds, which it loses.
    pub item: Weapon,
    /// Won unarmed, the attacker holds the item (004:494).
    pub unarmed: bool,
    /// Lost, the defender may disarm back: its item is a melee weapon (004:491, 004:495).
    pub counter: bool,
}

/// A weapon lost to a disarm: who loses it, who took it, and whether into its hand (004:494).
#[derive(Clone, Debug)]
pub struct WeaponLoss {
    /// Its holder.
    pub from: Entity,
    /// The winner.
    pub by: Entity,
    /// The weapon.
    pub item: Weapon,
    /// Taken into the winner's hand (won unarmed) rather than dropped at the loser's feet.
    pub taken: bool,
}

/// The opposed attack rolls of a disarm, and the defender's disarming back once (004:493-495): the weapon
/// lost, if any. `reason` names the disarm in the facts.
pub fn roll_disarm(
    (dice, facts): (&mut Dice, &mut MessageWriter<Fact>),
    (attacker, target): (&CombatantItem, &CombatantItem),
    rolls: &DisarmRolls,
    reason: &str,
) -> Option<WeaponLoss> {
    if opposed_attack_rolls((dice, facts), (attacker.id, &rolls.attacker), (target.id, &rolls.defender), reason) {
        return Some(WeaponLoss {
            from: target.entity,
            by: attacker.entity,
            item: rolls.item.clone(),
            taken: rolls.unarmed,
        });
    }
    // The defender disarms back at once, provoking nothing; a failure ends it (004:495). One that cannot
    // act (helpless, 004:278) tries nothing.
    let their_item = held_weapon(attacker).filter(|_| rolls.counter && target.conditions.can_act())?;
    let melee_item = !is_ranged(&their_item);
    let back = disarming_side(target, &rolls.item, attacker, true);
    let resisting = disarming_side(attacker, &their_item, target, melee_item);
    let won_back =
        opposed_attack_rolls((dice, facts), (target.id, &back), (attacker.id, &resisting), "disarming back (004:495)");
    won_back.then_some(WeaponLoss { from: attacker.entity, by: target.entity, item: their_item, taken: false })
}

/// A weapon lost: out of the loser's hands, into the disarmer's if it disarmed unarmed, else on the ground
/// at the loser's feet (004:494).
pub fn lose_weapon(world: &mut World, loss: WeaponLoss) {
    let WeaponLoss { from, by, item, taken } = loss;
    let (Some(loser), Some(winner)) = (world.get::<CreatureId>(from).cloned(), world.get::<CreatureId>(by).cloned())
    else {
        return;
    };
    let Some(at) = world.get::<Position>(from).map(|p| p.0) else { return };
    // A weapon it no longer holds is lost once only.
    let Some(mut armament) = world.get_mut::<Armament>(from) else { return };
    let Some(i) = armament.0.iter().position(|w| w.name == item.name) else { return };
    armament.0.remove(i);
    world.entity_mut(from).insert(super::gear::Disarmed);
    if taken {
        super::gear::take_in_hand(world, by, item.clone());
    } else {
        world.spawn(super::gear::GroundWeapon { weapon: item.clone(), at });
    }
    world.write_message(Fact::Disarmed { creature: loser, by: winner, weapon: item.name, taken, at });
}

/// A sunder's opposed rolls, as planned (004:501), and the blow that follows a win (004:502).
#[derive(Clone, Debug)]
pub struct SunderRolls {
    /// The attacker's attack roll.
    pub attacker: Side,
    /// The defender's.
    pub defender: Side,
    /// The attacker's weapon, whose damage is rolled.
    pub weapon: Weapon,
    /// The damage bonus of the blow.
    pub damage_bonus: i32,
    /// The name of the object struck.
    pub struck: String,
    /// Its hardness.
    pub hardness: u32,
}

/// The opposed rolls of a sunder (004:501) and, won, its damage rolled as usual (004:502): the hit points
/// the object loses past its hardness; `None` when lost (no damage, 004:503).
pub fn roll_sunder(
    (dice, facts): (&mut Dice, &mut MessageWriter<Fact>),
    (attacker, target): (&CombatantItem, &CombatantItem),
    rolls: &SunderRolls,
    reason: &str,
) -> Option<u32> {
    if !opposed_attack_rolls((dice, facts), (attacker.id, &rolls.attacker), (target.id, &rolls.defender), reason) {
        return None;
    }
    let blow = (&rolls.weapon, rolls.damage_bonus);
    Some(blow_past_hardness((dice, facts), (attacker, target), blow, (&rolls.struck, rolls.hardness)))
}

/// Opposed attack rolls, the disarm's and the sunder's (004:493, 004:501): whether `ours` wins.
fn opposed_attack_rolls(
    (dice, facts): (&mut Dice, &mut MessageWriter<Fact>),
    (us, ours): (&CreatureId, &Side),
    (them, theirs): (&CreatureId, &Side),
    reason: &str,
) -> bool {
    contest(dice, facts, (us, Check::Attack, &ours.terms), (them, Check::Attack, &theirs.terms), reason)
}

/// A blow on an object `target` holds or carries, `struck` of `hardness`: its damage rolled as usual, the
/// hit points the object loses past its hardness (004:502), with the fact.
pub fn blow_past_hardness(
    (dice, facts): (&mut Dice, &mut MessageWriter<Fact>),
    (attacker, target): (&CombatantItem, &CombatantItem),
    (weapon, damage_bonus): (&Weapon, i32),
    (struck, hardness): (&str, u32),
) -> u32 {
    let extra: Vec<_> = weapon.extra.into_iter().collect();
    let rolled = super::roll::roll_damage(dice, weapon, damage_bonus, 1, &extra);
    let lost = (rolled.total.max(0) as u32).saturating_sub(hardness);
    facts.write(Fact::WeaponStruck {
        attacker: attacker.id.clone(),
        creature: target.id.clone(),
        weapon: struck.to_string(),
        faces: rolled.throws.iter().flat_map(|t| t.faces.clone()).collect(),
        damage: rolled.total,
        hardness,
        lost,
    });
    lost
}

/// A weapon struck by a sunder: whose, which, its full hit points, and what it lost.
#[derive(Clone, Debug)]
pub struct WeaponDamage {
    /// Its holder.
    pub holder: Entity,
    /// The weapon's name.
    pub weapon: String,
    /// Its full hit points (004:505-523).
    pub hit_points: u32,
    /// The hit points it loses.
    pub lost: u32,
}

/// The weapon loses hit points: broken at half (our ruling), destroyed and gone at 0 (004:502).
pub fn damage_weapon(world: &mut World, damage: WeaponDamage) {
    let WeaponDamage { holder, weapon, hit_points, lost } = damage;
    let Some(id) = world.get::<CreatureId>(holder).cloned() else { return };
    let Some(mut armament) = world.get_mut::<Armament>(holder) else { return };
    let Some(i) = armament.0.iter().position(|w| w.name == weapon) else { return };
    let was_broken = armament.0[i].broken();
    armament.0[i].hit_points_lost += lost;
    let left = hit_points.saturating_sub(armament.0[i].hit_points_lost);
    let state = if left == 0 {
        armament.0.remove(i);
        Some("destroyed (004:502)")
    } else if armament.0[i].broken() && !was_broken {
        Some("broken: -2 on attack and damage rolls (our ruling)")
    } else {
        None
    };
    world.write_message(Fact::WeaponDamaged { creature: id, weapon, left, state: state.map(str::to_string) });
}

/// What a disarm or a sunder made in place of an attack of opportunity did to the mover's gear, applied once
/// the strikes of that moment are over.
#[derive(Clone, Debug)]
pub enum GearBlow {
    /// A weapon lost.
    Lost(WeaponLoss),
    /// A weapon damaged.
    Damaged(WeaponDamage),
}

impl GearBlow {
    /// Applies it.
    pub fn apply(self, world: &mut World) {
        match self {
            GearBlow::Lost(loss) => lose_weapon(world, loss),
            GearBlow::Damaged(damage) => damage_weapon(world, damage),
        }
    }
}

/// The weapon a creature would disarm with in place of an attack of opportunity (004:490): with Improved
/// Disarm, the manufactured weapon (or the unarmed strike, when armed) it threatens with. Without the feat
/// none (our ruling, as for the trip: the disarm would provoke from the foe in the middle of its action,
/// 004:492).
pub fn opportunity_disarm_weapon<'a>(armament: &'a Armament, feats: &Feats, traits: &Traits) -> Option<&'a Weapon> {
    if !feats.has(Feat::ImprovedDisarm) {
        return None;
    }
    threatening_weapons_of(armament, feats, traits).into_iter().find(|w| !w.natural)
}

/// The weapon a creature would sunder with in place of an attack of opportunity (004:499): with Improved
/// Sunder (else it would provoke, 004:500; our ruling), a slashing or bludgeoning weapon it threatens with.
pub fn opportunity_sunder_weapon<'a>(armament: &'a Armament, feats: &Feats, traits: &Traits) -> Option<&'a Weapon> {
    if !feats.has(Feat::ImprovedSunder) {
        return None;
    }
    threatening_weapons_of(armament, feats, traits).into_iter().find(|w| w.sunders)
}

/// What a creature could do in place of its attacks of opportunity besides striking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpportunityOptions {
    /// Trip (a trip weapon, or Improved Trip unarmed, 004:483, 004:489).
    pub trip: bool,
    /// Disarm (Improved Disarm, 004:490).
    pub disarm: bool,
    /// Sunder (Improved Sunder, 004:499).
    pub sunder: bool,
}

impl OpportunityOptions {
    /// A creature's options, from what it holds and knows.
    pub fn of(armament: &Armament, feats: &Feats, traits: &Traits) -> Self {
        Self {
            trip: super::manoeuvre::opportunity_trip_weapon(armament, feats, traits).is_some(),
            disarm: opportunity_disarm_weapon(armament, feats, traits).is_some(),
            sunder: opportunity_sunder_weapon(armament, feats, traits).is_some(),
        }
    }

    /// A creature's options, read off the world.
    pub fn of_creature(world: &World, creature: Entity) -> Self {
        match (world.get::<Armament>(creature), world.get::<Feats>(creature), world.get::<Traits>(creature)) {
            (Some(armament), Some(feats), Some(traits)) => Self::of(armament, feats, traits),
            _ => Self::default(),
        }
    }

    /// Whether it has any: the bar shows the switch, the AI weighs.
    pub fn any(&self) -> bool {
        self.trip || self.disarm || self.sunder
    }

    /// Whether `choice` is one of them (striking always is).
    pub fn allows(&self, choice: OpportunityChoice) -> bool {
        match choice {
            OpportunityChoice::Strike => true,
            OpportunityChoice::Trip => self.trip,
            OpportunityChoice::Disarm => self.disarm,
            OpportunityChoice::Sunder => self.sunder,
            OpportunityChoice::Weigh => self.any(),
            OpportunityChoice::Hold => true,
        }
    }

    /// The choice after `choice` among them, for the bar's switch.
    pub fn after(&self, choice: OpportunityChoice) -> OpportunityChoice {
        let all = OpportunityChoice::ALL;
        let at = all.iter().position(|c| *c == choice).unwrap_or(0);
        (1..=all.len()).map(|k| all[(at + k) % all.len()]).find(|c| self.allows(*c)).unwrap_or_default()
    }
}

/// What `striker` may do to `mover`'s weapon in place of an attack of opportunity, if anything: its choice
/// says disarm, sunder or weigh, it could (the feat, a weapon it threatens with), and `mover` holds a weapon
/// that can be taken or struck (004:490, 004:499). What the move previews warn of.
pub fn may_take_weapon_by_opportunity(world: &World, striker: Entity, mover: Entity) -> Option<OpportunityChoice> {
    let choice = world.get::<OpportunityChoice>(striker).copied().unwrap_or_default();
    let options = OpportunityOptions::of_creature(world, striker);
    let held = world.get::<Armament>(mover)?.ready().find(|w| super::gear::in_hand_to_disarm(w)).cloned()?;
    let disarms = matches!(choice, OpportunityChoice::Disarm | OpportunityChoice::Weigh) && options.disarm;
    let sunders = matches!(choice, OpportunityChoice::Sunder | OpportunityChoice::Weigh)
        && options.sunder
        && held.toughness().is_some();
    match (disarms, sunders) {
        (true, true) => Some(OpportunityChoice::Weigh),
        (true, false) => Some(OpportunityChoice::Disarm),
        (false, true) => Some(OpportunityChoice::Sunder),
        (false, false) => None,
    }
}

/// A disarm or a sunder made in place of an attack of opportunity, ready to roll.
#[derive(Clone, Debug)]
pub enum InPlace {
    /// A disarm's rolls.
    Disarm(DisarmRolls),
    /// A sunder's rolls, and the full hit points of the weapon struck.
    Sunder(SunderRolls, u32),
}

/// The disarm or sunder a creature makes in place of an attack of opportunity on `target`, if it would: a
/// weapon it threatens with and the feat (`opportunity_disarm_weapon`, `opportunity_sunder_weapon`), a
/// weapon in the foe's hand (004:490, 004:499), the foe on a move of its own (as for the trip, our ruling),
/// and its choice says so; weighing, it disarms when it would win half the time or more and the blow would
/// not likely drop the foe, else sunders when it would win half the time and its blow passes the weapon's
/// hardness. `blow` is the attack of opportunity as planned, `situation` where it is made.
pub fn gear_blow_in_place_of(
    choice: OpportunityChoice,
    (attacker, target): (&CombatantItem, &CombatantItem),
    (blow, situation): (&super::AttackPlan, super::AttackSituation<'_>),
    hit_points: &HitPoints,
    moving: bool,
) -> Option<InPlace> {
    let weigh = choice == OpportunityChoice::Weigh;
    let wanted = matches!(choice, OpportunityChoice::Disarm | OpportunityChoice::Sunder) || weigh;
    if !wanted || !moving || (weigh && super::manoeuvre::likely_drops(blow, hit_points)) {
        return None;
    }
    let item = held_weapon(target)?;
    let planned = |weapon: &Weapon| {
        super::plan_attack(attacker, target, super::AttackSituation { weapon: Some(&weapon.name), ..situation }).ok()
    };
    let (armament, feats, traits) = (attacker.armament, attacker.feats, attacker.traits);
    if choice != OpportunityChoice::Sunder
        && let Some(plan) = opportunity_disarm_weapon(armament, feats, traits).and_then(planned)
    {
        let melee_item = !is_ranged(&item);
        let rolls = DisarmRolls {
            attacker: disarming_side(attacker, &plan.weapon, target, true),
            defender: disarming_side(target, &item, attacker, melee_item),
            item: item.clone(),
            unarmed: plan.weapon.unarmed,
            counter: melee_item,
        };
        if !weigh || rolls.attacker.chance_against(&rolls.defender) >= 0.5 {
            return Some(InPlace::Disarm(rolls));
        }
    }
    if choice == OpportunityChoice::Disarm {
        return None;
    }
    let (hardness, full) = item.toughness()?;
    let plan = opportunity_sunder_weapon(armament, feats, traits).and_then(planned)?;
    let rolls = SunderRolls {
        attacker: disarm_side(attacker, &plan.weapon, target, true),
        defender: disarm_side(target, &item, attacker, true),
        weapon: plan.weapon.clone(),
        damage_bonus: plan.damage_modifiers.iter().map(|m| m.value).sum(),
        struck: item.name.clone(),
        hardness,
    };
    let worth = rolls.attacker.chance_against(&rolls.defender) >= 0.5 && plan.mean_damage() > hardness as f32;
    (!weigh || worth).then_some(InPlace::Sunder(rolls, full))
}

impl GearBlow {
    /// Whether it falls on `creature`'s gear.
    pub fn concerns(&self, creature: Entity) -> bool {
        match self {
            GearBlow::Lost(loss) => loss.from == creature,
            GearBlow::Damaged(damage) => damage.holder == creature,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_goes_through_the_choices_a_creature_has() {
        use OpportunityChoice::*;
        let disarmer = OpportunityOptions { trip: false, disarm: true, sunder: false };
        let cycle: Vec<_> = std::iter::successors(Some(Strike), |c| Some(disarmer.after(*c))).take(5).collect();
        assert_eq!(cycle, [Strike, Disarm, Weigh, Hold, Strike]);
        let all = OpportunityOptions { trip: true, disarm: true, sunder: true };
        let cycle: Vec<_> = std::iter::successors(Some(Strike), |c| Some(all.after(*c))).take(7).collect();
        assert_eq!(cycle, [Strike, Trip, Disarm, Sunder, Weigh, Hold, Strike]);
        // Any creature may hold its attacks of opportunity (004:68).
        assert_eq!(OpportunityOptions::default().after(Strike), Hold, "the strike, or none");
        assert_eq!(OpportunityOptions::default().after(Hold), Strike);
    }
}
