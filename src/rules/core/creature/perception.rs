//! Who has lost sight of whom: a flier that hid among towers from its pursuers (004:816-817), and a pursuer
//! misled by a Bluff (004:818). Every chapter that aims at a creature asks here whether the aimer still
//! sees it; the pursuit rules that hide and mislead are the aerial chapter's.

use std::collections::BTreeSet;

use bevy::prelude::*;

use super::CreatureId;
use crate::rules::core::refusal::Refusal;

/// The foes that lost sight of a creature that hid: they cannot attack it, aim a spell, a breath or a
/// collision at it. A flier that hid from its pursuers (004:816-817) is found again when it attacks,
/// casts or breathes, or when its next turn begins; a creature that hid on the ground behind cover or
/// concealment (004:403, 004:412) when it attacks, casts or breathes, when it leaves the square it hid
/// in, and by each foe from which it no longer has cover or concealment.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Who lost it.
    pub from: BTreeSet<Entity>,
    /// The round it hid in: once a turn.
    pub round: u32,
    /// The square it hid in on the ground; `None` for a flier that hid in the air.
    pub at: Option<crate::rules::core::geometry::Square>,
}

/// A pursuer misled by a flier's Bluff (004:818): its fly checks to turn are at -5 until its next turn
/// ends.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Misled {
    /// The flier that bluffed it.
    pub by: CreatureId,
}

/// Lying in wait as the fight begins: its foes must spot it to know of it (004:56-58).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lurking;

/// Whether `pursuer` has lost sight of the creature `hidden` belongs to.
pub fn lost_sight(hidden: Option<&Hidden>, pursuer: Entity) -> bool {
    hidden.is_some_and(|h| h.from.contains(&pursuer))
}

/// Whether `looker` may aim at the creature `hidden` belongs to: refused when it lost sight of it.
pub fn in_sight_of(hidden: Option<&Hidden>, looker: Entity, target: &CreatureId) -> Result<(), Refusal> {
    if lost_sight(hidden, looker) { Err(out_of_sight(target, hidden)) } else { Ok(()) }
}

/// The refusal to target a creature that hid from the aimer: behind cover or concealment on the ground
/// (004:403, 004:412), or in the air from its pursuers (004:816-817).
pub fn out_of_sight(target: &CreatureId, hidden: Option<&Hidden>) -> Refusal {
    let rule = if hidden.is_some_and(|h| h.at.is_some()) { "004:403, 004:412" } else { "004:816-817" };
    Refusal::new(format!("it has lost sight of {target}, hidden (Hide)"), rule)
}

/// The misled pursuer's penalty on its fly checks to turn after the flier that bluffed it (004:818).
pub const MISLED_PENALTY: i32 = -5;
