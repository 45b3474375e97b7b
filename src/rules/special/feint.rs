//! Feint (Feinte, 004:524-527). A standard action (a move action with Improved Feint, 004:527) that provokes
//! nothing (004:526): the feinter's Bluff against the target's Sense Motive plus its base attack bonus
//! (004:524, whose "test de Bluff de la cible" is read as its Sense Motive). Beating it, the target keeps no
//! Dexterity bonus to AC against the feinter's next melee attack on it, made before the end of the feinter's
//! next turn. Against a creature that is not humanoid, -4; of animal intelligence (Int 1 or 2), -8; a
//! mindless one (Int 0) cannot be feinted (004:525).

use bevy::prelude::*;

use crate::rules::attack::{Combatant, CombatantItem};
use crate::rules::core::checks::{Check, Ties, opposed, skill};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// Asks to feint a foe.
#[derive(Message, Clone, Debug)]
pub struct FeintIntent {
    /// Who feints.
    pub feinter: Entity,
    /// Whom.
    pub target: Entity,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<FeintIntent>();
    app.add_systems(Rules, feint.in_set(RulesSystems::Act).after(super::aid::resolve_aid));
    app.add_systems(Rules, spend_feints.in_set(RulesSystems::Turns).after(super::aid::spend_aid));
}

/// The two sides of a feint's opposed check, with their terms.
#[derive(Clone, Debug, PartialEq)]
pub struct FeintPlan {
    /// The feinter's Bluff: the skill, and -4 or -8 against a creature not humanoid or of animal mind.
    pub bluff: Vec<Modifier>,
    /// The target's Sense Motive and base attack bonus.
    pub sense_motive: Vec<Modifier>,
    /// The action it takes.
    pub kind: ActionKind,
}

/// Whether `feinter` may feint `target` now, and the check: its turn, able to act, the action left (standard,
/// or move with Improved Feint, 004:527); a foe it could strike in melee (our ruling: a feint is a melee
/// manoeuvre, its effect on a melee attack); not a mindless one (004:525).
pub fn plan_feint(
    (order, field): (&TurnOrder, &crate::rules::core::battlefield::Battlefield),
    (feinter, feinter_skills): (&CombatantItem, &Skills),
    (target, target_skills): (&CombatantItem, &Skills),
    budget: &ActionBudget,
) -> Result<FeintPlan, Refusal> {
    order.check_turn(feinter.entity)?;
    able_to_act(feinter.conditions)?;
    out_of_grapple(feinter.conditions, "feint")?;
    crate::rules::core::creature::within_the_fight(target.conditions)?;
    crate::rules::core::creature::in_sight_of(target.hidden, feinter.entity, target.id)?;
    if target.faction == feinter.faction {
        return Err(Refusal::new(format!("{} is no foe", target.id), "004:524"));
    }
    if target.abilities.int == 0 {
        return Err(Refusal::new("a mindless creature cannot be feinted", "004:525"));
    }
    if !super::aid::threatens(field, feinter, target) {
        return Err(Refusal::new("a feint is made on a foe within reach of a melee weapon (our ruling)", "004:524"));
    }
    let kind = feint_action(feinter.feats);
    budget.check(kind)?;
    let mut bluff = vec![Modifier::new(skill(feinter_skills.bluff, feinter.abilities.cha), "Bluff")];
    if target.abilities.int <= 2 {
        bluff.push(Modifier::new(-8, "an animal mind (004:525)"));
    } else if !target.traits.humanoid {
        bluff.push(Modifier::new(-4, "not humanoid (004:525)"));
    }
    let sense_motive = vec![
        Modifier::new(skill(target_skills.sense_motive, target.abilities.wis), "Sense Motive"),
        Modifier::new(target.base_attack.0, "base attack (004:524)"),
    ];
    Ok(FeintPlan { bluff, sense_motive, kind })
}

/// The action a feint takes: a standard action, a move action with Improved Feint (004:524, 004:527).
/// One answer for the rules and the action bar.
pub fn feint_action(feats: &Feats) -> ActionKind {
    if feats.has(Feat::ImprovedFeint) { ActionKind::Move } else { ActionKind::Standard }
}

/// [`feint_action`] for `creature` as it is in `world`: the action bar asks it (004:527).
pub fn feint_action_of(world: &World, creature: Entity) -> ActionKind {
    feint_action(&world.get::<Feats>(creature).cloned().unwrap_or_default())
}

