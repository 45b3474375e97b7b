//! The flight planner: every square a flier can end this turn's flight on, with the best flight to each,
//! for the game's preview and the AI. A search over the flier's position, heading, altitude, manoeuvres
//! used and squares flown since its last turn, each candidate flight then flown by [`super::route::fly`]
//! so that what the planner offers is what the rules allow.

use std::collections::HashMap;

use super::route::{
    Flier, Flight, FlightStep, Obstacle, Side, ahead_halves, band_change, chance, fly, step_halves, whole,
};
use super::{Maneuvers, maneuvers};
use crate::rules::core::altitude::Scale;
use crate::rules::core::creature::Maneuverability;
use crate::rules::core::geometry::{Direction, Footprint, Square};
use crate::rules::core::names::SpeedStatus;

/// The planner's hash: Bevy's fixed foldhash, fast and the same on every run.
type Fast = bevy::platform::hash::FixedHasher;

/// Where the planner's search is: square, heading, squares since the last turn (up to the factor), manoeuvres
/// used, altitude (which only a wingover changes after the prefix), whether a fly check was needed on the
/// way, whether only a slow flight allows what it did, and the diagonals' 1-2-1-2 count, so that its costs
/// are the flight's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Node {
    y: i32,
    x: i32,
    heading: u8,
    since: u32,
    used: u32,
    altitude: i32,
    checked: bool,
    slow_only: bool,
    /// An odd number of diagonals flown so far: the next costs 2 (000:61).
    odd: bool,
}

impl Node {
    fn square(self) -> Square {
        Square::new(self.x, self.y)
    }

    fn direction(self) -> Direction {
        Direction::ALL[usize::from(self.heading)]
    }
}

/// A flight the planner found, with how it flies.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFlight {
    /// The steps to fly.
    pub steps: Vec<FlightStep>,
    /// The flight they make, every check a success.
    pub flight: Flight,
    /// The chance that every fly check succeeds, 1 when there is none.
    pub chance: f32,
}

/// A node reached: its cost, and the node (its index) and step it was reached from.
type Reached = (u32, Node, Option<(usize, FlightStep)>);

/// What the search knows of the flier and the flight asked for.
struct Planner<'a> {
    flier: &'a Flier,
    declared: Option<SpeedStatus>,
    hover: bool,
    /// It turns as it likes: perfect manoeuvrability, or a hover.
    perfect: bool,
    scale: Scale,
    /// The altitude bands the prefix changes, at chase scale.
    band_change: i32,
    /// The most a flight may cost, in half-squares.
    max_cost: u32,
    /// The most a flight bound to be slow may cost.
    slow_most: u32,
    /// Manoeuvres a round and factor of the looser band planned for (slow's), and of the stricter (fast's).
    loose: (u32, u32),
    strict: (u32, u32),
    /// The most a fly check can total, on a 20 at the best status allowed.
    most: i32,
}

/// Every square a flier can end this turn's flight on, after `prefix` (its climbs and dives flown first,
/// or the part of the flight before a flyby attack), flying ahead, turning 45° and slipping aside as its
/// status and manoeuvrability allow, with the best flight to each: slow rather than fast, fast rather than
/// a stall, at the height chosen rather than lower, then the cheapest. Simple manoeuvres, and the hard and
/// tight turns and wingovers planned as made (the flight lists their fly checks; a wingover ends it 6 m
/// lower), never one with a check it cannot make; each flight checked by [`fly`]. `declared` is the speed
/// the flier declared at the start of its turn (004:686): only flights of that status, up to four times its
/// speed at top speed, a quarter (9 m at most) in a hover, which may also stay where it is (004:708-709);
/// `None` offers the slow and fast flights and the stalls.
pub fn flights(
    flier: &Flier,
    prefix: &[FlightStep],
    declared: Option<SpeedStatus>,
    obstacle: &impl Fn(Footprint, Footprint, i32) -> Option<Obstacle>,
) -> HashMap<Square, PlannedFlight> {
    let Some(planner) = Planner::new(flier, prefix, declared) else { return HashMap::new() };
    // A flier free to choose its heading anew (004:763, 004:671) starts on each: on its own, then on the
    // seven others, each chosen by a first step.
    let mut ways = vec![prefix.to_vec()];
    if flier.heading_free && !matches!(prefix.first(), Some(FlightStep::Face(_))) {
        let others = Direction::ALL.into_iter().filter(|d| *d != flier.heading);
        ways.extend(others.map(|d| std::iter::once(FlightStep::Face(d)).chain(prefix.iter().copied()).collect()));
    }
    let starts: Vec<(Vec<FlightStep>, (Node, u32))> =
        ways.into_iter().filter_map(|way| planner.after_prefix(&way, obstacle).map(|start| (way, start))).collect();
    let Some(altitude) = starts.first().map(|(_, (first, _))| first.altitude) else { return HashMap::new() };
    let roots: Vec<(Node, u32)> = starts.iter().map(|(_, start)| *start).collect();
    // The search's tables, kept by the thread from one plan to the next (a plan nested in another, none
    // yet, would make its own).
    let mut scratch = SCRATCH.with_borrow_mut(Option::take).unwrap_or_default();
    let ends = planner.search(&roots, obstacle, &mut scratch);
    let prefixes: Vec<&[FlightStep]> = starts.iter().map(|(way, _)| way.as_slice()).collect();
    let planned = planner.choose(&prefixes, &scratch.reached, ends, altitude, obstacle);
    SCRATCH.with_borrow_mut(|kept| *kept = Some(scratch));
    planned
}

