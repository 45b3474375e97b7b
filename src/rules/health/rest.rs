//! Natural healing after the fight (004:284-296, 004:307): a night's rest, a day in bed, nonlethal damage
//! fading by the hour, and the slow fate of the stabilised: waking, recovering, or slipping away when no
//! one tends them.

use bevy::prelude::*;

use super::{HP_STATES, set_hp_states, states_for};
use crate::rules::core::ability_damage::{AbilityDamage, at_zero, restore};
use crate::rules::core::creature::{
    Abilities, Condition, ConditionChange, Conditions, Creature, CreatureId, Faction, HitPoints, Level,
};
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::turns::TurnOrder;

/// The chance, in percent, of each hourly or daily roll of the stabilised (004:287-291).
pub const RECOVERY_CHANCE: u32 = 10;

/// Hours of sleep that make a night's rest (004:293).
pub const NIGHT_HOURS: u32 = 8;

/// A creature as natural healing sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Convalescent {
    /// Hit points now and at most, and nonlethal damage.
    pub hit_points: HitPoints,
    /// Level or Hit Dice.
    pub level: u32,
    /// Below 0 and stabilised.
    pub stable: bool,
    /// Awake: a stabilised creature that came to (004:287), or anyone at 0 or more.
    pub conscious: bool,
    /// Someone able to act watches over it (an ally standing, our ruling after 004:286).
    pub tended: bool,
    /// Alone and awake, it has begun to recover hit points (004:290-291).
    pub recovering: bool,
}

/// What happened while resting, hour by hour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestEvent {
    /// A round's roll to stabilise, before the rest can begin (004:280-283).
    Stabilisation {
        /// The d100.
        roll: u32,
        /// Whether it became stable.
        stable: bool,
    },
    /// The hourly roll to come to (004:287, 004:289).
    Waking {
        /// The hour.
        hour: u32,
        /// The d100.
        roll: u32,
        /// Whether it woke.
        woke: bool,
    },
    /// The daily roll to begin recovering, alone and awake (004:290).
    Recovering {
        /// The hour.
        hour: u32,
        /// The d100.
        roll: u32,
        /// Whether it began.
        began: bool,
    },
    /// Hit points lost: bleeding or a relapse.
    Lost {
        /// The hour (0 for the rounds before the rest).
        hour: u32,
        /// Why, with the rule.
        reason: &'static str,
    },
    /// Hit points regained by rest.
    Healed {
        /// The hour.
        hour: u32,
        /// How many.
        amount: i32,
        /// How, with the rule.
        reason: &'static str,
    },
    /// Nonlethal damage that faded.
    NonlethalFaded {
        /// The hour.
        hour: u32,
        /// How much.
        amount: i32,
    },
}

/// Rests `hours` hours; `bed_rest` keeps the creature in bed all day. `d100` throws the percentile die.
/// Returns what happened, in order. Pure but for the die.
pub fn rest(who: &mut Convalescent, hours: u32, bed_rest: bool, mut d100: impl FnMut() -> u32) -> Vec<RestEvent> {
    let mut events = Vec::new();
    let dead = |w: &Convalescent| w.hit_points.current <= -10;
    // A dying creature still bleeds round by round until it is stable or dead (004:280-283).
    while who.hit_points.current < 0 && !who.stable && !dead(who) {
        let roll = d100();
        let stable = roll <= RECOVERY_CHANCE;
        events.push(RestEvent::Stabilisation { roll, stable });
        if stable {
            who.stable = true;
        } else {
            who.hit_points.current -= 1;
            events.push(RestEvent::Lost { hour: 0, reason: "dying, not yet stable (004:281)" });
        }
    }
    let mut awake_hours = 0;
    for hour in 1..=hours {
        // Dead, or whole and awake with no nonlethal damage: nothing more can change.
        let whole = who.hit_points.current >= who.hit_points.max && who.hit_points.nonlethal == 0 && who.conscious;
        if dead(who) || whole {
            break;
        }
        if who.hit_points.current < 0 {
            if !who.conscious {
                let roll = d100();
                let woke = roll <= RECOVERY_CHANCE;
                events.push(RestEvent::Waking { hour, roll, woke });
                if woke {
                    who.conscious = true;
                } else if !who.tended {
                    who.hit_points.current -= 1;
                    events.push(RestEvent::Lost { hour, reason: "stabilised alone, still out (004:289)" });
                    continue;
                }
            } else if !who.tended && !who.recovering {
                // Every day from the first, alone and awake: 10% to begin recovering, or relapse (004:290).
                if awake_hours % 24 == 0 {
                    let roll = d100();
                    let began = roll <= RECOVERY_CHANCE;
                    events.push(RestEvent::Recovering { hour, roll, began });
                    if began {
                        who.recovering = true;
                    } else {
                        who.hit_points.current -= 1;
                        events.push(RestEvent::Lost { hour, reason: "alone, a relapse (004:290)" });
                    }
                }
                awake_hours += 1;
            }
        }
        if who.hit_points.nonlethal > 0 {
            let amount = (who.level as i32).min(who.hit_points.nonlethal);
            who.hit_points.nonlethal -= amount;
            events.push(RestEvent::NonlethalFaded { hour, amount });
        }
        // Stabilised and unconscious alone: no natural healing (004:289); otherwise a night heals the level,
        // a whole day in bed twice the level (004:293-294).
        let heals = who.hit_points.current >= 0 || who.tended || who.recovering;
        // A day in bed the rest does not complete still holds its night's sleep (8 hours or more, 004:293).
        let whole_day = hour.div_ceil(24) * 24 <= hours;
        let (due, amount, reason) = if bed_rest && whole_day {
            (hour % 24 == 0, 2 * who.level as i32, "a whole day of bed rest (004:294)")
        } else {
            (hour % 24 == NIGHT_HOURS, who.level as i32, "a night's rest (004:293)")
        };
        if heals && due && who.hit_points.current < who.hit_points.max {
            let amount = amount.min(who.hit_points.max - who.hit_points.current);
            who.hit_points.current += amount;
            events.push(RestEvent::Healed { hour, amount, reason });
        }
        if who.hit_points.current >= 0 {
            who.stable = false;
            who.conscious = true;
        }
    }
    events
}

