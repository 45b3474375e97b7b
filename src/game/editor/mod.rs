//! The level editor (`estoc edit LEVEL`, `estoc edit --new 30x20`, or Edit in the menu): the same window,
//! tilemap and tokens as play, in its own state. The level is a [`Draft`] that every tool changes; each
//! change is checked by the same rules as `estoc check`, redrawn, undoable, and the encounter's odds are
//! played in the background once the edits settle.

mod panels;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::EguiPrimaryContextPass;
use bevy_egui::input::EguiWantsInput;

use super::state::AppState;
use super::{TILE_PX, square_centre, square_of};
use crate::data::draft::{Draft, EditHistory, Layer, LineOf};
use crate::data::level::PlacementDef;
use crate::data::{Content, Encounter};
use crate::rules::core::battlefield::EdgeFeature;
use crate::rules::core::geometry::{Direction, Square};
use crate::rules::core::kept::kept;
use crate::rules::core::size::Size;

/// The terrain characters of the palette, in the order of the keys 1 to 0, with their names' message ids.
pub const TERRAINS: [(char, &str); 10] = [
    ('.', "editor-terrain-open"),
    (':', "editor-terrain-rubble"),
    ('T', "editor-terrain-undergrowth"),
    ('%', "editor-terrain-obstacle"),
    ('=', "editor-terrain-low-wall"),
    ('#', "editor-terrain-wall"),
    ('O', "editor-terrain-pit"),
    ('~', "editor-terrain-shallow-water"),
    ('W', "editor-terrain-deep-water"),
    (',', "editor-terrain-paved"),
];

/// The edge features of the palette, with their names' message ids; `None` erases.
pub const EDGES: [(Option<EdgeFeature>, &str); 4] = [
    (Some(EdgeFeature::Wall), "editor-edge-wall"),
    (Some(EdgeFeature::LowWall), "editor-edge-low-wall"),
    (Some(EdgeFeature::ArrowSlit), "editor-edge-arrow-slit"),
    (None, "editor-edge-erase"),
];

/// How a terrain is laid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Square by square under the cursor while the button is held.
    Brush,
    /// A rectangle from where the button is pressed to where it is released.
    Rectangle,
    /// The squares of the same terrain joined to the one clicked.
    Fill,
}

/// The tool in hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tool {
    /// Paint a terrain.
    Terrain(char, Shape),
    /// Lay (true) or lift (false) a layer.
    Layer(Layer, bool),
    /// Put a feature on the edge nearest the cursor, or erase it.
    Edge(Option<EdgeFeature>),
    /// Place creatures of the palette's template, select, drag and delete them.
    Creatures,
}

/// A question the editor waits on before it goes on.
#[derive(Clone, Debug, PartialEq)]
pub enum Confirm {
    /// Unsaved changes: quit anyway?
    Quit,
    /// Unsaved changes: open another level anyway?
    Open(EditRequest),
    /// Unsaved changes: back to the menu anyway?
    Menu,
}

impl Confirm {
    /// The question's name, as a script's final state reports it.
    pub fn word(&self) -> &'static str {
        match self {
            Confirm::Quit => "Quit",
            Confirm::Open(_) => "Open",
            Confirm::Menu => "Menu",
        }
    }
}

/// What the mouse is doing on the board.
#[derive(Clone, Debug, Default)]
enum Stroke {
    /// Nothing.
    #[default]
    Idle,
    /// Painting: the draft before the stroke, for one undo step.
    Painting(Box<Draft>),
    /// Drawing a rectangle from this square.
    Rectangle(Square),
    /// Dragging a creature: the draft before, and the creature's index.
    Dragging(Box<Draft>, usize),
}

/// A problem the check found, and what it is about.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The problem in words, with its line in the written level.
    pub message: String,
    /// What that line is about: clicking the problem selects it.
    pub of: LineOf,
}

/// Asked from the menu or the command line: open the editor on a level, or on a new map saved there.
#[derive(Resource, Clone, Debug, PartialEq)]
pub enum EditRequest {
    /// A level file.
    Open(PathBuf),
    /// A new map of that size, to be saved at that path.
    New {
        /// Squares from west to east.
        width: i32,
        /// Squares from north to south.
        height: i32,
        /// Where it is saved.
        path: PathBuf,
    },
}

