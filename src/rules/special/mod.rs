//! Special attacks (004:428-618), the chapter after the modifiers: each replaces an attack or a move with a
//! manoeuvre of its own. Trip (004:483-489), aid another (004:444) and the feint (004:524-527) are played;
//! the others are to come (bull rush, disarm, sunder, splash weapons, overrun, turning undead, grapple).

pub mod aid;
pub mod feint;
pub mod trip;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

use crate::rules::attack::CombatantItem;
use crate::rules::core::creature::Condition;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::{ActionBudget, ActionKind, Strain};

/// What a special attack writes as it is paid for or refused.
#[derive(SystemParam)]
pub struct Paying<'w> {
    /// Facts.
    pub facts: MessageWriter<'w, Fact>,
    /// A disabled creature's strain.
    strain: MessageWriter<'w, Strain>,
}

impl Paying<'_> {
    /// Pays for a planned special attack from `actor`'s turn, the action `kind` gives for the plan, with a
    /// disabled creature's strain for a standard action (004:274); or writes why `action` is refused. The
    /// plan, if paid.
    pub fn pay<T>(
        &mut self,
        planned: Result<T, Refusal>,
        actor: &CombatantItem,
        (action, kind): (Action, impl Fn(&T) -> ActionKind),
        budget: &mut ActionBudget,
    ) -> Option<T> {
        match planned {
            Ok(plan) => {
                let kind = kind(&plan);
                let _ = budget.spend(kind);
                if kind == ActionKind::Standard && actor.conditions.has(Condition::Disabled) {
                    self.strain.write(Strain {
                        creature: actor.entity,
                        reason: "a standard action while disabled (004:274)".into(),
                    });
                }
                Some(plan)
            }
            Err(refusal) => {
                self.facts.write(Fact::ActionRefused {
                    creature: actor.id.clone(),
                    action,
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                None
            }
        }
    }
}

/// The special attacks.
pub fn plugin(app: &mut App) {
    trip::plugin(app);
    aid::plugin(app);
    feint::plugin(app);
}
