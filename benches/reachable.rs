//! The reachable-squares query, which the move preview runs whenever the selection or the map changes:
//! a Medium creature of speed 6 squares (move and run) and a Large one, on an open 64x64 map and in a maze.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use estoc::rules::core::battlefield::{Battlefield, Terrain};
use estoc::rules::core::geometry::{Footprint, Square};
use estoc::rules::core::size::Size;
use estoc::rules::movement::{Mover, SearchRules, StepWorld, reachable, straight_reachable};

const SIDE: i32 = 64;

fn open_map() -> Battlefield {
    Battlefield::open(SIDE, SIDE)
}

/// Walls every fourth row and column with a door in each stretch, and rubble here and there.
fn maze() -> Battlefield {
    let mut field = Battlefield::open(SIDE, SIDE);
    for y in 0..SIDE {
        for x in 0..SIDE {
            let wall_line = x % 4 == 0 || y % 4 == 0;
            let door = (x % 4 == 2 && y % 8 == 0) || (y % 4 == 2 && x % 8 == 4);
            if wall_line && !door {
                field.set_terrain(Square::new(x, y), Terrain::Wall);
            } else if (x * 7 + y * 13) % 11 == 0 {
                field.set_terrain(Square::new(x, y), Terrain::Difficult);
            }
        }
    }
    field
}

fn bench(c: &mut Criterion) {
    let open = open_map();
    let maze = maze();
    let medium = Mover::walker(Size::Medium);
    let large = Mover::walker(Size::Large);
    let centre = Footprint::new(Square::new(31, 31), 1);
    let in_room = Footprint::new(Square::new(30, 30), 1);
    let cases: [(&str, &Battlefield, Mover, Footprint, u32, SearchRules); 6] = [
        ("open 64x64, Medium, move (6)", &open, medium, centre, 6, SearchRules::default()),
        ("open 64x64, Medium, double move (12)", &open, medium, centre, 12, SearchRules::default()),
        (
            "open 64x64, Medium, run (24)",
            &open,
            medium,
            centre,
            24,
            SearchRules { no_hampered: true, odd_diagonal: false },
        ),
        (
            "maze 64x64, Medium, run (24)",
            &maze,
            medium,
            in_room,
            24,
            SearchRules { no_hampered: true, odd_diagonal: false },
        ),
        ("maze 64x64, Medium, double move (12)", &maze, medium, in_room, 12, SearchRules::default()),
        (
            "open 64x64, Large, run (32)",
            &open,
            large,
            Footprint::new(Square::new(31, 31), 2),
            32,
            SearchRules { no_hampered: true, odd_diagonal: false },
        ),
    ];
    for (name, field, mover, start, budget, rules) in cases {
        let world = StepWorld { field, occupants: &[] };
        c.bench_function(name, |b| {
            b.iter(|| black_box(reachable(&world, &mover, start, black_box(budget), rules)).destinations().len())
        });
    }
    // The run the game offers: every straight line of x4 speed (004:248).
    let run_rules = SearchRules { no_hampered: true, odd_diagonal: false };
    for (name, field, mover, start, budget) in [
        ("open 64x64, Medium, run lines (24)", &open, medium, centre, 24),
        ("maze 64x64, Medium, run lines (24)", &maze, medium, in_room, 24),
        ("open 64x64, Large, run lines (32)", &open, large, Footprint::new(Square::new(31, 31), 2), 32),
    ] {
        let world = StepWorld { field, occupants: &[] };
        c.bench_function(name, |b| {
            b.iter(|| black_box(straight_reachable(&world, &mover, start, black_box(budget), run_rules)).len())
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
