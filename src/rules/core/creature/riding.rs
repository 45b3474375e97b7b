//! Who rides whom (004:475, 004:653-656, 004:806-815): the relationship every chapter reads to know where
//! a rider is and who acts with whom. Getting on and off, and what riding does in a fight, are the mounted
//! chapter's.

use bevy::prelude::*;

use super::Conditions;

/// This creature rides `.0`: it shares the mount's space and altitude (004:475, 004:813) and acts on its
/// turn (004:653-655).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[relationship(relationship_target = Riders)]
pub struct Riding(pub Entity);

/// The creatures riding this mount, the rider first if it has one, in the order they got on.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
#[relationship_target(relationship = Riding)]
pub struct Riders(Vec<Entity>);

impl Riders {
    /// Everyone on its back.
    pub fn all(&self) -> &[Entity] {
        &self.0
    }
}

/// Where a creature sits on its mount.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seat {
    /// A passenger: it acts on the rider's turn but does not direct the mount (004:655).
    pub passenger: bool,
    /// A Small or Medium creature on a Huge or larger mount: it threatens the squares around the mount only
    /// with a reach weapon, and only creatures with reach threaten it there (004:813-814).
    pub high: bool,
}

/// This mount wears a military saddle: a rider knocked out on it keeps its seat more often (004:482).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MilitarySaddle;

/// Whether a creature on a mount directs it: the rider, not a passenger, and able to act (004:656).
pub fn directs(seat: Option<&Seat>, conditions: &Conditions) -> bool {
    seat.is_some_and(|s| !s.passenger) && conditions.can_act()
}
