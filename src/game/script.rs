//! `estoc play LEVEL --script FILE`: drives the real window as a person would. Each step moves the
//! cursor to a square (through the game's camera, so the game's own hit test finds the square), clicks,
//! presses a key, waits, or takes a screenshot; at the end the state of the battle is written as JSON and
//! the game exits. The input goes in as the window's cursor position and as the input messages the
//! operating system's events become, so egui and the game read it exactly as they read a mouse.

use std::path::{Path, PathBuf};

use super::square_centre;
use super::state::Pending;
use super::turn::human_turn;
use crate::data::diagnostics::{Diagnostic, Source, read_file};
use crate::rules::core::creature::*;
use crate::rules::core::facts::{EventLog, Fact};
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;
use crate::rules::turns::TurnOrder;
use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::input::mouse::{MouseButtonInput, MouseScrollUnit, MouseWheel};
use bevy::input::touch::TouchPhase;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::{CursorMoved, PrimaryWindow, WindowEvent};
use serde::{Deserialize, Serialize};

/// One step of a script.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ScriptStep {
    /// Move the cursor over a square.
    Hover(Square),
    /// Move the cursor to a point of the window, in logical pixels from its top left corner: a line of a
    /// panel, a button (the rules at the cursor).
    HoverPoint((f32, f32)),
    /// Move the cursor over a square and click the left button.
    Click(Square),
    /// Move the cursor over a square and click the right button (a waypoint).
    RightClick(Square),
    /// Click near one side of a square (the editor's edges): a third of the way from its middle.
    ClickEdge(Square, crate::rules::core::geometry::Direction),
    /// Press the left button over the first square, move to the second with it held, release.
    Drag(Square, Square),
    /// Ask to close the window, as its close button does.
    Close,
    /// Choose the interface's language by its code ("fr", "en"), as the menu's choice does.
    Language(String),
    /// Press and release a key, by name: "E", "Enter", "Escape", "Backspace", "ArrowLeft", "Plus", "Minus"…;
    /// "Shift+1" with Shift held, "Ctrl+Z" with Control.
    Key(String),
    /// Turn the mouse wheel so many notches where the cursor is: up (positive) zooms in, down zooms out.
    Wheel(i32),
    /// Let frames pass.
    Wait(u32),
    /// Wait until the computer has played and a person's creature has the turn (or the fight is over),
    /// for at most that many frames.
    WaitForPlayer(u32),
    /// Save a screenshot of the window.
    Screenshot(PathBuf),
}

/// A script file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptDef {
    /// The steps in order.
    pub steps: Vec<ScriptStep>,
}

/// Reads a script file.
pub fn load_script(path: &Path) -> Result<ScriptDef, String> {
    let text = read_file(path).map_err(|d| d.to_string())?;
    Source::new(path, &text).parse().map_err(|d: Diagnostic| d.to_string())
}

/// A script being played.
#[derive(Resource, Debug)]
pub struct Script {
    steps: Vec<ScriptStep>,
    at: usize,
    phase: u32,
    /// Where to write the final state; standard output if `None`.
    pub state_out: Option<PathBuf>,
    /// Frames to let pass before the first step, for the window and the art to come up.
    pub warm_up: u32,
    /// Set when a step could not be done.
    pub failure: Option<String>,
    /// How long each frame took, from the first step on (wall-clock time between updates).
    frame_times: Vec<f64>,
    /// How long the main world's update took in those frames (the game's systems, not the drawing).
    update_times: Vec<f64>,
}

impl Script {
    /// A script ready to run.
    pub fn new(def: ScriptDef, state_out: Option<PathBuf>) -> Self {
        Script {
            steps: def.steps,
            at: 0,
            phase: 0,
            state_out,
            warm_up: 20,
            failure: None,
            frame_times: Vec::new(),
            update_times: Vec::new(),
        }
    }
}

/// Set when the script failed: the process exits with an error.
#[derive(Resource)]
pub struct ScriptFailed;

