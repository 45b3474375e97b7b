//! The level being edited: a [`LevelDef`] changed square by square and creature by creature, written
//! back as RON laid out like the hand-written levels, checked by the same [`check_level`] as every level,
//! and saved atomically. Every edit is a new draft, so undo and redo are a list of drafts.

use std::collections::BTreeSet;
use std::path::Path;

use super::content::Content;
use super::diagnostics::{Diagnostic, Diagnostics, Source, read_file};
use super::level::{
    Control, EdgeDef, Encounter, FactionDef, LevelDef, MAX_MAP_SIDE, MapSize, PlacementDef, check_level, terrain_of,
};
use crate::rules::core::battlefield::{Battlefield, EdgeFeature};
use crate::rules::core::creature::footprint_at;
use crate::rules::core::geometry::{Direction, Edge, Square};
use crate::rules::core::size::Size;

/// One of the level's optional layers laid over the terrain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Darkness.
    Darkness,
    /// Fog, smoke or foliage.
    Fog,
    /// Difficult ground laid over the square's terrain.
    Difficult,
    /// An obstacle laid over the square's terrain.
    Obstacles,
}

impl Layer {
    /// Every layer, in the order a level writes them.
    pub const ALL: [Layer; 4] = [Layer::Darkness, Layer::Fog, Layer::Difficult, Layer::Obstacles];

    /// Its key in a level file.
    pub fn key(self) -> &'static str {
        match self {
            Layer::Darkness => "darkness",
            Layer::Fog => "fog",
            Layer::Difficult => "difficult",
            Layer::Obstacles => "obstacles",
        }
    }
}

/// What a line of the written level is about: where a problem reported on that line points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineOf {
    /// The level as a whole (its name, size, factions).
    Level,
    /// A row of the terrain or of a layer.
    Row(i32),
    /// The n-th edge feature.
    Edge(usize),
    /// The n-th creature.
    Creature(usize),
}

/// A level being edited.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    /// The level as it would be written.
    pub def: LevelDef,
    /// The comment lines above the level in its file, kept as they were.
    pub preamble: String,
    /// The comment lines inside the level, each run with the start of the line it stands above (see
    /// [`anchor`]): written again above that line, or before the level's end if it is gone.
    pub comments: Vec<(String, Vec<String>)>,
}

/// What a comment is tied to: the start of the line below it, up to its first comma (`fog: [`,
/// `(id: "goblin-1"`, a terrain row).
fn anchor(line: &str) -> String {
    line.trim().split(',').next().unwrap_or_default().to_string()
}

/// The comments of a level file: those above its opening parenthesis, and the runs inside it with what
/// each stands above.
fn comments_of(text: &str) -> (String, Vec<(String, Vec<String>)>) {
    let mut preamble = String::new();
    let mut runs = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let mut opened = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("//") {
            run.push(trimmed.to_string());
        } else if trimmed.is_empty() {
            continue;
        } else if !opened {
            opened = true;
            for comment in run.drain(..) {
                preamble.push_str(&comment);
                preamble.push('\n');
            }
        } else if !run.is_empty() {
            runs.push((anchor(trimmed), std::mem::take(&mut run)));
        }
    }
    if !run.is_empty() {
        runs.push((")".to_string(), run));
    }
    (preamble, runs)
}

impl Draft {
    /// A new level of open ground with a wall around it, two factions (a person's and the computer's)
    /// and no creature yet.
    pub fn new(width: i32, height: i32) -> Result<Draft, String> {
        if !(3..=MAX_MAP_SIDE).contains(&width) || !(3..=MAX_MAP_SIDE).contains(&height) {
            return Err(format!("a new map is 3 to {MAX_MAP_SIDE} squares a side, not {width}x{height}"));
        }
        let terrain = (0..height)
            .map(|y| {
                (0..width)
                    .map(|x| if x == 0 || y == 0 || x == width - 1 || y == height - 1 { '#' } else { '.' })
                    .collect()
            })
            .collect();
        Ok(Draft {
            def: LevelDef {
                name: "New level".into(),
                description: String::new(),
                size: MapSize { width, height },
                terrain,
                darkness: Vec::new(),
                fog: Vec::new(),
                difficult: Vec::new(),
                obstacles: Vec::new(),
                edges: Vec::new(),
                scale: Default::default(),
                house_rules: Default::default(),
                pit_depth: crate::data::level::DEFAULT_PIT_DEPTH,
                factions: vec![
                    FactionDef { name: "heroes".into(), control: Control::Human, colour: Some([60, 120, 220]) },
                    FactionDef { name: "foes".into(), control: Control::Ai, colour: Some([200, 60, 50]) },
                ],
                creatures: Vec::new(),
            },
            preamble: String::new(),
            comments: Vec::new(),
        })
    }

