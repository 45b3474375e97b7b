//! A planned journey marched with the dice (003:67-94, 004:301-307): each member's hustle damage, its
//! forced-march checks rolled, the damage of each failure thrown, fatigue and unconsciousness as they come.
//! Pure: the caller hands in the dice (`roll(sides)`), the seeded dice of the game.

use super::travel::{DamageKind, FORCED_MARCH_DAMAGE, Journey};

/// What a rolled march needs to know of a member (the planned strain says the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Marcher {
    /// Its Constitution modifier, added to its forced-march checks (003:92).
    pub con: i32,
    /// Its hit points, to tell when nonlethal damage knocks it out (004:305); none, never said.
    pub hit_points: Option<i32>,
    /// Its level (hit dice): nonlethal damage fades by 1 a level each hour of rest (004:307), and a night's
    /// sleep heals that many hit points (004:293).
    pub level: u32,
}

/// A forced-march check as rolled (003:92): none rolled for a ridden mount, which fails it (003:94).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RolledCheck {
    /// The d20, or none for an automatic failure.
    pub roll: Option<u32>,
    /// The d20 and the Constitution modifier.
    pub total: i32,
    /// The DC, 10 + 2 per hour beyond the 8th.
    pub dc: u32,
    /// Made.
    pub success: bool,
    /// The 1d6 thrown on a failure.
    pub damage: u32,
}

/// One hour of one member's march as the dice played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarchedHour {
    /// The day of the journey, 1-based.
    pub day: u32,
    /// The hour of that day's travel, 1-based.
    pub hour: u32,
    /// Hustle damage this hour, no check (003:69).
    pub hustle_damage: u32,
    /// The forced-march check, past the 8th hour (003:92).
    pub check: Option<RolledCheck>,
    /// Nonlethal damage, or lethal for a ridden mount (003:94).
    pub kind: DamageKind,
    /// Damage of that kind it carries after this hour.
    pub carried: u32,
    /// Fatigued after this hour (003:69, 003:92, 003:94).
    pub fatigued: bool,
    /// Knocked out this hour: its nonlethal damage above its hit points (004:305, « On peut sombrer dans
    /// l'inconscience à force de marcher trop longtemps », 003:92), or a ridden mount's lethal damage taking
    /// it below 0, dying (004:277), or dead at -10 (004:282). It marches no further, and the party halts with
    /// it.
    pub knocked_out: bool,
}