/// The level being edited and everything the editor keeps about it.
#[derive(Resource)]
pub struct Editor {
    /// The file it is saved to.
    pub path: PathBuf,
    /// The level as it is now.
    pub draft: Draft,
    /// The edits behind and ahead.
    pub history: EditHistory,
    /// The text on disk when last opened or saved (`None`: never saved).
    saved: Option<String>,
    /// Whether the draft differed from `saved`, worked out for a generation of the draft and of `saved`:
    /// the panels ask every frame, and writing the draft's text each time is the editor's costliest work.
    dirty_seen: std::sync::Mutex<Option<(u64, u64, bool)>>,
    /// Counts the changes of `saved`.
    saved_generation: u64,
    /// When the file on disk was last modified, as last seen.
    disk_time: Option<SystemTime>,
    /// The file changed on disk: the editor offers to reload it.
    pub disk_changed: bool,
    /// The tool in hand.
    pub tool: Tool,
    /// The template the creature tool places.
    pub template: String,
    /// The faction it places them in (an index into the level's factions).
    pub faction: usize,
    /// The creature selected (an index into the level's creatures).
    pub selected: Option<usize>,
    /// Counts the edits, so that the board, the check and the odds follow.
    pub generation: u64,
    /// When the last edit was made (seconds since the start).
    pub edited_at: f64,
    /// The problems of the draft, as `estoc check` lists them.
    pub problems: Vec<Problem>,
    /// The draft checked, when it has no problem.
    pub encounter: Option<Encounter>,
    /// A message for the designer: (is an error, text).
    pub status: Option<(bool, String)>,
    /// A question waiting on the designer.
    pub confirm: Option<Confirm>,
    /// The level is being played from the editor: Escape or the end of the fight comes back.
    pub playing: bool,
    /// The square under the cursor, and which of its sides is nearest.
    pub hover: Option<(Square, Direction)>,
    stroke: Stroke,
    /// The camera is to frame the whole map (on opening, and back from play).
    fit: bool,
    /// The battles played in the background for the odds, and the edit they are for.
    pub odds: Option<(u64, crate::simulate::Background)>,
}

/// The templates and weapons, read when the editor opens.
#[derive(Resource)]
pub struct EditorContent(pub Content);

/// Battles the odds panel plays for each version of the level.
pub const ODDS_BATTLES: u64 = 400;

/// Seconds without an edit before the odds are played again.
const SETTLE_SECONDS: f64 = 0.6;

impl Editor {
    /// An editor on `draft`, saved to `path`; `saved` is the text on disk, if the level comes from there.
    fn new(path: PathBuf, draft: Draft, saved: Option<String>, content: &Content) -> Editor {
        let template = content.templates.keys().next().cloned().unwrap_or_default();
        let mut editor = Editor {
            disk_time: modified(&path),
            path,
            draft,
            history: EditHistory::default(),
            saved,
            dirty_seen: std::sync::Mutex::new(None),
            saved_generation: 0,
            disk_changed: false,
            tool: Tool::Terrain('#', Shape::Brush),
            template,
            faction: 0,
            selected: None,
            generation: 0,
            edited_at: 0.0,
            problems: Vec::new(),
            encounter: None,
            status: None,
            confirm: None,
            playing: false,
            hover: None,
            stroke: Stroke::Idle,
            fit: true,
            odds: None,
        };
        editor.recheck(content);
        editor
    }

    /// Whether the draft differs from the file on disk.
    pub fn dirty(&self) -> bool {
        let key = (self.generation, self.saved_generation);
        let mut seen = self.dirty_seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match *seen {
            Some((generation, saved, dirty)) if (generation, saved) == key => dirty,
            _ => {
                let dirty = self.saved.as_deref() != Some(self.draft.text().as_str());
                *seen = Some((key.0, key.1, dirty));
                dirty
            }
        }
    }

    /// Makes one edit: the draft before it is kept for undo if `edit` changes anything.
    pub fn edit(&mut self, edit: impl FnOnce(&mut Draft) -> bool) -> bool {
        let before = self.draft.clone();
        if edit(&mut self.draft) && self.draft != before {
            self.history.record(before);
            self.touched();
            true
        } else {
            self.draft = before;
            false
        }
    }

    /// Marks the draft changed: the board, the check and the odds follow.
    fn touched(&mut self) {
        self.generation += 1;
        if self.selected.is_some_and(|i| i >= self.draft.def.creatures.len()) {
            self.selected = None;
        }
        self.faction = self.faction.min(self.draft.def.factions.len().saturating_sub(1));
    }

    /// Undoes the last edit.
    pub fn undo(&mut self) -> bool {
        let done = self.history.undo(&mut self.draft);
        if done {
            self.touched();
        }
        done
    }

    /// Redoes the last edit undone.
    pub fn redo(&mut self) -> bool {
        let done = self.history.redo(&mut self.draft);
        if done {
            self.touched();
        }
        done
    }

    /// Checks the draft as `estoc check` would, each problem tied to what its line is about.
    pub fn recheck(&mut self, content: &Content) {
        let (text, lines) = self.draft.text_and_lines();
        match crate::data::level::check_level(&self.path, &text, content) {
            Ok(encounter) => {
                self.problems.clear();
                self.encounter = Some(encounter);
            }
            Err(diagnostics) => {
                self.encounter = None;
                self.problems = diagnostics
                    .0
                    .iter()
                    .map(|d| Problem {
                        message: crate::tr!("editor-problem-line", line = d.line, message = d.message.clone()),
                        of: d.line.checked_sub(1).and_then(|l| lines.get(l)).copied().unwrap_or(LineOf::Level),
                    })
                    .collect();
            }
        }
    }