/// The battle at the end of a script.
#[derive(Clone, Debug, Serialize)]
pub struct FinalState {
    /// The round.
    pub round: u32,
    /// Whose turn it is.
    pub turn: Option<String>,
    /// The fight is over.
    pub ended: bool,
    /// The winning faction.
    pub winner: Option<String>,
    /// Every creature.
    pub creatures: Vec<CreatureState>,
    /// Hot-seat: the side the hidden board waits to be handed to.
    pub hand_over: Option<String>,
    /// Actions taken.
    pub actions: usize,
    /// The commands of those actions, in order, as the rules received them (`Delay { creature: "fighter" }`).
    pub commands: Vec<String>,
    /// Facts in the event log.
    pub facts: usize,
    /// Attacks rolled.
    pub attacks: usize,
    /// Actions refused, with their reasons.
    pub refused: Vec<String>,
    /// Frames per second at the end, smoothed (software rendering under Xvfb is far slower than a desktop).
    pub frames_per_second: Option<f64>,
    /// How long the frames took while the script played.
    pub frame_times: Option<FrameTimes>,
    /// How long the main world's update took in those frames: the game and its rules, without the drawing,
    /// which runs alongside on the render thread.
    pub update_times: Option<FrameTimes>,
    /// The screen shown at the end: `Battle`, `Menu` or `Edit`.
    pub screen: String,
    /// The editor, when the script ran in it.
    pub editor: Option<EditorState>,
    /// The interface's language, by its code.
    pub language: String,
    /// What the top bar says: whose turn, or how the fight ended.
    pub top_bar: String,
}

/// The wall-clock time of the frames a script played, in milliseconds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FrameTimes {
    /// Frames measured.
    pub frames: usize,
    /// The mean.
    pub mean_ms: f64,
    /// Half the frames took at most this.
    pub median_ms: f64,
    /// 95 frames in 100 took at most this.
    pub p95_ms: f64,
    /// The slowest frame.
    pub worst_ms: f64,
}

impl FrameTimes {
    /// The statistics of frame times given in seconds; `None` when there are none.
    pub fn of(seconds: &[f64]) -> Option<FrameTimes> {
        if seconds.is_empty() {
            return None;
        }
        let mut ms: Vec<f64> = seconds.iter().map(|s| s * 1000.0).collect();
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
        Some(FrameTimes {
            frames: ms.len(),
            mean_ms: ms.iter().sum::<f64>() / ms.len() as f64,
            median_ms: at(0.5),
            p95_ms: at(0.95),
            worst_ms: ms[ms.len() - 1],
        })
    }
}

/// One creature at the end of a script.
#[derive(Clone, Debug, Serialize)]
pub struct CreatureState {
    /// Id.
    pub id: String,
    /// Where it stands.
    pub at: Square,
    /// Hit points.
    pub hit_points: i32,
    /// Conditions.
    pub conditions: Vec<Condition>,
    /// Its name on the board.
    pub name: String,
    /// How its token is drawn, if it has one.
    pub token: Option<super::tokens::TokenLook>,
    /// Its height above the ground, in steps of 1.5 m (in bands on a chase-scale level).
    pub altitude: i32,
    /// The weapons it can strike with now (not those put away), by name.
    pub weapons: Vec<String>,
}

/// The editor at the end of a script.
#[derive(Clone, Debug, Serialize)]
pub struct EditorState {
    /// The file edited.
    pub path: PathBuf,
    /// Edits not saved.
    pub unsaved: bool,
    /// Edits that can be undone, and redone.
    pub undo: usize,
    /// Edits that can be redone.
    pub redo: usize,
    /// The level's creatures, by id.
    pub creatures: Vec<String>,
    /// The problems the check lists.
    pub problems: Vec<String>,
    /// The odds: battles played, and each side's wins.
    pub odds: Option<(u64, std::collections::BTreeMap<String, u64>)>,
    /// The question the editor waits on (`Quit`, `Menu`, `Open`), if any.
    pub asking: Option<String>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(First, (update_begins, run_script).chain().run_if(resource_exists::<Script>));
    app.add_systems(Last, update_ends.run_if(resource_exists::<Script>));
}

/// When the main world's update began this frame.
#[derive(Resource)]
struct UpdateBegan(std::time::Instant);

fn update_begins(mut commands: Commands) {
    commands.insert_resource(UpdateBegan(std::time::Instant::now()));
}

/// The main world's share of the frame: every game and rules system, without the drawing.
fn update_ends(began: Option<Res<UpdateBegan>>, mut script: ResMut<Script>) {
    if let Some(began) = began
        && script.warm_up == 0
    {
        script.update_times.push(began.0.elapsed().as_secs_f64());
    }
}

