//! Whole battles without a window: the AI plays every side through the same steps a player makes, until
//! one side stands alone or a round limit passes. What `estoc simulate` and the battle benchmark run.

use crate::data::Encounter;
use crate::encounter::{begin, headless_app, spawn_encounter};
use crate::rules::command::{Command, perform};
use crate::rules::core::creature::{Condition, Conditions, CreatureId};
use crate::rules::core::facts::{EventLog, Fact};
use crate::rules::turns::TurnOrder;

/// Rounds after which a battle is called off.
pub const ROUND_LIMIT: u32 = 50;

/// Steps in one turn after which the AI's turn is ended for it.
const STEPS_PER_TURN: u32 = 8;

/// How a battle ended.
#[derive(Debug)]
pub struct Outcome {
    /// The faction left standing, if any.
    pub winner: Option<String>,
    /// Rounds played.
    pub rounds: u32,
    /// Every action taken.
    pub steps: Vec<Command>,
    /// The event log.
    pub log: EventLog,
    /// The creatures alive at the end, by id in order.
    pub alive: Vec<String>,
}

/// Plays `encounter` with `seed`, the AI on every side, in an app of its own.
pub fn battle(encounter: &Encounter, seed: u64) -> Outcome {
    Arena::new().battle(encounter, seed)
}

/// A headless app kept from one battle to the next: the rules' schedules are built once, and the level's
/// derived tables (kept with its map) are shared by every battle cloned from it. A battle in an arena
/// gives what a battle in a new app gives (tested).
pub struct Arena {
    app: bevy::app::App,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    /// An app with the rules; its schedules are built by the first battle.
    pub fn new() -> Self {
        Self { app: headless_app() }
    }

    /// Plays `encounter` with `seed`, the AI on every side.
    pub fn battle(&mut self, encounter: &Encounter, seed: u64) -> Outcome {
        forget_messages(self.app.world_mut());
        spawn_encounter(self.app.world_mut(), encounter, seed, &[]);
        begin(self.app.world_mut(), &encounter.name, seed);
        self.app.update();
        let steps = self.play();
        self.outcome(steps)
    }

    /// The AI's steps until the battle ends or the round limit passes.
    fn play(&mut self) -> Vec<Command> {
        let world = self.app.world_mut();
        let mut steps = Vec::new();
        let mut turn = None;
        let mut in_turn = 0;
        loop {
            let order = world.resource::<TurnOrder>();
            if order.ended || order.round > ROUND_LIMIT {
                break;
            }
            let Some(current) = order.current_entity() else { break };
            let now = Some((order.round, current));
            if turn != now {
                turn = now;
                in_turn = 0;
            }
            in_turn += 1;
            let step = if in_turn > STEPS_PER_TURN {
                let id = world.get::<CreatureId>(current).cloned();
                Command::EndTurn { creature: id.unwrap_or_default() }
            } else {
                crate::ai::next_step(world, current)
            };
            // The AI names only creatures of the fight.
            let _ = perform(world, &step);
            steps.push(step);
        }
        steps
    }

    /// What the battle just played came to.
    fn outcome(&mut self, steps: Vec<Command>) -> Outcome {
        let world = self.app.world_mut();
        let log = std::mem::take(&mut world.resource_mut::<EventLog>().0);
        let log = EventLog(log);
        let winner = log.0.iter().rev().find_map(|f| match f {
            Fact::EncounterEnded { winner } => winner.clone(),
            _ => None,
        });
        let rounds = world.resource::<TurnOrder>().round;
        let mut alive: Vec<String> = world
            .query::<(&CreatureId, &Conditions)>()
            .iter(world)
            .filter(|(_, c)| !c.has(Condition::Dead))
            .map(|(id, _)| id.0.clone())
            .collect();
        alive.sort();
        Outcome { winner, rounds, steps, log, alive }
    }
}