    /// Saves the draft, atomically; the status says how it went. An invalid draft is saved too (a draft),
    /// with its problems counted.
    pub fn save(&mut self) -> bool {
        let text = self.draft.text();
        match crate::data::draft::write_atomically(&self.path, &text) {
            Ok(()) => {
                self.saved = Some(text);
                self.saved_generation += 1;
                self.disk_time = modified(&self.path);
                self.disk_changed = false;
                let path = self.path.display().to_string();
                self.status = Some((false, crate::tr!("editor-saved", path = path, problems = self.problems.len())));
                true
            }
            Err(e) => {
                self.status = Some((
                    true,
                    crate::tr!("editor-cannot-save", path = self.path.display().to_string(), why = e.to_string()),
                ));
                false
            }
        }
    }

    /// Takes the file on disk again, as an edit (undo brings back what was there before).
    pub fn reload(&mut self) {
        match Draft::read(&self.path) {
            Ok(draft) => {
                let text = draft.text();
                self.edit(|d| {
                    *d = draft;
                    true
                });
                self.saved = Some(text);
                self.saved_generation += 1;
                self.disk_time = modified(&self.path);
                self.disk_changed = false;
                self.status = Some((false, crate::tr!("editor-reloaded", path = self.path.display().to_string())));
            }
            Err(e) => self.status = Some((true, e.to_string())),
        }
    }

    /// The size of a creature as placed: its template's, or its override's.
    pub fn size_of(content: &Content) -> impl Fn(&PlacementDef) -> Size + '_ {
        move |p: &PlacementDef| {
            p.overrides.size.or_else(|| content.templates.get(&p.template).map(|(_, t)| t.size)).unwrap_or(Size::Medium)
        }
    }
}

/// When a file was last modified.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Opens the editor as asked: a level from its file (a file that does not parse is refused with its
/// located error), or a new map.
pub fn open(world: &mut World, request: &EditRequest) -> Result<(), String> {
    let content = Content::load(&crate::data::assets_dir()).map_err(|e| e.to_string())?;
    let editor = match request {
        EditRequest::Open(path) => {
            let draft = Draft::read(path).map_err(|e| e.to_string())?;
            let saved = std::fs::read_to_string(path).ok();
            Editor::new(path.clone(), draft, saved, &content)
        }
        EditRequest::New { width, height, path } => {
            let mut draft = Draft::new(*width, *height)?;
            // A new level starts with the player's default house rules (the texts' unless they chose).
            draft.def.house_rules =
                world.get_resource::<super::settings::Settings>().map(|s| s.house_rules).unwrap_or_default();
            draft.def.name = path.file_stem().map(|s| s.to_string_lossy().replace(['-', '_'], " ")).unwrap_or_default();
            Editor::new(path.clone(), draft, None, &content)
        }
    };
    world.insert_resource(editor);
    world.insert_resource(EditorContent(content));
    world.resource_mut::<NextState<AppState>>().set(AppState::Edit);
    Ok(())
}

/// A path in `levels/` for a new level that names no file yet.
pub fn new_level_path() -> PathBuf {
    let dir = crate::data::levels_dir();
    (1..)
        .map(|n| dir.join(if n == 1 { "new-level.ron".to_string() } else { format!("new-level-{n}.ron") }))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join("new-level.ron"))
}

/// Everything the editor draws on the board, despawned when it is left.
#[derive(Component, Clone)]
#[require(DespawnOnExit<AppState> = DespawnOnExit(AppState::Edit))]
struct EditorPart;

/// A creature's token in the editor, drawn again after each edit.
#[derive(Component)]
#[require(DespawnOnExit<AppState> = DespawnOnExit(AppState::Edit))]
struct EditorToken;

/// The outline of the rectangle being drawn, and of the edge or square under the cursor.
#[derive(Component)]
#[require(DespawnOnExit<AppState> = DespawnOnExit(AppState::Edit))]
struct Cursor;

pub(super) fn plugin(app: &mut App) {
    let editing = in_state(AppState::Edit);
    app.add_systems(
        Update,
        (take_request, close_requested).chain().after(super::reload::poll).in_set(super::ViewSystems::Reload),
    );
    app.add_systems(
        Update,
        ((fit_camera, keys, mouse, follow_edits, watch_disk, odds).chain(), (draw_draft, draw_cursor).chain())
            .chain()
            .after(super::turn::hand_over_keys)
            .after(super::turn::delay_keys)
            .in_set(super::ViewSystems::Input)
            .run_if(editing),
    );
    app.add_systems(OnEnter(AppState::Edit), |mut editor: ResMut<Editor>| editor.fit = true);
    app.add_systems(EguiPrimaryContextPass, panels::draw.run_if(in_state(AppState::Edit)));
    app.add_systems(
        Update,
        back_from_play
            .before(super::actions::keys)
            .in_set(super::ViewSystems::Input)
            .run_if(in_state(AppState::Battle).and_then(resource_exists::<Editor>)),
    );
}

