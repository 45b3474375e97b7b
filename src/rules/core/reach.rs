//! What a creature reaches in melee and threatens (004:62-63, 000:152-172, 004:357-371): natural reach,
//! reach weapons, the 1-2-1-2 count with the 3 m diagonal of the RULES-INDEX ruling, and a rider's high
//! seat on a Huge mount (004:813-815). Every chapter that asks "can it strike there" asks here.

use crate::rules::core::creature::{CreatureId, Delivery, Weapon};
use crate::rules::core::geometry::{Diagonals, Footprint, Square};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;
pub use crate::rules::core::weapon_reach::WeaponReach;

/// Whether a target at a gap of (`dx`, `dy`) squares between the nearest squares (1 = adjacent) lies
/// within `reach` squares: the table's diagonal count, except that under the 1-2-1-2 count a 3 m reach
/// also reaches two diagonals away (RULES-INDEX ruling).
pub fn within(diagonals: Diagonals, dx: u32, dy: u32, reach: u32) -> bool {
    let d = diagonals.squares(dx as i32, dy as i32);
    d <= reach || (reach == 2 && dx == 2 && dy == 2)
}

/// Whether a melee weapon reaches a target: natural reach for ordinary weapons (a creature with reach 0
/// must share the target's square, 000:152-156); a reach weapon strikes at twice the natural reach but not
/// within it (004:63, 000:169-172); a whip anywhere within its reach.
pub fn melee_reaches(
    diagonals: Diagonals,
    natural_reach: u32,
    reach_weapon: WeaponReach,
    attacker: Footprint,
    target: Footprint,
) -> bool {
    // Anyone strikes into the space it occupies (004:352 « n'importe qui peut en effet délivrer des coups
    // dans l'espace qu'il occupe »), with a reach weapon too; of reach 0, there only (000:152-156).
    if attacker.overlaps(target) {
        return true;
    }
    if natural_reach == 0 {
        return false;
    }
    let (dx, dy) = attacker.gaps(target);
    if reach_weapon == WeaponReach::Doubled {
        // « ne peuvent pas frapper quelqu'un se trouvant à une distance égale ou inférieure à leur allonge
        // naturelle » (004:356): by the distance, not by what the natural reach threatens: the square two
        // diagonals off a 3 m reach, 4.5 m away, is struck with the weapon too.
        within(diagonals, dx, dy, natural_reach * 2) && diagonals.squares(dx as i32, dy as i32) > natural_reach
    } else {
        within(diagonals, dx, dy, reach_weapon.squares(natural_reach))
    }
}

/// [`melee_reaches`] with the target `rise` steps away in height ([`crate::rules::core::altitude::vertical_steps`]:
/// 0 when their bodies overlap in height, 1 when one is right above the other, one more a 1.5 m of air
/// between). « Commencez par déterminer la distance horizontale et la distance verticale qui les séparent.
/// Ajoutez la moitié de la distance la plus courte à la distance la plus longue » (004:783): the distance
/// across (as the table counts it) and the height make one distance, the shorter's half rounded down as
/// the 1-2-1-2 diagonals round it (the longer alone when every diagonal is one square), within the
/// weapon's reach: the natural reach (a square at least, up into its own space), twice it with a reach
/// weapon, which still strikes nothing within the natural reach (004:63, 004:356), a whip's.
pub fn melee_reaches_at_height(
    (diagonals, scale): (Diagonals, crate::rules::core::altitude::Scale),
    natural_reach: u32,
    reach_weapon: WeaponReach,
    (attacker, target): (Footprint, Footprint),
    rise: u32,
) -> bool {
    let reach = crate::rules::core::altitude::vertical_reach(natural_reach, reach_weapon);
    // At chase scale a square is 9 m and the heights are bands: the band's row says who reaches whom
    // (004:788-797), the band within the weapon's reach.
    if rise == 0 || scale == crate::rules::core::altitude::Scale::Chase {
        return melee_reaches(diagonals, natural_reach, reach_weapon, attacker, target) && rise <= reach;
    }
    let overlap = attacker.overlaps(target);
    if natural_reach == 0 && !overlap {
        return false;
    }
    let across = if overlap {
        0
    } else {
        let (dx, dy) = attacker.gaps(target);
        diagonals.squares(dx as i32, dy as i32)
    };
    // The diagonal rule, in the air (004:783).
    let distance = diagonals.squares(across as i32, rise as i32);
    distance <= reach && (reach_weapon != WeaponReach::Doubled || distance > natural_reach)
}

