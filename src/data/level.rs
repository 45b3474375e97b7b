//! Levels: a RON file under `levels/` parsed into a raw [`LevelDef`], validated into a checked
//! [`Encounter`] with every problem located (file, line, column, meaning), then spawned. Start,
//! restart, hot reload and the editor all take this one path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::content::{Content, Stats, TemplateOverrides};
use super::diagnostics::{Diagnostic, Diagnostics, Source, read_file};
use crate::rules::core::altitude::{HIGHEST_BAND, Scale};
use crate::rules::core::battlefield::{Battlefield, EdgeFeature, HouseRules, Terrain};
use crate::rules::core::creature::{Condition, CreatureId, Maneuverability, footprint_at};
use crate::rules::core::geometry::{Direction, Edge, Square};

/// The largest map side accepted, in squares: a larger map is refused before anything is allocated.
pub const MAX_MAP_SIDE: i32 = 256;

/// Who plays a faction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Control {
    /// A person at the computer (hot-seat when several factions are human).
    #[default]
    Human,
    /// The computer.
    Ai,
}

/// A faction as written in a level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactionDef {
    /// Name, as creatures refer to it.
    pub name: String,
    /// Who plays it.
    #[serde(default)]
    pub control: Control,
    /// Token colour as `[r, g, b]` from 0 to 255.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<[u8; 3]>,
}

/// Map dimensions in squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSize {
    /// Squares from west to east.
    pub width: i32,
    /// Squares from north to south.
    pub height: i32,
}

/// A feature on the edge of a square.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeDef {
    /// The square.
    pub at: Square,
    /// Which of its sides: North, East, South or West.
    pub side: Direction,
    /// What stands there.
    pub feature: EdgeFeature,
}

/// A creature placed in a level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementDef {
    /// Unique id ("goblin-2").
    pub id: String,
    /// Template file stem under `assets/creatures/`.
    pub template: String,
    /// Faction name.
    pub faction: String,
    /// North-west square of its footprint; none for a creature that rides (it is where its mount is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Square>,
    /// The id of the creature it rides from the start (004:653): it shares its squares, height and turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rides: Option<String>,
    /// It rides as a passenger: it acts on the rider's turn but does not direct the mount (004:655).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub passenger: bool,
    /// It wears a military saddle: a rider knocked out on it stays on 75% of the time, not 50% (004:482).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub military_saddle: bool,
    /// Facing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<Direction>,
    /// Altitude in metres (fliers), a multiple of 1.5.
    #[serde(default, skip_serializing_if = "is_zero_f32")]
    pub altitude_m: f32,
    /// Altitude band at chase scale, 0 (the ground) to 6 (004:788-797), instead of `altitude_m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<u8>,
    /// A flier aloft hovering as the battle begins: flying on from a hover costs it a move action (004:708).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hovering: bool,
    /// Metres a flier aloft flew in the round before the battle: its speed until it flies (what a collision
    /// reads, 004:827); none if it hovered or was still.
    #[serde(default, skip_serializing_if = "is_zero_f32")]
    pub flying_m: f32,
    /// The creatures it knows of at the start; absent: all of them (004:58-60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aware_of: Option<Vec<String>>,
    /// Lying in wait: each foe must spot it (Spot against its Hide) to be aware of it at the start
    /// (004:56-58).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lurking: bool,
    /// Changes to the template for this creature.
    #[serde(default, skip_serializing_if = "TemplateOverrides::is_empty")]
    pub overrides: TemplateOverrides,
    /// Conditions it starts with (`prone`, `helpless` for a sleeping guard, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Damage it has already taken: it starts with that many hit points fewer (and dying below 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub damage: i32,
    /// Nonlethal damage it has already taken.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nonlethal: i32,
    /// Temporary hit points it starts with (a spell cast before the fight): lost first (004:298-299).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub temporary: i32,
}