    /// A level file as a draft: its text parsed, not yet checked (a draft may be invalid). The map's size
    /// is checked first, and rows and layers made as wide and high as it, so that editing never reads
    /// outside them.
    pub fn read(path: &Path) -> Result<Draft, Diagnostic> {
        let text = read_file(path)?;
        Draft::parse(path, &text)
    }

    /// [`Draft::read`] from text.
    pub fn parse(path: &Path, text: &str) -> Result<Draft, Diagnostic> {
        let source = Source::new(path, text);
        let mut def: LevelDef = source.parse()?;
        let MapSize { width, height } = def.size;
        if !(1..=MAX_MAP_SIDE).contains(&width) || !(1..=MAX_MAP_SIDE).contains(&height) {
            return Err(source.error(
                source.locate("size:", None),
                format!("map size {width}x{height} is refused: each side must be between 1 and {MAX_MAP_SIDE}"),
            ));
        }
        fit_rows(&mut def.terrain, width, height, '.');
        for layer in Layer::ALL {
            let rows = layer_rows_mut(&mut def, layer);
            if !rows.is_empty() {
                fit_rows(rows, width, height, ' ');
            }
        }
        let (preamble, comments) = comments_of(text);
        Ok(Draft { def, preamble, comments })
    }

    /// Width and height in squares.
    pub fn size(&self) -> (i32, i32) {
        (self.def.size.width, self.def.size.height)
    }

    /// Whether a square is on the map.
    pub fn contains(&self, square: Square) -> bool {
        let (width, height) = self.size();
        (0..width).contains(&square.x) && (0..height).contains(&square.y)
    }

    /// The level character of a square.
    pub fn look(&self, square: Square) -> char {
        if !self.contains(square) {
            return ' ';
        }
        self.def.terrain[square.y as usize].chars().nth(square.x as usize).unwrap_or('.')
    }

    /// Sets the terrain of a square to a level character (see `terrain_of`); whether it changed.
    pub fn paint(&mut self, square: Square, look: char) -> bool {
        if !self.contains(square) || terrain_of(look).is_none() || self.look(square) == look {
            return false;
        }
        set_char(&mut self.def.terrain[square.y as usize], square.x as usize, look);
        true
    }

    /// Paints every square of the rectangle with corners `a` and `b`; whether any changed.
    pub fn rectangle(&mut self, a: Square, b: Square, look: char) -> bool {
        let mut changed = false;
        for y in a.y.min(b.y)..=a.y.max(b.y) {
            for x in a.x.min(b.x)..=a.x.max(b.x) {
                changed |= self.paint(Square::new(x, y), look);
            }
        }
        changed
    }

    /// Paints the squares of the same terrain joined to `from` by their sides; whether any changed.
    pub fn flood(&mut self, from: Square, look: char) -> bool {
        let old = self.look(from);
        if !self.contains(from) || old == look || terrain_of(look).is_none() {
            return false;
        }
        let mut stack = vec![from];
        let mut seen = BTreeSet::new();
        while let Some(square) = stack.pop() {
            if !self.contains(square) || self.look(square) != old || !seen.insert(square) {
                continue;
            }
            self.paint(square, look);
            stack
                .extend([Direction::North, Direction::East, Direction::South, Direction::West].map(|d| square.step(d)));
        }
        true
    }

    /// Whether a layer lies on a square.
    pub fn layer(&self, layer: Layer, square: Square) -> bool {
        let rows = layer_rows(&self.def, layer);
        self.contains(square) && rows.get(square.y as usize).and_then(|r| r.chars().nth(square.x as usize)) == Some('*')
    }