/// The search's tables, emptied by each search and grown as it needs: the nodes reached, whether each is
/// still worth going on from, the one reached before it at its place, the last reached at each place,
/// what stands in the way of each step, and the queue.
#[derive(Default)]
struct Scratch {
    reached: Vec<Reached>,
    alive: Vec<bool>,
    earlier: Vec<Option<usize>>,
    frontier: HashMap<u64, usize, Fast>,
    open_at: HashMap<u64, bool, Fast>,
    queue: Buckets,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

impl<'a> Planner<'a> {
    /// The planner for `flier` flying at `declared`, after a prefix whose bands are legal.
    fn new(flier: &'a Flier, prefix: &[FlightStep], declared: Option<SpeedStatus>) -> Option<Self> {
        let hover = declared == Some(SpeedStatus::Hover);
        let perfect = flier.maneuverability == Maneuverability::Perfect || hover;
        let scale = flier.scale;
        let band_change = band_change(scale, prefix).ok()?;
        let speed = scale.squares(flier.speed_m);
        // Costs in half-squares (a chase-scale dive makes a square cost half, 004:749).
        let max_cost = match declared {
            Some(SpeedStatus::TopSpeed) => 8 * speed,
            Some(SpeedStatus::Hover) => 2 * scale.squares((flier.speed_m / 4.0).min(9.0)),
            _ => 4 * speed,
        };
        // The bands planned for: the declared one, or slow and fast. Slow's limits are the looser
        // (004:727-732): a step only slow allows makes the flight slow or nothing.
        let band = |status| match maneuvers(flier.row(status), flier.maneuverability, scale) {
            _ if perfect => (u32::MAX, 0),
            Maneuvers::Unlimited => (u32::MAX, 0),
            Maneuvers::None => (0, 0),
            Maneuvers::Limited { per_round, factor } => (per_round, scale.factor_squares(factor)),
        };
        let (loose, strict) = match declared {
            Some(status) => (band(status), band(status)),
            None => (band(SpeedStatus::Slow), band(SpeedStatus::Fast)),
        };
        // An advanced manoeuvre it could not make even on a 20, at the best status it may fly at, is no way
        // anywhere (004:734-743).
        let best_status = declared.unwrap_or(SpeedStatus::Slow);
        let most = 20 + flier.check_bonus + super::fly_check_modifier(flier.maneuverability, flier.row(best_status));
        Some(Planner {
            flier,
            declared,
            hover,
            perfect,
            scale,
            band_change,
            max_cost,
            slow_most: 2 * speed,
            loose,
            strict,
            most,
        })
    }

    /// The search's first node, after the prefix (its climbs and dives, or the part of a flight before a
    /// flyby attack) flown as [`fly`] flies it, every manoeuvre made, and what it cost; `None` when the
    /// prefix runs into something.
    fn after_prefix(
        &self,
        prefix: &[FlightStep],
        obstacle: &impl Fn(Footprint, Footprint, i32) -> Option<Obstacle>,
    ) -> Option<(Node, u32)> {
        let (flier, scale, perfect) = (self.flier, self.scale, self.perfect);
        let mut at = flier.at;
        let mut altitude = flier.altitude;
        let mut heading = flier.heading;
        let (mut spent, mut used, mut since) = (0, 0, flier.since_maneuver);
        let mut odd = false;
        for step in prefix {
            spent += step_halves(*step, heading, perfect, (flier.diagonals, &mut odd), scale, self.band_change);
            if !perfect && flier.counts(*step) {
                used += if step.advanced().is_some() { super::ADVANCED_MANEUVER_COST } else { 1 };
            }
            heading = step.heading_after(heading, true);
            altitude += step.rise(scale);
            for next in step.entered(scale, at, heading) {
                if altitude < 0 || obstacle(at, next, altitude).is_some() {
                    return None;
                }
                at = next;
                since += 1;
            }
            if step.resets_count() {
                since = 0;
            }
        }
        let first = Node {
            y: at.origin.y,
            x: at.origin.x,
            heading: heading.index() as u8,
            since: since.min(self.loose.1.max(self.strict.1)),
            used,
            altitude,
            checked: false,
            slow_only: used > self.strict.0,
            odd,
        };
        Some((first, spent))
    }