/// A level as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelDef {
    /// Title.
    pub name: String,
    /// A line or two for the level menu.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Dimensions.
    pub size: MapSize,
    /// One string per row, one character per square (see docs/levels.md).
    pub terrain: Vec<String>,
    /// Optional darkness rows, same size: `*` dark, anything else lit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub darkness: Vec<String>,
    /// Optional fog rows, same size: `*` fog, smoke or foliage (concealment 20%), anything else clear.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fog: Vec<String>,
    /// Optional difficult-ground rows, same size: `*` difficult terrain laid over the square's terrain
    /// (rubble in the dark, undergrowth round a boulder: the costs multiply, 003:47).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub difficult: Vec<String>,
    /// Optional obstacle rows, same size: `*` an obstacle laid over the square's terrain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub obstacles: Vec<String>,
    /// Walls and obstacles on edges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<EdgeDef>,
    /// `Normal` (1.5 m squares, the default) or `Chase` (9 m squares, altitude in bands, 004:647-652).
    #[serde(default, skip_serializing_if = "Scale::is_normal")]
    pub scale: Scale,
    /// The table's switches against the texts (flanking, massive damage, critical confirmation, attacks of
    /// opportunity a round); absent: the texts'.
    #[serde(default, skip_serializing_if = "HouseRules::is_default")]
    pub house_rules: HouseRules,
    /// How deep its pits are, in metres: a creature pushed into one falls that far (our ruling,
    /// docs/rulings.md); absent: 3 m.
    #[serde(default = "default_pit_depth", skip_serializing_if = "is_default_pit_depth")]
    pub pit_depth: f32,
    /// Factions.
    pub factions: Vec<FactionDef>,
    /// Creatures.
    pub creatures: Vec<PlacementDef>,
}

/// A pit's depth when a level gives none, in metres (our ruling, docs/rulings.md).
pub const DEFAULT_PIT_DEPTH: f32 = 3.0;

/// The deepest pit a level may give, in metres: deeper falls deal no more (20d6 at 60 m).
pub const MAX_PIT_DEPTH: f32 = 1000.0;

fn default_pit_depth() -> f32 {
    DEFAULT_PIT_DEPTH
}

/// Whether a pit depth is the default one, for a level that leaves it out.
fn is_default_pit_depth(depth: &f32) -> bool {
    *depth == DEFAULT_PIT_DEPTH
}

/// Whether a number is 0, for the fields a level leaves out when they are.
fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// Whether an altitude is 0, for the fields a level leaves out when they are.
fn is_zero_f32(n: &f32) -> bool {
    *n == 0.0
}

/// The terrain a level character stands for, and the look the view gives it.
pub fn terrain_of(c: char) -> Option<Terrain> {
    Some(match c {
        '.' | ',' => Terrain::Floor,
        ':' | 'T' => Terrain::Difficult,
        '%' => Terrain::Obstacle,
        '=' => Terrain::LowWall,
        '#' => Terrain::Wall,
        'O' => Terrain::Pit,
        '~' => Terrain::Water,
        'W' => Terrain::DeepWater,
        _ => return None,
    })
}

/// A terrain as an error message names it.
fn terrain_name(terrain: Terrain) -> &'static str {
    match terrain {
        Terrain::Floor => "open ground",
        Terrain::Difficult => "difficult terrain",
        Terrain::Obstacle => "an obstacle",
        Terrain::LowWall => "a low wall",
        Terrain::Wall => "a wall",
        Terrain::Pit => "a pit",
        Terrain::Water => "water",
        Terrain::DeepWater => "deep water",
    }
}

/// A creature checked and ready to spawn.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureSpec {
    /// Id.
    pub id: CreatureId,
    /// Template stem.
    pub template: String,
    /// Faction.
    pub faction: String,
    /// Where it stands.
    pub at: Square,
    /// Facing.
    pub heading: Direction,
    /// Altitude in 1.5 m steps.
    pub altitude: i32,
    /// Who it knows of at the start.
    pub aware_of: Option<BTreeSet<CreatureId>>,
    /// Lying in wait: its foes spot it or are unaware of it (004:56-58).
    pub lurking: bool,
    /// Its numbers.
    pub stats: Stats,
    /// Conditions at the start.
    pub conditions: Vec<Condition>,
    /// The mount it rides from the start, and whether as a passenger (004:653-655).
    pub rides: Option<(CreatureId, bool)>,
    /// It wears a military saddle (004:482).
    pub military_saddle: bool,
    /// Aloft, it hovers as the battle begins (004:708).
    pub hovering: bool,
    /// Aloft, the metres it flew in the round before the battle (004:827).
    pub flying_m: f32,
}

/// A checked level: a legal starting position for a fight.
#[derive(Clone, Debug, PartialEq)]
pub struct Encounter {
    /// The file it came from.
    pub source: PathBuf,
    /// Title.
    pub name: String,
    /// Description.
    pub description: String,
    /// The map.
    pub battlefield: Battlefield,
    /// The level character of each square, row by row (the view picks art by it).
    pub looks: Vec<char>,
    /// Factions in the order written.
    pub factions: Vec<FactionDef>,
    /// Creatures in the order written.
    pub creatures: Vec<CreatureSpec>,
}

