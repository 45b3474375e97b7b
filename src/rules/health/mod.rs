//! Hit points and the states they bring: disabled at 0, dying from -1 to -9, dead at -10, massive damage,
//! nonlethal damage and staggering (004:263-308).

use bevy::prelude::*;

use crate::rules::attack::{Damage, Slay};
use crate::rules::core::ability_damage::{AbilityDamage, WithheldHitPoints, withheld_hit_points};
use crate::rules::core::checks::{Save, roll_save};
use crate::rules::core::creature::{
    Abilities, Ability, Altitude, Condition, ConditionChange, Conditions, Creature, CreatureId, HitPoints, Items,
    Level, Position, Riding, Saves, Space, absorb,
};
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{Fall, Strain, TurnOrder};

pub use crate::rules::core::death::{
    MASSIVE_DAMAGE, MASSIVE_DAMAGE_DC, calls_for_massive_save, drops_at, nonlethal_state, states_for,
};

pub mod falls;
pub mod first_aid;
pub mod rest;

/// The systems that apply damage, healing and condition changes.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HealthSystems;

/// Hit points and health states.
pub fn plugin(app: &mut App) {
    app.add_observer(apply_damage_at_once);
    app.add_message::<Healing>().add_message::<UseItemIntent>().add_message::<rest::RestIntent>();
    app.add_message::<first_aid::FirstAidIntent>();
    app.add_systems(
        Rules,
        (rest::take_rest, rest::rest_abilities, weigh_constitution, end_fatigue)
            .chain()
            .in_set(RulesSystems::Consequences)
            .after(HealthSystems),
    );
    app.add_systems(
        Rules,
        (apply_damage, apply_slay, apply_healing, apply_strain, collapse, apply_condition_changes)
            .chain()
            .in_set(HealthSystems)
            .in_set(RulesSystems::Consequences)
            .after(crate::rules::turns::give_up_full_attacks),
    );
    app.add_systems(
        Rules,
        (use_item, first_aid::give_first_aid)
            .chain()
            .in_set(RulesSystems::Act)
            .after(crate::rules::turns::ready::ReadySystems)
            .after(crate::rules::turns::lasting::impose)
            .before(crate::rules::attack::take_total_defense),
    );
}

/// Hit points given back (004:284-296): never above the maximum; as much nonlethal damage goes too
/// (004:308); any magical healing stabilises a dying creature (004:284).
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct Healing {
    /// Who is healed.
    pub target: Entity,
    /// Hit points.
    pub amount: i32,
}

/// Asks to use a carried item (drink a potion): the kind of action and whether it provokes come from the
/// table of actions (004:87-163).
#[derive(Message, Clone, Debug)]
pub struct UseItemIntent {
    /// Who uses it.
    pub creature: Entity,
    /// The item by name.
    pub item: String,
    /// A readied use set off by its trigger: out of turn, its action already spent (004:621).
    pub readied: bool,
}

/// The hit points and states after healing `amount` (004:284-296, 004:308): current hit points up to the
/// maximum, nonlethal damage down by as much, and a dying creature that is still below 0 stable.
pub fn heal(hp: HitPoints, amount: i32) -> HitPoints {
    HitPoints {
        current: (hp.current + amount.max(0)).min(hp.max),
        nonlethal: (hp.nonlethal - amount.max(0)).max(0),
        ..hp
    }
}

/// Heals, then sets the states the new hit points bring.
fn apply_healing(mut healing: MessageReader<Healing>, mut creatures: Wounded<'_, '_>, mut facts: MessageWriter<Fact>) {
    for cure in healing.read() {
        let Ok((id, mut hp, mut conditions, mind, _, _, _)) = creatures.get_mut(cure.target) else { continue };
        if conditions.has(Condition::Dead) {
            continue;
        }
        let before = hp.current;
        *hp = heal(*hp, cure.amount);
        facts.write(Fact::HitPointsChanged {
            creature: id.clone(),
            before,
            after: hp.current,
            nonlethal: hp.nonlethal,
        });
        let mut wanted: Vec<Condition> = states_for(hp.total()).to_vec();
        // Magical healing stabilises a dying creature (004:284): still below 0, it is stable and unconscious.
        let still_down = wanted.contains(&Condition::Dying);
        if still_down {
            wanted.retain(|c| *c != Condition::Dying);
            if conditions.0.insert(Condition::Stable) {
                facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::Stable });
            }
        } else if conditions.0.remove(&Condition::Stable) {
            facts.write(Fact::ConditionLost { creature: id.clone(), condition: Condition::Stable });
        }
        if let Some(state) = nonlethal_state(hp.total(), hp.nonlethal) {
            wanted.push(state);
        }
        set_hp_states(id, (&mut conditions, mind), &wanted, &mut facts);
    }
}

