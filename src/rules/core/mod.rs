//! The core every rules chapter stands on: ids and the creature data model, geometry and positions on the
//! grid and in the air, the map, dice, refusals with their citation, and the facts of the event log. It
//! depends on no chapter; every chapter depends on it.

pub mod ability_damage;
pub mod action_table;
pub mod altitude;
pub mod battlefield;
pub mod checks;
pub mod cover;
pub mod creature;
pub mod death;
pub mod dice;
pub mod facts;
pub mod gear;
pub mod geometry;
pub mod kept;
pub mod memo;
pub mod names;
pub mod reach;
pub mod refusal;
pub mod sight;
pub mod size;
pub mod systems;
pub mod water;
pub mod weapon_reach;
