//! Special attacks (004:428-618), the chapter after the modifiers: each replaces an attack or a move with a
//! manoeuvre of its own. Trip (004:483-489), aid another (004:444), the bull rush (004:446-450) and the feint
//! (004:524-527), turning undead (004:538-575), disarm (004:490-498), sunder (004:499-523) and grapple
//! (004:576-618), splash weapons (004:528-530) and the overrun (004:531-537, on foot) are played.

pub mod aid;
pub mod bull_rush;
pub mod charge_end;
pub mod disarm;
pub mod feint;
pub mod grapple;
pub mod overrun;
pub mod splash;
pub mod sunder;
pub mod trip;
pub mod turning;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

pub use crate::rules::attack::manoeuvre::{Side, size_term, strength_side};
use crate::rules::attack::{Combatant, CombatantItem};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::{BaseAttack, Modifier};
use crate::rules::core::creature::{Creature, Position};
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::{ActionBudget, ActionKind, FullAttackUnderway, Strain, TurnOrder};

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
                if kind == ActionKind::Standard {
                    self.strain.write(Strain::standard_action(actor.entity));
                }
                Some(plan)
            }
            Err(refusal) => {
                self.refuse(actor, action, refusal);
                None
            }
        }
    }

    /// The action of a charge, once done, costs a disabled creature 1 hit point (004:274, its charge a
    /// standard action, 004:456), as the attack ending it does: written for the special attack that ends
    /// it in the attack's place.
    pub fn strain_of_a_charge(&mut self, actor: &CombatantItem) {
        self.strain.write(Strain::standard_action(actor.entity));
    }

    /// Writes why `actor`'s `action` is refused.
    pub fn refuse(&mut self, actor: &CombatantItem, action: Action, refusal: Refusal) {
        self.facts.write(Fact::ActionRefused {
            creature: actor.id.clone(),
            action,
            reason: refusal.reason,
            rule: refusal.rule,
        });
    }
}

/// Refuses to a rider a special attack (`what`) that moves its maker through or into a foe's space: its
/// mount moves, not it, and makes it with its own Strength and size (« la monture du personnage effectue le
/// test de Force », 004:537 for the overrun; our ruling for the bull rush, docs/rulings.md).
pub fn afoot(a: &CombatantItem, what: &str) -> Result<(), Refusal> {
    if a.riding.is_some() {
        Err(Refusal::new(
            format!("{} rides: its mount makes the {what}, with its own Strength and size", a.id),
            "004:537",
        ))
    } else {
        Ok(())
    }
}

/// Refuses a special attack (`what`) that pushes or goes through a rider: it sits in its mount's space and
/// goes where its mount goes (« on considère que le personnage partage l'espace de sa monture », 004:474),
/// so the mount is the body pushed or passed (our ruling, docs/rulings.md).
pub fn not_a_rider(t: &CombatantItem, what: &str) -> Result<(), Refusal> {
    match t.riding {
        Some(_) => Err(Refusal::new(
            format!("{} rides, in its mount's space: the {what} is made on the mount", t.id),
            "004:474, docs/rulings.md",
        )),
        None => Ok(()),
    }
}

/// Pays `kind` of action from `who`'s turn, from a system that holds the world: as [`Paying::pay`] does,
/// with a disabled creature's strain for a standard action (004:274).
pub fn pay_in(world: &mut World, who: Entity, (action, kind): (Action, ActionKind)) {
    let _ = world.run_system_cached_with(pay_for, (who, action, kind));
}

fn pay_for(
    In((who, action, kind)): In<(Entity, Action, ActionKind)>,
    creatures: Query<Combatant, With<Creature>>,
    mut budgets: Query<&mut ActionBudget>,
    mut paying: Paying,
) {
    if let (Ok(actor), Ok(mut budget)) = (creatures.get(who), budgets.get_mut(who)) {
        paying.pay(Ok(()), &actor, (action, |_| kind), &mut budget);
    }
}

/// Writes why `who`'s `action` is refused, from a system that holds the world.
pub fn refuse_in(world: &mut World, who: Entity, action: Action, refusal: Refusal) {
    let Some(id) = world.get::<crate::rules::core::creature::CreatureId>(who).cloned() else { return };
    world.write_message(Fact::ActionRefused { creature: id, action, reason: refusal.reason, rule: refusal.rule });
}

/// Where a special attack against one foe is planned: the map, the order, every creature.
pub struct Ground<'a, 'w, 's> {
    /// The map.
    pub field: &'a Battlefield,
    /// The turn order.
    pub order: &'a TurnOrder,
    /// Every creature.
    pub creatures: &'a Query<'w, 's, Combatant, With<Creature>>,
    /// The base attack of the next blow of the attacker's full attack under way on this foe, which a trip,
    /// a disarm or a sunder takes « à la place d'une attaque de corps à corps » (004:483, 004:490, 004:499):
    /// already paid, at that blow's iterative bonus (004:229).
    pub blow: Option<i32>,
    /// The attack replaced is the one ending a charge (004:457): paid by the charge, at +2.
    pub charge: bool,
}

