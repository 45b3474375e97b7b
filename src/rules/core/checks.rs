//! Rolling a d20 against a number, the way every chapter does: saving throws (004:44-50), ability and skill
//! checks against a DC, and opposed checks. Each writes its fact with the die, the bonus and the reason.

use bevy::prelude::*;

use crate::rules::core::creature::{Abilities, CreatureId, Modifier, Saves, ability_modifier};
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
pub use crate::rules::core::names::{Check, Save};

/// Rolls `id`'s saving throw against `dc` and writes it, with `reason`; whether it succeeded (004:46-50).
#[expect(clippy::too_many_arguments, reason = "the save's roller, its writer, and what the save is")]
pub fn roll_save(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    id: &CreatureId,
    save: Save,
    saves: &Saves,
    abilities: &Abilities,
    reason: impl Into<String>,
    dc: i32,
) -> bool {
    roll_save_with(dice, facts, id, save, (saves, abilities), reason, dc, Vec::new())
}

/// [`roll_save`] with terms of the situation beside the save's own (cover's bonus on a Reflex save, 004:402).
#[expect(clippy::too_many_arguments, reason = "the save's roller, its writer, and what the save is")]
pub fn roll_save_with(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    id: &CreatureId,
    save: Save,
    (saves, abilities): (&Saves, &Abilities),
    reason: impl Into<String>,
    dc: i32,
    modifiers: Vec<Modifier>,
) -> bool {
    let roll = dice.d20();
    let total = roll as i32 + save_bonus(save, saves, abilities) + modifiers.iter().map(|m| m.value).sum::<i32>();
    let success = save_succeeds(roll, total, dc);
    facts.write(Fact::SaveRolled {
        creature: id.clone(),
        save,
        reason: reason.into(),
        roll,
        modifiers,
        total,
        dc,
        success,
    });
    success
}

/// A saving throw's bonus: the base save plus the ability modifier it goes with (004:46-48).
pub fn save_bonus(save: Save, saves: &Saves, abilities: &Abilities) -> i32 {
    match save {
        Save::Fortitude => saves.fortitude + ability_modifier(abilities.con),
        Save::Reflex => saves.reflex + ability_modifier(abilities.dex),
        Save::Will => saves.will + ability_modifier(abilities.wis),
    }
}

/// Whether a saving throw succeeds: a natural 1 always fails, a natural 20 always succeeds, otherwise the
/// total against the DC (004:49-50).
pub const fn save_succeeds(roll: u32, total: i32, dc: i32) -> bool {
    roll != 1 && (roll == 20 || total >= dc)
}

/// The chance, 0 to 1, that a save of `bonus` beats `dc`: a natural 1 fails, a 20 succeeds (004:50).
pub fn save_chance(bonus: i32, dc: i32) -> f32 {
    (1..=20u32).filter(|&roll| save_succeeds(roll, roll as i32 + bonus, dc)).count() as f32 / 20.0
}

/// The chance, 0 to 1, that a check of `bonus` reaches `dc` (a d20, no automatic results).
pub fn check_chance(bonus: i32, dc: i32) -> f32 {
    (1..=20).filter(|&roll| roll + bonus >= dc).count() as f32 / 20.0
}

/// Rolls a d20 check, `bonus` against `dc`, and writes it; whether it succeeds (no automatic results).
pub fn roll_check(
    dice: &mut crate::rules::core::dice::Dice,
    facts: &mut MessageWriter<Fact>,
    creature: &CreatureId,
    check: Check,
    reason: impl Into<String>,
    bonus: i32,
    dc: i32,
) -> bool {
    roll_check_total(dice, facts, creature, check, reason, bonus, dc) >= dc
}

/// [`roll_check`], giving its total: a table read by the result (a take-off's height, 004:661-668).
pub fn roll_check_total(
    dice: &mut crate::rules::core::dice::Dice,
    facts: &mut MessageWriter<Fact>,
    creature: &CreatureId,
    check: Check,
    reason: impl Into<String>,
    bonus: i32,
    dc: i32,
) -> i32 {
    let roll = dice.d20();
    let total = roll as i32 + bonus;
    facts.write(Fact::CheckRolled {
        creature: creature.clone(),
        check,
        reason: reason.into(),
        roll,
        total,
        dc,
        success: total >= dc,
    });
    total
}

/// A skill's total modifier: the creature's, or the ability's modifier when it has no ranks.
pub fn skill(total: Option<i32>, ability: i32) -> i32 {
    total.unwrap_or(ability_modifier(ability))
}

/// How an opposed check settles a tie of totals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// To the opponent: `creature` wins only by beating it ("supérieur", a feint, 004:524).
    Lost,
    /// To the higher modifier, then a die (as 004:585 settles the grapple's; our ruling for the special
    /// attacks' other opposed checks, docs/rulings.md).
    ByModifierThenDie,
}

impl Ties {
    /// Whether `creature` wins with `total` and `bonus` against `their_total` and `their_bonus`; `None` when a
    /// die is to decide.
    fn judge(self, (total, bonus): (i32, i32), (their_total, their_bonus): (i32, i32)) -> Option<bool> {
        use std::cmp::Ordering::{Equal, Greater};
        match (self, total.cmp(&their_total), bonus.cmp(&their_bonus)) {
            (_, Greater, _) => Some(true),
            (Ties::ByModifierThenDie, Equal, Equal) => None,
            (Ties::ByModifierThenDie, Equal, by_modifier) => Some(by_modifier == Greater),
            _ => Some(false),
        }
    }

