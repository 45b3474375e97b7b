//! Paths: every square a creature can reach with a movement budget and what it costs, the cheapest
//! legal path to a square (shortest first, then fewest hampered squares), and the check of a path
//! given step by step. This is what the move preview draws, so it is written to run within a frame.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use super::cost::{Blocked, Mover, StepWorld, step_cost};
use super::table::{Crowd, GroundTable, step_packed};
use crate::rules::core::geometry::{Diagonals, Direction, Footprint, Square};

/// Limits of one search beyond its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchRules {
    /// No hampered square may be entered (running and charging, 000:94-95; the 5-foot step, 004:261).
    pub no_hampered: bool,
    /// An odd number of plain diagonals was already taken this turn: the next one costs 2 (the
    /// alternation runs along the whole movement of a turn, RULES-INDEX).
    pub odd_diagonal: bool,
    /// Only by a form of movement the mover has a speed for: no swimming without a swim speed (a
    /// withdrawal, 004:245; `StepWorld::swims_without_speed`).
    pub dry: bool,
}

/// One square entered along a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PathStep {
    /// The north-west square of the footprint after the step.
    pub square: Square,
    /// Squares of movement this step cost.
    pub cost: u32,
    /// Squares spent from the start, this step included.
    pub spent: u32,
    /// Whether the step was hampered (difficult terrain, obstacle, darkness, squeezing…).
    pub hampered: bool,
    /// The space taken after the step, `[width, height]`: narrower than the creature's size while it
    /// squeezes.
    pub space: (i32, i32),
    /// Whether the move may end here (not on an ally, a foe's square or an obstacle to cross).
    pub can_stop: bool,
}

impl PathStep {
    /// The footprint after the step.
    pub fn footprint(&self) -> Footprint {
        Footprint::rect(self.square, self.space.0, self.space.1)
    }
}

/// A whole path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Route {
    /// Steps in order, the start excluded.
    pub steps: Vec<PathStep>,
    /// Total cost in squares.
    pub cost: u32,
    /// How many steps were hampered.
    pub hampered: u32,
    /// Whether an odd number of plain diagonals has been taken at the end (for the turn's next move).
    pub odd_diagonal_after: bool,
}

impl Route {
    /// The squares entered, in order.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        self.steps.iter().map(|s| s.square)
    }

    /// The last square, if the route moves at all.
    pub fn end(&self) -> Option<Square> {
        self.steps.last().map(|s| s.square)
    }

    /// The footprint at the end, if the route moves at all.
    pub fn end_footprint(&self) -> Option<Footprint> {
        self.steps.last().map(|s| Footprint::rect(s.square, s.space.0, s.space.1))
    }

    /// The distance its first `taken` steps cover from `from`, in squares as the grid counts them (1.5 m a
    /// square, the diagonals alternating 1 and 2, 000:61), whatever the ground made them cost: how far the
    /// mover went, as a rider feels it (« se déplace de plus de 1,50 mètre », 004:477).
    pub fn distance(&self, from: Square, taken: usize, diagonals: Diagonals) -> u32 {
        let (mut at, mut odd, mut distance) = (from, false, 0);
        for step in self.steps.iter().take(taken) {
            let (dx, dy) = (step.square.x - at.x, step.square.y - at.y);
            if dx != 0 && dy != 0 {
                let (squares, now_odd) = diagonals.next_diagonal(odd);
                distance += squares;
                odd = now_odd;
            } else if dx != 0 || dy != 0 {
                distance += 1;
            }
            at = step.square;
        }
        distance
    }
}

/// The result of a search from one start: for each square, the cheapest way to reach it.
#[derive(Clone, Debug)]
pub struct ReachMap {
    origin: Square,
    width: i32,
    height: i32,
    start: Square,
    budget: u32,
    /// The spaces the mover may take, full first.
    shapes: Vec<(i32, i32)>,
    /// Per (square, shape, alternation): best (cost, danger, hampered), the previous node, whether one may
    /// stop; packed ([`Node::pack`]), all zero while unseen.
    nodes: Vec<Packed>,
}

/// The squares foes threaten, for the search to prefer, among the cheapest paths, the one that leaves
/// threatened squares least often: the path that provokes least (004:64-71).
#[derive(Clone, Debug, Default)]
pub struct Danger {
    width: i32,
    threatened: Vec<bool>,
}

impl Danger {
    /// A map `width` × `height` with `squares` threatened.
    pub fn new(width: i32, height: i32, squares: impl IntoIterator<Item = Square>) -> Self {
        let mut threatened = vec![false; (width.max(0) * height.max(0)) as usize];
        for s in squares {
            if s.x >= 0 && s.y >= 0 && s.x < width && s.y < height {
                threatened[(s.y * width + s.x) as usize] = true;
            }
        }
        Danger { width, threatened }
    }

