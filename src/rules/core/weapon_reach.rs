//! How far a melee weapon strikes beyond its wielder's natural reach (004:63, 000:169-172; the whip,
//! docs/rulings.md): a word the reach, the heights and the creatures' weapons share.

/// How far a melee weapon strikes, as [`crate::rules::core::creature::Weapon::reach_kind`] tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeaponReach {
    /// Within the natural reach: every ordinary weapon.
    Natural,
    /// A reach weapon: twice the natural reach, nothing within it (004:63, 000:169-172).
    Doubled,
    /// A whip: two squares beyond the natural reach, 4.5 m for a Medium wielder, the squares next to it
    /// included (the d20 standard's whip, « le fouet » of 004:489; docs/rulings.md).
    Whip,
}

impl WeaponReach {
    /// The squares it reaches at most, from a natural reach.
    pub fn squares(self, natural_reach: u32) -> u32 {
        match self {
            Self::Natural => natural_reach,
            Self::Doubled => natural_reach * 2,
            Self::Whip => natural_reach + WHIP_SQUARES_BEYOND,
        }
    }

    /// Whether it reaches farther than the natural reach (a rider high on a Huge mount strikes with it,
    /// 004:813-814).
    pub fn long(self) -> bool {
        self != Self::Natural
    }
}

/// How far a whip reaches beyond its wielder's natural reach: 3 m, making the d20 standard's 4.5 m for a
/// Medium wielder.
const WHIP_SQUARES_BEYOND: u32 = 2;