    /// The chance that `bonus` wins against `their_bonus`, ties settled this way.
    pub fn chance(self, bonus: i32, their_bonus: i32) -> f32 {
        let pairs = (1..=20).flat_map(|mine| (1..=20).map(move |theirs| (mine, theirs)));
        let wins: f32 = pairs
            .map(|(mine, theirs)| match self.judge((mine + bonus, bonus), (theirs + their_bonus, their_bonus)) {
                Some(true) => 1.0,
                Some(false) => 0.0,
                None => 0.5,
            })
            .sum();
        wins / 400.0
    }
}

/// One side of an opposed check: who, its check, and its bonus term by term.
pub type Opposing<'a> = (&'a CreatureId, Check, &'a [Modifier]);

/// An opposed check: `creature`'s `check`, whose d20 came up `roll`, against `opponent`'s, thrown now;
/// `ties` settles a tie. Writes the fact, with each side's terms, and says whether `creature` won.
pub fn opposed(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    ours: Opposing,
    theirs: Opposing,
    (roll, ties): (u32, Ties),
    reason: &str,
) -> bool {
    opposed_by(dice, facts, ours, theirs, (roll, ties), reason).0
}

/// [`opposed`], telling by how much `creature`'s total beat (or fell short of) the opponent's as well.
pub fn opposed_by(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    (creature, check, terms): Opposing,
    (opponent, their_check, their_terms): Opposing,
    (roll, ties): (u32, Ties),
    reason: &str,
) -> (bool, i32) {
    let sum = |terms: &[Modifier]| terms.iter().map(|m| m.value).sum::<i32>();
    let (bonus, their_bonus) = (sum(terms), sum(their_terms));
    let their_roll = dice.d20();
    let (total, their_total) = (roll as i32 + bonus, their_roll as i32 + their_bonus);
    let judged = ties.judge((total, bonus), (their_total, their_bonus));
    let tie_die = judged.is_none().then(|| dice.roll(2));
    let won = judged.unwrap_or(tie_die == Some(1));
    facts.write(Fact::Opposed {
        creature: creature.clone(),
        check,
        roll,
        total,
        terms: terms.to_vec(),
        opponent: opponent.clone(),
        their_check,
        their_roll,
        their_total,
        their_terms: their_terms.to_vec(),
        tie_die,
        won,
        reason: reason.into(),
    });
    (won, total - their_total)
}

/// An opposed check of the special attacks (a trip's Strength against Strength or Dexterity, 004:485): both
/// roll, the higher total wins, a tie going to the higher modifier, then to a die ([`Ties::ByModifierThenDie`]).
/// No roll wins or fails by itself. Writes the fact; whether `creature` won.
pub fn contest(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    ours: Opposing,
    theirs: Opposing,
    reason: &str,
) -> bool {
    contest_by(dice, facts, ours, theirs, reason).0
}

/// [`contest`], telling by how much `ours` beat (or fell short of) `theirs` as well: a bull rush pushes
/// farther by 5 points (004:449).
pub fn contest_by(
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    ours: Opposing,
    theirs: Opposing,
    reason: &str,
) -> (bool, i32) {
    let roll = dice.d20();
    opposed_by(dice, facts, ours, theirs, (roll, Ties::ByModifierThenDie), reason)
}

/// The chance that `bonus` beats `their_bonus` in an [`opposed`] check whose ties are lost.
pub fn beat_chance(bonus: i32, their_bonus: i32) -> f32 {
    Ties::Lost.chance(bonus, their_bonus)
}

/// The chance that `bonus` beats `their_bonus` in a [`contest`], ties settled as it settles them.
pub fn contest_chance(bonus: i32, their_bonus: i32) -> f32 {
    Ties::ByModifierThenDie.chance(bonus, their_bonus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contests_break_ties_by_the_modifier_then_a_die() {
        // Equal modifiers: an even chance. +10 against +0 loses only when the other die beats it by 11 or
        // more: 45 of the 400 pairs, so 355/400; no 20 wins by itself.
        assert!((contest_chance(3, 3) - 0.5).abs() < 1e-6);
        assert!((contest_chance(10, 0) - 355.0 / 400.0).abs() < 1e-6);
        assert!((contest_chance(0, 0) + contest_chance(0, 0) - 1.0).abs() < 1e-6);
        // A tie of totals goes to the higher modifier: +1 against +0 wins more than half.
        assert!(contest_chance(1, 0) > 0.5);
        assert!((contest_chance(1, 0) + contest_chance(0, 1) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn saving_throws_004_49() {
        assert!(!save_succeeds(1, 40, 10), "a natural 1 always fails");
        assert!(save_succeeds(20, 5, 30), "a natural 20 always succeeds");
        assert!(save_succeeds(12, 15, 15));
        assert!(!save_succeeds(12, 14, 15));
        let saves = Saves { fortitude: 3, reflex: 1, will: 0 };
        let abilities = Abilities { con: 14, dex: 8, wis: 13, ..Abilities::default() };
        assert_eq!(save_bonus(Save::Fortitude, &saves, &abilities), 5);
        assert_eq!(save_bonus(Save::Reflex, &saves, &abilities), 0);
        assert_eq!(save_bonus(Save::Will, &saves, &abilities), 1);
    }
}
