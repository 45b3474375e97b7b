//! Tiled's JSON files, maps (`.tmj`) and tilesets (`.tsj`), written as the XML the `tiled` crate reads
//! (`.tmx`, `.tsx`): the same elements and attributes, key by key, so that one reader and one set of checks
//! serve both formats. What the XML has no room for is refused with the layer, object or tileset that holds
//! it: compressed tile data (which could inflate without bound), object templates, class properties.

use serde_json::{Map, Value};

type Object = Map<String, Value>;

/// The XML of a Tiled JSON file, map or tileset, as its `type` says (`map` if it says nothing).
pub fn to_xml(json: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(json)
        .map_err(|e| format!("line {}, column {}: not a Tiled JSON file: {e}", e.line(), e.column()))?;
    let root = value.as_object().ok_or("not a Tiled JSON file: a JSON object is expected")?;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    match root.get("type").and_then(Value::as_str).unwrap_or("map") {
        "map" => map(&mut out, root)?,
        "tileset" => tileset(&mut out, root, false)?,
        other => return Err(format!("a Tiled file of type {other:?}: a map or a tileset is expected")),
    }
    Ok(out)
}

/// A map: its attributes, properties, tilesets and layers.
fn map(out: &mut String, root: &Object) -> Result<(), String> {
    out.push_str("<map");
    attributes(
        out,
        root,
        &[
            "version",
            "tiledversion",
            "class",
            "orientation",
            "renderorder",
            "width",
            "height",
            "tilewidth",
            "tileheight",
            "hexsidelength",
            "staggeraxis",
            "staggerindex",
            "backgroundcolor",
            "infinite",
            "nextlayerid",
            "nextobjectid",
        ],
    );
    out.push('>');
    properties(out, root, "the map")?;
    for set in list(root, "tilesets") {
        let set = set.as_object().ok_or("a tileset that is not a JSON object")?;
        tileset(out, set, true)?;
    }
    layers(out, root)?;
    out.push_str("</map>");
    Ok(())
}

/// The layers of a map or a group, in order.
fn layers(out: &mut String, holder: &Object) -> Result<(), String> {
    for layer in list(holder, "layers") {
        let layer = layer.as_object().ok_or("a layer that is not a JSON object")?;
        let name = layer.get("name").and_then(Value::as_str).unwrap_or_default();
        let here = |message: &str| format!("layer {name:?}: {message}");
        let kind = layer.get("type").and_then(Value::as_str).unwrap_or_default();
        let (tag, extra): (&str, &[&str]) = match kind {
            "tilelayer" if layer.contains_key("chunks") => {
                return Err(here("an infinite map: give it a fixed size (Map > Map Properties)"));
            }
            "tilelayer" => ("layer", &["width", "height"]),
            "objectgroup" => ("objectgroup", &["color", "draworder"]),
            "imagelayer" => ("imagelayer", &[]),
            "group" => ("group", &[]),
            other => return Err(here(&format!("a layer of type {other:?}, which Tiled does not write"))),
        };
        out.push_str(&format!("<{tag}"));
        attributes(out, layer, &["id", "name", "class", "opacity", "visible", "tintcolor", "offsetx", "offsety"]);
        attributes(out, layer, extra);
        out.push('>');
        properties(out, layer, &format!("layer {name:?}"))?;
        match kind {
            "tilelayer" => tile_data(out, layer).map_err(|m| here(&m))?,
            "objectgroup" => {
                for object in list(layer, "objects") {
                    let object = object.as_object().ok_or_else(|| here("an object that is not a JSON object"))?;
                    self::object(out, object).map_err(|m| here(&m))?;
                }
            }
            // The crate reads an image only with its size, which older JSON leaves out: then none.
            "imagelayer" if layer.contains_key("imagewidth") && layer.contains_key("imageheight") => image(out, layer),
            "group" => layers(out, layer)?,
            _ => {}
        }
        out.push_str(&format!("</{tag}>"));
    }
    Ok(())
}

