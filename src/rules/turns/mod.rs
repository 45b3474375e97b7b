//! Initiative and the round: who acts when, and what each may still do in its turn (004:51-86).

mod budget;

use bevy::prelude::*;

pub use budget::*;

use super::RulesSystems;
use crate::rules::creature::{
    Abilities, Condition, Conditions, Creature, CreatureId, Faction, Feats, initiative_modifier, total,
};
use crate::rules::dice::Dice;
use crate::rules::facts::Fact;

/// Asks the rules to begin the fight: roll initiative and start the first turn.
#[derive(Message, Clone, Debug)]
pub struct BeginEncounterIntent {
    /// The level's name, for the log.
    pub level: String,
    /// The dice seed, for the log.
    pub seed: u64,
}

/// The creature whose turn it is ends it.
#[derive(Message, Clone, Debug)]
pub struct EndTurnIntent {
    /// Who ends its turn.
    pub creature: Entity,
}

/// One place in the initiative order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitiativeEntry {
    /// The creature.
    pub entity: Entity,
    /// Its id.
    pub id: CreatureId,
    /// d20 + modifiers.
    pub total: i32,
    /// The modifier, which breaks ties first (004:52).
    pub modifier: i32,
}

/// The order of play, which holds for the whole fight (004:73), and whose turn it is.
#[derive(Resource, Clone, Debug, Default)]
pub struct TurnOrder {
    /// From first to last.
    pub entries: Vec<InitiativeEntry>,
    /// Index of the creature whose turn it is.
    pub current: Option<usize>,
    /// The round, from 1.
    pub round: u32,
    /// The fight is over.
    pub ended: bool,
}

impl TurnOrder {
    /// The creature whose turn it is.
    pub fn current_entity(&self) -> Option<Entity> {
        self.current.and_then(|i| self.entries.get(i)).map(|e| e.entity)
    }

    /// Whether it is `entity`'s turn and the fight goes on; a refusal otherwise.
    pub fn check_turn(&self, entity: Entity) -> Result<(), Refusal> {
        if self.ended {
            return Err(Refusal::new("the fight is over", "004:72"));
        }
        if self.current_entity() == Some(entity) {
            Ok(())
        } else {
            Err(Refusal::new("it is not this creature's turn", "004:73"))
        }
    }
}

/// The systems that end turns and start the next ones.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TurnSystems;

/// Initiative, turns and the action budget.
pub fn plugin(app: &mut App) {
    app.add_message::<BeginEncounterIntent>().add_message::<EndTurnIntent>().init_resource::<TurnOrder>();
    app.add_systems(Update, roll_initiative.in_set(RulesSystems::Setup));
    app.add_systems(Update, (end_turn, declare_victory).chain().in_set(RulesSystems::Turns).in_set(TurnSystems));
}

/// Sorts creatures by initiative: total, then modifier, then the tie-break die (004:51-54).
pub fn order_initiative(entries: &mut [(InitiativeEntry, u32)]) {
    entries.sort_by(|(a, a_die), (b, b_die)| {
        (b.total, b.modifier, *b_die).cmp(&(a.total, a.modifier, *a_die)).then_with(|| a.id.cmp(&b.id))
    });
}

/// Rolls initiative for every creature, in the order of their ids so the dice fall the same way every
/// time; ties are broken by the modifier, then by a die (004:51-54). Everyone is flat-footed until its
/// first turn (004:53).
fn roll_initiative(
    mut begin: MessageReader<BeginEncounterIntent>,
    mut order: ResMut<TurnOrder>,
    mut dice: ResMut<Dice>,
    mut creatures: TurnCreatures<'_, '_>,
    mut facts: MessageWriter<Fact>,
) {
    let Some(intent) = begin.read().last() else { return };
    facts.write(Fact::EncounterStarted { level: intent.level.clone(), seed: intent.seed });
    let mut sorted: Vec<_> = creatures.iter_mut().collect();
    sorted.sort_by(|a, b| a.1.cmp(b.1));
    let mut rolled = Vec::new();
    for (entity, id, abilities, feats, mut conditions, mut budget) in sorted {
        let modifiers = initiative_modifier(abilities, feats);
        let modifier = total(&modifiers);
        let roll = dice.d20();
        let sum = roll as i32 + modifier;
        facts.write(Fact::InitiativeRolled { creature: id.clone(), roll, modifiers, total: sum });
        rolled.push((InitiativeEntry { entity, id: id.clone(), total: sum, modifier }, 0));
        if !conditions.has(Condition::Dead) && conditions.0.insert(Condition::FlatFooted) {
            facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::FlatFooted });
        }
        *budget = ActionBudget::default();
    }
    // Dice only for creatures still tied after the modifier, in id order.
    for i in 0..rolled.len() {
        let tied = rolled.iter().enumerate().any(|(j, (other, _))| {
            j != i && other.total == rolled[i].0.total && other.modifier == rolled[i].0.modifier
        });
        if tied {
            rolled[i].1 = dice.d20();
        }
    }
    order_initiative(&mut rolled);
    order.entries = rolled.into_iter().map(|(entry, _)| entry).collect();
    order.round = 1;
    order.current = None;
    order.ended = false;
    facts.write(Fact::InitiativeOrdered { order: order.entries.iter().map(|e| e.id.clone()).collect() });
    facts.write(Fact::RoundStarted { round: 1 });
    let conditions_of = |entity| creatures.get(entity).map(|c| c.4.clone()).unwrap_or_default();
    let first = next_able(&order, None, conditions_of);
    start_turn(&mut order, first, &mut creatures, &mut facts);
}

