//! Heights and the two scales of the grid: normal 1.5 m squares and chase-scale 9 m squares with their
//! altitude bands (004:647-652, 004:788-804); how far apart two creatures are in height and in all
//! (004:781-784), and what reaches from a band to the ground. The aerial chapter flies creatures over these
//! positions; every chapter that measures a distance or a reach reads them here.

use serde::{Deserialize, Serialize};

use crate::rules::core::geometry::{Diagonals, Footprint};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;

/// The two scales of aerial combat (004:647-652).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scale {
    /// 1.5 m squares, no two creatures in a square outside a grapple (004:647-649).
    #[default]
    Normal,
    /// 9 m squares, several creatures to a square except a Colossal one (004:650-652).
    Chase,
}

/// Metres of one chase-scale square (004:650).
pub const CHASE_SQUARE_M: f32 = 9.0;

/// Fliers sharing a chase-scale square are this far apart for ranged attacks (004:652).
pub const CHASE_SHARED_SQUARE_M: f32 = 3.0;

/// The heights our ruling gives the chase scale's bands for a fall, in metres: the text equates one band
/// with 6 m for dives (004:751, 004:753, 004:778) and sets the next bands 30, 60, 120 and 240 m apart
/// (004:800-804).
pub const BAND_HEIGHTS_M: [f32; 7] = [0.0, 6.0, 30.0, 60.0, 120.0, 240.0, 480.0];

/// The names of the chase scale's bands (004:788-797).
pub const BAND_NAMES: [&str; 7] = ["ground", "very low", "low", "medium", "medium-high", "high", "very high"];

/// The chase scale's altitude bands, 0 (the ground) to 6 (very high) (004:788-797).
pub const HIGHEST_BAND: u8 = 6;

impl Scale {
    /// Whether it is the normal scale (a level then writes no `scale:`).
    pub fn is_normal(&self) -> bool {
        *self == Scale::Normal
    }

    /// Metres of a square (004:647, 004:650).
    pub fn square_m(self) -> f32 {
        match self {
            Scale::Normal => crate::rules::core::geometry::SQUARE_METRES,
            Scale::Chase => CHASE_SQUARE_M,
        }
    }

    /// Squares of movement a speed of `metres` gives: at chase scale a ninth, rounded down (004:712).
    pub fn squares(self, metres: f32) -> u32 {
        (metres / self.square_m() + 1e-4).floor().max(0.0) as u32
    }

    /// How many altitude steps a creature's body rises: as high as its space is wide, or one band at chase
    /// scale.
    pub fn body_height(self, size: Size) -> i32 {
        match self {
            Scale::Normal => size.side_squares().max(1),
            Scale::Chase => 1,
        }
    }

    /// Metres above the ground of an altitude: 1.5 m a step, or the band's height ([`BAND_HEIGHTS_M`]).
    pub fn height_m(self, altitude: i32) -> f32 {
        match self {
            Scale::Normal => altitude.max(0) as f32 * 1.5,
            Scale::Chase => BAND_HEIGHTS_M[altitude.clamp(0, HIGHEST_BAND as i32) as usize],
        }
    }

    /// An altitude as the log and the view write it: metres, or the band and its name.
    pub fn altitude_label(self, altitude: i32) -> String {
        match self {
            Scale::Normal => format!("{} m", self.height_m(altitude)),
            Scale::Chase => {
                let band = altitude.clamp(0, HIGHEST_BAND as i32);
                format!("band {band} ({})", BAND_NAMES[band as usize])
            }
        }
    }
}

/// What reaches from one altitude band to another at chase scale (004:788-797).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reaching {
    /// A melee attack.
    Melee,
    /// A thrown weapon.
    Thrown,
    /// A projectile weapon.
    Projectile,
    /// A spell of close range.
    CloseSpell,
    /// A spell of medium range.
    MediumSpell,
    /// A spell of long range.
    LongSpell,
    /// A cone of breath.
    ConeBreath,
    /// A line of breath.
    LineBreath,
}

