//! `estoc import MAP.tmx -o levels/NAME.ron` (or `MAP.tmj`, Tiled's JSON, read as the XML it stands for,
//! `tiled_json`): a map made in the Tiled editor turned into a level, by the
//! convention of docs/editing.md. Tiles say their terrain by a `terrain` property (a level character such
//! as `#`, or a name such as `wall`); a tile layer with a `layer` property (`darkness`, `fog`,
//! `difficult`, `obstacles`) lays that layer wherever it has a tile; objects with an `edge` property put
//! a feature on a side of their square (`side`); objects with a `template` property are creatures
//! (`faction`, `controller`, `id`, `heading`, `altitude_m`). Anything else that would change the fight is
//! refused with the layer, tile or object that holds it. Files are read through the project's checks:
//! inside the map's folder, of a bounded size.

use std::path::{Path, PathBuf};

use super::diagnostics::{MAX_FILE_BYTES, confined};
use super::draft::{Draft, Layer};
use super::level::{Control, FactionDef, MAX_MAP_SIDE};
use crate::rules::core::battlefield::EdgeFeature;
use crate::rules::core::geometry::{Direction, Square};

/// Side colours given to the factions in the order they appear.
const COLOURS: [[u8; 3]; 4] = [[60, 120, 220], [200, 60, 50], [90, 170, 90], [210, 170, 60]];

/// Reads only files inside the map's folder, each at most [`MAX_FILE_BYTES`].
struct Confined {
    folder: PathBuf,
}

impl tiled::ResourceReader for Confined {
    type Resource = std::io::Cursor<Vec<u8>>;
    type Error = std::io::Error;

    fn read_from(&mut self, path: &Path) -> Result<Self::Resource, Self::Error> {
        use std::io::Read;
        let inside = confined(path, std::slice::from_ref(&self.folder)).map_err(std::io::Error::other)?;
        let file = std::fs::File::open(&inside)?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other(format!("{}: not a regular file", path.display())));
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(std::io::Error::other(format!("{}: larger than {MAX_FILE_BYTES} bytes", path.display())));
        }
        // A JSON map or tileset is read as the XML it stands for.
        if is_json(path) {
            let text = String::from_utf8(bytes)
                .map_err(|_| std::io::Error::other(format!("{}: not UTF-8 text", path.display())))?;
            let xml = super::tiled_json::to_xml(&text)
                .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
            return Ok(std::io::Cursor::new(xml.into_bytes()));
        }
        Ok(std::io::Cursor::new(bytes))
    }
}

/// Whether a Tiled file is written in JSON (`.tmj`, `.tsj`, `.json`) rather than XML.
fn is_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tmj" || e == "tsj" || e == "json")
}

/// The level character a `terrain` property names.
fn terrain_char(value: &str) -> Option<char> {
    let named = match value.trim().to_lowercase().as_str() {
        "floor" | "open ground" | "ground" => '.',
        "paved" | "paved floor" => ',',
        "difficult" | "rubble" => ':',
        "undergrowth" => 'T',
        "obstacle" => '%',
        "low wall" | "low_wall" => '=',
        "wall" => '#',
        "pit" | "chasm" => 'O',
        "water" | "shallow water" => '~',
        "deep water" | "deep_water" => 'W',
        _ => {
            let mut chars = value.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) if super::level::terrain_of(c).is_some() => Some(c),
                _ => None,
            };
        }
    };
    Some(named)
}

/// A string property.
fn text<'a>(properties: &'a tiled::Properties, key: &str) -> Option<&'a str> {
    match properties.get(key)? {
        tiled::PropertyValue::StringValue(s) | tiled::PropertyValue::FileValue(s) => Some(s.as_str()),
        _ => None,
    }
}

/// Reads a Tiled map into a draft level; every problem names the layer, tile or object. A map the
/// `tiled` crate cannot read safely is refused before it reads it: compressed tile data (which could
/// inflate without bound), and tile data shorter than the map (on which the crate would stop the program)
/// is caught and told.
pub fn import(path: &Path) -> Result<Draft, String> {
    let here = |message: String| format!("{}: {message}", path.display());
    let text = super::diagnostics::read_file(path).map_err(|d| d.to_string())?;
    if !is_json(path) && text.contains("compression=") {
        return Err(here(
            "compressed tile data is not read: choose CSV or uncompressed Base64 as the tile layer format (Map > Map Properties)"
                .into(),
        ));
    }
    // The crate indexes tile data by the map's size without checking its length: a short layer would stop
    // the program. Caught here, silently, and told as a problem of the file.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let read = std::panic::catch_unwind(|| read_map(path));
    std::panic::set_hook(hook);
    read.unwrap_or_else(|_| Err(here("a tile layer has less data than the map has squares".into())))
}