/// The state of the battle, as the script writes it.
pub fn final_state(world: &mut World) -> FinalState {
    let order = world.resource::<TurnOrder>().clone();
    let log = world.resource::<EventLog>();
    let winner = log.0.iter().rev().find_map(|f| match f {
        Fact::EncounterEnded { winner } => winner.clone(),
        _ => None,
    });
    let attacks = log.0.iter().filter(|f| matches!(f, Fact::AttackRolled { .. })).count();
    let refused = log
        .0
        .iter()
        .filter_map(|f| match f {
            Fact::ActionRefused { .. } => f.describe(),
            _ => None,
        })
        .collect();
    let facts = log.0.len();
    let looks = super::tokens::token_looks(world);
    let mut q = kept::<(Entity, &CreatureId, &Position, &HitPoints, &Conditions), ()>(world);
    let mut creatures: Vec<CreatureState> = q
        .iter(world)
        .map(|(e, id, p, hp, c)| CreatureState {
            id: id.0.clone(),
            at: p.0,
            hit_points: hp.current,
            conditions: c.0.iter().copied().collect(),
            name: super::turn::display_name(world, e),
            token: looks.get(&e).cloned(),
            altitude: world.get::<Altitude>(e).map_or(0, |a| a.0),
            weapons: world.get::<Armament>(e).map_or(vec![], |a| a.ready().map(|w| w.name.clone()).collect()),
        })
        .collect();
    creatures.sort_by(|a, b| a.id.cmp(&b.id));
    FinalState {
        round: order.round,
        turn: order.current_entity().and_then(|e| world.get::<CreatureId>(e)).map(|c| c.0.clone()),
        ended: order.ended,
        winner,
        creatures,
        hand_over: world.get_resource::<super::turn::HandOver>().and_then(|h| h.to.clone()),
        actions: world.resource::<super::state::History>().0.len(),
        commands: world.resource::<super::state::History>().0.iter().map(|c| format!("{c:?}")).collect(),
        facts,
        attacks,
        refused,
        frames_per_second: super::state::frames_per_second(world),
        frame_times: world.get_resource::<Script>().and_then(|s| FrameTimes::of(&s.frame_times)),
        update_times: world.get_resource::<Script>().and_then(|s| FrameTimes::of(&s.update_times)),
        screen: format!("{:?}", world.resource::<State<super::state::AppState>>().get()),
        language: crate::locale::language().code().to_string(),
        top_bar: world.get_resource::<super::hud::HudView>().map(|v| v.turn().to_string()).unwrap_or_default(),
        editor: world.get_resource::<super::editor::Editor>().map(|e| {
            let (undo, redo) = e.history.counts();
            EditorState {
                path: e.path.clone(),
                unsaved: e.dirty(),
                undo,
                redo,
                creatures: e.draft.def.creatures.iter().map(|c| c.id.clone()).collect(),
                problems: e.problems.iter().map(|p| p.message.clone()).collect(),
                asking: e.confirm.as_ref().map(|c| c.word().to_string()),
                odds: e.odds.as_ref().map(|(_, run)| {
                    let tally = run.progress().tally;
                    let wins =
                        tally.wins.iter().map(|(k, v)| (k.clone().unwrap_or_else(|| "none".into()), *v)).collect();
                    (tally.battles, wins)
                }),
            }
        }),
    }
}