/// Whether a creature threatens with a weapon: melee only; an unarmed strike only when "armed" (a monk, or
/// Improved Unarmed Strike), natural weapons always (004:62); a whip never (the d20 standard's whip
/// threatens nothing it strikes; docs/rulings.md).
pub fn threatens_with(weapon: &Weapon, armed_unarmed: bool) -> bool {
    matches!(weapon.delivery, Delivery::Melee) && (!weapon.unarmed || armed_unarmed) && !weapon.whip
}

/// The weapons a creature threatens with: « la zone … dans laquelle il est capable de faire des attaques de
/// corps à corps » (004:62): every melee weapon it holds in hand (not one put away, 004:218), two in its two
/// hands threatening the squares of both, and all its natural weapons.
pub fn threatening_weapons(weapons: &[Weapon], armed_unarmed: bool) -> Vec<&Weapon> {
    weapons.iter().filter(|w| w.natural || !w.stowed).filter(|w| threatens_with(w, armed_unarmed)).collect()
}

/// The squares a creature threatens from `own`: every square within reach of a weapon it threatens with,
/// inside `width` x `height`; of reach 0, its own square only, where a creature passing through provokes it
/// (002:80), none around it (000:155-156).
pub fn threatened_squares(
    diagonals: Diagonals,
    (own, high): (Footprint, bool),
    natural_reach: u32,
    weapons: &[Weapon],
    armed_unarmed: bool,
    width: i32,
    height: i32,
) -> Vec<Square> {
    let usable = threatening_weapons(weapons, armed_unarmed);
    if usable.is_empty() {
        return Vec::new();
    }
    // A rider high on a Huge mount threatens the squares beside it with a reach weapon only (004:814).
    if high {
        if !usable.iter().any(|w| w.reach_kind().long()) {
            return Vec::new();
        }
        let ring = Footprint::rect(Square::new(own.origin.x - 1, own.origin.y - 1), own.width + 2, own.height + 2);
        let on_map = |s: &Square| (0..width).contains(&s.x) && (0..height).contains(&s.y);
        return ring.squares().filter(|s| !own.contains(*s) && on_map(s)).collect();
    }
    if natural_reach == 0 {
        return own.squares().filter(|s| (0..width).contains(&s.x) && (0..height).contains(&s.y)).collect();
    }
    let far = (natural_reach * 2) as i32 + 1;
    let mut out = Vec::new();
    for y in (own.origin.y - far).max(0)..(own.origin.y + own.height + far).min(height) {
        for x in (own.origin.x - far).max(0)..(own.origin.x + own.width + far).min(width) {
            let square = Square::new(x, y);
            if own.contains(square) {
                continue;
            }
            let target = Footprint::new(square, 1);
            if usable.iter().any(|w| melee_reaches(diagonals, natural_reach, w.reach_kind(), own, target)) {
                out.push(square);
            }
        }
    }
    out
}

/// Whether a rider of `rider` size sits high on a mount of `mount` size (004:813-814).
pub fn sits_high(mount: Size, rider: Size) -> bool {
    mount >= Size::Huge && rider <= Size::Medium
}

