//! The attack roll and the damage roll as pure functions (004:1-43, 004:164-189): natural 1 misses,
//! natural 20 hits and threatens, confirmation, multipliers that add rather than compound, extra dice not
//! multiplied, damage at least 1; reach and range.

use serde::Serialize;

use crate::rules::core::creature::{Delivery, Modifier, Weapon, total};
use crate::rules::core::dice::{Dice, Thrown};
use crate::rules::core::geometry::{Diagonals, Footprint, squares_to_metres};

/// The outcome of an attack roll against an Armor Class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AttackRoll {
    /// The natural d20.
    pub roll: u32,
    /// Roll plus modifiers.
    pub total: i32,
    /// Whether it hits: a natural 1 always misses, a natural 20 always hits (004:4).
    pub hit: bool,
    /// Whether it threatens a critical hit: a hit whose natural roll is in the weapon's threat range.
    pub threat: bool,
}

/// Rolls an attack with `modifiers` against `armor_class`.
pub fn roll_attack(dice: &mut Dice, modifiers: &[Modifier], armor_class: i32, threat_from: u32) -> AttackRoll {
    let roll = dice.d20();
    judge_attack(roll, total(modifiers), armor_class, threat_from)
}

/// Judges a natural roll: 1 misses, 20 hits, otherwise total against AC; a hit in the threat range threatens.
pub fn judge_attack(roll: u32, bonus: i32, armor_class: i32, threat_from: u32) -> AttackRoll {
    let total = roll as i32 + bonus;
    let hit = match roll {
        1 => false,
        20 => true,
        _ => total >= armor_class,
    };
    AttackRoll { roll, total, hit, threat: hit && roll >= threat_from.min(20) }
}

/// Damage of one hit: the weapon's dice and bonuses thrown once, or `multiplier` times on a critical; the
/// multiplier applies to base damage only, extra dice are thrown once (004:27, 004:186); at least 1 (004:23).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DamageRoll {
    /// Each throw of the weapon's dice.
    pub throws: Vec<Thrown>,
    /// Extra dice thrown once (sneak attack and the like).
    pub extra: Vec<Thrown>,
    /// Damage dealt.
    pub total: i32,
}

/// Several multipliers on one hit add rather than compound: each counts from the base damage, so x2 and
/// x3 make x4 (004:27). No multiplier at all is x1.
pub fn combined_multiplier(multipliers: &[u32]) -> u32 {
    1 + multipliers.iter().map(|m| m.saturating_sub(1)).sum::<u32>()
}

/// Rolls damage: `multiplier` throws of the weapon's dice each with `bonus`, plus `extra` dice once.
pub fn roll_damage(
    dice: &mut Dice,
    weapon: &Weapon,
    bonus: i32,
    multiplier: u32,
    extra: &[crate::rules::core::dice::DiceExpr],
) -> DamageRoll {
    let throws: Vec<Thrown> = (0..multiplier.max(1)).map(|_| dice.throw(weapon.damage)).collect();
    let extra: Vec<Thrown> = extra.iter().map(|e| dice.throw(*e)).collect();
    let sum = throws.iter().map(|t| t.total + bonus).sum::<i32>() + extra.iter().map(|t| t.total).sum::<i32>();
    DamageRoll { throws, extra, total: sum.max(1) }
}

/// The range penalty of a ranged attack at `distance_m`: -2 per full increment beyond the first (our
/// ruling), or `None` past the maximum range (5 increments thrown, 10 fired, 004:174).
pub fn range_penalty(weapon: &Weapon, distance_m: f32) -> Option<i32> {
    let (increment, max) = match weapon.delivery {
        Delivery::Melee => return Some(0),
        Delivery::Thrown { increment_m } => (increment_m, 5.0),
        Delivery::Projectile { increment_m } => (increment_m, 10.0),
    };
    if distance_m > increment * max {
        return None;
    }
    let full_increments = ((distance_m - 0.001).max(0.0) / increment).floor() as i32;
    Some(-2 * full_increments)
}

/// Distance in metres between two footprints for range, with the table's diagonal count.
pub fn range_m(diagonals: Diagonals, a: Footprint, b: Footprint) -> f32 {
    squares_to_metres(a.distance_to(b, diagonals))
}

/// Whether two allies flank a target (004:417-421): the line between the centres of a square of each
/// crosses two opposite borders of the target's space, corners included. Exact: centres are integer
/// points at twice the scale.
pub fn flanks(attacker: Footprint, ally: Footprint, target: Footprint) -> bool {
    attacker.squares().any(|a| ally.squares().any(|b| line_crosses_opposite_borders(a, b, target)))
}