/// The key code of a key name.
pub fn key_code(name: &str) -> Option<KeyCode> {
    let letter = |c: char| -> Option<KeyCode> {
        use KeyCode::*;
        const LETTERS: [KeyCode; 26] = [
            KeyA, KeyB, KeyC, KeyD, KeyE, KeyF, KeyG, KeyH, KeyI, KeyJ, KeyK, KeyL, KeyM, KeyN, KeyO, KeyP, KeyQ, KeyR,
            KeyS, KeyT, KeyU, KeyV, KeyW, KeyX, KeyY, KeyZ,
        ];
        const DIGITS: [KeyCode; 10] = [Digit0, Digit1, Digit2, Digit3, Digit4, Digit5, Digit6, Digit7, Digit8, Digit9];
        if c.is_ascii_digit() {
            return Some(DIGITS[(c as u8 - b'0') as usize]);
        }
        c.is_ascii_alphabetic().then(|| LETTERS[(c.to_ascii_uppercase() as u8 - b'A') as usize])
    };
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return letter(c);
    }
    Some(match name {
        "Enter" => KeyCode::Enter,
        "Escape" => KeyCode::Escape,
        "Backspace" => KeyCode::Backspace,
        "Tab" => KeyCode::Tab,
        "Space" => KeyCode::Space,
        "F1" => KeyCode::F1,
        "F2" => KeyCode::F2,
        "F3" => KeyCode::F3,
        "F4" => KeyCode::F4,
        "F5" => KeyCode::F5,
        "F6" => KeyCode::F6,
        "F7" => KeyCode::F7,
        "F8" => KeyCode::F8,
        "F9" => KeyCode::F9,
        "F10" => KeyCode::F10,
        "F11" => KeyCode::F11,
        "F12" => KeyCode::F12,
        "Insert" => KeyCode::Insert,
        "End" => KeyCode::End,
        "Delete" => KeyCode::Delete,
        "ArrowLeft" => KeyCode::ArrowLeft,
        "ArrowRight" => KeyCode::ArrowRight,
        "ArrowUp" => KeyCode::ArrowUp,
        "ArrowDown" => KeyCode::ArrowDown,
        "Plus" | "Equal" => KeyCode::Equal,
        "Minus" => KeyCode::Minus,
        "Comma" => KeyCode::Comma,
        "Semicolon" => KeyCode::Semicolon,
        "Period" => KeyCode::Period,
        "Slash" => KeyCode::Slash,
        "Backslash" => KeyCode::Backslash,
        "Quote" => KeyCode::Quote,
        "Backquote" => KeyCode::Backquote,
        "PageUp" => KeyCode::PageUp,
        "Home" => KeyCode::Home,
        "PageDown" => KeyCode::PageDown,
        "BracketLeft" => KeyCode::BracketLeft,
        "BracketRight" => KeyCode::BracketRight,
        _ => return None,
    })
}

/// Puts the cursor over `square`: the window's cursor position and the cursor-moved messages.
fn point_at(world: &mut World, square: Square) -> Result<(), String> {
    point_near(world, square, Vec2::ZERO)
}

/// Puts the cursor `off` (in squares, north up) from the middle of `square`.
fn point_near(world: &mut World, square: Square, off: Vec2) -> Result<(), String> {
    // The map on the board: the level being edited in the editor, the battle's otherwise.
    let editing = *world.resource::<State<super::state::AppState>>().get() == super::state::AppState::Edit;
    let height = match world.get_resource::<super::editor::Editor>() {
        Some(editor) if editing => editor.draft.size().1,
        _ => world.resource::<crate::rules::core::battlefield::Battlefield>().height(),
    };
    let target = (square_centre(square, height) + off * super::TILE_PX).extend(0.0);
    let mut cameras = kept::<(&Camera, &GlobalTransform), ()>(world);
    let (camera, transform) = cameras.iter(world).next().ok_or("no camera")?;
    let at = camera.world_to_viewport(transform, target).map_err(|e| format!("{square} is off screen: {e:?}"))?;
    point_window(world, at)
}

/// Puts the cursor at `at`, in logical pixels from the window's top left corner.
fn point_window(world: &mut World, at: Vec2) -> Result<(), String> {
    let mut windows = kept::<(Entity, &mut Window), With<PrimaryWindow>>(world);
    let (window, mut w) = windows.single_mut(world).map_err(|e| format!("no window: {e}"))?;
    let (width, height) = (w.width(), w.height());
    if !(0.0..width).contains(&at.x) || !(0.0..height).contains(&at.y) {
        return Err(format!("the point ({}, {}) is outside the window ({width}x{height})", at.x, at.y));
    }
    let scale = w.scale_factor() as f64;
    w.set_physical_cursor_position(Some(bevy::math::DVec2::new(at.x as f64 * scale, at.y as f64 * scale)));
    let moved = CursorMoved { window, position: at, delta: None };
    world.write_message(moved.clone());
    world.write_message(WindowEvent::CursorMoved(moved));
    Ok(())
}

fn press_button(world: &mut World, button: MouseButton, state: ButtonState) {
    let mut windows = kept::<Entity, With<PrimaryWindow>>(world);
    let Ok(window) = windows.single(world) else { return };
    let message = MouseButtonInput { button, state, window };
    world.write_message(message);
    world.write_message(WindowEvent::MouseButtonInput(message));
}

