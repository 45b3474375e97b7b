//! Aid another (Aider quelqu'un, 004:444). A creature in position to strike in melee a foe engaged in melee
//! with one of its allies distracts that foe with a standard action: a melee attack against AC 10. If it
//! lands, the ally has +2 on its next attack against that foe, or +2 AC against that foe's next attack, as the
//! aider chooses, until the start of the aider's next turn. The bonuses live on the ally (`Aided`, in the
//! core), the attack chapter counts them, and this chapter spends them: the attack they are for made, or the
//! aider's turn come round.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use crate::rules::attack::{AttackPlan, AttackRequest, Combatant, CombatantItem, prepare_attack, provoke};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// The AC the aid's attack roll is made against (004:444).
pub const AID_ARMOR_CLASS: i32 = 10;

/// Asks to aid an ally against a foe.
#[derive(Message, Clone, Debug)]
pub struct AidIntent {
    /// Who aids.
    pub aider: Entity,
    /// Whom.
    pub ally: Entity,
    /// Against which foe.
    pub foe: Entity,
    /// Which bonus, the aider's choice (004:444).
    pub kind: AidKind,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<AidIntent>();
    app.add_systems(Rules, resolve_aid.in_set(RulesSystems::Act).after(super::trip::resolve_trips));
    app.add_systems(Rules, spend_aid.in_set(RulesSystems::Turns).after(crate::rules::turns::moving::RestSystems));
}

/// Whether `a` threatens `b` in melee now, its space controlled (004:62, 004:420; one predicate,
/// [`crate::rules::attack::controls`]).
pub fn threatens(field: &Battlefield, a: &CombatantItem, b: &CombatantItem) -> bool {
    crate::rules::attack::controls(field, a, crate::rules::attack::placed(b))
}

/// Whether `aider` may aid `ally` against `foe` now, and the attack it makes: an ally, not itself; a foe
/// engaged in melee with the ally (one of them threatens the other, 004:444 and 004:180); the aider in
/// position to strike the foe in melee (a melee attack it could make now, its turn and standard action
/// left); the attack against AC 10 (004:444).
pub fn plan_aid(
    field: &Battlefield,
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    (aider, ally, foe): (&CombatantItem, &CombatantItem, &CombatantItem),
    budget: &ActionBudget,
) -> Result<AttackPlan, Refusal> {
    out_of_grapple(aider.conditions, "aid another")?;
    if ally.entity == aider.entity || ally.faction != aider.faction {
        return Err(Refusal::new(format!("{} is not an ally to aid", ally.id), "004:444"));
    }
    if foe.faction == aider.faction {
        return Err(Refusal::new(format!("{} is no foe", foe.id), "004:444"));
    }
    // Grappling each other, they fight in melee too (« Cette forme de combat », 004:576), though a
    // grappler controls no space (004:589).
    let grappling = crate::rules::core::creature::Grapple::holds(ally.grapple, foe.entity);
    if !(grappling || threatens(field, ally, foe) || threatens(field, foe, ally)) {
        return Err(Refusal::new(format!("{} and {} are not engaged in melee", ally.id, foe.id), "004:444"));
    }
    // « en position d'attaquer au corps à corps » (004:444): with any melee attack it can make now, a
    // weapon in hand first, else an unarmed strike; the first that can strike the foe.
    let melee: Vec<&Weapon> = aider.armament.ready().filter(|w| !crate::rules::core::creature::is_ranged(w)).collect();
    let mut candidates = melee.iter().filter(|w| !w.unarmed).chain(melee.iter().filter(|w| w.unarmed));
    let first =
        candidates.next().ok_or_else(|| Refusal::new("it has no melee attack to distract the foe with", "004:444"))?;
    let attempt = |w: &Weapon| {
        let request = AttackRequest { weapon: Some(&w.name), ..default() };
        prepare_attack(field, order, creatures, aider, foe, request, budget)
    };
    let mut plan =
        candidates.fold(attempt(first), |found, w| found.or_else(|refused| attempt(w).map_err(|_| refused)))?;
    plan.armor_class = AID_ARMOR_CLASS;
    plan.armor_class_parts = vec![Modifier::new(AID_ARMOR_CLASS, "aid another: AC 10 (004:444)")];
    Ok(plan)
}

