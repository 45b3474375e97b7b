//! Size categories: space, natural reach and the size modifier, from the size tables of 004:9-20 and
//! 004:357-371 (also 000:173-260).

use serde::{Deserialize, Serialize};

/// Size category, Fine to Colossal ("Infime" to "Colossale", 004:357-371).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, bevy::prelude::Component,
)]
pub enum Size {
    /// Infime (I): 15 cm, reach 0.
    Fine,
    /// Minuscule (Min): 30 cm, reach 0.
    Diminutive,
    /// Très petite (TP): 75 cm, reach 0.
    Tiny,
    /// Petite (P): 1.5 m, reach 1.5 m.
    Small,
    /// Moyenne (M): 1.5 m, reach 1.5 m.
    #[default]
    Medium,
    /// Grande (G): 3 m, reach 3 m tall or 1.5 m long.
    Large,
    /// Très grande (TG): 4.5 m, reach 4.5 m tall or 3 m long.
    Huge,
    /// Gigantesque (Gig): 6 m, reach 6 m tall or 4.5 m long.
    Gargantuan,
    /// Colossale (C): 9 m or more, reach 9 m tall or 6 m long.
    Colossal,
}

/// Whether a creature stands tall ("haute") or lies long ("longue"): long creatures have less natural
/// reach (004:363-370).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BodyShape {
    /// Biped or upright: the full reach of its size.
    #[default]
    Tall,
    /// Quadruped or serpentine: one step less reach from Large up.
    Long,
}

impl Size {
    /// Its name in the rules' messages, in lower case ("medium"); the interface translates it.
    pub const fn words(self) -> &'static str {
        match self {
            Size::Fine => "fine",
            Size::Diminutive => "diminutive",
            Size::Tiny => "tiny",
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
            Size::Huge => "huge",
            Size::Gargantuan => "gargantuan",
            Size::Colossal => "colossal",
        }
    }

    /// All sizes from the smallest.
    pub const ALL: [Size; 9] = [
        Size::Fine,
        Size::Diminutive,
        Size::Tiny,
        Size::Small,
        Size::Medium,
        Size::Large,
        Size::Huge,
        Size::Gargantuan,
        Size::Colossal,
    ];

    /// Size modifier to attack rolls and Armor Class (004:9-20): +8 Fine … -8 Colossal.
    pub const fn modifier(self) -> i32 {
        match self {
            Size::Fine => 8,
            Size::Diminutive => 4,
            Size::Tiny => 2,
            Size::Small => 1,
            Size::Medium => 0,
            Size::Large => -1,
            Size::Huge => -2,
            Size::Gargantuan => -4,
            Size::Colossal => -8,
        }
    }

    /// Side of the space in centimetres ("espace occupé", 004:359-370); Colossal is 9 m "or more".
    pub const fn space_cm(self) -> u32 {
        match self {
            Size::Fine => 15,
            Size::Diminutive => 30,
            Size::Tiny => 75,
            Size::Small | Size::Medium => 150,
            Size::Large => 300,
            Size::Huge => 450,
            Size::Gargantuan => 600,
            Size::Colossal => 900,
        }
    }

    /// Side of the footprint on the grid, in whole squares. A creature smaller than a square still
    /// stands in one square, which it may share (000:148-151).
    pub const fn side_squares(self) -> i32 {
        match self {
            Size::Fine | Size::Diminutive | Size::Tiny | Size::Small | Size::Medium => 1,
            Size::Large => 2,
            Size::Huge => 3,
            Size::Gargantuan => 4,
            Size::Colossal => 6,
        }
    }

    /// Whether it takes less than a square (Tiny and smaller), with the special rules of 000:148-159.
    pub const fn is_smaller_than_a_square(self) -> bool {
        matches!(self, Size::Fine | Size::Diminutive | Size::Tiny)
    }

    /// How many creatures of this size fit in one square: 4 Tiny, 25 Diminutive, 100 Fine (000:150-151);
    /// one for all others. Creatures of several of these sizes share a square by their shares of it
    /// ([`Size::share_of_square`], [`fit_in_a_square`]).
    pub const fn per_square(self) -> u32 {
        match self {
            Size::Fine => 100,
            Size::Diminutive => 25,
            Size::Tiny => 4,
            _ => 1,
        }
    }

    /// The share of one square a creature of this size takes, in hundredths: a quarter for a Tiny one, a
    /// twenty-fifth for a Diminutive one, a hundredth for a Fine one (« 75 cm de côté », « quatre »,
    /// « vingt-cinq », « cent », 000:148-151); the whole square for the others.
    pub const fn share_of_square(self) -> u32 {
        100 / self.per_square()
    }

    /// Natural reach in squares for a body shape (004:359-370). Tiny and smaller have 0.
    pub const fn natural_reach(self, shape: BodyShape) -> u32 {
        let tall = match self {
            Size::Fine | Size::Diminutive | Size::Tiny => 0,
            Size::Small | Size::Medium => 1,
            Size::Large => 2,
            Size::Huge => 3,
            Size::Gargantuan => 4,
            Size::Colossal => 6,
        };
        match (shape, self) {
            (BodyShape::Long, Size::Large | Size::Huge | Size::Gargantuan) => tall - 1,
            (BodyShape::Long, Size::Colossal) => 4,
            _ => tall,
        }
    }

    /// Categories between two sizes (positive if `other` is larger).
    pub fn steps_to(self, other: Size) -> i32 {
        other.index() as i32 - self.index() as i32
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|&s| s == self).unwrap_or(4)
    }

    /// The French name used by the texts, for the log.
    pub const fn french(self) -> &'static str {
        match self {
            Size::Fine => "Infime",
            Size::Diminutive => "Minuscule",
            Size::Tiny => "Très petite",
            Size::Small => "Petite",
            Size::Medium => "Moyenne",
            Size::Large => "Grande",
            Size::Huge => "Très grande",
            Size::Gargantuan => "Gigantesque",
            Size::Colossal => "Colossale",
        }
    }
}