fn read_map(path: &Path) -> Result<Draft, String> {
    let here = |message: String| format!("{}: {message}", path.display());
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    let mut loader = tiled::Loader::with_reader(Confined { folder });
    let map = loader.load_tmx_map(path).map_err(|e| here(e.to_string()))?;
    if map.orientation != tiled::Orientation::Orthogonal {
        return Err(here(format!("a {:?} map: only orthogonal (square) maps are levels", map.orientation)));
    }
    if map.infinite() {
        return Err(here("an infinite map: give it a fixed size (Map > Map Properties)".into()));
    }
    let (width, height) = (map.width as i32, map.height as i32);
    if !(1..=MAX_MAP_SIDE).contains(&width) || !(1..=MAX_MAP_SIDE).contains(&height) {
        return Err(here(format!("a {width}x{height} map: each side is 1 to {MAX_MAP_SIDE} squares")));
    }
    let mut draft = Draft::new(width.max(3), height.max(3)).map_err(here)?;
    draft.resize(width, height).map_err(here)?;
    draft.rectangle(Square::new(0, 0), Square::new(width - 1, height - 1), '.');
    draft.def.factions.clear();
    draft.def.name = text(&map.properties, "name")
        .map(str::to_string)
        .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().replace(['-', '_'], " ")).unwrap_or_default());
    draft.def.description = text(&map.properties, "description").unwrap_or_default().to_string();
    let mut problems = Vec::new();
    let mut controls: Vec<(String, Control)> = Vec::new();
    for layer in map.layers() {
        match layer.layer_type() {
            tiled::LayerType::Tiles(tiles) => read_tiles(&mut draft, &layer, &tiles, &mut problems),
            tiled::LayerType::Objects(objects) => {
                for object in objects.objects() {
                    read_object(&mut draft, &map, &layer.name, &object, &mut controls, &mut problems);
                }
            }
            tiled::LayerType::Image(_) => {}
            tiled::LayerType::Group(_) => {
                problems.push(format!("layer {:?}: group layers are not read; ungroup its layers", layer.name))
            }
        }
    }
    for (i, (name, control)) in controls.into_iter().enumerate() {
        draft.def.factions.push(FactionDef { name, control, colour: Some(COLOURS[i % COLOURS.len()]) });
    }
    if problems.is_empty() { Ok(draft) } else { Err(problems.into_iter().map(here).collect::<Vec<_>>().join("\n")) }
}

/// A tile layer: the terrain of its tiles, or the layer it lays.
fn read_tiles(draft: &mut Draft, layer: &tiled::Layer, tiles: &tiled::TileLayer, problems: &mut Vec<String>) {
    let laid = match text(&layer.properties, "layer") {
        None => None,
        Some(name) => match Layer::ALL.into_iter().find(|l| l.key() == name) {
            Some(l) => Some(l),
            None => {
                problems.push(format!(
                    "layer {:?}: layer {name:?} is none of darkness, fog, difficult, obstacles",
                    layer.name
                ));
                return;
            }
        },
    };
    let (width, height) = draft.size();
    for y in 0..height {
        for x in 0..width {
            let Some(tile) = tiles.get_tile(x, y) else { continue };
            let square = Square::new(x, y);
            if let Some(l) = laid {
                draft.set_layer(l, square, true);
                continue;
            }
            let Some(data) = tile.get_tile() else { continue };
            match text(&data.properties, "terrain") {
                Some(value) => match terrain_char(value) {
                    Some(c) => {
                        draft.paint(square, c);
                    }
                    None => problems.push(format!(
                        "layer {:?}, tile {} of tileset {:?} at {square}: unknown terrain {value:?}",
                        layer.name,
                        tile.id(),
                        tile.get_tileset().name
                    )),
                },
                None => problems.push(format!(
                    "layer {:?}, tile {} of tileset {:?} at {square}: the tile has no terrain property",
                    layer.name,
                    tile.id(),
                    tile.get_tileset().name
                )),
            }
        }
    }
}