    /// Whether leaving `footprint` leaves a threatened square.
    pub fn leaving(&self, footprint: Footprint) -> bool {
        footprint.squares().any(|s| {
            s.x >= 0
                && s.y >= 0
                && s.x < self.width
                && self.threatened.get((s.y * self.width + s.x) as usize).copied().unwrap_or(false)
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    cost: u32,
    danger: u32,
    hampered: u32,
    step_cost: u32,
    step_hampered: bool,
    previous: u32,
    can_stop: bool,
}

const UNSEEN: u32 = u32::MAX;

/// A node in four words, all zero when unseen, so that a search's map is allocated zeroed and the
/// search reads little memory: cost + 1; danger and hampered steps (each below 2^16: they never pass
/// the budget); the step's cost, whether it was hampered and whether one may stop; previous node + 1.
type Packed = [u32; 4];

impl Node {
    const EMPTY: Node = Node {
        cost: UNSEEN,
        danger: 0,
        hampered: 0,
        step_cost: 0,
        step_hampered: false,
        previous: UNSEEN,
        can_stop: false,
    };

    fn pack(self) -> Packed {
        [
            self.cost.wrapping_add(1),
            Self::order(self.danger, self.hampered),
            (self.step_cost << 2) | (u32::from(self.step_hampered) << 1) | u32::from(self.can_stop),
            self.previous.wrapping_add(1),
        ]
    }

    fn unpack(packed: Packed) -> Node {
        Node {
            cost: packed[0].wrapping_sub(1),
            danger: packed[1] >> 16,
            hampered: packed[1] & 0xffff,
            step_cost: packed[2] >> 2,
            step_hampered: packed[2] & 2 != 0,
            can_stop: packed[2] & 1 != 0,
            previous: packed[3].wrapping_sub(1),
        }
    }

    /// Danger then hampered steps, in one word that orders as the pair does.
    fn order(danger: u32, hampered: u32) -> u32 {
        (danger.min(0xffff) << 16) | hampered.min(0xffff)
    }

    /// (cost, danger, hampered) in one number that orders as the triple does; unseen is 0.
    fn key(packed: &Packed) -> u64 {
        (u64::from(packed[0]) << 32) | u64::from(packed[1])
    }
}

/// Where one may end a move, and at what cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Destination {
    /// North-west square of the footprint there.
    pub square: Square,
    /// The space taken there, `[width, height]` (narrower while squeezing).
    pub space: (i32, i32),
    /// Squares of movement spent.
    pub cost: u32,
    /// Hampered steps on the cheapest path.
    pub hampered: u32,
}

impl ReachMap {
    fn shape_count(&self) -> usize {
        self.shapes.len()
    }

    #[inline]
    fn index(&self, square: Square, shape: usize, odd: bool) -> Option<usize> {
        let (x, y) = (square.x - self.origin.x, square.y - self.origin.y);
        (x >= 0 && y >= 0 && x < self.width && y < self.height)
            .then(|| (((y * self.width + x) as usize) * self.shape_count() + shape) * 2 + usize::from(odd))
    }

    #[inline]
    fn node_of(&self, index: usize) -> (Square, usize, bool) {
        let odd = index % 2 == 1;
        let rest = index / 2;
        // One space only (most creatures): no division by the number of spaces.
        let (shape, cell) = match self.shape_count() {
            1 => (0, rest as i32),
            n => (rest % n, (rest / n) as i32),
        };
        (Square::new(self.origin.x + cell % self.width, self.origin.y + cell / self.width), shape, odd)
    }

    /// The budget searched with.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// The best stoppable node for a square over every shape and alternation: full space first among
    /// equals, then the cheapest.
    fn best(&self, square: Square) -> Option<(usize, Node)> {
        let first = self.index(square, 0, false)?;
        let mut best: Option<(usize, u64)> = None;
        for (i, packed) in self.nodes[first..first + self.shape_count() * 2].iter().enumerate() {
            // In the order of the nodes: shape by shape, even then odd; the first of equals kept.
            let key = Node::key(packed);
            if packed[0] != 0 && packed[2] & 1 != 0 && best.is_none_or(|(_, b)| key < b) {
                best = Some((first + i, key));
            }
        }
        best.map(|(i, _)| (i, Node::unpack(self.nodes[i])))
    }

    /// Every square where the move may end, with its cost, the start excluded.
    pub fn destinations(&self) -> Vec<Destination> {
        let mut out = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let square = Square::new(self.origin.x + x, self.origin.y + y);
                if let Some((i, n)) = self.best(square) {
                    let (_, shape, _) = self.node_of(i);
                    if square == self.start && shape == 0 {
                        continue;
                    }
                    out.push(Destination { square, space: self.shapes[shape], cost: n.cost, hampered: n.hampered });
                }
            }
        }
        out
    }

    /// The cost to end the move at `square`, if it can be reached and stopped on.
    pub fn cost_to(&self, square: Square) -> Option<u32> {
        self.best(square).map(|(_, n)| n.cost)
    }

    /// The cheapest path to `square` (among the cheapest, the one leaving threatened squares least often
    /// when the search knew the danger, then the fewest hampered squares).
    pub fn route_to(&self, square: Square) -> Option<Route> {
        let (mut index, _) = self.best(square)?;
        let (_, _, odd_diagonal_after) = self.node_of(index);
        let mut steps = Vec::new();
        loop {
            let node = Node::unpack(self.nodes[index]);
            if node.previous == UNSEEN {
                break;
            }
            let (sq, shape, _) = self.node_of(index);
            steps.push(PathStep {
                square: sq,
                cost: node.step_cost,
                spent: node.cost,
                hampered: node.step_hampered,
                space: self.shapes[shape],
                can_stop: node.can_stop,
            });
            index = node.previous as usize;
        }
        steps.reverse();
        let cost = steps.last().map_or(0, |s| s.spent);
        let hampered = steps.iter().filter(|s| s.hampered).count() as u32;
        Some(Route { steps, cost, hampered, odd_diagonal_after })
    }
}

/// Whether the mover's full space fits somewhere around a narrower footprint: then it need not squeeze
/// there. The map alone says so (walls, pits, the map's edge): « un endroit qui n'est pas aussi large que
/// l'espace qu'elle occupe » (000:110-111) is a narrow place, and creatures make none: a foe in the open
/// is walked round, not squeezed past (000:70-71; only a creature squeezing through a narrow place may pass
/// a foe, 000:119-120).
pub(super) fn fits_full_around(world: &StepWorld<'_>, mover: &Mover, narrow: Footprint) -> bool {
    let side = mover.side();
    ((narrow.origin.y + narrow.height - side)..=narrow.origin.y).any(|y| {
        ((narrow.origin.x + narrow.width - side)..=narrow.origin.x)
            .any(|x| world.enter_ground(mover, Footprint::new(Square::new(x, y), side)).is_ok())
    })
}

