//! A creature's body where it is: what another creature's move, a flight or a breath meets of it.

use bevy::prelude::*;

use super::{CreatureId, Faction, Traits};
use crate::rules::core::geometry::{Direction, Footprint};
use crate::rules::core::size::Size;

/// A creature's body where it is now.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// The entity.
    pub entity: Entity,
    /// Its id.
    pub id: CreatureId,
    /// Its side.
    pub faction: Faction,
    /// The squares it takes.
    pub footprint: Footprint,
    /// Its altitude: 1.5 m steps, or the band at chase scale.
    pub altitude: i32,
    /// Where it faces.
    pub heading: Direction,
    /// Its size, for the height of its body.
    pub size: Size,
    /// Helpless: others may pass through it (000:72-73).
    pub helpless: bool,
    /// Its traits.
    pub traits: Traits,
}

impl Body {
    /// A body of `size` on `footprint` at `altitude`, nobody's in particular: for the pure rules' tests and
    /// previews of a place.
    pub fn placed(footprint: Footprint, altitude: i32, size: Size) -> Self {
        Body {
            entity: Entity::PLACEHOLDER,
            id: CreatureId::default(),
            faction: Faction::default(),
            footprint,
            altitude,
            heading: Direction::North,
            size,
            helpless: false,
            traits: Traits::default(),
        }
    }
}
