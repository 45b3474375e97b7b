//! Straight lines on the grid: the path of a run (004:248-251) and the lane of a charge (004:451-459),
//! each square a single step from the one before.

use serde::Serialize;

use super::cost::{Blocked, Medium, Mover, StepWorld};
use super::paths::{Destination, Route, SearchRules, walk_path};
use super::table::{Crowd, GroundTable, quick_step};
use crate::rules::core::battlefield::EdgeFeature;
use crate::rules::core::geometry::{Edge, Footprint, Square};

/// `a / b` rounded to the nearest whole number, halves away from zero (`b` > 0).
fn div_round(a: i64, b: i64) -> i64 {
    if a >= 0 { (2 * a + b) / (2 * b) } else { -((-2 * a + b) / (2 * b)) }
}

/// The squares of the straight line from `from` to `to`, `from` excluded: the line between square centres,
/// one step at a time along the longer axis, the other axis rounded to the nearest square (halves away
/// from the start's axis), so every square follows the previous one by a single step.
pub fn straight_line(from: Square, to: Square) -> Vec<Square> {
    let (dx, dy) = (i64::from(to.x) - i64::from(from.x), i64::from(to.y) - i64::from(from.y));
    // No map is wider than `LONGEST_LINE` squares: a line beyond is no line on the board.
    let n = dx.abs().max(dy.abs());
    if n > LONGEST_LINE {
        return Vec::new();
    }
    let at = |origin: i32, d: i64, i: i64| (i64::from(origin) + div_round(i * d, n)) as i32;
    (1..=n).map(|i| Square::new(at(from.x, dx, i), at(from.y, dy, i))).collect()
}

/// The longest straight line drawn, in squares: far beyond any map a level may have.
const LONGEST_LINE: i64 = 4096;

/// The cost of the straight line from `start` to `to` walked step by step under `rules`, without building
/// the route: `None` if a step is illegal, the cost passes `budget`, or the move may not end there.
fn line_cost(
    world: &StepWorld<'_>,
    mover: &Mover,
    (table, crowd, shape): (&GroundTable, &Crowd, Option<usize>),
    start: Footprint,
    to: Square,
    budget: u32,
    rules: SearchRules,
) -> Option<(u32, u32)> {
    let (dx, dy) = (i64::from(to.x) - i64::from(start.origin.x), i64::from(to.y) - i64::from(start.origin.y));
    let n = dx.abs().max(dy.abs());
    if n > LONGEST_LINE {
        return None;
    }
    let at = |origin: i32, d: i64, i: i64| (i64::from(origin) + div_round(i * d, n)) as i32;
    let (mut here, mut odd, mut cost, mut hampered, mut can_stop) = (start, rules.odd_diagonal, 0, 0, true);
    for i in 1..=n {
        let next = Square::new(at(start.origin.x, dx, i), at(start.origin.y, dy, i));
        let direction = here.origin.direction_to(next)?;
        let (footprint, entry) = quick_step(world, mover, (table, crowd), here, shape, start, direction.index())?;
        let step_hampered = entry.hampering.doublings > 0 || entry.hampering.edge_extra > 0;
        if rules.no_hampered && step_hampered {
            return None;
        }
        let (step, next_odd) =
            super::cost::step_cost(world.field.diagonals(), direction.is_diagonal(), entry.hampering, odd);
        cost += step;
        if cost > budget {
            return None;
        }
        odd = next_odd;
        hampered += u32::from(step_hampered);
        can_stop = entry.can_stop;
        here = footprint;
    }
    can_stop.then_some((cost, hampered))
}