/// Opens the editor when asked (from the menu or the command line); with unsaved changes in the level
/// being edited, asks first.
fn take_request(world: &mut World) {
    let Some(request) = world.remove_resource::<EditRequest>() else { return };
    if let Some(mut editor) = world.get_resource_mut::<Editor>()
        && editor.dirty()
        && editor.confirm.is_none()
    {
        editor.confirm = Some(Confirm::Open(request));
        world.resource_mut::<NextState<AppState>>().set(AppState::Edit);
        return;
    }
    if let Err(problem) = open(world, &request) {
        world.insert_resource(super::state::Notice(Some((true, problem))));
    }
}

/// Whether a key with Control (or Command) is pressed.
fn control(keys: &ButtonInput<KeyCode>) -> bool {
    keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight, KeyCode::SuperLeft, KeyCode::SuperRight])
}

/// The editor's keys: Ctrl+Z undo, Ctrl+Y (or Ctrl+Shift+Z) redo, Ctrl+S save, F5 play from here; 1 to 0
/// the terrains, B, R and F the brush, rectangle and fill, E the edges (again: the next feature), L the
/// layers (again: the next layer), C the creatures, Tab the next faction, [ and ] the template, Delete the
/// selected creature, Escape the selection.
fn keys(world: &mut World) {
    let typing = world.get_resource::<EguiWantsInput>().is_some_and(|w| w.wants_any_keyboard_input());
    let keys = world.resource::<ButtonInput<KeyCode>>().clone();
    if typing || world.resource::<Editor>().confirm.is_some() {
        return;
    }
    let pressed = |k| keys.just_pressed(k);
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    if control(&keys) {
        let mut editor = world.resource_mut::<Editor>();
        if pressed(KeyCode::KeyZ) && !shift {
            editor.undo();
        } else if pressed(KeyCode::KeyY) || (pressed(KeyCode::KeyZ) && shift) {
            editor.redo();
        } else if pressed(KeyCode::KeyS) {
            editor.save();
        }
        return;
    }
    if pressed(KeyCode::F5) {
        play_from_here(world);
        return;
    }
    let content_templates: Vec<String> = world.resource::<EditorContent>().0.templates.keys().cloned().collect();
    let mut editor = world.resource_mut::<Editor>();
    let shape = match editor.tool {
        Tool::Terrain(_, shape) => shape,
        _ => Shape::Brush,
    };
    if let Some(i) = super::input::DIGITS.iter().position(|k| pressed(*k)) {
        editor.tool = Tool::Terrain(TERRAINS[i].0, shape);
    }
    let look = match editor.tool {
        Tool::Terrain(look, _) => look,
        _ => '#',
    };
    for (key, shape) in [(KeyCode::KeyB, Shape::Brush), (KeyCode::KeyR, Shape::Rectangle), (KeyCode::KeyF, Shape::Fill)]
    {
        if pressed(key) {
            editor.tool = Tool::Terrain(look, shape);
        }
    }
    if pressed(KeyCode::KeyE) {
        let next = match editor.tool {
            Tool::Edge(now) => EDGES.iter().position(|(f, _)| *f == now).map_or(0, |i| (i + 1) % EDGES.len()),
            _ => 0,
        };
        editor.tool = Tool::Edge(EDGES[next].0);
    }
    if pressed(KeyCode::KeyL) {
        editor.tool = match editor.tool {
            Tool::Layer(now, on) => {
                let i = Layer::ALL.iter().position(|l| *l == now).unwrap_or(0);
                Tool::Layer(Layer::ALL[(i + 1) % Layer::ALL.len()], on)
            }
            _ => Tool::Layer(Layer::Darkness, true),
        };
    }
    if pressed(KeyCode::KeyC) {
        editor.tool = Tool::Creatures;
    }
    if pressed(KeyCode::Tab) && !editor.draft.def.factions.is_empty() {
        editor.faction = (editor.faction + 1) % editor.draft.def.factions.len();
    }
    for (key, step) in [(KeyCode::BracketLeft, content_templates.len().saturating_sub(1)), (KeyCode::BracketRight, 1)] {
        if pressed(key) && !content_templates.is_empty() {
            let i = content_templates.iter().position(|t| *t == editor.template).unwrap_or(0);
            editor.template = content_templates[(i + step) % content_templates.len()].clone();
            editor.tool = Tool::Creatures;
        }
    }
    if (pressed(KeyCode::Delete) || pressed(KeyCode::Backspace))
        && let Some(i) = editor.selected
    {
        editor.edit(|d| d.remove(i));
        editor.selected = None;
    }
    if pressed(KeyCode::Escape) {
        editor.selected = None;
    }
}

