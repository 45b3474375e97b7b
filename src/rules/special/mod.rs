//! Special attacks (004:428-618), the chapter after the modifiers: each replaces an attack or a move with a
//! manoeuvre of its own. Trip (004:483-489) is played; the others are to come (aid another, bull rush,
//! disarm, sunder, feint, splash weapons, overrun, turning undead, grapple).

pub mod trip;

use bevy::prelude::*;

/// The special attacks.
pub fn plugin(app: &mut App) {
    trip::plugin(app);
}