/// Every square a straight move of at most `budget` squares can end on, with its cost: the run's
/// reachable squares (004:248). Each line must be walkable step by step under `rules` and end where one
/// may stop; the route to a chosen square is `walk_path` along `straight_line`.
pub fn straight_reachable(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    budget: u32,
    rules: SearchRules,
) -> Vec<Destination> {
    let r = budget as i32;
    let mut out = Vec::new();
    let (table, crowd) = (GroundTable::of(world.field, mover), Crowd::new(world, start));
    let shape = mover.shapes().iter().position(|&s| s == (start.width, start.height));
    for y in (start.origin.y - r).max(0)..=(start.origin.y + r).min(world.field.height() - 1) {
        for x in (start.origin.x - r).max(0)..=(start.origin.x + r).min(world.field.width() - 1) {
            let to = Square::new(x, y);
            if to == start.origin || world.field.diagonals().squares(x - start.origin.x, y - start.origin.y) > budget {
                continue;
            }
            if let Some((cost, hampered)) = line_cost(world, mover, (&table, &crowd, shape), start, to, budget, rules) {
                out.push(Destination { square: to, space: (start.width, start.height), cost, hampered });
            }
        }
    }
    out
}

/// Why a charge is not possible from here, with the rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum NoCharge {
    /// The charger can already attack from where it stands: a charge moves at least 2 squares.
    AlreadyInReach,
    /// No square from which to attack the target lies within twice the speed.
    TooFar,
    /// The nearest squares from which to attack are all too close (under 2 squares away).
    TooClose,
    /// The nearest square of attack is occupied, by a helpless creature too (004:453 « Si cet espace est
    /// occupé ou bloqué d'une autre façon, le personnage est dans l'incapacité de charger »).
    EndOccupied {
        /// The nearest attack square looked at.
        to: Square,
    },
    /// The square asked for is not one of the nearest from which to attack (004:453 « l'espace le plus
    /// proche de lui et à partir duquel il peut attaquer »).
    NotNearest {
        /// The square asked for.
        to: Square,
    },
    /// Every nearest square's lane is blocked; the first reason found is kept.
    LaneBlocked {
        /// The nearest attack square looked at.
        to: Square,
        /// What blocks it.
        blocked: Blocked,
    },
}

impl std::fmt::Display for NoCharge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoCharge::AlreadyInReach => {
                write!(f, "the target is already within reach: a charge moves at least 2 squares")
            }
            NoCharge::TooFar => write!(
                f,
                "no square from which to attack the target lies within its charge: twice its speed, its speed alone when restricted to one action"
            ),
            NoCharge::TooClose => write!(f, "the nearest square from which to attack is less than 2 squares away"),
            NoCharge::EndOccupied { to } => write!(f, "{to}, the nearest square of attack, is occupied"),
            NoCharge::NotNearest { to } => write!(f, "{to} is not one of the nearest squares from which to attack"),
            NoCharge::LaneBlocked { to, blocked } => {
                write!(f, "the lane to {to}, the nearest square of attack, is not clear: {blocked}")
            }
        }
    }
}

impl NoCharge {
    /// The rule behind the refusal.
    pub fn rule(&self) -> &'static str {
        match self {
            NoCharge::AlreadyInReach | NoCharge::TooClose => "004:452",
            NoCharge::TooFar => "004:451",
            NoCharge::EndOccupied { .. } | NoCharge::NotNearest { .. } => "004:453",
            NoCharge::LaneBlocked { .. } => "004:452-453",
        }
    }
}

/// A legal charge lane: the route to a nearest square from which the target can be attacked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChargeLane {
    /// The square the charge ends on.
    pub to: Square,
    /// The route.
    pub route: Route,
    /// Every square of attack as near as this one (this one among them), in the order a die picks them: when
    /// some of them have no clear lane, a die says which one is the nearest (000:63-65, RULES-INDEX), and
    /// the charge may go only if its lane is clear ([`by_a_die`]).
    pub nearest: Vec<Square>,
}

/// Whether a die must say which of the equally near squares of attack the charge goes to: some of them
/// have no clear lane, and the one the die picks must have one (000:63-65, RULES-INDEX: a tie for the
/// nearest square is broken by a die; 004:453 « Si cet espace est occupé ou bloqué d'une autre façon, le
/// personnage est dans l'incapacité de charger »). When every one is clear, the charger picks
/// (docs/rulings.md).
pub fn by_a_die(lanes: &[ChargeLane]) -> bool {
    lanes.first().is_some_and(|lane| lanes.len() < lane.nearest.len())
}