/// The square under the cursor and the side of it the cursor is nearest; `None` off the board or over a
/// panel.
fn pointed(world: &mut World, height: i32) -> Option<(Square, Direction)> {
    if world.get_resource::<EguiWantsInput>().is_some_and(|w| w.wants_any_pointer_input()) {
        return None;
    }
    let mut windows = kept::<&Window, With<PrimaryWindow>>(world);
    let cursor = windows.single(world).ok()?.cursor_position()?;
    let mut cameras = kept::<(&Camera, &GlobalTransform), ()>(world);
    let (camera, transform) = cameras.iter(world).next()?;
    let at = camera.viewport_to_world_2d(transform, cursor).ok()?;
    let square = square_of(at, height);
    let off = at - square_centre(square, height);
    let side = if off.x.abs() > off.y.abs() {
        if off.x > 0.0 { Direction::East } else { Direction::West }
    } else if off.y > 0.0 {
        Direction::North
    } else {
        Direction::South
    };
    Some((square, side))
}

/// What the left and right buttons do on the board with the tool in hand.
fn mouse(world: &mut World) {
    let height = world.resource::<Editor>().draft.size().1;
    let hover = pointed(world, height).filter(|(s, _)| world.resource::<Editor>().draft.contains(*s));
    let buttons = world.resource::<ButtonInput<MouseButton>>().clone();
    let content = world.remove_resource::<EditorContent>().expect("the editor's content is loaded with it");
    let mut editor = world.resource_mut::<Editor>();
    editor.hover = hover;
    if editor.confirm.is_none() {
        use_mouse(&mut editor, &content.0, &buttons, hover);
    }
    world.insert_resource(content);
}

fn use_mouse(
    editor: &mut Editor,
    content: &Content,
    buttons: &ButtonInput<MouseButton>,
    hover: Option<(Square, Direction)>,
) {
    let released = !buttons.pressed(MouseButton::Left);
    if released {
        let stroke = std::mem::take(&mut editor.stroke);
        match stroke {
            Stroke::Painting(before) | Stroke::Dragging(before, _) => {
                if *before != editor.draft {
                    editor.history.record(*before);
                }
            }
            Stroke::Rectangle(from) => {
                if let (Some((to, _)), Tool::Terrain(look, _)) = (hover, editor.tool) {
                    editor.edit(|d| d.rectangle(from, to, look));
                }
            }
            Stroke::Idle => {}
        }
    }
    let Some((square, side)) = hover else { return };
    if buttons.just_pressed(MouseButton::Right) && editor.tool == Tool::Creatures {
        let found = editor.draft.creature_at(square, Editor::size_of(content));
        if let Some(i) = found {
            editor.edit(|d| d.remove(i));
            editor.selected = None;
        }
        return;
    }
    if buttons.just_pressed(MouseButton::Left) {
        press(editor, content, square, side);
    } else if buttons.pressed(MouseButton::Left) {
        hold(editor, square);
    }
}

/// The left button goes down on `square`.
fn press(editor: &mut Editor, content: &Content, square: Square, side: Direction) {
    match editor.tool {
        Tool::Terrain(_, Shape::Brush) | Tool::Layer(..) => {
            editor.stroke = Stroke::Painting(Box::new(editor.draft.clone()));
            hold(editor, square);
        }
        Tool::Terrain(_, Shape::Rectangle) => editor.stroke = Stroke::Rectangle(square),
        Tool::Terrain(look, Shape::Fill) => {
            editor.edit(|d| d.flood(square, look));
        }
        Tool::Edge(feature) => {
            // Clicking an edge that already has the feature takes it away.
            let now = editor.draft.edge(square, side);
            let put = if now == feature { None } else { feature };
            editor.edit(|d| d.set_edge(square, side, put));
        }
        Tool::Creatures => match editor.draft.creature_at(square, Editor::size_of(content)) {
            Some(i) => {
                editor.selected = Some(i);
                editor.stroke = Stroke::Dragging(Box::new(editor.draft.clone()), i);
            }
            None => {
                let faction = editor.draft.def.factions.get(editor.faction).map(|f| f.name.clone());
                let (template, faction) = (editor.template.clone(), faction.unwrap_or_default());
                let mut placed = None;
                editor.edit(|d| {
                    placed = Some(d.place(&template, &faction, square));
                    true
                });
                editor.selected = placed;
            }
        },
    }
}

/// The left button is held over `square`: the brush paints, a dragged creature follows.
fn hold(editor: &mut Editor, square: Square) {
    let changed = match (editor.tool, &editor.stroke) {
        (Tool::Terrain(look, Shape::Brush), Stroke::Painting(_)) => editor.draft.paint(square, look),
        (Tool::Layer(layer, on), Stroke::Painting(_)) => editor.draft.set_layer(layer, square, on),
        (_, Stroke::Dragging(_, i)) => {
            let i = *i;
            editor.draft.move_creature(i, square)
        }
        _ => false,
    };
    if changed {
        editor.touched();
    }
}

/// After an edit: the check again, and the time it was made.
fn follow_edits(world: &mut World, mut seen: Local<Option<u64>>) {
    let now = world.resource::<Time<Real>>().elapsed_secs_f64();
    let content = world.remove_resource::<EditorContent>().expect("the editor's content is loaded with it");
    let mut editor = world.resource_mut::<Editor>();
    if *seen != Some(editor.generation) {
        *seen = Some(editor.generation);
        editor.recheck(&content.0);
        editor.edited_at = now;
    }
    world.insert_resource(content);
}