/// The kind of action a row of the table is, as the action budget counts it.
fn budget_kind(kind: crate::rules::core::action_table::TableKind) -> crate::rules::turns::ActionKind {
    use crate::rules::core::action_table::TableKind;
    use crate::rules::turns::ActionKind;
    match kind {
        TableKind::Standard | TableKind::Restricted | TableKind::Variable => ActionKind::Standard,
        TableKind::Move => ActionKind::Move,
        TableKind::FullRound => ActionKind::FullRound,
        TableKind::Free | TableKind::NoAction => ActionKind::Free,
    }
}

/// Where `item` is among the `items` of `user` (its id and conditions), if it may use it, its turn and action
/// aside: able to act, not pinned, carrying it.
pub fn item_refusal(
    (id, conditions): (&CreatureId, &Conditions),
    items: &Items,
    item: &str,
) -> Result<usize, crate::rules::core::refusal::Refusal> {
    crate::rules::core::creature::able_to_act(conditions)
        .and_then(|()| crate::rules::core::creature::not_pinned(conditions))
        .and_then(|()| {
            let found = items.0.iter().position(|i| i.name == item);
            found.ok_or_else(|| crate::rules::core::refusal::Refusal::new(format!("{id} carries no {item}"), "data"))
        })
}

/// Uses an item: the creature's turn, able to act, the action the table gives left; if the table says it
/// provokes, the foes that threaten the creature strike first (004:66) and a creature dropped does not
/// drink; then the item is used up and heals.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
pub fn use_item(
    mut intents: MessageReader<UseItemIntent>,
    order: Res<TurnOrder>,
    field: Res<crate::rules::core::battlefield::Battlefield>,
    creatures: Query<crate::rules::attack::Combatant, With<Creature>>,
    mut carried: Query<(&mut Items, &mut crate::rules::turns::ActionBudget)>,
    mut reactions: Query<&mut crate::rules::opportunity::Reactions>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut healing: MessageWriter<Healing>,
    mut falls: crate::rules::attack::manoeuvre::Falls,
) {
    use crate::rules::core::action_table::Provokes;
    for intent in intents.read() {
        let Ok(user) = creatures.get(intent.creature) else { continue };
        let Ok((mut items, mut budget)) = carried.get_mut(intent.creature) else { continue };
        let checked = order
            .check_turn_unless_readied(intent.creature, intent.readied)
            .and_then(|()| item_refusal((user.id, user.conditions), &items, &intent.item))
            .and_then(|i| {
                let item = &items.0[i];
                budget.spend_unless_readied(budget_kind(item.action_kind), intent.readied).map(|()| i)
            });
        let index = match checked {
            Ok(i) => i,
            Err(refusal) => {
                facts.write(Fact::ActionRefused {
                    creature: user.id.clone(),
                    action: Action::Use(intent.item.clone()),
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                continue;
            }
        };
        let item = items.0[index].clone();
        // A standard action costs a creature disabled once it is done 1 hit point, unless it healed it
        // (004:274): weighed after the healing.
        if budget_kind(item.action_kind) == crate::rules::turns::ActionKind::Standard {
            falls.strain.write(Strain::standard_action(intent.creature));
        }
        facts.write(Fact::ItemUsed {
            creature: user.id.clone(),
            item: item.name.clone(),
            action_line: item.action_line,
        });
        if matches!(item.provokes, Provokes::Yes | Provokes::YesNote { .. }) {
            let why = format!("using the {} (004:{})", item.name, item.action_line);
            let initiative = order.initiative();
            let mut strike = crate::rules::opportunity::Opportunity {
                field: &field,
                creatures: &creatures,
                dice: &mut dice,
                facts: &mut facts,
                damage: &mut damage,
                falls: &mut falls,
                gear: Vec::new(),
                wounds: Vec::new(),
                dropped_beside: Vec::new(),
            };
            if strike.provoke_in_place(&user, &initiative, &mut reactions, None, Action::UseItem, &why) {
                // Dropped by the blow it drew, it never used the item: it keeps it.
                continue;
            }
        }
        items.0.remove(index);
        if let Some(expr) = item.heal {
            let thrown = dice.throw(expr);
            facts.write(Fact::Healed {
                creature: user.id.clone(),
                source: item.name.clone(),
                dice: thrown.clone(),
                amount: thrown.total.max(1),
            });
            healing.write(Healing { target: intent.creature, amount: thrown.total.max(1) });
        }
    }
}

pub(crate) use crate::rules::core::death::{HP_STATES, kill};

/// Gives a creature exactly the hit-point states in `wanted`, writing each change.
fn set_hp_states(
    id: &CreatureId,
    (conditions, mind): (&mut Conditions, Mind<'_>),
    wanted: &[Condition],
    facts: &mut MessageWriter<Fact>,
) {
    // An Intelligence, Wisdom or Charisma weakened to 0 keeps it unconscious whatever its hit points (004:28;
    // a mindless creature's Intelligence of 0 is no weakening).
    let (abilities, damage) = mind;
    use crate::rules::core::creature::Ability;
    let mind_out = [Ability::Int, Ability::Wis, Ability::Cha]
        .into_iter()
        .any(|a| a.score(abilities) <= 0 && damage.is_some_and(|d| d.0.get(&a).is_some_and(|n| *n > 0)));
    for condition in HP_STATES {
        let want = wanted.contains(&condition) || (condition == Condition::Unconscious && mind_out);
        if want && conditions.0.insert(condition) {
            facts.write(Fact::ConditionGained { creature: id.clone(), condition });
        } else if !want && conditions.0.remove(&condition) {
            facts.write(Fact::ConditionLost { creature: id.clone(), condition });
        }
    }
}

/// A creature's scores and the points of them it has lost.
pub(super) type Mind<'a> = (&'a Abilities, Option<&'a crate::rules::core::ability_damage::AbilityDamage>);

/// The creatures as damage sees them.
type Wounded<'w, 's> = Query<
    'w,
    's,
    (
        &'static CreatureId,
        &'static mut HitPoints,
        &'static mut Conditions,
        (&'static Abilities, Option<&'static crate::rules::core::ability_damage::AbilityDamage>),
        &'static Saves,
        &'static mut Fall,
        &'static crate::rules::core::creature::Traits,
    ),
    With<Creature>,
>;

/// Applies the damage written for the round's consequences.
fn apply_damage(
    field: Option<Res<crate::rules::core::battlefield::Battlefield>>,
    mut damage: MessageReader<Damage>,
    mut dice: ResMut<Dice>,
    order: Res<TurnOrder>,
    mut creatures: Wounded<'_, '_>,
    mut facts: MessageWriter<Fact>,
) {
    let massive = field.as_ref().is_none_or(|f| f.house_rules().massive_damage);
    for hit in damage.read() {
        wound(hit, (&mut dice, order.round, massive), &mut creatures, &mut facts);
    }
}

/// Applies damage triggered to land at once, before the next blow (004:229).
fn apply_damage_at_once(
    hit: On<Damage>,
    field: Option<Res<crate::rules::core::battlefield::Battlefield>>,
    mut dice: ResMut<Dice>,
    order: Res<TurnOrder>,
    mut creatures: Wounded<'_, '_>,
    mut facts: MessageWriter<Fact>,
) {
    let massive = field.as_ref().is_none_or(|f| f.house_rules().massive_damage);
    wound(hit.event(), (&mut dice, order.round, massive), &mut creatures, &mut facts);
}

/// Applies one wound, then sets the states the new hit points bring; 50 or more from one attack calls for a
/// Fortitude save DC 15 or death (004:272), unless the table plays without massive damage (`massive`).
fn wound(
    hit: &Damage,
    (dice, round, massive): (&mut Dice, u32, bool),
    creatures: &mut Wounded<'_, '_>,
    facts: &mut MessageWriter<Fact>,
) {
    let Ok((id, mut hp, mut conditions, mind, saves, mut fall, traits)) = creatures.get_mut(hit.target) else {
        return;
    };
    let before = hp.current;
    // An undead takes no nonlethal damage (d20 standard; our ruling).
    if hit.nonlethal && traits.undead {
        return;
    }
    if hit.nonlethal {
        hp.nonlethal += hit.amount;
    } else {
        *hp = absorb(*hp, hit.amount);
    }
    // An undead is destroyed at 0 hit points: it is neither disabled nor dying (d20 standard; our ruling).
    if traits.undead && hp.current <= 0 && !conditions.has(Condition::Dead) {
        facts.write(Fact::HitPointsChanged {
            creature: id.clone(),
            before,
            after: hp.current,
            nonlethal: hp.nonlethal,
        });
        kill(id, &mut hp, &mut conditions, facts);
        return;
    }
    facts.write(Fact::HitPointsChanged { creature: id.clone(), before, after: hp.current, nonlethal: hp.nonlethal });
    // An undead has no Fortitude against massive damage to fail: it is destroyed at 0 hit points only (d20
    // standard; our ruling).
    if massive && hit.from_one_attack && calls_for_massive_save(hit.amount, hit.nonlethal, traits.undead, &hp) {
        let saved =
            roll_save(dice, facts, id, Save::Fortitude, saves, mind.0, "massive damage (004:272)", MASSIVE_DAMAGE_DC);
        if !saved {
            // Dead on the spot whatever its hit points (004:272), as any killing is written.
            kill(id, &mut hp, &mut conditions, facts);
            return;
        }
    }
    settle(id, &hp, (&mut conditions, mind), (&mut fall, round, !hit.nonlethal), facts);
}

/// Sets the states `hp` brings after a loss of hit points, lethal or not (`lethal`).
fn settle(
    id: &CreatureId,
    hp: &HitPoints,
    (conditions, mind): (&mut Conditions, Mind<'_>),
    (fall, round, lethal): (&mut Fall, u32, bool),
    facts: &mut MessageWriter<Fact>,
) {
    let mut wanted: Vec<Condition> = states_for(hp.total()).to_vec();
    if let Some(state) = nonlethal_state(hp.total(), hp.nonlethal) {
        wanted.push(state);
    }
    // Nonlethal damage takes no hit points (004:301): a creature a healing stabilised, no longer dying, is
    // not dying again for it.
    if !lethal && conditions.has(Condition::Stable) && !conditions.has(Condition::Dying) {
        wanted.retain(|c| *c != Condition::Dying);
    }
    // A fresh wound reopens a stable creature's dying (004:279-281); its first roll is next round (004:281
    // « Le premier de ces jets a lieu le round suivant sa chute »), as for a creature that was not down.
    if wanted.contains(&Condition::Dying) && lethal {
        if !conditions.has(Condition::Dying) || conditions.has(Condition::Stable) {
            fall.0 = Some(round);
        }
        if conditions.0.remove(&Condition::Stable) {
            facts.write(Fact::ConditionLost { creature: id.clone(), condition: Condition::Stable });
        }
    }
    set_hp_states(id, (conditions, mind), &wanted, facts);
}

/// A Constitution weakened or given back moves the hit points with it (004:300 read the other way; the d20
/// standard, docs/rulings.md): the maximum and the current hit points lose, or get back, 1 a Hit Die for
/// each point of modifier (`withheld_hit_points`). Temporary hit points are not touched. Only creatures
/// whose scores changed are weighed.
#[expect(clippy::type_complexity, reason = "a Bevy query: one element per component read")]
fn weigh_constitution(
    order: Res<TurnOrder>,
    mut creatures: Query<
        (
            Entity,
            &CreatureId,
            (&mut HitPoints, &mut Conditions, &mut Fall),
            (&Abilities, Option<&AbilityDamage>),
            &Level,
            Option<&WithheldHitPoints>,
        ),
        (With<Creature>, Changed<Abilities>),
    >,
    mut commands: Commands,
    mut facts: MessageWriter<Fact>,
) {
    for (entity, id, (mut hp, mut conditions, mut fall), mind, level, held) in &mut creatures {
        if conditions.has(Condition::Dead) {
            continue;
        }
        let (abilities, damage) = mind;
        let lost = damage.and_then(|d| d.0.get(&Ability::Con)).copied().unwrap_or(0);
        let before = held.map_or(0, |h| h.0);
        let now = withheld_hit_points(abilities.con + lost, abilities.con, level.0, hp.max + before);
        let change = now - before;
        if change == 0 {
            continue;
        }
        commands.entity(entity).insert(WithheldHitPoints(now));
        let current = hp.current;
        hp.max -= change;
        hp.current -= change;
        if change > 0 {
            let reason = "a weakened Constitution: 1 a Hit Die per point of modifier (004:300)".to_string();
            facts.write(Fact::HitPointsLost { creature: id.clone(), amount: change, reason });
        }
        facts.write(Fact::HitPointsChanged {
            creature: id.clone(),
            before: current,
            after: hp.current,
            nonlethal: hp.nonlethal,
        });
        // Hit points given back leave a creature still below 0 as its rest left it (stable or recovering).
        if change > 0 || hp.current >= 0 {
            if hp.current >= 0 && conditions.0.remove(&Condition::Stable) {
                facts.write(Fact::ConditionLost { creature: id.clone(), condition: Condition::Stable });
            }
            settle(id, &hp, (&mut conditions, mind), (&mut fall, order.round, change > 0), &mut facts);
        }
    }
}

/// Fatigue ends with the nonlethal damage that brought it (003:71 « Éliminer les dégâts non-létaux élimine
/// aussi la fatigue »), by healing or rest: its -2 to Strength and Dexterity given back.
fn end_fatigue(
    mut creatures: Query<(&CreatureId, &HitPoints, &mut Conditions, &mut Abilities), With<Creature>>,
    mut facts: MessageWriter<Fact>,
) {
    use crate::rules::core::creature::FATIGUE_PENALTY;
    for (id, hp, mut conditions, mut abilities) in &mut creatures {
        if hp.nonlethal == 0 && conditions.has(Condition::Fatigued) {
            conditions.0.remove(&Condition::Fatigued);
            abilities.str -= FATIGUE_PENALTY;
            abilities.dex -= FATIGUE_PENALTY;
            facts.write(Fact::ConditionLost { creature: id.clone(), condition: Condition::Fatigued });
        }
    }
}

/// Kills the creatures a rule slays: hit points to -10 at most, dead (004:271).
fn apply_slay(mut slay: MessageReader<Slay>, mut creatures: Wounded<'_, '_>, mut facts: MessageWriter<Fact>) {
    for slain in slay.read() {
        let Ok((id, mut hp, mut conditions, _, _, _, _)) = creatures.get_mut(slain.target) else { continue };
        if conditions.has(Condition::Dead) {
            continue;
        }
        kill(id, &mut hp, &mut conditions, &mut facts);
    }
}

/// Turns the strain of an action done into 1 point of damage, with a fact saying why, if its doer is
/// disabled once the action's wounds and healing are weighed (004:274 « dès qu'il l'a accomplie. À moins
/// que l'action ait eu pour conséquence de soigner le personnage »).
fn apply_strain(
    field: Option<Res<crate::rules::core::battlefield::Battlefield>>,
    mut strain: MessageReader<Strain>,
    mut dice: ResMut<Dice>,
    order: Res<TurnOrder>,
    mut creatures: Wounded<'_, '_>,
    mut facts: MessageWriter<Fact>,
) {
    let massive = field.as_ref().is_none_or(|f| f.house_rules().massive_damage);
    for s in strain.read() {
        let Ok((id, _, conditions, ..)) = creatures.get(s.creature) else { continue };
        // Dropped by a blow it drew (knocked out at 0 by nonlethal damage, 004:305), it never finished the
        // action and pays nothing (« dès qu'il l'a accomplie », 004:274; docs/rulings.md).
        if !conditions.has(Condition::Disabled) || !conditions.can_act() {
            continue;
        }
        facts.write(Fact::HitPointsLost { creature: id.clone(), amount: 1, reason: s.reason.clone() });
        let strained = Damage { target: s.creature, amount: 1, nonlethal: false, from_one_attack: false };
        wound(&strained, (&mut dice, order.round, massive), &mut creatures, &mut facts);
    }
}

/// A creature that falls unconscious collapses (« le personnage s'effondre, inconscient », 004:305; our
/// ruling for every fall into unconsciousness, dying too, 004:277): it lies prone, and once awake it
/// stands up as any prone creature does (004:225). Not a rider or passenger (its seat keeps it or throws it,
/// 004:482), nor a flier in the air (it falls, 004:649), nor a creature in the water.
#[expect(clippy::type_complexity, reason = "a Bevy query: one element per component read")]
pub(crate) fn collapse(
    field: Option<Res<crate::rules::core::battlefield::Battlefield>>,
    mut creatures: Query<
        (
            &CreatureId,
            &mut Conditions,
            (&Position, &Space, &crate::rules::core::size::Size, &Altitude, &crate::rules::core::creature::Speed),
            Has<Riding>,
        ),
        (With<Creature>, Changed<Conditions>),
    >,
    mut facts: MessageWriter<Fact>,
) {
    for (id, mut conditions, (position, space, size, altitude, speed), riding) in &mut creatures {
        let down = conditions.has(Condition::Unconscious) && !conditions.has(Condition::Dead);
        // A walker on a ledge stands on it: it collapses there; a flier in the air falls.
        let aloft = crate::rules::core::creature::flying(speed, altitude.0);
        if !down || conditions.has(Condition::Prone) || riding || aloft {
            continue;
        }
        let wet = field
            .as_ref()
            .is_some_and(|f| crate::rules::core::water::in_the_water(f, space.at(position.0), *size, altitude.0));
        if !wet {
            conditions.0.insert(Condition::Prone);
            facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::Prone });
        }
    }
}

/// Applies requested condition changes, writing a fact for each real change.
pub(crate) fn apply_condition_changes(
    mut changes: MessageReader<ConditionChange>,
    mut creatures: Query<(&CreatureId, &mut Conditions), With<Creature>>,
    mut facts: MessageWriter<Fact>,
) {
    for change in changes.read() {
        let Ok((id, mut conditions)) = creatures.get_mut(change.creature) else { continue };
        if let Some(fact) = change_conditions(id, &mut conditions, change.condition, change.gained) {
            facts.write(fact);
        }
    }
}

/// A condition gained or lost on `conditions`, and the fact that says so if anything changed.
pub fn change_conditions(
    id: &CreatureId,
    conditions: &mut Conditions,
    condition: Condition,
    gained: bool,
) -> Option<Fact> {
    let creature = id.clone();
    match gained {
        true => conditions.0.insert(condition).then_some(Fact::ConditionGained { creature, condition }),
        false => conditions.0.remove(&condition).then_some(Fact::ConditionLost { creature, condition }),
    }
}

/// A [`ConditionChange`] applied at once, its fact written, rather than when the health systems read the
/// message: for a change the next command must already see (a turn's first action, the next blow).
pub fn change_at_once(world: &mut World, change: ConditionChange) {
    let Some(id) = world.get::<CreatureId>(change.creature).cloned() else { return };
    let Some(mut conditions) = world.get_mut::<Conditions>(change.creature) else { return };
    if let Some(fact) = change_conditions(&id, &mut conditions, change.condition, change.gained) {
        world.write_message(fact);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_004_34() {
        assert_eq!(states_for(1), &[] as &[Condition]);
        assert_eq!(states_for(0), &[Condition::Disabled]);
        assert_eq!(states_for(-1), &[Condition::Dying, Condition::Unconscious]);
        assert_eq!(states_for(-9), &[Condition::Dying, Condition::Unconscious]);
        assert_eq!(states_for(-10), &[Condition::Dead]);
    }

    #[test]
    fn nonlethal_staggers_then_knocks_out() {
        assert_eq!(nonlethal_state(8, 8), Some(Condition::Staggered));
        assert_eq!(nonlethal_state(8, 9), Some(Condition::Unconscious));
        assert_eq!(nonlethal_state(8, 3), None);
        // Hit points falling to 0 under 7 nonlethal: still unconscious (004:301); none, nothing.
        assert_eq!(nonlethal_state(0, 7), Some(Condition::Unconscious));
        assert_eq!(nonlethal_state(-3, 2), Some(Condition::Unconscious));
        assert_eq!(nonlethal_state(0, 0), None);
    }

    #[test]
    fn healing_stops_at_the_maximum_and_takes_nonlethal_damage_too_004_292_308() {
        let hp = HitPoints { current: 3, max: 10, temporary: 0, nonlethal: 4 };
        assert_eq!(heal(hp, 5), HitPoints { current: 8, max: 10, temporary: 0, nonlethal: 0 });
        assert_eq!(heal(hp, 20).current, 10);
        assert_eq!(heal(hp, 2).nonlethal, 2);
    }

    #[test]
    fn temporary_hit_points_go_first() {
        let hp = HitPoints { current: 10, max: 10, nonlethal: 0, temporary: 4 };
        let after = absorb(hp, 6);
        assert_eq!((after.temporary, after.current), (0, 8));
        assert_eq!(absorb(hp, 3).current, 10);
    }
}
