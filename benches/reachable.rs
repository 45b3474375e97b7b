//! The reachable-squares query, which the move preview runs whenever the selection or the map changes:
//! a Medium creature of speed 6 squares (move and run) and a Large one, on an open 64x64 map and in a maze.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use estoc::rules::core::battlefield::{Battlefield, EdgeFeature, Terrain};
use estoc::rules::core::geometry::{Edge, Footprint, Square};
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

/// The map as the reference reads it, flattened once per map as the game keeps its table of steps per
/// map: per square whether it can be entered and whether it is difficult, and the wall edges.
struct Flat {
    width: i32,
    height: i32,
    /// 0: wall; 1: open; 2: difficult.
    ground: Vec<u8>,
    /// A wall on the square's east edge, on its south edge.
    east: Vec<bool>,
    south: Vec<bool>,
}

impl Flat {
    fn new(field: &Battlefield) -> Self {
        let (width, height) = (field.width(), field.height());
        let squares: Vec<Square> = field.squares().collect();
        let wall = |s: Square, east: bool| field.edge(Edge { square: s, east }).is_some_and(EdgeFeature::is_wall);
        Flat {
            width,
            height,
            ground: squares
                .iter()
                .map(|&s| match (field.terrain(s).blocks(), field.is_difficult(s)) {
                    (true, _) => 0,
                    (false, false) => 1,
                    (false, true) => 2,
                })
                .collect(),
            east: squares.iter().map(|&s| wall(s, true)).collect(),
            south: squares.iter().map(|&s| wall(s, false)).collect(),
        }
    }

    fn ground(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            0
        } else {
            self.ground[(y * self.width + x) as usize]
        }
    }

    fn east_wall(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height && self.east[(y * self.width + x) as usize]
    }

    fn south_wall(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height && self.south[(y * self.width + x) as usize]
    }

    /// A wall edge ends at or passes through the corner at the north-west of square (x, y).
    fn corner_walled(&self, x: i32, y: i32) -> bool {
        self.east_wall(x - 1, y - 1)
            || self.east_wall(x - 1, y)
            || self.south_wall(x - 1, y - 1)
            || self.south_wall(x, y - 1)
    }
}

/// The reference the issue measures against: a plain bucket-queue Dijkstra over (square, diagonal
/// parity) states, written here beside the game's search, with the same rules for a Medium walker:
/// 1-2-1-2 diagonals (the parity carried along the path), difficult terrain doubling (2 straight, 3
/// diagonal) or forbidden when running, walls, wall edges and no corner cutting. It keeps nothing but the
/// costs: no paths, no tie-breaks, no squeezing, no creatures. Returns how many squares other than the
/// start can be reached.
fn reference(flat: &Flat, start: Square, budget: u32, no_hampered: bool) -> usize {
    const STEPS: [(i32, i32); 8] = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)];
    let width = flat.width;
    let cells = (width * flat.height) as usize;
    let mut best = vec![u32::MAX; cells * 2];
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); budget as usize + 1];
    let first = ((start.y * width + start.x) as usize) * 2;
    best[first] = 0;
    buckets[0].push(first as u32);
    for cost in 0..=budget {
        let bucket = std::mem::take(&mut buckets[cost as usize]);
        for &state in &bucket {
            let state = state as usize;
            if best[state] != cost {
                continue;
            }
            let (cell, odd) = (state / 2, state % 2 == 1);
            let (x, y) = (cell as i32 % width, cell as i32 / width);
            for (dx, dy) in STEPS {
                let (tx, ty) = (x + dx, y + dy);
                let ground = flat.ground(tx, ty);
                if ground == 0 || (ground == 2 && no_hampered) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                let walled = if diagonal {
                    flat.corner_walled(x + i32::from(dx > 0), y + i32::from(dy > 0))
                        || flat.ground(x + dx, y) == 0
                        || flat.ground(x, y + dy) == 0
                } else {
                    match (dx, dy) {
                        (1, 0) => flat.east_wall(x, y),
                        (-1, 0) => flat.east_wall(x - 1, y),
                        (0, 1) => flat.south_wall(x, y),
                        _ => flat.south_wall(x, y - 1),
                    }
                };
                if walled {
                    continue;
                }
                let (step, next_odd) = match (diagonal, ground == 2) {
                    (false, false) => (1, odd),
                    (false, true) => (2, odd),
                    (true, false) => (if odd { 2 } else { 1 }, !odd),
                    (true, true) => (3, odd),
                };
                let total = cost + step;
                let next = ((ty * width + tx) as usize) * 2 + usize::from(next_odd);
                if total <= budget && total < best[next] {
                    best[next] = total;
                    buckets[total as usize].push(next as u32);
                }
            }
        }
    }
    (0..cells).filter(|&c| c != first / 2 && (best[c * 2] != u32::MAX || best[c * 2 + 1] != u32::MAX)).count()
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
            SearchRules { no_hampered: true, odd_diagonal: false, dry: false },
        ),
        (
            "maze 64x64, Medium, run (24)",
            &maze,
            medium,
            in_room,
            24,
            SearchRules { no_hampered: true, odd_diagonal: false, dry: false },
        ),
        ("maze 64x64, Medium, double move (12)", &maze, medium, in_room, 12, SearchRules::default()),
        (
            "open 64x64, Large, run (32)",
            &open,
            large,
            Footprint::new(Square::new(31, 31), 2),
            32,
            SearchRules { no_hampered: true, odd_diagonal: false, dry: false },
        ),
    ];
    // The reference beside the game's search, on the same maps: both must find the same squares.
    for (name, field, start, budget, no_hampered) in [
        ("reference: open 64x64, Medium, double move (12)", &open, centre.origin, 12, false),
        ("reference: open 64x64, Medium, run (24)", &open, centre.origin, 24, true),
        ("reference: maze 64x64, Medium, run (24)", &maze, in_room.origin, 24, true),
        ("reference: maze 64x64, Medium, double move (12)", &maze, in_room.origin, 12, false),
    ] {
        let world = StepWorld { field, occupants: &[] };
        let rules = SearchRules { no_hampered, odd_diagonal: false, dry: false };
        let ours = reachable(&world, &medium, Footprint::new(start, 1), budget, rules).destinations().len();
        let flat = Flat::new(field);
        assert_eq!(reference(&flat, start, budget, no_hampered), ours, "{name}: the two searches disagree");
        c.bench_function(name, |b| b.iter(|| reference(&flat, start, black_box(budget), no_hampered)));
    }
    for (name, field, mover, start, budget, rules) in cases {
        let world = StepWorld { field, occupants: &[] };
        c.bench_function(name, |b| {
            b.iter(|| black_box(reachable(&world, &mover, start, black_box(budget), rules)).destinations().len())
        });
    }
    // The run the game offers: every straight line of x4 speed (004:248).
    let run_rules = SearchRules { no_hampered: true, odd_diagonal: false, dry: false };
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
