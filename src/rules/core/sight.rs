//! What a creature sees and threatens around it: a flier's blind spot behind it (004:675-680), which no
//! attack, spell or breath reaches and where it threatens nothing.

use crate::rules::core::creature::{Maneuverability, Speed, Weapon};
use crate::rules::core::geometry::{Direction, Footprint, Square};

/// Perfect and good manoeuvrability: such a flier never stalls unless it chooses to (004:702), may hover
/// (004:708), and has no blind spot (004:680).
pub fn is_nimble(maneuverability: Maneuverability) -> bool {
    matches!(maneuverability, Maneuverability::Perfect | Maneuverability::Good)
}

/// The squares a creature does not threaten for being a flier in the air with a blind spot (004:675-680):
/// none on the ground, none with a tail attack (which still threatens it, 004:676).
pub fn unthreatened_behind(
    footprint: Footprint,
    (altitude, heading): (i32, Direction),
    (speed, hovering): (&Speed, bool),
    all_round_vision: bool,
    weapons: &[Weapon],
) -> Vec<Square> {
    if has_tail_attack(weapons) {
        return Vec::new();
    }
    unseen_behind(footprint, (altitude, heading), (speed, hovering), all_round_vision)
}

/// Whether a creature has a tail attack, which still threatens its blind spot (004:676).
pub fn has_tail_attack(weapons: &[Weapon]) -> bool {
    weapons.iter().any(reaches_blind_spot)
}

/// Whether a weapon strikes into its flier's blind spot: a tail alone does (004:676), as the data marks.
pub fn reaches_blind_spot(weapon: &Weapon) -> bool {
    weapon.tail
}

/// The squares a flier in the air has no line of sight into (004:676), a tail attack or not: what a
/// spell or a line of breath cannot be aimed at.
pub fn unseen_behind(
    footprint: Footprint,
    (altitude, heading): (i32, Direction),
    (speed, hovering): (&Speed, bool),
    all_round_vision: bool,
) -> Vec<Square> {
    let Some(wings) = speed.fly else { return Vec::new() };
    // Hovering, it « bénéficie d'une manœuvrabilité parfaite » (004:709), and a perfect flier has no blind
    // spot (004:680).
    if altitude <= 0 || hovering {
        return Vec::new();
    }
    blind_spot(footprint, heading, wings.maneuverability, all_round_vision)
}

/// The blind spot of a flier at normal scale (004:675-680): squares of its own space right behind it. None
/// for perfect or good manoeuvrability or all-round vision.
pub fn blind_spot(
    footprint: Footprint,
    heading: Direction,
    maneuverability: Maneuverability,
    all_round_vision: bool,
) -> Vec<Square> {
    if all_round_vision || is_nimble(maneuverability) {
        return Vec::new();
    }
    let (dx, dy) = heading.opposite().delta();
    let shifted = Footprint::rect(
        footprint.origin.offset(dx * footprint.width, dy * footprint.height),
        footprint.width,
        footprint.height,
    );
    shifted.squares().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blind_spot_004_675_680() {
        // A Large flier heading east: its blind spot is the 2x2 squares west of it.
        let dragon = Footprint::new(Square::new(10, 10), 2);
        let spot = blind_spot(dragon, Direction::East, Maneuverability::Poor, false);
        assert_eq!(spot, vec![Square::new(8, 10), Square::new(9, 10), Square::new(8, 11), Square::new(9, 11)]);
        assert!(blind_spot(dragon, Direction::East, Maneuverability::Good, false).is_empty());
        assert!(blind_spot(dragon, Direction::East, Maneuverability::Poor, true).is_empty());
    }
}
