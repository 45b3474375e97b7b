//! Water a creature fights in (004:632-645): who is in the water, the row of the underwater table that
//! applies to it, and what that row does to its attacks, its damage, its movement and its balance. Pure
//! predicates every chapter shares: the movement costs, the attack and the Swim check all read them.
//!
//! The table (004:637-645, its header shifted one column, RULES-INDEX) reads, by row:
//!
//! | condition            | slashing or bludgeoning | piercing   | movement        | off balance |
//! |----------------------|-------------------------|------------|-----------------|-------------|
//! | freedom of movement  | normal                  | normal     | normal          | no          |
//! | has a swim speed     | -2 / half               | normal     | normal          | no          |
//! | successful Swim check| -2 / half               | -2 / half  | quarter or half | no          |
//! | firm footing         | -2 / half               | -2 / half  | half            | no          |
//! | none of these        | -2 / half               | -2 / half  | none            | yes         |
//!
//! Where the water is deep enough to count (our ruling, docs/rulings.md): a square of deep water is over
//! the head of a Medium or smaller creature, which swims; to the chest of a Large one, which walks the
//! bottom with firm footing; and below a Huge or bigger one's chest, where it wades as in shallow water.
//! Shallow water never puts a creature in the water.

use serde::Serialize;

use crate::rules::core::battlefield::{Battlefield, Terrain};
use crate::rules::core::geometry::{Footprint, Square};
use crate::rules::core::size::Size;

/// The row of the underwater table that applies to a creature in the water (004:641-645).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaterRow {
    /// Liberté de mouvement: the water changes nothing.
    FreedomOfMovement,
    /// Possède une VD à la nage: it swims at its swim speed.
    SwimSpeed,
    /// Test de Natation réussi: it swims by its Swim check.
    SwimCheck,
    /// Pied sûr: it walks the bottom, the water to its chest.
    Footing,
    /// Aucune: no footing, no swim speed, its Swim check failed: it flounders.
    Nothing,
}

/// What a creature's attack is made with, for the table's two columns (004:638-639).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thrust {
    /// A slashing or bludgeoning weapon.
    SlashOrBludgeon,
    /// A piercing weapon (one that pierces among other things counts as piercing: the wielder thrusts).
    Pierce,
}

/// How far a row lets a creature move (004:641-645, the table's movement column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Headway {
    /// Its normal speed (its swim speed when it has one).
    Normal,
    /// Half its speed: each square of water costs double.
    Half,
    /// A quarter of its speed as a move action, half as a full-round action: each square costs four times.
    Quarter,
    /// It makes no headway.
    None,
}

/// What the creature is, as the table sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swimmer {
    /// Its size: how deep the water is for it.
    pub size: Size,
    /// It has a swim speed.
    pub swim_speed: bool,
    /// It moves freely (freedom of movement).
    pub freedom: bool,
    /// Its last Swim check failed: it flounders (our ruling, docs/rulings.md).
    pub floundering: bool,
    /// It rides a mount: carried above the water, never in it on its own account (004:632 names the
    /// swimmer, the wader and the one on the bottom; our ruling, docs/rulings.md).
    pub carried: bool,
}

impl Swimmer {
    /// A creature as the table sees it, from its size, speeds, traits and conditions (floundering: off
    /// balance after a failed Swim check).
    pub fn of(
        size: Size,
        speed: &crate::rules::core::creature::Speed,
        traits: &crate::rules::core::creature::Traits,
        conditions: &crate::rules::core::creature::Conditions,
    ) -> Swimmer {
        Swimmer {
            size,
            swim_speed: speed.swim.is_some(),
            freedom: traits.freedom_of_movement,
            floundering: conditions.has(crate::rules::core::creature::Condition::OffBalance),
            carried: false,
        }
    }
}

/// How deep a square of deep water is for a creature of `size` (our ruling): over its head, to its chest,
/// or below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Over its head: it swims.
    OverHead,
    /// To its chest: it walks the bottom.
    Chest,
    /// Below its chest: it wades, as in shallow water.
    Wading,
}

/// How deep deep water is for a creature of `size` (our ruling, docs/rulings.md).
pub fn depth_for(size: Size) -> Depth {
    match Size::Medium.steps_to(size) {
        ..=0 => Depth::OverHead,
        1 => Depth::Chest,
        _ => Depth::Wading,
    }
}