/// The charge lanes of `mover` (with `charging` set, so creatures in the way block) from `start` toward the
/// squares `attack_from` would let it attack, with `budget` squares (twice the speed, or the speed for a
/// restricted creature): the nearest attack squares where it could stand, reached by a straight line of at
/// least 2 and at most `budget` squares, through no hampered square, no creature
/// (helpless ones excepted) and nothing that blocks (004:451-453, 000:67-68, 000:94-95).
pub fn charge_lanes(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    budget: u32,
    attack_from: impl Fn(Square) -> bool,
) -> Result<Vec<ChargeLane>, NoCharge> {
    charge_lanes_to(world, mover, start, (budget, None), attack_from)
}

/// [`charge_lanes`], or, given `only`, the lane to that square alone, or why there is none: not a nearest
/// square of attack, or what stands in its own lane.
pub fn charge_lanes_to(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    (budget, only): (u32, Option<Square>),
    attack_from: impl Fn(Square) -> bool,
) -> Result<Vec<ChargeLane>, NoCharge> {
    if attack_from(start.origin) {
        return Err(NoCharge::AlreadyInReach);
    }
    let r = budget as i32;
    let mut candidates: Vec<(u32, Square)> = Vec::new();
    for y in (start.origin.y - r).max(0)..=(start.origin.y + r).min(world.field.height() - 1) {
        for x in (start.origin.x - r).max(0)..=(start.origin.x + r).min(world.field.width() - 1) {
            let square = Square::new(x, y);
            let d = world.field.diagonals().squares(x - start.origin.x, y - start.origin.y);
            // A square of wall or pit, or a hindering obstacle crossed and never stopped on, is no place to
            // attack from (docs/rulings.md); an occupied one is, and blocks the charge.
            let standable = world.enter_ground(mover, start.at(square)).is_ok_and(|entry| entry.can_stop);
            if d <= budget && standable && attack_from(square) {
                candidates.push((d, square));
            }
        }
    }
    let Some(nearest) = candidates.iter().map(|(d, _)| *d).min() else { return Err(NoCharge::TooFar) };
    if nearest < super::CHARGE_LEAST_SQUARES {
        return Err(NoCharge::TooClose);
    }
    let rules = SearchRules { no_hampered: true, odd_diagonal: false, dry: false };
    let mut lanes = Vec::new();
    let mut first_block = None;
    if let Some(to) = only
        && !candidates.contains(&(nearest, to))
    {
        return Err(NoCharge::NotNearest { to });
    }
    let tied: Vec<Square> = candidates.iter().filter(|(d, _)| *d == nearest).map(|(_, to)| *to).collect();
    for to in tied.iter().copied().filter(|to| only.is_none_or(|o| o == *to)) {
        // The end square free of every creature, a helpless one too: « Les créatures sans défense ne gênent
        // pas les charges » is said of the lane (004:453).
        if world.occupants.iter().any(|o| o.footprint.overlaps(start.at(to))) {
            first_block.get_or_insert(NoCharge::EndOccupied { to });
            continue;
        }
        match walk_path(world, mover, start, &straight_line(start.origin, to), rules) {
            Ok(route) if route.cost <= budget => match swept_block(world, mover, start, start.at(to)) {
                None => lanes.push(ChargeLane { to, route, nearest: tied.clone() }),
                Some(blocked) => {
                    first_block.get_or_insert(NoCharge::LaneBlocked { to, blocked });
                }
            },
            Ok(_) => {}
            Err(refused) => {
                first_block.get_or_insert(NoCharge::LaneBlocked { to, blocked: refused.blocked });
            }
        }
    }
    if lanes.is_empty() { Err(first_block.unwrap_or(NoCharge::TooFar)) } else { Ok(lanes) }
}