/// The image of a layer, a tileset or a tile, if it names one: its source and size.
fn image(out: &mut String, holder: &Object) {
    if let Some(source) = holder.get("image").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        out.push_str(&format!("<image source=\"{}\"", escape(source)));
        attributes_as(out, holder, &[("imagewidth", "width"), ("imageheight", "height")]);
        out.push_str("/>");
    }
}

/// A tile layer's data: a list of numbers as CSV, or an uncompressed Base64 string.
fn tile_data(out: &mut String, layer: &Object) -> Result<(), String> {
    if layer.get("compression").and_then(Value::as_str).is_some_and(|c| !c.is_empty()) {
        return Err(
            "compressed tile data is not read: choose CSV or uncompressed Base64 as the tile layer format (Map > Map Properties)"
                .into(),
        );
    }
    match layer.get("data") {
        Some(Value::String(base64)) => {
            out.push_str(&format!("<data encoding=\"base64\">{}</data>", escape(base64.trim())));
        }
        Some(Value::Array(gids)) => {
            let numbers: Result<Vec<String>, String> = gids
                .iter()
                .map(|g| g.as_u64().map(|n| n.to_string()).ok_or_else(|| format!("a tile id {g} that is not a number")))
                .collect();
            out.push_str(&format!("<data encoding=\"csv\">{}</data>", numbers?.join(",")));
        }
        _ => return Err("no tile data".into()),
    }
    Ok(())
}

/// An object: its attributes, properties and shape.
fn object(out: &mut String, object: &Object) -> Result<(), String> {
    let id = object.get("id").map(Value::to_string).unwrap_or_default();
    if object.contains_key("template") {
        return Err(format!("object {id}: object templates are not read; detach the template (Tiled: Detach)"));
    }
    out.push_str("<object");
    attributes(out, object, &["id", "name", "type", "x", "y", "width", "height", "rotation", "gid", "visible"]);
    out.push('>');
    properties(out, object, &format!("object {id}"))?;
    if object.get("point").and_then(Value::as_bool) == Some(true) {
        out.push_str("<point/>");
    }
    if object.get("ellipse").and_then(Value::as_bool) == Some(true) {
        out.push_str("<ellipse/>");
    }
    for shape in ["polygon", "polyline"] {
        if let Some(points) = object.get(shape).and_then(Value::as_array) {
            let pairs: Vec<String> = points
                .iter()
                .map(|p| {
                    let coordinate = |k: &str| p.get(k).and_then(Value::as_f64).unwrap_or_default();
                    format!("{},{}", coordinate("x"), coordinate("y"))
                })
                .collect();
            out.push_str(&format!("<{shape} points=\"{}\"/>", pairs.join(" ")));
        }
    }
    out.push_str("</object>");
    Ok(())
}

/// A tileset, embedded in a map (with its first id, or only a reference to its file) or a file of its own.
fn tileset(out: &mut String, set: &Object, in_a_map: bool) -> Result<(), String> {
    let name = set.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
    out.push_str("<tileset");
    if in_a_map {
        attributes(out, set, &["firstgid", "source"]);
        if set.contains_key("source") {
            out.push_str("/>");
            return Ok(());
        }
    } else {
        attributes(out, set, &["version", "tiledversion"]);
    }
    attributes(
        out,
        set,
        &["name", "class", "tilewidth", "tileheight", "spacing", "margin", "tilecount", "columns", "objectalignment"],
    );
    out.push('>');
    image(out, set);
    properties(out, set, &format!("tileset {name:?}"))?;
    for tile in list(set, "tiles") {
        let tile = tile.as_object().ok_or_else(|| format!("tileset {name:?}: a tile that is not a JSON object"))?;
        let id = tile.get("id").map(Value::to_string).unwrap_or_default();
        out.push_str("<tile");
        attributes(out, tile, &["id", "type", "probability"]);
        out.push('>');
        properties(out, tile, &format!("tileset {name:?}, tile {id}"))?;
        image(out, tile);
        out.push_str("</tile>");
    }
    out.push_str("</tileset>");
    Ok(())
}

