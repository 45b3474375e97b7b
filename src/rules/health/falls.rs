//! Falling (RULES-INDEX ruling after 004:696, the texts giving no number): 1d6 for every full 3 m fallen, at
//! most 20d6, and the creature lies prone where it lands. A flier that stalls or drops, a rider knocked off
//! its mount, anything that falls comes through here.

use bevy::prelude::*;

use crate::rules::attack::Damage;
use crate::rules::core::creature::{Condition, ConditionChange, CreatureId};
use crate::rules::core::dice::{Dice, DiceExpr};
use crate::rules::core::facts::Fact;

/// Falling damage (RULES-INDEX ruling after 004:696): 1d6 for every full 3 m fallen, at most 20d6; `None`
/// under 3 m.
pub fn falling_damage(fallen_m: f32) -> Option<DiceExpr> {
    let dice = ((fallen_m / 3.0 + 1e-4).floor() as u32).min(20);
    (dice > 0).then_some(DiceExpr { count: dice, sides: 6, bonus: 0 })
}

/// What a fall writes.
#[derive(bevy::ecs::system::SystemParam)]
pub struct FallOutput<'w> {
    /// The facts of the fall.
    pub facts: MessageWriter<'w, Fact>,
    /// Its damage, for the health chapter.
    pub damage: MessageWriter<'w, Damage>,
    /// Lying prone.
    pub conditions: MessageWriter<'w, ConditionChange>,
    /// Where it comes to rest.
    pub resting: MessageWriter<'w, crate::rules::turns::moving::ComeToRest>,
    /// The rules run again to settle a fall made after the run's consequences (at a turn's end).
    pub unsettled: ResMut<'w, crate::rules::core::systems::Unsettled>,
}

impl FallOutput<'_> {
    /// A creature that fell `fallen_m` metres hits the ground: falling damage, it lies prone, and it comes to
    /// rest on the nearest legal space if another creature stands where it fell (000:126-129).
    pub fn hit_the_ground(&mut self, entity: Entity, id: &CreatureId, fallen_m: f32, dice: &mut Dice) {
        self.fall_for(entity, id, falling_damage(fallen_m), dice);
        self.resting.write(crate::rules::turns::moving::ComeToRest {
            creature: entity,
            reason: "fallen where another stands: the nearest legal space (000:126-129)".into(),
        });
    }

    /// A creature falls and takes `damage` (none: only the fall), and lies prone.
    pub fn fall_for(&mut self, entity: Entity, id: &CreatureId, damage: Option<DiceExpr>, dice: &mut Dice) {
        self.unsettled.0 = true;
        if let Some(expr) = damage {
            let thrown = dice.throw(expr);
            let amount = thrown.total.max(1);
            self.facts.write(Fact::FallingDamage { creature: id.clone(), dice: thrown, total: amount });
            self.damage.write(Damage { target: entity, amount, nonlethal: false, from_one_attack: false });
        }
        self.conditions.write(ConditionChange { creature: entity, condition: Condition::Prone, gained: true });
    }

    /// A creature carried into a pit falls to its bottom, `depth_m` below: falling damage, prone, and out of
    /// the fight down there (our ruling, docs/rulings.md).
    pub fn into_the_pit(&mut self, entity: Entity, id: &CreatureId, depth_m: f32, dice: &mut Dice) {
        self.fall_for(entity, id, falling_damage(depth_m), dice);
        self.conditions.write(ConditionChange { creature: entity, condition: Condition::InPit, gained: true });
    }

    /// Writes a fact about the fall.
    pub fn tell(&mut self, fact: Fact) {
        self.facts.write(fact);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn falling_damage_1d6_a_full_3_m_at_most_20d6() {
        assert_eq!(falling_damage(2.9), None);
        assert_eq!(falling_damage(10.0).map(|d| d.count), Some(3));
        assert_eq!(falling_damage(180.0).map(|d| d.count), Some(20));
    }
}