impl Encounter {
    /// The colour of a faction as the level gives it, grey if it gives none.
    pub fn faction_rgb(&self, faction: &str) -> [u8; 3] {
        self.factions.iter().find(|f| f.name == faction).and_then(|f| f.colour).unwrap_or([150, 150, 150])
    }
}

/// Reads, parses and validates a level file against the content.
pub fn load_level(path: &Path, content: &Content) -> Result<Encounter, Diagnostics> {
    let text = read_file(path).map_err(|d| Diagnostics(vec![d]))?;
    check_level(path, &text, content)
}

/// Parses and validates level text; every problem found is listed, each located.
pub fn check_level(path: &Path, text: &str, content: &Content) -> Result<Encounter, Diagnostics> {
    let source = Source::new(path, text);
    let def: LevelDef = source.parse().map_err(|d| Diagnostics(vec![d]))?;
    validate(&source, def, content)
}

fn validate(source: &Source<'_>, def: LevelDef, content: &Content) -> Result<Encounter, Diagnostics> {
    let mut problems: Vec<Diagnostic> = Vec::new();
    let size_at = source.locate("size:", None);
    let MapSize { width, height } = def.size;
    if width < 1 || height < 1 || width > MAX_MAP_SIDE || height > MAX_MAP_SIDE {
        return Err(Diagnostics(vec![source.error(
            size_at,
            format!("map size {width}x{height} is refused: each side must be between 1 and {MAX_MAP_SIDE} squares"),
        )]));
    }
    let (field, looks) = read_map(source, &def, &mut problems);
    if !(def.pit_depth.is_finite() && def.pit_depth > 0.0 && def.pit_depth <= MAX_PIT_DEPTH) {
        problems.push(source.error(
            source.locate("pit_depth:", None),
            format!("pit_depth {} is refused: give metres more than 0 and at most {MAX_PIT_DEPTH}", def.pit_depth),
        ));
    }
    let faction_names = check_factions(source, &def, &mut problems);
    let ids: BTreeSet<&str> = def.creatures.iter().map(|c| c.id.as_str()).collect();
    let mut seen = BTreeSet::new();
    let mut creatures = Vec::new();
    for placement in &def.creatures {
        let checks = Placing { source, def: &def, content, field: &field, faction_names: &faction_names, ids: &ids };
        if let Some(spec) = place_creature(&checks, placement, &mut seen, &mut problems) {
            creatures.push(spec);
        }
    }
    check_riders(source, &creatures, &mut problems);
    check_overlaps(source, def.scale, &creatures, &mut problems);
    Diagnostics(problems).into_result(Encounter {
        source: source.path.to_path_buf(),
        name: def.name,
        description: def.description,
        battlefield: field,
        looks,
        factions: def.factions,
        creatures,
    })
}

/// One of the map's optional layers (`darkness`, `fog`, `difficult`, `obstacles`): as many rows as the map,
/// each as wide, `*` where the layer lies; each row of the wrong length is reported where it is written.
fn read_layer(
    source: &Source<'_>,
    name: &str,
    rows: &[String],
    (width, height): (i32, i32),
    problems: &mut Vec<Diagnostic>,
    mut set: impl FnMut(Square, bool),
) {
    if rows.is_empty() {
        return;
    }
    let start = source.find_from(0, &format!("{name}:")).unwrap_or(0);
    let offsets: Vec<usize> = quoted_strings(source.text, start, rows.len())
        .iter()
        .map(|chars| chars.first().map_or(start, |c| c - 1))
        .collect();
    if rows.len() != height as usize {
        problems.push(source.error_at(start, format!("{name} has {} rows but the map is {height} high", rows.len())));
    }
    for (y, row) in rows.iter().enumerate().take(height as usize) {
        let squares = row.chars().count();
        if squares != width as usize {
            let at = offsets.get(y).copied().unwrap_or(start);
            problems
                .push(source.error_at(at, format!("{name} row {y} has {squares} squares but the map is {width} wide")));
        }
        for (x, c) in row.chars().enumerate().take(width as usize) {
            set(Square::new(x as i32, y as i32), c == '*');
        }
    }
}