/// The square of an object: the one under its middle (a tile object stands on its bottom edge).
fn object_square(map: &tiled::Map, object: &tiled::Object) -> Square {
    let (w, h) = match object.shape {
        tiled::ObjectShape::Rect { width, height } | tiled::ObjectShape::Ellipse { width, height } => (width, height),
        _ => (0.0, 0.0),
    };
    let y = if object.tile_data().is_some() { object.y - h / 2.0 } else { object.y + h / 2.0 };
    let x = object.x + w / 2.0;
    let (tw, th) = (map.tile_width.max(1) as f32, map.tile_height.max(1) as f32);
    Square::new((x / tw).floor() as i32, (y / th).floor() as i32)
}

/// A direction by name.
fn direction(name: &str) -> Option<Direction> {
    Direction::ALL.into_iter().find(|d| format!("{d:?}").eq_ignore_ascii_case(name.trim()))
}

/// An object: an edge feature or a creature; any other object is a note for the designer, left out.
fn read_object(
    draft: &mut Draft,
    map: &tiled::Map,
    layer: &str,
    object: &tiled::Object,
    controls: &mut Vec<(String, Control)>,
    problems: &mut Vec<String>,
) {
    let square = object_square(map, object);
    let what = format!("layer {layer:?}, object {} {:?} at {square}", object.id(), object.name);
    if !draft.contains(square) {
        problems.push(format!("{what}: outside the map"));
        return;
    }
    let p = &object.properties;
    if let Some(edge) = text(p, "edge") {
        let feature = match edge.trim().to_lowercase().as_str() {
            "wall" => Some(EdgeFeature::Wall),
            "low wall" | "low_wall" => Some(EdgeFeature::LowWall),
            "arrow slit" | "arrow_slit" => Some(EdgeFeature::ArrowSlit),
            _ => None,
        };
        let side = text(p, "side").and_then(direction).filter(|d| !d.is_diagonal());
        match (feature, side) {
            (Some(feature), Some(side)) => {
                draft.set_edge(square, side, Some(feature));
            }
            (None, _) => problems.push(format!("{what}: edge {edge:?} is none of wall, low wall, arrow slit")),
            (_, None) => problems.push(format!("{what}: an edge needs side: North, East, South or West")),
        }
        return;
    }
    let Some(template) = text(p, "template") else { return };
    let Some(faction) = text(p, "faction") else {
        problems.push(format!("{what}: a creature needs a faction property"));
        return;
    };
    let control = match text(p, "controller").map(|c| c.trim().to_lowercase()) {
        None => None,
        Some(c) if c == "human" || c == "person" => Some(Control::Human),
        Some(c) if c == "ai" || c == "computer" => Some(Control::Ai),
        Some(c) => {
            problems.push(format!("{what}: controller {c:?} is neither human nor ai"));
            return;
        }
    };
    // The sides in the order they appear; the first is a person's unless told otherwise, the others the computer's.
    let default = if controls.is_empty() { Control::Human } else { Control::Ai };
    let at = match controls.iter().position(|(name, _)| name == faction) {
        Some(at) => at,
        None => {
            controls.push((faction.to_string(), default));
            controls.len() - 1
        }
    };
    if let Some(control) = control {
        controls[at].1 = control;
    }
    let i = draft.place(template, faction, square);
    let creature = &mut draft.def.creatures[i];
    if let Some(id) = text(p, "id").or(Some(object.name.as_str()).filter(|n| !n.is_empty())) {
        creature.id = id.to_string();
    }
    if let Some(heading) = text(p, "heading") {
        match direction(heading) {
            Some(d) => creature.heading = Some(d),
            None => problems.push(format!("{what}: heading {heading:?} is not a direction")),
        }
    }
    match p.get("altitude_m") {
        Some(tiled::PropertyValue::FloatValue(m)) => creature.altitude_m = *m,
        Some(tiled::PropertyValue::IntValue(m)) => creature.altitude_m = *m as f32,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terrains_by_character_or_by_name() {
        assert_eq!(terrain_char("#"), Some('#'));
        assert_eq!(terrain_char("Deep water"), Some('W'));
        assert_eq!(terrain_char("lava"), None);
        assert_eq!(terrain_char("?"), None);
    }
}