/// Keeps `candidate` for node `index` if it is better than what is there, and queues it.
fn relax(map: &mut ReachMap, queue: &mut impl Queue, index: usize, candidate: Node) {
    let packed = candidate.pack();
    let old = Node::key(&map.nodes[index]);
    if old == 0 || Node::key(&packed) < old {
        map.nodes[index] = packed;
        queue.push(candidate.cost, candidate.danger, candidate.hampered, index);
    }
}

/// The search's frontier, a bucket queue: one bucket of nodes a cost (costs are small whole numbers of
/// squares), each sorted when its turn comes, and a heap for the nodes a free step adds to the bucket
/// being emptied (drawing in to squeeze). It hands nodes out in the order of (cost, danger, hampered,
/// node), exactly as a binary heap of those keys would, so the paths chosen among equals do not depend
/// on the queue. Kept between searches on a thread, so a search allocates nothing for it.
#[derive(Default)]
struct Frontier {
    buckets: Vec<Vec<u64>>,
    current: usize,
    cursor: usize,
    sorted: bool,
    free_steps: BinaryHeap<Reverse<u64>>,
}

impl Frontier {
    /// Empties it for a search whose costs go up to `budget`.
    fn reset(&mut self, budget: u32) {
        for bucket in &mut self.buckets {
            bucket.clear();
        }
        if self.buckets.len() <= budget as usize {
            self.buckets.resize_with(budget as usize + 1, Vec::new);
        }
        self.current = 0;
        self.cursor = 0;
        self.sorted = false;
        self.free_steps.clear();
    }

    /// Danger and hampered steps never pass the budget (each costs a square), which is below 2^16.
    fn pack(danger: u32, hampered: u32, index: usize) -> u64 {
        (u64::from(danger.min(0xffff)) << 48) | (u64::from(hampered.min(0xffff)) << 32) | index as u64
    }

    fn push(&mut self, cost: u32, danger: u32, hampered: u32, index: usize) {
        let key = Self::pack(danger, hampered, index);
        if cost as usize == self.current && self.sorted {
            self.free_steps.push(Reverse(key));
        } else {
            self.buckets[cost as usize].push(key);
        }
    }

    fn pop(&mut self) -> Option<(u32, u32, u32, usize)> {
        while self.current < self.buckets.len() {
            let bucket = &mut self.buckets[self.current];
            if !self.sorted {
                bucket.sort_unstable();
                self.sorted = true;
            }
            let queued = bucket.get(self.cursor).copied();
            let free = self.free_steps.peek().map(|r| r.0);
            let key = match (queued, free) {
                (Some(q), Some(f)) if f < q => self.free_steps.pop().map(|r| r.0),
                (Some(q), _) => {
                    self.cursor += 1;
                    Some(q)
                }
                (None, Some(_)) => self.free_steps.pop().map(|r| r.0),
                (None, None) => None,
            };
            if let Some(key) = key {
                let danger = (key >> 48) as u32;
                let hampered = ((key >> 32) & 0xffff) as u32;
                return Some((self.current as u32, danger, hampered, (key & 0xffff_ffff) as usize));
            }
            bucket.clear();
            self.current += 1;
            self.cursor = 0;
            self.sorted = false;
        }
        None
    }
}

thread_local! {
    static FRONTIER: std::cell::RefCell<Frontier> = std::cell::RefCell::new(Frontier::default());
}

/// Squares added when a squeezing creature spreads into squares it did not hold: like a step (our
/// ruling, docs/rulings.md), doubled as a step is by squeezing and the ground; drawing in to squeeze, where
/// one must, is free.
pub const SPREAD_COST: u32 = 1;

/// How far a change of space carries the body: the farthest of the squares it takes anew from the squares
/// it held (1-2-1-2 not needed: each is within two of them). A reshape costs a step for each square of it
/// (000:112), so a long body does not slide along a corridor faster by changing its shape.
fn shift(here: Footprint, there: Footprint) -> u32 {
    there
        .squares()
        .filter(|s| !here.contains(*s))
        .map(|s| here.squares().map(|h| (s.x - h.x).unsigned_abs().max((s.y - h.y).unsigned_abs())).min().unwrap_or(0))
        .max()
        .unwrap_or(0)
        .max(1)
}

/// Searches every square `mover` can reach from `start` spending at most `budget` squares, with the
/// diagonal alternation counted along the whole path (RULES-INDEX ruling). Dijkstra over (square, space,
/// alternation), ordered by cost then hampered steps. A creature of several squares may squeeze where
/// its full space does not fit (000:110-123).
pub fn reachable(world: &StepWorld<'_>, mover: &Mover, start: Footprint, budget: u32, rules: SearchRules) -> ReachMap {
    reachable_avoiding(world, mover, start, budget, rules, None)
}

/// [`reachable`], preferring among paths of equal cost those that leave `danger`'s squares least often.
pub fn reachable_avoiding(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    budget: u32,
    rules: SearchRules,
    danger: Option<&Danger>,
) -> ReachMap {
    let (mut map, first) = start_map(world, mover, start, budget, rules);
    let Some(first) = first else { return map };
    let budget = budget.min(4096);
    let table = GroundTable::of(world.field, mover);
    let crowd = Crowd::new(world, start);
    let search = Search { world, mover, start, budget, rules, danger, table: Some(&table), crowd: Some(&crowd) };
    FRONTIER.with_borrow_mut(|queue| {
        queue.reset(budget);
        queue.push(0, 0, 0, first);
        search.run(&mut map, queue);
    });
    map
}

