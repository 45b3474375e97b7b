//! What the map alone says of every step a mover can take on it: walls, edges, corners, pits and the
//! ground's doublings (`StepWorld::step_ground`), worked out once per map and kind of mover and kept
//! with the map (`Battlefield::derived`) until it changes. A search then asks the other creatures only
//! where one stands (`StepWorld::enter_among`). The table holds the very answers of `step_ground`, filled
//! square by square the first time a search reaches a square, so a search with it finds what a search
//! without it finds.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::cost::{EDGE_OBSTACLE_COST, Entry, Hampering, Medium, Mover, StepWorld};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::geometry::{Direction, Footprint, Square};
use crate::rules::core::size::Size;

/// The eight steps from one footprint, seven bits each (open, may stop, an edge crossed, four bits of
/// doublings), with these two flags above them.
const FILLED: u64 = 1 << 63;
/// Some step's terms do not fit the seven bits: the search asks the rules every time there.
const UNFIT: u64 = 1 << 62;
const OPEN: u64 = 1;
const STOP: u64 = 2;
const EDGE: u64 = 4;
const DOUBLINGS_SHIFT: u32 = 3;
const MAX_DOUBLINGS: u32 = 15;

/// The steps of one kind of mover on one map, for each space it can take (`Mover::shapes`).
pub struct GroundTable {
    width: i32,
    height: i32,
    shapes: Vec<(i32, i32)>,
    cells: Vec<AtomicU64>,
}

/// One step the table knows: where it leads and what the ground asks there.
pub type GroundStep = Option<(Footprint, Entry)>;

impl GroundTable {
    /// The table of `mover`'s kind on `field`, built empty the first time and kept with the map.
    pub fn of(field: &Battlefield, mover: &Mover) -> Arc<GroundTable> {
        field.derived().get_or_build(kind(mover), || {
            let shapes = mover.shapes();
            let cells = (field.width().max(0) * field.height().max(0)) as usize * shapes.len();
            GroundTable {
                width: field.width(),
                height: field.height(),
                shapes,
                cells: (0..cells).map(|_| AtomicU64::new(0)).collect(),
            }
        })
    }

    /// The eight steps from the footprint of space `shape` at `origin`, packed (read them with
    /// [`GroundTable::step`]): `None` where the table cannot say (off its squares, or terms too large),
    /// and the caller asks `StepWorld::step_ground`.
    #[inline]
    pub fn steps(&self, world: &StepWorld<'_>, mover: &Mover, shape: usize, origin: Square) -> Option<u64> {
        let &(w, h) = self.shapes.get(shape)?;
        if origin.x < 0 || origin.y < 0 || origin.x >= self.width || origin.y >= self.height {
            return None;
        }
        let cell =
            &self.cells[(shape * self.height as usize + origin.y as usize) * self.width as usize + origin.x as usize];
        let mut bits = cell.load(Ordering::Relaxed);
        if bits & FILLED == 0 {
            bits = fill(world, mover, Footprint::rect(origin, w, h));
            cell.store(bits, Ordering::Relaxed);
        }
        (bits & UNFIT == 0).then_some(bits)
    }

    /// The step in direction `d` (of `Direction::ALL`) from `from`, out of its footprint's packed `steps`.
    #[inline]
    pub fn step(steps: u64, from: Footprint, d: usize) -> GroundStep {
        let code = (steps >> (7 * d)) & 0x7f;
        (code & OPEN != 0).then(|| {
            let hampering = Hampering {
                doublings: (code >> DOUBLINGS_SHIFT) as u32,
                edge_extra: if code & EDGE != 0 { EDGE_OBSTACLE_COST } else { 0 },
            };
            let (dx, dy) = Direction::ALL[d].delta();
            (from.at(from.origin.offset(dx, dy)), Entry { hampering, can_stop: code & STOP != 0 })
        })
    }
}

/// The squares other creatures cover, the mover's own space aside: where a step must ask them
/// (`StepWorld::enter_among`).
pub struct Crowd {
    width: i32,
    height: i32,
    covered: Vec<bool>,
    /// No one else on the map.
    empty: bool,
}