impl Ground<'_, '_, '_> {
    /// Where a special attack on one foe is planned, as a standard action.
    pub fn new<'a, 'w, 's>(
        field: &'a Battlefield,
        order: &'a TurnOrder,
        creatures: &'a Query<'w, 's, Combatant, With<Creature>>,
    ) -> Ground<'a, 'w, 's> {
        Ground { field, order, creatures, blow: None, charge: false }
    }

    /// The request of the melee attack a trip, a disarm or a sunder replaces with `weapon`: paid by the full
    /// attack when it is one of its blows, or by the charge it ends (004:457), with the charge's +2.
    pub fn replaced_attack<'a>(&self, weapon: Option<&'a str>) -> crate::rules::attack::AttackRequest<'a> {
        crate::rules::attack::AttackRequest { weapon, paid: self.blow.is_some(), charge: self.charge, ..default() }
    }

    /// `side`, the attacker's opposed attack roll of a disarm or a sunder, with the charge's +2 when it ends
    /// one (« un bonus de +2 au jet d'attaque », 004:457: the roll is its attack roll, 004:493, 004:501).
    pub fn charging(&self, side: &mut Side) {
        if self.charge {
            side.terms.push(Modifier::new(2, "charging (004:457)"));
        }
    }

    /// `terms` (an attack's or an opposed attack roll's) at the base attack of the blow replaced, if one is.
    pub fn at_blow(&self, terms: &mut [Modifier]) {
        if let Some(bonus) = self.blow
            && let Some(base) = crate::rules::attack::base_attack_term(terms)
        {
            base.value = bonus;
        }
    }
}

/// The base attack of the next blow of `attacker`'s full attack under way, if it has one and a blow at its
/// base attack is left, at whichever foe (004:229). Not in a full attack with two weapons (our ruling: the
/// blows of both hands carry the two-weapon penalties, 004:467-470, which a trip, a disarm or a sunder does
/// not take up).
fn next_blow(underway: Option<&FullAttackUnderway>, attacker: &CombatantItem) -> Option<i32> {
    let underway = underway.filter(|u| !u.two_weapons)?;
    crate::rules::attack::iterative_bonuses(attacker.base_attack.0).get(underway.struck).copied()
}

/// Whether `who` has an attack left that a special attack in place of one may take (a trip, a disarm, a
/// snatch, a sunder, a grab or a move in a grapple: 004:483, 004:490, 004:499, 004:579, 004:592): the next
/// blow of a full attack under way, or its standard action. What the action bar asks.
pub fn attack_left(world: &World, who: Entity) -> Result<(), Refusal> {
    if blow_left(world, who) {
        return Ok(());
    }
    world.get::<ActionBudget>(who).copied().unwrap_or_default().check(ActionKind::Standard)
}

/// Whether `who` has a blow of a full attack under way left that a trip, a disarm or a sunder may take: what
/// the action bar asks (at any foe, 004:229).
pub fn blow_left(world: &World, who: Entity) -> bool {
    let (Some(underway), Some(base)) = (world.get::<FullAttackUnderway>(who), world.get::<BaseAttack>(who)) else {
        return false;
    };
    !underway.two_weapons && underway.struck < crate::rules::attack::iterative_bonuses(base.0).len()
}