/// The empty map of a search from `start`, and the start's node (none off the window).
fn start_map(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    budget: u32,
    rules: SearchRules,
) -> (ReachMap, Option<usize>) {
    let reach = budget.min(4096) as i32 + mover.side();
    let origin = Square::new((start.origin.x - reach).max(-1), (start.origin.y - reach).max(-1));
    let far = Square::new(
        (start.origin.x + reach).min(world.field.width()),
        (start.origin.y + reach).min(world.field.height()),
    );
    let mut shapes = mover.shapes();
    let start_shape = shapes.iter().position(|&s| s == (start.width, start.height)).unwrap_or_else(|| {
        shapes.push((start.width, start.height));
        shapes.len() - 1
    });
    let mut map = ReachMap {
        origin,
        width: far.x - origin.x + 1,
        height: far.y - origin.y + 1,
        start: start.origin,
        budget,
        shapes,
        nodes: Vec::new(),
    };
    map.nodes = vec![[0; 4]; (map.width * map.height) as usize * map.shape_count() * 2];
    let first = map.index(start.origin, start_shape, rules.odd_diagonal);
    if let Some(first) = first {
        map.nodes[first] = Node { cost: 0, can_stop: true, ..Node::EMPTY }.pack();
    }
    (map, first)
}

/// The same search with a plain binary heap and every step asked of the rules in full: what the fast
/// search must find, node for node (the tests compare them on random maps).
#[cfg(test)]
fn reachable_plain(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    budget: u32,
    rules: SearchRules,
    danger: Option<&Danger>,
) -> ReachMap {
    let (mut map, first) = start_map(world, mover, start, budget, rules);
    let Some(first) = first else { return map };
    let budget = budget.min(4096);
    let search = Search { world, mover, start, budget, rules, danger, table: None, crowd: None };
    let mut queue = BinaryHeap::new();
    Queue::push(&mut queue, 0, 0, 0, first);
    search.run(&mut map, &mut queue);
    map
}

/// The order the search takes nodes in: (cost, danger, hampered, node), smallest first.
trait Queue {
    fn push(&mut self, cost: u32, danger: u32, hampered: u32, index: usize);
    fn pop(&mut self) -> Option<(u32, u32, u32, usize)>;
}

impl Queue for Frontier {
    fn push(&mut self, cost: u32, danger: u32, hampered: u32, index: usize) {
        Frontier::push(self, cost, danger, hampered, index);
    }

    fn pop(&mut self) -> Option<(u32, u32, u32, usize)> {
        Frontier::pop(self)
    }
}

/// The plain queue the frontier must agree with (the tests compare them).
impl Queue for BinaryHeap<Reverse<(u32, u32, u32, usize)>> {
    fn push(&mut self, cost: u32, danger: u32, hampered: u32, index: usize) {
        BinaryHeap::push(self, Reverse((cost, danger, hampered, index)));
    }

    fn pop(&mut self) -> Option<(u32, u32, u32, usize)> {
        BinaryHeap::pop(self).map(|r| r.0)
    }
}

/// One search's fixed inputs. Without a table or a crowd, every step asks the rules in full
/// (`StepWorld::step`): the plain search the tests compare the fast one with.
struct Search<'a, 'w> {
    world: &'a StepWorld<'w>,
    mover: &'a Mover,
    start: Footprint,
    budget: u32,
    rules: SearchRules,
    danger: Option<&'a Danger>,
    table: Option<&'a GroundTable>,
    crowd: Option<&'a Crowd>,
}

impl Search<'_, '_> {
    /// Dijkstra from the nodes in `queue`.
    fn run(&self, map: &mut ReachMap, queue: &mut impl Queue) {
        let Search { world, mover, start, budget, rules, danger, .. } = *self;
        while let Some((cost, risk, hampered, index)) = queue.pop() {
            let popped = (u64::from(cost + 1) << 32) | u64::from(Node::order(risk, hampered));
            if Node::key(&map.nodes[index]) < popped {
                continue;
            }
            let (square, shape, odd) = map.node_of(index);
            let (w, h) = map.shapes[shape];
            let here = Footprint::rect(square, w, h);
            let step_risk = risk + u32::from(danger.is_some_and(|d| d.leaving(here)));
            let mut blocked_nearby = false;
            let known = self.table.and_then(|table| table.steps(world, mover, shape, square));
            for (d, direction) in Direction::ALL.into_iter().enumerate() {
                let Some((origin, packed)) = step_packed(world, mover, (known, self.crowd), here, start, d) else {
                    blocked_nearby = true;
                    continue;
                };
                let (to, entry) = (here.at(origin), super::table::unpack(packed));
                let step_hampered = packed & 0xffff != 0;
                if rules.no_hampered && step_hampered {
                    continue;
                }
                if rules.dry && world.swims_without_speed(mover, to) {
                    continue;
                }
                let (step, next_odd) =
                    step_cost(world.field.diagonals(), direction.is_diagonal(), entry.hampering, odd);
                let total = cost + step;
                if total > budget {
                    continue;
                }
                let Some(next) = map.index(to.origin, shape, next_odd) else { continue };
                let key = (total, hampered + u32::from(step_hampered));
                let can_stop = entry.can_stop && (shape == 0 || !fits_full_around(world, mover, to));
                let candidate = Node {
                    cost: key.0,
                    danger: step_risk,
                    hampered: key.1,
                    step_cost: step,
                    step_hampered,
                    previous: index as u32,
                    can_stop,
                };
                relax(map, queue, next, candidate);
            }
            // Squeezing in or spreading out in place: to another space that holds or is held by this one, or
            // that overlaps it (turning a corner while squeezed). Only where something stopped a full step:
            // in the open a creature never squeezes, and the search stays fast.
            if rules.no_hampered || map.shape_count() == 1 || (shape == 0 && !blocked_nearby) {
                continue;
            }
            for other in 0..map.shape_count() {
                let (ow, oh) = map.shapes[other];
                if other == shape {
                    continue;
                }
                for oy in (square.y - oh + 1)..=(square.y + h - 1) {
                    for ox in (square.x - ow + 1)..=(square.x + w - 1) {
                        let there = Footprint::rect(Square::new(ox, oy), ow, oh);
                        // Into a space that holds this one or that it holds, or that overlaps it: turning a corner
                        // while squeezed, or stepping out of the narrow place whole, a step like any other whose
                        // new squares are not squeezed (000:112 counts double the squares moved squeezed only).
                        let drawing_in = there.squares().all(|s| here.contains(s));
                        if !there.overlaps(here) {
                            continue;
                        }
                        let Ok(entry) = world.enter(mover, there, start) else { continue };
                        // One squeezes only where one must: only into a space the full space does not fit around
                        // (« un endroit qui n'est pas aussi large que l'espace qu'elle occupe », 000:110-111); so
                        // a creature never draws in where it stands whole, to creep on by drawing in and
                        // spreading out.
                        if other != 0 && fits_full_around(world, mover, there) {
                            continue;
                        }
                        // Spreading into new squares costs like a step, doubled for each thing that hampers the
                        // space taken: still squeezed (000:112), its worst ground (000:96-97).
                        let hampers = entry.hampering.doublings > 0 || entry.hampering.edge_extra > 0;
                        let step = if drawing_in {
                            0
                        } else {
                            (SPREAD_COST * shift(here, there) + entry.hampering.edge_extra) << entry.hampering.doublings
                        };
                        let total = cost + step;
                        if total > budget {
                            continue;
                        }
                        let Some(next) = map.index(there.origin, other, odd) else { continue };
                        let step_hampered = !drawing_in && hampers;
                        let candidate = Node {
                            cost: total,
                            danger: risk,
                            hampered: hampered + u32::from(step_hampered),
                            step_cost: step,
                            step_hampered,
                            previous: index as u32,
                            can_stop: entry.can_stop,
                        };
                        relax(map, queue, next, candidate);
                    }
                }
            }
        }
    }
}