impl Reaching {
    /// The range category of a spell of `range_m` metres, by our ruling: 22.5 m or less is close (the
    /// longest close range, at caster level 20), 90 m or less medium (the longest medium range), long
    /// beyond.
    pub fn spell(range_m: f32) -> Self {
        if range_m <= 22.5 {
            Reaching::CloseSpell
        } else if range_m <= 90.0 {
            Reaching::MediumSpell
        } else {
            Reaching::LongSpell
        }
    }

    fn name(self) -> &'static str {
        match self {
            Reaching::Melee => "a melee attack",
            Reaching::Thrown => "a thrown weapon",
            Reaching::Projectile => "a projectile weapon",
            Reaching::CloseSpell => "a close-range spell",
            Reaching::MediumSpell => "a medium-range spell",
            Reaching::LongSpell => "a long-range spell",
            Reaching::ConeBreath => "a cone of breath",
            Reaching::LineBreath => "a line of breath",
        }
    }
}

/// What can be used from altitude band `band` against targets on the ground (004:788-797).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandReach {
    /// Melee attacks.
    pub melee: bool,
    /// Thrown weapons.
    pub thrown: bool,
    /// Projectile weapons.
    pub projectile: bool,
    /// Close-range spells.
    pub close_spells: bool,
    /// Medium-range spells.
    pub medium_spells: bool,
    /// Long-range spells.
    pub long_spells: bool,
    /// Cone breath weapons.
    pub cone_breath: bool,
    /// Line breath weapons.
    pub line_breath: bool,
}

impl BandReach {
    /// Whether this band allows `what` against the ground.
    pub fn allows(self, what: Reaching) -> bool {
        match what {
            Reaching::Melee => self.melee,
            Reaching::Thrown => self.thrown,
            Reaching::Projectile => self.projectile,
            Reaching::CloseSpell => self.close_spells,
            Reaching::MediumSpell => self.medium_spells,
            Reaching::LongSpell => self.long_spells,
            Reaching::ConeBreath => self.cone_breath,
            Reaching::LineBreath => self.line_breath,
        }
    }
}

/// What band `band` reaches on the ground (004:788-797); a band above 6 reaches nothing.
pub fn band_reach(band: u8) -> BandReach {
    let all = BandReach {
        melee: true,
        thrown: true,
        projectile: true,
        close_spells: true,
        medium_spells: true,
        long_spells: true,
        cone_breath: true,
        line_breath: true,
    };
    let nothing = BandReach {
        melee: false,
        thrown: false,
        projectile: false,
        close_spells: false,
        medium_spells: false,
        long_spells: false,
        cone_breath: false,
        line_breath: false,
    };
    match band {
        0 | 1 => all,
        2 => BandReach {
            projectile: true,
            medium_spells: true,
            long_spells: true,
            cone_breath: true,
            line_breath: true,
            ..nothing
        },
        3 => BandReach { projectile: true, medium_spells: true, long_spells: true, line_breath: true, ..nothing },
        4 => BandReach { projectile: true, long_spells: true, ..nothing },
        5 => BandReach { long_spells: true, ..nothing },
        _ => nothing,
    }
}

/// Whether `what` reaches between altitudes `a` and `b` at `scale`: at chase scale, between the ground and
/// a band above it, only what the band's row allows (004:788-797), both ways (our ruling: what cannot
/// reach down cannot reach up). Between two fliers the bands only add distance (004:800-804).
pub fn band_allows(scale: Scale, a: i32, b: i32, what: Reaching) -> Result<(), Refusal> {
    let (low, high) = (a.min(b), a.max(b));
    if scale != Scale::Chase || low > 0 || high <= 0 {
        return Ok(());
    }
    let band = high.min(i32::from(u8::MAX)) as u8;
    if band_reach(band).allows(what) {
        return Ok(());
    }
    Err(Refusal::new(
        format!(
            "from band {band} ({}), {} does not reach the ground",
            BAND_NAMES[usize::from(band.min(HIGHEST_BAND))],
            what.name()
        ),
        "004:788-797",
    ))
}