/// The custom properties of a map, layer, object, tileset or tile.
fn properties(out: &mut String, holder: &Object, whose: &str) -> Result<(), String> {
    let all = list(holder, "properties");
    if all.is_empty() {
        return Ok(());
    }
    out.push_str("<properties>");
    for property in all {
        let name = property.get("name").and_then(Value::as_str).unwrap_or_default();
        let kind = property.get("type").and_then(Value::as_str).unwrap_or("string");
        let value = match property.get("value") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Null) | None => String::new(),
            Some(_) => return Err(format!("{whose}: property {name:?} of type {kind:?} is not read")),
        };
        if kind == "class" || kind == "list" {
            return Err(format!("{whose}: property {name:?} of type {kind:?} is not read"));
        }
        out.push_str(&format!(
            "<property name=\"{}\" type=\"{}\" value=\"{}\"/>",
            escape(name),
            escape(kind),
            escape(&value)
        ));
    }
    out.push_str("</properties>");
    Ok(())
}

/// The array under `key`, or none.
fn list<'a>(holder: &'a Object, key: &str) -> &'a [Value] {
    holder.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// Writes the scalar values under `keys` as XML attributes of the same names.
fn attributes(out: &mut String, holder: &Object, keys: &[&str]) {
    let pairs: Vec<(&str, &str)> = keys.iter().map(|k| (*k, *k)).collect();
    attributes_as(out, holder, &pairs);
}

/// Writes the scalar value under each JSON key as the XML attribute named beside it; true and false as 1
/// and 0, as the XML writes them.
fn attributes_as(out: &mut String, holder: &Object, pairs: &[(&str, &str)]) {
    for (key, attribute) in pairs {
        let text = match holder.get(*key) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Bool(b)) => if *b { "1" } else { "0" }.to_string(),
            _ => continue,
        };
        out.push_str(&format!(" {attribute}=\"{}\"", escape(&text)));
    }
}

/// Text made safe inside an XML attribute or element.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_reads_as_the_xml_tiled_writes() {
        let json = r#"{"type": "map", "version": "1.10", "orientation": "orthogonal", "width": 2, "height": 1,
            "tilewidth": 64, "tileheight": 64, "infinite": false,
            "properties": [{"name": "name", "type": "string", "value": "A & B"}],
            "tilesets": [{"firstgid": 1, "source": "terrain.tsj"}],
            "layers": [{"type": "tilelayer", "id": 1, "name": "ground", "width": 2, "height": 1, "data": [1, 2]},
                       {"type": "objectgroup", "id": 2, "name": "things", "objects": [
                           {"id": 1, "name": "fighter", "x": 32, "y": 32, "point": true,
                            "properties": [{"name": "template", "type": "string", "value": "human_fighter"}]}]}]}"#;
        let xml = to_xml(json).unwrap();
        assert!(xml.contains(r#"<map version="1.10" orientation="orthogonal" width="2" height="1""#), "{xml}");
        assert!(xml.contains(r#"infinite="0""#));
        assert!(xml.contains(r#"<property name="name" type="string" value="A &amp; B"/>"#), "{xml}");
        assert!(xml.contains(r#"<tileset firstgid="1" source="terrain.tsj"/>"#), "{xml}");
        assert!(xml.contains(r#"<data encoding="csv">1,2</data>"#), "{xml}");
        assert!(xml.contains("<point/>"), "{xml}");
        assert!(xml.ends_with("</map>"), "{xml}");
    }

    #[test]
    fn what_the_xml_cannot_hold_is_refused_with_its_place() {
        let compressed = r#"{"type": "map", "layers": [{"type": "tilelayer", "name": "ground", "compression": "zlib",
            "encoding": "base64", "data": "eJw="}]}"#;
        assert!(to_xml(compressed).unwrap_err().contains("layer \"ground\": compressed"));
        let template =
            r#"{"layers": [{"type": "objectgroup", "name": "o", "objects": [{"id": 7, "template": "t.tj"}]}]}"#;
        assert!(to_xml(template).unwrap_err().contains("object 7: object templates"));
        let broken = "{\n  \"type\": \"map\",\n  oops\n}";
        assert!(to_xml(broken).unwrap_err().starts_with("line 3, column"), "{}", to_xml(broken).unwrap_err());
        assert!(to_xml("[1, 2]").is_err());
    }
}