/// The map of a level: its terrain row by row, its darkness and fog, its edges; and the level character
/// of each square, for the view.
fn read_map(source: &Source<'_>, def: &LevelDef, problems: &mut Vec<Diagnostic>) -> (Battlefield, Vec<char>) {
    let MapSize { width, height } = def.size;
    let mut field = Battlefield::open(width, height);
    field.set_scale(def.scale);
    field.set_house_rules(def.house_rules);
    field.set_pit_depth_m(def.pit_depth);
    let mut looks = vec!['.'; (width * height) as usize];
    // Rows: the k-th quoted string after `terrain:` is row k.
    let rows_start = source.find_from(0, "terrain:").unwrap_or(0);
    let row_chars = quoted_strings(source.text, rows_start, def.terrain.len());
    let row_offsets: Vec<usize> =
        row_chars.iter().map(|chars| chars.first().map_or(rows_start, |c| c.saturating_sub(1))).collect();
    if def.terrain.len() != height as usize {
        problems.push(
            source.error_at(rows_start, format!("terrain has {} rows but the map is {height} high", def.terrain.len())),
        );
    }
    for (y, row) in def.terrain.iter().enumerate().take(height as usize) {
        let row_at = row_offsets.get(y).copied().unwrap_or(rows_start);
        if row.chars().count() != width as usize {
            problems.push(
                source.error_at(
                    row_at,
                    format!("row {y} has {} squares but the map is {width} wide", row.chars().count()),
                ),
            );
        }
        for (x, c) in row.chars().enumerate().take(width as usize) {
            let square = Square::new(x as i32, y as i32);
            match terrain_of(c) {
                Some(terrain) => {
                    field.set_terrain(square, terrain);
                    looks[y * width as usize + x] = c;
                }
                None => problems.push(source.error_at(
                    row_chars.get(y).and_then(|chars| chars.get(x)).copied().unwrap_or(row_at),
                    format!("unknown terrain {c:?} at {square} (see docs/levels.md for the legend)"),
                )),
            }
        }
    }
    type Setter = fn(&mut Battlefield, Square, bool);
    let layers: [(&str, &[String], Setter); 4] = [
        ("darkness", &def.darkness, Battlefield::set_dark),
        ("fog", &def.fog, Battlefield::set_fog),
        ("difficult", &def.difficult, Battlefield::set_difficult),
        ("obstacles", &def.obstacles, Battlefield::set_obstacle),
    ];
    for (name, rows, set) in layers {
        read_layer(source, name, rows, (width, height), problems, |square, on| set(&mut field, square, on));
    }
    for edge in &def.edges {
        let at = source.locate(&format!("({}, {})", edge.at.x, edge.at.y), Some("side:"));
        if !field.contains(edge.at) {
            problems.push(source.error(at, format!("edge at {} is outside the {width}x{height} map", edge.at)));
            continue;
        }
        match Edge::of_side(edge.at, edge.side) {
            Some(e) => field.set_edge(e, edge.feature),
            None => {
                problems.push(source.error(at, format!("edge side {:?} must be North, East, South or West", edge.side)))
            }
        }
    }
    (field, looks)
}

/// The factions of a level: at least one, each named once. Their names.
fn check_factions<'a>(source: &Source<'_>, def: &'a LevelDef, problems: &mut Vec<Diagnostic>) -> BTreeSet<&'a str> {
    let mut faction_names = BTreeSet::new();
    for faction in &def.factions {
        if !faction_names.insert(faction.name.as_str()) {
            problems.push(source.error(
                source.locate(&format!("\"{}\"", faction.name), None),
                format!("faction {:?} is defined twice", faction.name),
            ));
        }
    }
    if def.creatures.is_empty() {
        problems.push(source.error(source.locate("creatures:", None), "a level needs at least one creature"));
    }
    if def.factions.is_empty() {
        problems.push(source.error(source.locate("factions:", None), "a level needs at least one faction"));
    }
    faction_names
}

/// What placing a creature is checked against: the level, the templates, the map, the factions and the
/// ids of every creature of the level.
struct Placing<'a> {
    source: &'a Source<'a>,
    def: &'a LevelDef,
    content: &'a Content,
    field: &'a Battlefield,
    faction_names: &'a BTreeSet<&'a str>,
    ids: &'a BTreeSet<&'a str>,
}