/// Whether a melee attack from `own` (with `natural_reach` and a weapon of reach or not) reaches a foe on
/// `theirs`, given who sits high on a big mount: a high rider strikes only the squares next to its mount,
/// and only with a reach weapon; a high rider is struck only by a creature with reach, natural or a
/// weapon's (004:813-814). `None` when no high seat is involved: the usual reach rules decide.
pub fn high_seat_reaches(
    diagonals: Diagonals,
    attacker_high: bool,
    target_high: bool,
    natural_reach: u32,
    reach_weapon: WeaponReach,
    own: Footprint,
    theirs: Footprint,
) -> Option<bool> {
    if attacker_high {
        return Some(reach_weapon.long() && own.adjacent_to(theirs));
    }
    if target_high {
        // « sauf si elles-mêmes possèdent des armes à allonge ou une allonge naturelle »: a creature beside
        // the mount with reach strikes its high rider, as one whose reach gets to the mount's squares.
        let reaches = reach_weapon.long() || natural_reach >= 2;
        let near = own.adjacent_to(theirs) || melee_reaches(diagonals, natural_reach, reach_weapon, own, theirs);
        return Some(reaches && near);
    }
    None
}

/// [`melee_reaches_at_height`] with the seats of the two (`attacker_high`, `target_high`): a high rider's
/// reach and a high rider's exposure are [`high_seat_reaches`]' (004:813-814). What chooses the weapon that
/// strikes asks it.
pub fn melee_reaches_seated(
    both: (Diagonals, crate::rules::core::altitude::Scale),
    natural_reach: u32,
    reach_weapon: WeaponReach,
    (attacker, target): (Footprint, Footprint),
    (rise, attacker_high, target_high): (u32, bool, bool),
) -> bool {
    high_seat_reaches(both.0, attacker_high, target_high, natural_reach, reach_weapon, attacker, target)
        .unwrap_or_else(|| melee_reaches_at_height(both, natural_reach, reach_weapon, (attacker, target), rise))
}

/// Whether riders on a mount at `mount_altitude` over `mount` and a creature at `other_altitude` on `other`
/// have total cover from each other: every square of the other is right below the mount (004:815).
pub fn covered_by_the_mount(mount: Footprint, mount_altitude: i32, other: Footprint, other_altitude: i32) -> bool {
    other_altitude < mount_altitude && other.squares().all(|s| mount.contains(s))
}

/// The refusal of a rider's attack on, or by, a creature right below its mount (004:815).
pub fn below_the_mount(who: &CreatureId) -> Refusal {
    Refusal::new(format!("{who} is right below the mount: total cover between them"), "004:815")
}

#[cfg(test)]
mod tests {
    use super::WeaponReach::{Doubled, Natural};
    use super::*;

    const A: Diagonals = Diagonals::Alternating;

    #[test]
    fn height_and_distance_across_make_one_distance_004_783() {
        use crate::rules::core::altitude::Scale::{Chase, Normal};
        let at = |x: i32, side: i32| Footprint::new(Square::new(x, 0), side);
        // The text's example: 12 m across (8 squares) and 18 m up (12 steps) are 24 m (16 squares) apart; a
        // reach of 16 squares would reach, one of 15 not.
        assert!(melee_reaches_at_height((A, Normal), 8, Doubled, (at(0, 1), at(8, 1)), 12));
        assert!(!melee_reaches_at_height((A, Normal), 7, Doubled, (at(0, 1), at(8, 1)), 12));
        // A longspear (3 m): 2 across on the ground, or 1 across and 2 up, reach; 2 across and 2 up is 3.
        assert!(melee_reaches_at_height((A, Normal), 1, Doubled, (at(0, 1), at(2, 1)), 0));
        assert!(melee_reaches_at_height((A, Normal), 1, Doubled, (at(0, 1), at(1, 1)), 2));
        assert!(!melee_reaches_at_height((A, Normal), 1, Doubled, (at(0, 1), at(2, 1)), 2));
        // Nor within the natural reach: right above, one step up.
        assert!(!melee_reaches_at_height((A, Normal), 1, Doubled, (at(0, 1), at(0, 1)), 1));
        // A sword: adjacent and right above its head (1 + 0), yes; 2 up beside it, no.
        assert!(melee_reaches_at_height((A, Normal), 1, Natural, (at(0, 1), at(1, 1)), 1));
        assert!(!melee_reaches_at_height((A, Normal), 1, Natural, (at(0, 1), at(1, 1)), 2));
        // Every diagonal one square (the house rule): the longer leg alone.
        assert!(melee_reaches_at_height((Diagonals::Single, Normal), 1, Doubled, (at(0, 1), at(2, 1)), 2));
        // At chase scale the band, not the distance.
        assert!(melee_reaches_at_height((A, Chase), 1, Natural, (at(0, 1), at(1, 1)), 1));
    }