    /// The cheapest way to every node, from the `roots` (each node with what reaching it cost): the nodes
    /// reached (each with the one it came from; the roots first, from none), and those a flight may end on
    /// (after a step ahead or aside).
    fn search(
        &self,
        roots: &[(Node, u32)],
        obstacle: &impl Fn(Footprint, Footprint, i32) -> Option<Obstacle>,
        scratch: &mut Scratch,
    ) -> Vec<usize> {
        let Scratch { reached, alive, earlier, frontier, open_at, queue } = scratch;
        reached.clear();
        reached.extend(roots.iter().map(|&(node, spent)| (spent, node, None)));
        // Whether a node is still worth going on from: not since beaten by another.
        alive.clear();
        alive.resize(roots.len(), true);
        // The nodes to go on from, cheapest first, and of equal cost the first reached.
        queue.clear();
        for (i, &(_, spent)) in roots.iter().enumerate() {
            queue.push(spent, i);
        }
        let mut ends: Vec<usize> = Vec::new();
        // What stands in the way of each step at each height, asked once a step.
        open_at.clear();
        let (width, height) = (self.flier.at.width, self.flier.at.height);
        let mut clear = |from: Square, square: Square, altitude: i32| {
            *open_at.entry(step_key(from, square, altitude)).or_insert_with(|| {
                obstacle(Footprint::rect(from, width, height), Footprint::rect(square, width, height), altitude)
                    .is_none()
            })
        };
        // For each square, heading and altitude, the nodes reached so far: a node no cheaper, with no fewer
        // manoeuvres used, no more squares flown since a turn, and no freer (no check yet, not bound to be
        // slow) than one already found can do nothing better than that one. Each list is chained through
        // `earlier` (the node reached before it there); a node beaten since is skipped, whatever beat it
        // being on the list and beating what it beat.
        frontier.clear();
        earlier.clear();
        earlier.resize(roots.len(), None);
        let dominates = |(c, n): (u32, Node), (total, to): (u32, Node)| {
            c <= total
                && n.used <= to.used
                && n.since >= to.since
                && n.checked <= to.checked
                && n.slow_only <= to.slow_only
                && n.odd <= to.odd
        };
        let makeable = |step: FlightStep| step.advanced().is_none_or(|m| m.dc().is_ok_and(|dc| dc <= self.most));
        let mut next: Vec<(FlightStep, Node, u32)> = Vec::new();
        while let Some((cost, index)) = queue.pop() {
            if !alive[index] {
                continue;
            }
            next.clear();
            self.successors(reached[index].1, &mut clear, &mut next);
            for &(step, to, step_cost) in &next {
                let total = cost + step_cost;
                if total > self.max_cost || (to.slow_only && total > self.slow_most) || !makeable(step) {
                    continue;
                }
                let key = place_key(to);
                let first = frontier.get(&key).copied();
                let known = || std::iter::successors(first, |&k| earlier[k]).filter(|&k| alive[k]);
                if known().any(|k| dominates((reached[k].0, reached[k].1), (total, to))) {
                    continue;
                }
                let beaten: Vec<usize> =
                    known().filter(|&k| dominates((total, to), (reached[k].0, reached[k].1))).collect();
                for k in beaten {
                    alive[k] = false;
                }
                let new = reached.len();
                frontier.insert(key, new);
                earlier.push(first);
                reached.push((total, to, Some((index, step))));
                alive.push(true);
                if matches!(step, FlightStep::Forward | FlightStep::Sideslip(_)) {
                    ends.push(new);
                }
                queue.push(total, new);
            }
        }
        ends
    }