impl Crowd {
    pub fn new(world: &StepWorld<'_>, own: Footprint) -> Self {
        let (width, height) = (world.field.width().max(0), world.field.height().max(0));
        let mut covered = vec![false; (width * height) as usize];
        let mut empty = true;
        for other in world.occupants.iter().filter(|o| o.footprint != own) {
            empty = false;
            for s in other.footprint.squares() {
                if s.x >= 0 && s.y >= 0 && s.x < width && s.y < height {
                    covered[(s.y * width + s.x) as usize] = true;
                }
            }
        }
        Crowd { width, height, covered, empty }
    }

    /// Whether someone may stand in `footprint` (off the map counts: the caller asks the rules).
    #[inline]
    pub fn touches(&self, footprint: Footprint) -> bool {
        if self.empty {
            return false;
        }
        let Footprint { origin, width, height } = footprint;
        if width == 1
            && height == 1
            && origin.x >= 0
            && origin.y >= 0
            && origin.x < self.width
            && origin.y < self.height
        {
            return self.covered[(origin.y * self.width + origin.x) as usize];
        }
        footprint.squares().any(|s| {
            s.x < 0
                || s.y < 0
                || s.x >= self.width
                || s.y >= self.height
                || self.covered[(s.y * self.width + s.x) as usize]
        })
    }
}

/// A step of `mover` from `here` (of space `shape` among `Mover::shapes`) in direction `d`, as
/// `StepWorld::step` judges it, `own` its space at the start: the table's answer where it has one, the
/// other creatures asked only where one may stand.
pub fn quick_step(
    world: &StepWorld<'_>,
    mover: &Mover,
    (table, crowd): (&GroundTable, &Crowd),
    here: Footprint,
    shape: Option<usize>,
    own: Footprint,
    d: usize,
) -> Option<(Footprint, Entry)> {
    let known = shape.and_then(|shape| table.steps(world, mover, shape, here.origin));
    step_knowing(world, mover, (known, Some(crowd)), here, own, d)
}

/// [`quick_step`] with the footprint's packed steps already read (`None`: ask the rules), and the crowd
/// if there is one (`None`: ask the other creatures every time).
///
/// Inlined where the search runs: the table's answer is read into registers there, not handed back through
/// memory (the search's hot path); the rules are asked out of line.
#[inline(always)]
pub fn step_knowing(
    world: &StepWorld<'_>,
    mover: &Mover,
    (known, crowd): (Option<u64>, Option<&Crowd>),
    here: Footprint,
    own: Footprint,
    d: usize,
) -> Option<(Footprint, Entry)> {
    step_packed(world, mover, (known, crowd), here, own, d).map(|(origin, entry)| (here.at(origin), unpack(entry)))
}

/// [`step_knowing`] with the answer in two words, the origin of the footprint stepped into and the entry
/// packed ([`pack`]): what the search reads, kept in registers (a struct handed back through memory in
/// pieces costs the search a stall at each step).
#[inline(always)]
pub fn step_packed(
    world: &StepWorld<'_>,
    mover: &Mover,
    (known, crowd): (Option<u64>, Option<&Crowd>),
    here: Footprint,
    own: Footprint,
    d: usize,
) -> Option<(Square, u32)> {
    let Some(steps) = known else {
        return step_asking(world, mover, (here, own), d).map(|(to, entry)| (to.origin, pack(entry)));
    };
    let code = (steps >> (7 * d)) & 0x7f;
    if code & OPEN == 0 {
        return None;
    }
    let (dx, dy) = Direction::ALL[d].delta();
    let origin = here.origin.offset(dx, dy);
    // The table's code holds the entry's terms as they pack: doublings, the edge crossed, may stop.
    let entry = ((code >> DOUBLINGS_SHIFT) as u32)
        | if code & EDGE != 0 { EDGE_OBSTACLE_COST << 8 } else { 0 }
        | if code & STOP != 0 { 1 << 16 } else { 0 };
    if crowd.is_some_and(|crowd| !crowd.touches(here.at(origin))) {
        return Some((origin, entry));
    }
    among(world, mover, (here.at(origin), own), unpack(entry)).map(|(to, entry)| (to.origin, pack(entry)))
}

