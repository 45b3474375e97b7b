//! The command line: `estoc` (play the default level), `estoc play`, `check`, `sheet`, `run`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::data::{Content, Diagnostics, level::check_level, load_level};
use crate::scenario::{load_scenario, run_scenario};

/// Prints on standard output; a reader that closed the pipe (`estoc run … | head`) ends the program quietly
/// instead of a panic.
macro_rules! print {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(error) = write!(std::io::stdout().lock(), $($arg)*)
            && error.kind() == std::io::ErrorKind::BrokenPipe
        {
            std::process::exit(0);
        }
    }};
}

/// [`print!`] with a new line.
macro_rules! println {
    ($($arg:tt)*) => {{
        print!("{}\n", format_args!($($arg)*));
    }};
}

/// The level played when none is named.
pub const DEFAULT_LEVEL: &str = "levels/crossroads.ron";

/// Estoc: d20 tactical combat on a square grid.
#[derive(Parser, Debug)]
#[command(name = "estoc", version, about)]
pub struct Cli {
    /// What to do; plays the default level when absent.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The window's language, `en` or `fr` (default: the one chosen in the menu, else English); the
    /// headless commands write English.
    #[arg(long, global = true, value_parser = parse_language)]
    pub lang: Option<crate::locale::Language>,
}