    /// The steps a flier at `node` may take next, each with the node it leads to and its cost in
    /// half-squares: ahead, a 45° turn, and for a flier that cannot turn as it likes the sideslips, the
    /// hard and tight turns and the wingovers.
    fn successors(
        &self,
        node: Node,
        clear: &mut impl FnMut(Square, Square, i32) -> bool,
        next: &mut Vec<(FlightStep, Node, u32)>,
    ) {
        let (square, heading) = (node.square(), node.direction());
        let (loose, strict) = (self.loose, self.strict);
        // A manoeuvre using `uses` of the round's, after flying the factor less `short` squares (`None` when
        // it needs no factor): the node after it if the band planned for allows it, bound to be slow if only
        // slow allows it.
        let after = |short: Option<u32>, uses: u32| -> Option<Node> {
            let used = node.used + uses;
            let flown = |factor: u32| short.is_none_or(|short| node.since + short >= factor);
            if !flown(loose.1) || used > loose.0 {
                return None;
            }
            let slow_only = node.slow_only || !flown(strict.1) || used > strict.0;
            Some(Node { since: 0, used, slow_only, ..node })
        };
        // Ahead, a diagonal counted 1, 2, 1, 2 (000:61), or 1 under the house rule.
        let ahead = square.step(heading);
        if clear(square, ahead, node.altitude) {
            let (squares, odd) =
                if heading.is_diagonal() { self.flier.diagonals.next_diagonal(node.odd) } else { (1, node.odd) };
            let step_cost = ahead_halves(squares, self.scale, self.band_change);
            let since_cap = loose.1.max(strict.1);
            let to = Node { y: ahead.y, x: ahead.x, since: (node.since + 1).min(since_cap), odd, ..node };
            next.push((FlightStep::Forward, to, step_cost));
        }
        let turn_uses = u32::from(!self.perfect);
        for side in [Side::Left, Side::Right] {
            let turned = heading.turned(side.eighths(1)).index() as u8;
            if let Some(to) = after(Some(0), turn_uses) {
                next.push((FlightStep::Turn(side), Node { heading: turned, ..to }, if self.perfect { 0 } else { 2 }));
            }
        }
        if self.perfect {
            return;
        }
        // A sideslip, one square ahead and one aside for 3, heading kept (004:746): of use only to a flier
        // that cannot turn as it likes.
        for side in [Side::Left, Side::Right] {
            let (dx, dy) = heading.delta();
            let (sx, sy) = heading.turned(side.eighths(2)).delta();
            let to = square.offset(dx + sx, dy + sy);
            if let Some(node) = after(Some(0), 1)
                && clear(square, to, node.altitude)
            {
                next.push((FlightStep::Sideslip(side), Node { y: to.y, x: to.x, ..node }, 6));
            }
        }
        // The advanced turns, two manoeuvres each, planned as made (the flight lists their fly checks): a hard
        // turn of 90° after the factor (004:770); a tight turn of 45° before it, its step the squares still
        // short of the factor of either band (004:765); a wingover of 90°, 135° or 180° at any time, 6 m (a
        // band) lower (004:774-780).
        let uses = super::ADVANCED_MANEUVER_COST;
        for side in [Side::Left, Side::Right] {
            if let Some(to) = after(Some(0), uses) {
                let turned = heading.turned(side.eighths(2)).index() as u8;
                next.push((FlightStep::HardTurn(side), Node { heading: turned, checked: true, ..to }, 4));
            }
            let mut shorts = [loose.1.saturating_sub(node.since), strict.1.saturating_sub(node.since)];
            shorts.sort_unstable();
            for short in shorts.into_iter().filter(|s| (1..=3).contains(s)) {
                if let Some(to) = after(Some(short), uses) {
                    let step = FlightStep::TightTurn { side, step: short as u8 };
                    let turned = heading.turned(side.eighths(1)).index() as u8;
                    next.push((step, Node { heading: turned, checked: true, ..to }, 2 * (1 + short)));
                }
            }
        }
        let lower = node.altitude - self.scale.wingover_drop();
        let room_below = lower >= 1 && clear(square, square, lower);
        let wingovers =
            [(Side::Left, 90), (Side::Right, 90), (Side::Left, 135), (Side::Right, 135), (Side::Right, 180)];
        for (side, degrees) in wingovers {
            if room_below && let Some(to) = after(None, uses) {
                let turned = heading.turned(side.eighths(i32::from(degrees / 45))).index() as u8;
                let step = FlightStep::Wingover { side, degrees };
                next.push((step, Node { heading: turned, altitude: lower, checked: true, ..to }, 4));
            }
        }
    }

