//! First aid (Premiers secours, 004:283): a Heal check against DC 15 stabilises a dying creature, which
//! stops losing hit points. Stabilising a dying friend is a standard action that provokes an attack of
//! opportunity (the table of actions, 004:107). The healer tends a creature within its reach of a hand: on
//! its squares or next to them (our ruling, as for picking up an item).

use bevy::prelude::*;

use crate::rules::attack::{Combatant, CombatantItem, Damage};
use crate::rules::core::checks::{roll_check, skill};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::{Action, Check};
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// The Heal check's DC that stabilises a dying creature (004:283).
pub const FIRST_AID_DC: i32 = 15;

/// The line of the table of actions for stabilising a dying friend: a standard action that provokes.
pub const FIRST_AID_LINE: &str = "004:107";

/// Asks to tend a dying creature.
#[derive(Message, Clone, Copy, Debug)]
pub struct FirstAidIntent {
    /// The healer.
    pub healer: Entity,
    /// The dying creature.
    pub patient: Entity,
}

/// First aid checked and ready: the Heal check's bonus.
#[derive(Clone, Debug, PartialEq)]
pub struct FirstAidPlan {
    /// The healer's Heal bonus: its skill, or its Wisdom modifier untrained.
    pub bonus: i32,
}

impl FirstAidPlan {
    /// The chance the check reaches DC 15.
    pub fn chance(&self) -> f32 {
        (1..=20).filter(|d| d + self.bonus >= FIRST_AID_DC).count() as f32 / 20.0
    }
}

/// Whether `healer` may tend `patient` now: its turn, its standard action, able to act, the patient dying and
/// not yet stable, within reach of a hand.
pub fn plan_first_aid(
    order: &TurnOrder,
    (healer, patient): (&CombatantItem, &CombatantItem),
    budget: &ActionBudget,
) -> Result<FirstAidPlan, Refusal> {
    order.check_turn(healer.entity)?;
    able_to_act(healer.conditions)?;
    out_of_grapple(healer.conditions, "first aid")?;
    crate::rules::core::creature::within_the_fight(patient.conditions)?;
    if !patient.conditions.has(Condition::Dying) || patient.conditions.has(Condition::Dead) {
        return Err(Refusal::new(format!("{} is not dying", patient.id), "004:283"));
    }
    if patient.conditions.has(Condition::Stable) {
        return Err(Refusal::new(format!("{} is stable already", patient.id), "004:283"));
    }
    budget.check(ActionKind::Standard)?;
    let (mine, theirs) = (healer.space.at(healer.position.0), patient.space.at(patient.position.0));
    if !mine.touches(theirs) || healer.altitude.0 != patient.altitude.0 {
        return Err(Refusal::new(format!("{} is out of reach of its hands", patient.id), "004:283"));
    }
    Ok(FirstAidPlan { bonus: skill(healer.skills.heal, healer.abilities.wis) })
}

/// Tends the dying: checked and paid for, the foes' attacks of opportunity (a healer dropped tends no one),
/// then the Heal check; success stabilises the patient (004:283).
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
pub fn give_first_aid(
    mut intents: MessageReader<FirstAidIntent>,
    order: Res<TurnOrder>,
    field: Res<crate::rules::core::battlefield::Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut reactions: Query<&mut crate::rules::opportunity::Reactions>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut out: (MessageWriter<Damage>, crate::rules::attack::manoeuvre::Falls),
) {
    for intent in intents.read() {
        let (Ok(healer), Ok(patient)) = (creatures.get(intent.healer), creatures.get(intent.patient)) else {
            continue;
        };
        let Ok(mut budget) = budgets.get_mut(intent.healer) else { continue };
        let plan = match plan_first_aid(&order, (&healer, &patient), &budget) {
            Ok(plan) => plan,
            Err(refusal) => {
                crate::rules::core::facts::refuse(&mut facts, healer.id, Action::FirstAid, refusal);
                continue;
            }
        };
        let _ = budget.spend(ActionKind::Standard);
        // A standard action costs a healer disabled once it is done 1 hit point (004:274).
        out.1.strain.write(crate::rules::turns::Strain::standard_action(intent.healer));
        let initiative = order.initiative();
        let mut strike = crate::rules::opportunity::Opportunity {
            field: &field,
            creatures: &creatures,
            dice: &mut dice,
            facts: &mut facts,
            damage: &mut out.0,
            falls: &mut out.1,
            gear: Vec::new(),
            wounds: Vec::new(),
            dropped_beside: Vec::new(),
        };
        let why = format!("stabilising a dying friend ({FIRST_AID_LINE})");
        if strike.provoke_in_place(&healer, &initiative, &mut reactions, None, Action::FirstAid, &why) {
            continue;
        }
        let reason = format!("first aid to {} (004:283)", patient.id);
        if roll_check(&mut dice, &mut facts, healer.id, Check::Heal, reason, plan.bonus, FIRST_AID_DC) {
            out.1.conditions.write(ConditionChange {
                creature: intent.patient,
                condition: Condition::Stable,
                gained: true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dc_15_004_283() {
        assert_eq!(FirstAidPlan { bonus: 0 }.chance(), 0.3);
        assert_eq!(FirstAidPlan { bonus: 4 }.chance(), 0.5);
        assert_eq!(FirstAidPlan { bonus: 14 }.chance(), 1.0);
    }
}