/// Whether creatures of `sizes` may stand together in one square: those smaller than a square by their
/// shares of it, a square at most (4 Tiny, or 3 Tiny and 25 Fine…, 000:148-151), beside at most one creature
/// of a square or more, in whose space a creature smaller than a square may stand (000:80-82, 000:152-156).
pub fn fit_in_a_square(sizes: impl IntoIterator<Item = Size>) -> bool {
    let (mut shares, mut whole) = (0, 0);
    for size in sizes {
        if size.is_smaller_than_a_square() {
            shares += size.share_of_square();
        } else {
            whole += 1;
        }
    }
    shares <= 100 && whole <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creatures_smaller_than_a_square_share_it_by_their_shares_000_148_151() {
        use Size::*;
        assert!(fit_in_a_square([Tiny; 4]));
        assert!(!fit_in_a_square([Tiny; 5]));
        assert!(fit_in_a_square([Diminutive; 25]));
        assert!(!fit_in_a_square([Diminutive; 26]));
        assert!(fit_in_a_square([Fine; 100]));
        // Four Tiny fill it: no Fine one more; three Tiny leave room for 25 Fine or 6 Diminutive.
        assert!(!fit_in_a_square([Tiny, Tiny, Tiny, Tiny, Fine]));
        assert!(fit_in_a_square([Tiny, Tiny, Tiny].into_iter().chain([Fine; 25])));
        assert!(fit_in_a_square([Tiny, Tiny, Tiny].into_iter().chain([Diminutive; 6])));
        assert!(!fit_in_a_square([Tiny, Tiny, Tiny].into_iter().chain([Diminutive; 7])));
        // A Tiny one in a Medium one's square (000:80-82); two Medium ones never.
        assert!(fit_in_a_square([Medium, Tiny]));
        assert!(!fit_in_a_square([Medium, Small]));
    }

    #[test]
    fn size_modifiers_follow_004_9() {
        let mods: Vec<i32> = Size::ALL.iter().map(|s| s.modifier()).collect();
        assert_eq!(mods, vec![8, 4, 2, 1, 0, -1, -2, -4, -8]);
    }

    #[test]
    fn space_and_reach_follow_the_size_table() {
        // (size, space in cm, tall reach in squares, long reach in squares) — 004:359-370.
        let table = [
            (Size::Fine, 15, 0, 0),
            (Size::Diminutive, 30, 0, 0),
            (Size::Tiny, 75, 0, 0),
            (Size::Small, 150, 1, 1),
            (Size::Medium, 150, 1, 1),
            (Size::Large, 300, 2, 1),
            (Size::Huge, 450, 3, 2),
            (Size::Gargantuan, 600, 4, 3),
            (Size::Colossal, 900, 6, 4),
        ];
        for (size, cm, tall, long) in table {
            assert_eq!(size.space_cm(), cm, "{size:?} space");
            assert_eq!(size.natural_reach(BodyShape::Tall), tall, "{size:?} tall reach");
            assert_eq!(size.natural_reach(BodyShape::Long), long, "{size:?} long reach");
            if cm >= 150 {
                assert_eq!(size.side_squares() as u32 * 150, cm, "{size:?} footprint");
            }
        }
    }

    #[test]
    fn tiny_creatures_share_squares() {
        assert_eq!(Size::Tiny.per_square(), 4);
        assert_eq!(Size::Diminutive.per_square(), 25);
        assert_eq!(Size::Fine.per_square(), 100);
        assert!(Size::Tiny.is_smaller_than_a_square());
        assert!(!Size::Small.is_smaller_than_a_square());
        assert_eq!(Size::Medium.steps_to(Size::Gargantuan), 3);
    }
}