/// An entry in one word: doublings in the low byte, the edge's extra squares in the next, whether one may
/// stop above them.
#[inline(always)]
pub fn pack(entry: Entry) -> u32 {
    entry.hampering.doublings.min(0xff)
        | (entry.hampering.edge_extra.min(0xff) << 8)
        | (u32::from(entry.can_stop) << 16)
}

/// The entry [`pack`] packed.
#[inline(always)]
pub fn unpack(packed: u32) -> Entry {
    Entry {
        hampering: Hampering { doublings: packed & 0xff, edge_extra: (packed >> 8) & 0xff },
        can_stop: packed & (1 << 16) != 0,
    }
}

/// [`step_knowing`] with no table: the rules asked in full, the map's and the other creatures'.
#[inline(never)]
fn step_asking(
    world: &StepWorld<'_>,
    mover: &Mover,
    (here, own): (Footprint, Footprint),
    d: usize,
) -> Option<(Footprint, Entry)> {
    let (to, ground) = world.step_ground(mover, here, Direction::ALL[d]).ok()?;
    among(world, mover, (to, own), ground)
}

/// The other creatures asked of a step the map allows.
#[inline(never)]
fn among(
    world: &StepWorld<'_>,
    mover: &Mover,
    (to, own): (Footprint, Footprint),
    ground: Entry,
) -> Option<(Footprint, Entry)> {
    world.enter_among(mover, to, own, ground).ok().map(|entry| (to, entry))
}

/// The eight steps of `from`, packed.
fn fill(world: &StepWorld<'_>, mover: &Mover, from: Footprint) -> u64 {
    let mut bits = FILLED;
    for (d, direction) in Direction::ALL.into_iter().enumerate() {
        let Ok((_, entry)) = world.step_ground(mover, from, direction) else { continue };
        let Entry { hampering: Hampering { doublings, edge_extra }, can_stop } = entry;
        if doublings > MAX_DOUBLINGS || (edge_extra != 0 && edge_extra != EDGE_OBSTACLE_COST) {
            return FILLED | UNFIT;
        }
        let code = OPEN
            | if can_stop { STOP } else { 0 }
            | if edge_extra != 0 { EDGE } else { 0 }
            | (u64::from(doublings) << DOUBLINGS_SHIFT);
        bits |= code << (7 * d);
    }
    bits
}

/// What of the mover the ground's answers depend on: everything but charging and passing foes, which
/// only the other creatures read.
fn kind(mover: &Mover) -> u64 {
    let size = Size::ALL.iter().position(|&s| s == mover.size).unwrap_or(0) as u64;
    let flags =
        [mover.medium == Medium::Fly, mover.incorporeal, mover.darkvision, mover.swims, mover.tumbling, mover.blinded]
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &on)| acc | (u64::from(on) << i));
    size | (flags << 8) | ((mover.squeeze.clamp(0, 0xffff) as u64) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::battlefield::{EdgeFeature, Terrain};
    use crate::rules::core::geometry::Edge;

    #[test]
    fn the_table_answers_as_the_rules_do_and_is_dropped_when_the_map_changes() {
        let mut field = Battlefield::open(8, 8);
        field.set_terrain(Square::new(3, 3), Terrain::Wall);
        field.set_difficult(Square::new(4, 4), true);
        field.set_edge(Edge { square: Square::new(2, 4), east: true }, EdgeFeature::LowWall);
        for size in [Size::Medium, Size::Large] {
            let mover = Mover::walker(size);
            let world = StepWorld { field: &field, occupants: &[] };
            let table = GroundTable::of(&field, &mover);
            for (shape, &(w, h)) in mover.shapes().iter().enumerate() {
                for square in field.squares() {
                    let from = Footprint::rect(square, w, h);
                    let Some(steps) = table.steps(&world, &mover, shape, square) else { continue };
                    for (d, direction) in Direction::ALL.into_iter().enumerate() {
                        let known = GroundTable::step(steps, from, d);
                        assert_eq!(known, world.step_ground(&mover, from, direction).ok(), "{from:?} {direction:?}");
                    }
                }
            }
        }
        let before = field.derived().len();
        assert!(before >= 2);
        field.set_terrain(Square::new(5, 5), Terrain::Wall);
        assert!(field.derived().is_empty());
    }
}