fn press_key(world: &mut World, key_code: KeyCode, state: ButtonState) {
    let mut windows = kept::<Entity, With<PrimaryWindow>>(world);
    let Ok(window) = windows.single(world) else { return };
    let message = KeyboardInput {
        key_code,
        logical_key: Key::Unidentified(bevy::input::keyboard::NativeKey::Unidentified),
        state,
        text: None,
        repeat: false,
        window,
    };
    world.write_message(message.clone());
    world.write_message(WindowEvent::KeyboardInput(message));
}

/// Plays the script one phase per frame.
#[expect(clippy::too_many_lines, reason = "one arm per kind of script step, each a few lines")]
fn run_script(world: &mut World) {
    let frame = world.resource::<Time<Real>>().delta_secs_f64();
    let (step, phase) = {
        let mut script = world.resource_mut::<Script>();
        if script.warm_up > 0 {
            script.warm_up -= 1;
            return;
        }
        script.frame_times.push(frame);
        script.phase += 1;
        (script.steps.get(script.at).cloned(), script.phase)
    };
    let Some(step) = step else {
        finish(world);
        return;
    };
    let done = match step {
        ScriptStep::Hover(square) => match point_at(world, square) {
            Ok(()) => phase >= 3,
            Err(e) => return fail(world, e),
        },
        ScriptStep::HoverPoint((x, y)) => match point_window(world, Vec2::new(x, y)) {
            Ok(()) => phase >= 3,
            Err(e) => return fail(world, e),
        },
        ScriptStep::Click(square) | ScriptStep::RightClick(square) | ScriptStep::ClickEdge(square, _) => {
            let button = if matches!(step, ScriptStep::RightClick(_)) { MouseButton::Right } else { MouseButton::Left };
            // Near a side of the square for an edge: a third of the way from its middle.
            let off = match step {
                ScriptStep::ClickEdge(_, side) => {
                    let (dx, dy) = side.delta();
                    Vec2::new(dx as f32, -dy as f32) / 3.0
                }
                _ => Vec2::ZERO,
            };
            match phase {
                1 => {
                    if let Err(e) = point_near(world, square, off) {
                        return fail(world, e);
                    }
                    false
                }
                // Two frames for the hovered square and the previews to follow the cursor.
                2 | 3 => false,
                4 => {
                    press_button(world, button, ButtonState::Pressed);
                    false
                }
                5 => {
                    press_button(world, button, ButtonState::Released);
                    false
                }
                // Let the step the click made be carried out and resolved.
                _ => phase >= 8,
            }
        }
        ScriptStep::Drag(from, to) => {
            let at = |phase| if phase <= 4 { from } else { to };
            match phase {
                1 | 5 => {
                    if let Err(e) = point_at(world, at(phase)) {
                        return fail(world, e);
                    }
                    false
                }
                4 => {
                    press_button(world, MouseButton::Left, ButtonState::Pressed);
                    false
                }
                8 => {
                    press_button(world, MouseButton::Left, ButtonState::Released);
                    false
                }
                _ => phase >= 11,
            }
        }
        ScriptStep::Key(name) => {
            // "Shift+1": the key with Shift held; "Ctrl+Z" with Control.
            let (control, name) =
                name.strip_prefix("Ctrl+").map_or((false, name.clone()), |bare| (true, bare.to_string()));
            let (shift, bare) = name.strip_prefix("Shift+").map_or((false, name.as_str()), |bare| (true, bare));
            let Some(code) = key_code(bare) else { return fail(world, format!("unknown key {name:?}")) };
            match phase {
                1 => {
                    if control {
                        press_key(world, KeyCode::ControlLeft, ButtonState::Pressed);
                    }
                    if shift {
                        press_key(world, KeyCode::ShiftLeft, ButtonState::Pressed);
                    }
                    press_key(world, code, ButtonState::Pressed);
                    false
                }
                2 => {
                    press_key(world, code, ButtonState::Released);
                    if shift {
                        press_key(world, KeyCode::ShiftLeft, ButtonState::Released);
                    }
                    if control {
                        press_key(world, KeyCode::ControlLeft, ButtonState::Released);
                    }
                    false
                }
                _ => phase >= 5,
            }
        }
        ScriptStep::Wheel(notches) => {
            if phase == 1 {
                let mut windows = kept::<Entity, With<PrimaryWindow>>(world);
                let Ok(window) = windows.single(world) else { return fail(world, "no window".into()) };
                for _ in 0..notches.unsigned_abs() {
                    world.write_message(MouseWheel {
                        unit: MouseScrollUnit::Line,
                        x: 0.0,
                        y: notches.signum() as f32,
                        window,
                        phase: TouchPhase::Moved,
                    });
                }
            }
            phase >= 3
        }
        ScriptStep::Wait(frames) => phase >= frames,
        ScriptStep::Language(code) => {
            if phase == 1 {
                let Some(language) = crate::locale::Language::from_code(&code) else {
                    return fail(world, format!("no language {code:?}"));
                };
                world.resource_mut::<super::hud::HudClicks>().0.push(super::hud::HudClick::Language(language));
            }
            phase >= 3
        }
        ScriptStep::Close => {
            if phase == 1 {
                let mut windows = kept::<Entity, With<PrimaryWindow>>(world);
                let Ok(window) = windows.single(world) else { return fail(world, "no window".into()) };
                world.write_message(bevy::window::WindowCloseRequested { window });
            }
            phase >= 3
        }
        ScriptStep::WaitForPlayer(frames) => {
            let idle = world.resource::<Pending>().0.is_empty()
                && (human_turn(world).is_some() || world.resource::<TurnOrder>().ended);
            if phase > 2 && idle {
                true
            } else if phase >= frames {
                return fail(world, format!("no player's turn came within {frames} frames"));
            } else {
                false
            }
        }
        ScriptStep::Screenshot(path) => {
            // A script writes screenshots inside the project only: a relative `.png` path without `..`.
            let inside = path.is_relative()
                && !path.components().any(|c| matches!(c, std::path::Component::ParentDir))
                && path.extension().is_some_and(|e| e == "png");
            if !inside {
                return fail(
                    world,
                    format!("screenshot {}: a relative .png path inside the project, without ..", path.display()),
                );
            }
            let path = crate::data::root().join(path);
            if phase == 1 {
                let _ = std::fs::remove_file(&path);
                if let Some(dir) = path.parent() {
                    let _ = std::fs::create_dir_all(dir);
                }
                world.spawn(Screenshot::primary_window()).observe(save_to_disk(path));
                false
            } else if phase >= 300 {
                return fail(world, format!("the screenshot {} was not written", path.display()));
            } else {
                // A few frames more once the file is there, for the writer to finish it.
                path.exists() && phase >= 12
            }
        }
    };
    if done {
        let mut script = world.resource_mut::<Script>();
        script.at += 1;
        script.phase = 0;
    }
}