    /// The flight to each square a search's ends reach: its candidates in order of preference, the status
    /// read from the cost alone (without a fly check rather than with, the cheapest, at the height chosen
    /// rather than wingovers lower); the first the rules accept is its flight, or of the same status the one
    /// likelier to make all its checks.
    fn choose(
        &self,
        prefixes: &[&[FlightStep]],
        reached: &[Reached],
        mut ends: Vec<usize>,
        start_altitude: i32,
        obstacle: &impl Fn(Footprint, Footprint, i32) -> Option<Obstacle>,
    ) -> HashMap<Square, PlannedFlight> {
        let (flier, declared, hover) = (self.flier, self.declared, self.hover);
        let path_to = |end: usize| -> Vec<FlightStep> {
            let mut steps = Vec::new();
            let mut at = end;
            while let (_, _, Some((before, step))) = reached[at] {
                steps.push(step);
                at = before;
            }
            steps.reverse();
            let mut all = prefixes[at].to_vec();
            all.extend(steps);
            all
        };
        let rank = |status: SpeedStatus| -> u8 {
            match status {
                SpeedStatus::Slow | SpeedStatus::Hover => 0,
                SpeedStatus::Fast => 1,
                _ => 2,
            }
        };
        let status_of = |cost: u32| {
            let status = self.scale.status(whole(cost), flier.speed_m, flier.maneuverability, hover, flier.hover_feat);
            match (declared, status) {
                (Some(declared), Ok(status)) => u8::from(status != declared),
                (Some(_), Err(_)) => 1,
                (None, status) => status.map_or(2, rank),
            }
        };
        // The key is dear (a speed status each): computed once an end.
        ends.sort_by_cached_key(|&i| {
            let (cost, n, _) = reached[i];
            (n.y, n.x, status_of(cost), n.checked, cost, start_altitude - n.altitude, n)
        });
        let mut out: HashMap<Square, PlannedFlight> = HashMap::new();
        let mut tried: HashMap<Square, u32> = HashMap::new();
        // The same squares are asked of again and again by the candidate flights: remember the answers.
        let seen: std::cell::RefCell<Seen> = Default::default();
        let cached = |from: Footprint, at: Footprint, alt: i32| -> Option<Obstacle> {
            if let Some(known) = seen.borrow().get(&(from, at, alt)) {
                return known.clone();
            }
            let found = obstacle(from, at, alt);
            seen.borrow_mut().insert((from, at, alt), found.clone());
            found
        };
        // A hover may stay where it is (004:708).
        if hover {
            ends.insert(0, 0);
        }
        for end in ends {
            let end_square = reached[end].1.square();
            // A flight with no fly check to make is kept; one with checks gives way to a later one without.
            if out.get(&end_square).is_some_and(|p| p.flight.checks.is_empty()) {
                continue;
            }
            // A square whose first few candidates all fail is left out: the planner offers what it is sure of.
            let attempts = tried.entry(end_square).or_insert(0);
            if *attempts >= 4 {
                continue;
            }
            *attempts += 1;
            let steps = path_to(end);
            let Ok(flight) = fly(flier, &steps, hover, |_, _| true, cached) else { continue };
            // Only a flight that ends where it is listed.
            if flight.waypoints.last().map_or(end != 0, |w| w.square != end_square) {
                continue;
            }
            // 1.5 m or less is no flight but a free fall (004:690).
            if flight.collision.is_some()
                || (flight.status == SpeedStatus::FreeFall && !self.perfect)
                || declared.is_some_and(|d| d != flight.status)
            {
                continue;
            }
            // A check it cannot make is no way there (no natural 20 on a check); of the same status, the
            // flight likelier to make all its checks.
            let chance = chance(flier, &flight);
            if chance <= 0.0 {
                continue;
            }
            let better = match out.get(&end_square) {
                None => true,
                Some(earlier) => earlier.flight.status == flight.status && chance > earlier.chance,
            };
            if better {
                out.insert(end_square, PlannedFlight { steps, flight, chance });
            }
        }
        out
    }
}

/// A step's key for the search's memory of what stands in the way: from, to (at most two squares
/// away), altitude.
fn step_key(from: Square, to: Square, altitude: i32) -> u64 {
    let (dx, dy) = ((to.x - from.x + 8) as u64 & 0xf, (to.y - from.y + 8) as u64 & 0xf);
    (from.x as u16 as u64) | (from.y as u16 as u64) << 16 | dx << 32 | dy << 36 | (altitude as u16 as u64) << 40
}

/// A node's place for the search's frontier: square, heading, altitude.
fn place_key(node: Node) -> u64 {
    (node.x as u16 as u64)
        | (node.y as u16 as u64) << 16
        | (node.heading as u64) << 32
        | (node.altitude as u16 as u64) << 40
}

/// The search's queue: a bucket a cost (costs are small whole numbers of half-squares), each taken in the
/// order it was filled: of equal cost, the node reached first, as the nodes are numbered in the order
/// they are reached.
#[derive(Default)]
struct Buckets {
    buckets: Vec<Vec<usize>>,
    /// The cost of the bucket being taken and how far into it.
    at: usize,
    taken: usize,
}

impl Buckets {
    fn clear(&mut self) {
        self.buckets.iter_mut().for_each(Vec::clear);
        (self.at, self.taken) = (0, 0);
    }

    fn push(&mut self, cost: u32, node: usize) {
        let cost = cost as usize;
        if self.buckets.len() <= cost {
            self.buckets.resize_with(cost + 1, Vec::new);
        }
        self.buckets[cost].push(node);
    }

    fn pop(&mut self) -> Option<(u32, usize)> {
        while let Some(bucket) = self.buckets.get(self.at) {
            if let Some(&node) = bucket.get(self.taken) {
                self.taken += 1;
                return Some((self.at as u32, node));
            }
            self.at += 1;
            self.taken = 0;
        }
        None
    }
}

/// What stands in the way of each step tried at each height: (from, to, altitude).
type Seen = HashMap<(Footprint, Footprint, i32), Option<Obstacle>, Fast>;
#[cfg(test)]
mod tests {
    use super::FlightStep::*;
    use super::*;
    use crate::rules::aerial::AdvancedManeuver;
    use crate::rules::aerial::route::Obstacle;
    use crate::rules::core::geometry::Diagonals;
    use crate::rules::core::refusal::Refusal;