/// Once a second, whether the file changed on disk since it was opened or saved.
fn watch_disk(mut editor: ResMut<Editor>, time: Res<Time<Real>>, mut last: Local<f64>) {
    let now = time.elapsed_secs_f64();
    if now - *last < 1.0 {
        return;
    }
    *last = now;
    let on_disk = modified(&editor.path);
    if on_disk.is_some() && on_disk != editor.disk_time {
        editor.disk_time = on_disk;
        let text = std::fs::read_to_string(&editor.path).ok();
        if text.is_some() && text != editor.saved {
            editor.disk_changed = true;
        }
    }
}

/// Plays the odds again in the background once the edits settle on a level without problems.
fn odds(mut editor: ResMut<Editor>, time: Res<Time<Real>>) {
    // Battles of a level that has changed since are stopped at once.
    if editor.odds.as_ref().is_some_and(|(generation, _)| *generation != editor.generation) {
        editor.odds = None;
    }
    let settled = time.elapsed_secs_f64() - editor.edited_at >= SETTLE_SECONDS;
    if editor.odds.is_some() || !settled || editor.encounter.is_none() {
        return;
    }
    editor.odds = editor.encounter.clone().map(|encounter| {
        // One core is left to the window, so that the game never drops a frame.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (editor.generation, crate::simulate::Background::start(encounter, ODDS_BATTLES, (cores - 1).max(1)))
    });
}

/// The camera frames the whole map when the editor opens, between the panels.
fn fit_camera(
    mut editor: ResMut<Editor>,
    window: Option<Single<&Window, With<PrimaryWindow>>>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    if !std::mem::replace(&mut editor.fit, false) {
        return;
    }
    let (width, height) = editor.draft.size();
    let (mut transform, mut projection) = camera.into_inner();
    let free = window.map_or(Vec2::new(800.0, 600.0), |w| w.size() - Vec2::new(panels::LEFT + panels::RIGHT, 80.0));
    let map = Vec2::new(width as f32, height as f32) * TILE_PX;
    let scale = (map.x / free.x.max(100.0)).max(map.y / free.y.max(100.0)).clamp(0.2, 8.0);
    if let Projection::Orthographic(ortho) = &mut *projection {
        ortho.scale = scale;
    }
    // The map's middle in the middle of the free part, between the panels.
    let middle = (map - Vec2::splat(TILE_PX)) / 2.0;
    let shift = Vec2::new((panels::RIGHT - panels::LEFT) / 2.0, 0.0) * scale;
    transform.translation = (middle + shift).extend(transform.translation.z);
}

/// What of the map the board shows besides the terrain of each square: when only terrain changes, the
/// tiles are given their new look in place instead of the whole board being built again (a brush stroke
/// on the biggest map stays quick).
#[derive(Clone, PartialEq)]
struct Ground {
    size: (i32, i32),
    scale: crate::rules::core::altitude::Scale,
    layers: Vec<Vec<String>>,
    edges: Vec<crate::data::level::EdgeDef>,
}

impl Ground {
    fn of(draft: &Draft) -> Ground {
        let d = &draft.def;
        Ground {
            size: draft.size(),
            scale: d.scale,
            layers: vec![d.darkness.clone(), d.fog.clone(), d.difficult.clone(), d.obstacles.clone()],
            edges: d.edges.clone(),
        }
    }
}

/// What the board was last drawn from.
#[derive(Default)]
struct Drawn {
    key: Option<(u64, Option<usize>)>,
    ground: Option<Ground>,
    looks: Vec<char>,
}

/// The map and the creatures of the draft, drawn again after each edit.
fn draw_draft(world: &mut World, mut drawn: Local<Drawn>) {
    let editor = world.resource::<Editor>();
    let key = Some((editor.generation, editor.selected));
    let mut parts = kept::<Entity, With<EditorPart>>(world);
    let fresh = parts.iter(world).next().is_none();
    if drawn.key == key && !fresh {
        return;
    }
    drawn.key = key;
    let editor = world.resource::<Editor>();
    let draft = editor.draft.clone();
    let selected = editor.selected;
    let ground = Ground::of(&draft);
    let (field, looks) = draft.battlefield();
    let mut tokens = kept::<Entity, With<EditorToken>>(world);
    let old: Vec<Entity> = tokens.iter(world).collect();
    for entity in old {
        world.entity_mut(entity).despawn();
    }
    if !fresh && drawn.ground.as_ref() == Some(&ground) && drawn.looks.len() == looks.len() {
        retile(world, &drawn.looks, &looks, ground.size);
    } else {
        let old: Vec<Entity> = parts.iter(world).collect();
        for entity in old {
            world.entity_mut(entity).despawn();
        }
        let texture: Handle<Image> = world.resource::<AssetServer>().load("tiles/terrain.png");
        let mut commands = world.commands();
        super::board::spawn_board(&mut commands, &field, &looks, texture, EditorPart);
        world.flush();
    }
    drawn.ground = Some(ground);
    drawn.looks = looks;
    let content = world.remove_resource::<EditorContent>().expect("the editor's content is loaded with it");
    draw_creatures(world, &draft, &content.0, selected);
    world.insert_resource(content);
}