/// The longest rest asked at once: 30 days.
pub const MOST_REST_HOURS: u32 = 720;

/// Asks everyone to rest, once the fight is over.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestIntent {
    /// How long.
    pub hours: u32,
    /// In bed all day rather than a night's sleep.
    pub bed_rest: bool,
}

/// A creature that began recovering on its own after waking (004:290-291): it no longer relapses.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovering;

/// The creatures as rest sees them.
type Resting<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static CreatureId, &'static Faction, &'static mut HitPoints, &'static mut Conditions, &'static Level),
    With<Creature>,
>;

/// Everyone rests: the fight must be over (our ruling: rest is not an action in combat).
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
pub fn take_rest(
    mut commands: Commands,
    mut intents: MessageReader<RestIntent>,
    order: Res<TurnOrder>,
    mut creatures: Resting<'_, '_>,
    recovering: Query<(), With<Recovering>>,
    minds: Query<(&Abilities, Option<&AbilityDamage>)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        if !order.ended {
            facts.write(Fact::ActionRefused {
                creature: CreatureId("everyone".into()),
                action: Action::Rest,
                reason: "one rests once the fight is over".into(),
                rule: "004:293".into(),
            });
            continue;
        }
        if !(1..=MOST_REST_HOURS).contains(&intent.hours) {
            facts.write(Fact::ActionRefused {
                creature: CreatureId("everyone".into()),
                action: Action::Rest,
                reason: format!("a rest lasts 1 to {MOST_REST_HOURS} hours (30 days), not {}", intent.hours),
                rule: "004:293-294".into(),
            });
            continue;
        }
        facts.write(Fact::Rested { hours: intent.hours, bed_rest: intent.bed_rest });
        // Who can watch over the fallen: the factions with someone standing.
        let standing: Vec<Faction> = creatures
            .iter()
            .filter(|(.., hp, c, _)| c.can_act() && hp.current >= 0)
            .map(|(_, _, f, ..)| f.clone())
            .collect();
        let mut everyone: Vec<_> = creatures.iter_mut().collect();
        everyone.sort_by(|a, b| a.1.cmp(b.1));
        for (entity, id, faction, mut hp, mut conditions, level) in everyone {
            if conditions.has(Condition::Dead) {
                continue;
            }
            let mut who = Convalescent {
                hit_points: *hp,
                level: level.0,
                stable: conditions.has(Condition::Stable),
                conscious: !conditions.has(Condition::Unconscious) || hp.current >= 0,
                tended: standing.iter().filter(|f| *f == faction).count()
                    > usize::from(hp.current >= 0 && conditions.can_act()),
                recovering: recovering.contains(entity),
            };
            let before = *hp;
            for event in rest(&mut who, intent.hours, intent.bed_rest, || dice.d100()) {
                facts.write(fact_of(id, event));
            }
            *hp = who.hit_points;
            if who.recovering && !recovering.contains(entity) {
                commands.entity(entity).insert(Recovering);
            }
            if hp.current >= 0 {
                commands.entity(entity).remove::<Recovering>();
            }
            if *hp != before {
                facts.write(Fact::HitPointsChanged {
                    creature: id.clone(),
                    before: before.current,
                    after: hp.current,
                    nonlethal: hp.nonlethal,
                });
            }
            // The states the new hit points bring; below 0 and awake, it is disabled as at 0 (004:287).
            let mut wanted: Vec<Condition> = states_for(hp.total()).to_vec();
            if hp.current < 0 && hp.current > -10 {
                wanted.retain(|c| *c != Condition::Dying);
                if who.conscious {
                    wanted.retain(|c| *c != Condition::Unconscious);
                    wanted.push(Condition::Disabled);
                }
            }
            if let Some(state) = super::nonlethal_state(hp.total(), hp.nonlethal) {
                wanted.push(state);
            }
            wanted.retain(|c| HP_STATES.contains(c));
            if let Ok(mind) = minds.get(entity) {
                set_hp_states(id, (&mut conditions, mind), &wanted, &mut facts);
            }
            let stable = hp.current < 0 && hp.current > -10;
            if stable && conditions.0.insert(Condition::Stable) {
                facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::Stable });
            } else if !stable && conditions.0.remove(&Condition::Stable) {
                facts.write(Fact::ConditionLost { creature: id.clone(), condition: Condition::Stable });
            }
        }
    }
}

