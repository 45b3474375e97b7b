//! The window: the level drawn with bevy_ecs_tilemap, the creatures as tokens, a camera fitted to the
//! map. The rules run here exactly as headless; the view only reads rules state.

pub mod actions;
mod board;
mod capture;
pub mod clicks;
pub mod declare;
pub mod editor;
pub mod hud;
pub mod input;
pub mod log;
pub mod menu;
pub mod overlay;
pub mod previews;
pub mod reload;
pub mod rules_cursor;
pub mod rules_words;
pub mod save;
pub mod script;
pub mod settings;
pub mod state;
mod tokens;
pub mod turn;
pub mod weapons;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_ecs_tilemap::TilemapPlugin;

use crate::data::{Content, load_level};
use crate::encounter::ActiveEncounter;

pub use capture::CaptureRequest;
use state::{Controllers, Restart, Seed};

/// Pixels of one square on screen at zoom 1.
pub const TILE_PX: f32 = 64.0;

/// What the player asked for on the command line.
#[derive(Resource, Clone, Debug)]
pub struct LaunchOptions {
    /// The level file.
    pub level: PathBuf,
    /// Dice seed.
    pub seed: u64,
    /// Watch the level and templates and restart the battle when they change.
    pub watch: bool,
}

/// How the game is started.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// The level; the menu opens on the default level when absent.
    pub level: Option<PathBuf>,
    /// Dice seed.
    pub seed: u64,
    /// Take a screenshot after some frames and exit.
    pub capture: Option<CaptureRequest>,
    /// Play a script, writing the final state there (standard output if `None`).
    pub script: Option<(script::ScriptDef, Option<PathBuf>)>,
    /// Hot reload.
    pub watch: bool,
    /// Open the editor instead of a battle.
    pub edit: Option<editor::EditRequest>,
    /// The interface's language, over the one of the settings.
    pub language: Option<crate::locale::Language>,
}

/// The game's systems, in order each frame; the rules run between `Play` and `Think`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewSystems {
    /// Level and template files changed on disk, reloaded.
    Reload,
    /// The camera and what is under the cursor.
    Pointer,
    /// Keys, clicks on the board and the panels' buttons, turned into choices and commands.
    Input,
    /// Starting again, and carrying out the pending command.
    Play,
    /// The AI's next command and the previews of the active creature.
    Think,
    /// Build what is missing (the board for a new encounter, tokens for new creatures).
    Spawn,
    /// Follow the rules state on the board (positions, hit points, overlays).
    Sync,
    /// Gather what the panels show, on every screen.
    Panels,
    /// Screenshots, once the frame is drawn.
    Capture,
}

/// A movement action as the interface names it ("double move").
pub fn movement_words(action: crate::rules::movement::MovementAction) -> String {
    use crate::rules::movement::MovementAction;
    crate::locale::tr(match action {
        MovementAction::Move => "movement-move",
        MovementAction::DoubleMove => "movement-double-move",
        MovementAction::Run => "movement-run",
        MovementAction::Withdraw => "movement-withdraw",
        MovementAction::FiveFootStep => "movement-five-foot-step",
        MovementAction::MinimumMovement => "movement-minimum",
        MovementAction::Charge => "movement-charge",
        MovementAction::Crawl => "movement-crawl",
    })
}