    #[test]
    fn reach_and_reach_weapons() {
        let at = |x, y| Footprint::new(Square::new(x, y), 1);
        let me = at(5, 5);
        assert!(melee_reaches(A, 1, Natural, me, at(6, 6)));
        assert!(!melee_reaches(A, 1, Natural, me, at(7, 5)));
        // A Medium creature's reach weapon: 2 squares, not adjacent, and the corner two diagonals away.
        assert!(melee_reaches(A, 1, Doubled, me, at(7, 5)));
        assert!(melee_reaches(A, 1, Doubled, me, at(7, 7)));
        assert!(!melee_reaches(A, 1, Doubled, me, at(6, 5)));
        let ring = (-3..=3)
            .flat_map(|dy| (-3..=3).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| melee_reaches(A, 1, Doubled, me, at(5 + dx, 5 + dy)))
            .count();
        assert_eq!(ring, 17, "the 5x5 ring minus the inner 3x3, and its own square (004:352)");
        // A Large ogre (natural reach 2) hits adjacent and 2 away.
        let ogre = Footprint::new(Square::new(0, 0), 2);
        assert!(melee_reaches(A, 2, Natural, ogre, at(2, 0)));
        assert!(melee_reaches(A, 2, Natural, ogre, at(3, 0)));
        assert!(!melee_reaches(A, 2, Natural, ogre, at(4, 0)));
        // With a reach weapon of its size: 4 squares but not within 2.
        assert!(!melee_reaches(A, 2, Doubled, ogre, at(3, 0)));
        assert!(melee_reaches(A, 2, Doubled, ogre, at(5, 0)));
        // Two diagonals off its space, 4.5 m away: its natural 3 m reach takes it (the corner exception), and
        // so does the weapon, farther than the natural reach (004:356): no hole at the ring's corners.
        assert!(melee_reaches(A, 2, Natural, ogre, at(3, 3)));
        assert!(melee_reaches(A, 2, Doubled, ogre, at(3, 3)));
        assert!(!melee_reaches(A, 2, Doubled, ogre, at(3, 2)));
        // Reach 0: only in the same square.
        assert!(!melee_reaches(A, 0, Natural, me, at(6, 5)));
        assert!(melee_reaches(A, 0, Natural, me, at(5, 5)));
    }

    #[test]
    fn a_whip_reaches_4_5_m_next_squares_included() {
        use super::WeaponReach::Whip;
        let at = |x, y| Footprint::new(Square::new(x, y), 1);
        let me = at(5, 5);
        // Next to it, 3 m, 4.5 m straight; 4.5 m on two diagonals (1 + 2) and three squares and one aside.
        for (x, y) in [(6, 5), (7, 5), (8, 5), (7, 7), (8, 6), (5, 2)] {
            assert!(melee_reaches(A, 1, Whip, me, at(x, y)), "({x}, {y})");
        }
        // 6 m: four squares straight, three diagonals (1 + 2 + 1).
        for (x, y) in [(9, 5), (8, 8), (1, 5)] {
            assert!(!melee_reaches(A, 1, Whip, me, at(x, y)), "({x}, {y})");
        }
        // A Large wielder's natural 3 m and 3 m more: four squares off its space.
        let ogre = Footprint::new(Square::new(0, 0), 2);
        assert!(melee_reaches(A, 2, Whip, ogre, at(2, 0)));
        assert!(melee_reaches(A, 2, Whip, ogre, at(5, 0)));
        assert!(!melee_reaches(A, 2, Whip, ogre, at(6, 0)));
        // In height as across (004:783): three steps up, right above it.
        assert_eq!(crate::rules::core::altitude::vertical_reach(1, Whip), 3);
    }