/// The points a rest of `hours` gives back to each weakened ability: 1 a night (each day's first 8 hours
/// of sleep), 2 a whole day in bed (004:297), counted as the hit points' nights and days are (004:293-294).
pub const fn ability_points(hours: u32, bed_rest: bool) -> i32 {
    if bed_rest {
        // The part of a day in bed the rest does not complete still holds its night (004:293).
        crate::rules::core::ability_damage::rest_points((hours % 24 >= NIGHT_HOURS) as u32, hours / 24)
    } else {
        crate::rules::core::ability_damage::rest_points(hours / 24 + (hours % 24 >= NIGHT_HOURS) as u32, 0)
    }
}

/// Rest gives back weakened abilities, per ability (004:297); a score back above 0 lifts what its 0
/// brought (the d20 standard, docs/rulings.md). In id order.
pub fn rest_abilities(
    mut intents: MessageReader<RestIntent>,
    order: Res<TurnOrder>,
    mut creatures: Query<(Entity, &CreatureId, &mut Abilities, &mut AbilityDamage, &Conditions)>,
    mut facts: MessageWriter<Fact>,
    mut changes: MessageWriter<ConditionChange>,
) {
    for intent in intents.read() {
        if !order.ended || !(1..=MOST_REST_HOURS).contains(&intent.hours) {
            continue;
        }
        let points = ability_points(intent.hours, intent.bed_rest);
        let mut everyone: Vec<_> = creatures.iter_mut().filter(|c| !c.4.has(Condition::Dead)).collect();
        everyone.sort_by(|a, b| a.1.cmp(b.1));
        for (entity, id, mut abilities, mut lost, _) in everyone {
            for (ability, amount) in restore(&mut abilities, &mut lost, points) {
                facts.write(Fact::AbilityRestored { creature: id.clone(), ability, amount });
                let was_zero = ability.score(&abilities) - amount == 0;
                if was_zero {
                    changes.write(ConditionChange { creature: entity, condition: at_zero(ability), gained: false });
                }
            }
        }
    }
}