/// Where a creature stands when its move ends early, after `steps_taken` steps of `route` from `start`:
/// there if it may stop there, else back on the last square of the route where it could, else where it
/// started ("s'arrêter accidentellement dans un espace illégal", 000:126-129).
pub fn settle(start: Footprint, route: &Route, steps_taken: usize) -> Footprint {
    route.steps[..steps_taken.min(route.steps.len())]
        .iter()
        .rev()
        .find(|s| s.can_stop)
        .map_or(start, |s| Footprint::rect(s.square, s.space.0, s.space.1))
}

/// The nearest of `candidates` to `from` by the table's diagonal count; a tie is broken by a die (000:63-65,
/// RULES-INDEX): a die with as many faces as tied candidates picks one, in the order given.
pub fn nearest(
    from: Footprint,
    candidates: &[Footprint],
    diagonals: Diagonals,
    dice: &mut crate::rules::core::dice::Dice,
) -> Option<usize> {
    let best = candidates.iter().map(|c| from.distance_to(*c, diagonals)).min()?;
    let tied: Vec<usize> =
        (0..candidates.len()).filter(|&i| from.distance_to(candidates[i], diagonals) == best).collect();
    if tied.len() == 1 { Some(tied[0]) } else { Some(tied[dice.roll(tied.len() as u32) as usize - 1]) }
}

/// Why a given path cannot be walked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathRefused {
    /// Index of the offending step in the given path.
    pub step: usize,
    /// The square aimed at.
    pub square: Square,
    /// What forbids it.
    pub blocked: Blocked,
}