/// Whether square `s`'s inside meets the space swept by the footprint `from` sliding straight to `to` (of
/// the same size): every line from a point of the start space to the same point of the end space, and so
/// every line between the two spaces that a straight move covers. Touching a side or a corner only is not
/// meeting it.
pub fn swept_meets(from: Footprint, to: Footprint, s: Square) -> bool {
    let (x, y) = (f64::from(s.x), f64::from(s.y));
    sweep_meets(from, to, (x, x + 1.0), (y, y + 1.0))
}

/// Whether the inside of `edge`, the segment between two squares, meets the space swept by `from` sliding
/// straight to `to`: a line between the two spaces crosses it. One running along the swept space's side or
/// ending on it does not.
pub fn swept_meets_edge(from: Footprint, to: Footprint, edge: Edge) -> bool {
    let (x, y) = (f64::from(edge.square.x), f64::from(edge.square.y));
    if edge.east {
        sweep_meets(from, to, (x + 1.0, x + 1.0), (y, y + 1.0))
    } else {
        sweep_meets(from, to, (x, x + 1.0), (y + 1.0, y + 1.0))
    }
}

/// Whether the space `from` sliding straight to `to` overlaps, inside, the box `xs` by `ys` (a square, or a
/// segment where one of them is a single point): for each axis the times t at which the sliding space's
/// inside meets the box's extent on it, the two ranges meeting within the slide.
fn sweep_meets(from: Footprint, to: Footprint, xs: (f64, f64), ys: (f64, f64)) -> bool {
    let axis = |start: i32, size: i32, moved: i32, (lo, hi): (f64, f64)| -> Option<(f64, f64)> {
        let centre = f64::from(start) + f64::from(size) / 2.0;
        let half = f64::from(size) / 2.0 + (hi - lo) / 2.0;
        let gap = (lo + hi) / 2.0 - centre;
        if moved == 0 {
            return (gap.abs() < half).then_some((f64::NEG_INFINITY, f64::INFINITY));
        }
        let (a, b) = ((gap - half) / f64::from(moved), (gap + half) / f64::from(moved));
        Some((a.min(b), a.max(b)))
    };
    let (dx, dy) = (to.origin.x - from.origin.x, to.origin.y - from.origin.y);
    let (Some((x0, x1)), Some((y0, y1))) =
        (axis(from.origin.x, from.width, dx, xs), axis(from.origin.y, from.height, dy, ys))
    else {
        return false;
    };
    let (lo, hi) = (x0.max(y0), x1.min(y1));
    lo < hi && lo < 1.0 && hi > 0.0
}

/// What blocks a charge from `start` to `end` off the line between their centres (004:453 « si n'importe
/// quelle ligne entre son espace de départ et son espace d'arrivée passe par une case bloquante ..., par une
/// case qui ralentit le mouvement ... ou par un espace occupé par une créature »): a square the swept space
/// meets (`swept_meets`), outside both spaces, that is a wall or a pit, hampers the charger, or holds a
/// creature that is not helpless; an edge it crosses (`swept_meets_edge`) with a wall or an arrow slit on
/// it, or, on the ground, a low wall or an obstacle, as the square would (RULES-INDEX: an edge's obstacle is
/// an obstacle).
fn swept_block(world: &StepWorld<'_>, mover: &Mover, start: Footprint, end: Footprint) -> Option<Blocked> {
    let (x0, x1) = (start.origin.x.min(end.origin.x), start.origin.x.max(end.origin.x) + start.width);
    let (y0, y1) = (start.origin.y.min(end.origin.y), start.origin.y.max(end.origin.y) + start.height);
    for y in y0..y1 {
        for x in x0..x1 {
            let s = Square::new(x, y);
            if start.contains(s) || end.contains(s) || !swept_meets(start, end, s) {
                continue;
            }
            if let Some(blocked) = square_across_a_lane(world, mover, start, s) {
                return Some(blocked);
            }
        }
    }
    let vertical = (x0..=x1).flat_map(|x| (y0..y1).map(move |y| Edge { square: Square::new(x - 1, y), east: true }));
    let horizontal = (y0..=y1).flat_map(|y| (x0..x1).map(move |x| Edge { square: Square::new(x, y - 1), east: false }));
    for edge in vertical.chain(horizontal) {
        if beside_a_lane(start, end, edge) {
            continue;
        }
        if let Some(blocked) = edge_across_a_lane(world, mover, edge) {
            return Some(blocked);
        }
    }
    None
}

