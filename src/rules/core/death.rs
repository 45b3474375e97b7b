//! Death, written once: whatever slays a creature (a coup de grâce, a failed save against massive damage,
//! bleeding to -10 while dying) writes the same facts (004:271-272, 004:279-281).

use bevy::prelude::*;

use crate::rules::core::creature::{Condition, Conditions, CreatureId, HitPoints};
use crate::rules::core::facts::Fact;

/// The states hit points bring (004:265-283).
pub const HP_STATES: [Condition; 5] =
    [Condition::Disabled, Condition::Dying, Condition::Dead, Condition::Unconscious, Condition::Staggered];

/// Kills a creature: its hit points to -10 at most, the change logged; every hit-point state and stability
/// lost, each logged; dead.
pub fn kill(id: &CreatureId, hp: &mut HitPoints, conditions: &mut Conditions, facts: &mut MessageWriter<Fact>) {
    let before = hp.current;
    hp.current = hp.current.min(-10);
    if hp.current != before {
        facts.write(Fact::HitPointsChanged {
            creature: id.clone(),
            before,
            after: hp.current,
            nonlethal: hp.nonlethal,
        });
    }
    for condition in HP_STATES.into_iter().chain([Condition::Stable]) {
        if conditions.0.remove(&condition) {
            facts.write(Fact::ConditionLost { creature: id.clone(), condition });
        }
    }
    conditions.0.insert(Condition::Dead);
    facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::Dead });
}