    /// Lays a layer on a square or lifts it; whether it changed. A layer lifted from every square is
    /// left out of the file.
    pub fn set_layer(&mut self, layer: Layer, square: Square, on: bool) -> bool {
        if !self.contains(square) || self.layer(layer, square) == on {
            return false;
        }
        let (width, height) = self.size();
        let rows = layer_rows_mut(&mut self.def, layer);
        if rows.is_empty() {
            fit_rows(rows, width, height, ' ');
        }
        set_char(&mut rows[square.y as usize], square.x as usize, if on { '*' } else { ' ' });
        if rows.iter().all(|r| !r.contains('*')) {
            rows.clear();
        }
        true
    }

    /// The feature on one side of a square, wherever the level writes it (the east side of a square is the
    /// west side of the next).
    pub fn edge(&self, square: Square, side: Direction) -> Option<EdgeFeature> {
        let wanted = Edge::of_side(square, side)?;
        self.def.edges.iter().rev().find(|e| Edge::of_side(e.at, e.side) == Some(wanted)).map(|e| e.feature)
    }

    /// Puts a feature on one side of a square, or clears it; whether it changed.
    pub fn set_edge(&mut self, square: Square, side: Direction, feature: Option<EdgeFeature>) -> bool {
        let Some(wanted) = Edge::of_side(square, side) else { return false };
        if !self.contains(square) || self.edge(square, side) == feature {
            return false;
        }
        self.def.edges.retain(|e| Edge::of_side(e.at, e.side) != Some(wanted));
        if let Some(feature) = feature {
            self.def.edges.push(EdgeDef { at: square, side, feature });
        }
        true
    }

    /// The index of the creature standing on a square (a rider stands where its mount is; the rider is
    /// found first). The size of a template comes from `size_of`.
    pub fn creature_at(&self, square: Square, size_of: impl Fn(&PlacementDef) -> Size) -> Option<usize> {
        let covers = |p: &PlacementDef| {
            let at = self.placed_at(p)?;
            footprint_at(self.def.scale, at, size_of(p)).squares().any(|s| s == square).then_some(())
        };
        let riders = self.def.creatures.iter().enumerate().filter(|(_, p)| p.rides.is_some());
        let others = self.def.creatures.iter().enumerate().filter(|(_, p)| p.rides.is_none());
        riders.chain(others).find(|(_, p)| covers(p).is_some()).map(|(i, _)| i)
    }

    /// Where a creature stands: its own square, or its mount's.
    pub fn placed_at(&self, placement: &PlacementDef) -> Option<Square> {
        placement.at.or_else(|| {
            let mount = placement.rides.as_ref()?;
            self.def.creatures.iter().find(|c| &c.id == mount && c.rides.is_none())?.at
        })
    }

    /// A fresh id for a creature of a template: the template's name with the first unused number.
    pub fn fresh_id(&self, template: &str) -> String {
        let base = template.replace('_', "-");
        (1..).map(|n| format!("{base}-{n}")).find(|id| self.def.creatures.iter().all(|c| &c.id != id)).unwrap_or(base)
    }

    /// Places a new creature of a template for a faction; its index. It faces the middle of the map.
    pub fn place(&mut self, template: &str, faction: &str, at: Square) -> usize {
        let id = self.fresh_id(template);
        let heading = if at.x < self.def.size.width / 2 { Direction::East } else { Direction::West };
        self.def.creatures.push(PlacementDef {
            id,
            template: template.into(),
            faction: faction.into(),
            at: Some(at),
            rides: None,
            passenger: false,
            military_saddle: false,
            heading: Some(heading),
            altitude_m: 0.0,
            band: None,
            hovering: false,
            flying_m: 0.0,
            aware_of: None,
            lurking: false,
            overrides: Default::default(),
            conditions: Vec::new(),
            damage: 0,
            nonlethal: 0,
            temporary: 0,
        });
        self.def.creatures.len() - 1
    }

    /// Moves a creature (with its riders, who stand where it stands); whether it moved.
    pub fn move_creature(&mut self, index: usize, to: Square) -> bool {
        if !self.contains(to) {
            return false;
        }
        let Some(placement) = self.def.creatures.get_mut(index) else { return false };
        if placement.rides.is_some() || placement.at == Some(to) {
            return false;
        }
        placement.at = Some(to);
        true
    }

    /// Removes a creature; a creature riding it is set down where it stood, and others forget it.
    pub fn remove(&mut self, index: usize) -> bool {
        if index >= self.def.creatures.len() {
            return false;
        }
        let gone = self.def.creatures.remove(index);
        for other in &mut self.def.creatures {
            if other.rides.as_ref() == Some(&gone.id) {
                other.rides = None;
                other.passenger = false;
                other.at = gone.at;
            }
            if let Some(known) = &mut other.aware_of {
                known.retain(|id| id != &gone.id);
            }
        }
        true
    }

