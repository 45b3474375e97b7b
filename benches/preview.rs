//! The work the game does when the cursor moves to another square or a turn begins, on a 64x64 level with
//! 30 creatures: the move options of the active creature (every movement action), the path to the square
//! under the cursor with its attacks of opportunity, the attack preview on a foe, the foes' threatened
//! squares; and, headless, one AI decision and whole AI battles.

use std::hint::black_box;
use std::path::PathBuf;

use bevy::prelude::*;
use criterion::{Criterion, criterion_group, criterion_main};
use estoc::data::{Content, Encounter, load_level};
use estoc::encounter::{Roster, begin, headless_app, spawn_encounter};
use estoc::preview::{attack_preview, move_options, path_preview};
use estoc::rules::attack::AttackRequest;
use estoc::rules::geometry::Square;
use estoc::rules::movement::MovementAction;

const SIDE: usize = 64;

/// A 64x64 level: rubble, low walls and a few ruins, 15 heroes in the west facing 15 goblins and orcs.
fn big_level(content: &Content) -> Encounter {
    let mut rows = Vec::new();
    for y in 0..SIDE {
        let row: String = (0..SIDE)
            .map(|x| match (x, y) {
                (0, _) | (_, 0) => '#',
                _ if x == SIDE - 1 || y == SIDE - 1 => '#',
                _ if (x * 7 + y * 13) % 23 == 0 => ':',
                _ if x % 16 == 8 && y % 12 < 4 => '#',
                _ if y % 10 == 5 && x % 9 < 3 => '=',
                _ => '.',
            })
            .collect();
        rows.push(format!("        \"{row}\","));
    }
    let mut creatures = Vec::new();
    for i in 0..15 {
        let template = ["human_fighter", "elf_archer", "dwarf_defender"][i % 3];
        creatures.push(format!(
            "        (id: \"hero-{i}\", template: \"{template}\", faction: \"heroes\", at: ({}, {})),",
            20 + (i % 3) * 2,
            6 + i * 3
        ));
        let template = ["goblin", "orc"][i % 2];
        creatures.push(format!(
            "        (id: \"foe-{i}\", template: \"{template}\", faction: \"goblins\", at: ({}, {})),",
            27 + (i % 3) * 2,
            6 + i * 3
        ));
    }
    let text = format!(
        "(\n    name: \"Bench field\",\n    size: (width: {SIDE}, height: {SIDE}),\n    terrain: [\n{}\n    ],\n    factions: [\n        (name: \"heroes\", control: Human),\n        (name: \"goblins\", control: Ai),\n    ],\n    creatures: [\n{}\n    ],\n)\n",
        rows.join("\n"),
        creatures.join("\n")
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target").join("bench-field.ron");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    load_level(&path, content).unwrap_or_else(|e| panic!("{e}"))
}

fn bench(c: &mut Criterion) {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    let encounter = big_level(&content);
    let mut app = headless_app();
    spawn_encounter(app.world_mut(), &encounter, 1, &[]);
    begin(app.world_mut(), &encounter.name, 1);
    app.update();
    let roster = app.world().resource::<Roster>().clone();
    let hero = roster.get("hero-7").unwrap();
    let foe = roster.get("foe-7").unwrap();
    let world = app.world_mut();
    c.bench_function("64x64, 30 creatures: move options (every action)", |b| {
        b.iter(|| black_box(move_options(world, hero)))
    });
    c.bench_function("64x64, 30 creatures: path to a square with its AoOs", |b| {
        b.iter(|| black_box(path_preview(world, hero, MovementAction::DoubleMove, Square::new(26, 30), &[]).ok()))
    });
    c.bench_function("64x64, 30 creatures: attack preview", |b| {
        b.iter(|| black_box(attack_preview(world, hero, foe, AttackRequest::default()).ok()))
    });
    c.bench_function("64x64, 30 creatures: foes' threatened squares", |b| {
        b.iter(|| black_box(estoc::game::play::foes_threatened(world, hero)))
    });
    c.bench_function("64x64, 30 creatures: one AI decision", |b| {
        b.iter(|| black_box(estoc::ai::next_step(world, foe)))
    });
    let skirmish =
        load_level(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("levels/skirmish.ron"), &content).unwrap();
    c.bench_function("a whole AI battle, skirmish (4 creatures)", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            black_box(estoc::simulate::battle(&skirmish, seed).rounds)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