/// What stands across the charge lane from `start` to the space at `to` off its drawn line ([`swept_block`]).
pub fn lane_blocked(world: &StepWorld<'_>, mover: &Mover, start: Footprint, to: Square) -> Option<Blocked> {
    swept_block(world, mover, start, start.at(to))
}

/// What square `s` puts across a charge lane from `start` meeting it (004:453): a wall or a pit, what
/// hampers the charger, a creature that is not helpless. One square at a time, as a creature of one square
/// would find it (a big charger is judged by its squares, not by a squeeze).
fn square_across_a_lane(world: &StepWorld<'_>, mover: &Mover, start: Footprint, s: Square) -> Option<Blocked> {
    let probe = Mover { size: crate::rules::core::size::Size::Medium, ..*mover };
    let square = Footprint::new(s, 1);
    let ground = match world.enter_ground(&probe, square) {
        Ok(ground) => ground,
        Err(blocked) => return Some(blocked),
    };
    if ground.hampering.doublings > 0 || !ground.can_stop {
        return Some(Blocked::Hampered { square: s, by: world.hampered_by(&probe, square, false) });
    }
    // A helpless body that obstructs slows who crosses it (000:72-73): across the lane it stops the charge
    // as rubble would, on the drawn line or off it.
    match world.enter_among(&probe, square, start, ground) {
        Err(blocked) => Some(blocked),
        Ok(entry) if entry.hampering.doublings > ground.hampering.doublings => {
            Some(Blocked::Hampered { square: s, by: "an obstacle on the way" })
        }
        Ok(_) => None,
    }
}

/// What `edge` puts across a charge lane crossing it: a wall or an arrow slit, or, on the ground, a low wall
/// or an obstacle, as on a square (RULES-INDEX: an edge's obstacle is an obstacle). Nothing stops an
/// incorporeal charger.
fn edge_across_a_lane(world: &StepWorld<'_>, mover: &Mover, edge: Edge) -> Option<Blocked> {
    if mover.incorporeal {
        return None;
    }
    let beyond = edge.squares().1;
    match world.field.edge(edge) {
        Some(EdgeFeature::Wall | EdgeFeature::ArrowSlit) => Some(Blocked::Wall { square: beyond }),
        Some(EdgeFeature::LowWall | EdgeFeature::Obstacle) if mover.medium != Medium::Fly => {
            Some(Blocked::Hampered { square: beyond, by: "an obstacle on the way" })
        }
        _ => None,
    }
}

/// Whether a lane from `start` to `end` leaves `edge` aside: inside one of the two spaces, or crossed by no
/// line between them.
fn beside_a_lane(start: Footprint, end: Footprint, edge: Edge) -> bool {
    let (p, q) = edge.squares();
    let within = |f: Footprint| f.contains(p) && f.contains(q);
    within(start) || within(end) || !swept_meets_edge(start, end, edge)
}