/// Gives the tiles whose terrain changed their new look, in place.
fn retile(world: &mut World, old: &[char], new: &[char], (width, height): (i32, i32)) {
    use bevy_ecs_tilemap::prelude::{TilePos, TileStorage, TileTextureIndex};
    let mut storages = kept::<&TileStorage, With<EditorPart>>(world);
    let Some(storage) = storages.iter(world).next() else { return };
    let changed: Vec<(Entity, u32)> = (0..width * height)
        .filter(|&i| old.get(i as usize) != new.get(i as usize))
        .filter_map(|i| {
            let (x, y) = (i % width, i / width);
            let tile = storage.get(&TilePos { x: x as u32, y: (height - 1 - y) as u32 })?;
            Some((tile, super::board::tile_index(new[i as usize])))
        })
        .collect();
    for (tile, index) in changed {
        if let Some(mut texture) = world.get_mut::<TileTextureIndex>(tile) {
            texture.0 = index;
        }
    }
}

/// A token for each creature of the draft: a disc of its faction's colour, its portrait, its id.
fn draw_creatures(world: &mut World, draft: &Draft, content: &Content, selected: Option<usize>) {
    let height = draft.size().1;
    let size_of = Editor::size_of(content);
    for (i, placement) in draft.def.creatures.iter().enumerate() {
        let Some(at) = draft.placed_at(placement) else { continue };
        let size = size_of(placement);
        let space = crate::rules::core::creature::footprint_at(draft.def.scale, at, size);
        let side = super::tokens::token_side(draft.def.scale, size);
        let corner = square_centre(at, height);
        let mut centre = corner + Vec2::new((space.width - 1) as f32, -((space.height - 1) as f32)) * TILE_PX / 2.0;
        let rider = placement.rides.is_some();
        let side = if rider {
            centre += Vec2::new(side * 0.3, side * 0.3);
            side * 0.5
        } else {
            side
        };
        let rgb = draft
            .def
            .factions
            .iter()
            .find(|f| f.name == placement.faction)
            .and_then(|f| f.colour)
            .unwrap_or([150, 150, 150]);
        let colour = Color::srgb_u8(rgb[0], rgb[1], rgb[2]);
        let icon = content
            .templates
            .get(&placement.template)
            .and_then(|(_, t)| t.icon.clone())
            .unwrap_or_else(|| "generic".into());
        let image: Handle<Image> = world.resource::<AssetServer>().load(format!("icons/{icon}.png"));
        let ring = if selected == Some(i) { Color::srgb(1.0, 0.85, 0.2) } else { Color::srgb(0.05, 0.05, 0.05) };
        let z = if rider { 11.0 } else { 10.0 };
        world.spawn((EditorToken, Transform::from_translation(centre.extend(z)), Visibility::default())).with_children(
            |token| {
                token.spawn((Sprite::from_color(ring, Vec2::splat(side * 0.9)), Transform::from_xyz(0.0, 0.0, 0.0)));
                token.spawn((Sprite::from_color(colour, Vec2::splat(side * 0.8)), Transform::from_xyz(0.0, 0.0, 0.1)));
                token.spawn((
                    Sprite { image, custom_size: Some(Vec2::splat(side * 0.62)), ..default() },
                    Transform::from_xyz(0.0, 0.0, 0.2),
                ));
                token.spawn((
                    Text2d::new(placement.id.clone()),
                    TextFont { font_size: bevy::text::FontSize::Px(13.0), ..default() },
                    TextColor(Color::WHITE),
                    Transform::from_xyz(0.0, side * 0.5 + 2.0, 0.5),
                ));
            },
        );
    }
}

