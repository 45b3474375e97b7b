//! Readying an action (004:620-628): a standard action that sets aside an attack or a move, to be taken
//! just before a trigger; the readier's initiative then moves to just before the creature that set it
//! off, for the rest of the fight (004:622). If the trigger does not come before its next turn, the readied
//! action is lost (004:624).
//!
//! Any standard, move or free action can be readied (004:621): an attack, a move, dropping prone or standing
//! up, total defence, using an item, casting a spell of one standard action. A full-round action cannot.
//!
//! Three triggers are playable: a foe entering a square the readier threatens (the attack falls as the foe
//! steps in, in the middle of its move), and a named creature acting or moving (the readied action is
//! taken before that creature's action), and a foe starting to cast a spell (the readied action comes
//! before the spell).

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::{ActionBudget, ActionKind, TurnOrder};
use crate::rules::core::creature::able_to_act;
use crate::rules::core::creature::*;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::Square;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};

/// The action set aside.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadiedAction {
    /// One attack, on `target` or (if `None`) on the creature that sets the trigger off.
    Attack {
        /// The creature to attack by id; the trigger's creature if absent.
        #[serde(default)]
        target: Option<CreatureId>,
        /// The weapon; the first melee one if absent.
        #[serde(default)]
        weapon: Option<String>,
    },
    /// A move (a move action) to a square.
    Move {
        /// Where to.
        to: Square,
    },
    /// Dropping prone, a free action (004:255): against arrows, say.
    DropProne,
    /// Standing up from prone, a move action (004:225).
    StandUp,
    /// Total defence, a standard action (004:211).
    TotalDefense,
    /// Using an item the creature carries, if the table makes its use a standard, move or free action
    /// (drinking a potion, 004:96).
    UseItem {
        /// The item, by name.
        item: String,
    },
    /// Casting a spell of one standard action (004:103, 004:621), on `target` or (if `None`) on the creature
    /// that sets the trigger off.
    Cast {
        /// The spell, by name.
        spell: String,
        /// The creature to cast it on by id; the trigger's creature if absent.
        #[serde(default)]
        target: Option<CreatureId>,
    },
}

/// What sets a readied action off.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// A foe enters a square the readier threatens.
    EntersThreatened,
    /// This creature (by id) acts or moves.
    Acts(CreatureId),
    /// A foe starts casting a spell (004:621): the readied action comes before the spell, and a wound it
    /// deals calls for the caster's Concentration check (004:196).
    StartsCasting,
}

impl std::fmt::Display for ReadiedAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadiedAction::Attack { target: Some(t), .. } => write!(f, "attack {t}"),
            ReadiedAction::Attack { target: None, .. } => write!(f, "attack"),
            ReadiedAction::Move { to } => write!(f, "move to {to}"),
            ReadiedAction::DropProne => write!(f, "drop prone"),
            ReadiedAction::StandUp => write!(f, "stand up"),
            ReadiedAction::TotalDefense => write!(f, "total defence"),
            ReadiedAction::UseItem { item } => write!(f, "use the {item}"),
            ReadiedAction::Cast { spell, target: Some(t) } => write!(f, "cast {spell} on {t}"),
            ReadiedAction::Cast { spell, target: None } => write!(f, "cast {spell}"),
        }
    }
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::EntersThreatened => write!(f, "a foe enters a square it threatens"),
            Trigger::Acts(id) => write!(f, "{id} acts or moves"),
            Trigger::StartsCasting => write!(f, "a foe starts casting"),
        }
    }
}

/// An action readied and waiting for its trigger.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct Readied {
    /// The action.
    pub action: ReadiedAction,
    /// Its trigger.
    pub trigger: Trigger,
    /// The round it was readied in: it lapses at the readier's next turn (004:624).
    pub round: u32,
}

/// Asks to ready an action.
#[derive(Message, Clone, Debug)]
pub struct ReadyIntent {
    /// Who readies.
    pub creature: Entity,
    /// The action.
    pub action: ReadiedAction,
    /// The trigger.
    pub trigger: Trigger,
}

/// Moves `readier` to just before `trigger` in the order, for the rest of the fight (004:622); the creature
/// whose turn it is keeps it. A mount or a passenger has no place of its own: it acts in its rider's, and
/// the readier goes before that place.
pub fn move_before(order: &mut TurnOrder, readier: Entity, trigger: Entity) {
    let Some(from) = order.entries.iter().position(|e| e.entity == readier) else { return };
    let has_place = order.entries.iter().any(|e| e.entity == trigger);
    let place = if !has_place && order.acting.contains(&trigger) { order.place_holder() } else { Some(trigger) };
    let current = order.current_entity();
    let entry = order.entries.remove(from);
    let to = place.and_then(|p| order.entries.iter().position(|e| e.entity == p)).unwrap_or(order.entries.len());
    order.entries.insert(to, entry);
    order.recount(to);
    order.current = current.and_then(|c| order.entries.iter().position(|e| e.entity == c));
}

