//! Ability damage (004:28, 004:297): « Certaines créatures et certains sorts affaiblissent temporairement
//! les caractéristiques », and the weakened abilities come back as hit points do, 1 point a night of rest
//! (8 hours) and 2 a whole day of rest, per ability. What a score brought to 0 does is the d20 standard
//! (the texts do not say; docs/rulings.md): Strength or Dexterity 0, helpless; Constitution 0, dead;
//! Intelligence, Wisdom or Charisma 0, unconscious. Pure.

use std::collections::BTreeMap;

use bevy::prelude::*;

use super::creature::{Abilities, Ability, Condition, ability_modifier};

/// What a score of 0 in `ability` does (the d20 standard, docs/rulings.md).
pub const fn at_zero(ability: Ability) -> Condition {
    match ability {
        Ability::Str | Ability::Dex => Condition::Helpless,
        Ability::Con => Condition::Dead,
        Ability::Int | Ability::Wis | Ability::Cha => Condition::Unconscious,
    }
}

/// The points of each ability a creature has lost and not yet recovered (004:297).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct AbilityDamage(pub BTreeMap<Ability, i32>);

/// Takes up to `amount` points off `ability` (a score goes no lower than 0) and counts them lost; returns
/// the points taken.
pub fn weaken(abilities: &mut Abilities, damage: &mut AbilityDamage, ability: Ability, amount: i32) -> i32 {
    let score = ability.score_mut(abilities);
    let taken = amount.clamp(0, (*score).max(0));
    *score -= taken;
    *damage.0.entry(ability).or_default() += taken;
    taken
}

/// The hit points a weakened Constitution holds back from a creature's maximum and its current hit points
/// (004:300 read the other way: a higher Constitution gives hit points that are not temporary, a lower one
/// takes them; the d20 standard): 1 a Hit Die for each point the modifier lost from `full_con` to `con_now`,
/// the maximum (`whole_max`, with nothing held back) kept at 1 a Hit Die at least. Given back as the score
/// comes back (docs/rulings.md).
pub fn withheld_hit_points(full_con: i32, con_now: i32, hit_dice: u32, whole_max: i32) -> i32 {
    let hit_dice = hit_dice.max(1) as i32;
    let lost = (ability_modifier(full_con) - ability_modifier(con_now)).max(0) * hit_dice;
    lost.min((whole_max - hit_dice).max(0))
}

/// The hit points a weakened Constitution holds back now (`withheld_hit_points`), kept to give them back.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WithheldHitPoints(pub i32);

/// The points rest gives back to each weakened ability: 1 a night of rest, 2 a whole day of rest (004:297).
pub const fn rest_points(nights: u32, days_in_bed: u32) -> i32 {
    (nights + 2 * days_in_bed) as i32
}

/// Gives back up to `points` to each ability lost, no more than was lost (004:297); returns each ability
/// restored with the points.
pub fn restore(abilities: &mut Abilities, damage: &mut AbilityDamage, points: i32) -> Vec<(Ability, i32)> {
    let mut back = Vec::new();
    for (ability, lost) in &mut damage.0 {
        let given = points.clamp(0, *lost);
        if given > 0 {
            *ability.score_mut(abilities) += given;
            *lost -= given;
            back.push((*ability, given));
        }
    }
    damage.0.retain(|_, lost| *lost > 0);
    back
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_goes_no_lower_than_0_and_each_point_is_counted_004_28() {
        let mut abilities = Abilities { dex: 3, ..Abilities::default() };
        let mut damage = AbilityDamage::default();
        assert_eq!(weaken(&mut abilities, &mut damage, Ability::Dex, 5), 3);
        assert_eq!(abilities.dex, 0);
        assert_eq!(damage.0[&Ability::Dex], 3);
        assert_eq!(at_zero(Ability::Dex), Condition::Helpless);
    }

    #[test]
    fn a_night_gives_back_1_point_per_ability_a_day_in_bed_2_004_297() {
        let mut abilities = Abilities::default();
        let mut damage = AbilityDamage::default();
        weaken(&mut abilities, &mut damage, Ability::Str, 3);
        weaken(&mut abilities, &mut damage, Ability::Dex, 1);
        let (str_before, dex_before) = (abilities.str, abilities.dex);
        assert_eq!(restore(&mut abilities, &mut damage, rest_points(1, 0)), vec![(Ability::Str, 1), (Ability::Dex, 1)]);
        assert_eq!((abilities.str, abilities.dex), (str_before + 1, dex_before + 1));
        // A day in bed: 2 points, no more than lost.
        assert_eq!(restore(&mut abilities, &mut damage, rest_points(0, 1)), vec![(Ability::Str, 2)]);
        assert!(damage.0.is_empty());
        assert_eq!(abilities, Abilities::default());
    }

    #[test]
    fn a_weakened_constitution_holds_back_a_hit_point_a_die_per_point_of_modifier_004_300() {
        // Constitution 14 (+2) down to 11 (+0) on 2 Hit Dice: 4 hit points.
        assert_eq!(withheld_hit_points(14, 11, 2, 20), 4);
        // 13 (+1): 2; the score whole again: none; an odd point lost changes nothing.
        assert_eq!(withheld_hit_points(14, 13, 2, 20), 2);
        assert_eq!(withheld_hit_points(14, 14, 2, 20), 0);
        assert_eq!(withheld_hit_points(15, 14, 2, 20), 0);
        // The maximum keeps 1 hit point a Hit Die: 10 (+0) to 1 (-5) on 3 Hit Dice and 12 hit points.
        assert_eq!(withheld_hit_points(10, 1, 3, 12), 9);
        assert_eq!(withheld_hit_points(10, 1, 3, 30), 15);
    }
}