/// Whether `aider`'s distraction with `weapon` provokes its foe: an unarmed one by a creature not armed
/// when unarmed (004:168, [`crate::rules::core::creature::armed_unarmed`]); the foe strikes if it threatens
/// the aider.
pub fn unarmed_provokes(world: &World, aider: Entity, weapon: &Weapon) -> bool {
    let (Some(traits), Some(feats)) = (world.get::<Traits>(aider), world.get::<Feats>(aider)) else {
        return weapon.unarmed;
    };
    let holding = world.get::<crate::rules::core::creature::HoldingCharge>(aider).is_some();
    weapon.unarmed && !crate::rules::core::creature::armed_unarmed(traits, feats, holding)
}

/// Carries out aid intents: checked and paid for, the attack of opportunity an unarmed distraction of an
/// armed foe provokes (004:168), then the attack against AC 10 and the bonus.
pub(super) fn resolve_aid(world: &mut World, mut intents: Local<MessageCursor<AidIntent>>) {
    let read: Vec<AidIntent> = intents.read(world.resource::<Messages<AidIntent>>()).cloned().collect();
    for intent in read {
        let Ok(Some(plan)) = world.run_system_cached_with(prepare_aid, intent.clone()) else { continue };
        if unarmed_provokes(world, intent.aider, &plan.weapon)
            && provoke(
                world,
                intent.aider,
                Some(intent.foe),
                Action::AidAnother,
                "an unarmed attack on an armed foe (004:168)",
            )
        {
            continue;
        }
        let _ = world.run_system_cached_with(roll_aid, (intent, plan));
    }
}

/// Checks an aid and pays its standard action, or writes why not.
fn prepare_aid(
    In(intent): In<AidIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut paying: super::Paying,
) -> Option<AttackPlan> {
    let (Ok(aider), Ok(ally), Ok(foe)) =
        (creatures.get(intent.aider), creatures.get(intent.ally), creatures.get(intent.foe))
    else {
        return None;
    };
    let Ok(mut budget) = budgets.get_mut(intent.aider) else { return None };
    let planned = plan_aid(&field, &order, &creatures, (&aider, &ally, &foe), &budget);
    paying.pay(planned, &aider, (Action::AidAnother, |_| ActionKind::Standard), &mut budget)
}

/// The attack against AC 10, and the ally's bonus if it lands.
fn roll_aid(
    In((intent, plan)): In<(AidIntent, AttackPlan)>,
    mut commands: Commands,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    let (Ok(aider), Ok(ally), Ok(foe)) =
        (creatures.get(intent.aider), creatures.get(intent.ally), creatures.get(intent.foe))
    else {
        return;
    };
    if !crate::rules::attack::roll_touch_attack(&plan, aider.id, foe.id, &mut dice, &mut facts) {
        return;
    }
    let mut held = ally.aided.cloned().unwrap_or_default();
    held.0.push(AidBonus { aider: intent.aider, foe: intent.foe, kind: intent.kind });
    commands.entity(intent.ally).insert(held);
    facts.write(Fact::AidGiven {
        aider: aider.id.clone(),
        ally: ally.id.clone(),
        foe: foe.id.clone(),
        kind: intent.kind,
    });
}

/// Spends the aid bonuses: an attack roll by the aided creature against the foe spends its attack bonuses,
/// an attack roll by the foe against it its AC bonuses (the next attack, 004:444); the aider's turn coming
/// round ends every bonus it gave.
pub(super) fn spend_aid(mut facts: MessageReader<Fact>, roster: Res<Roster>, mut aided: Query<(Entity, &mut Aided)>) {
    for fact in facts.read() {
        match fact {
            Fact::AttackRolled { attacker, target, .. } => {
                let (Some(a), Some(t)) = (roster.get(&attacker.0), roster.get(&target.0)) else { continue };
                if let Ok((_, mut held)) = aided.get_mut(a) {
                    held.0.retain(|b| !(b.kind == AidKind::Attack && b.foe == t));
                }
                if let Ok((_, mut held)) = aided.get_mut(t) {
                    held.0.retain(|b| !(b.kind == AidKind::Defense && b.foe == a));
                }
            }
            Fact::TurnStarted { creature, .. } | Fact::TurnPassed { creature, .. } => {
                let Some(aider) = roster.get(&creature.0) else { continue };
                for (_, mut held) in &mut aided {
                    held.0.retain(|b| b.aider != aider);
                }
            }
            _ => {}
        }
    }
}