/// A creature of the level placed: its id once, a known faction, the creatures it knows of, its altitude
/// or band, its template and overrides, where it stands or the mount it rides, that it fits there, and
/// its hit points; every problem listed, `None` when it cannot be placed.
#[expect(
    clippy::too_many_lines,
    reason = "each key of a creature's placement checked in turn, each with its located error"
)]
fn place_creature<'a>(
    checks: &Placing<'a>,
    placement: &'a PlacementDef,
    seen: &mut BTreeSet<&'a str>,
    problems: &mut Vec<Diagnostic>,
) -> Option<CreatureSpec> {
    let Placing { source, def, content, field, faction_names, ids } = *checks;
    let (width, height) = (field.width(), field.height());
    let chase = def.scale == Scale::Chase;
    let anchor = format!("\"{}\"", placement.id);
    // The id's own value marks its entry; every other key comes after it.
    let at = |key: &str| source.locate(&anchor, (key != "id:").then_some(key));
    let who = &placement.id;
    if !seen.insert(placement.id.as_str()) {
        problems.push(source.error(at("id:"), format!("creature id {who:?} is used twice")));
    }
    if !faction_names.contains(placement.faction.as_str()) {
        problems
            .push(source.error(at("faction:"), format!("creature {who:?}: unknown faction {:?}", placement.faction)));
    }
    for other in placement.aware_of.iter().flatten() {
        if !ids.contains(other.as_str()) {
            problems.push(
                source.error(
                    at("aware_of:"),
                    format!("creature {who:?} is aware of {other:?}, which is not in the level"),
                ),
            );
        }
    }
    let altitude = match (chase, placement.band) {
        (true, Some(band)) if band <= HIGHEST_BAND => i32::from(band),
        (true, Some(band)) => {
            problems.push(source.error(
                at("band:"),
                format!("creature {who:?}: band {band} is beyond the highest, {HIGHEST_BAND} (004:788-797)"),
            ));
            0
        }
        (false, Some(_)) => {
            problems.push(source.error(
                at("band:"),
                format!("creature {who:?}: altitude bands are for a chase-scale level; give altitude_m"),
            ));
            0
        }
        (true, None) if placement.altitude_m != 0.0 => {
            problems.push(source.error(
                at("altitude_m:"),
                format!("creature {who:?}: a chase-scale level gives altitudes as bands (band: 0 to 6)"),
            ));
            0
        }
        (true, None) => 0,
        (false, None) => match super::content::metres_to_squares(placement.altitude_m, "altitude") {
            Ok(steps) => steps as i32,
            Err(message) => {
                problems.push(source.error(at("altitude_m:"), format!("creature {who:?}: {message}")));
                0
            }
        },
    };
    let Some((_, template)) = content.templates.get(&placement.template) else {
        let known: Vec<&str> = content.templates.keys().map(String::as_str).collect();
        problems.push(source.error(
            at("template:"),
            format!("creature {who:?}: unknown template {:?} (known: {})", placement.template, known.join(", ")),
        ));
        return None;
    };
    let stats = match content.stats(template, &placement.overrides) {
        Ok(stats) => stats,
        Err(messages) => {
            for (key, message) in messages {
                problems.push(source.error(at(&key), format!("creature {who:?}: {message}")));
            }
            return None;
        }
    };
    // A rider is where its mount is, at its height (004:475, 004:813).
    let mount = placement.rides.as_ref().and_then(|m| def.creatures.iter().find(|c| &c.id == m));
    let (placed_at, altitude) = match (placement.at, &placement.rides, mount) {
        (Some(_), Some(_), _) => {
            problems.push(
                source
                    .error(at("at:"), format!("creature {who:?} rides: it is where its mount is, so it takes no at:")),
            );
            return None;
        }
        (None, Some(m), None) => {
            problems
                .push(source.error(at("rides:"), format!("creature {who:?} rides {m:?}, which is not in the level")));
            return None;
        }
        (None, Some(_), Some(mount)) if mount.rides.is_some() => {
            problems.push(source.error(
                at("rides:"),
                format!("creature {who:?} rides {:?}, which rides another creature itself", mount.id),
            ));
            return None;
        }
        (None, Some(_), Some(mount)) if placement.military_saddle => {
            problems.push(source.error(
                at("military_saddle:"),
                format!("creature {who:?} rides {:?}: the military saddle goes on the mount", mount.id),
            ));
            return None;
        }
        (None, Some(_), Some(mount)) if placement.altitude_m != 0.0 || placement.band.is_some() => {
            problems.push(source.error(
                at("rides:"),
                format!("creature {who:?} rides {:?}: it is at its mount's height, give none of its own", mount.id),
            ));
            return None;
        }
        (None, Some(_), Some(mount)) => match mount.at {
            Some(square) => (square, altitude_of(chase, mount)),
            None => return None,
        },
        (None, None, _) => {
            problems.push(source.error(at("id:"), format!("creature {who:?} needs at: (x, y), or rides:")));
            return None;
        }
        (Some(square), None, _) => (square, altitude),
    };
    if let Some(problem) = starting_flight(placement, &stats, altitude) {
        problems.push(source.error(at(problem.0), format!("creature {who:?}: {}", problem.1)));
        return None;
    }
    let space = footprint_at(def.scale, placed_at, stats.size);
    if space.squares().any(|s| !field.contains(s)) {
        problems.push(source.error(
            at("at:"),
            format!(
                "creature {who:?} at {} does not fit on the {width}x{height} map ({}x{} squares)",
                placed_at, space.width, space.height
            ),
        ));
        return None;
    }
    if let Some(bad) = space.squares().find(|s| {
        (matches!(field.terrain(*s), Terrain::Wall | Terrain::Pit) || field.has_obstacle(*s))
            && !stats.traits.incorporeal
            && !(stats.speed.fly.is_some() && field.terrain(*s) == Terrain::Pit)
    }) {
        problems.push(source.error(
            at("at:"),
            format!(
                "creature {who:?} stands in {} at {bad}",
                // Other ground is refused for the obstacle the `obstacles` layer lays on it.
                match field.terrain(bad) {
                    t @ (Terrain::Wall | Terrain::Pit) => terrain_name(t),
                    t if t.is_obstacle() => terrain_name(t),
                    _ => "an obstacle",
                }
            ),
        ));
    }
    let mut stats = stats;
    if chase {
        // At chase scale a creature threatens nothing: a 9 m square holds foes and friends alike, and
        // where in it each one is, the scale does not say (our ruling, docs/rulings.md).
        stats.reach = crate::rules::core::creature::Reach(0);
    }
    if placement.damage < 0 || placement.nonlethal < 0 || placement.temporary < 0 {
        problems.push(
            source
                .error(at("damage:"), format!("creature {who:?}: damage and temporary hit points cannot be negative")),
        );
    }
    // A creature may be placed dead (-10, 004:38), not further.
    let most = stats.hit_points.max + 10;
    if placement.damage > most {
        problems.push(source.error(
            at("damage:"),
            format!(
                "creature {who:?}: {} damage takes it below -10 hit points; at most {most}, which leaves it dead (004:38)",
                placement.damage
            ),
        ));
    }
    if placement.nonlethal > crate::data::content::MOST_HIT_POINTS
        || placement.temporary > crate::data::content::MOST_HIT_POINTS
    {
        problems.push(source.error(
            at("damage:"),
            format!(
                "creature {who:?}: nonlethal damage and temporary hit points are at most {}",
                crate::data::content::MOST_HIT_POINTS
            ),
        ));
    }
    // The states hit points bring come from its damage, not from a hand-written list (004:38, 004:269-278).
    for condition in &placement.conditions {
        let wrong = match condition {
            Condition::Dying | Condition::Dead | Condition::Disabled => {
                Some(format!("{condition:?} comes from hit points: give it `damage:` instead (004:38)"))
            }
            Condition::Stable if stats.hit_points.current - placement.damage.max(0) >= 0 => {
                Some("only a creature below 0 hit points can be stable (004:282): give it `damage:` too".into())
            }
            Condition::Fatigued if placement.nonlethal <= 0 => Some(
                "fatigue comes with the nonlethal damage of a hustle or a forced march and ends with it (003:69, 003:71): give it `nonlethal:` too"
                    .into(),
            ),
            _ => None,
        };
        if let Some(message) = wrong {
            problems.push(source.error(at("conditions:"), format!("creature {who:?}: {message}")));
        }
    }
    // Fatigued, it is 2 weaker and 2 clumsier while it lasts (003:71).
    if placement.conditions.contains(&Condition::Fatigued) {
        // Given back whole when it ends (`end_fatigue`): not clamped, so it goes back to what it was.
        stats.abilities.str += crate::rules::core::creature::FATIGUE_PENALTY;
        stats.abilities.dex += crate::rules::core::creature::FATIGUE_PENALTY;
    }
    stats.hit_points.current -= placement.damage.clamp(0, most);
    stats.hit_points.nonlethal = placement.nonlethal.clamp(0, crate::data::content::MOST_HIT_POINTS);
    stats.hit_points.temporary = placement.temporary.clamp(0, crate::data::content::MOST_HIT_POINTS);
    Some(CreatureSpec {
        id: CreatureId(placement.id.clone()),
        template: placement.template.clone(),
        faction: placement.faction.clone(),
        at: placed_at,
        heading: placement.heading.unwrap_or(Direction::North),
        altitude,
        aware_of: placement.aware_of.as_ref().map(|ids| ids.iter().map(|i| CreatureId(i.clone())).collect()),
        lurking: placement.lurking,
        stats,
        conditions: placement.conditions.clone(),
        rides: placement.rides.as_ref().map(|m| (CreatureId(m.clone()), placement.passenger)),
        military_saddle: placement.military_saddle,
        hovering: placement.hovering,
        flying_m: placement.flying_m,
    })
}

