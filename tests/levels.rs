//! Every level and data file in the repository parses and validates; broken levels give located
//! errors that name the file, line, column and problem.

use std::path::{Path, PathBuf};

use estoc::data::{Content, level::check_level, load_level};

fn content() -> Content {
    Content::load(&estoc::data::assets_dir()).unwrap_or_else(|e| panic!("assets do not validate:\n{e}"))
}

fn ron_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_template_and_weapon_validates() {
    let content = content();
    for name in
        ["human_fighter", "elf_archer", "dwarf_defender", "goblin", "orc", "ogre", "wolf", "griffon", "young_dragon"]
    {
        assert!(content.templates.contains_key(name), "template {name} is missing");
    }
    for (name, (_, template)) in &content.templates {
        content.stats(template, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
}

/// The speed table (000:39-44): a human walks 9 m, 6 m in medium or heavy armour; a template gives the speed
/// without armour and the armour takes its share once. The clerics in scale mail walk 6 m (4 squares), the
/// dwarf in armour keeps its 6 m (000:46-50); the fighter's chain shirt and the archer's studded leather are
/// light armour: 9 m.
#[test]
fn a_template_s_speed_loses_its_armour_s_share_once() {
    let content = content();
    let walk = |template: &str| {
        let (_, t) = &content.templates[template];
        let sheet = content.stats(t, &Default::default()).unwrap().sheet();
        sheet.speeds.iter().find(|s| s.action == "move").map(|s| (s.squares, s.metres)).unwrap()
    };
    for template in ["human_cleric", "evil_priest", "dwarf_defender"] {
        assert_eq!(walk(template), (4, 6.0), "{template}");
    }
    for template in ["human_fighter", "elf_archer"] {
        assert_eq!(walk(template), (6, 9.0), "{template}");
    }
}

/// One weapon, its damage by the wielder's size (our ruling from the d20 weapon tables, docs/rulings.md):
/// the goblin's morningstar deals 1d6 and its javelin 1d4 where a Medium one deals 1d8 and 1d6; the ogre's
/// greatclub 2d8 (1d10 Medium) and its longspear 2d6 (1d8); unarmed 1d2, 1d3, 1d4 (004:172).
#[test]
fn a_weapon_deals_the_damage_of_its_wielder_s_size() {
    let content = content();
    let damage = |template: &str, weapon: &str, overrides: &estoc::data::content::TemplateOverrides| {
        let (_, t) = &content.templates[template];
        let stats = content.stats(t, overrides).unwrap();
        stats.armament.0.iter().find(|w| w.name == weapon).map(|w| w.damage.to_string()).unwrap()
    };
    let none = Default::default();
    assert_eq!(damage("goblin", "morningstar", &none), "1d6");
    assert_eq!(damage("goblin", "javelin", &none), "1d4");
    assert_eq!(damage("ogre", "greatclub", &none), "2d8");
    assert_eq!(damage("ogre", "longspear", &none), "2d6");
    assert_eq!(damage("human_fighter", "longsword", &none), "1d8");
    // A fighter made Large by a level wields a Large longsword.
    let large = estoc::data::content::TemplateOverrides {
        size: Some(estoc::rules::core::size::Size::Large),
        ..Default::default()
    };
    assert_eq!(damage("human_fighter", "longsword", &large), "2d6");
}

#[test]
fn every_level_validates() {
    let content = content();
    let levels = ron_files(&estoc::data::levels_dir());
    assert!(levels.len() >= 2, "at least two levels ship");
    for level in levels {
        let encounter = load_level(&level, &content).unwrap_or_else(|e| panic!("{}:\n{e}", level.display()));
        assert!(!encounter.creatures.is_empty(), "{} has no creature", level.display());
    }
}

#[test]
fn every_scenario_parses_and_names_a_valid_level() {
    let content = content();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    for file in ron_files(&dir) {
        estoc::cli::check_file(&file, &content).unwrap_or_else(|e| panic!("{}:\n{e}", file.display()));
    }
}

fn fixture(name: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// Rows written with escapes and accented characters: every unknown character is reported at its own line
/// and column in the file (columns in characters, as ron counts them), and nothing panics.
#[test]
fn unknown_terrain_is_located_through_escapes_and_accents() {
    let text = "(\n    name: \"E\",\n    size: (width: 12, height: 2),\n    terrain: [\n        \"\\u{2e}\\u{2e}\u{e9}\u{e9}\u{e9}.......\",\n        r#\"\u{e9}...........\"#,\n    ],\n    factions: [(name: \"a\")],\n    creatures: [(id: \"f\", template: \"human_fighter\", faction: \"a\", at: (11, 1))],\n)\n";
    let problems = check_level(Path::new("escapes.ron"), text, &content()).expect_err("four unknown squares");
    let found: Vec<(usize, usize)> =
        problems.0.iter().filter(|d| d.message.contains("unknown terrain")).map(|d| (d.line, d.column)).collect();
    assert_eq!(found, vec![(5, 22), (5, 23), (5, 24), (6, 12)], "{problems:?}");
    // A tab escaped before accents: the offsets of the decoded row would fall inside a character.
    let tabbed = text.replace("\\u{2e}\\u{2e}", "\\t.");
    let problems = check_level(Path::new("tab.ron"), &tabbed, &content()).expect_err("the tab is unknown too");
    let found: Vec<(usize, usize)> =
        problems.0.iter().filter(|d| d.message.contains("unknown terrain")).map(|d| (d.line, d.column)).collect();
    assert_eq!(found, vec![(5, 10), (5, 13), (5, 14), (5, 15), (6, 12)], "{problems:?}");
}

/// Numbers beyond the game's ranges are refused where they are written: a base attack of 2^31 once asked
/// for 6.9 GB of blows, an altitude of 1e30 m became -1 square.
#[test]
fn numbers_out_of_range_are_refused_where_written() {
    let text = "(\n    name: \"N\",\n    size: (width: 4, height: 2),\n    terrain: [\"....\", \"....\"],\n    factions: [(name: \"a\")],\n    creatures: [\n        (id: \"f\", template: \"human_fighter\", faction: \"a\", at: (0, 0), overrides: (base_attack: 2147483647)),\n        (id: \"g\", template: \"griffon\", faction: \"a\", at: (2, 0), altitude_m: 1e30),\n    ],\n)\n";
    let problems = check_level(Path::new("numbers.ron"), text, &content()).expect_err("two numbers out of range");
    let found: Vec<(usize, bool)> = problems.0.iter().map(|d| (d.line, d.message.contains("outside"))).collect();
    assert_eq!(found, vec![(7, true), (8, true)], "{problems:?}");
}

/// A pit's depth is metres, more than 0 and at most 1000: none, a negative one, or one past that, is refused
/// on its line; an infinite one (`inf`) and NaN too.
#[test]
fn a_pit_depth_out_of_range_is_refused_where_written() {
    for (depth, refused) in [("-3.0", true), ("0.0", true), ("1e9", true), ("inf", true), ("NaN", true), ("6.0", false)]
    {
        let text = format!(
            "(\n    name: \"P\",\n    size: (width: 2, height: 1),\n    pit_depth: {depth},\n    terrain: [\"O.\"],\n    factions: [(name: \"a\")],\n    creatures: [(id: \"f\", template: \"goblin\", faction: \"a\", at: (1, 0))],\n)\n"
        );
        let checked = check_level(Path::new("pit.ron"), &text, &content());
        match checked {
            Err(problems) => {
                assert!(refused, "{depth}: {problems:?}");
                assert_eq!(problems.0.len(), 1, "{depth}: {problems:?}");
                assert_eq!(problems.0[0].line, 4, "{depth}: {problems:?}");
            }
            Ok(_) => assert!(!refused, "{depth} is accepted"),
        }
    }
}

/// Hit points and damage have ranges, and the states hit points bring are not written by hand: hit points
/// of 2^31, damage past death (-10, 004:38), `dying` and `disabled` in a list of conditions, and `stable` on
/// a creature not below 0 (004:282) are each refused on their line.
#[test]
fn hit_points_and_their_states_are_checked_where_written() {
    let text = "(\n    name: \"H\",\n    size: (width: 6, height: 2),\n    terrain: [\"......\", \"......\"],\n    factions: [(name: \"a\")],\n    creatures: [\n        (id: \"f\", template: \"human_fighter\", faction: \"a\", at: (0, 0), overrides: (hit_points: 2147483647)),\n        (id: \"g\", template: \"goblin\", faction: \"a\", at: (1, 0), damage: 16),\n        (id: \"h\", template: \"goblin\", faction: \"a\", at: (2, 0), conditions: [dying]),\n        (id: \"i\", template: \"goblin\", faction: \"a\", at: (3, 0), conditions: [disabled]),\n        (id: \"j\", template: \"goblin\", faction: \"a\", at: (4, 0), conditions: [stable]),\n        (id: \"k\", template: \"goblin\", faction: \"a\", at: (5, 0), damage: 15),\n    ],\n)\n";
    let problems = check_level(Path::new("hp.ron"), text, &content()).expect_err("five problems");
    let lines: Vec<usize> = problems.0.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![7, 8, 9, 10, 11], "{problems:?}");
    assert!(problems.0[0].message.contains("from 1 to 10000"), "{problems:?}");
    assert!(problems.0[1].message.contains("below -10"), "{problems:?}");
    assert!(problems.0[4].message.contains("004:282"), "{problems:?}");
}

/// A level with no creature is refused where its list is written.
#[test]
fn an_empty_creature_list_is_refused() {
    let text = "(\n    name: \"E\",\n    size: (width: 2, height: 1),\n    terrain: [\"..\"],\n    factions: [(name: \"a\")],\n    creatures: [],\n)\n";
    let problems = check_level(Path::new("empty.ron"), text, &content()).expect_err("no creature");
    assert_eq!(problems.0.len(), 1, "{problems:?}");
    assert_eq!((problems.0[0].line, problems.0[0].message.as_str()), (6, "a level needs at least one creature"));
}

#[test]
fn a_layer_row_of_the_wrong_width_is_reported_where_it_is_written() {
    let (path, text) = fixture("bad_layers_level.ron");
    let problems = check_level(&path, &text, &content()).expect_err("two rows are short");
    let found: Vec<(usize, usize, String)> = problems.0.iter().map(|d| (d.line, d.column, d.message.clone())).collect();
    assert_eq!(
        found,
        vec![
            (12, 9, "difficult row 1 has 5 squares but the map is 6 wide".to_string()),
            (18, 9, "obstacles row 2 has 4 squares but the map is 6 wide".to_string()),
        ]
    );
}

#[test]
fn a_broken_level_lists_every_problem_with_its_place() {
    let (path, text) = fixture("bad_level.ron");
    let problems = check_level(&path, &text, &content()).expect_err("the level is broken");
    let lines: Vec<String> = problems.0.iter().map(|d| format!("{}:{} {}", d.line, d.column, d.message)).collect();
    let has = |line: usize, fragment: &str| {
        assert!(
            problems.0.iter().any(|d| d.line == line && d.message.contains(fragment)),
            "expected a problem on line {line} containing {fragment:?}, got:\n{}",
            lines.join("\n")
        )
    };
    has(7, "unknown terrain 'x' at (3,1)");
    has(16, "unknown template \"no_such_template\"");
    has(17, "does not fit on the 6x4 map");
    has(18, "unknown faction \"villains\"");
    has(19, "overlap at (1,1)");
    assert_eq!(problems.0.len(), 5, "{}", lines.join("\n"));
    // The terrain error points at the character itself.
    let terrain = problems.0.iter().find(|d| d.message.contains("unknown terrain")).unwrap();
    assert_eq!(terrain.column, 13);
    assert!(problems.to_string().contains("bad_level.ron:7:13: error: unknown terrain"));
}

#[test]
fn an_oversized_map_is_refused_before_allocation() {
    let (path, text) = fixture("huge_level.ron");
    let problems = check_level(&path, &text, &content()).expect_err("too big");
    assert_eq!(problems.0.len(), 1);
    assert_eq!(problems.0[0].line, 3);
    assert!(problems.0[0].message.contains("100000x100000 is refused"), "{}", problems);
}

#[test]
fn a_syntax_error_is_located() {
    let (path, text) = fixture("syntax_error.ron");
    let problems = check_level(&path, &text, &content()).expect_err("does not parse");
    assert_eq!(problems.0.len(), 1);
    assert!(problems.0[0].line >= 6, "{problems}");
}

#[test]
fn the_action_table_is_complete() {
    use estoc::rules::core::action_table::{Provokes, TableKind, find};
    let content = content();
    assert_eq!(content.actions.len(), 65, "every row of 004:89-163");
    let ranged = find(&content.actions, "Ranged attack").expect("a ranged attack row");
    assert_eq!((ranged.line, ranged.kind, ranged.provokes), (90, TableKind::Standard, Provokes::Yes));
    let melee = find(&content.actions, "Melee attack").unwrap();
    assert_eq!(melee.provokes, Provokes::No);
    let stand = content.actions.iter().find(|r| r.line == 130).unwrap();
    assert_eq!(stand.provokes, Provokes::Yes, "standing up provokes (RULES-INDEX)");
    assert!(content.actions.iter().all(|r| (89..=163).contains(&r.line)));
}

/// Drawing, picking up, putting away and dropping a weapon cost what their rows of the table say.
#[test]
fn the_weapon_handlings_cost_what_the_action_table_says() {
    use estoc::rules::core::action_table::{Provokes, TableKind};
    use estoc::rules::turns::ActionKind;
    let content = content();
    for (line, kind, provokes) in estoc::rules::attack::gear::TABLE_ROWS {
        let row = content.actions.iter().find(|r| r.line == line).expect("the row");
        let table_kind = match kind {
            ActionKind::Move => TableKind::Move,
            ActionKind::Free => TableKind::Free,
            ActionKind::Standard => TableKind::Standard,
            ActionKind::FullRound => TableKind::FullRound,
        };
        assert_eq!(row.kind, table_kind, "004:{line} {}", row.english);
        let table_provokes = match row.provokes {
            Provokes::Yes | Provokes::YesNote { .. } => true,
            Provokes::No | Provokes::NoNote { .. } => false,
            other => panic!("004:{line}: {other:?}"),
        };
        assert_eq!(table_provokes, provokes, "004:{line} {}", row.english);
    }
}

/// At chase scale altitudes are bands 0 to 6, given as `band:`; creatures share squares (004:651, 004:788).
#[test]
fn a_chase_level_takes_bands_and_shares_squares() {
    let (path, text) = fixture("bad_chase_level.ron");
    let problems = check_level(&path, &text, &content()).expect_err("the level is broken");
    let lines: Vec<String> = problems.0.iter().map(|d| format!("{}:{} {}", d.line, d.column, d.message)).collect();
    assert!(problems.0.iter().any(|d| d.line == 9 && d.message.contains("band 9 is beyond the highest")), "{lines:?}");
    assert!(problems.0.iter().any(|d| d.line == 10 && d.message.contains("gives altitudes as bands")), "{lines:?}");
    // Three griffons in one square is no overlap at this scale.
    assert_eq!(problems.0.len(), 2, "{lines:?}");
    let chase = load_level(&estoc::data::levels_dir().join("skyway.ron"), &content()).unwrap();
    assert_eq!(chase.battlefield.scale(), estoc::rules::core::altitude::Scale::Chase);
    assert!(chase.creatures.iter().any(|c| c.id.0 == "dragon" && c.altitude == 4));
}

/// A flier may begin hovering or with the speed it flew at before the battle (004:708, 004:827): only aloft,
/// only a flier, hovering only with perfect or good manoeuvrability or the Hover feat, a flight within a
/// double move, not both. The good ones spawn with that flight.
#[test]
fn a_starting_flight_is_checked_where_it_is_written() {
    let (path, text) = fixture("bad_flight_level.ron");
    let problems = check_level(&path, &text, &content()).expect_err("the level is broken");
    let lines: Vec<String> = problems.0.iter().map(|d| format!("{}:{} {}", d.line, d.column, d.message)).collect();
    let at = |line: usize, words: &str| problems.0.iter().any(|d| d.line == line && d.message.contains(words));
    assert!(
        at(10, "cannot hover with average manoeuvrability: perfect or good, or the Hover feat (004:708)"),
        "{lines:?}"
    );
    assert!(at(11, "on the ground it neither hovers nor flies"), "{lines:?}");
    assert!(at(12, "it has no fly speed"), "{lines:?}");
    assert!(at(13, "from 0 to 48 (a double move), not 49.5"), "{lines:?}");
    assert!(at(14, "a flier that hovers flew no distance"), "{lines:?}");
    assert_eq!(problems.0.len(), 5, "{lines:?}");
    let good: String = text
        .lines()
        .filter(|l| !["stiff", "low", "orc", "fast", "both"].iter().any(|id| l.contains(&format!("\"{id}\""))))
        .collect::<Vec<_>>()
        .join("\n");
    let level = check_level(&path, &good, &content()).unwrap_or_else(|e| panic!("{e}"));
    let mut app = estoc::encounter::headless_app();
    estoc::encounter::spawn_encounter(app.world_mut(), &level, 1, &[]);
    let world = app.world_mut();
    let mut flights =
        world.query::<(&estoc::rules::core::creature::CreatureId, &estoc::rules::aerial::flying::Flight)>();
    let mut seen: Vec<(String, bool, f32)> =
        flights.iter(world).map(|(id, f)| (id.0.clone(), f.hovering, f.speed_m)).collect();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(seen, [("griffon".to_string(), false, 24.0), ("wasp".to_string(), true, 0.0)]);
}

/// Riding mistakes are each reported where they are written: a mount with two riders and more than its
/// seat, a mount not in the level, a rider given a square of its own, a creature riding a foe, one riding
/// a rider, one with no square at all, a rider given the saddle its mount should wear. A good level puts
/// its riders on their mounts.
#[test]
fn riders_are_checked_where_they_are_written() {
    let (path, text) = fixture("bad_riders_level.ron");
    let problems = check_level(&path, &text, &content()).expect_err("the level is broken");
    let lines: Vec<String> = problems.0.iter().map(|d| format!("{}:{} {}", d.line, d.column, d.message)).collect();
    let at = |line: usize, words: &str| problems.0.iter().any(|d| d.line == line && d.message.contains(words));
    assert!(at(9, "has 2 riders: one directs it"), "{lines:?}");
    assert!(at(9, "seat(s)"), "{lines:?}");
    assert!(at(11, "rides \"nobody\", which is not in the level"), "{lines:?}");
    assert!(at(12, "it takes no at:"), "{lines:?}");
    assert!(at(14, "of another faction"), "{lines:?}");
    assert!(at(15, "which rides another creature itself"), "{lines:?}");
    assert!(at(16, "needs at: (x, y), or rides:"), "{lines:?}");
    assert!(at(17, "the military saddle goes on the mount"), "{lines:?}");
    let skyway = load_level(&estoc::data::levels_dir().join("skyway.ron"), &content()).unwrap();
    let rider = skyway.creatures.iter().find(|c| c.id.0 == "rider-1").unwrap();
    let griffon = skyway.creatures.iter().find(|c| c.id.0 == "griffon-1").unwrap();
    assert_eq!((rider.at, rider.altitude), (griffon.at, griffon.altitude));
    assert_eq!(rider.rides, Some((griffon.id.clone(), false)));
}

/// Dodge (the feat): +1 dodge bonus to AC, gone flat-footed with the Dex bonus (004:36, 004:53; our ruling
/// for the feat's wording). The dwarf defender: 10 + 8 full plate + 2 shield + 0 Dex + 1 dodge = 21; without
/// the feat 20; flat-footed 20 either way.
#[test]
fn dodge_adds_a_dodge_bonus_lost_when_flat_footed() {
    use estoc::data::content::TemplateOverrides;
    let content = content();
    let (_, dwarf) = content.templates.get("dwarf_defender").expect("the dwarf");
    let with = content.stats(dwarf, &TemplateOverrides::default()).unwrap().sheet().armor_class;
    let without = TemplateOverrides { feats: Some(Vec::new()), ..Default::default() };
    let without = content.stats(dwarf, &without).unwrap().sheet().armor_class;
    assert_eq!(with.normal, without.normal + 1);
    assert!(with.parts.iter().any(|m| m.source == "dodge" && m.value == 1), "{:?}", with.parts);
    assert_eq!(with.flat_footed, without.flat_footed);
}

/// Every landed level opened in the editor and saved without an edit gives back the same level: the same
/// checked encounter (so the same battle, seed for seed), and for the levels written in the editor's own
/// layout, the same bytes.
#[test]
fn every_level_survives_the_editor_round_trip() {
    use estoc::data::draft::Draft;
    let content = estoc::data::Content::load(&estoc::data::assets_dir()).unwrap();
    let mut same_bytes = 0;
    let mut levels = 0;
    for entry in std::fs::read_dir(estoc::data::levels_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ron") {
            continue;
        }
        levels += 1;
        let landed = estoc::data::load_level(&path, &content).unwrap();
        let draft = Draft::read(&path).unwrap();
        let again = draft.check(&path, &content).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(again, landed, "{}", path.display());
        let text = std::fs::read_to_string(&path).unwrap();
        same_bytes += usize::from(draft.text() == text);
    }
    assert!(levels >= 10);
    assert_eq!(same_bytes, levels, "every landed level is laid out as the editor writes it");
}

/// The sample Tiled map becomes a level that checks and plays: its terrain from the tiles' properties,
/// its fog from the layer that says so, its walls on edges and its creatures from the objects.
#[test]
fn the_sample_tiled_map_imports_and_plays() {
    use estoc::rules::core::battlefield::EdgeFeature;
    use estoc::rules::core::geometry::{Direction, Square};
    let map = estoc::data::levels_dir().join("tiled").join("stream.tmx");
    let draft = estoc::data::tiled::import(&map).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(draft.def.name, "The stream (from Tiled)");
    assert_eq!(draft.look(Square::new(0, 0)), '#');
    assert_eq!(draft.look(Square::new(7, 3)), 'W');
    assert_eq!(draft.look(Square::new(3, 5)), '=');
    assert!(draft.layer(estoc::data::draft::Layer::Fog, Square::new(7, 1)));
    assert!(!draft.layer(estoc::data::draft::Layer::Fog, Square::new(7, 5)));
    assert_eq!(draft.edge(Square::new(6, 2), Direction::West), Some(EdgeFeature::Wall));
    let ids: Vec<&str> = draft.def.creatures.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["fighter", "archer", "goblin-1", "goblin-2"]);
    let sides: Vec<(&str, estoc::data::level::Control)> =
        draft.def.factions.iter().map(|f| (f.name.as_str(), f.control)).collect();
    assert_eq!(sides, [("heroes", estoc::data::level::Control::Human), ("goblins", estoc::data::level::Control::Ai)]);
    let level = draft.check(&map.with_extension("ron"), &content()).unwrap_or_else(|e| panic!("{e}"));
    let outcome = estoc::simulate::battle(&level, 1);
    assert!(outcome.rounds >= 1 && outcome.log.0.len() > 10);
    // The same map saved by Tiled as JSON (`.tmj`, its tileset `.tsj`) gives the same level, byte for byte.
    let json = estoc::data::tiled::import(&map.with_extension("tmj")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json.text(), draft.text());
}