/// Whether `readied`'s trigger is `actor` acting now; `foe_casting` when the action is a foe's spell.
pub fn waits_for(readied: &Readied, actor: &CreatureId, foe_casting: bool) -> bool {
    match &readied.trigger {
        Trigger::Acts(id) => id == actor,
        Trigger::StartsCasting => foe_casting,
        Trigger::EntersThreatened => false,
    }
}

/// Readying, first of the actions each frame.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadySystems;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<ReadyIntent>();
    app.configure_sets(
        Rules,
        ReadySystems.in_set(RulesSystems::Act).before(crate::rules::turns::moving::MovementSystems),
    );
    app.add_systems(Rules, ready.in_set(ReadySystems));
    app.add_systems(Rules, lapse.in_set(RulesSystems::Turns).after(super::TurnSystems));
}

/// Whether `action` may be readied by a creature carrying `items`: a standard, move or free action
/// (004:621), never a full-round one. A spell's casting time is the chapter of magic's to check.
pub fn check_readiable(action: &ReadiedAction, items: Option<&Items>) -> Result<(), Refusal> {
    use crate::rules::core::action_table::TableKind;
    let ReadiedAction::UseItem { item } = action else { return Ok(()) };
    let found = items.and_then(|items| items.0.iter().find(|i| &i.name == item));
    match found {
        None => Err(Refusal::new(format!("it carries no {item}"), "data")),
        Some(i) if i.action_kind == TableKind::FullRound => Err(Refusal::new(
            format!("using the {item} is a full-round action: only a standard, move or free action can be readied"),
            "004:621",
        )),
        Some(_) => Ok(()),
    }
}

/// Readies: the creature's turn, able to act, its standard action left (004:620), an action that can be
/// readied (004:621).
fn ready(
    mut commands: Commands,
    mut intents: MessageReader<ReadyIntent>,
    order: Res<TurnOrder>,
    mut creatures: Query<(&CreatureId, &Conditions, &mut ActionBudget, Option<&Items>)>,
    ids: Query<(Entity, &CreatureId)>,
    mut facts: MessageWriter<Fact>,
    mut strain: MessageWriter<crate::rules::turns::Strain>,
) {
    for intent in intents.read() {
        let Ok((id, conditions, mut budget, items)) = creatures.get_mut(intent.creature) else { continue };
        let checked = order
            .check_turn(intent.creature)
            .and_then(|()| able_to_act(conditions))
            // Pinned, it only breaks free, or casts (004:595, 004:614): readying is no breaking free.
            .and_then(|()| match intent.action {
                ReadiedAction::Cast { .. } => Ok(()),
                _ => crate::rules::core::creature::not_pinned(conditions),
            })
            .and_then(|()| match (&intent.trigger, &intent.action) {
                (Trigger::EntersThreatened, action) if !matches!(action, ReadiedAction::Attack { .. }) => {
                    Err(Refusal::new("only an attack can be readied against a foe stepping in", "004:621"))
                }
                (Trigger::Acts(who), _) if !ids.iter().any(|(_, i)| i == who) => {
                    Err(Refusal::new(format!("there is no creature {}", who.0), "004:621"))
                }
                _ => Ok(()),
            })
            .and_then(|()| check_readiable(&intent.action, items))
            .and_then(|()| budget.spend(ActionKind::Standard));
        match checked {
            Ok(()) => {
                // Readying is a standard action: it costs a disabled creature 1 hit point (004:274).
                strain.write(crate::rules::turns::Strain::standard_action(intent.creature));
                facts.write(Fact::ActionReadied {
                    creature: id.clone(),
                    action: intent.action.to_string(),
                    trigger: intent.trigger.to_string(),
                });
                commands.entity(intent.creature).insert(Readied {
                    action: intent.action.clone(),
                    trigger: intent.trigger.clone(),
                    round: order.round,
                });
            }
            Err(refusal) => {
                facts.write(Fact::ActionRefused {
                    creature: id.clone(),
                    action: Action::Ready,
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
            }
        }
    }
}

/// A readied action not set off by the time the readier's next turn comes is lost (004:624 « Si son tour de
/// jeu suivant arrive sans que les conditions … ne se soient réalisées, l'action est perdue »): when its
/// place in the order comes round in a later round, whether it acts there or not (dying, helpless, its
/// place passed over), or a whole round later; a rider without a place of its own, when it acts.
pub fn lapse(
    mut commands: Commands,
    order: Res<TurnOrder>,
    readied: Query<(Entity, &CreatureId, &Readied)>,
    mut facts: MessageWriter<Fact>,
) {
    let Some(now) = order.current else { return };
    for (entity, id, r) in &readied {
        if r.round >= order.round {
            continue;
        }
        let come = r.round + 1 < order.round
            || match order.entries.iter().position(|e| e.entity == entity) {
                Some(place) => place <= now,
                None => order.acting.contains(&entity) || order.current_entity() == Some(entity),
            };
        if come {
            facts.write(Fact::ReadyLapsed { creature: id.clone() });
            commands.entity(entity).remove::<Readied>();
        }
    }
}