/// What is wrong with the flight a creature is given as the battle begins, with the field that says it: only
/// a flier aloft hovers or flies, not both at once; hovering needs perfect or good manoeuvrability or the
/// Hover feat (004:708); a flight before the battle is a multiple of 1.5 m within a double move (our ruling).
fn starting_flight(placement: &PlacementDef, stats: &Stats, altitude: i32) -> Option<(&'static str, String)> {
    let field = if placement.hovering { "hovering:" } else { "flying_m:" };
    if !placement.hovering && placement.flying_m == 0.0 {
        return None;
    }
    let Some(wings) = stats.speed.fly else { return Some((field, "it has no fly speed".into())) };
    if placement.rides.is_some() {
        return Some((field, "a rider flies with its mount: give the mount its flight".into()));
    }
    if altitude == 0 {
        return Some((field, "on the ground it neither hovers nor flies: give it an altitude".into()));
    }
    if placement.hovering && placement.flying_m != 0.0 {
        return Some(("flying_m:", "a flier that hovers flew no distance (004:827)".into()));
    }
    let nimble = matches!(wings.maneuverability, Maneuverability::Perfect | Maneuverability::Good);
    if placement.hovering && !nimble && !stats.feats.has(crate::rules::core::creature::Feat::Hover) {
        let class = format!("{:?}", wings.maneuverability).to_lowercase();
        return Some((
            field,
            format!("it cannot hover with {class} manoeuvrability: perfect or good, or the Hover feat (004:708)"),
        ));
    }
    // Its fly speed as armour and load leave it (004:712).
    let slowed = crate::rules::core::creature::fly_speed(&stats.speed, stats.encumbrance, &stats.traits);
    let most = 2.0 * slowed.map_or(wings.squares, |w| w.squares) as f32 * 1.5;
    let whole = (placement.flying_m / 1.5).fract() == 0.0;
    if !placement.flying_m.is_finite() || placement.flying_m < 0.0 || placement.flying_m > most || !whole {
        return Some((
            field,
            format!("flying_m is a multiple of 1.5 m from 0 to {most} (a double move), not {}", placement.flying_m),
        ));
    }
    None
}