/// Of `destinations`, the ends of straight moves from `start`, those whose lane is clear off the line too
/// ([`swept_block`]): what stands across a lane within `budget` squares is found once, then each lane's
/// swept space is asked whether it meets one.
pub fn clear_lanes(
    world: &StepWorld<'_>,
    mover: &Mover,
    start: Footprint,
    budget: u32,
    destinations: Vec<Destination>,
) -> Vec<Destination> {
    let r = budget as i32;
    let (x0, x1) = ((start.origin.x - r).max(0), (start.origin.x + start.width + r).min(world.field.width()));
    let (y0, y1) = ((start.origin.y - r).max(0), (start.origin.y + start.height + r).min(world.field.height()));
    let mut squares = Vec::new();
    let mut edges = Vec::new();
    // The area's squares; its edges kept by them and, on its west and north sides, by the squares beyond.
    for y in (y0 - 1)..y1 {
        for x in (x0 - 1)..x1 {
            let s = Square::new(x, y);
            if x >= x0 && y >= y0 && !start.contains(s) && square_across_a_lane(world, mover, start, s).is_some() {
                squares.push(s);
            }
            edges.extend(
                [true, false]
                    .map(|east| Edge { square: s, east })
                    .into_iter()
                    .filter(|e| edge_across_a_lane(world, mover, *e).is_some()),
            );
        }
    }
    destinations
        .into_iter()
        .filter(|d| {
            let end = start.at(d.square);
            let meets = |s: &Square| !end.contains(*s) && swept_meets(start, end, *s);
            !squares.iter().any(meets) && edges.iter().all(|e| beside_a_lane(start, end, *e))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::battlefield::{Battlefield, Terrain};
    use crate::rules::core::size::Size;
    use crate::rules::movement::cost::Occupant;

    #[test]
    fn a_line_far_beyond_any_map_is_none() {
        assert!(straight_line(Square::new(2, 5), Square::new(2, i32::MIN)).is_empty());
        assert!(straight_line(Square::new(i32::MAX, 0), Square::new(i32::MIN, 0)).is_empty());
    }

    #[test]
    fn straight_lines_step_one_square_at_a_time() {
        assert_eq!(
            straight_line(Square::new(0, 0), Square::new(3, 0)),
            vec![Square::new(1, 0), Square::new(2, 0), Square::new(3, 0)]
        );
        assert_eq!(straight_line(Square::new(0, 0), Square::new(2, 2)), vec![Square::new(1, 1), Square::new(2, 2)]);
        let line = straight_line(Square::new(0, 0), Square::new(5, 2));
        assert_eq!(line.len(), 5);
        assert_eq!(line.last(), Some(&Square::new(5, 2)));
        let mut previous = Square::new(0, 0);
        for square in line {
            assert!(previous.direction_to(square).is_some());
            previous = square;
        }
        assert_eq!(straight_line(Square::new(4, 4), Square::new(1, 2)).last(), Some(&Square::new(1, 2)));
    }

    #[test]
    fn a_run_goes_straight_and_avoids_nothing() {
        let mut field = Battlefield::open(30, 5);
        field.set_terrain(Square::new(5, 2), Terrain::Difficult);
        let world = StepWorld { field: &field, occupants: &[] };
        let man = Mover::walker(Size::Medium);
        let start = Footprint::new(Square::new(1, 2), 1);
        let run = straight_reachable(
            &world,
            &man,
            start,
            24,
            SearchRules { no_hampered: true, odd_diagonal: false, dry: false },
        );
        let ends: Vec<Square> = run.iter().map(|d| d.square).collect();
        assert!(ends.contains(&Square::new(4, 2)));
        assert!(!ends.contains(&Square::new(6, 2)), "the rubble is in the straight line and cannot be run through");
        assert!(ends.contains(&Square::new(6, 1)), "a line beside the rubble");
    }

    #[test]
    fn a_charge_lane_is_every_line_between_the_two_spaces_004_453() {
        let met = |from: Footprint, to: Footprint| -> Vec<(i32, i32)> {
            (0..6)
                .flat_map(|y| (0..6).map(move |x| (x, y)))
                .filter(|&(x, y)| {
                    let s = Square::new(x, y);
                    !from.contains(s) && !to.contains(s) && swept_meets(from, to, s)
                })
                .collect()
        };
        let at = |x, y, side| Footprint::new(Square::new(x, y), side);
        // Straight along a row: that row only.
        assert_eq!(met(at(0, 0, 1), at(4, 0, 1)), vec![(1, 0), (2, 0), (3, 0)]);
        // Three across and one down: the squares each side of the centre line that some line crosses.
        assert_eq!(met(at(0, 0, 1), at(3, 1, 1)), vec![(1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1)]);
        // A diagonal: the squares beside it too, a line from a side of the start to the same side of the end.
        assert_eq!(met(at(0, 0, 1), at(2, 2, 1)), vec![(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)]);
        // A Large charger sweeps its two rows.
        assert_eq!(met(at(0, 0, 2), at(3, 0, 2)), vec![(2, 0), (2, 1)]);
    }

    #[test]
    fn a_charge_takes_the_nearest_square_by_a_clear_lane() {
        let field = Battlefield::open(12, 7);
        let man = Mover { charging: true, ..Mover::walker(Size::Medium) };
        let start = Footprint::new(Square::new(1, 3), 1);
        let target = Footprint::new(Square::new(7, 3), 1);
        let reach = |square: Square| Footprint::new(square, 1).adjacent_to(target);
        let world = StepWorld { field: &field, occupants: &[] };
        let lanes = charge_lanes(&world, &man, start, 12, reach).unwrap();
        let ends: Vec<Square> = lanes.iter().map(|l| l.to).collect();
        assert_eq!(
            ends,
            vec![Square::new(6, 2), Square::new(6, 3), Square::new(6, 4)],
            "three squares equally near (5 squares each)"
        );
        assert!(lanes.iter().all(|l| l.route.cost == 5));
        // Allies across the lanes block a charge (000:67-68).
        let ally = |y| Occupant {
            footprint: Footprint::new(Square::new(4, y), 1),
            size: Size::Medium,
            ally: true,
            helpless: false,
            obstructs_when_helpless: false,
            fills_space: false,
        };
        let allies = [ally(2), ally(3), ally(4)];
        let world = StepWorld { field: &field, occupants: &allies };
        assert!(matches!(charge_lanes(&world, &man, start, 12, reach), Err(NoCharge::LaneBlocked { .. })));
        // Too close, too far.
        let world = StepWorld { field: &field, occupants: &[] };
        let near = Footprint::new(Square::new(5, 3), 1);
        assert_eq!(charge_lanes(&world, &man, near, 12, reach), Err(NoCharge::TooClose));
        assert_eq!(charge_lanes(&world, &man, start, 4, reach), Err(NoCharge::TooFar));
        assert_eq!(
            charge_lanes(&world, &man, Footprint::new(Square::new(6, 3), 1), 12, reach),
            Err(NoCharge::AlreadyInReach)
        );
        // A wall square beside the target is no square to charge to; and a line from the start to (6,2) or
        // (6,4), the nearest standable ones, crosses it (from a corner of the start to the same corner of
        // the end): no lane (004:453 « n'importe quelle ligne »).
        let mut walled = Battlefield::open(12, 7);
        walled.set_terrain(Square::new(6, 3), Terrain::Wall);
        let world = StepWorld { field: &walled, occupants: &[] };
        assert!(matches!(
            charge_lanes(&world, &man, start, 12, reach),
            Err(NoCharge::LaneBlocked { blocked: Blocked::Wall { .. }, .. })
        ));
        // The wall a row farther off, (6,1): no line between the start and any of the three crosses it.
        let mut walled = Battlefield::open(12, 7);
        walled.set_terrain(Square::new(6, 1), Terrain::Wall);
        let world = StepWorld { field: &walled, occupants: &[] };
        let ends: Vec<Square> = charge_lanes(&world, &man, start, 12, reach).unwrap().iter().map(|l| l.to).collect();
        assert_eq!(ends, vec![Square::new(6, 2), Square::new(6, 3), Square::new(6, 4)]);
        // A creature in a lane blocks, even a foe three sizes smaller: the rat at (4,3) lies on every line
        // of each; a helpless ally does not.
        let tiny_foe = [Occupant { ally: false, size: Size::Tiny, ..ally(3) }];
        let world = StepWorld { field: &field, occupants: &tiny_foe };
        assert!(matches!(charge_lanes(&world, &man, start, 12, reach), Err(NoCharge::LaneBlocked { .. })));
        let sleeping = [Occupant { helpless: true, ..ally(3) }];
        let world = StepWorld { field: &field, occupants: &sleeping };
        assert_eq!(charge_lanes(&world, &man, start, 12, reach).unwrap().len(), 3);
    }
}