/// An action as the combat log names it ("double move", "coup de grâce").
pub fn action_words(action: &crate::rules::core::names::Action) -> String {
    use crate::rules::core::names::Action;
    crate::locale::tr(match action {
        Action::Use(item) => return crate::tr!("action-use-item-named", item = item.clone()),
        Action::Cast(spell) => return crate::tr!("action-cast-named", spell = spell.clone()),
        Action::Move => "action-move",
        Action::DoubleMove => "action-double-move",
        Action::Run => "action-run",
        Action::Withdraw => "action-withdraw",
        Action::FiveFootStep => "action-five-foot-step",
        Action::MinimumMovement => "action-minimum-movement",
        Action::Crawl => "action-crawl",
        Action::Charge => "action-charge",
        Action::Attack => "action-attack",
        Action::ReadiedAttack => "action-readied-attack",
        Action::CoupDeGrace => "action-coup-de-grace",
        Action::StandUp => "action-stand-up",
        Action::DropProne => "action-drop-prone",
        Action::TotalDefense => "action-total-defense",
        Action::UseItem => "action-use-item",
        Action::Casting => "action-casting",
        Action::Ready => "action-ready",
        Action::Delay => "action-delay",
        Action::Resume => "action-resume",
        Action::EndTurn => "action-end-turn",
        Action::Rest => "action-rest",
        Action::TakeOff => "action-take-off",
        Action::Fly => "action-fly",
        Action::Land => "action-land",
        Action::Hide => "action-hide",
        Action::DiveAttack => "action-dive-attack",
        Action::FlybyAttack => "action-flyby-attack",
        Action::Collision => "action-collision",
        Action::Breathe => "action-breathe",
        Action::Mount => "action-mount",
        Action::CalmMount => "action-calm-mount",
        Action::Dismount => "action-dismount",
        Action::TakeReins => "action-take-reins",
        Action::Trip => "action-trip",
        Action::AidAnother => "action-aid-another",
        Action::Feint => "action-feint",
        Action::BullRush => "action-bull-rush",
        Action::TurnUndead => "action-turn-undead",
        Action::ReleaseUndead => "action-release-undead",
        Action::Disarm => "action-disarm",
        Action::PickUp => "action-pick-up",
        Action::Draw => "action-draw",
        Action::PutAway => "action-put-away",
        Action::Drop => "action-drop",
        Action::Load => "action-load",
        Action::PrepareSplash => "action-prepare-splash",
        Action::ReadyShield => "action-ready-shield",
        Action::LooseShield => "action-loose-shield",
        Action::Sunder => "action-sunder",
        Action::Grapple => "action-grapple",
        Action::GrappleDamage => "action-grapple-damage",
        Action::Pin => "action-pin",
        Action::BreakPin => "action-break-pin",
        Action::Escape => "action-escape",
        Action::Release => "action-release",
        Action::FreeAlly => "action-free-ally",
        Action::FirstAid => "action-first-aid",
        Action::GrappleMove => "action-grapple-move",
        Action::Touch => "action-touch",
        Action::TurnWeapon => "action-turn-weapon",
        Action::Throw => "action-throw",
        Action::Overrun => "action-overrun",
    })
}

/// A heading as the interface names it ("north-east").
pub fn heading_words(heading: crate::rules::core::geometry::Direction) -> String {
    use crate::rules::core::geometry::Direction;
    crate::locale::tr(match heading {
        Direction::North => "heading-north",
        Direction::NorthEast => "heading-north-east",
        Direction::East => "heading-east",
        Direction::SouthEast => "heading-south-east",
        Direction::South => "heading-south",
        Direction::SouthWest => "heading-south-west",
        Direction::West => "heading-west",
        Direction::NorthWest => "heading-north-west",
    })
}

/// A flier's speed as the interface names it (004:686-709).
pub fn speed_words(status: crate::rules::core::names::SpeedStatus) -> String {
    use crate::rules::core::names::SpeedStatus;
    crate::locale::tr(match status {
        SpeedStatus::FreeFall => "speed-free-fall",
        SpeedStatus::Stall => "speed-stall",
        SpeedStatus::Slow => "speed-slow",
        SpeedStatus::Fast => "speed-fast",
        SpeedStatus::TopSpeed => "speed-top",
        SpeedStatus::Hover => "speed-hover",
    })
}

/// A saving throw as the interface names it.
pub fn save_words(save: crate::rules::core::names::Save) -> String {
    use crate::rules::core::names::Save;
    crate::locale::tr(match save {
        Save::Fortitude => "save-fortitude",
        Save::Reflex => "save-reflex",
        Save::Will => "save-will",
    })
}

