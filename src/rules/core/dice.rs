//! Dice: one seeded random number generator for every roll of the fight, with a queue of forced
//! results that tests and scenarios use to make a die say what they need.

use std::collections::VecDeque;
use std::fmt;

use bevy::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A number of dice of one kind plus a flat bonus, as written `2d6+1` ("1d8", "1d4-1", "3").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DiceExpr {
    /// How many dice are thrown.
    pub count: u32,
    /// Faces of each die.
    pub sides: u32,
    /// Flat amount added to the sum.
    pub bonus: i32,
}

impl DiceExpr {
    /// `count` dice of `sides` faces, no bonus.
    pub const fn new(count: u32, sides: u32) -> Self {
        Self { count, sides, bonus: 0 }
    }

    /// Smallest possible result.
    pub fn min(&self) -> i32 {
        self.count as i32 + self.bonus
    }

    /// Largest possible result.
    pub fn max(&self) -> i32 {
        (self.count * self.sides) as i32 + self.bonus
    }
}

impl fmt::Display for DiceExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count > 0 {
            write!(f, "{}d{}", self.count, self.sides)?;
            match self.bonus {
                0 => Ok(()),
                b if b > 0 => write!(f, "+{b}"),
                b => write!(f, "{b}"),
            }
        } else {
            write!(f, "{}", self.bonus)
        }
    }
}

/// The most dice, and faces, a dice expression may have: no rule of the texts throws more.
pub const MOST_DICE: u32 = 1000;

/// The largest bonus a dice expression may carry, either way: sums of a thousand such stay far from
/// overflowing.
pub const MOST_BONUS: i32 = 10_000;

impl std::str::FromStr for DiceExpr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let bad = || {
            format!(
                "`{text}` is not a dice expression like 1d8, 2d6+1 or 1d4-1 (at most {MOST_DICE} dice of \
                 {MOST_DICE} faces, a bonus of at most {MOST_BONUS} either way)"
            )
        };
        let Some((count, rest)) = text.split_once('d') else {
            return text
                .parse::<i32>()
                .ok()
                .filter(|b| (-MOST_BONUS..=MOST_BONUS).contains(b))
                .map(|bonus| Self { count: 0, sides: 0, bonus })
                .ok_or_else(bad);
        };
        let count: u32 = if count.is_empty() { 1 } else { count.parse().map_err(|_| bad())? };
        let (sides, bonus) = match rest.find(['+', '-']) {
            Some(at) => (&rest[..at], rest[at..].trim_start_matches('+').parse::<i32>().map_err(|_| bad())?),
            None => (rest, 0),
        };
        let sides: u32 = sides.parse().map_err(|_| bad())?;
        if sides == 0 || count > MOST_DICE || sides > MOST_DICE || !(-MOST_BONUS..=MOST_BONUS).contains(&bonus) {
            return Err(bad());
        }
        Ok(Self { count, sides, bonus })
    }
}

impl TryFrom<String> for DiceExpr {
    type Error = String;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<DiceExpr> for String {
    fn from(dice: DiceExpr) -> Self {
        dice.to_string()
    }
}

/// The fight's only source of chance. Seeded once; every die of every rule is drawn from it in the
/// order the rules ask, so the same level, seed and intents give the same fight.
#[derive(Resource)]
pub struct Dice {
    rng: ChaCha8Rng,
    forced: VecDeque<u32>,
}

impl Dice {
    /// Dice seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        Self { rng: ChaCha8Rng::seed_from_u64(seed), forced: VecDeque::new() }
    }

    /// Dice that first return `forced`, in order, whatever die is thrown (a forced value larger than
    /// the die is clamped to its faces), then fall back on the seeded generator.
    pub fn with_forced(seed: u64, forced: impl IntoIterator<Item = u32>) -> Self {
        Self { forced: forced.into_iter().collect(), ..Self::seeded(seed) }
    }

    /// Queues more forced results after those already waiting.
    pub fn force(&mut self, values: impl IntoIterator<Item = u32>) {
        self.forced.extend(values);
    }

    /// Forced results not used yet.
    pub fn forced_left(&self) -> usize {
        self.forced.len()
    }

    /// One die of `sides` faces: 1..=sides.
    pub fn roll(&mut self, sides: u32) -> u32 {
        let sides = sides.max(1);
        match self.forced.pop_front() {
            Some(value) => value.clamp(1, sides),
            None => self.rng.random_range(1..=sides),
        }
    }

    /// A d20.
    pub fn d20(&mut self) -> u32 {
        self.roll(20)
    }

    /// Percentile dice, 1..=100.
    pub fn d100(&mut self) -> u32 {
        self.roll(100)
    }

    /// Throws every die of `expr`; returns each die and the total with the bonus.
    pub fn throw(&mut self, expr: DiceExpr) -> Thrown {
        let faces: Vec<u32> = (0..expr.count).map(|_| self.roll(expr.sides)).collect();
        let total = faces.iter().map(|&f| f as i32).sum::<i32>() + expr.bonus;
        Thrown { expr, faces, total }
    }
}

/// The dice of one throw, kept so the log can show every die.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thrown {
    /// What was thrown.
    pub expr: DiceExpr,
    /// Each die as it fell.
    pub faces: Vec<u32>,
    /// Sum of the faces plus the bonus.
    pub total: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_dice_expressions() {
        let d: DiceExpr = "2d6+1".parse().unwrap();
        assert_eq!(d, DiceExpr { count: 2, sides: 6, bonus: 1 });
        assert_eq!(d.to_string(), "2d6+1");
        assert_eq!("1d4-1".parse::<DiceExpr>().unwrap().bonus, -1);
        assert_eq!("d8".parse::<DiceExpr>().unwrap(), DiceExpr::new(1, 8));
        assert_eq!("3".parse::<DiceExpr>().unwrap().max(), 3);
        assert!("2x6".parse::<DiceExpr>().is_err());
        assert!("1d0".parse::<DiceExpr>().is_err());
        // Bonuses and counts have ranges: nothing a file writes overflows a sum.
        assert!("1d6+2147483647".parse::<DiceExpr>().is_err());
        assert!("-2147483648".parse::<DiceExpr>().is_err());
        assert!("1001d6".parse::<DiceExpr>().is_err());
        assert_eq!("1d6+10000".parse::<DiceExpr>().unwrap().bonus, 10_000);
    }

    #[test]
    fn same_seed_same_rolls() {
        let mut a = Dice::seeded(7);
        let mut b = Dice::seeded(7);
        let ra: Vec<u32> = (0..50).map(|_| a.d20()).collect();
        let rb: Vec<u32> = (0..50).map(|_| b.d20()).collect();
        assert_eq!(ra, rb);
        assert!(ra.iter().all(|&r| (1..=20).contains(&r)));
        let mut c = Dice::seeded(8);
        let rc: Vec<u32> = (0..50).map(|_| c.d20()).collect();
        assert_ne!(ra, rc);
    }

    #[test]
    fn forced_results_come_first_then_the_seeded_generator() {
        let mut forced = Dice::with_forced(3, [20, 1, 99]);
        let mut plain = Dice::seeded(3);
        assert_eq!(forced.d20(), 20);
        assert_eq!(forced.d20(), 1);
        assert_eq!(forced.roll(6), 6, "a forced value above the die is clamped to its faces");
        assert_eq!(forced.d20(), plain.d20());
    }
}