/// Whether the segment between the centres of `a` and `b` crosses opposite borders of `target`.
fn line_crosses_opposite_borders(
    a: crate::rules::core::geometry::Square,
    b: crate::rules::core::geometry::Square,
    target: Footprint,
) -> bool {
    // Twice the scale: a centre is (2x + 1, 2y + 1), the target spans [2x0, 2(x0 + w)].
    let (x0, y0, x1, y1) = ((2 * a.x + 1) as i64, (2 * a.y + 1) as i64, (2 * b.x + 1) as i64, (2 * b.y + 1) as i64);
    let (left, right) = (2 * target.origin.x as i64, 2 * (target.origin.x + target.width) as i64);
    let (top, bottom) = (2 * target.origin.y as i64, 2 * (target.origin.y + target.height) as i64);
    // Per axis, the parameters (as fractions num/den with den > 0) where the segment enters and leaves the slab.
    let slab = |p0: i64, p1: i64, lo: i64, hi: i64| -> Option<((i64, i64), (i64, i64))> {
        let d = p1 - p0;
        if d == 0 {
            return (lo <= p0 && p0 <= hi).then_some(((-1, 1), (2, 1)));
        }
        let (t_lo, t_hi) = ((lo - p0, d), (hi - p0, d));
        let norm = |(n, d): (i64, i64)| if d < 0 { (-n, -d) } else { (n, d) };
        let (t_lo, t_hi) = (norm(t_lo), norm(t_hi));
        Some(if d > 0 { (t_lo, t_hi) } else { (t_hi, t_lo) })
    };
    let (Some((x_in, x_out)), Some((y_in, y_out))) = (slab(x0, x1, left, right), slab(y0, y1, top, bottom)) else {
        return false;
    };
    let cmp = |(a, b): (i64, i64), (c, d): (i64, i64)| (a * d).cmp(&(c * b));
    let enter = if cmp(x_in, y_in).is_ge() { x_in } else { y_in };
    let exit = if cmp(x_out, y_out).is_le() { x_out } else { y_out };
    if cmp(enter, exit).is_gt() || cmp(enter, (0, 1)).is_lt() || cmp(exit, (1, 1)).is_gt() {
        return false;
    }
    let through_x = cmp(x_in, enter).is_eq() && cmp(x_out, exit).is_eq();
    let through_y = cmp(y_in, enter).is_eq() && cmp(y_out, exit).is_eq();
    through_x || through_y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::creature::Handling;
    use crate::rules::core::geometry::Square;

    fn sword() -> Weapon {
        Weapon::plain("longsword", "1d8", Handling::OneHanded)
    }

    #[test]
    fn multipliers_add_rather_than_compound_004_27() {
        assert_eq!(combined_multiplier(&[]), 1);
        assert_eq!(combined_multiplier(&[3]), 3);
        assert_eq!(combined_multiplier(&[2, 3]), 4, "a spear set against a charge, and its x3 critical");
        assert_eq!(combined_multiplier(&[2, 2]), 3);
    }

    #[test]
    fn iterative_attacks_every_five_points() {
        use crate::rules::attack::iterative_bonuses;
        assert_eq!(iterative_bonuses(5), vec![5]);
        assert_eq!(iterative_bonuses(6), vec![6, 1]);
        assert_eq!(iterative_bonuses(11), vec![11, 6, 1]);
        assert_eq!(iterative_bonuses(16), vec![16, 11, 6, 1]);
        assert_eq!(iterative_bonuses(0), vec![0]);
    }

    #[test]
    fn natural_one_misses_natural_twenty_hits() {
        assert!(!judge_attack(1, 30, 10, 20).hit);
        assert!(judge_attack(20, -10, 40, 20).hit);
        assert!(judge_attack(20, -10, 40, 20).threat);
        assert!(judge_attack(12, 3, 15, 20).hit);
        assert!(!judge_attack(11, 3, 15, 20).hit);
        assert!(judge_attack(19, 0, 15, 19).threat);
        assert!(!judge_attack(19, -10, 15, 19).threat, "a miss threatens nothing");
    }

    #[test]
    fn critical_damage_throws_the_dice_again_not_the_extra_dice() {
        let mut dice = Dice::with_forced(1, [8, 3, 6]);
        let roll = roll_damage(&mut dice, &sword(), 2, 2, &["1d6".parse().unwrap()]);
        assert_eq!(roll.throws.len(), 2);
        assert_eq!(roll.total, (8 + 2) + (3 + 2) + 6);
    }

    #[test]
    fn damage_is_at_least_one() {
        let mut dice = Dice::with_forced(1, [1]);
        assert_eq!(roll_damage(&mut dice, &sword(), -4, 1, &[]).total, 1);
    }

    #[test]
    fn flanking_004_417() {
        let at = |x, y| Footprint::new(Square::new(x, y), 1);
        let goblin = at(5, 5);
        assert!(flanks(at(4, 5), at(6, 5), goblin), "opposite sides");
        assert!(flanks(at(4, 4), at(6, 6), goblin), "opposite corners");
        assert!(flanks(at(5, 4), at(5, 6), goblin));
        assert!(
            !flanks(at(4, 4), at(6, 5), goblin),
            "a corner and a side next to it: the line leaves by an adjacent border"
        );
        assert!(!flanks(at(4, 5), at(5, 4), goblin), "side by side");
        // An ogre (2x2) flanked by two Medium allies on opposite sides, not across its middle only.
        let ogre = Footprint::new(Square::new(5, 5), 2);
        assert!(flanks(at(4, 5), at(7, 6), ogre));
        assert!(!flanks(at(4, 5), at(5, 7), ogre), "west and south: adjacent borders");
        // A Large ally picks whichever of its squares flanks.
        assert!(flanks(at(4, 5), Footprint::new(Square::new(6, 4), 2), goblin));
    }

    #[test]
    fn range_increments() {
        let bow = Weapon { delivery: Delivery::Projectile { increment_m: 30.0 }, ..sword() };
        assert_eq!(range_penalty(&bow, 30.0), Some(0));
        assert_eq!(range_penalty(&bow, 31.5), Some(-2));
        assert_eq!(range_penalty(&bow, 300.0), Some(-18));
        assert_eq!(range_penalty(&bow, 301.5), None);
        let axe = Weapon { delivery: Delivery::Thrown { increment_m: 3.0 }, ..sword() };
        assert_eq!(range_penalty(&axe, 16.5), None, "thrown: 5 increments at most");
    }
}