/// Marches `journey` with the dice, member by member in the party's order (as [`Journey::daily_strain`]
/// lists them), day after day: the hours of each day the journey takes (every started hour pays), the rest
/// of each day's 24 hours spent at rest before the next (003:90), where nonlethal damage fades by the level
/// each hour (004:307) and a ridden mount's lethal damage heals by its level for the night (004:293).
/// A member's fatigue ends with its nonlethal damage (003:71); a ridden mount's, with the night's sleep.
/// The party halts at the hour a member falls (knocked out or dying): the others march no further.
pub fn march(journey: &Journey, marchers: &[Marcher], roll: &mut impl FnMut(u32) -> u32) -> Vec<Vec<MarchedHour>> {
    let per_day = journey.hours_per_day;
    let rest_hours = 24_u32.saturating_sub(per_day);
    // A ridden mount takes lethal damage (003:94), every other member nonlethal.
    let on_foot: Vec<bool> = (0..marchers.len())
        .map(|m| journey.daily_strain.first().and_then(|h| h.members.get(m)).map(|s| s.damage_kind))
        .map(|kind| kind != Some(DamageKind::Lethal))
        .collect();
    // What each member carries, and whether it is fatigued.
    let mut state = vec![(0_u32, false); marchers.len()];
    let mut out = vec![Vec::new(); marchers.len()];
    for day in 1..=journey.days {
        if day > 1 {
            for ((carried, fatigued), (marcher, on_foot)) in state.iter_mut().zip(marchers.iter().zip(&on_foot)) {
                let healed = if *on_foot { rest_hours.saturating_mul(marcher.level) } else { marcher.level };
                *carried = carried.saturating_sub(healed);
                *fatigued = *fatigued && *on_foot && *carried > 0;
            }
        }
        let before = f64::from(day - 1) * f64::from(per_day);
        let today = (journey.hours - before).min(f64::from(per_day)).ceil().max(0.0) as usize;
        for strain in journey.daily_strain.iter().take(today) {
            let mut halted = false;
            for (member, (marcher, (carried, fatigued))) in marchers.iter().zip(state.iter_mut()).enumerate() {
                let Some(planned) = strain.members.get(member) else { continue };
                let check = planned.forced_march.map(|check| {
                    let d20 = (!check.automatic_failure).then(|| roll(20));
                    let total = d20.map_or(0, |r| (r as i32).saturating_add(marcher.con));
                    let success = d20.is_some() && total >= check.dc as i32;
                    let damage = if success {
                        0
                    } else {
                        (0..FORCED_MARCH_DAMAGE.count).map(|_| roll(FORCED_MARCH_DAMAGE.sides)).sum()
                    };
                    RolledCheck { roll: d20, total, dc: check.dc, success, damage }
                });
                let damage = planned.hustle_damage.saturating_add(check.map_or(0, |c| c.damage));
                *carried = carried.saturating_add(damage);
                *fatigued |= damage > 0;
                // Nonlethal damage above its hit points knocks it out; lethal damage below 0 leaves it dying.
                let knocked_out = marcher.hit_points.is_some_and(|hp| i64::from(*carried) > i64::from(hp));
                halted |= knocked_out;
                out[member].push(MarchedHour {
                    day,
                    hour: strain.hour,
                    hustle_damage: planned.hustle_damage,
                    check,
                    kind: planned.damage_kind,
                    carried: *carried,
                    fatigued: *fatigued,
                    knocked_out,
                });
            }
            // The party halts where one of its members falls: nobody marches on past that hour.
            if halted {
                return out;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::overland::travel::{Conveyance, Goal, Pace, Terrain, Traveller, Way, plan_journey};

    fn dice(values: &[u32]) -> impl FnMut(u32) -> u32 + '_ {
        let mut next = values.iter();
        move |_| *next.next().expect("a forced die")
    }

    #[test]
    fn a_forced_march_rolls_each_hour_beyond_the_eighth_003_92() {
        // Ten hours' walk: the 9th hour DC 12 (11 + 1 = 12, made), the 10th DC 14 (5 + 1 = 6, failed:
        // 1d6 = 4 nonlethal, fatigued at once).
        let journey = plan_journey(
            &[Traveller::OnFoot { speed_m: 9.0 }],
            Pace::Walk,
            Terrain::Plains,
            Way::Road,
            Goal::Hours(10),
        )
        .unwrap();
        let marcher = Marcher { con: 1, hit_points: Some(10), level: 1 };
        let marched = march(&journey, &[marcher], &mut dice(&[11, 5, 4]));
        let hours = &marched[0];
        assert_eq!(hours.len(), 10);
        let ninth = hours[8].check.unwrap();
        assert_eq!((ninth.roll, ninth.total, ninth.dc, ninth.success, ninth.damage), (Some(11), 12, 12, true, 0));
        assert!(!hours[8].fatigued);
        let tenth = hours[9].check.unwrap();
        assert_eq!((tenth.total, tenth.dc, tenth.success, tenth.damage), (6, 14, false, 4));
        assert_eq!((hours[9].carried, hours[9].fatigued, hours[9].knocked_out), (4, true, false));
    }

    #[test]
    fn hustling_knocks_out_one_whose_nonlethal_damage_passes_its_hit_points_004_305() {
        // Hustle damage 0, 1, 2, 4 (003:69): 7 after the 4th hour, above 6 hit points.
        let journey = plan_journey(
            &[Traveller::OnFoot { speed_m: 9.0 }],
            Pace::Hustle,
            Terrain::Plains,
            Way::Road,
            Goal::Hours(6),
        )
        .unwrap();
        let marcher = Marcher { con: 0, hit_points: Some(6), level: 1 };
        let marched = march(&journey, &[marcher], &mut dice(&[]));
        let carried: Vec<u32> = marched[0].iter().map(|h| h.carried).collect();
        assert_eq!(carried, [0, 1, 3, 7]);
        assert!(marched[0][3].knocked_out && marched[0][1].fatigued);
    }

    #[test]
    fn a_ridden_mount_fails_without_a_roll_and_takes_lethal_damage_003_94() {
        let journey = plan_journey(
            &[Traveller::Mounted(Conveyance::LightHorse)],
            Pace::Walk,
            Terrain::Plains,
            Way::Road,
            Goal::Hours(9),
        )
        .unwrap();
        let marcher = Marcher { con: 5, hit_points: Some(10), level: 2 };
        let marched = march(&journey, &[marcher], &mut dice(&[3]));
        let ninth = marched[0][8];
        assert_eq!(ninth.check.map(|c| (c.roll, c.success, c.damage)), Some((None, false, 3)));
        // With 2 hit points it falls, dying (004:277), and a walker beside it halts with it.
        let party = [Traveller::Mounted(Conveyance::LightHorse), Traveller::OnFoot { speed_m: 9.0 }];
        let long = plan_journey(&party, Pace::Walk, Terrain::Plains, Way::Road, Goal::Hours(11)).unwrap();
        let frail = Marcher { con: 0, hit_points: Some(2), level: 1 };
        let marched_together = march(&long, &[frail, frail], &mut dice(&[3, 20]));
        assert!(marched_together[0][8].knocked_out);
        assert_eq!((marched_together[0].len(), marched_together[1].len()), (9, 9));
        assert_eq!(
            (ninth.kind, ninth.carried, ninth.fatigued, ninth.knocked_out),
            (DamageKind::Lethal, 3, true, false)
        );
    }

    #[test]
    fn the_nonlethal_damage_of_a_day_fades_in_the_rest_before_the_next_004_307() {
        // Ten hours a day for two days: the first day's 10th-hour failure (6) fades in the 14 hours of rest
        // (level 1), and its fatigue with it; the second day rolls afresh.
        let goal = Goal::Distance { metres: 90_000.0, hours_per_day: 10 };
        let journey =
            plan_journey(&[Traveller::OnFoot { speed_m: 9.0 }], Pace::Walk, Terrain::Plains, Way::Highway, goal)
                .unwrap();
        let marcher = Marcher { con: 0, hit_points: None, level: 1 };
        let marched = march(&journey, &[marcher], &mut dice(&[20, 1, 6, 20, 20]));
        let hours = &marched[0];
        assert_eq!(hours.len(), 20);
        assert_eq!((hours[9].carried, hours[9].fatigued), (6, true));
        assert_eq!((hours[10].day, hours[10].carried, hours[10].fatigued), (2, 0, false));
        assert_eq!((hours[19].carried, hours[19].fatigued), (0, false));
    }
}