/// A check as the interface names it ("Sense Motive").
pub fn check_words(check: crate::rules::core::names::Check) -> String {
    use crate::rules::core::names::Check;
    crate::locale::tr(match check {
        Check::Constitution => "check-constitution",
        Check::Fly => "check-fly",
        Check::Jump => "check-jump",
        Check::Concentration => "check-concentration",
        Check::Hide => "check-hide",
        Check::Spot => "check-spot",
        Check::Bluff => "check-bluff",
        Check::SenseMotive => "check-sense-motive",
        Check::Ride => "check-ride",
        Check::Strength => "check-strength",
        Check::Attack => "check-attack",
        Check::Dexterity => "check-dexterity",
        Check::Grapple => "check-grapple",
        Check::EscapeArtist => "check-escape-artist",
        Check::Tumble => "check-tumble",
        Check::Swim => "check-swim",
        Check::Heal => "check-heal",
    })
}

/// A size category as the interface names it (004:377-386).
pub fn size_words(size: crate::rules::core::size::Size) -> String {
    use crate::rules::core::size::Size;
    crate::locale::tr(match size {
        Size::Fine => "size-fine",
        Size::Diminutive => "size-diminutive",
        Size::Tiny => "size-tiny",
        Size::Small => "size-small",
        Size::Medium => "size-medium",
        Size::Large => "size-large",
        Size::Huge => "size-huge",
        Size::Gargantuan => "size-gargantuan",
        Size::Colossal => "size-colossal",
    })
}

/// A condition as the interface names it ("flat-footed").
pub fn condition_words(condition: crate::rules::core::creature::Condition) -> String {
    use crate::rules::core::creature::Condition;
    crate::locale::tr(match condition {
        Condition::FlatFooted => "condition-flat-footed",
        Condition::Prone => "condition-prone",
        Condition::Helpless => "condition-helpless",
        Condition::Squeezed => "condition-squeezed",
        Condition::SqueezedTight => "condition-squeezed-tight",
        Condition::Disabled => "condition-disabled",
        Condition::Dying => "condition-dying",
        Condition::Stable => "condition-stable",
        Condition::Dead => "condition-dead",
        Condition::Unconscious => "condition-unconscious",
        Condition::Staggered => "condition-staggered",
        Condition::Blinded => "condition-blinded",
        Condition::Running => "condition-running",
        Condition::TotalDefense => "condition-total-defense",
        Condition::FightingDefensively => "condition-fighting-defensively",
        Condition::Charging => "condition-charging",
        Condition::Dazzled => "condition-dazzled",
        Condition::Entangled => "condition-entangled",
        Condition::Invisible => "condition-invisible",
        Condition::Shaken => "condition-shaken",
        Condition::Frightened => "condition-frightened",
        Condition::Cowering => "condition-cowering",
        Condition::Fatigued => "condition-fatigued",
        Condition::Turned => "condition-turned",
        Condition::Grappling => "condition-grappling",
        Condition::Pinned => "condition-pinned",
        Condition::Stunned => "condition-stunned",
        Condition::Kneeling => "condition-kneeling",
        Condition::Casting => "condition-casting",
        Condition::OffBalance => "condition-off-balance",
        Condition::InPit => "condition-in-pit",
    })
}

/// The board's labels are drawn in Hack, which has the accents of French, in place of Bevy's built-in font
/// (ASCII only): it takes the built-in font's handle, so every label uses it.
fn install_font(app: &mut App) {
    let font = Font::from_bytes(include_bytes!("../../assets/fonts/Hack-Regular.ttf").to_vec());
    if let Err(problem) = app.world_mut().resource_mut::<Assets<Font>>().insert(AssetId::default(), font) {
        warn!("the board's font: {problem}");
    }
}

/// The level the game opens when none is named.
pub fn default_level() -> PathBuf {
    crate::data::root().join("levels").join("crossroads.ron")
}