    fn succeed(_: AdvancedManeuver, _: i32) -> bool {
        true
    }

    fn flier(maneuverability: Maneuverability, speed_m: f32) -> Flier {
        Flier {
            at: Footprint::new(Square::new(10, 10), 1),
            altitude: 10,
            heading: Direction::East,
            speed_m,
            maneuverability,
            hover_feat: false,
            since_maneuver: 0,
            scale: Scale::Normal,
            diagonals: Diagonals::Alternating,
            check_bonus: 2,
            odd_diagonal: false,
            attack_descent: false,
            heading_free: false,
            after_turn: false,
            decelerating: false,
            maneuvers_spent: 0,
        }
    }

    /// A flier at chase scale, in band 3.
    fn chaser(maneuverability: Maneuverability, speed_m: f32) -> Flier {
        Flier { altitude: 3, scale: Scale::Chase, ..flier(maneuverability, speed_m) }
    }

    fn open(_: Footprint, _: Footprint, _: i32) -> Option<Obstacle> {
        None
    }

    fn wingovers(planned: &PlannedFlight) -> usize {
        planned.steps.iter().filter(|s| matches!(s, Wingover { .. })).count()
    }

    #[test]
    fn the_planner_flies_chase_squares() {
        let hawk = chaser(Maneuverability::Good, 27.0);
        let plans = flights(&hawk, &[], None, &open);
        // Up to twice its 3 squares ahead, and a dive doubles the reach.
        assert!(plans.contains_key(&Square::new(16, 10)));
        assert!(!plans.contains_key(&Square::new(17, 10)));
        let diving = flights(&hawk, &[Dive { far: false }], None, &open);
        assert!(diving.contains_key(&Square::new(21, 10)));
        for planned in diving.values() {
            // A wingover loses a band more (004:778).
            let expected = if wingovers(planned) > 0 { 1 } else { 2 };
            assert_eq!(planned.flight.waypoints.last().unwrap().altitude, expected, "{:?}", planned.steps);
        }
        let climbing = flights(&hawk, &[Climb], None, &open);
        assert!(climbing.contains_key(&Square::new(13, 10)) && !climbing.contains_key(&Square::new(14, 10)));
    }

    #[test]
    fn the_planner_offers_what_the_rules_allow() {
        let griffon = flier(Maneuverability::Average, 24.0);
        let all = flights(&griffon, &[], None, &open);
        // Straight ahead 8 squares: slow.
        let ahead = &all[&Square::new(18, 10)];
        assert_eq!(ahead.flight.status, SpeedStatus::Slow);
        assert_eq!(ahead.steps, vec![Forward; 8]);
        // Slow and average, it may loop round (six 45° turns a square apart).
        assert!(all.contains_key(&Square::new(9, 10)));
        let clumsy = flights(&flier(Maneuverability::Clumsy, 24.0), &[], None, &open);
        assert!(clumsy.values().all(|p| p.flight.maneuvers <= 4));
        // Every flight offered is one the rules fly to that square.
        for (square, planned) in &all {
            let flown = fly(&griffon, &planned.steps, false, succeed, open).unwrap();
            assert_eq!(flown.waypoints.last().unwrap().square, *square);
        }
        // After a dive, it plans at the lower height.
        let low = flights(&griffon, &[Dive { far: false }], None, &open);
        assert_eq!(low[&Square::new(18, 10)].flight.waypoints.last().unwrap().altitude, 9);
    }

    #[test]
    fn the_planner_offers_hard_and_tight_turns_and_wingovers_with_their_fly_checks_004_765_780() {
        let griffon = flier(Maneuverability::Average, 24.0);
        let all = flights(&griffon, &[], None, &open);
        let checked: Vec<(&Square, &PlannedFlight)> = all.iter().filter(|(_, p)| !p.flight.checks.is_empty()).collect();
        assert!(!checked.is_empty(), "some squares need an advanced turn");
        assert!(all[&Square::new(18, 10)].flight.checks.is_empty(), "straight ahead needs none");
        let kinds = |f: fn(&FlightStep) -> bool| checked.iter().any(|(_, p)| p.steps.iter().any(f));
        assert!(kinds(|s| matches!(s, HardTurn(_))) && kinds(|s| matches!(s, TightTurn { .. })));
        assert!(kinds(|s| matches!(s, Wingover { .. })));
        for (square, planned) in checked {
            for check in &planned.flight.checks {
                let step = planned.steps[check.step];
                assert!(matches!(step, HardTurn(_) | TightTurn { .. } | Wingover { .. }), "{step:?}");
                assert_eq!(Some(check.dc), step.advanced().and_then(|m| m.dc().ok()));
            }
            // Every check failed, the flight ends elsewhere: the square needs the turn. (A wingover may also
            // spend the distance a slow flight must fly, and lose its height whether made or not.)
            if wingovers(planned) == 0 {
                let failed = fly(&griffon, &planned.steps, false, |_, _| false, open).unwrap();
                assert_ne!(failed.waypoints.last().unwrap().square, *square, "{:?}", planned.steps);
            }
        }
        // A perfect flier turns freely: no check.
        let perfect = flights(&flier(Maneuverability::Perfect, 24.0), &[], None, &open);
        assert!(perfect.values().all(|p| p.flight.checks.is_empty()));
    }