/// The next creature after `after` that can act, wrapping to a new round; with the round change flag.
fn next_able(
    order: &TurnOrder,
    after: Option<usize>,
    conditions_of: impl Fn(Entity) -> Conditions,
) -> Option<(usize, bool)> {
    let n = order.entries.len();
    let start = after.map_or(0, |i| i + 1);
    (0..n).map(|k| start + k).find_map(|k| {
        let index = k % n;
        conditions_of(order.entries[index].entity).can_act().then_some((index, k >= n))
    })
}

/// The creatures as the turn systems see them.
type TurnCreatures<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static Abilities,
        &'static Feats,
        &'static mut Conditions,
        &'static mut ActionBudget,
    ),
    With<Creature>,
>;

type TurnCreature<'a> = (Entity, &'a CreatureId, &'a Abilities, &'a Feats, Mut<'a, Conditions>, Mut<'a, ActionBudget>);

fn start_turn(
    order: &mut TurnOrder,
    next: Option<(usize, bool)>,
    creatures: &mut TurnCreatures<'_, '_>,
    facts: &mut MessageWriter<Fact>,
) {
    let Some((index, new_round)) = next else {
        order.current = None;
        return;
    };
    if new_round {
        order.round += 1;
        facts.write(Fact::RoundStarted { round: order.round });
    }
    order.current = Some(index);
    let entity = order.entries[index].entity;
    if let Ok::<TurnCreature, _>((_, id, _, _, mut conditions, mut budget)) = creatures.get_mut(entity) {
        facts.write(Fact::TurnStarted { round: order.round, creature: id.clone() });
        // Flat-footed ends at one's first turn (004:53); this round's stances end at one's next turn.
        for condition in [
            Condition::FlatFooted,
            Condition::Running,
            Condition::TotalDefense,
            Condition::FightingDefensively,
            Condition::Charging,
        ] {
            if conditions.0.remove(&condition) {
                facts.write(Fact::ConditionLost { creature: id.clone(), condition });
            }
        }
        *budget = if conditions.has(Condition::Disabled) || conditions.has(Condition::Staggered) {
            ActionBudget::restricted()
        } else {
            ActionBudget::fresh()
        };
    }
}

/// Ends the current creature's turn and starts the next able creature's.
fn end_turn(
    mut intents: MessageReader<EndTurnIntent>,
    mut order: ResMut<TurnOrder>,
    mut creatures: TurnCreatures<'_, '_>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let id = creatures.get(intent.creature).map(|c| c.1.clone()).unwrap_or_default();
        if let Err(refusal) = order.check_turn(intent.creature) {
            facts.write(Fact::ActionRefused {
                creature: id,
                action: "end_turn".into(),
                reason: refusal.reason,
                rule: refusal.rule,
            });
            continue;
        }
        facts.write(Fact::TurnEnded { creature: id });
        if let Ok(mut c) = creatures.get_mut(intent.creature) {
            *c.5 = ActionBudget::default();
        }
        let conditions_of = |entity| creatures.get(entity).map(|c| c.4.clone()).unwrap_or_default();
        let next = next_able(&order, order.current, conditions_of);
        start_turn(&mut order, next, &mut creatures, &mut facts);
    }
}

/// Ends the fight when the creatures still able to act (disabled ones can, 004:274) all belong to one
/// faction.
fn declare_victory(
    mut order: ResMut<TurnOrder>,
    creatures: Query<(&Faction, &Conditions), With<Creature>>,
    mut facts: MessageWriter<Fact>,
) {
    if order.ended || order.entries.is_empty() {
        return;
    }
    let mut standing: Vec<&str> = creatures.iter().filter(|(_, c)| c.can_act()).map(|(f, _)| f.0.as_str()).collect();
    standing.sort_unstable();
    standing.dedup();
    if standing.len() <= 1 {
        order.ended = true;
        facts.write(Fact::EncounterEnded { winner: standing.first().map(|s| s.to_string()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, total: i32, modifier: i32) -> InitiativeEntry {
        InitiativeEntry { entity: Entity::PLACEHOLDER, id: CreatureId(id.into()), total, modifier }
    }

    #[test]
    fn ties_go_to_the_higher_modifier_then_the_die() {
        let mut rolled =
            vec![(entry("a", 15, 1), 0), (entry("b", 15, 3), 0), (entry("c", 18, 0), 0), (entry("d", 15, 1), 17)];
        order_initiative(&mut rolled);
        let ids: Vec<&str> = rolled.iter().map(|(e, _)| e.id.0.as_str()).collect();
        assert_eq!(ids, vec!["c", "b", "d", "a"]);
    }
}