/// Whether a creature on `footprint` at `altitude` is in the water: on the surface or below it (altitude 0),
/// with half its squares or more deep water, and the water at least to its chest (004:632: « qu'il nage,
/// marche alors qu'il a de l'eau jusqu'à la poitrine ou parcourt le fond »).
pub fn in_the_water(field: &Battlefield, footprint: Footprint, size: Size, altitude: i32) -> bool {
    if altitude != 0 || depth_for(size) == Depth::Wading {
        return false;
    }
    let squares = footprint.squares().count();
    let wet = footprint.squares().filter(|s| field.terrain(*s) == Terrain::DeepWater).count();
    wet > 0 && 2 * wet >= squares
}

/// Whether a creature on `footprint` at `altitude` stands in deep water, however deep it is for it (a
/// Huge creature wading, a mount carrying its rider through a ford): not « sur la terre ferme » (004:634),
/// though the table may put it in no row.
pub fn stands_in_deep_water(field: &Battlefield, footprint: Footprint, altitude: i32) -> bool {
    let squares = footprint.squares().count();
    let wet = footprint.squares().filter(|s| field.terrain(*s) == Terrain::DeepWater).count();
    altitude == 0 && wet > 0 && 2 * wet >= squares
}

/// The row of the table for a creature in the water: the best that applies to it, freedom of movement
/// first (004:641-645).
pub fn row_for(swimmer: Swimmer) -> WaterRow {
    if swimmer.freedom {
        WaterRow::FreedomOfMovement
    } else if swimmer.swim_speed {
        WaterRow::SwimSpeed
    } else if depth_for(swimmer.size) == Depth::Chest {
        WaterRow::Footing
    } else if swimmer.floundering {
        WaterRow::Nothing
    } else {
        WaterRow::SwimCheck
    }
}

/// The row of the table for a creature standing on `footprint` at `altitude`, `None` out of the water.
pub fn row_at(field: &Battlefield, footprint: Footprint, altitude: i32, swimmer: Swimmer) -> Option<WaterRow> {
    (!swimmer.carried && in_the_water(field, footprint, swimmer.size, altitude)).then(|| row_for(swimmer))
}

impl WaterRow {
    /// The attack penalty and whether damage is halved for an attack made with `thrust` (004:638-645):
    /// `None` when the row leaves it normal.
    pub fn attack(self, thrust: Thrust) -> Option<i32> {
        match (self, thrust) {
            (WaterRow::FreedomOfMovement, _) | (WaterRow::SwimSpeed, Thrust::Pierce) => None,
            _ => Some(-2),
        }
    }

    /// How far it moves (004:641-645).
    pub fn headway(self) -> Headway {
        match self {
            WaterRow::FreedomOfMovement | WaterRow::SwimSpeed => Headway::Normal,
            WaterRow::SwimCheck => Headway::Quarter,
            WaterRow::Footing => Headway::Half,
            WaterRow::Nothing => Headway::None,
        }
    }

    /// Whether it is off balance: no Dex bonus to AC, +2 to attacks against it (004:645; the footnote that
    /// says so was lost, our ruling after the d20 standard).
    pub fn off_balance(self) -> bool {
        self == WaterRow::Nothing
    }

    /// Whether it must make a Swim check at the start of each of its turns to keep swimming (our ruling).
    pub fn swims_by_check(self) -> bool {
        matches!(self, WaterRow::SwimCheck | WaterRow::Nothing)
    }

    /// The row as a modifier's source names it.
    pub fn label(self) -> &'static str {
        match self {
            WaterRow::FreedomOfMovement => "freedom of movement",
            WaterRow::SwimSpeed => "swim speed",
            WaterRow::SwimCheck => "swimming by its Swim check",
            WaterRow::Footing => "firm footing",
            WaterRow::Nothing => "floundering",
        }
    }
}

impl Headway {
    /// How many times each square of water doubles its cost: none, once (half), twice (a quarter).
    pub fn doublings(self) -> Option<u32> {
        match self {
            Headway::Normal => Some(0),
            Headway::Half => Some(1),
            Headway::Quarter => Some(2),
            Headway::None => None,
        }
    }
}