/// The sum of some terms.
pub fn sum(terms: &[Modifier]) -> i32 {
    terms.iter().map(|m| m.value).sum()
}

/// Feints: checked and paid for, then Bluff against Sense Motive; the feint held on the target if it wins.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
pub(super) fn feint(
    mut commands: Commands,
    mut intents: MessageReader<FeintIntent>,
    order: Res<TurnOrder>,
    field: Res<crate::rules::core::battlefield::Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    skills: Query<&Skills>,
    mut budgets: Query<&mut ActionBudget>,
    mut dice: ResMut<Dice>,
    mut paying: super::Paying,
) {
    for intent in intents.read() {
        let (Ok(feinter), Ok(target)) = (creatures.get(intent.feinter), creatures.get(intent.target)) else {
            continue;
        };
        let (Ok(feinter_skills), Ok(target_skills)) = (skills.get(intent.feinter), skills.get(intent.target)) else {
            continue;
        };
        let Ok(mut budget) = budgets.get_mut(intent.feinter) else { continue };
        let planned = plan_feint((&order, &field), (&feinter, feinter_skills), (&target, target_skills), &budget);
        let Some(plan) = paying.pay(planned, &feinter, (Action::Feint, |p: &FeintPlan| p.kind), &mut budget) else {
            continue;
        };
        let roll = dice.d20();
        // "Supérieur": a tie fails the feint (004:524).
        let won = opposed(
            &mut dice,
            &mut paying.facts,
            (feinter.id, Check::Bluff, &plan.bluff),
            (target.id, Check::SenseMotive, &plan.sense_motive),
            (roll, Ties::Lost),
            "a feint: Bluff against Sense Motive plus base attack (004:524)",
        );
        if won {
            let mut held = target.feinted.cloned().unwrap_or_default();
            held.0.retain(|f| f.feinter != intent.feinter);
            held.0.push(FeintBy { feinter: intent.feinter, round: order.round, turn_over: false });
            commands.entity(intent.target).insert(held);
            paying.facts.write(Fact::Feinted { feinter: feinter.id.clone(), target: target.id.clone() });
        }
    }
}

/// Spends feints: the feinter's melee attack roll on its target spends it; the end of the feinter's turn
/// after the one it feinted in ends it, and so does the start of a turn of its two rounds on, its next one
/// delayed away (004:524).
pub(super) fn spend_feints(
    mut facts: MessageReader<Fact>,
    roster: Res<Roster>,
    armaments: Query<&Armament>,
    mut feinted: Query<&mut Feinted>,
) {
    for fact in facts.read() {
        match fact {
            Fact::AttackRolled { attacker, target, weapon, .. } => {
                let (Some(a), Some(t)) = (roster.get(&attacker.0), roster.get(&target.0)) else { continue };
                let melee = armaments
                    .get(a)
                    .ok()
                    .and_then(|arms| arms.0.iter().find(|w| &w.name == weapon))
                    .is_some_and(|w| !is_ranged(w));
                if melee && let Ok(mut held) = feinted.get_mut(t) {
                    held.0.retain(|f| f.feinter != a);
                }
            }
            // The end of the turn it feinted in, then the end of its next: the feint is over (counted by the
            // feinter's turns, not the rounds, which may have moved on when the last of the order ends its).
            Fact::TurnEnded { creature } => {
                let Some(feinter) = roster.get(&creature.0) else { continue };
                for mut held in &mut feinted {
                    held.0.retain(|f| !(f.feinter == feinter && f.turn_over));
                    for f in held.0.iter_mut().filter(|f| f.feinter == feinter) {
                        f.turn_over = true;
                    }
                }
            }
            // A feinter whose next turn went by (delayed through a whole round, it never ended) begins a
            // turn two rounds on: too late (« avant ou lors du prochain tour de jeu »).
            Fact::TurnStarted { creature, round } => {
                let Some(feinter) = roster.get(&creature.0) else { continue };
                for mut held in &mut feinted {
                    held.0.retain(|f| !(f.feinter == feinter && f.round + 1 < *round));
                }
            }
            // Its next turn passed while it could not act: gone by as well.
            Fact::TurnPassed { creature, round } => {
                let Some(feinter) = roster.get(&creature.0) else { continue };
                for mut held in &mut feinted {
                    held.0.retain(|f| !(f.feinter == feinter && f.round < *round));
                }
            }
            _ => {}
        }
    }
}