    /// Makes the map `width` by `height`: rows and layers cut or extended with open ground, edges off the
    /// map dropped. Creatures are kept (one off the map is a problem the check lists).
    pub fn resize(&mut self, width: i32, height: i32) -> Result<bool, String> {
        if !(1..=MAX_MAP_SIDE).contains(&width) || !(1..=MAX_MAP_SIDE).contains(&height) {
            return Err(format!("each side of a map is 1 to {MAX_MAP_SIDE} squares, not {width}x{height}"));
        }
        if self.size() == (width, height) {
            return Ok(false);
        }
        self.def.size = MapSize { width, height };
        fit_rows(&mut self.def.terrain, width, height, '.');
        for layer in Layer::ALL {
            let rows = layer_rows_mut(&mut self.def, layer);
            if !rows.is_empty() {
                fit_rows(rows, width, height, ' ');
            }
        }
        let on_map = |s: Square| (0..width).contains(&s.x) && (0..height).contains(&s.y);
        self.def.edges.retain(|e| on_map(e.at));
        Ok(true)
    }

    /// The map as the rules see it, whatever else is wrong with the draft, and the level character of
    /// each square.
    pub fn battlefield(&self) -> (Battlefield, Vec<char>) {
        let (width, height) = self.size();
        let mut field = Battlefield::open(width, height);
        field.set_scale(self.def.scale);
        field.set_house_rules(self.def.house_rules);
        field.set_pit_depth_m(self.def.pit_depth);
        let mut looks = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            for x in 0..width {
                let square = Square::new(x, y);
                let look = self.look(square);
                field.set_terrain(square, terrain_of(look).unwrap_or_default());
                looks.push(look);
                field.set_dark(square, self.layer(Layer::Darkness, square));
                field.set_fog(square, self.layer(Layer::Fog, square));
                field.set_difficult(square, self.layer(Layer::Difficult, square));
                field.set_obstacle(square, self.layer(Layer::Obstacles, square));
            }
        }
        for edge in &self.def.edges {
            if let Some(e) = Edge::of_side(edge.at, edge.side)
                && field.contains(edge.at)
            {
                field.set_edge(e, edge.feature);
            }
        }
        (field, looks)
    }

    /// The level as a file: the preamble's comments, then one key a line, one terrain row a line, one
    /// edge, faction and creature a line, keys left out where they hold their default.
    pub fn text(&self) -> String {
        self.text_and_lines().0
    }

    /// [`Draft::text`], with what each line of it is about.
    pub fn text_and_lines(&self) -> (String, Vec<LineOf>) {
        let mut out = Writer { comments: self.comments.clone(), ..Writer::default() };
        for line in self.preamble.lines() {
            out.line(line, LineOf::Level);
        }
        let d = &self.def;
        out.line("(", LineOf::Level);
        out.line(&format!("    name: {},", one_line(&d.name)), LineOf::Level);
        if !d.description.is_empty() {
            out.line(&format!("    description: {},", one_line(&d.description)), LineOf::Level);
        }
        out.line(&format!("    size: (width: {}, height: {}),", d.size.width, d.size.height), LineOf::Level);
        if !d.scale.is_normal() {
            out.line(&format!("    scale: {},", one_line(&d.scale)), LineOf::Level);
        }
        if !d.house_rules.is_default() {
            out.line(&format!("    house_rules: {},", one_line(&d.house_rules)), LineOf::Level);
        }
        if d.pit_depth != crate::data::level::DEFAULT_PIT_DEPTH {
            out.line(&format!("    pit_depth: {},", one_line(&d.pit_depth)), LineOf::Level);
        }
        let rows = |out: &mut Writer, key: &str, rows: &[String]| {
            out.line(&format!("    {key}: ["), LineOf::Level);
            for (y, row) in rows.iter().enumerate() {
                out.line(&format!("        {},", one_line(row)), LineOf::Row(y as i32));
            }
            out.line("    ],", LineOf::Level);
        };
        rows(&mut out, "terrain", &d.terrain);
        for layer in Layer::ALL {
            let layer_rows = layer_rows(d, layer);
            if !layer_rows.is_empty() {
                rows(&mut out, layer.key(), layer_rows);
            }
        }
        if !d.edges.is_empty() {
            out.line("    edges: [", LineOf::Level);
            for (i, edge) in d.edges.iter().enumerate() {
                out.line(&format!("        {},", one_line(edge)), LineOf::Edge(i));
            }
            out.line("    ],", LineOf::Level);
        }
        out.line("    factions: [", LineOf::Level);
        for faction in &d.factions {
            out.line(&format!("        {},", one_line(faction)), LineOf::Level);
        }
        out.line("    ],", LineOf::Level);
        out.line("    creatures: [", LineOf::Level);
        for (i, creature) in d.creatures.iter().enumerate() {
            out.line(&format!("        {},", one_line(creature)), LineOf::Creature(i));
        }
        out.line("    ],", LineOf::Level);
        out.line(")", LineOf::Level);
        (out.text, out.lines)
    }

    /// Checks the draft as `estoc check` checks a level file at `path`.
    pub fn check(&self, path: &Path, content: &Content) -> Result<Encounter, Diagnostics> {
        check_level(path, &self.text(), content)
    }

    /// Saves the draft to `path`: written to a temporary file beside it, then renamed over it, so that a
    /// failed write leaves the old file whole.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, &self.text())
    }
}