    #[test]
    fn every_diagonal_one_square_widens_long_reach_to_the_corners() {
        let at = |x, y| Footprint::new(Square::new(x, y), 1);
        // A Huge creature's 4.5 m reach (3 squares): three diagonals away is 4 squares 1-2-1-2, 3 under the
        // house rule.
        let giant = Footprint::new(Square::new(0, 0), 3);
        assert!(!melee_reaches(A, 3, Natural, giant, at(5, 5)));
        assert!(melee_reaches(Diagonals::Single, 3, Natural, giant, at(5, 5)));
        assert!(!melee_reaches(Diagonals::Single, 3, Natural, giant, at(6, 5)));
        // The 3 m reach already takes the corner two diagonals away: the same ring either way.
        let me = at(5, 5);
        let ring = |d| {
            (-3..=3)
                .flat_map(|dy| (-3..=3).map(move |dx| (dx, dy)))
                .filter(|&(dx, dy)| melee_reaches(d, 1, Doubled, me, at(5 + dx, 5 + dy)))
                .count()
        };
        // (The ring, and its own square, 004:352.)
        assert_eq!((ring(A), ring(Diagonals::Single)), (17, 17));
    }

    #[test]
    fn a_high_seat_reaches_only_with_a_reach_weapon_and_is_reached_only_with_reach() {
        assert!(sits_high(Size::Huge, Size::Medium) && sits_high(Size::Gargantuan, Size::Small));
        assert!(!sits_high(Size::Large, Size::Medium) && !sits_high(Size::Huge, Size::Large));
        let mount = Footprint::new(Square::new(4, 4), 3);
        let beside = Footprint::new(Square::new(7, 4), 1);
        let two_off = Footprint::new(Square::new(8, 4), 1);
        // The rider with a sword reaches nobody; with a longspear, the squares next to the mount (004:814).
        assert_eq!(high_seat_reaches(A, true, false, 1, Natural, mount, beside), Some(false));
        assert_eq!(high_seat_reaches(A, true, false, 1, Doubled, mount, beside), Some(true));
        assert_eq!(high_seat_reaches(A, true, false, 1, Doubled, mount, two_off), Some(false));
        // A swordsman next to the mount does not reach the rider; a longspear or an ogre's reach does.
        assert_eq!(high_seat_reaches(A, false, true, 1, Natural, beside, mount), Some(false));
        assert_eq!(high_seat_reaches(A, false, true, 1, Doubled, two_off, mount), Some(true));
        // « sauf si elles-mêmes possèdent des armes à allonge »: a longspear beside the mount too.
        assert_eq!(high_seat_reaches(A, false, true, 1, Doubled, beside, mount), Some(true));
        assert_eq!(high_seat_reaches(A, false, true, 2, Natural, beside, mount), Some(true));
        assert_eq!(high_seat_reaches(A, false, false, 1, Natural, beside, mount), None);
    }

    #[test]
    fn what_is_right_below_the_mount_has_total_cover() {
        let griffon = Footprint::new(Square::new(4, 4), 2);
        let under = Footprint::new(Square::new(5, 5), 1);
        let half_out = Footprint::new(Square::new(5, 5), 2);
        assert!(covered_by_the_mount(griffon, 4, under, 0));
        assert!(!covered_by_the_mount(griffon, 4, half_out, 0), "every square of it must be below the mount");
        assert!(!covered_by_the_mount(griffon, 4, under, 4), "at the same height it is beside, not below");
        assert!(!covered_by_the_mount(griffon, 0, under, 0));
    }
}