/// A Tiled map may not make the importer read outside its folder, and what it cannot carry is named.
#[test]
fn a_tiled_map_reads_only_its_folder_and_names_what_it_cannot_carry() {
    let dir = std::env::temp_dir().join(format!("estoc-tiled-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::write(
        dir.join("outside.tsx"),
        "<tileset name=\"x\" tilewidth=\"64\" tileheight=\"64\" tilecount=\"0\" columns=\"0\"/>",
    )
    .unwrap();
    let map = |tileset: &str, extra: &str| {
        format!(
            "<map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"3\" height=\"3\" tilewidth=\"64\" tileheight=\"64\" infinite=\"0\">{tileset}{extra}</map>"
        )
    };
    let path = dir.join("maps").join("m.tmx");
    std::fs::write(&path, map("<tileset firstgid=\"1\" source=\"../outside.tsx\"/>", "")).unwrap();
    let err = estoc::data::tiled::import(&path).unwrap_err();
    assert!(err.contains("outside the project's folders"), "{err}");
    let object = "<objectgroup id=\"1\" name=\"things\"><object id=\"4\" name=\"door\" x=\"96\" y=\"96\"><properties><property name=\"edge\" value=\"portcullis\"/><property name=\"side\" value=\"North\"/></properties><point/></object></objectgroup>";
    std::fs::write(&path, map("", object)).unwrap();
    let err = estoc::data::tiled::import(&path).unwrap_err();
    assert!(err.contains("layer \"things\", object 4 \"door\" at (1,1): edge \"portcullis\""), "{err}");
    // The same map in Tiled's JSON: the same refusal, the same place named.
    let json = r#"{"type": "map", "version": "1.10", "orientation": "orthogonal", "width": 3, "height": 3,
        "tilewidth": 64, "tileheight": 64, "infinite": false, "layers": [{"type": "objectgroup", "id": 1,
        "name": "things", "objects": [{"id": 4, "name": "door", "x": 96, "y": 96, "point": true, "properties": [
        {"name": "edge", "type": "string", "value": "portcullis"}, {"name": "side", "type": "string", "value": "North"}]}]}]}"#;
    std::fs::write(dir.join("maps").join("m.tmj"), json).unwrap();
    let err = estoc::data::tiled::import(&dir.join("maps").join("m.tmj")).unwrap_err();
    assert!(err.contains("layer \"things\", object 4 \"door\" at (1,1): edge \"portcullis\""), "{err}");
    let outside = r#"{"type": "map", "version": "1.10", "orientation": "orthogonal", "width": 3, "height": 3,
        "tilewidth": 64, "tileheight": 64, "tilesets": [{"firstgid": 1, "source": "../outside.tsx"}], "layers": []}"#;
    std::fs::write(dir.join("maps").join("m.tmj"), outside).unwrap();
    let err = estoc::data::tiled::import(&dir.join("maps").join("m.tmj")).unwrap_err();
    assert!(err.contains("outside the project's folders"), "{err}");
    std::fs::write(dir.join("maps").join("m.tmj"), "{\n \"width\": 3,\n oops }").unwrap();
    let err = estoc::data::tiled::import(&dir.join("maps").join("m.tmj")).unwrap_err();
    assert!(err.contains("m.tmj: line 3, column"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A Tiled map that would make the reader stop or swell is refused with its reason: tile data shorter than
/// the map, compressed data.
#[test]
fn a_hostile_tiled_map_is_refused_not_obeyed() {
    let dir = std::env::temp_dir().join(format!("estoc-tiled-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tileset = "<tileset firstgid=\"1\" name=\"t\" tilewidth=\"64\" tileheight=\"64\" tilecount=\"1\" columns=\"1\"><tile id=\"0\"><properties><property name=\"terrain\" value=\"#\"/></properties></tile></tileset>";
    let map = |data: &str| {
        format!(
            "<map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"4\" height=\"4\" tilewidth=\"64\" tileheight=\"64\" infinite=\"0\">{tileset}<layer id=\"1\" name=\"ground\" width=\"4\" height=\"4\">{data}</layer></map>"
        )
    };
    let path = dir.join("m.tmx");
    std::fs::write(&path, map("<data encoding=\"csv\">1,1,1</data>")).unwrap();
    let err = estoc::data::tiled::import(&path).unwrap_err();
    assert!(err.contains("less data than the map has squares"), "{err}");
    std::fs::write(&path, map("<data encoding=\"base64\" compression=\"zlib\">eJzLzs7OBgAFJAHz</data>")).unwrap();
    assert!(estoc::data::tiled::import(&path).unwrap_err().contains("compressed tile data is not read"));
    std::fs::write(&path, map("<data encoding=\"csv\">1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1</data>")).unwrap();
    let draft = estoc::data::tiled::import(&path).unwrap();
    assert_eq!(draft.look(estoc::rules::core::geometry::Square::new(3, 3)), '#');
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fatigued creature « ne peut ni courir ni charger » and has Strength and Dexterity 2 lower (003:71): the
/// level's fatigued fighter's sheet lists no run, and its Strength bonus is +2 (Str 14), not +3.
#[test]
fn a_fatigued_creature_s_sheet_lists_no_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/levels/fatigued_fighter.ron");
    let level = load_level(&path, &content()).unwrap();
    let fighter = level.creatures.iter().find(|c| c.id.0 == "fighter").unwrap();
    let tired = fighter.stats.sheet_in(&fighter.conditions);
    let actions: Vec<&str> = tired.speeds.iter().map(|s| s.action.as_str()).collect();
    assert_eq!(actions, ["move", "double move"]);
    assert!(fighter.stats.sheet().speeds.iter().any(|s| s.action == "run"), "rested, it runs");
    assert_eq!(fighter.stats.abilities.str, 14);
}

/// A one-handed weapon held alone is gripped in both hands on the sheet as in play (004:26): the grip
/// level's lone longsword lists Str x1.5, the one beside a dagger Str x1, the light short sword Str x1.
#[test]
fn a_lone_one_handed_weapon_s_sheet_lists_its_grip() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/levels/grip.ron");
    let level = load_level(&path, &content()).unwrap();
    let strength = |id: &str, weapon: &str| {
        let creature = level.creatures.iter().find(|c| c.id.0 == id).unwrap();
        let line = creature.stats.sheet().attacks.into_iter().find(|a| a.weapon == weapon).unwrap();
        line.damage_parts.into_iter().find(|m| m.source.starts_with("Str")).map(|m| (m.value, m.source))
    };
    assert_eq!(strength("sword", "longsword"), Some((4, "Str x1.5 (two hands)".to_string())));
    assert_eq!(strength("pair", "longsword"), Some((3, "Str".to_string())));
    assert_eq!(strength("short", "short sword"), Some((3, "Str".to_string())));
}

/// A two-handed weapon takes both hands (004:25-26): one written as held in the off hand is refused on the
/// creature's line, which names it, and a one-handed one there is not.
#[test]
fn a_two_handed_weapon_in_the_off_hand_is_refused() {
    let text = "(\n    name: \"O\",\n    size: (width: 4, height: 1),\n    terrain: [\"....\"],\n    factions: [(name: \"a\")],\n    creatures: [\n        (id: \"f\", template: \"orc\", faction: \"a\", at: (0, 0), overrides: (weapons: Some([(weapon: \"greatsword\", off_hand: true)]))),\n        (id: \"g\", template: \"orc\", faction: \"a\", at: (2, 0), overrides: (weapons: Some([\"longsword\", (weapon: \"short sword\", off_hand: true)]))),\n    ],\n)\n";
    let problems = check_level(Path::new("off_hand.ron"), text, &content()).expect_err("the greatsword");
    assert_eq!(problems.0.len(), 1, "{problems:?}");
    assert_eq!(problems.0[0].line, 7, "{problems:?}");
    assert!(problems.0[0].message.contains("two-handed weapon"), "{problems:?}");
}