    #[test]
    fn the_planner_goes_on_after_the_part_of_a_flight_flown_before_a_flyby() {
        // The griffon (24 m: 16 squares) flies 4 squares east, turns right, flies 3 south-east: the planner
        // starts there, heading south-east, with those squares and the turn spent.
        let griffon = flier(Maneuverability::Average, 24.0);
        let before = [Forward, Forward, Forward, Forward, Turn(Side::Right), Forward, Forward, Forward];
        let then = flights(&griffon, &before, None, &open);
        assert!(!then.is_empty());
        for (square, planned) in &then {
            assert!(planned.steps.starts_with(&before), "{:?}", planned.steps);
            let flown = fly(&griffon, &planned.steps, false, succeed, open).unwrap();
            assert_eq!(flown.waypoints.last().unwrap().square, *square);
        }
        // Straight on south-east: (17, 13) after the first part, then (18, 14) a step further.
        assert_eq!(then[&Square::new(18, 14)].steps.len(), before.len() + 1);
        assert!(!then.contains_key(&Square::new(15, 8)), "behind the turn");
        // Behind it only by a wingover, 6 m lower.
        let back = &then[&Square::new(14, 10)];
        assert_eq!((wingovers(back), back.flight.waypoints.last().unwrap().altitude), (1, 6));
    }

    #[test]
    fn the_planner_goes_on_after_a_sideslip_and_a_wingover_as_flown() {
        // East from (10, 10): a square ahead and a slip to (12, 11); then a wingover of 180°, 6 m lower.
        let griffon = flier(Maneuverability::Average, 24.0);
        let before = [Forward, Sideslip(Side::Right)];
        let then = flights(&griffon, &before, None, &open);
        let mut straight_on = before.to_vec();
        straight_on.extend([Forward; 8]);
        assert_eq!(then[&Square::new(20, 11)].steps, straight_on);
        let about = [Forward, Forward, Wingover { side: Side::Right, degrees: 180 }];
        let back = flights(&griffon, &about, None, &open);
        let west = &back[&Square::new(5, 10)];
        assert_eq!(west.flight.waypoints.last().unwrap().altitude, 6);
        for (prefix, all) in [(&before[..], &then), (&about[..], &back)] {
            for (square, planned) in all {
                assert!(planned.steps.starts_with(prefix), "{:?}", planned.steps);
                let flown = fly(&griffon, &planned.steps, false, succeed, open).unwrap();
                assert_eq!(flown.waypoints.last().unwrap().square, *square, "{:?}", planned.steps);
            }
        }
    }

    #[test]
    fn a_wingover_drops_into_what_is_below_004_825() {
        // A flier 6 m right below: the wingover comes down into it.
        let griffon = flier(Maneuverability::Average, 24.0);
        let below = |_: Footprint, at: Footprint, alt: i32| {
            (at.origin == Square::new(11, 10) && alt == 6).then(|| Obstacle::Creature("hawk".into()))
        };
        let plan = [Forward, Wingover { side: Side::Right, degrees: 180 }, Forward, Forward, Forward, Forward, Forward];
        let f = fly(&griffon, &plan, false, succeed, below).unwrap();
        assert_eq!(f.collision, Some((1, "hawk".into())));
        // The planner offers no wingover there.
        let planned = flights(&griffon, &[], None, &below);
        assert!(
            planned.values().all(|p| !p.steps.starts_with(&[Forward, Wingover { side: Side::Right, degrees: 180 }]))
        );
    }

