//! Special attacks (004:428-618), the chapter after the modifiers: each replaces an attack or a move with a
//! manoeuvre of its own. Trip (004:483-489), aid another (004:444) and the feint (004:524-527) are played;
//! the others are to come (bull rush, disarm, sunder, splash weapons, overrun, turning undead, grapple).

pub mod aid;
pub mod feint;
pub mod trip;

use bevy::prelude::*;

/// The special attacks.
pub fn plugin(app: &mut App) {
    trip::plugin(app);
    aid::plugin(app);
    feint::plugin(app);
}