/// Drops the messages the last battle left unread or kept for a frame: a battle is played without
/// frames, so nothing else ages them.
fn forget_messages(world: &mut bevy::ecs::world::World) {
    use bevy::ecs::change_detection::Tick;
    use bevy::ecs::message::MessageRegistry;
    world.try_resource_scope(|world, mut registry: bevy::ecs::change_detection::Mut<MessageRegistry>| {
        // Each update drops the older of a message type's two buffers.
        registry.run_updates(world, Tick::new(0));
        registry.run_updates(world, Tick::new(0));
    });
}

thread_local! {
    /// The arena each thread plays its battles in.
    static ARENA: std::cell::RefCell<Arena> = std::cell::RefCell::new(Arena::new());
}

/// Plays the battles of `seeds` on `threads` threads at once, handing each outcome to `each` in the
/// order of the seeds: the same results whatever the number of threads. Battles are played a few per
/// thread at a time, so that outcomes do not pile up in memory.
pub fn battles(
    encounter: &Encounter,
    seeds: std::ops::RangeInclusive<u64>,
    threads: usize,
    mut each: impl FnMut(Outcome),
) -> Result<(), String> {
    use rayon::prelude::*;
    let threads = threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let batch = (threads * 4) as u64;
    let (mut next, last) = (*seeds.start(), *seeds.end());
    while next <= last {
        let end = next.saturating_add(batch - 1).min(last);
        let chunk: Vec<u64> = (next..=end).collect();
        let outcomes: Vec<Outcome> = pool.install(|| {
            chunk.par_iter().map(|&seed| ARENA.with_borrow_mut(|arena| arena.battle(encounter, seed))).collect()
        });
        outcomes.into_iter().for_each(&mut each);
        match end.checked_add(1) {
            Some(n) => next = n,
            None => break,
        }
    }
    Ok(())
}

/// What a run of battles gives a designer: each side's win rate with its 95% interval, how long battles
/// last, who usually survives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Battles counted.
    pub battles: u64,
    /// Battles won by each side; `None` for the battles no side won (the sides parted, or the round limit).
    pub wins: std::collections::BTreeMap<Option<String>, u64>,
    /// The length of each battle, in rounds.
    pub rounds: Vec<u32>,
    /// For each creature, the battles it ended alive.
    pub survived: std::collections::BTreeMap<String, u64>,
}