/// How many times a square of deep water doubles a walker's step into it: by the table's row for a
/// creature it puts in the water (a floundering one moves not at all, which the turn refuses before any
/// step), once for a Huge or bigger one that wades in it as in shallow water (our ruling), and so not at all
/// when it has a swim speed, as shallow water does not hamper a swimmer.
pub fn step_doublings(size: Size, swims: bool) -> u32 {
    if depth_for(size) == Depth::Wading {
        return u32::from(!swims);
    }
    let row = row_for(Swimmer { size, swim_speed: swims, freedom: false, floundering: false, carried: false });
    row.headway().doublings().unwrap_or(0)
}

/// The number of 1.5 m squares of water a ranged attack passes through between `own` and `theirs`
/// (004:633): the squares of deep water the line between their centres passes through, the target's
/// included and the attacker's not. The attack counts them when both are in the water: a shot over a pond
/// between two creatures on its banks, or between the bank and a swimmer, flies in the air (our ruling). The line is traced exactly, on a
/// grid of half squares where the centres are corners: a line through a corner of the grid enters neither
/// square beside it, whichever way it goes; a line along the edge between two squares of water crosses one
/// square's length of water, and none along a shore. Never more than the distance between them, as the grid
/// counts it (« tous les 1,50 mètre d'eau »: a line slanting through a row of squares passes through more
/// squares than it goes metres).
pub fn water_crossed(field: &Battlefield, own: Footprint, theirs: Footprint) -> u32 {
    use crate::rules::core::geometry::{Corner, trace_line};
    let centre = |f: Footprint| Corner { x: 2 * f.origin.x + f.width, y: 2 * f.origin.y + f.height };
    let whole = |s: Square| Square::new(s.x.div_euclid(2), s.y.div_euclid(2));
    let deep = |s: Square| field.terrain(s) == Terrain::DeepWater;
    let trace = trace_line(centre(own), centre(theirs));
    let mut seen: Vec<Square> = Vec::new();
    let mut note = |square: Square| {
        if !own.contains(square) && !seen.contains(&square) {
            seen.push(square);
        }
    };
    for half in &trace.squares {
        note(whole(*half));
    }
    for edge in &trace.along_edges {
        // Along the middle of a row or column of squares, inside them; along the edge between two squares,
        // counted once, as the first of the two, when both are water.
        let (a, b) = edge.squares();
        let (a, b) = (whole(a), whole(b));
        if a == b || (deep(a) && deep(b)) {
            note(a);
        }
    }
    let squares = seen.iter().filter(|s| deep(**s)).count() as u32;
    squares.min(own.distance_to(theirs, field.diagonals()))
}

/// Why a thrown weapon does nothing in the water (004:633).
pub const THROWN_IN_WATER: &str = "thrown weapons are ineffective in the water, even thrown from land";

/// The citation of the underwater table.
pub const TABLE: &str = "004:637-645";

#[cfg(test)]
mod tests {
    use super::*;

    fn swimmer(size: Size) -> Swimmer {
        Swimmer { size, swim_speed: false, freedom: false, floundering: false, carried: false }
    }

    #[test]
    fn the_underwater_table_row_by_row_004_641_645() {
        use Thrust::*;
        // (row, slashing or bludgeoning, piercing, movement, off balance)
        let rows = [
            (WaterRow::FreedomOfMovement, None, None, Headway::Normal, false),
            (WaterRow::SwimSpeed, Some(-2), None, Headway::Normal, false),
            (WaterRow::SwimCheck, Some(-2), Some(-2), Headway::Quarter, false),
            (WaterRow::Footing, Some(-2), Some(-2), Headway::Half, false),
            (WaterRow::Nothing, Some(-2), Some(-2), Headway::None, true),
        ];
        for (row, slash, pierce, headway, off) in rows {
            assert_eq!(row.attack(SlashOrBludgeon), slash, "{row:?}");
            assert_eq!(row.attack(Pierce), pierce, "{row:?}");
            assert_eq!(row.headway(), headway, "{row:?}");
            assert_eq!(row.off_balance(), off, "{row:?}");
        }
    }

    #[test]
    fn the_best_row_that_applies() {
        let medium = swimmer(Size::Medium);
        assert_eq!(row_for(medium), WaterRow::SwimCheck);
        assert_eq!(row_for(Swimmer { floundering: true, ..medium }), WaterRow::Nothing);
        assert_eq!(row_for(Swimmer { swim_speed: true, floundering: true, ..medium }), WaterRow::SwimSpeed);
        assert_eq!(row_for(Swimmer { freedom: true, swim_speed: true, ..medium }), WaterRow::FreedomOfMovement);
        // A Large creature walks the bottom, even after a failed check; with a swim speed it swims.
        assert_eq!(row_for(Swimmer { floundering: true, ..swimmer(Size::Large) }), WaterRow::Footing);
        assert_eq!(row_for(Swimmer { swim_speed: true, ..swimmer(Size::Large) }), WaterRow::SwimSpeed);
    }