/// Two creatures may share squares only when both are smaller than a square (000:148-151); at chase scale
/// any may, but for a Colossal one (004:651); bodies at heights apart do not meet (004:783-784).
fn check_overlaps(source: &Source<'_>, scale: Scale, creatures: &[CreatureSpec], problems: &mut Vec<Diagnostic>) {
    let chase = scale == Scale::Chase;
    let mut per_square: BTreeMap<Square, Vec<&CreatureSpec>> = BTreeMap::new();
    for c in creatures.iter().filter(|c| c.rides.is_none()) {
        for s in footprint_at(scale, c.at, c.stats.size).squares() {
            per_square.entry(s).or_default().push(c);
        }
    }
    let mut reported = BTreeSet::new();
    for (square, here) in &per_square {
        // Bodies at heights apart do not meet: a flier passes over a walker (004:783-784).
        let meets = |a: &CreatureSpec| {
            here.iter().any(|b| {
                b.id != a.id
                    && crate::rules::core::altitude::vertical_steps(
                        scale,
                        a.altitude,
                        a.stats.size,
                        b.altitude,
                        b.stats.size,
                    ) == 0
            })
        };
        let here: Vec<&CreatureSpec> = here.iter().copied().filter(|c| meets(c)).collect();
        if here.len() < 2 {
            continue;
        }
        if chase && here.iter().all(|c| c.stats.size != crate::rules::core::size::Size::Colossal) {
            continue;
        }
        // As play allows (000:80-82, 000:148-156): the small by their shares, beside one bigger at most.
        if !crate::rules::core::size::fit_in_a_square(here.iter().map(|c| c.stats.size)) {
            let names: Vec<&str> = here.iter().map(|c| c.id.0.as_str()).collect();
            if reported.insert(names.join(",")) {
                problems.push(source.error(
                    source.locate(&format!("\"{}\"", here[1].id.0), Some("at:")),
                    format!(
                        "creatures {} overlap at {square}",
                        names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(" and ")
                    ),
                ));
            }
        }
    }
}

/// The altitude a placement gives, in steps (bands at chase scale); 0 when it gives a wrong one, which its
/// own check reports.
fn altitude_of(chase: bool, placement: &PlacementDef) -> i32 {
    match (chase, placement.band) {
        (true, Some(band)) if band <= HIGHEST_BAND => i32::from(band),
        (true, _) => 0,
        (false, _) => super::content::metres_to_squares(placement.altitude_m, "altitude").map_or(0, |s| s as i32),
    }
}

