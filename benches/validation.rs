//! Validating a level grows with the file, not with the square of its errors (issue of 105 s on a 3.6 MB
//! file): `check_level` on square maps of unknown squares, 64, 128 and 256 squares a side (4,096 to 65,536
//! errors, listed up to 100 with a count of the rest). Linear time shows as a time per square that stays flat
//! from one size to the next.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use estoc::data::{Content, level::check_level};

/// A level of `side` x `side` unknown squares: one error each.
fn broken_level(side: usize) -> String {
    let row = "é".repeat(side);
    let rows: Vec<String> = (0..side).map(|_| format!("        \"{row}\",")).collect();
    format!(
        "(\n    name: \"Many\",\n    size: (width: {side}, height: {side}),\n    terrain: [\n{}\n    ],\n    factions: [(name: \"a\")],\n    creatures: [(id: \"f\", template: \"human_fighter\", faction: \"a\", at: (0, 0))],\n)\n",
        rows.join("\n")
    )
}

fn bench(c: &mut Criterion) {
    let content = Content::load(&estoc::data::assets_dir()).expect("assets validate");
    let mut group = c.benchmark_group("check_level, every square unknown");
    group.sample_size(10);
    for side in [64, 128, 256] {
        let text = broken_level(side);
        group.throughput(Throughput::Elements((side * side) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(format!("{side}x{side}")), &text, |b, text| {
            b.iter(|| black_box(check_level(Path::new("many.ron"), text, &content).is_err()));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