/// The rectangle being drawn, or the edge the edge tool would change, or the square under the cursor.
fn draw_cursor(mut commands: Commands, editor: Res<Editor>, old: Query<Entity, With<Cursor>>) {
    for entity in &old {
        commands.entity(entity).despawn();
    }
    let Some((square, side)) = editor.hover else { return };
    let height = editor.draft.size().1;
    let outline = Color::srgba(1.0, 0.9, 0.3, 0.9);
    let (from, to) = match (&editor.stroke, editor.tool) {
        (Stroke::Rectangle(from), _) => (*from, square),
        (_, Tool::Edge(_)) => {
            let centre = square_centre(square, height);
            let (dx, dy) = side.delta();
            let offset = Vec2::new(dx as f32, -dy as f32) * TILE_PX / 2.0;
            let size = if dx != 0 { Vec2::new(8.0, TILE_PX) } else { Vec2::new(TILE_PX, 8.0) };
            commands.spawn((
                Cursor,
                Sprite::from_color(outline, size),
                Transform::from_translation((centre + offset).extend(20.0)),
            ));
            return;
        }
        _ => (square, square),
    };
    let (low, high) =
        (Square::new(from.x.min(to.x), from.y.min(to.y)), Square::new(from.x.max(to.x), from.y.max(to.y)));
    let a = square_centre(low, height) + Vec2::new(-TILE_PX / 2.0, TILE_PX / 2.0);
    let b = square_centre(high, height) + Vec2::new(TILE_PX / 2.0, -TILE_PX / 2.0);
    let (w, h) = ((b.x - a.x).abs(), (b.y - a.y).abs());
    let mid = (a + b) / 2.0;
    for (offset, size) in [
        (Vec2::new(0.0, h / 2.0), Vec2::new(w, 3.0)),
        (Vec2::new(0.0, -h / 2.0), Vec2::new(w, 3.0)),
        (Vec2::new(w / 2.0, 0.0), Vec2::new(3.0, h)),
        (Vec2::new(-w / 2.0, 0.0), Vec2::new(3.0, h)),
    ] {
        commands.spawn((
            Cursor,
            Sprite::from_color(outline, size),
            Transform::from_translation((mid + offset).extend(20.0)),
        ));
    }
}

/// Plays the level being edited in the same window; Escape (with nothing left to cancel) or the end of
/// the fight comes back to the editor, its history intact. A level with problems is refused with them.
pub fn play_from_here(world: &mut World) {
    let mut editor = world.resource_mut::<Editor>();
    let Some(encounter) = editor.encounter.clone() else {
        let list: Vec<String> = editor.problems.iter().map(|p| p.message.clone()).collect();
        editor.status = Some((true, crate::tr!("editor-cannot-play", problems = list.join("\n"))));
        return;
    };
    editor.playing = true;
    let path = editor.path.clone();
    world.resource_mut::<super::LaunchOptions>().level = path;
    super::start(world, encounter);
    world.resource_mut::<NextState<AppState>>().set(AppState::Battle);
}

/// Back to the editor from a level played from it.
pub fn back_to_editor(world: &mut World) {
    if let Some(mut editor) = world.get_resource_mut::<Editor>() {
        editor.playing = false;
        world.resource_mut::<NextState<AppState>>().set(AppState::Edit);
    }
}

/// Escape in a level played from the editor, with no choice to cancel, goes back to the editor.
fn back_from_play(world: &mut World) {
    let playing = world.resource::<Editor>().playing;
    let escape = world.resource::<ButtonInput<KeyCode>>().just_pressed(KeyCode::Escape);
    let nothing_chosen = *world.resource::<super::state::Choice>() == super::state::Choice::default();
    if playing && escape && nothing_chosen {
        back_to_editor(world);
    }
}

/// The window's close button: with unsaved edits the editor asks first; otherwise the game ends.
fn close_requested(
    mut asked: MessageReader<bevy::window::WindowCloseRequested>,
    editor: Option<ResMut<Editor>>,
    mut next: ResMut<NextState<AppState>>,
    mut exit: MessageWriter<AppExit>,
) {
    if asked.read().count() == 0 {
        return;
    }
    match editor {
        Some(mut editor) if editor.dirty() => {
            editor.confirm = Some(Confirm::Quit);
            next.set(AppState::Edit);
        }
        _ => {
            exit.write(AppExit::Success);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_level_starts_with_the_players_default_house_rules() {
        let mut world = World::new();
        world.insert_resource(NextState::<AppState>::default());
        let mut settings = super::super::settings::Settings::default();
        settings.house_rules.flanking = false;
        settings.house_rules.attacks_of_opportunity = 2;
        world.insert_resource(settings.clone());
        let path = std::env::temp_dir().join("estoc-new-level.ron");
        open(&mut world, &EditRequest::New { width: 8, height: 6, path: path.clone() }).unwrap();
        assert_eq!(world.resource::<Editor>().draft.def.house_rules, settings.house_rules);
        // With the texts' default in the settings, a new level states none.
        world.insert_resource(super::super::settings::Settings::default());
        open(&mut world, &EditRequest::New { width: 8, height: 6, path }).unwrap();
        assert!(world.resource::<Editor>().draft.def.house_rules.is_default());
    }

    #[test]
    fn unsaved_edits_are_told_as_the_draft_and_the_file_change() {
        let mut world = World::new();
        world.insert_resource(NextState::<AppState>::default());
        let path = crate::data::levels_dir().join("skirmish.ron");
        open(&mut world, &EditRequest::Open(path)).unwrap();
        let mut editor = world.resource_mut::<Editor>();
        assert!(!editor.dirty(), "as on disk");
        assert!(editor.edit(|d| d.paint(crate::rules::core::geometry::Square::new(1, 1), ':')));
        assert!(editor.dirty(), "painted");
        assert!(editor.dirty(), "asked again, the same answer");
        editor.undo();
        assert!(!editor.dirty(), "undone: as on disk again");
    }
}
