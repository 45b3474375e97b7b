//! Effects that last a number of rounds: they end just before the initiative count at which they began
//! (004:74). The count is a creature's place in the order, so an effect keeps its end when the order moves
//! (a delay, a readied action) with the creature whose turn it began in.

use bevy::prelude::*;

use super::TurnOrder;
use crate::rules::core::creature::*;
use crate::rules::core::facts::Fact;
use crate::rules::core::systems::{Rules, RulesSystems};

/// One effect with a duration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    /// The condition it gives.
    pub condition: Condition,
    /// The round in which it ends.
    pub ends_round: u32,
    /// The initiative count it began at, and just before which it ends (004:74).
    pub count_of: crate::rules::turns::Count,
}

/// The effects with a duration on a creature.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Lasting(pub Vec<Effect>);

/// Imposes a condition for some rounds, beginning now, at the count of the creature whose turn it is: how a
/// spell's or a poison's effect would come; scenarios and the level's game master use it directly.
#[derive(Message, Clone, Debug)]
pub struct ImposeIntent {
    /// On whom.
    pub creature: Entity,
    /// The condition.
    pub condition: Condition,
    /// For how many rounds.
    pub rounds: u32,
}

/// Whether an effect is over now: its round has passed, or it is its round and the count it began at has
/// come (004:74).
pub fn is_over(effect: &Effect, order: &TurnOrder) -> bool {
    count_reached(effect.ends_round, effect.count_of, order)
}

/// Whether the count `count_of` in round `ends_round` has come (or passed): when an effect begun at that
/// count, to end in that round, is over (« juste avant la valeur d'initiative à laquelle ils ont débuté »,
/// 004:74), wherever the creature that began it has moved in the order since.
pub fn count_reached(ends_round: u32, count_of: crate::rules::turns::Count, order: &TurnOrder) -> bool {
    if order.round > ends_round {
        return true;
    }
    if order.round < ends_round {
        return false;
    }
    order.count_now().is_none_or(|now| now <= count_of)
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<ImposeIntent>();
    app.add_systems(Rules, impose.in_set(RulesSystems::Act).after(super::ready::ReadySystems));
    app.add_systems(Rules, expire.in_set(RulesSystems::Turns).after(super::TurnSystems).before(super::ready::lapse));
}

/// Gives the condition and records when it ends: `rounds` rounds from the current count.
pub fn impose(
    mut intents: MessageReader<ImposeIntent>,
    order: Res<TurnOrder>,
    mut creatures: Query<(&CreatureId, &mut Conditions, Option<&mut Lasting>)>,
    mut commands: Commands,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let Some(count_of) = order.count_now() else { continue };
        let Ok((id, mut conditions, lasting)) = creatures.get_mut(intent.creature) else { continue };
        let effect = Effect { condition: intent.condition, ends_round: order.round + intent.rounds, count_of };
        if conditions.0.insert(intent.condition) {
            facts.write(Fact::ConditionGained { creature: id.clone(), condition: intent.condition });
        }
        facts.write(Fact::EffectBegun {
            creature: id.clone(),
            condition: intent.condition,
            rounds: intent.rounds,
            ends_round: effect.ends_round,
        });
        match lasting {
            Some(mut lasting) => lasting.0.push(effect),
            None => {
                commands.entity(intent.creature).insert(Lasting(vec![effect]));
            }
        }
    }
}

/// Ends the effects whose time has come, just before the count they began at (004:74); in id order, so the
/// log reads the same whatever order the creatures are stored in.
fn expire(
    order: Res<TurnOrder>,
    mut creatures: Query<(&CreatureId, &mut Conditions, &mut Lasting)>,
    mut facts: MessageWriter<Fact>,
) {
    let mut all: Vec<_> = creatures.iter_mut().collect();
    all.sort_by(|a, b| a.0.cmp(b.0));
    for (id, mut conditions, mut lasting) in all {
        let (over, left): (Vec<Effect>, Vec<Effect>) = lasting.0.drain(..).partition(|e| is_over(e, &order));
        lasting.0 = left;
        for effect in over {
            // Another lasting effect of the same condition keeps it.
            if lasting.0.iter().any(|e| e.condition == effect.condition) {
                continue;
            }
            if conditions.0.remove(&effect.condition) {
                facts.write(Fact::ConditionLost { creature: id.clone(), condition: effect.condition });
            }
        }
    }
}