/// Opens the game window.
pub fn run(launch: Launch) -> ExitCode {
    let level = launch.level.clone().unwrap_or_else(default_level);
    let encounter = match Content::load(&crate::data::assets_dir()).and_then(|content| load_level(&level, &content)) {
        Ok(encounter) => encounter,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "Estoc".into(),
                    resolution: WindowResolution::new(1440, 900),
                    ..default()
                }),
                // The editor asks before unsaved edits are lost (editor::close_requested).
                close_when_requested: false,
                ..default()
            })
            .set(AssetPlugin {
                file_path: crate::data::assets_dir().to_string_lossy().into_owned(),
                watch_for_changes_override: Some(cfg!(feature = "dev")),
                ..default()
            })
            .set(ImagePlugin::default_nearest()),
    );
    install_font(&mut app);
    app.add_plugins(bevy_egui::EguiPlugin::default());
    app.add_plugins(bevy::diagnostic::FrameTimeDiagnosticsPlugin::default());
    app.add_plugins(TilemapPlugin).add_plugins(crate::rules::plugin).add_plugins(plugin);
    // The game's and the rules' systems are many and each quick: one thread runs them faster than a pool
    // hands them out (measured with tools/framerate, README).
    app.edit_schedule(Update, |schedule| {
        schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
        schedule.set_build_settings(bevy::ecs::schedule::ScheduleBuildSettings {
            ambiguity_detection: bevy::ecs::schedule::LogLevel::Warn,
            ..default()
        });
    });
    app.insert_resource(LaunchOptions { level, seed: launch.seed, watch: launch.watch || cfg!(feature = "dev") });
    app.insert_resource(ClearColor(Color::srgb(0.08, 0.08, 0.1)));
    app.insert_resource(Seed(launch.seed));
    // A scripted run or a screenshot plays the same on every machine: no settings of this user.
    settings::setup(&mut app, launch.script.is_some() || launch.capture.is_some(), launch.language);
    if let Some(capture) = launch.capture {
        app.insert_resource(capture);
    }
    if let Some((def, out)) = launch.script {
        app.insert_resource(script::Script::new(def, out));
    }
    if launch.level.is_none() {
        app.insert_state(state::AppState::Menu);
    }
    start(app.world_mut(), encounter);
    if let Some(request) = launch.edit {
        app.insert_state(state::AppState::Edit);
        if let Err(problem) = editor::open(app.world_mut(), &request) {
            eprintln!("{problem}");
            return ExitCode::FAILURE;
        }
    }
    let exit = app.run();
    let world = app.world();
    if exit.is_error()
        || world.contains_resource::<capture::CaptureFailed>()
        || world.contains_resource::<script::ScriptFailed>()
    {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Puts `encounter` in play: who plays each faction as the level says, then a fresh start.
fn start(world: &mut World, encounter: crate::data::Encounter) {
    world.insert_resource(Controllers::of(&encounter));
    world.insert_resource(ActiveEncounter(encounter));
    world.insert_resource(Restart { replay: Vec::new() });
}

/// Loads another level and starts it, or says why it cannot; the battle on screen stays on error.
pub fn switch_level_checked(world: &mut World, path: &Path) -> Result<(), String> {
    let encounter = Content::load(&crate::data::assets_dir())
        .and_then(|content| load_level(path, &content))
        .map_err(|problems| problems.to_string())?;
    world.resource_mut::<LaunchOptions>().level = path.to_path_buf();
    start(world, encounter);
    Ok(())
}

/// Loads another level from the menu, showing the error if it does not load.
pub fn switch_level(world: &mut World, path: &Path) {
    if let Err(problems) = switch_level_checked(world, path) {
        world.insert_resource(state::Notice(Some((true, problems))));
    }
}

/// The game's plugins.
pub fn plugin(app: &mut App) {
    app.configure_sets(
        Update,
        (
            ViewSystems::Reload,
            ViewSystems::Pointer,
            ViewSystems::Input,
            ViewSystems::Play,
            crate::rules::core::systems::RulesStep,
            ViewSystems::Think,
            ViewSystems::Spawn,
            ViewSystems::Sync,
            ViewSystems::Panels,
            ViewSystems::Capture,
        )
            .chain(),
    );
    // What the board shows and what it takes from the mouse: only in a battle.
    let in_battle = in_state(state::AppState::Battle);
    for set in [ViewSystems::Pointer, ViewSystems::Think, ViewSystems::Spawn, ViewSystems::Sync] {
        app.configure_sets(Update, set.run_if(in_battle.clone()));
    }
    app.add_systems(Last, report_ambiguities);
    app.init_resource::<settings::Settings>().init_resource::<settings::SettingsFile>();
    app.add_systems(Update, settings::keep.after(hud::gather).in_set(ViewSystems::Panels));
    // Hot-seat: the screen is noticed once the turn's previews are made, and lifted after the keys and
    // clicks it held back.
    app.add_systems(
        Update,
        turn::hand_over.after(turn::play_ai).after(previews::update_previews).in_set(ViewSystems::Think),
    );
    app.add_systems(
        Update,
        (turn::hand_over_keys, turn::delay_keys)
            .after(actions::keys)
            .after(hud::apply_clicks)
            .after(clicks::clicks)
            .in_set(ViewSystems::Input)
            .run_if(in_state(state::AppState::Battle)),
    );
    app.add_plugins((
        board::plugin,
        tokens::plugin,
        capture::plugin,
        input::plugin,
        state::plugin,
        turn::plugin,
        previews::plugin,
        actions::plugin,
        clicks::plugin,
        declare::plugin,
        overlay::plugin,
        hud::plugin,
        script::plugin,
        reload::plugin,
        editor::plugin,
    ));
}

/// The pairs of the game's own systems that touch the same data in `Update` with no order between them:
/// each a possible difference between two runs of one battle.
pub fn ambiguities(world: &World) -> Vec<String> {
    let Some(update) = world.resource::<Schedules>().get(Update) else { return Vec::new() };
    let Ok(systems) = update.systems() else { return Vec::new() };
    let names: std::collections::HashMap<_, String> =
        systems.map(|(key, system)| (key, system.name().to_string())).collect();
    let name = |key| names.get(key).cloned().unwrap_or_default();
    update
        .graph()
        .conflicting_systems()
        .iter()
        .map(|(a, b, _)| (name(a), name(b)))
        .filter(|(a, b)| a.starts_with("estoc::") && b.starts_with("estoc::"))
        .map(|(a, b)| format!("{a} and {b}"))
        .collect()
}

/// After the first frame, says which of the game's systems run in no fixed order though they touch the same
/// data; a debug build stops there, so that such a pair never lands.
fn report_ambiguities(world: &mut World, mut done: Local<bool>) {
    if std::mem::replace(&mut *done, true) {
        return;
    }
    let pairs = ambiguities(world);
    if pairs.is_empty() {
        return;
    }
    error!("systems with no order between them:\n  {}", pairs.join("\n  "));
    if cfg!(debug_assertions) {
        world.write_message(AppExit::from_code(3));
    }
}

/// The previews and the board overlays without a window: what the game does when the cursor enters another
/// square or the state changes, for the benchmarks. Set [`state::Hover`] and update.
pub fn overlays_headless(app: &mut App, encounter: &crate::data::Encounter) {
    app.insert_resource(Controllers::of(encounter));
    app.insert_resource(ActiveEncounter(encounter.clone()));
    app.init_resource::<state::Hover>()
        .init_resource::<state::Choice>()
        .init_resource::<state::Selected>()
        .init_resource::<state::Pending>()
        .init_resource::<state::Previews>()
        .init_resource::<turn::DelayChoice>();
    app.add_systems(
        Update,
        (previews::update_previews, overlay::redraw).chain().after(crate::rules::core::systems::RulesStep),
    );
}

/// The square whose centre is nearest a world position (the inverse of [`square_centre`]).
pub fn square_of(world: Vec2, map_height: i32) -> crate::rules::core::geometry::Square {
    let x = (world.x / TILE_PX).round() as i32;
    let row = (world.y / TILE_PX).round() as i32;
    crate::rules::core::geometry::Square::new(x, map_height - 1 - row)
}

/// The world position of the centre of a square: x to the east, rows growing south drawn downward.
pub fn square_centre(square: crate::rules::core::geometry::Square, map_height: i32) -> Vec2 {
    Vec2::new(square.x as f32 * TILE_PX, (map_height - 1 - square.y) as f32 * TILE_PX)
}

/// Width of the right panel in logical pixels.
pub const RIGHT_PANEL: f32 = 400.0;