/// The distance between two creatures for ranged attacks, spells and breaths, in metres, each on its squares
/// at its altitude: at normal scale the 3-D distance of 004:781-784, the horizontal distance on the grid and
/// the vertical one between the two altitudes (12 m apart at 6 m and 24 m: 24 m); at chase scale 9 m a
/// square, 3 m apart in a shared square (004:652), plus what the bands between add (004:800-804). Squares
/// and heights count as the table counts diagonals.
pub fn separation_m(
    scale: Scale,
    diagonals: Diagonals,
    (own, own_altitude): (Footprint, i32),
    (theirs, their_altitude): (Footprint, i32),
) -> f32 {
    let squares = own.distance_to(theirs, diagonals) as f32;
    let apart = own_altitude.abs_diff(their_altitude);
    match scale {
        Scale::Normal => diagonals.distance_3d(squares * 1.5, apart as f32 * 1.5),
        Scale::Chase => {
            let horizontal = if own.overlaps(theirs) { CHASE_SHARED_SQUARE_M } else { squares * CHASE_SQUARE_M };
            horizontal + band_distance_m(apart.min(u32::from(u8::MAX)) as u8)
        }
    }
}

/// Metres added to the horizontal distance between creatures `difference` bands apart (004:800-804): none
/// for 0 or 1, then 30, 60, 120, 240 m; 480 m for 6 (our ruling: the table stops at 5 and doubles).
pub fn band_distance_m(difference: u8) -> f32 {
    match difference {
        0 | 1 => 0.0,
        2 => 30.0,
        3 => 60.0,
        4 => 120.0,
        5 => 240.0,
        _ => 480.0,
    }
}

/// Whether two creatures of these sizes may share a square at chase scale: any may, but a Colossal one,
/// which holds its square alone (« Plusieurs créatures peuvent occuper la même case, sauf si l'une d'elles
/// est de taille C », 004:651).
pub fn share_a_chase_square(a: Size, b: Size) -> bool {
    a != Size::Colossal && b != Size::Colossal
}

/// How far apart two creatures are in height, in the steps reach counts: 0 when their bodies overlap in
/// height, 1 when one is right above the other, then one more for each 1.5 m of air between (each band
/// between, at chase scale). A body rises from its altitude as high as its space is wide, one band at
/// chase scale ([`Scale::body_height`]).
pub fn vertical_steps(scale: Scale, a_altitude: i32, a_size: Size, b_altitude: i32, b_size: Size) -> u32 {
    let (a_top, b_top) = (a_altitude + scale.body_height(a_size), b_altitude + scale.body_height(b_size));
    if a_altitude < b_top && b_altitude < a_top { 0 } else { (b_altitude - a_top).max(a_altitude - b_top) as u32 + 1 }
}

/// The height a melee weapon reaches, in the steps of [`vertical_steps`]: the natural reach, twice with a
/// reach weapon, a whip's (a square at least).
pub fn vertical_reach(natural_reach: u32, reach_weapon: crate::rules::core::weapon_reach::WeaponReach) -> u32 {
    reach_weapon.squares(natural_reach).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_count_in_reach_004_783() {
        // A man on the ground is 1.5 m tall: a Large griffon flying at 1.5 m is right above him.
        assert_eq!(vertical_steps(Scale::Normal, 0, Size::Medium, 1, Size::Large), 1);
        assert_eq!(vertical_steps(Scale::Normal, 0, Size::Medium, 0, Size::Large), 0);
        // At 3 m, 1.5 m of air between: a reach of 3 m or a reach weapon is needed.
        assert_eq!(vertical_steps(Scale::Normal, 0, Size::Medium, 2, Size::Large), 2);
        assert!(
            vertical_steps(Scale::Normal, 0, Size::Medium, 2, Size::Large)
                > vertical_reach(1, crate::rules::core::weapon_reach::WeaponReach::Natural)
        );
        assert!(
            vertical_steps(Scale::Normal, 0, Size::Medium, 2, Size::Large)
                <= vertical_reach(1, crate::rules::core::weapon_reach::WeaponReach::Doubled)
        );
        assert_eq!(vertical_steps(Scale::Normal, 20, Size::Large, 0, Size::Medium), 20, "30 m up");
    }
}