fn fact_of(id: &CreatureId, event: RestEvent) -> Fact {
    let creature = id.clone();
    match event {
        RestEvent::Stabilisation { roll, stable } => Fact::StabilisationRolled { creature, roll, stable },
        RestEvent::Waking { hour, roll, woke } => {
            Fact::RecoveryRolled { creature, hour, check: "wake".into(), roll, success: woke }
        }
        RestEvent::Recovering { hour, roll, began } => {
            Fact::RecoveryRolled { creature, hour, check: "recover".into(), roll, success: began }
        }
        RestEvent::Lost { hour, reason } => {
            Fact::HitPointsLost { creature, amount: 1, reason: format!("hour {hour}: {reason}") }
        }
        RestEvent::Healed { hour, amount, reason } => {
            Fact::RestHealed { creature, hour, amount, nonlethal: false, reason: reason.into() }
        }
        RestEvent::NonlethalFaded { hour, amount } => Fact::RestHealed {
            creature,
            hour,
            amount,
            nonlethal: true,
            reason: "nonlethal damage fades, 1 an hour per level (004:307)".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hurt(current: i32, max: i32, level: u32) -> Convalescent {
        Convalescent {
            hit_points: HitPoints { current, max, nonlethal: 0, temporary: 0 },
            level,
            stable: current < 0,
            conscious: current >= 0,
            tended: false,
            recovering: false,
        }
    }

    #[test]
    fn a_night_heals_the_level_and_a_day_in_bed_twice_it_004_293_294() {
        let mut fighter = hurt(5, 20, 2);
        let events = rest(&mut fighter, 8, false, || 100);
        assert_eq!(fighter.hit_points.current, 7);
        assert_eq!(events, vec![RestEvent::Healed { hour: 8, amount: 2, reason: "a night's rest (004:293)" }]);
        let mut fighter = hurt(5, 20, 2);
        rest(&mut fighter, 7, false, || 100);
        assert_eq!(fighter.hit_points.current, 5, "seven hours are not a night");
        let mut fighter = hurt(5, 20, 2);
        rest(&mut fighter, 48, true, || 100);
        assert_eq!(fighter.hit_points.current, 13, "two days in bed: 4 each");
        // Eight hours in bed hold a night's sleep; a day and eight hours, a day and a night.
        let mut fighter = hurt(5, 20, 2);
        rest(&mut fighter, 8, true, || 100);
        assert_eq!(fighter.hit_points.current, 7, "8 hours in bed: a night");
        let mut fighter = hurt(5, 20, 2);
        rest(&mut fighter, 32, true, || 100);
        assert_eq!(fighter.hit_points.current, 11, "a day in bed (4) and a night (2)");
        assert_eq!(ability_points(32, true), 3);
        assert_eq!(ability_points(8, true), 1);
        let mut fighter = hurt(19, 20, 4);
        rest(&mut fighter, 8, false, || 100);
        assert_eq!(fighter.hit_points.current, 20, "never above the maximum (004:292)");
    }

    #[test]
    fn nonlethal_damage_fades_by_the_hour_004_308() {
        let mut brawler = hurt(10, 10, 3);
        brawler.hit_points.nonlethal = 7;
        rest(&mut brawler, 2, false, || 100);
        assert_eq!(brawler.hit_points.nonlethal, 1);
    }

    #[test]
    fn stabilised_alone_it_bleeds_until_it_wakes_004_289() {
        // Out for two hours (rolls 50, 40: 1 HP each), wakes on the third (5).
        let mut rolls = [50, 40, 5].into_iter();
        let mut alone = hurt(-3, 20, 2);
        rest(&mut alone, 3, false, || rolls.next().unwrap_or(100));
        assert_eq!(alone.hit_points.current, -5);
        assert!(alone.conscious);
        // Tended, it loses nothing while out, and heals at night even unconscious (004:287).
        let mut tended = Convalescent { tended: true, ..hurt(-3, 20, 2) };
        rest(&mut tended, 8, false, || 100);
        assert_eq!(tended.hit_points.current, -1);
        assert!(!tended.conscious);
    }

    #[test]
    fn awake_and_alone_it_rolls_each_day_to_recover_004_290() {
        // Awake at -2: the first day's roll fails (1 HP), the second day's succeeds.
        let mut rolls = [60, 3].into_iter();
        let mut alone = Convalescent { conscious: true, ..hurt(-2, 20, 2) };
        let events = rest(&mut alone, 48, false, || rolls.next().unwrap_or(100));
        assert!(alone.recovering);
        // -2, -3 after the first day's relapse, then -1 after the first night once recovering (hour 32).
        assert_eq!(alone.hit_points.current, -1);
        assert!(events.contains(&RestEvent::Recovering { hour: 25, roll: 3, began: true }));
    }

    #[test]
    fn a_long_rest_stops_once_nothing_can_change() {
        // Whole and awake: not one hour is walked through, however long the rest asked.
        let mut whole = hurt(20, 20, 2);
        let mut asked = 0;
        assert!(
            rest(&mut whole, u32::MAX, false, || {
                asked += 1;
                100
            })
            .is_empty()
        );
        assert_eq!(asked, 0);
        // Hurt: it heals 2 a night and stops once whole (9 nights for 18 points).
        let mut hurt_one = hurt(2, 20, 2);
        let events = rest(&mut hurt_one, u32::MAX, false, || 100);
        assert_eq!((hurt_one.hit_points.current, events.len()), (20, 9));
    }

    #[test]
    fn a_dying_creature_first_bleeds_until_stable() {
        let mut rolls = [80, 9].into_iter();
        let mut dying = Convalescent { stable: false, tended: true, ..hurt(-8, 20, 2) };
        rest(&mut dying, 1, false, || rolls.next().unwrap_or(100));
        assert_eq!(dying.hit_points.current, -9);
        assert!(dying.stable);
    }
}