fn fail(world: &mut World, why: String) {
    let at = world.resource::<Script>().at;
    eprintln!("script step {}: {why}", at + 1);
    world.insert_resource(ScriptFailed);
    finish(world);
}

fn finish(world: &mut World) {
    let state = final_state(world);
    let json = serde_json::to_string_pretty(&state).expect("the state serialises");
    match world.resource::<Script>().state_out.clone() {
        Some(path) => {
            if let Err(e) = super::save::write_atomically(&path, &json) {
                eprintln!("{}: {e}", path.display());
                world.insert_resource(ScriptFailed);
            }
        }
        None => println!("{json}"),
    }
    world.remove_resource::<Script>();
    world.write_message(AppExit::Success);
}

#[cfg(test)]
mod tests {
    use super::FrameTimes;

    #[test]
    fn frame_times_give_the_median_the_95th_percentile_and_the_worst() {
        assert_eq!(FrameTimes::of(&[]), None);
        let seconds: Vec<f64> = (1..=100).map(|i| i as f64 / 1000.0).collect();
        let t = FrameTimes::of(&seconds).unwrap();
        assert_eq!(t.frames, 100);
        assert!((t.mean_ms - 50.5).abs() < 1e-9);
        assert!((t.median_ms - 51.0).abs() < 1e-9 || (t.median_ms - 50.0).abs() < 1e-9);
        assert!((t.p95_ms - 95.0).abs() < 1e-9);
        assert!((t.worst_ms - 100.0).abs() < 1e-9);
    }
}
