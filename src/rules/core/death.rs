//! Death, written once: whatever slays a creature (a coup de grâce, a failed save against massive damage,
//! bleeding to -10 while dying) writes the same facts (004:271-272, 004:279-281).

use bevy::prelude::*;

use crate::rules::core::creature::{Condition, Conditions, CreatureId, HitPoints};
use crate::rules::core::facts::Fact;

/// Damage from one attack that calls for a Fortitude save or death (004:272): 50 points or more.
pub const MASSIVE_DAMAGE: i32 = 50;

/// The Fortitude DC against massive damage (004:272).
pub const MASSIVE_DAMAGE_DC: i32 = 15;

/// The states hit points alone bring: disabled at exactly 0, dying from -1 to -9, dead at -10 or below
/// (004:38, 004:269-278).
pub fn states_for(current: i32) -> &'static [Condition] {
    match current {
        i32::MIN..=-10 => &[Condition::Dead],
        -9..=-1 => &[Condition::Dying, Condition::Unconscious],
        0 => &[Condition::Disabled],
        _ => &[],
    }
}

/// The state nonlethal damage brings: staggered when it equals current hit points, unconscious above
/// (004:301-308), whether the nonlethal damage rose or the hit points fell: at 0 or below any nonlethal
/// damage is above them.
pub fn nonlethal_state(current: i32, nonlethal: i32) -> Option<Condition> {
    if nonlethal <= 0 {
        None
    } else if nonlethal == current {
        Some(Condition::Staggered)
    } else if nonlethal > current {
        Some(Condition::Unconscious)
    } else {
        None
    }
}

/// Whether hit points leave a creature out of the fight, as the health chapter sets its states from them:
/// dying or dead below 0, temporary hit points counted (004:269-271, 004:298), unconscious from nonlethal
/// damage above them (004:305); an undead, which takes no nonlethal damage, destroyed at 0 (the d20
/// standard; docs/rulings.md). What a blow struck in the middle of an action asks to know whether its
/// doer dropped, before the wound is written.
pub fn drops_at(hp: &HitPoints, undead: bool) -> bool {
    if undead {
        return hp.current <= 0;
    }
    hp.total() < 0 || nonlethal_state(hp.total(), hp.nonlethal) == Some(Condition::Unconscious)
}

/// Whether a wound of `amount` from one attack calls for the Fortitude save against massive damage
/// (004:272): 50 points or more, lethal, on a living creature not yet dead (`after`, its hit points once
/// wounded). An undead has no Fortitude to fail: destroyed at 0 only (the d20 standard; our ruling).
pub fn calls_for_massive_save(amount: i32, nonlethal: bool, undead: bool, after: &HitPoints) -> bool {
    !undead && !nonlethal && amount >= MASSIVE_DAMAGE && after.current > -10
}

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