/// Writes `text` to a temporary file beside `path`, then renames it over `path`: a failed write leaves
/// the old file whole.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let temporary = path.with_file_name(name);
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(text.as_bytes())?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, path)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    Ok(())
}

/// The lines of a written level and what each is about.
#[derive(Default)]
struct Writer {
    text: String,
    lines: Vec<LineOf>,
    /// The comments not written yet.
    comments: Vec<(String, Vec<String>)>,
}

impl Writer {
    /// Writes a line, after the comments that stood above it; the level's last line, after every comment
    /// left.
    fn line(&mut self, line: &str, of: LineOf) {
        let key = anchor(line);
        let last = line == ")";
        let indent = if last { "    " } else { &line[..line.len() - line.trim_start().len()] };
        let mut taken = false;
        let mut kept = Vec::new();
        for (a, comments) in std::mem::take(&mut self.comments) {
            // The first run tied to this line goes above it; another tied to the same start waits for the next
            // such line; the level's end takes every run left.
            if last || (a == key && !taken) {
                taken = true;
                for comment in comments {
                    self.text.push_str(&format!("{indent}{comment}\n"));
                    self.lines.push(of);
                }
            } else {
                kept.push((a, comments));
            }
        }
        self.comments = kept;
        self.text.push_str(line);
        self.text.push('\n');
        self.lines.push(of);
    }
}

/// A value as RON on one line: `(id: "goblin-1", template: "goblin", at: (7, 4))`.
fn one_line<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let config = ron::ser::PrettyConfig::new()
        .new_line("")
        .indentor("")
        .separator(" ")
        .compact_arrays(true)
        .compact_structs(true)
        .struct_names(false);
    // `Some` is left implicit, as the levels are read (`at: (2, 4)`, not `at: Some((2, 4))`). Every value
    // here is made of strings, numbers, enums, options and lists: it always serialises.
    // An apostrophe needs no escape in a RON string (`"The dragon's roost"`).
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    options.to_string_pretty(value, config).unwrap_or_default().replace("\\'", "'")
}

fn layer_rows(def: &LevelDef, layer: Layer) -> &Vec<String> {
    match layer {
        Layer::Darkness => &def.darkness,
        Layer::Fog => &def.fog,
        Layer::Difficult => &def.difficult,
        Layer::Obstacles => &def.obstacles,
    }
}

fn layer_rows_mut(def: &mut LevelDef, layer: Layer) -> &mut Vec<String> {
    match layer {
        Layer::Darkness => &mut def.darkness,
        Layer::Fog => &mut def.fog,
        Layer::Difficult => &mut def.difficult,
        Layer::Obstacles => &mut def.obstacles,
    }
}

/// Makes `rows` exactly `height` rows of `width` characters, cutting or filling with `fill`.
fn fit_rows(rows: &mut Vec<String>, width: i32, height: i32, fill: char) {
    let (width, height) = (width.max(0) as usize, height.max(0) as usize);
    rows.resize(height, String::new());
    for row in rows {
        let count = row.chars().count();
        if count > width {
            *row = row.chars().take(width).collect();
        } else if count < width {
            row.extend(std::iter::repeat_n(fill, width - count));
        }
    }
}