    #[test]
    fn deep_water_is_deep_for_the_medium_and_shallow_for_the_huge() {
        let mut field = Battlefield::open(6, 6);
        for x in 0..3 {
            for y in 0..6 {
                field.set_terrain(Square::new(x, y), Terrain::DeepWater);
            }
        }
        field.set_terrain(Square::new(5, 5), Terrain::Water);
        let at = |x, y, side| Footprint::new(Square::new(x, y), side);
        assert!(in_the_water(&field, at(1, 1, 1), Size::Medium, 0));
        assert!(!in_the_water(&field, at(1, 1, 1), Size::Medium, 1), "flying above it");
        assert!(!in_the_water(&field, at(5, 5, 1), Size::Medium, 0), "shallow water");
        assert!(!in_the_water(&field, at(3, 1, 1), Size::Medium, 0), "on the bank");
        assert!(in_the_water(&field, at(2, 1, 2), Size::Large, 0), "half its squares");
        assert!(!in_the_water(&field, at(0, 0, 3), Size::Huge, 0), "below a Huge creature's chest");
        assert_eq!(step_doublings(Size::Medium, false), 2);
        assert_eq!(step_doublings(Size::Medium, true), 0);
        assert_eq!(step_doublings(Size::Large, false), 1);
        assert_eq!(step_doublings(Size::Huge, false), 1);
    }

    #[test]
    fn squares_of_water_a_missile_passes_through_004_634() {
        let mut field = Battlefield::open(10, 3);
        for x in 3..10 {
            field.set_terrain(Square::new(x, 1), Terrain::DeepWater);
        }
        let at = |x| Footprint::new(Square::new(x, 1), 1);
        // From the bank to a swimmer three squares out: the two squares of water between and its own.
        assert_eq!(water_crossed(&field, at(2), at(5)), 3);
        // Between two swimmers side by side: 1.5 m of water.
        assert_eq!(water_crossed(&field, at(4), at(5)), 1);
        assert_eq!(water_crossed(&field, at(5), at(4)), 1);
        // From the water to the bank: the squares of water left behind, not the attacker's own.
        assert_eq!(water_crossed(&field, at(6), at(1)), 3);
        // On a diagonal, every square the line passes through.
        assert_eq!(
            water_crossed(&field, Footprint::new(Square::new(3, 0), 1), Footprint::new(Square::new(5, 2), 1)),
            1
        );
    }

    #[test]
    fn a_diagonal_counts_the_same_water_whichever_way_it_goes_004_633() {
        // A lake from column 3 on: archers on the bank shoot two squares out along each diagonal.
        let mut field = Battlefield::open(10, 10);
        for y in 0..10 {
            for x in 3..10 {
                field.set_terrain(Square::new(x, y), Terrain::DeepWater);
            }
        }
        let at = |x, y| Footprint::new(Square::new(x, y), 1);
        // North-east, south-east, and back: (2, 4) to (4, 2) crosses (3, 3) and ends in (4, 2), 2 squares.
        assert_eq!(water_crossed(&field, at(2, 4), at(4, 2)), 2);
        assert_eq!(water_crossed(&field, at(2, 4), at(4, 6)), 2);
        assert_eq!(water_crossed(&field, at(4, 2), at(2, 4)), 1);
        assert_eq!(water_crossed(&field, at(4, 6), at(2, 4)), 1);
        // A slanting line passes through more squares than it goes: 15 squares of water (crossing 6 columns
        // and 9 rows) on a shot of 12 by the grid count, 12 (« tous les 1,50 mètre »).
        assert_eq!(water_crossed(&field, at(3, 0), at(9, 9)), 12);
        // Six diagonals out: six squares, both ways.
        assert_eq!(water_crossed(&field, at(2, 7), at(8, 1)), 6);
        assert_eq!(water_crossed(&field, at(2, 1), at(8, 7)), 6);
        // A Large swimmer's centre on a corner: along the edge between two rows of water, one square a column.
        let large = Footprint::new(Square::new(6, 4), 2);
        assert_eq!(water_crossed(&field, Footprint::new(Square::new(1, 4), 2), large), 4);
    }
}