/// The 95% Wilson score interval of a proportion of `successes` in `trials`: good at small counts and
/// near 0 and 1, where the normal approximation is not.
pub fn wilson_interval(successes: u64, trials: u64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let (n, p) = (trials as f64, successes as f64 / trials as f64);
    let z = 1.959_963_984_540_054_f64;
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

impl Tally {
    /// Counts one battle.
    pub fn add(&mut self, outcome: &Outcome) {
        self.battles += 1;
        *self.wins.entry(outcome.winner.clone()).or_default() += 1;
        self.rounds.push(outcome.rounds);
        for id in &outcome.alive {
            *self.survived.entry(id.clone()).or_default() += 1;
        }
    }

    /// The win rate of `side` and its 95% interval.
    pub fn win_rate(&self, side: Option<&str>) -> (f64, (f64, f64)) {
        let won = self.wins.get(&side.map(str::to_string)).copied().unwrap_or(0);
        (won as f64 / self.battles.max(1) as f64, wilson_interval(won, self.battles))
    }

    /// The median length of a battle, in rounds.
    pub fn median_rounds(&self) -> f64 {
        let mut rounds = self.rounds.clone();
        rounds.sort_unstable();
        match rounds.len() {
            0 => 0.0,
            n if n % 2 == 1 => f64::from(rounds[n / 2]),
            n => f64::from(rounds[n / 2 - 1] + rounds[n / 2]) / 2.0,
        }
    }

    /// How many battles lasted each number of rounds, the shortest first.
    pub fn lengths(&self) -> Vec<(u32, u64)> {
        let mut counts: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
        for r in &self.rounds {
            *counts.entry(*r).or_default() += 1;
        }
        counts.into_iter().collect()
    }

    /// The tally in words, as `estoc simulate` prints it.
    pub fn report(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        for (side, won) in &self.wins {
            let (rate, (low, high)) = self.win_rate(side.as_deref());
            let name = side.as_deref().unwrap_or("nobody (the sides parted, or the round limit)");
            let _ = writeln!(
                out,
                "  {name}: {won} ({:.0}%, 95% interval {:.0}%-{:.0}%)",
                rate * 100.0,
                low * 100.0,
                high * 100.0
            );
        }
        let _ = writeln!(
            out,
            "  length: median {:.1} rounds, mean {:.1}",
            self.median_rounds(),
            self.rounds.iter().map(|r| f64::from(*r)).sum::<f64>() / self.battles.max(1) as f64
        );
        let most = self.lengths().iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
        for (rounds, n) in self.lengths() {
            let bar = "#".repeat(((n * 30).div_ceil(most)) as usize);
            let _ = writeln!(out, "    {rounds:>3} rounds {bar} {n}");
        }
        let mut survivors: Vec<(&String, &u64)> = self.survived.iter().collect();
        survivors.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        let list: Vec<String> = survivors
            .iter()
            .map(|(id, n)| format!("{id} {:.0}%", **n as f64 * 100.0 / self.battles.max(1) as f64))
            .collect();
        let _ = writeln!(out, "  alive at the end: {}", list.join(", "));
        out
    }
}

/// How far a background run of battles has gone.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// What the battles played so far give.
    pub tally: Tally,
    /// How many battles the run plays.
    pub planned: u64,
    /// Every planned battle is played (or the run stopped on an error).
    pub finished: bool,
    /// Why the run stopped early.
    pub error: Option<String>,
}