/// Replaces the `x`-th character of a row.
fn set_char(row: &mut String, x: usize, c: char) {
    *row = row.chars().enumerate().map(|(i, old)| if i == x { c } else { old }).collect();
}

/// The list of drafts behind and ahead of the one being edited: undo and redo without limit.
#[derive(Clone, Debug, Default)]
pub struct EditHistory {
    past: Vec<Draft>,
    future: Vec<Draft>,
}

impl EditHistory {
    /// Records the draft as it was before an edit; the edits undone are forgotten.
    pub fn record(&mut self, before: Draft) {
        self.past.push(before);
        self.future.clear();
    }

    /// Goes back one edit: the draft before it, the current one kept for redo.
    pub fn undo(&mut self, current: &mut Draft) -> bool {
        let Some(before) = self.past.pop() else { return false };
        self.future.push(std::mem::replace(current, before));
        true
    }

    /// Goes forward one edit undone.
    pub fn redo(&mut self, current: &mut Draft) -> bool {
        let Some(after) = self.future.pop() else { return false };
        self.past.push(std::mem::replace(current, after));
        true
    }

    /// Edits that can be undone, and redone.
    pub fn counts(&self) -> (usize, usize) {
        (self.past.len(), self.future.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft() -> Draft {
        Draft::new(6, 5).unwrap()
    }

    #[test]
    fn a_new_map_is_walled_and_open() {
        let d = draft();
        assert_eq!(d.look(Square::new(0, 0)), '#');
        assert_eq!(d.look(Square::new(2, 2)), '.');
        assert!(Draft::new(2, 10).is_err());
        assert!(Draft::new(10, MAX_MAP_SIDE + 1).is_err());
    }

    #[test]
    fn painting_a_rectangle_and_a_flood() {
        let mut d = draft();
        assert!(d.rectangle(Square::new(1, 1), Square::new(2, 2), ':'));
        assert_eq!(d.look(Square::new(2, 2)), ':');
        assert_eq!(d.look(Square::new(3, 2)), '.');
        // The flood fills the open ground joined to (4, 3), not the rubble nor the walls around.
        assert!(d.flood(Square::new(4, 3), '~'));
        assert_eq!(d.look(Square::new(1, 3)), '~');
        assert_eq!(d.look(Square::new(1, 1)), ':');
        assert_eq!(d.look(Square::new(0, 3)), '#');
        assert!(!d.paint(Square::new(9, 9), '#'), "off the map");
        assert!(!d.paint(Square::new(1, 1), '?'), "no such terrain");
    }

    #[test]
    fn an_edge_is_one_whichever_square_names_it() {
        let mut d = draft();
        assert!(d.set_edge(Square::new(2, 2), Direction::East, Some(EdgeFeature::Wall)));
        assert_eq!(d.edge(Square::new(3, 2), Direction::West), Some(EdgeFeature::Wall));
        assert!(d.set_edge(Square::new(3, 2), Direction::West, Some(EdgeFeature::LowWall)));
        assert_eq!(d.def.edges.len(), 1);
        assert!(d.set_edge(Square::new(2, 2), Direction::East, None));
        assert!(d.def.edges.is_empty());
    }

    #[test]
    fn layers_come_and_go() {
        let mut d = draft();
        assert!(d.set_layer(Layer::Fog, Square::new(1, 1), true));
        assert!(d.layer(Layer::Fog, Square::new(1, 1)));
        assert_eq!(d.def.fog.len(), 5);
        assert!(d.set_layer(Layer::Fog, Square::new(1, 1), false));
        assert!(d.def.fog.is_empty(), "a layer on no square is left out");
    }

    #[test]
    fn undo_and_redo_walk_the_edits() {
        let mut d = draft();
        let mut history = EditHistory::default();
        let first = d.clone();
        history.record(d.clone());
        d.paint(Square::new(1, 1), '~');
        let second = d.clone();
        history.record(d.clone());
        d.place("goblin", "foes", Square::new(3, 3));
        assert!(history.undo(&mut d));
        assert_eq!(d, second);
        assert!(history.undo(&mut d));
        assert_eq!(d, first);
        assert!(!history.undo(&mut d));
        assert!(history.redo(&mut d));
        assert!(history.redo(&mut d));
        assert_eq!(d.def.creatures.len(), 1);
        assert!(!history.redo(&mut d));
        // A new edit forgets what was undone.
        history.undo(&mut d);
        history.record(d.clone());
        assert_eq!(history.counts(), (2, 0));
    }

    #[test]
    fn ids_are_fresh_and_riders_are_set_down_with_their_mount_gone() {
        let mut d = draft();
        let horse = d.place("warhorse", "heroes", Square::new(1, 1));
        let knight = d.place("human_fighter", "heroes", Square::new(3, 3));
        assert_eq!(d.def.creatures[horse].id, "warhorse-1");
        assert_eq!(d.fresh_id("warhorse"), "warhorse-2");
        d.def.creatures[knight].at = None;
        d.def.creatures[knight].rides = Some("warhorse-1".into());
        assert_eq!(d.creature_at(Square::new(2, 2), |_| Size::Large), Some(knight), "the rider first");
        d.remove(horse);
        assert_eq!(d.def.creatures[0].at, Some(Square::new(1, 1)));
        assert_eq!(d.def.creatures[0].rides, None);
    }

    #[test]
    fn resizing_keeps_the_rows_and_drops_edges_off_the_map() {
        let mut d = draft();
        d.set_edge(Square::new(4, 3), Direction::North, Some(EdgeFeature::Wall));
        d.set_layer(Layer::Darkness, Square::new(1, 1), true);
        assert_eq!(d.resize(3, 8), Ok(true));
        assert!(d.def.terrain.iter().all(|r| r.chars().count() == 3));
        assert_eq!(d.def.terrain.len(), 8);
        assert_eq!(d.def.darkness.len(), 8);
        assert!(d.def.edges.is_empty());
        assert!(d.resize(0, 4).is_err());
    }

    #[test]
    fn the_text_reads_back_as_the_same_draft() {
        let mut d = draft();
        d.preamble = "// A test level.\n".into();
        d.def.description = "Two \"quoted\" words.".into();
        d.set_edge(Square::new(2, 2), Direction::South, Some(EdgeFeature::LowWall));
        d.set_layer(Layer::Obstacles, Square::new(3, 3), true);
        let i = d.place("goblin", "foes", Square::new(3, 2));
        d.def.creatures[i].overrides.hit_points = Some(3);
        d.def.creatures[i].conditions.push(crate::rules::core::creature::Condition::Prone);
        let text = d.text();
        assert!(text.starts_with("// A test level.\n(\n    name: \"New level\",\n"), "{text}");
        assert!(
            text.contains("        (id: \"goblin-1\", template: \"goblin\", faction: \"foes\", at: (3, 2)"),
            "{text}"
        );
        let back = Draft::parse(Path::new("t.ron"), &text).unwrap();
        assert_eq!(back, d);
        let (_, lines) = d.text_and_lines();
        assert_eq!(lines.len(), text.lines().count());
        let line = text.lines().position(|l| l.contains("goblin-1")).unwrap();
        assert_eq!(lines[line], LineOf::Creature(i));
    }

    #[test]
    fn comments_stay_above_their_lines() {
        let mut d = draft();
        d.place("goblin", "foes", Square::new(3, 2));
        d.set_edge(Square::new(2, 2), Direction::South, Some(EdgeFeature::LowWall));
        let text = d
            .text()
            .replace("    edges: [", "    // The hedge.\n    edges: [")
            .replace("        (id: \"goblin-1\"", "        // The sentry.\n        (id: \"goblin-1\"");
        let mut back = Draft::parse(Path::new("t.ron"), &text).unwrap();
        assert_eq!(back.text(), text);
        // The creature gone, its comment is kept before the level's end.
        back.remove(0);
        assert!(back.text().ends_with("    // The sentry.\n)\n"), "{}", back.text());
    }

    #[test]
    fn a_failed_save_leaves_the_old_file() {
        let dir = std::env::temp_dir().join(format!("estoc-draft-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("level.ron");
        std::fs::write(&path, "old").unwrap();
        // The temporary file's place is taken by a folder: the write fails, the old file stays.
        std::fs::create_dir_all(dir.join("level.ron.tmp")).unwrap();
        assert!(draft().save(&path).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        std::fs::remove_dir_all(dir.join("level.ron.tmp")).unwrap();
        draft().save(&path).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("New level"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
