//! The work the game does when the cursor moves to another square or a turn begins, on the 64x64 level
//! with 30 creatures (`levels/battlefield.ron`): the move options of the active creature (every movement action), the path to the square
//! under the cursor with its attacks of opportunity, the attack preview on a foe, the foes' threatened
//! squares; and, headless, one AI decision and whole AI battles.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use estoc::data::{Content, load_level};
use estoc::encounter::{begin, headless_app, spawn_encounter};
use estoc::preview::{attack_preview, move_options, path_preview};
use estoc::rules::attack::AttackRequest;
use estoc::rules::core::creature::Roster;
use estoc::rules::core::geometry::Square;
use estoc::rules::movement::MovementAction;

fn bench(c: &mut Criterion) {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let encounter = load_level(&root.join("levels/battlefield.ron"), &content).unwrap();
    let mut app = headless_app();
    spawn_encounter(app.world_mut(), &encounter, 1, &[]);
    begin(app.world_mut(), &encounter.name, 1);
    app.update();
    // The creature whose turn it is (hero-4 with seed 1), and a foe.
    let hero = app.world().resource::<estoc::rules::turns::TurnOrder>().current_entity().unwrap();
    let foe = app.world().resource::<Roster>().get("foe-4").unwrap();
    let world = app.world_mut();
    // The rules' schedule run with no command to carry out: what every step pays before its own work.
    let systems =
        world.resource::<bevy::ecs::schedule::Schedules>().get(estoc::rules::Rules).map_or(0, |s| s.systems_len());
    eprintln!("the rules' schedule: {systems} systems");
    c.bench_function("64x64, 30 creatures: the rules run with nothing to do", |b| {
        b.iter(|| estoc::rules::core::systems::run_rules(world))
    });
    c.bench_function("64x64, 30 creatures: move options (every action)", |b| {
        b.iter(|| black_box(move_options(world, hero)))
    });
    c.bench_function("64x64, 30 creatures: path to a square with its AoOs", |b| {
        b.iter(|| black_box(path_preview(world, hero, MovementAction::DoubleMove, Square::new(30, 20), &[]).ok()))
    });
    c.bench_function("64x64, 30 creatures: attack preview", |b| {
        b.iter(|| black_box(attack_preview(world, hero, foe, AttackRequest::default()).ok()))
    });
    c.bench_function("64x64, 30 creatures: foes' threatened squares", |b| {
        b.iter(|| black_box(estoc::game::previews::foes_threatened(world, hero)))
    });
    // The griffon in the air: every flight it could fly this turn (the flier's move preview, computed when
    // its turn or the state changes) and the AI's choice among them.
    let griffon = world.resource::<Roster>().get("griffon").unwrap();
    c.bench_function("64x64, 30 creatures: a flier's flights (every square, every flight)", |b| {
        b.iter(|| black_box(estoc::rules::aerial::flying::plan_flights(world, griffon, &[], None)))
    });
    // The AI deciding the first step of the turn for the creature whose turn it is.
    c.bench_function("64x64, 30 creatures: one AI decision", |b| {
        b.iter(|| black_box(estoc::ai::next_step(world, hero)))
    });
    // What a frame costs when the cursor enters another square: the previews recomputed, the overlays
    // (shaded squares, path, labels, outlines) despawned and spawned again; and when nothing changed.
    let mut board = headless_app();
    spawn_encounter(board.world_mut(), &encounter, 1, &[]);
    begin(board.world_mut(), &encounter.name, 1);
    estoc::game::overlays_headless(&mut board, &encounter);
    board.update();
    let squares = [Square::new(30, 20), Square::new(28, 22)];
    let mut flip = 0;
    c.bench_function("64x64, 30 creatures: a frame when the cursor enters another square", |b| {
        b.iter(|| {
            flip = 1 - flip;
            board.world_mut().resource_mut::<estoc::game::state::Hover>().square = Some(squares[flip]);
            board.update();
        })
    });
    c.bench_function("64x64, 30 creatures: a frame when nothing changed", |b| b.iter(|| board.update()));
    let skirmish = load_level(&root.join("levels/skirmish.ron"), &content).unwrap();
    c.bench_function("a whole AI battle, skirmish (4 creatures), in a new app", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            black_box(estoc::simulate::battle(&skirmish, seed).rounds)
        })
    });
    // As `estoc simulate` plays them: one app kept from battle to battle.
    let mut arena = estoc::simulate::Arena::new();
    c.bench_function("a whole AI battle, skirmish (4 creatures)", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            black_box(arena.battle(&skirmish, seed).rounds)
        })
    });
    let mut group = c.benchmark_group("long");
    group.sample_size(10);
    group.bench_function("a whole AI battle, battlefield (30 creatures)", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            black_box(arena.battle(&encounter, seed).rounds)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
