//! Attacks in and into the water (004:632-645): the underwater table's attack and damage terms for a
//! creature fighting in the water, thrown weapons that do nothing there, missiles slowed by every 1.5 m of
//! water they pass through, and the improved cover the water gives against foes out of it. The rows
//! themselves are `core::water`'s, shared with the movement costs and the Swim check.

use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::{Delivery, Modifier, Weapon};
use crate::rules::core::geometry::Footprint;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::water::{self, Swimmer, Thrust, WaterRow};

use super::{CombatantItem, Cover};

/// The water around an attack: the table's row for each side in the water, and the squares of water a
/// missile would pass through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waters {
    /// The attacker's row, if it is in the water.
    pub attacker: Option<WaterRow>,
    /// The target's row, if it is in the water.
    pub target: Option<WaterRow>,
    /// Squares of water between them (004:633), counted when one of them is in the water.
    pub crossed: u32,
    /// The attacker moves freely in the water (freedom of movement, 004:634).
    pub attacker_free: bool,
    /// The attacker stands in deep water, whatever its row: not « sur la terre ferme » (004:634).
    pub attacker_wading: bool,
}

/// A creature as the underwater table sees it: its size, its swim speed, freedom of movement, and whether
/// its last Swim check failed.
pub fn swimmer_of(c: &CombatantItem) -> Swimmer {
    Swimmer { carried: c.seat.is_some(), ..Swimmer::of(*c.size, c.speed, c.traits, c.conditions) }
}

/// The water around an attack of `attacker` standing on `own` on `target` standing on `theirs`.
pub fn waters(
    field: &Battlefield,
    (attacker, own): (&CombatantItem, Footprint),
    (target, theirs): (&CombatantItem, Footprint),
) -> Waters {
    waters_at(field, (attacker, own), (target, theirs, target.altitude.0))
}

/// [`waters`] with `target` at `altitude`: a flier in the middle of its flight.
pub fn waters_at(
    field: &Battlefield,
    (attacker, own): (&CombatantItem, Footprint),
    (target, theirs, altitude): (&CombatantItem, Footprint, i32),
) -> Waters {
    let attacker_row = water::row_at(field, own, attacker.altitude.0, swimmer_of(attacker));
    let target_row = water::row_at(field, theirs, altitude, swimmer_of(target));
    // A missile crosses water between two creatures in it (« qu'il leur faut franchir », 004:633); between the
    // water and the land or the air it flies over the surface, where a creature in the water is taken, and the
    // water's cover stands for it (004:634).
    let under = attacker_row.is_some() && target_row.is_some();
    Waters {
        attacker: attacker_row,
        target: target_row,
        crossed: if under { water::water_crossed(field, own, theirs) } else { 0 },
        attacker_free: attacker.traits.freedom_of_movement,
        attacker_wading: water::stands_in_deep_water(field, own, attacker.altitude.0),
    }
}

/// The water around a ranged attack of `attacker` on `own` aimed at a point out of the water (a flask thrown
/// at an intersection, 004:529): the thrower's own row, no target's.
pub fn waters_of_the_thrower(field: &Battlefield, (attacker, own): (&CombatantItem, Footprint)) -> Waters {
    Waters {
        attacker: water::row_at(field, own, attacker.altitude.0, swimmer_of(attacker)),
        target: None,
        crossed: 0,
        attacker_free: attacker.traits.freedom_of_movement,
        attacker_wading: water::stands_in_deep_water(field, own, attacker.altitude.0),
    }
}

/// The cover the water gives the target against this attacker: improved cover, +8, to a creature in the
/// water against a foe out of it, on dry land or in the air (« situés sur la terre ferme », 004:634: not one
/// standing in the water out of the table's rows, a wading giant, a rider in a ford); a foe with freedom of
/// movement ignores it in melee (004:634).
pub fn water_cover(waters: &Waters, melee: bool) -> Option<Cover> {
    let shielded = waters.target.is_some()
        && waters.attacker.is_none()
        && !waters.attacker_wading
        && !(melee && waters.attacker_free);
    shielded.then_some(Cover::Water)
}

/// The better of the cover the field gives and the water's (004:398-407, 004:634): total cover stands.
pub fn with_water(cover: Cover, water: Option<Cover>) -> Cover {
    match water {
        Some(water) if cover != Cover::Total && water.bonus() > cover.bonus() => water,
        _ => cover,
    }
}

/// The water's cover for a creature (`target`) on `theirs` against a foe (`attacker`) on `own`, each at its
/// altitude: [`water_cover`] from plain positions, for a square a creature only considers standing on.
pub fn water_cover_at(
    field: &Battlefield,
    (attacker, own, attacker_altitude): (Swimmer, Footprint, i32),
    (target, theirs, target_altitude): (Swimmer, Footprint, i32),
    melee: bool,
) -> Option<Cover> {
    let waters = Waters {
        attacker: water::row_at(field, own, attacker_altitude, attacker),
        target: water::row_at(field, theirs, target_altitude, target),
        crossed: 0,
        attacker_free: attacker.freedom,
        attacker_wading: water::stands_in_deep_water(field, own, attacker_altitude),
    };
    water_cover(&waters, melee)
}

/// The underwater terms of an attack with `weapon`: thrown weapons do nothing in the water (004:633);
/// other missiles take -2 per 1.5 m of water they pass through (004:633); a melee attack from the water
/// takes the table's attack penalty and deals half damage where its row and the weapon's column say so
/// (004:637-645; the table read for melee weapons, our ruling). Returns whether the damage is halved.
pub fn water_terms(waters: &Waters, weapon: &Weapon, modifiers: &mut Vec<Modifier>) -> Result<bool, Refusal> {
    let wet = waters.attacker.is_some() || waters.target.is_some();
    match weapon.delivery {
        Delivery::Thrown { .. } if wet => Err(Refusal::new(water::THROWN_IN_WATER, "004:633")),
        Delivery::Thrown { .. } => Ok(false),
        Delivery::Projectile { .. } => {
            if waters.crossed > 0 {
                let metres = waters.crossed as f32 * 1.5;
                modifiers.push(Modifier::new(-2 * waters.crossed as i32, format!("{metres} m of water (004:633)")));
            }
            Ok(false)
        }
        Delivery::Melee => {
            let Some(row) = waters.attacker else { return Ok(false) };
            let thrust = if weapon.pierces { Thrust::Pierce } else { Thrust::SlashOrBludgeon };
            let Some(penalty) = row.attack(thrust) else { return Ok(false) };
            let column = match thrust {
                Thrust::Pierce => "piercing",
                Thrust::SlashOrBludgeon => "slashing or bludgeoning",
            };
            modifiers
                .push(Modifier::new(penalty, format!("in the water, {}, {column} ({})", row.label(), water::TABLE)));
            Ok(true)
        }
    }
}

/// The source a halved damage names in the log.
pub const HALF_DAMAGE: &str = "in the water, half damage (004:637-645)";