/// Checks who rides what (004:653-655, 004:806-815): a mount is an ally larger than its riders, one rider
/// directs it and the others are passengers, and it has a seat for each.
fn check_riders(source: &Source<'_>, creatures: &[CreatureSpec], problems: &mut Vec<Diagnostic>) {
    use crate::rules::mounted::{may_carry, seats};
    for mount in creatures {
        let on: Vec<&CreatureSpec> =
            creatures.iter().filter(|c| c.rides.as_ref().is_some_and(|(m, _)| *m == mount.id)).collect();
        if on.is_empty() {
            continue;
        }
        for rider in &on {
            let at = source.locate(&format!("\"{}\"", rider.id.0), Some("rides:"));
            if let Err(refusal) = may_carry(mount.stats.size, rider.stats.size) {
                problems.push(
                    source.error(at, format!("creature {:?} cannot ride {:?}: {}", rider.id.0, mount.id.0, refusal)),
                );
            }
            if rider.faction != mount.faction {
                problems.push(source.error(
                    at,
                    format!(
                        "creature {:?} rides {:?} of another faction: a mount carries its allies",
                        rider.id.0, mount.id.0
                    ),
                ));
            }
        }
        let directing = on.iter().filter(|c| c.rides.as_ref().is_some_and(|(_, passenger)| !passenger)).count();
        let at = source.locate(&format!("\"{}\"", on[0].id.0), Some("rides:"));
        if directing > 1 {
            problems.push(source.error(
                at,
                format!(
                    "{:?} has {directing} riders: one directs it, the others are passengers (passenger: true, 004:655)",
                    mount.id.0
                ),
            ));
        }
        if on.len() > seats(mount.stats.size) {
            problems.push(source.error(
                at,
                format!(
                    "{:?} carries {} but a {:?} mount has {} seat(s) (docs/rulings.md)",
                    mount.id.0,
                    on.len(),
                    mount.stats.size,
                    seats(mount.stats.size)
                ),
            ));
        }
    }
}

/// The strings written after `from` in `text`, up to `count` of them: for each, the raw byte offset of
/// every character it decodes to, as ron reads strings (escapes, `\u{..}`, continuations, raw strings);
/// comments between strings are skipped. So the x-th character of a decoded row is found in the file.
fn quoted_strings(text: &str, from: usize, count: usize) -> Vec<Vec<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(count.min(4096));
    let mut at = from;
    while out.len() < count && at < bytes.len() {
        match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = text[at..].find('\n').map_or(bytes.len(), |i| at + i + 1);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = text[at + 2..].find("*/").map_or(bytes.len(), |i| at + 2 + i + 2);
            }
            b'"' | b'r' if bytes[at] == b'"' || matches!(bytes.get(at + 1), Some(b'"' | b'#')) => {
                let Some((chars, end)) = string_chars(text, at) else { break };
                out.push(chars);
                at = end;
            }
            _ => at += 1,
        }
    }
    out
}

/// The raw offsets of the characters of the string literal opening at `open` (`"…"` or `r#"…"#`), and the
/// offset just past it; `None` if it never closes.
fn string_chars(text: &str, open: usize) -> Option<(Vec<usize>, usize)> {
    let bytes = text.as_bytes();
    let mut chars = Vec::new();
    if bytes[open] == b'r' {
        let hashes = bytes[open + 1..].iter().take_while(|b| **b == b'#').count();
        let body = open + 1 + hashes + 1;
        let close = format!("\"{}", "#".repeat(hashes));
        let end = body + text.get(body..)?.find(&close)?;
        chars.extend(text[body..end].char_indices().map(|(i, _)| body + i));
        return Some((chars, end + close.len()));
    }
    let mut iter = text[open + 1..].char_indices().map(|(i, c)| (open + 1 + i, c)).peekable();
    while let Some((i, c)) = iter.next() {
        match c {
            '"' => return Some((chars, i + 1)),
            '\\' => match iter.next()?.1 {
                'u' => {
                    chars.push(i);
                    while iter.next_if(|(_, c)| *c != '}').is_some() {}
                    iter.next();
                }
                'x' => {
                    chars.push(i);
                    iter.next();
                    iter.next();
                }
                '\n' | '\r' => while iter.next_if(|(_, c)| c.is_whitespace()).is_some() {},
                _ => chars.push(i),
            },
            _ => chars.push(i),
        }
    }
    None
}