/// Walks a path given square by square (each square the north-west corner of the footprint after one
/// step), checking every step and counting its cost. The budget is not checked here: the caller
/// compares the cost with what the action allows.
pub fn walk_path(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    path: &[Square],
    rules: SearchRules,
) -> Result<Route, PathRefused> {
    let mut here = start;
    let mut odd = rules.odd_diagonal;
    let mut route = Route::default();
    let mut last_can_stop = true;
    for (i, &square) in path.iter().enumerate() {
        let refuse = |blocked| PathRefused { step: i, square, blocked };
        let Some(direction) = here.origin.direction_to(square) else {
            let what = format!("not next to {}", here.origin);
            return Err(refuse(Blocked::CannotStop { square, what, rule: "scenario" }));
        };
        let (to, entry) = world.step(mover, here, direction, start).map_err(refuse)?;
        let hampered = entry.hampering.doublings > 0 || entry.hampering.edge_extra > 0;
        if rules.no_hampered && hampered {
            let by = world.hampered_by(mover, to, entry.hampering.edge_extra > 0);
            return Err(refuse(Blocked::Hampered { square, by }));
        }
        if rules.dry && world.swims_without_speed(mover, to) {
            return Err(refuse(Blocked::Swum { square }));
        }
        let (cost, next_odd) = step_cost(world.field.diagonals(), direction.is_diagonal(), entry.hampering, odd);
        odd = next_odd;
        route.cost += cost;
        route.hampered += u32::from(hampered);
        route.steps.push(PathStep {
            square,
            cost,
            spent: route.cost,
            hampered,
            space: (to.width, to.height),
            can_stop: entry.can_stop,
        });
        here = to;
        last_can_stop = entry.can_stop;
    }
    if !last_can_stop {
        let square = here.origin;
        return Err(PathRefused {
            step: path.len().saturating_sub(1),
            square,
            blocked: world.no_stop(mover, here, start),
        });
    }
    route.odd_diagonal_after = odd;
    Ok(route)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::battlefield::{Battlefield, Terrain};
    use crate::rules::core::size::Size;
    use crate::rules::movement::cost::{Medium, Occupant};

    fn open_world(field: &Battlefield) -> StepWorld<'_> {
        StepWorld { field, occupants: &[] }
    }

    /// A random map of 12x12 squares from `seed`: walls, pits, rubble, obstacles, darkness, water, edge
    /// walls and low walls, and creatures of every size, allies and foes, some helpless.
    fn random_world(seed: u64) -> (Battlefield, Vec<Occupant>, Mover, Footprint, u32, SearchRules, Option<Danger>) {
        use crate::rules::core::battlefield::EdgeFeature;
        use crate::rules::core::dice::Dice;
        use crate::rules::core::geometry::Edge;
        let mut dice = Dice::seeded(seed);
        let mut field = Battlefield::open(12, 12);
        let terrains = [Terrain::Wall, Terrain::Pit, Terrain::Difficult, Terrain::Water, Terrain::DeepWater];
        for square in field.squares().collect::<Vec<_>>() {
            match dice.roll(20) {
                1..=2 => field.set_terrain(square, terrains[dice.roll(5) as usize - 1]),
                3 => field.set_obstacle(square, true),
                4 => field.set_difficult(square, true),
                5 => field.set_dark(square, true),
                6 => field.set_edge(Edge { square, east: dice.roll(2) == 1 }, EdgeFeature::Wall),
                7 => field.set_edge(Edge { square, east: dice.roll(2) == 1 }, EdgeFeature::LowWall),
                _ => {}
            }
        }
        let sizes = [Size::Tiny, Size::Small, Size::Medium, Size::Large, Size::Huge];
        let mut mover = Mover::walker(sizes[dice.roll(5) as usize - 1]);
        mover.medium = if dice.roll(4) == 1 { Medium::Fly } else { Medium::Land };
        mover.darkvision = dice.roll(2) == 1;
        mover.swims = dice.roll(3) == 1;
        mover.charging = dice.roll(6) == 1;
        let side = mover.side();
        let start = Footprint::new(Square::new(dice.roll(12) as i32 - 1, dice.roll(12) as i32 - 1), side);
        let occupants = (0..dice.roll(6))
            .map(|_| {
                let size = sizes[dice.roll(5) as usize - 1];
                let at = Square::new(dice.roll(12) as i32 - 1, dice.roll(12) as i32 - 1);
                Occupant {
                    footprint: Footprint::new(at, size.side_squares()),
                    size,
                    ally: dice.roll(2) == 1,
                    helpless: dice.roll(4) == 1,
                    obstructs_when_helpless: dice.roll(2) == 1,
                    fills_space: dice.roll(10) == 1,
                }
            })
            .collect();
        let rules =
            SearchRules { no_hampered: dice.roll(3) == 1, odd_diagonal: dice.roll(2) == 1, dry: dice.roll(3) == 1 };
        let danger = (dice.roll(2) == 1).then(|| {
            let squares: Vec<Square> = field.squares().filter(|_| dice.roll(3) == 1).collect();
            Danger::new(12, 12, squares)
        });
        (field, occupants, mover, start, dice.roll(16), rules, danger)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256),
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// The fast search (its bucket queue, the map's table of steps, the other creatures asked only
        /// where they stand) finds what the plain one finds, node for node: the same costs, the same
        /// paths among equals, the same squares to stop on.
        #[test]
        fn the_fast_search_finds_what_the_plain_one_finds(seed in proptest::prelude::any::<u64>()) {
            let (field, occupants, mover, start, budget, rules, danger) = random_world(seed);
            let world = StepWorld { field: &field, occupants: &occupants };
            let fast = reachable_avoiding(&world, &mover, start, budget, rules, danger.as_ref());
            // Twice: the second time the map's table is filled.
            let again = reachable_avoiding(&world, &mover, start, budget, rules, danger.as_ref());
            let plain = reachable_plain(&world, &mover, start, budget, rules, danger.as_ref());
            proptest::prop_assert_eq!(&fast.nodes, &plain.nodes);
            proptest::prop_assert_eq!(&again.nodes, &plain.nodes);
            proptest::prop_assert_eq!(fast.destinations(), plain.destinations());
        }

        /// A step read from the map's table, the other creatures asked where one may stand, is the step
        /// the rules judge in full, from every square, in every space, in every direction (the run's lines
        /// and the search both take their steps so).
        #[test]
        fn a_quick_step_is_the_full_step(seed in proptest::prelude::any::<u64>()) {
            use crate::rules::movement::table::{Crowd, GroundTable, quick_step};
            let (field, occupants, mover, start, ..) = random_world(seed);
            let world = StepWorld { field: &field, occupants: &occupants };
            let (table, crowd) = (GroundTable::of(&field, &mover), Crowd::new(&world, start));
            for (shape, &(w, h)) in mover.shapes().iter().enumerate() {
                for square in field.squares() {
                    let here = Footprint::rect(square, w, h);
                    for (d, direction) in Direction::ALL.into_iter().enumerate() {
                        let quick = quick_step(&world, &mover, (&table, &crowd), here, Some(shape), start, d);
                        proptest::prop_assert_eq!(quick, world.step(&mover, here, direction, start).ok());
                    }
                }
            }
        }
    }

    #[test]
    fn a_move_of_six_squares_on_open_ground() {
        let field = Battlefield::open(20, 20);
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(10, 10), 1);
        let map = reachable(&open_world(&field), &man, start, 6, SearchRules::default());
        assert_eq!(map.cost_to(Square::new(16, 10)), Some(6));
        assert_eq!(map.cost_to(Square::new(17, 10)), None);
        assert_eq!(map.cost_to(Square::new(14, 14)), Some(6), "four diagonals: 1+2+1+2");
        assert_eq!(map.cost_to(Square::new(15, 15)), None, "five diagonals cost 7");
        assert_eq!(map.cost_to(Square::new(15, 12)), Some(6), "two diagonals and three straight: 1+2+3");
        // A 13x13 diamond-ish area: count it against the 1-2-1-2 metric directly.
        let expected = (-6..=6)
            .flat_map(|dy| (-6..=6).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy)| (dx, dy) != (0, 0) && Diagonals::Alternating.squares(dx, dy) <= 6)
            .count();
        assert_eq!(map.destinations().len(), expected);
    }

    #[test]
    fn among_the_cheapest_routes_the_one_that_leaves_threatened_squares_least() {
        // From (0,0) to (3,1): one diagonal and two straight steps, 3 squares whichever comes first. A foe
        // threatens (1,0) and (2,0): the route along row 1 leaves none of them.
        let field = Battlefield::open(6, 4);
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(0, 0), 1);
        let danger = Danger::new(6, 4, [Square::new(1, 0), Square::new(2, 0)]);
        let world = open_world(&field);
        let safe = reachable_avoiding(&world, &man, start, 6, SearchRules::default(), Some(&danger));
        let route = safe.route_to(Square::new(3, 1)).unwrap();
        assert_eq!(route.cost, 3);
        let squares: Vec<Square> = route.squares().collect();
        assert_eq!(squares, [Square::new(1, 1), Square::new(2, 1), Square::new(3, 1)]);
        assert!(squares.iter().all(|s| !danger.leaving(Footprint::new(*s, 1))));
        // The danger never makes a route dearer: to (3,0) the only 3-square route goes through it.
        let through = safe.route_to(Square::new(3, 0)).unwrap();
        assert_eq!(through.cost, 3);
        assert!(through.squares().any(|s| danger.leaving(Footprint::new(s, 1))));
    }

    #[test]
    fn the_route_prefers_fewer_hampered_squares_among_the_cheapest() {
        let mut field = Battlefield::open(5, 3);
        field.set_terrain(Square::new(2, 1), Terrain::Difficult);
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(0, 1), 1);
        let map = reachable(&open_world(&field), &man, start, 10, SearchRules::default());
        let route = map.route_to(Square::new(4, 1)).unwrap();
        assert_eq!(route.cost, 5, "through the rubble: 1 + 2 + 1 + 1; around it: 1 + 1 + 2 + 1");
        assert_eq!(route.hampered, 0, "of the two cheapest, the one that avoids the rubble");
    }

    #[test]
    fn the_ogre_goes_around_the_corner_002_48() {
        // A corridor turning a corner: the Large ogre cannot cut it and pays 4 squares (6 m).
        //   ####....
        //   ####....
        //   ........
        //   ........
        let mut field = Battlefield::open(8, 4);
        for y in 0..2 {
            for x in 0..4 {
                field.set_terrain(Square::new(x, y), Terrain::Wall);
            }
        }
        let ogre = Mover::walker(Size::Large);
        let start = Footprint::new(Square::new(2, 2), 2);
        let map = reachable(&open_world(&field), &ogre, start, 8, SearchRules::default());
        // From below the wall's corner to the room north-east of it.
        let route = map.route_to(Square::new(4, 0)).unwrap();
        assert_eq!(route.cost, 4, "around the corner: east, east, then north twice, not a cut diagonal");
        assert!(route.steps.iter().all(|s| !field.terrain(s.square).blocks()));
    }

    fn corridor_north_of_a_room() -> Battlefield {
        // #######
        // ###.###
        // ###.###
        // #.....#
        // #.....#
        // #.....#
        // #######
        let mut field = Battlefield::open(7, 7);
        for square in field.clone().squares() {
            let room = (1..=5).contains(&square.x) && (3..=5).contains(&square.y);
            let corridor = square.x == 3 && (1..=2).contains(&square.y);
            if !room && !corridor {
                field.set_terrain(square, Terrain::Wall);
            }
        }
        field
    }

    #[test]
    fn a_large_creature_squeezes_into_a_corridor_000_115() {
        let field = corridor_north_of_a_room();
        let ogre = Mover::walker(Size::Large);
        let start = Footprint::new(Square::new(2, 3), 2);
        let map = reachable(&open_world(&field), &ogre, start, 8, SearchRules::default());
        let up = map.destinations().into_iter().find(|d| d.square == Square::new(3, 1)).expect("the corridor's end");
        assert_eq!(up.space, (1, 2), "two squares of the corridor, one wide");
        assert_eq!(up.cost, 4, "shift into the corridor's mouth, then a squeezed step, each at double cost");
        let route = map.route_to(Square::new(3, 1)).unwrap();
        assert!(route.steps.iter().filter(|s| s.cost > 0).all(|s| s.cost == 2 && s.hampered));
        // In the open room it never squeezes and never moves for free.
        assert_eq!(map.cost_to(Square::new(3, 3)), Some(1));
        assert!(map.destinations().iter().filter(|d| d.square.y >= 3).all(|d| d.space == (2, 2)));
        // A Medium creature goes up the corridor at the plain cost.
        let man = Mover::walker(Size::Medium);
        let map = reachable(&open_world(&field), &man, Footprint::new(Square::new(3, 3), 1), 8, SearchRules::default());
        assert_eq!(map.cost_to(Square::new(3, 1)), Some(2));
    }

    #[test]
    fn a_squeezing_creature_squeezes_past_a_foe_000_119() {
        // A corridor of four squares at x = 3 north of a room; a goblin stands in it at (3,2).
        let mut field = Battlefield::open(7, 8);
        for square in field.clone().squares() {
            let room = (1..=5).contains(&square.x) && (4..=6).contains(&square.y);
            let corridor = square.x == 3 && square.y <= 3;
            if !(room || corridor) {
                field.set_terrain(square, Terrain::Wall);
            }
        }
        let goblin = [crate::rules::movement::cost::Occupant {
            footprint: Footprint::new(Square::new(3, 2), 1),
            size: Size::Small,
            ally: false,
            helpless: false,
            obstructs_when_helpless: false,
            fills_space: false,
        }];
        let world = StepWorld { field: &field, occupants: &goblin };
        let ogre = Mover::walker(Size::Large);
        let map = reachable(&world, &ogre, Footprint::new(Square::new(2, 4), 2), 8, SearchRules::default());
        let ends = map.destinations();
        let far_end = ends.iter().find(|d| d.square == Square::new(3, 0)).expect("past the goblin");
        assert_eq!((far_end.space, far_end.cost), ((1, 2), 8), "four squeezed steps, two of them through the goblin");
        assert!(
            ends.iter().all(|d| !Footprint::rect(d.square, d.space.0, d.space.1).contains(Square::new(3, 2))),
            "never ending on the goblin"
        );
        // A Medium creature does not squeeze on the grid: the goblin blocks it.
        let man = Mover::walker(Size::Medium);
        let map = reachable(&world, &man, Footprint::new(Square::new(3, 4), 1), 8, SearchRules::default());
        assert_eq!(map.cost_to(Square::new(3, 1)), None);
    }

    #[test]
    fn a_running_creature_does_not_squeeze() {
        let field = corridor_north_of_a_room();
        let ogre = Mover::walker(Size::Large);
        let start = Footprint::new(Square::new(2, 3), 2);
        let map = reachable(
            &open_world(&field),
            &ogre,
            start,
            16,
            SearchRules { no_hampered: true, odd_diagonal: false, dry: false },
        );
        assert_eq!(map.cost_to(Square::new(3, 1)), None);
    }

    #[test]
    fn an_interrupted_move_settles_on_the_last_legal_square_000_126() {
        let field = Battlefield::open(6, 1);
        let ally = [crate::rules::movement::cost::Occupant {
            footprint: Footprint::new(Square::new(2, 0), 1),
            size: Size::Medium,
            ally: true,
            helpless: false,
            obstructs_when_helpless: false,
            fills_space: false,
        }];
        let world = StepWorld { field: &field, occupants: &ally };
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(0, 0), 1);
        let path = [Square::new(1, 0), Square::new(2, 0), Square::new(3, 0)];
        let route = walk_path(&world, &man, start, &path, SearchRules::default()).unwrap();
        assert_eq!(settle(start, &route, 2).origin, Square::new(1, 0), "stopped on the ally: back one square");
        assert_eq!(settle(start, &route, 3).origin, Square::new(3, 0));
        assert_eq!(settle(start, &route, 0).origin, Square::new(0, 0));
    }

    #[test]
    fn the_nearest_square_with_ties_broken_by_a_die_000_63() {
        let from = Footprint::new(Square::new(0, 0), 1);
        let far = Footprint::new(Square::new(5, 0), 1);
        let a = Footprint::new(Square::new(2, 0), 1);
        let b = Footprint::new(Square::new(0, 2), 1);
        let mut dice = crate::rules::core::dice::Dice::with_forced(1, [2, 1]);
        assert_eq!(nearest(from, &[far, a], Diagonals::Alternating, &mut dice), Some(1));
        assert_eq!(dice.forced_left(), 2, "no die without a tie");
        assert_eq!(
            nearest(from, &[a, far, b], Diagonals::Alternating, &mut dice),
            Some(2),
            "the die said 2: the second of the tied"
        );
        assert_eq!(nearest(from, &[a, far, b], Diagonals::Alternating, &mut dice), Some(0));
        assert_eq!(nearest(from, &[], Diagonals::Alternating, &mut dice), None);
    }

    #[test]
    fn the_alternation_carries_over_to_the_second_move_action() {
        let field = Battlefield::open(6, 6);
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(0, 0), 1);
        let first = walk_path(&open_world(&field), &man, start, &[Square::new(1, 1)], SearchRules::default()).unwrap();
        assert!(first.odd_diagonal_after);
        let rules = SearchRules { odd_diagonal: first.odd_diagonal_after, ..SearchRules::default() };
        let second =
            walk_path(&open_world(&field), &man, Footprint::new(Square::new(1, 1), 1), &[Square::new(2, 2)], rules)
                .unwrap();
        assert_eq!(second.cost, 2, "the second diagonal of the turn");
        let map = reachable(&open_world(&field), &man, Footprint::new(Square::new(1, 1), 1), 6, rules);
        assert_eq!(map.cost_to(Square::new(2, 2)), Some(2));
        assert!(!map.route_to(Square::new(2, 2)).unwrap().odd_diagonal_after);
    }

    #[test]
    fn squeeze_widths() {
        use crate::rules::movement::cost::squeeze_width;
        assert_eq!(squeeze_width(Size::Medium, false), 0);
        assert_eq!(squeeze_width(Size::Large, false), 1);
        assert_eq!(squeeze_width(Size::Large, true), 1);
        assert_eq!(squeeze_width(Size::Huge, false), 2, "half of 4.5 m is 2.25 m: two squares");
        assert_eq!(squeeze_width(Size::Huge, true), 1, "narrower than half only with Escape Artist");
        assert_eq!(squeeze_width(Size::Colossal, false), 3);
    }

    #[test]
    fn walking_a_given_path_counts_each_step() {
        let mut field = Battlefield::open(10, 10);
        field.set_terrain(Square::new(3, 3), Terrain::Difficult);
        field.set_terrain(Square::new(4, 4), Terrain::Difficult);
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(0, 0), 1);
        // The fighter of 002:46: straight, diagonal, diagonal, difficult straight, difficult diagonal.
        let path = [Square::new(1, 0), Square::new(2, 1), Square::new(3, 2), Square::new(3, 3), Square::new(4, 4)];
        let route = walk_path(&open_world(&field), &man, start, &path, SearchRules::default()).unwrap();
        let costs: Vec<u32> = route.steps.iter().map(|s| s.cost).collect();
        assert_eq!(costs, vec![1, 1, 2, 2, 3], "1.5 + 1.5 + 3 + 3 m, then 4.5 m");
        assert_eq!(route.steps[3].spent, 6, "9 m: the first move action");
        assert_eq!(route.cost, 9);
        let refused = walk_path(&open_world(&field), &man, start, &[Square::new(2, 0)], SearchRules::default());
        assert!(refused.is_err(), "not a single step");
        let running = walk_path(
            &open_world(&field),
            &man,
            Footprint::new(Square::new(3, 2), 1),
            &[Square::new(4, 3), Square::new(4, 4)],
            SearchRules { no_hampered: true, odd_diagonal: false, dry: false },
        );
        assert!(running.is_err());
    }
}