fn parse_language(code: &str) -> Result<crate::locale::Language, String> {
    crate::locale::Language::from_code(code).ok_or_else(|| {
        let codes: Vec<&str> = crate::locale::Language::ALL.iter().map(|l| l.code()).collect();
        format!("{code}: not a language of the game ({})", codes.join(", "))
    })
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play a level in a window.
    Play {
        /// The level file (default: levels/crossroads.ron).
        level: Option<PathBuf>,
        /// Seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Save a screenshot of the window to this PNG after the first frames, then exit.
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Frames to wait before the screenshot.
        #[arg(long, default_value_t = 30)]
        frames: u32,
        /// Drive the window with a script of mouse moves, clicks, keys, waits and screenshots (see
        /// docs/scripts.md), then write the final state as JSON and exit.
        #[arg(long)]
        script: Option<PathBuf>,
        /// Where the script writes the final state (standard output by default).
        #[arg(long)]
        state: Option<PathBuf>,
        /// Restart the battle when the level or a template changes (always on with the `dev` feature).
        #[arg(long)]
        watch: bool,
    },
    /// Play whole battles headless, the AI on every side, and print who won.
    Simulate {
        /// The level file.
        level: PathBuf,
        /// How many battles, with seeds from --seed upward.
        #[arg(long, default_value_t = 100)]
        battles: u64,
        /// The first seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print each battle's event log as JSON lines instead of the tally.
        #[arg(long)]
        log: bool,
        /// Threads playing battles at once (all the cores by default); the results are the same whatever
        /// the number.
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Validate levels, templates and scenarios; print every error; fail on any.
    Check {
        /// Level or scenario files (levels/*.ron, tests/scenarios/*.ron); the assets are always checked.
        files: Vec<PathBuf>,
    },
    /// Print a creature's derived sheet: a template by name, or a creature of a level with --level.
    Sheet {
        /// Template name (file stem under assets/creatures/) or, with --level, a creature id.
        name: String,
        /// A level whose creature to show.
        #[arg(long)]
        level: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the rules texts' own words a citation points at: `estoc rule 004:259`, `estoc rule 000:139-144`
    Rule {
        /// One or more citations (any words holding them).
        citations: Vec<String>,
    },
    /// Overland travel (003): how far, how long and at what cost a party goes. Without --walker, --mount nor
    /// --led, one walker of 9 m; without --km nor --hours, one day of --hours-per-day hours.
    #[command(visible_alias = "overland")]
    Travel {
        /// Land speed in metres of each walker of the party (e.g. --walker 9 --walker 6).
        #[arg(long = "walker")]
        walkers: Vec<f64>,
        /// Mounts ridden or vehicles of the party (light-horse, heavy-horse-loaded, pony, cart-or-wagon, …).
        #[arg(long = "mount")]
        mounts: Vec<String>,
        /// Mounts or pack animals led, no rider on their backs: nonlethal damage, checks rolled (003:94).
        #[arg(long = "led")]
        led: Vec<String>,
        /// walk, hustle or run.
        #[arg(long, default_value = "walk")]
        pace: String,
        /// plains, hills, forest, jungle, swamp, mountains, sandy-desert, brush, frozen-tundra.
        #[arg(long, default_value = "plains")]
        terrain: String,
        /// highway, road, trail or trackless.
        #[arg(long, default_value = "road")]
        way: String,
        /// Distance to cover, in kilometres.
        #[arg(long, conflicts_with = "hours")]
        km: Option<f64>,
        /// Whole hours to travel, in one stretch without sleep (a started hour is marched).
        #[arg(long)]
        hours: Option<u32>,
        /// Hours of travel a day for a distance.
        #[arg(long, default_value_t = 8)]
        hours_per_day: u32,
        /// Print the movement table (003:4-19) for the --walker speeds, or the text's four speeds.
        #[arg(long, conflicts_with_all = ["km", "hours", "mounts", "led", "seed"])]
        table: bool,
        /// March the journey with the dice of this seed: forced-march checks rolled, damage thrown, fatigue
        /// and unconsciousness as they come (without it, the plan: what each hour may cost).
        #[arg(long)]
        seed: Option<u64>,
        /// The Constitution modifier of every member, for its forced-march checks (003:92).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        con: i32,
        /// The hit points of every member: one whose nonlethal damage passes them falls unconscious (004:305).
        #[arg(long)]
        hp: Option<i32>,
        /// The level (hit dice) of every member: nonlethal damage fades by it each hour of rest (004:307).
        #[arg(long, default_value_t = 1)]
        level: u32,
    },
    /// A voyage by boat (003:110-117, 003:122): a craft's speed on the sea, a lake, down or up a river, and the
    /// time a distance takes.
    Voyage {
        /// The craft: raft-or-barge, keelboat, rowboat, sailing-ship, warship, longship, galley.
        #[arg(long)]
        craft: String,
        /// sea, lake, downstream or upstream.
        #[arg(long, default_value = "lake")]
        water: String,
        /// Downstream, the current in metres an hour (the text's typical 4,500 m/h if not given, 003:122).
        #[arg(long)]
        current: Option<f64>,
        /// Upstream, towed from the bank by draft animals (003:122).
        #[arg(long)]
        towed: bool,
        /// Downstream, left to drift the rest of the day, someone steering (003:122).
        #[arg(long)]
        drift: bool,
        /// Distance to cover, in kilometres.
        #[arg(long)]
        km: Option<f64>,
    },
    /// Evasion and pursuit (003:124-130): who gets away, by speed, or at the same speed by opposed Dexterity
    /// checks after a few rounds (Constitution checks in a chase lasting all day), rolled with the seed.
    Chase {
        /// The pursuer's speed in metres; round by round both run, ×4 (003:9-10, 003:126).
        #[arg(long)]
        pursuer: f64,
        /// The quarry's speed, in metres.
        #[arg(long)]
        quarry: f64,
        /// The pursuer runs in heavy armour or under a heavy load: ×3 (003:10).
        #[arg(long)]
        pursuer_heavy: bool,
        /// The quarry runs in heavy armour or under a heavy load: ×3 (003:10).
        #[arg(long)]
        quarry_heavy: bool,
        /// A chase lasting all day, the sides glimpsing each other now and then: Constitution decides.
        #[arg(long)]
        all_day: bool,
        /// The pursuer's Dexterity modifier (its Constitution modifier with --all-day).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        pursuer_modifier: i32,
        /// The quarry's Dexterity modifier (its Constitution modifier with --all-day).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
        quarry_modifier: i32,
        /// The gap between them, in metres: how many rounds a faster pursuer needs to close it.
        #[arg(long)]
        gap: Option<f64>,
        /// The pursuer's Constitution score: the rounds it runs before checks to keep running (004:249).
        #[arg(long, default_value_t = 10)]
        pursuer_con: u32,
        /// The seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Edit a level in the window (see docs/editing.md): paint terrain, put walls, place creatures, see the
    /// problems and the odds, play it, save it.
    Edit {
        /// The level file to open, or to create with --new.
        level: Option<PathBuf>,
        /// A new map of this size, such as 30x20, saved to LEVEL (default: levels/new-level.ron).
        #[arg(long, value_name = "WIDTHxHEIGHT")]
        new: Option<String>,
        /// Drive the window with a script (see docs/scripts.md), then write the final state as JSON and exit.
        #[arg(long)]
        script: Option<PathBuf>,
        /// Where the script writes the final state (standard output by default).
        #[arg(long)]
        state: Option<PathBuf>,
    },
    /// Make a level of a map drawn in the Tiled editor (.tmx, or .tmj in JSON; see docs/editing.md for the convention).
    Import {
        /// The Tiled map.
        map: PathBuf,
        /// The level file to write (levels/NAME.ron).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Lay level files out as the editor writes them (one key, row, edge, side and creature a line).
    Fmt {
        /// Level files.
        files: Vec<PathBuf>,
        /// Change nothing; fail if a file is not laid out so.
        #[arg(long)]
        check: bool,
    },
    /// Run a scenario headless and print the event log as JSON lines.
    Run {
        /// The scenario file.
        scenario: PathBuf,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Also check the scenario's expected facts; fail if one is missing.
        #[arg(long)]
        check: bool,
    },
}

/// Runs the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let default_play =
        Command::Play { level: None, seed: 1, screenshot: None, frames: 30, script: None, state: None, watch: false };
    match cli.command.unwrap_or(default_play) {
        Command::Play { level, seed, screenshot, frames, script, state, watch } => {
            let capture = screenshot.map(|path| crate::game::CaptureRequest { path, after_frames: frames });
            let script = match script.map(|path| crate::game::script::load_script(&path)).transpose() {
                Ok(script) => script.map(|def| (def, state)),
                Err(problem) => {
                    eprintln!("{problem}");
                    return ExitCode::FAILURE;
                }
            };
            crate::game::run(crate::game::Launch {
                level,
                seed,
                capture,
                script,
                watch,
                edit: None,
                language: cli.lang,
            })
        }
        Command::Edit { level, new, script, state } => edit(level, new.as_deref(), (script, state), cli.lang),
        Command::Fmt { files, check } => fmt(&files, check),
        Command::Import { map, output } => import(&map, &output),
        Command::Simulate { level, battles, seed, log, threads } => simulate(&level, (battles, seed), log, threads),
        Command::Check { files } => check(&files),
        Command::Sheet { name, level, json } => sheet(&name, level.as_deref(), json),
        Command::Run { scenario, seed, check } => run(&scenario, seed, check),
        Command::Rule { citations } => rule(&citations.join(" ")),
        Command::Travel { table: true, walkers, .. } => travel_table(&walkers),
        Command::Chase {
            pursuer,
            quarry,
            pursuer_heavy,
            quarry_heavy,
            all_day,
            pursuer_modifier,
            quarry_modifier,
            gap,
            pursuer_con,
            seed,
        } => {
            // Round by round the sides count squares (003:126): speeds of whole squares of 1.5 m.
            let squares = |m: f64| (m / 1.5 - (m / 1.5).round()).abs() < 1e-9;
            if !(all_day || squares(pursuer) && squares(quarry)) {
                eprintln!("estoc chase: round by round speeds are counted in squares of 1.5 m (003:126)");
                return ExitCode::FAILURE;
            }
            // Round by round both run, counting squares (003:126): ×4, ×3 in heavy armour or load (003:10); all
            // day long the speeds decide nothing (003:130).
            let run = |speed: f64, heavy: bool| {
                if all_day {
                    return speed;
                }
                use crate::rules::overland::travel::{Burden, Pace, round_multiplier};
                let burden = if heavy { Burden::Heavy } else { Burden::Normal };
                speed * f64::from(round_multiplier(Pace::Run, burden))
            };
            let (pursuer, quarry) = (run(pursuer, pursuer_heavy), run(quarry, quarry_heavy));
            chase((pursuer, pursuer_modifier), (quarry, quarry_modifier), all_day, (gap, pursuer_con), seed)
        }
        Command::Voyage { craft, water, current, towed, drift, km } => {
            voyage(&craft, &water, (current, towed, drift), km)
        }
        Command::Travel {
            walkers,
            mounts,
            led,
            pace,
            terrain,
            way,
            km,
            hours,
            hours_per_day,
            seed,
            con,
            hp,
            level,
            ..
        } => {
            let marcher = crate::rules::overland::march::Marcher { con, hit_points: hp, level };
            travel((&walkers, &mounts, &led), (&pace, &terrain, &way), (km, hours, hours_per_day), (seed, marcher))
        }
    }
}

/// `estoc rule`: the lines each citation points at, in the texts' own words.
fn rule(words: &str) -> ExitCode {
    let cited = crate::rules_text::citations(words);
    if cited.is_empty() {
        let counts: Vec<String> =
            crate::rules_text::line_counts().iter().map(|(n, c)| format!("{n} ({c} lines)")).collect();
        eprintln!(
            "estoc rule: no citation in {words:?}; cite a text and its lines, as 004:259 or 000:139-144: {}",
            counts.join(", ")
        );
        return ExitCode::FAILURE;
    }
    let mut ok = true;
    for citation in cited {
        println!("{citation}");
        match crate::rules_text::lines_of(citation) {
            Some(lines) => lines.iter().for_each(|l| println!("  {l}")),
            None => {
                eprintln!("  the text has no such lines");
                ok = false;
            }
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `estoc chase`: who wins a pursuit (003:124-130), the opposed checks rolled with the seeded dice.
fn chase(
    (pursuer, pursuer_mod): (f64, i32),
    (quarry, quarry_mod): (f64, i32),
    all_day: bool,
    (gap, pursuer_con): (Option<f64>, u32),
    seed: u64,
) -> ExitCode {
    use crate::rules::overland::travel::{
        Chase, ChaseAbility, ChaseOutcome, ChaseScale, CheckResult, ROUNDS_BEFORE_CHASE_CHECK, chase,
        resolve_chase_check, rounds_to_catch,
    };
    if !(pursuer.is_finite() && quarry.is_finite() && pursuer > 0.0 && quarry > 0.0) {
        eprintln!("estoc chase: the speeds must be positive numbers");
        return ExitCode::FAILURE;
    }
    let scale = if all_day { ChaseScale::AllDay } else { ChaseScale::RoundByRound };
    if all_day {
        println!("pursuer {} m, quarry {} m", decimal(pursuer, 3), decimal(quarry, 3));
    } else {
        println!("pursuer runs {} m a round, quarry {} m", decimal(pursuer, 3), decimal(quarry, 3));
    }
    match chase(pursuer, quarry, scale) {
        Chase::PursuerCatchesUp => {
            println!("the pursuer is faster: it runs the quarry down (003:126)");
            if let Some(rounds) = gap.and_then(|g| rounds_to_catch(g, pursuer, quarry)) {
                println!(
                    "it closes the gap of {} m in {rounds} rounds, gaining {} m a round",
                    decimal(gap.unwrap_or(0.0), 3),
                    decimal(pursuer - quarry, 3)
                );
                // A runner runs its Constitution score's rounds, then must pass a check each round to run on
                // (DC 10, one more each round, 004:249, 003:61).
                if rounds > pursuer_con {
                    println!(
                        "  if it can run that long: after {pursuer_con} rounds (its Constitution) it checks Con DC 10, \
                         +1 each round, to run on, and rests a minute on a failure (004:249); by then it has closed {} m",
                        decimal((pursuer - quarry) * f64::from(pursuer_con), 3)
                    );
                }
            }
        }
        Chase::QuarryEscapes => println!("the quarry is faster: it gets away (003:126)"),
        Chase::OpposedCheck(ability) => {
            let (name, rule) = match ability {
                ChaseAbility::Dexterity => {
                    println!(
                        "the same speed: the chase goes on {ROUNDS_BEFORE_CHASE_CHECK} rounds, then opposed Dexterity checks (003:128)"
                    );
                    ("Dexterity", "003:128")
                }
                ChaseAbility::Constitution => {
                    println!("a chase all day long: opposed Constitution checks decide who keeps its pace (003:130)");
                    ("Constitution", "003:130")
                }
            };
            let mut dice = crate::rules::core::dice::Dice::seeded(seed);
            loop {
                let (q, p) = (dice.d20(), dice.d20());
                let quarry_check = CheckResult { total: q as i32 + quarry_mod, modifier: quarry_mod };
                let pursuer_check = CheckResult { total: p as i32 + pursuer_mod, modifier: pursuer_mod };
                println!(
                    "quarry {name} d20 {q} {quarry_mod:+} = {}, pursuer d20 {p} {pursuer_mod:+} = {}",
                    quarry_check.total, pursuer_check.total
                );
                match resolve_chase_check(quarry_check, pursuer_check) {
                    ChaseOutcome::QuarryEscapes => {
                        println!("the quarry gets away ({rule})");
                        break;
                    }
                    ChaseOutcome::PursuerCatchesUp => {
                        println!("the pursuer catches it ({rule})");
                        break;
                    }
                    ChaseOutcome::RollOff => println!("a tie, the modifiers too: rolled again"),
                }
            }
        }
    }
    ExitCode::SUCCESS
}

/// `estoc import`: a Tiled map made a level, written, then checked as every level is.
fn import(map: &Path, output: &Path) -> ExitCode {
    let Ok(content) = load_content() else { return ExitCode::FAILURE };
    let draft = match crate::data::tiled::import(map) {
        Ok(draft) => draft,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = draft.save(output) {
        eprintln!("{}: cannot write: {e}", output.display());
        return ExitCode::FAILURE;
    }
    match draft.check(output, &content) {
        Ok(level) => {
            println!(
                "{}: {:?}, {}x{} squares, {} creatures",
                output.display(),
                level.name,
                level.battlefield.width(),
                level.battlefield.height(),
                level.creatures.len()
            );
            ExitCode::SUCCESS
        }
        Err(problems) => {
            eprintln!("{} was written, but as a draft to finish in the editor:", output.display());
            report(&problems);
            ExitCode::FAILURE
        }
    }
}

/// `estoc fmt`: each level laid out as the editor writes it, after checking that the layout changes
/// nothing of the level (the same checked encounter).
fn fmt(files: &[PathBuf], check_only: bool) -> ExitCode {
    let Ok(content) = load_content() else { return ExitCode::FAILURE };
    let mut failed = false;
    for file in files {
        let draft = match crate::data::draft::Draft::read(file) {
            Ok(draft) => draft,
            Err(problem) => {
                eprintln!("{problem}");
                failed = true;
                continue;
            }
        };
        let text = draft.text();
        if std::fs::read_to_string(file).is_ok_and(|old| old == text) {
            continue;
        }
        let same = match (load_level(file, &content), check_level(file, &text, &content)) {
            (Ok(old), Ok(new)) => old == new,
            (Err(_), Err(_)) => true,
            _ => false,
        };
        if !same {
            eprintln!("{}: laid out again it would not be the same level; left as it is", file.display());
            failed = true;
        } else if check_only {
            eprintln!("{}: not laid out as the editor writes it (estoc fmt)", file.display());
            failed = true;
        } else if let Err(e) = crate::data::draft::write_atomically(file, &text) {
            eprintln!("{}: {e}", file.display());
            failed = true;
        } else {
            println!("{}", file.display());
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// `estoc edit`: the editor on a level, or on a new map.
fn edit(
    level: Option<PathBuf>,
    new: Option<&str>,
    (script, state): (Option<PathBuf>, Option<PathBuf>),
    language: Option<crate::locale::Language>,
) -> ExitCode {
    let request = match (new, level) {
        (Some(size), path) => {
            let parsed = size.split_once(['x', 'X']).and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
            let Some((width, height)) = parsed else {
                eprintln!("--new {size}: give the size as WIDTHxHEIGHT, such as 30x20");
                return ExitCode::FAILURE;
            };
            crate::game::editor::EditRequest::New {
                width,
                height,
                path: path.unwrap_or_else(crate::game::editor::new_level_path),
            }
        }
        (None, Some(path)) => crate::game::editor::EditRequest::Open(path),
        (None, None) => {
            eprintln!("estoc edit LEVEL, or estoc edit --new WIDTHxHEIGHT [LEVEL]");
            return ExitCode::FAILURE;
        }
    };
    let script = match script.map(|path| crate::game::script::load_script(&path)).transpose() {
        Ok(script) => script.map(|def| (def, state)),
        Err(problem) => {
            eprintln!("{problem}");
            return ExitCode::FAILURE;
        }
    };
    crate::game::run(crate::game::Launch {
        level: None,
        seed: 1,
        capture: None,
        script,
        watch: false,
        edit: Some(request),
        language,
    })
}

fn simulate(level: &Path, (battles, seed): (u64, u64), log: bool, threads: Option<usize>) -> ExitCode {
    let Ok(content) = load_content() else { return ExitCode::FAILURE };
    let encounter = match crate::data::load_level(level, &content) {
        Ok(encounter) => encounter,
        Err(problems) => {
            report(&problems);
            return ExitCode::FAILURE;
        }
    };
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1);
    let Some(last) = seed.checked_add(battles.saturating_sub(1)).filter(|_| battles > 0) else {
        eprintln!("error: --battles must be at least 1, and the seeds must stay within 64 bits");
        return ExitCode::FAILURE;
    };
    // A progress bar on the terminal for long runs (hidden when the error stream is not a terminal).
    let bar = if battles >= 50 { indicatif::ProgressBar::new(battles) } else { indicatif::ProgressBar::hidden() };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} battles, {per_sec}, {eta} left")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let mut tally = crate::simulate::Tally::default();
    let run = crate::simulate::battles(&encounter, seed..=last, threads, |outcome| {
        bar.inc(1);
        if log {
            print!("{}", outcome.log.to_json_lines());
        }
        tally.add(&outcome);
    });
    bar.finish_and_clear();
    if let Err(problem) = run {
        eprintln!("error: {problem}");
        return ExitCode::FAILURE;
    }
    if !log {
        println!("{battles} battles of {} (seeds {seed}..{last}):", encounter.name);
        print!("{}", tally.report());
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{battles} battles in {seconds:.2} s: {:.1} battles a second on {threads} thread{}",
        battles as f64 / seconds.max(1e-9),
        if threads == 1 { "" } else { "s" }
    );
    ExitCode::SUCCESS
}

fn load_content() -> Result<Content, ExitCode> {
    Content::load(&crate::data::assets_dir()).map_err(|problems| {
        eprintln!("{problems}");
        ExitCode::FAILURE
    })
}

fn report(problems: &Diagnostics) {
    eprintln!("{problems}");
}

fn check(files: &[PathBuf]) -> ExitCode {
    let content = match Content::load(&crate::data::assets_dir()) {
        Ok(content) => {
            println!("ok: assets ({} templates, {} weapons)", content.templates.len(), content.weapons.len());
            content
        }
        Err(problems) => {
            report(&problems);
            return ExitCode::FAILURE;
        }
    };
    let mut failed = 0;
    for file in files {
        match check_file(file, &content) {
            Ok(summary) => println!("ok: {} ({summary})", file.display()),
            Err(problems) => {
                failed += 1;
                report(&problems);
            }
        }
    }
    if failed > 0 {
        eprintln!("{failed} of {} files have errors", files.len());
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Checks a level or a scenario file (a scenario also checks its level).
pub fn check_file(file: &Path, content: &Content) -> Result<String, Diagnostics> {
    let text = crate::data::diagnostics::read_file(file).map_err(|d| Diagnostics(vec![d]))?;
    if text.contains("steps:") {
        let scenario = load_scenario(file)?;
        let level = crate::scenario::level_path(file, &scenario.level)?;
        let encounter = load_level(&level, content)?;
        Ok(format!("scenario of {} steps on {:?}", scenario.steps.len(), encounter.name))
    } else {
        let encounter = check_level(file, &text, content)?;
        Ok(format!(
            "{:?}, {}x{} squares, {} creatures",
            encounter.name,
            encounter.battlefield.width(),
            encounter.battlefield.height(),
            encounter.creatures.len()
        ))
    }
}

fn sheet(name: &str, level: Option<&Path>, json: bool) -> ExitCode {
    let content = match load_content() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (stats, conditions) = match level {
        Some(level) => match load_level(level, &content) {
            Ok(encounter) => match encounter.creatures.iter().find(|c| c.id.0 == name) {
                Some(c) => (c.stats.clone(), c.conditions.clone()),
                None => {
                    let ids: Vec<&str> = encounter.creatures.iter().map(|c| c.id.0.as_str()).collect();
                    eprintln!("{}: no creature {name:?} (creatures: {})", level.display(), ids.join(", "));
                    return ExitCode::FAILURE;
                }
            },
            Err(problems) => {
                report(&problems);
                return ExitCode::FAILURE;
            }
        },
        None => match content.templates.get(name) {
            Some((_, template)) => match content.stats(template, &Default::default()) {
                Ok(stats) => (stats, Vec::new()),
                Err(problems) => {
                    for (_, message) in problems {
                        eprintln!("{name}: {message}");
                    }
                    return ExitCode::FAILURE;
                }
            },
            None => {
                let names: Vec<&str> = content.templates.keys().map(String::as_str).collect();
                eprintln!("no template {name:?} (templates: {})", names.join(", "));
                return ExitCode::FAILURE;
            }
        },
    };
    let sheet = stats.sheet_in(&conditions);
    if json {
        println!("{}", serde_json::to_string_pretty(&sheet).expect("sheets serialise"));
    } else {
        print!("{}", format_sheet(&stats.name, &sheet));
    }
    ExitCode::SUCCESS
}

pub use crate::rules::core::creature::format_sheet;

fn run(path: &Path, seed: Option<u64>, check: bool) -> ExitCode {
    let content = match load_content() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let scenario = match load_scenario(path) {
        Ok(s) => s,
        Err(problems) => {
            report(&problems);
            return ExitCode::FAILURE;
        }
    };
    match run_scenario(path, &scenario, &content, seed) {
        Ok(output) => {
            for line in &output.lines {
                println!("{line}");
            }
            if check {
                let unmet = output.unmet(&scenario.expect);
                let present = output.present(&scenario.forbid);
                for line in &unmet {
                    eprintln!("{}: expected fact not found: {line}", path.display());
                }
                for line in &present {
                    eprintln!("{}: forbidden fact found: {line}", path.display());
                }
                if !unmet.is_empty() || !present.is_empty() {
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(problems) => {
            report(&problems);
            ExitCode::FAILURE
        }
    }
}

/// `estoc voyage`: a craft's speed on some water and the days a distance takes (003:110-117, 003:122).
fn voyage(craft: &str, water: &str, (current, towed, drift): (Option<f64>, bool, bool), km: Option<f64>) -> ExitCode {
    use crate::rules::overland::travel::{Conveyance, Water, voyage_rate};
    let planned = (|| -> Result<_, String> {
        let craft = by_name(&Conveyance::ALL, craft, "craft")?;
        let water = match water.to_lowercase().as_str() {
            "sea" => Water::Sea,
            "lake" => Water::Lake,
            "downstream" => Water::Downstream {
                current_m_per_hour: current.unwrap_or(crate::rules::overland::travel::TYPICAL_CURRENT_M_PER_HOUR),
            },
            "upstream" => Water::Upstream { towed },
            other => return Err(format!("unknown water {other:?}: sea, lake, downstream or upstream")),
        };
        if towed && !matches!(water, Water::Upstream { .. }) {
            return Err("--towed is for going upstream, towed from the bank (003:122)".into());
        }
        if current.is_some() && !matches!(water, Water::Downstream { .. }) {
            return Err("--current is for going downstream, the current added to the craft's speed (003:122)".into());
        }
        if drift && !matches!(water, Water::Downstream { .. }) {
            return Err("--drift is for going downstream, drifting the rest of the day (003:122)".into());
        }
        if let Some(km) = km
            && !(km.is_finite() && km > 0.0)
        {
            return Err(format!("{km} km is no distance to cover"));
        }
        voyage_rate(craft, water, drift).map(|rate| (craft, rate)).map_err(|e| e.to_string())
    })();
    let (craft, rate) = match planned {
        Ok(planned) => planned,
        Err(message) => {
            eprintln!("estoc voyage: {message}");
            return ExitCode::FAILURE;
        }
    };
    println!("{} (003:110-117, 003:122)", craft.label());
    println!("  {:.2} km an hour under way", rate.per_hour_m / 1000.0);
    println!("  {:.2} km a day, {} hours moving", rate.per_day_m / 1000.0, rate.hours_moving);
    if let Some(km) = km {
        let (whole, hours_left) = rate.duration(km * 1000.0);
        println!("  {km:.2} km: {whole} day(s) and {hours_left:.2} hour(s)");
    }
    ExitCode::SUCCESS
}

/// Finds the value of `all` whose name, written in kebab-case, is `text`.
fn by_name<T: Copy + std::fmt::Debug>(all: &[T], text: &str, what: &str) -> Result<T, String> {
    let wanted = text.to_lowercase().replace(['-', '_', ' '], "");
    all.iter().copied().find(|v| format!("{v:?}").to_lowercase() == wanted).ok_or_else(|| {
        let kebab = |v: &T| {
            let name = format!("{v:?}");
            let mut out = String::new();
            for (i, c) in name.chars().enumerate() {
                if c.is_uppercase() && i > 0 {
                    out.push('-');
                }
                out.push(c.to_ascii_lowercase());
            }
            out
        };
        format!("unknown {what} {text:?}; one of: {}", all.iter().map(kebab).collect::<Vec<_>>().join(", "))
    })
}

/// `x` in the French way, with at most `places` decimals and none that is 0 (13,8 for 13.799999999999999).
fn decimal(x: f64, places: usize) -> String {
    let fixed = format!("{x:.places$}");
    let trimmed = if fixed.contains('.') { fixed.trim_end_matches('0').trim_end_matches('.') } else { &fixed };
    trimmed.replace('.', ",")
}

/// Prints the movement table of 003:4-19: per round, per minute, per hour and per day, "—" where the text
/// gives none.
fn travel_table(walkers: &[f64]) -> ExitCode {
    use crate::rules::overland::travel::{TABLE_SPEEDS_M, movement_table};
    if let Some(bad) = walkers.iter().find(|s| !(s.is_finite() && **s > 0.0 && **s <= 1000.0)) {
        eprintln!("error: a walker's speed is more than 0 and at most 1000 m, not {bad}");
        return ExitCode::FAILURE;
    }
    let speeds = if walkers.is_empty() { TABLE_SPEEDS_M.to_vec() } else { walkers.to_vec() };
    let metres = |m: f64| format!("{} m", decimal(m, 3));
    let km = |m: Option<f64>| m.map_or("—".to_string(), |m| format!("{} km", decimal(m / 1000.0, 4)));
    println!("Movement and distance (003:4-19)");
    println!("{:<10} {:>10} {:>12} {:>12} {:>12}", "pace", "speed", "one round", "one minute", "hour / day");
    for row in movement_table(&speeds) {
        println!(
            "{:<10} {:>10} {:>12} {:>12} {:>12}",
            row.name(),
            metres(row.speed_m),
            metres(row.rates.per_round_m),
            metres(row.rates.per_minute_m),
            format!("{} / {}", km(row.rates.per_hour_m), km(row.rates.per_day_m)),
        );
    }
    ExitCode::SUCCESS
}

/// `estoc travel`: a journey planned (003:63-94), and marched with the dice when a seed is given.
fn travel(
    (walkers, mounts, led): (&[f64], &[String], &[String]),
    (pace, terrain, way): (&str, &str, &str),
    (km, hours, hours_per_day): (Option<f64>, Option<u32>, u32),
    (seed, marcher): (Option<u64>, crate::rules::overland::march::Marcher),
) -> ExitCode {
    use crate::rules::overland::travel::*;
    let parsed = (|| -> Result<_, String> {
        let pace = by_name(&Pace::ALL, pace, "pace")?;
        let terrain = by_name(&Terrain::ALL, terrain, "terrain")?;
        let way = by_name(&Way::ALL, way, "way")?;
        let mut party: Vec<Traveller> = walkers.iter().map(|&speed_m| Traveller::OnFoot { speed_m }).collect();
        for mount in mounts {
            party.push(Traveller::Mounted(by_name(&Conveyance::ALL, mount, "mount or vehicle")?));
        }
        for animal in led {
            let animal = by_name(&Conveyance::ALL, animal, "led mount")?;
            if animal.kind() != ConveyanceKind::Mount {
                return Err(format!("{} is no animal to lead: --led takes a mount or a pack animal", animal.label()));
            }
            party.push(Traveller::Led(animal));
        }
        if !(1..=24).contains(&hours_per_day) {
            return Err(format!("{hours_per_day} hours a day is not 1 to 24"));
        }
        if marcher.hit_points.is_some_and(|hp| hp < 1) || marcher.level == 0 || !(-20..=40).contains(&marcher.con) {
            return Err("--hp and --level are 1 or more, --con from -20 to 40".into());
        }
        if party.is_empty() {
            party.push(Traveller::OnFoot { speed_m: 9.0 });
        }
        let goal = match (km, hours) {
            (Some(km), _) => Goal::Distance { metres: km * 1000.0, hours_per_day },
            (None, Some(h)) => Goal::Hours(h),
            (None, None) => Goal::Hours(hours_per_day),
        };
        let journey = plan_journey(&party, pace, terrain, way, goal).map_err(|e| e.to_string())?;
        Ok((party, journey))
    })();
    let (party, journey) = match parsed {
        Ok(planned) => planned,
        Err(message) => {
            eprintln!("estoc travel: {message}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<String> = party.iter().enumerate().map(|(i, member)| traveller_name(i, *member)).collect();
    let pace_name = if journey.pace == Pace::Hustle { "hustle" } else { "walk" };
    println!("pace {pace_name}, terrain and way {}", journey.multiplier);
    println!("  {:.2} km an hour", journey.per_hour_m / 1000.0);
    println!(
        "  {:.2} km in {:.2} hours ({} day(s) of {} hours)",
        journey.distance_m / 1000.0,
        journey.hours,
        journey.days,
        journey.hours_per_day
    );
    match seed {
        None => print_strain(&journey, &names),
        Some(seed) => print_march(&journey, &names, seed, marcher),
    }
    ExitCode::SUCCESS
}

/// A member of the party as `estoc travel` names it.
fn traveller_name(index: usize, member: crate::rules::overland::travel::Traveller) -> String {
    use crate::rules::overland::travel::{ConveyanceKind, Traveller};
    match member {
        Traveller::OnFoot { speed_m } => format!("member {} (on foot, {speed_m} m)", index + 1),
        Traveller::Mounted(c) if c.kind() == ConveyanceKind::Mount => {
            format!("member {} ({}, ridden)", index + 1, c.label())
        }
        Traveller::Mounted(c) => format!("member {} ({}, its draft animals)", index + 1, c.label()),
        Traveller::Led(c) => format!("member {} ({}, led)", index + 1, c.label()),
    }
}

/// The kind of damage as `estoc travel` writes it.
fn damage_word(kind: crate::rules::overland::travel::DamageKind) -> &'static str {
    match kind {
        crate::rules::overland::travel::DamageKind::Lethal => "lethal",
        crate::rules::overland::travel::DamageKind::Nonlethal => "nonlethal",
    }
}

/// What each started hour of a day may cost each member (003:69, 003:92, 003:94).
fn print_strain(journey: &crate::rules::overland::travel::Journey, names: &[String]) {
    use crate::rules::overland::travel::FatigueRisk;
    for hour in &journey.daily_strain {
        for (strain, who) in hour.members.iter().zip(names) {
            if strain.is_free() {
                continue;
            }
            let kind = damage_word(strain.damage_kind);
            let mut costs = Vec::new();
            if strain.hustle_damage > 0 {
                costs.push(format!("{} {kind} damage for hustling", strain.hustle_damage));
            }
            if let Some(check) = strain.forced_march {
                let roll = if check.automatic_failure {
                    "fails automatically".to_string()
                } else {
                    format!("Con DC {}", check.dc)
                };
                costs.push(format!(
                    "forced march: {roll}, {}d{} {kind} damage on a failure",
                    check.damage_on_failure.count, check.damage_on_failure.sides
                ));
            }
            let fatigue = match strain.fatigue {
                FatigueRisk::Certain => "fatigued",
                FatigueRisk::IfCheckFails => "fatigued if the check fails",
                FatigueRisk::None => "not fatigued",
            };
            println!("  hour {}: {who}: {}; {fatigue}", hour.hour, costs.join("; "));
        }
    }
}

/// The journey marched with the seeded dice: every check, every die, what each member carries.
fn print_march(
    journey: &crate::rules::overland::travel::Journey,
    names: &[String],
    seed: u64,
    marcher: crate::rules::overland::march::Marcher,
) {
    let mut dice = crate::rules::core::dice::Dice::seeded(seed);
    let marchers = vec![marcher; names.len()];
    let marched = crate::rules::overland::march::march(journey, &marchers, &mut |sides| dice.roll(sides));
    let con = if marcher.con < 0 { format!("- {}", -marcher.con) } else { format!("+ {}", marcher.con) };
    for (hours, who) in marched.iter().zip(names) {
        println!("  {who}:");
        for hour in hours {
            let kind = damage_word(hour.kind);
            let mut said = Vec::new();
            if hour.hustle_damage > 0 {
                said.push(format!("{} {kind} damage for hustling", hour.hustle_damage));
            }
            if let Some(check) = hour.check {
                let rolled =
                    |roll: u32| format!("forced march: Con check {roll} {con} = {} vs DC {}", check.total, check.dc);
                said.push(match (check.roll, check.success) {
                    (None, _) => format!("forced march: fails automatically (003:94), 1d6 = {} {kind}", check.damage),
                    (Some(roll), true) => format!("{}, made", rolled(roll)),
                    (Some(roll), false) => format!("{}, failed: 1d6 = {} {kind}", rolled(roll), check.damage),
                });
            }
            if said.is_empty() && !hour.knocked_out {
                continue;
            }
            println!("    day {} hour {}: {}; {}", hour.day, hour.hour, said.join("; "), march_state(hour, marcher));
        }
        if hours.iter().all(|h| h.hustle_damage == 0 && h.check.is_none()) {
            println!("    nothing to pay");
        }
    }
    let fallen =
        marched.iter().zip(names).find_map(|(hours, who)| hours.last().filter(|h| h.knocked_out).map(|h| (h, who)));
    if let Some((hour, who)) = fallen {
        println!("  the party halts at day {} hour {}: {who} can march no further", hour.day, hour.hour);
    }
}

/// What a member carries after an hour of the march, and what it does to it (004:274-305).
fn march_state(
    hour: &crate::rules::overland::march::MarchedHour,
    marcher: crate::rules::overland::march::Marcher,
) -> String {
    use crate::rules::overland::travel::DamageKind;
    let lethal = hour.kind == DamageKind::Lethal;
    let mut state = format!("carries {} {}", hour.carried, damage_word(hour.kind));
    if hour.fatigued {
        state.push_str(", fatigued");
    }
    let at_hp = marcher.hit_points.is_some_and(|hp| i64::from(hour.carried) == i64::from(hp));
    let dead = lethal && marcher.hit_points.is_some_and(|hp| i64::from(hour.carried) >= i64::from(hp) + 10);
    match (hour.knocked_out, lethal, at_hp) {
        (true, true, _) if dead => state.push_str(", at -10 hit points or below: dead (004:282)"),
        (true, true, _) => state.push_str(", below 0 hit points: dying (004:277)"),
        (true, false, _) => state.push_str(", falls unconscious (004:305)"),
        (false, true, true) => state.push_str(", at 0 hit points: disabled (004:273)"),
        (false, false, true) => state.push_str(", staggered (004:304)"),
        _ => {}
    }
    state
}