    #[test]
    fn the_planner_keeps_to_the_declared_speed_004_686() {
        // 12 m: 8 squares; slow is 4 to 8, fast 9 to 16, top speed 17 to 32.
        let hawk = flier(Maneuverability::Average, 12.0);
        let fast = flights(&hawk, &[], Some(SpeedStatus::Fast), &open);
        assert!(!fast.is_empty() && fast.values().all(|p| p.flight.status == SpeedStatus::Fast));
        // 7 squares ahead is slow: fast, it gets there only by a detour.
        assert!(fast[&Square::new(15, 10)].flight.maneuvers > 0);
        assert_eq!(fast[&Square::new(22, 10)].steps, vec![Forward; 12]);
        let top = flights(&hawk, &[], Some(SpeedStatus::TopSpeed), &open);
        assert!(top.values().all(|p| p.flight.status == SpeedStatus::TopSpeed));
        assert_eq!(top.keys().map(|s| s.x).max(), Some(42), "32 squares ahead at most");
        let stall = flights(&hawk, &[], Some(SpeedStatus::Stall), &open);
        assert_eq!(stall.keys().map(|s| s.x).max(), Some(13), "under half its speed: 3 squares");
        // A stalled average flier flies too little to turn after its factor; it may only wingover.
        assert!(stall.values().all(|p| p.steps.iter().all(|s| matches!(s, Forward | Wingover { .. }))));
        assert!(stall.values().any(|p| wingovers(p) == 1));
        // A hover: a good flier of 12 m covers 3 m, turns as it likes, and may stay where it is.
        let kite = flier(Maneuverability::Good, 12.0);
        let hover = flights(&kite, &[], Some(SpeedStatus::Hover), &open);
        assert!(hover.values().all(|p| p.flight.status == SpeedStatus::Hover && p.flight.spent <= 2));
        assert!(hover[&Square::new(10, 10)].steps.is_empty(), "staying put");
        assert!(hover.contains_key(&Square::new(8, 10)), "two squares back, turning freely");
        assert!(flights(&hawk, &[], Some(SpeedStatus::Hover), &open).is_empty(), "an average flier cannot hover");
        // Undeclared, no hover and no top speed.
        let any = flights(&hawk, &[], None, &open);
        assert!(any.values().all(|p| !matches!(p.flight.status, SpeedStatus::Hover | SpeedStatus::TopSpeed)));
    }

    #[test]
    fn the_planner_slips_aside_and_comes_back_by_a_wingover_004_746_774() {
        // A clumsy flier of 24 m, slow: 4 manoeuvres, 2 squares between two (004:732).
        let clumsy = flier(Maneuverability::Clumsy, 24.0);
        let all = flights(&clumsy, &[], None, &open);
        // A corridor with a jog, one row down at x 14: a sideslip keeps the heading through it, where a turn
        // would leave the clumsy flier heading into the wall (004:746).
        let jog = |_: Footprint, at: Footprint, _: i32| {
            let s = at.origin;
            let open = if s.x <= 13 { s.y == 10 } else { s.y == 11 };
            (!open).then(|| Obstacle::Wall(Refusal::new("a wall", "000:60")))
        };
        let aside = &flights(&clumsy, &[], None, &jog)[&Square::new(18, 11)];
        assert!(aside.flight.checks.is_empty());
        assert_eq!(aside.steps, [Forward, Forward, Forward, Sideslip(Side::Right), Forward, Forward, Forward, Forward]);
        assert_eq!(aside.flight.waypoints.last().unwrap().heading, Direction::East);
        // Behind it: only by wingovers. With Dex +2 and clumsy's -4 it cannot make the 180° one (DC 20), so
        // two of 135° (DC 15 each), the factor's 2 squares flown between them (004:745), 12 m lower; failed,
        // it flies on east.
        let back = &all[&Square::new(9, 10)];
        let checks: Vec<(AdvancedManeuver, i32)> = back.flight.checks.iter().map(|c| (c.maneuver, c.dc)).collect();
        assert_eq!(checks, vec![(AdvancedManeuver::Wingover(135), 15); 2], "{:?}", back.steps);
        let at: Vec<usize> =
            back.steps.iter().enumerate().filter(|(_, s)| matches!(s, Wingover { .. })).map(|(i, _)| i).collect();
        assert!(at[1] - at[0] > 2, "the factor between them: {:?}", back.steps);
        assert!((back.chance - 0.2 * 0.2).abs() < 1e-6 && back.chance == chance(&clumsy, &back.flight));
        let end = back.flight.waypoints.last().unwrap();
        assert_eq!(end.altitude, 2);
        let failed = fly(&clumsy, &back.steps, false, |_, _| false, open).unwrap();
        assert!(failed.waypoints.last().unwrap().square.x > 10);
        // A check it cannot make (DC 10 against -14) is no way anywhere.
        let hopeless = Flier { check_bonus: -10, ..clumsy };
        assert!(flights(&hopeless, &[], None, &open).values().all(|p| p.flight.checks.is_empty()));
        // Too low to lose 6 m, no wingover.
        let low = Flier { altitude: 4, ..clumsy };
        assert!(flights(&low, &[], None, &open).values().all(|p| wingovers(p) == 0));
        // A wall where it would come back down: the wingover's height is checked.
        let wall = |_: Footprint, at: Footprint, alt: i32| {
            (at.origin.x < 10 && alt < 8).then(|| Obstacle::Wall(Refusal::new("a cliff", "000:60")))
        };
        assert!(!flights(&clumsy, &[], None, &wall).contains_key(&Square::new(9, 10)));
    }
}