/// The rules' plan of a special attack of one creature on another, as the game plays it and the previews
/// show it: `plan` is given the ground, the two creatures and the attacker's budget.
pub type PlanAgainst<'p, T> =
    dyn FnOnce(&Ground<'_, '_, '_>, (&CombatantItem, &CombatantItem), &ActionBudget) -> Result<T, Refusal> + 'p;

/// What a special attack on one foe is planned and paid with.
#[derive(SystemParam)]
pub struct Planning<'w, 's> {
    field: Res<'w, Battlefield>,
    order: Res<'w, TurnOrder>,
    creatures: Query<'w, 's, Combatant, With<Creature>>,
    budgets: Query<'w, 's, &'static mut ActionBudget>,
    underway: Query<'w, 's, &'static mut FullAttackUnderway>,
    commands: Commands<'w, 's>,
    paying: Paying<'w>,
}

impl Planning<'_, '_> {
    /// Plans `attacker`'s `action` on `target` with `plan` and pays its `kind` of action, or writes why it is
    /// refused; the plan, if paid.
    pub fn plan_and_pay<T>(
        &mut self,
        (attacker, target): (Entity, Entity),
        (action, kind): (Action, ActionKind),
        plan: Box<PlanAgainst<'_, T>>,
    ) -> Option<T> {
        let (Ok(a), Ok(t)) = (self.creatures.get(attacker), self.creatures.get(target)) else { return None };
        let mut budget = self.budgets.get_mut(attacker).ok()?;
        let ground = Ground::new(&self.field, &self.order, &self.creatures);
        let planned = plan(&ground, (&a, &t), &budget);
        self.paying.pay(planned, &a, (action, |_| kind), &mut budget)
    }

    /// [`Planning::plan_and_pay`] for a special attack made in place of a melee attack (a trip, a disarm, a
    /// sunder: 004:483, 004:490, 004:499): a standard action, or the next blow of a full attack under way, at
    /// any foe, which it then uses up (004:229), or, at the end of a `charge`, the charge's one attack, paid
    /// with it (004:457).
    pub fn plan_and_pay_blow<T>(
        &mut self,
        (attacker, target): (Entity, Entity),
        (action, charge): (Action, bool),
        plan: Box<PlanAgainst<'_, T>>,
    ) -> Option<T> {
        let (Ok(a), Ok(t)) = (self.creatures.get(attacker), self.creatures.get(target)) else { return None };
        let mut budget = self.budgets.get_mut(attacker).ok()?;
        let blow = if charge { None } else { next_blow(self.underway.get(attacker).ok(), &a) };
        let ground = Ground { blow, charge, ..Ground::new(&self.field, &self.order, &self.creatures) };
        let planned = plan(&ground, (&a, &t), &budget);
        // The turn's first action, by a creature with several blows: the first blow of a full attack, whose
        // rest it may give up for a move action (004:229-232), as a lone attack leaves it.
        let begins = !charge
            && self.underway.get(attacker).is_err()
            && crate::rules::attack::iterative_bonuses(a.base_attack.0).len() > 1
            && budget.check_full_round().is_ok();
        let kind = match (blow.is_some() || charge, begins) {
            (true, _) => ActionKind::Free,
            (false, true) => ActionKind::FullRound,
            (false, false) => ActionKind::Standard,
        };
        let paid = self.paying.pay(planned, &a, (action, |_| kind), &mut budget)?;
        if charge {
            self.paying.strain_of_a_charge(&a);
        }
        if begins {
            self.commands.entity(attacker).insert(FullAttackUnderway {
                struck: 1,
                two_weapons: false,
                off_first: false,
            });
        }
        if blow.is_some()
            && let Ok(mut underway) = self.underway.get_mut(attacker)
        {
            underway.struck += 1;
            // Its second blow struck, the full attack is no longer one to give up (004:232).
            budget.full_attack_begun = false;
            let blows =
                crate::rules::attack::iterative_bonuses(a.base_attack.0).len() + usize::from(underway.two_weapons);
            if underway.struck >= blows {
                self.commands.entity(attacker).remove::<FullAttackUnderway>();
            }
        }
        Some(paid)
    }
}

/// `plan` of `attacker` on `target` as things stand in `world`, without paying: what a preview shows.
pub fn plan_in<T>(
    world: &mut World,
    (attacker, target): (Entity, Entity),
    plan: Box<PlanAgainst<'_, T>>,
) -> Result<T, Refusal> {
    // The query's components registered, [`plan_on`] finds them.
    kept::<Combatant, With<Creature>>(world);
    plan_on(world, (attacker, target), plan)
}

/// [`plan_in`] from a shared world (the action bar's state): refused as "no such creature" if none were
/// ever spawned.
pub fn plan_on<T>(world: &World, pair: (Entity, Entity), plan: Box<PlanAgainst<'_, T>>) -> Result<T, Refusal> {
    plan_with(world, pair, false, plan)
}

/// [`plan_on`], the attack replaced being the one ending a `charge` (004:457) or not.
fn plan_with<T>(
    world: &World,
    (attacker, target): (Entity, Entity),
    charge: bool,
    plan: Box<PlanAgainst<'_, T>>,
) -> Result<T, Refusal> {
    let Some(mut state) = crate::rules::core::kept::kept_ref::<Combatant, With<Creature>>(world) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let creatures = state.query(world);
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let budget = world.get::<ActionBudget>(attacker).copied().unwrap_or_default();
    let ground = Ground {
        blow: if charge { None } else { next_blow(world.get::<FullAttackUnderway>(attacker), &a) },
        charge,
        ..Ground::new(world.resource::<Battlefield>(), world.resource::<TurnOrder>(), &creatures)
    };
    plan(&ground, (&a, &t), &budget)
}

/// `plan` of the special attack ending `attacker`'s charge on `target` (004:457), as the rules will plan it
/// once the charge has brought it to `to`, the end of its lane: the attacker set there for the asking, and
/// back. What the charge's declaration checks and its preview shows.
pub fn plan_at_charge_end<T>(
    world: &mut World,
    (attacker, target): (Entity, Entity),
    to: Square,
    plan: Box<PlanAgainst<'_, T>>,
) -> Result<T, Refusal> {
    kept::<Combatant, With<Creature>>(world);
    let place = |world: &mut World, square: Square| -> Option<Square> {
        let mut position = world.get_mut::<Position>(attacker)?;
        let position = position.bypass_change_detection();
        Some(std::mem::replace(&mut position.0, square))
    };
    let Some(own) = place(world, to) else { return Err(Refusal::new("no such creature", "data")) };
    let planned = plan_with(world, (attacker, target), true, plan);
    place(world, own);
    planned
}

/// The special attacks.
pub fn plugin(app: &mut App) {
    trip::plugin(app);
    bull_rush::plugin(app);
    turning::plugin(app);
    disarm::plugin(app);
    sunder::plugin(app);
    grapple::plugin(app);
    splash::plugin(app);
    overrun::plugin(app);
    aid::plugin(app);
    feint::plugin(app);
}
