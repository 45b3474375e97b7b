//! Who has lost sight of whom: a flier that hid among towers from its pursuers (004:816-817), and a pursuer
//! misled by a Bluff (004:818). Every chapter that aims at a creature asks here whether the aimer still
//! sees it; the pursuit rules that hide and mislead are the aerial chapter's.

use std::collections::BTreeSet;

use bevy::prelude::*;

use super::CreatureId;
use crate::rules::core::refusal::Refusal;

/// The foes that lost sight of a flier that hid (004:816-817): they cannot attack it, aim a spell, a
/// breath or a collision at it, until it attacks, casts or breathes, or its next turn begins.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Who lost it.
    pub from: BTreeSet<Entity>,
    /// The round it hid in: once a turn.
    pub round: u32,
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

/// The refusal to target a creature a pursuer lost sight of.
pub fn out_of_sight(target: &CreatureId) -> Refusal {
    Refusal::new(format!("it has lost sight of {target}, hidden (Hide)"), "004:816-817")
}

/// The misled pursuer's penalty on its fly checks to turn after the flier that bluffed it (004:818).
pub const MISLED_PENALTY: i32 = -5;