/// Battles played on other threads while the caller goes on (the editor's odds): the tally grows as
/// they end; dropping the run stops it after the battles under way. The seeds are 1 to `planned`, so the
/// same level gives the same figures.
pub struct Background {
    progress: std::sync::Arc<std::sync::Mutex<Progress>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Background {
    /// Starts `planned` battles of `encounter` on `threads` threads.
    pub fn start(encounter: Encounter, planned: u64, threads: usize) -> Background {
        use std::sync::atomic::Ordering;
        let progress = std::sync::Arc::new(std::sync::Mutex::new(Progress { planned, ..Progress::default() }));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (shared, stopped) = (progress.clone(), stop.clone());
        let work = move || {
            let batch = (threads.max(1) * 2) as u64;
            let mut next = 1;
            while next <= planned && !stopped.load(Ordering::Relaxed) {
                let last = (next + batch - 1).min(planned);
                let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    battles(&encounter, next..=last, threads, |outcome| {
                        if let Ok(mut p) = shared.lock() {
                            p.tally.add(&outcome);
                        }
                    })
                }));
                let error = match played {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(e),
                    Err(_) => Some(format!("a battle with seed {next} to {last} stopped the simulator")),
                };
                if let Some(error) = error {
                    if let Ok(mut p) = shared.lock() {
                        p.error = Some(error);
                    }
                    break;
                }
                next = last + 1;
            }
            if let Ok(mut p) = shared.lock() {
                p.finished = true;
            }
        };
        if let Err(e) = std::thread::Builder::new().name("odds".into()).spawn(work)
            && let Ok(mut p) = progress.lock()
        {
            p.error = Some(format!("cannot start the simulator: {e}"));
            p.finished = true;
        }
        Background { progress, stop }
    }

    /// The figures so far.
    pub fn progress(&self) -> Progress {
        self.progress.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wilson_interval_has_its_textbook_values() {
        let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-6 && (a.1 - b.1).abs() < 1e-6;
        assert!(close(wilson_interval(45, 100), (0.356_145_38, 0.547_553_97)), "{:?}", wilson_interval(45, 100));
        assert!(close(wilson_interval(0, 10), (0.0, 0.277_532_80)), "{:?}", wilson_interval(0, 10));
        assert!(close(wilson_interval(10, 10), (0.722_467_20, 1.0)), "{:?}", wilson_interval(10, 10));
        assert!(close(wilson_interval(1, 2), (0.094_531_21, 0.905_468_79)), "{:?}", wilson_interval(1, 2));
    }

    #[test]
    fn a_tally_counts_wins_lengths_and_survivors() {
        let outcome = |winner: Option<&str>, rounds: u32, alive: &[&str]| Outcome {
            winner: winner.map(str::to_string),
            rounds,
            steps: Vec::new(),
            log: EventLog::default(),
            alive: alive.iter().map(|s| s.to_string()).collect(),
        };
        let mut tally = Tally::default();
        for o in [
            outcome(Some("heroes"), 3, &["fighter"]),
            outcome(Some("heroes"), 5, &["fighter", "archer"]),
            outcome(Some("goblins"), 4, &["goblin-1"]),
            outcome(None, 50, &["fighter", "goblin-1"]),
        ] {
            tally.add(&o);
        }
        assert_eq!(tally.battles, 4);
        assert_eq!(tally.win_rate(Some("heroes")).0, 0.5);
        assert_eq!(tally.win_rate(None).0, 0.25);
        assert_eq!(tally.median_rounds(), 4.5);
        assert_eq!(tally.lengths(), vec![(3, 1), (4, 1), (5, 1), (50, 1)]);
        assert_eq!(tally.survived.get("fighter"), Some(&3));
        let report = tally.report();
        assert!(report.contains("heroes: 2 (50%, 95% interval 15%-85%)"), "{report}");
        assert!(report.contains("alive at the end: fighter 75%, goblin-1 50%, archer 25%"), "{report}");
    }

    #[test]
    fn a_battle_in_an_arena_gives_what_a_battle_in_a_new_app_gives() {
        let content = crate::data::Content::load(&crate::data::assets_dir()).unwrap();
        let level = |name: &str| crate::data::load_level(&crate::data::levels_dir().join(name), &content).unwrap();
        let mut arena = Arena::new();
        // Levels one after another in one arena, some twice, with riders, fliers, undead and water.
        for (name, seed) in [
            ("skirmish.ron", 1),
            ("brawl.ron", 2),
            ("skirmish.ron", 3),
            ("crypt.ron", 1),
            ("ford.ron", 4),
            ("raid.ron", 1),
            ("roost.ron", 1),
            ("skirmish.ron", 1),
        ] {
            let level = level(name);
            let again = arena.battle(&level, seed);
            let fresh = battle(&level, seed);
            assert_eq!(again.steps, fresh.steps, "{name}, seed {seed}");
            assert_eq!(again.log.0, fresh.log.0, "{name}, seed {seed}");
            assert_eq!((again.winner, again.rounds, again.alive), (fresh.winner, fresh.rounds, fresh.alive));
        }
    }

    #[test]
    fn battles_in_the_background_give_what_the_foreground_gives() {
        let content = crate::data::Content::load(&crate::data::assets_dir()).unwrap();
        let encounter = crate::data::load_level(&crate::data::levels_dir().join("skirmish.ron"), &content).unwrap();
        let run = Background::start(encounter.clone(), 6, 2);
        let mut waited = 0;
        while !run.progress().finished {
            std::thread::sleep(std::time::Duration::from_millis(20));
            waited += 1;
            assert!(waited < 3000, "six battles in a minute");
        }
        let progress = run.progress();
        assert_eq!(progress.error, None);
        let mut tally = Tally::default();
        battles(&encounter, 1..=6, 1, |o| tally.add(&o)).unwrap();
        assert_eq!(progress.tally, tally);
    }
}
