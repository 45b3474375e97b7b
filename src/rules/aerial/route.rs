//! A flight's route, step by step: a flier's move at normal or chase scale (004:671-786, 004:712, 004:749): it flies forward along its heading, and changes heading,
//! side or altitude only by manoeuvres. The distance flown (the declared speed) gives its status for the
//! round, and the status and its manoeuvrability how many manoeuvres it may make and how far it must fly
//! between two. Advanced manoeuvres call for a fly check; a failed one has the effect the text gives and
//! ends advanced manoeuvres for the turn. Pure: the fly checks and what stands in the way come from the
//! caller.

use serde::{Deserialize, Serialize};

use super::{AdvancedManeuver, Maneuvers, maneuvers};
use crate::rules::core::altitude::Scale;
use crate::rules::core::creature::Maneuverability;
use crate::rules::core::geometry::{Direction, Footprint, Square};
use crate::rules::core::names::SpeedStatus;
use crate::rules::core::refusal::Refusal;

/// A side to turn or slip to, seen from the flier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Counter-clockwise.
    Left,
    /// Clockwise.
    Right,
}

impl Side {
    fn eighths(self, n: i32) -> i32 {
        match self {
            Side::Left => -n,
            Side::Right => n,
        }
    }
}

/// One step of a flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlightStep {
    /// One square ahead.
    Forward,
    /// A 45° turn, 1 square of movement, after flying the manoeuvre factor (004:745).
    Turn(Side),
    /// One square ahead and one aside, heading kept, 3 squares of movement, after the factor (004:746).
    Sideslip(Side),
    /// One square ahead and 1.5 m up, 2 squares of movement (1 for a perfect flier) (004:747, 004:785).
    Climb,
    /// One square ahead (two if `far`) and 1.5 m down, 1 square of movement (004:748, 004:785).
    Dive {
        /// Two squares ahead rather than one.
        #[serde(default)]
        far: bool,
    },
    /// Advanced, DC 15: a 90° turn, 2 squares, after the factor; failed, a 45° turn (004:770-772).
    HardTurn(Side),
    /// Advanced, DC 10, 20 or 30 for step 1 to 3: a 45° turn with the factor 1.5 m a step shorter, 1 square
    /// more a step (004:765-768); failed, no turn.
    TightTurn {
        /// Which way.
        side: Side,
        /// 1 to 3.
        step: u8,
    },
    /// Advanced, DC 10, 15 or 20: a turn of 90°, 135° or 180°, losing 6 m, 2 squares (004:774-780);
    /// failed, the heading stays and the height is lost all the same (our ruling).
    Wingover {
        /// Which way.
        side: Side,
        /// 90, 135 or 180.
        degrees: u16,
    },
}

impl FlightStep {
    /// The advanced manoeuvre it is, if it is one.
    pub fn advanced(self) -> Option<AdvancedManeuver> {
        match self {
            FlightStep::HardTurn(_) => Some(AdvancedManeuver::HardTurn),
            FlightStep::TightTurn { step, .. } => Some(AdvancedManeuver::TightTurn(step)),
            FlightStep::Wingover { degrees, .. } => Some(AdvancedManeuver::Wingover(degrees)),
            _ => None,
        }
    }

    /// Whether it is a manoeuvre, counted against the round's (004:713-715).
    pub fn is_maneuver(self) -> bool {
        !matches!(self, FlightStep::Forward)
    }

    /// The squares ahead it moves, and the side it slips to on the last of them (004:745-748); a climb or
    /// a dive at chase scale moves none, it sets the band the squares after are flown at (004:749).
    fn movement(self, scale: Scale) -> (u32, Option<Side>) {
        match self {
            FlightStep::Climb | FlightStep::Dive { .. } if scale == Scale::Chase => (0, None),
            FlightStep::Forward | FlightStep::Climb => (1, None),
            FlightStep::Dive { far } => (1 + u32::from(far), None),
            FlightStep::Sideslip(side) => (1, Some(side)),
            _ => (0, None),
        }
    }

    /// The footprints it enters from `from`, flying on `heading` (the heading after it), in order: the
    /// squares ahead, slipping aside on the last; for a wingover first its own space 6 m lower, which it
    /// drops into (004:825).
    fn entered(self, scale: Scale, from: Footprint, heading: Direction) -> impl Iterator<Item = Footprint> {
        let (ahead, aside) = self.movement(scale);
        let ahead = ahead as i32;
        let (dx, dy) = heading.delta();
        let slip = aside.map_or((0, 0), |side| heading.turned(side.eighths(2)).delta());
        let drop = matches!(self, FlightStep::Wingover { .. }).then_some(from);
        drop.into_iter().chain((1..=ahead).map(move |n| {
            let (sx, sy) = if n == ahead { slip } else { (0, 0) };
            Footprint::rect(from.origin.offset(dx * n + sx, dy * n + sy), from.width, from.height)
        }))
    }

    /// The heading after it, the manoeuvre made or failed (004:745, 004:766-780).
    fn heading_after(self, heading: Direction, made: bool) -> Direction {
        match self {
            FlightStep::Turn(side) => heading.turned(side.eighths(1)),
            FlightStep::TightTurn { side, .. } if made => heading.turned(side.eighths(1)),
            FlightStep::HardTurn(side) => heading.turned(side.eighths(if made { 2 } else { 1 })),
            FlightStep::Wingover { side, degrees } if made => heading.turned(side.eighths(i32::from(degrees / 45))),
            _ => heading,
        }
    }

    /// The altitude it gains, in 1.5 m steps or bands: a wingover loses 6 m, made or not (004:778).
    fn rise(self, scale: Scale) -> i32 {
        match self {
            FlightStep::Climb => 1,
            FlightStep::Dive { .. } => -1,
            FlightStep::Wingover { .. } => -scale.wingover_drop(),
            _ => 0,
        }
    }

    /// Whether it starts the count of squares flown since a turn again: turns, slips and wingovers.
    fn resets_count(self) -> bool {
        self.needs_factor() || matches!(self, FlightStep::Wingover { .. })
    }

    /// Whether the flier must first have flown its manoeuvre factor since the last such manoeuvre: turns
    /// and slips; not climbs and dives (004:747-748).
    fn needs_factor(self) -> bool {
        matches!(
            self,
            FlightStep::Turn(_) | FlightStep::Sideslip(_) | FlightStep::HardTurn(_) | FlightStep::TightTurn { .. }
        )
    }
}

/// A flier as its move sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flier {
    /// Its footprint now.
    pub at: Footprint,
    /// Altitude, in 1.5 m steps.
    pub altitude: i32,
    /// Heading.
    pub heading: Direction,
    /// Fly speed in metres.
    pub speed_m: f32,
    /// Manoeuvrability.
    pub maneuverability: Maneuverability,
    /// The Hover feat.
    pub hover_feat: bool,
    /// Squares flown since its last turn or slip, carried from its last move (004:745).
    pub since_maneuver: u32,
    /// The scale of the squares: at chase scale, 9 m squares and altitude in bands (004:650, 004:788).
    pub scale: Scale,
    /// Its fly checks' bonus before the table's modifiers: its Dex modifier, or its rider's Ride when better
    /// (004:734, 004:811). The planner weighs flights with checks by it.
    pub check_bonus: i32,
}

/// Where a flier is after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Waypoint {
    /// Its footprint's north-west square.
    pub square: Square,
    /// Altitude in 1.5 m steps.
    pub altitude: i32,
    /// Heading.
    pub heading: Direction,
    /// Squares of movement spent so far.
    pub spent: u32,
    /// The step of the flight it is after (0 for the first).
    pub step: usize,
}

/// A fly check made during the flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlyCheck {
    /// Which step of the flight.
    pub step: usize,
    /// The manoeuvre.
    pub maneuver: AdvancedManeuver,
    /// Its DC.
    pub dc: i32,
    /// Whether it succeeded.
    pub success: bool,
}

/// What blocks a flier's way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obstacle {
    /// A wall, the map's edge: the flight cannot go there.
    Wall(Refusal),
    /// A creature whose space the flier would enter: at normal scale, a collision (004:825).
    Creature(String),
}

/// A flight, flown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flight {
    /// The flier after each step flown.
    pub waypoints: Vec<Waypoint>,
    /// Squares of movement spent: the declared speed (004:686).
    pub spent: u32,
    /// The status that distance gives (004:689-695).
    pub status: SpeedStatus,
    /// Manoeuvres used (an advanced one counts two, 004:715).
    pub maneuvers: u32,
    /// The fly checks rolled, in order.
    pub checks: Vec<FlyCheck>,
    /// Squares flown since the last turn or slip, at the end.
    pub since_maneuver: u32,
    /// The creature it ran into, and at which step: the flight stops before that square (004:825).
    pub collision: Option<(usize, String)>,
    /// Advanced manoeuvres not attempted, after a failed one this turn (004:749): the steps left out.
    pub skipped: Vec<usize>,
}

/// Half-squares of movement one step costs, before any check (a failed manoeuvre costs what it tried).
/// `diagonal_odd` is the 1-2-1-2 alternation of diagonals so far (000:61). At chase scale `band` is the
/// flight's change of band: climbing one, each square entered costs 2; diving one, half a square
/// (004:749); the climb or the dive itself costs nothing more.
fn step_halves(
    step: FlightStep,
    heading: Direction,
    perfect: bool,
    diagonal_odd: &mut bool,
    scale: Scale,
    band: i32,
) -> u32 {
    let mut ahead = || {
        let squares = if heading.is_diagonal() {
            *diagonal_odd = !*diagonal_odd;
            if *diagonal_odd { 1 } else { 2 }
        } else {
            1
        };
        ahead_halves(squares, scale, band)
    };
    match (step, scale) {
        (FlightStep::Forward, _) => ahead(),
        (FlightStep::Turn(_), _) if perfect => 0,
        (FlightStep::Turn(_), _) => 2,
        (FlightStep::Sideslip(_), _) => 6,
        (FlightStep::Climb | FlightStep::Dive { .. }, Scale::Chase) => 0,
        (FlightStep::Climb, Scale::Normal) => ahead() + 2 * u32::from(!perfect),
        (FlightStep::Dive { .. }, Scale::Normal) => 2,
        (FlightStep::HardTurn(_) | FlightStep::Wingover { .. }, _) => 4,
        (FlightStep::TightTurn { step, .. }, _) => 2 * (1 + u32::from(step.min(3))),
    }
}

/// Half-squares of movement for `squares` flown ahead: 2 each; at chase scale 4 when the flight climbs a
/// band, 1 when it dives one (004:749).
fn ahead_halves(squares: u32, scale: Scale, band: i32) -> u32 {
    match (scale, band.signum()) {
        (Scale::Chase, 1) => 4 * squares,
        (Scale::Chase, -1) => squares,
        _ => 2 * squares,
    }
}

/// Whole squares of movement for `halves` half-squares: a half square counts as a whole one.
fn whole(halves: u32) -> u32 {
    halves.div_ceil(2)
}

/// The change of band a chase-scale flight makes by its climb or dive, which must come before it enters
/// any square, one band at most (our ruling on 004:749); 0 at normal scale.
fn band_change(scale: Scale, steps: &[FlightStep]) -> Result<i32, Refusal> {
    if scale == Scale::Normal {
        return Ok(0);
    }
    let mut change = 0;
    for (i, step) in steps.iter().enumerate() {
        let delta = match step {
            FlightStep::Climb => 1,
            FlightStep::Dive { .. } => -1,
            _ => continue,
        };
        if change != 0 {
            return Err(Refusal::new(
                format!("step {}: at chase scale a flight climbs or dives one band at most", i + 1),
                "004:749, docs/rulings.md",
            ));
        }
        if i > 0 {
            return Err(Refusal::new(
                format!(
                    "step {}: at chase scale the climb or dive sets the cost of every square: it comes first",
                    i + 1
                ),
                "004:749, docs/rulings.md",
            ));
        }
        change = delta;
    }
    Ok(change)
}

/// Flies `steps` from where `flier` is. `hover` declares a hover. `check` rolls a fly check for an
/// advanced manoeuvre against its DC; `obstacle` says what stands at a footprint and altitude. Refused
/// when the flight breaks a rule; otherwise the flight as flown, failed checks included.
pub fn fly(
    flier: &Flier,
    steps: &[FlightStep],
    hover: bool,
    mut check: impl FnMut(AdvancedManeuver, i32) -> bool,
    obstacle: impl Fn(Footprint, i32) -> Option<Obstacle>,
) -> Result<Flight, Refusal> {
    // The distance declared is what the flight costs; it sets the status, and the status the manoeuvres.
    let perfect = flier.maneuverability == Maneuverability::Perfect || hover;
    let scale = flier.scale;
    let band = band_change(scale, steps)?;
    let mut odd = false;
    let mut heading = flier.heading;
    let mut planned_halves = 0;
    for step in steps {
        planned_halves += step_halves(*step, heading, perfect, &mut odd, scale, band);
        heading = step.heading_after(heading, true);
    }
    let planned = whole(planned_halves);
    let speed_squares = scale.squares(flier.speed_m);
    if planned > 4 * speed_squares {
        return Err(Refusal::new(
            format!("{planned} squares is more than four times its fly speed ({speed_squares} squares)"),
            "004:707",
        ));
    }
    let status = scale.status(planned, flier.speed_m, flier.maneuverability, hover, flier.hover_feat)?;
    // A perfect flier turns as it likes, but at top speed the table limits it too (004:731).
    let free = hover || (perfect && status != SpeedStatus::TopSpeed);
    let (limit, factor) = match maneuvers(status, flier.maneuverability, scale) {
        _ if free => (u32::MAX, 0),
        Maneuvers::Unlimited => (u32::MAX, 0),
        Maneuvers::None => (0, 0),
        Maneuvers::Limited { per_round, factor } => (per_round, scale.factor_squares(factor)),
    };
    let mut flight = Flight {
        waypoints: Vec::new(),
        spent: 0,
        status,
        maneuvers: 0,
        checks: Vec::new(),
        since_maneuver: flier.since_maneuver,
        collision: None,
        skipped: Vec::new(),
    };
    let (mut at, mut altitude, mut heading) = (flier.at, flier.altitude, flier.heading);
    let mut odd = false;
    let mut advanced_open = true;
    let mut spent_halves = 0;
    for (i, step) in steps.iter().copied().enumerate() {
        // After a failed advanced manoeuvre no other is attempted this turn (004:749).
        if step.advanced().is_some() && !advanced_open {
            flight.skipped.push(i);
            continue;
        }
        let cost = step_halves(step, heading, perfect, &mut odd, scale, band);
        if step.is_maneuver() && !free {
            let uses = if step.advanced().is_some() { 2 } else { 1 };
            if flight.maneuvers + uses > limit {
                return Err(Refusal::new(
                    format!("step {}: no manoeuvre left this round ({limit} at this speed and manoeuvrability)", i + 1),
                    "004:716-732",
                ));
            }
            flight.maneuvers += uses;
        }
        // A tight turn shortens the factor for itself (004:765).
        let needed = match step {
            FlightStep::TightTurn { step: s, .. } => factor.saturating_sub(u32::from(s.min(3))),
            _ => factor,
        };
        if step.needs_factor() && !free && flight.since_maneuver < needed {
            return Err(Refusal::new(
                format!(
                    "step {}: it must fly {needed} squares between two turns, and has flown {}",
                    i + 1,
                    flight.since_maneuver
                ),
                "004:745",
            ));
        }
        let mut succeeded = true;
        if let Some(maneuver) = step.advanced() {
            let dc = maneuver.dc()?;
            if !perfect {
                succeeded = check(maneuver, dc);
                flight.checks.push(FlyCheck { step: i, maneuver, dc, success: succeeded });
                advanced_open = succeeded;
            }
        }
        // Where the step takes it.
        heading = step.heading_after(heading, succeeded);
        altitude += step.rise(scale);
        if scale == Scale::Chase && altitude > i32::from(crate::rules::core::altitude::HIGHEST_BAND) {
            return Err(Refusal::new(
                format!(
                    "step {}: band {} is the highest (very high)",
                    i + 1,
                    crate::rules::core::altitude::HIGHEST_BAND
                ),
                "004:788-797",
            ));
        }
        if altitude < 1 {
            return Err(Refusal::new(
                format!("step {}: it would fly into the ground; a flier lands by landing", i + 1),
                "004:669-670",
            ));
        }
        for next in step.entered(scale, at, heading) {
            match obstacle(next, altitude) {
                Some(Obstacle::Wall(refusal)) => {
                    return Err(Refusal::new(format!("step {}: {}", i + 1, refusal.reason), refusal.rule));
                }
                Some(Obstacle::Creature(id)) => {
                    flight.collision = Some((i, id));
                    flight.spent = whole(spent_halves + cost);
                    return Ok(flight);
                }
                None => at = next,
            }
            flight.since_maneuver += 1;
        }
        if step.resets_count() {
            flight.since_maneuver = 0;
        }
        spent_halves += cost;
        flight.spent = whole(spent_halves);
        flight.waypoints.push(Waypoint { square: at.origin, altitude, heading, spent: flight.spent, step: i });
    }
    Ok(flight)
}

/// The planner's hash: Bevy's fixed foldhash, fast and the same on every run.
type Fast = bevy::platform::hash::FixedHasher;

/// The chance that `flier` makes every fly check of `flight` (004:734-743): a d20 plus its bonus and the
/// table's modifiers for its manoeuvrability and the flight's status, against each DC.
pub fn chance(flier: &Flier, flight: &Flight) -> f32 {
    let bonus = flier.check_bonus + super::fly_check_modifier(flier.maneuverability, flight.status);
    flight.checks.iter().map(|c| ((21 + bonus - c.dc) as f32 / 20.0).clamp(0.0, 1.0)).product()
}

/// Where the planner's search is: square, heading, squares since the last turn (up to the factor), manoeuvres
/// used, altitude (which only a wingover changes after the prefix), whether a fly check was needed on the
/// way, whether only a slow flight allows what it did, and the diagonals' 1-2-1-2 count, so that its costs
/// are the flight's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Node {
    y: i32,
    x: i32,
    heading: usize,
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
        Direction::ALL[self.heading]
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

/// Every square a flier can end this turn's flight on, after `prefix` (its climbs and dives flown first,
/// or the part of the flight before a flyby attack), flying ahead, turning 45° and slipping aside as its
/// status and manoeuvrability allow, with the best flight to each: slow rather than fast, fast rather than
/// a stall, at the height chosen rather than lower, then the cheapest. Simple manoeuvres, and the hard and
/// tight turns and wingovers planned as made (the flight lists their fly checks; a wingover ends it 6 m
/// lower), never one with a check it cannot make; each flight checked by [`fly`]. `declared` is the speed the flier declared at the
/// start of its turn (004:686): only flights of that status, up to four times its speed at top speed, a
/// quarter (9 m at most) in a hover, which may also stay where it is (004:708-709); `None` offers the slow
/// and fast flights and the stalls.
pub fn flights(
    flier: &Flier,
    prefix: &[FlightStep],
    declared: Option<SpeedStatus>,
    obstacle: &impl Fn(Footprint, i32) -> Option<Obstacle>,
) -> std::collections::HashMap<Square, PlannedFlight> {
    use std::collections::{BinaryHeap, HashMap};
    let hover = declared == Some(SpeedStatus::Hover);
    let perfect = flier.maneuverability == Maneuverability::Perfect || hover;
    let scale = flier.scale;
    let Ok(band_change) = band_change(scale, prefix) else { return HashMap::new() };
    let speed = scale.squares(flier.speed_m);
    // Costs in half-squares (a chase-scale dive makes a square cost half, 004:749).
    let max_cost = match declared {
        Some(SpeedStatus::TopSpeed) => 8 * speed,
        Some(SpeedStatus::Hover) => 2 * scale.squares((flier.speed_m / 4.0).min(9.0)),
        _ => 4 * speed,
    };
    // The bands planned for: the declared one, or slow and fast. Slow's limits are the looser (004:727-732):
    // a step only slow allows makes the flight slow or nothing.
    let band = |status| match maneuvers(status, flier.maneuverability, scale) {
        _ if perfect => (u32::MAX, 0),
        Maneuvers::Unlimited => (u32::MAX, 0),
        Maneuvers::None => (0, 0),
        Maneuvers::Limited { per_round, factor } => (per_round, scale.factor_squares(factor)),
    };
    let (loose, strict) = match declared {
        Some(status) => (band(status), band(status)),
        None => (band(SpeedStatus::Slow), band(SpeedStatus::Fast)),
    };
    let slow_most = 2 * speed;
    // The start, after the prefix: its climbs and dives, or the part of a flight before a flyby attack,
    // flown as `fly` flies it, every manoeuvre made (the whole flight is checked by it at the end).
    let mut start_at = flier.at;
    let mut start_altitude = flier.altitude;
    let mut start_heading = flier.heading;
    let (mut spent, mut used, mut since) = (0, 0, flier.since_maneuver);
    let mut odd = false;
    for step in prefix {
        spent += step_halves(*step, start_heading, perfect, &mut odd, scale, band_change);
        if !perfect && step.is_maneuver() {
            used += if step.advanced().is_some() { super::ADVANCED_MANEUVER_COST } else { 1 };
        }
        start_heading = step.heading_after(start_heading, true);
        start_altitude += step.rise(scale);
        for next in step.entered(scale, start_at, start_heading) {
            if start_altitude < 0 || obstacle(next, start_altitude).is_some() {
                return HashMap::new();
            }
            start_at = next;
            since += 1;
        }
        if step.resets_count() {
            since = 0;
        }
    }
    let start = Flight {
        waypoints: Vec::new(),
        spent,
        status: SpeedStatus::Slow,
        maneuvers: used,
        checks: Vec::new(),
        since_maneuver: since,
        collision: None,
        skipped: Vec::new(),
    };
    let first = Node {
        y: start_at.origin.y,
        x: start_at.origin.x,
        heading: start_heading.index(),
        since: start.since_maneuver.min(loose.1.max(strict.1)),
        used: start.maneuvers,
        altitude: start_altitude,
        checked: false,
        slow_only: start.maneuvers > strict.0,
        odd,
    };
    /// A node reached: its cost, and the node (its index) and step it was reached from.
    type Reached = (u32, Node, Option<(usize, FlightStep)>);
    let mut reached: Vec<Reached> = vec![(start.spent, first, None)];
    // Whether a node is still worth going on from: not since beaten by another.
    let mut alive = vec![true];
    let mut queue = BinaryHeap::new();
    queue.push(std::cmp::Reverse((start.spent, 0)));
    let mut ends: Vec<usize> = Vec::new();
    // What stands in each square at each height, asked once a square.
    let mut open_at: HashMap<(Square, i32), bool, Fast> = HashMap::default();
    let mut clear = |square: Square, altitude: i32| {
        *open_at
            .entry((square, altitude))
            .or_insert_with(|| obstacle(Footprint::rect(square, flier.at.width, flier.at.height), altitude).is_none())
    };
    // For each square, heading and altitude, the nodes reached so far: a node no cheaper, with no fewer
    // manoeuvres used, no more squares flown since a turn, and no freer (no check yet, not bound to be slow)
    // than one already found can do nothing better than that one.
    let mut frontier: HashMap<(Square, usize, i32), Vec<usize>, Fast> = HashMap::default();
    let dominates = |(c, n): (u32, Node), (total, to): (u32, Node)| {
        c <= total
            && n.used <= to.used
            && n.since >= to.since
            && n.checked <= to.checked
            && n.slow_only <= to.slow_only
            && n.odd <= to.odd
    };
    let since_cap = loose.1.max(strict.1);
    // An advanced manoeuvre it could not make even on a 20, at the best status it may fly at, is no way
    // anywhere (004:734-743).
    let best_status = declared.unwrap_or(SpeedStatus::Slow);
    let most = 20 + flier.check_bonus + super::fly_check_modifier(flier.maneuverability, best_status);
    let makeable = |step: FlightStep| step.advanced().is_none_or(|m| m.dc().is_ok_and(|dc| dc <= most));
    let wingover_drop = scale.wingover_drop();
    let mut next: Vec<(FlightStep, Node, u32)> = Vec::new();
    while let Some(std::cmp::Reverse((cost, index))) = queue.pop() {
        if !alive[index] {
            continue;
        }
        let node = reached[index].1;
        let (square, heading) = (node.square(), node.direction());
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
        next.clear();
        // Ahead, a diagonal counted 1, 2, 1, 2 (000:61).
        let ahead = square.step(heading);
        if clear(ahead, node.altitude) {
            let diagonal = heading.is_diagonal();
            let step_cost = ahead_halves(if diagonal && node.odd { 2 } else { 1 }, scale, band_change);
            let odd = node.odd != diagonal;
            let to = Node { y: ahead.y, x: ahead.x, since: (node.since + 1).min(since_cap), odd, ..node };
            next.push((FlightStep::Forward, to, step_cost));
        }
        let turn_uses = u32::from(!perfect);
        for side in [Side::Left, Side::Right] {
            let turned = heading.turned(side.eighths(1)).index();
            if let Some(to) = after(Some(0), turn_uses) {
                next.push((FlightStep::Turn(side), Node { heading: turned, ..to }, if perfect { 0 } else { 2 }));
            }
        }
        if !perfect {
            // A sideslip, one square ahead and one aside for 3, heading kept (004:746): of use only to a
            // flier that cannot turn as it likes.
            for side in [Side::Left, Side::Right] {
                let (dx, dy) = heading.delta();
                let (sx, sy) = heading.turned(side.eighths(2)).delta();
                let to = square.offset(dx + sx, dy + sy);
                if let Some(node) = after(Some(0), 1)
                    && clear(to, node.altitude)
                {
                    next.push((FlightStep::Sideslip(side), Node { y: to.y, x: to.x, ..node }, 6));
                }
            }
            // The advanced turns, two manoeuvres each, planned as made (the flight lists their fly checks):
            // a hard turn of 90° after the factor (004:770); a tight turn of 45° before it, its step the
            // squares still short of the factor of either band (004:765); a wingover of 90°, 135° or 180° at
            // any time, 6 m (a band) lower (004:774-780).
            let uses = super::ADVANCED_MANEUVER_COST;
            for side in [Side::Left, Side::Right] {
                if let Some(to) = after(Some(0), uses) {
                    let turned = heading.turned(side.eighths(2)).index();
                    next.push((FlightStep::HardTurn(side), Node { heading: turned, checked: true, ..to }, 4));
                }
                let mut shorts = [loose.1.saturating_sub(node.since), strict.1.saturating_sub(node.since)];
                shorts.sort_unstable();
                for short in shorts.into_iter().filter(|s| (1..=3).contains(s)) {
                    if let Some(to) = after(Some(short), uses) {
                        let step = FlightStep::TightTurn { side, step: short as u8 };
                        let turned = heading.turned(side.eighths(1)).index();
                        next.push((step, Node { heading: turned, checked: true, ..to }, 2 * (1 + short)));
                    }
                }
            }
            let lower = node.altitude - wingover_drop;
            let room_below = lower >= 1 && clear(square, lower);
            let wingovers =
                [(Side::Left, 90), (Side::Right, 90), (Side::Left, 135), (Side::Right, 135), (Side::Right, 180)];
            for (side, degrees) in wingovers {
                if room_below && let Some(to) = after(None, uses) {
                    let turned = heading.turned(side.eighths(i32::from(degrees / 45))).index();
                    let step = FlightStep::Wingover { side, degrees };
                    next.push((step, Node { heading: turned, altitude: lower, checked: true, ..to }, 4));
                }
            }
        }
        for &(step, to, step_cost) in &next {
            let total = cost + step_cost;
            if total > max_cost || (to.slow_only && total > slow_most) || !makeable(step) {
                continue;
            }
            let known = frontier.entry((to.square(), to.heading, to.altitude)).or_default();
            if known.iter().any(|&k| dominates((reached[k].0, reached[k].1), (total, to))) {
                continue;
            }
            known.retain(|&k| {
                let beaten = dominates((total, to), (reached[k].0, reached[k].1));
                alive[k] &= !beaten;
                !beaten
            });
            let new = reached.len();
            known.push(new);
            reached.push((total, to, Some((index, step))));
            alive.push(true);
            if matches!(step, FlightStep::Forward | FlightStep::Sideslip(_)) {
                ends.push(new);
            }
            queue.push(std::cmp::Reverse((total, new)));
        }
    }
    let path_to = |end: usize| -> Vec<FlightStep> {
        let mut steps = Vec::new();
        let mut at = end;
        while let (_, _, Some((before, step))) = reached[at] {
            steps.push(step);
            at = before;
        }
        steps.reverse();
        let mut all = prefix.to_vec();
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
    // Each square's candidates in order of preference, the status read from the cost alone; the first the
    // rules accept is its flight.
    let status_of = |cost: u32| {
        let status = scale.status(whole(cost), flier.speed_m, flier.maneuverability, hover, flier.hover_feat);
        match (declared, status) {
            (Some(declared), Ok(status)) => u8::from(status != declared),
            (Some(_), Err(_)) => 1,
            (None, status) => status.map_or(2, rank),
        }
    };
    // Without a fly check rather than with, the cheapest, at the height chosen rather than wingovers lower.
    ends.sort_by_key(|&i| {
        let (cost, n, _) = reached[i];
        (n.y, n.x, status_of(cost), n.checked, cost, start_altitude - n.altitude, n)
    });
    let mut out: HashMap<Square, PlannedFlight> = HashMap::new();
    let mut tried: HashMap<Square, u32> = HashMap::new();
    // The same squares are asked of again and again by the candidate flights: remember the answers.
    let seen: std::cell::RefCell<HashMap<(Footprint, i32), Option<Obstacle>, Fast>> = Default::default();
    let cached = |at: Footprint, alt: i32| -> Option<Obstacle> {
        if let Some(known) = seen.borrow().get(&(at, alt)) {
            return known.clone();
        }
        let found = obstacle(at, alt);
        seen.borrow_mut().insert((at, alt), found.clone());
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
            || (flight.status == SpeedStatus::FreeFall && !perfect)
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

#[cfg(test)]
mod tests {
    use super::FlightStep::*;
    use super::*;

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
            check_bonus: 2,
        }
    }

    /// A flier at chase scale, in band 3.
    fn chaser(maneuverability: Maneuverability, speed_m: f32) -> Flier {
        Flier { altitude: 3, scale: Scale::Chase, ..flier(maneuverability, speed_m) }
    }

    #[test]
    fn chase_speeds_count_in_nine_metre_squares_004_712() {
        // 27 m: 3 squares, and its least speed (13.5 m) is 1 square, so 1 square is slow, not a stall.
        let f = fly(&chaser(Maneuverability::Average, 27.0), &[Forward], false, succeed, open).unwrap();
        assert_eq!((f.spent, f.status), (1, SpeedStatus::Slow));
        let f = fly(&chaser(Maneuverability::Average, 27.0), &[Forward; 4], false, succeed, open).unwrap();
        assert_eq!(f.status, SpeedStatus::Fast);
        assert_eq!(f.waypoints.last().unwrap().square, Square::new(14, 10), "4 squares of 9 m east");
        let f = fly(&chaser(Maneuverability::Average, 27.0), &[Forward; 7], false, succeed, open).unwrap();
        assert_eq!(f.status, SpeedStatus::TopSpeed);
        assert!(fly(&chaser(Maneuverability::Average, 27.0), &[Forward; 13], false, succeed, open).is_err());
        // 45 m: 5 squares, least 2: 1 square is a stall for an average flier.
        let f = fly(&chaser(Maneuverability::Average, 45.0), &[Forward], false, succeed, open).unwrap();
        assert_eq!(f.status, SpeedStatus::Stall);
    }

    #[test]
    fn chase_climb_doubles_and_dive_halves_every_square_004_749() {
        let hawk = chaser(Maneuverability::Average, 27.0);
        let climb = fly(&hawk, &[Climb, Forward, Forward], false, succeed, open).unwrap();
        assert_eq!((climb.spent, climb.waypoints.last().unwrap().altitude), (4, 4), "2 squares at 2 each, band 4");
        let dive = fly(&hawk, &[Dive { far: false }, Forward, Forward, Forward], false, succeed, open).unwrap();
        assert_eq!((dive.spent, dive.waypoints.last().unwrap().altitude), (2, 2), "3 squares at a half, band 2");
        assert_eq!(dive.waypoints.last().unwrap().square, Square::new(13, 10));
        // One band at most, and first.
        assert!(fly(&hawk, &[Climb, Climb, Forward], false, succeed, open).is_err());
        assert!(fly(&hawk, &[Forward, Dive { far: false }], false, succeed, open).is_err());
        // Never above band 6.
        let high = Flier { altitude: 6, ..hawk };
        assert!(fly(&high, &[Climb, Forward], false, succeed, open).is_err());
    }

    #[test]
    fn chase_turns_use_the_chase_columns_004_719() {
        // Average and slow at chase scale: 6 manoeuvres a round, a factor of 1 square.
        let hawk = chaser(Maneuverability::Average, 27.0);
        let f = fly(&hawk, &[Forward, Turn(Side::Right), Forward], false, succeed, open).unwrap();
        assert_eq!(f.waypoints.last().unwrap().square, Square::new(12, 11));
        // Clumsy and fast: a factor of 2 squares.
        let clumsy = chaser(Maneuverability::Clumsy, 27.0);
        let steps = [Forward, Forward, Forward, Turn(Side::Right), Forward];
        assert!(fly(&clumsy, &steps, false, succeed, open).is_ok());
        let mut early = Flier { since_maneuver: 0, ..clumsy };
        early.at = Footprint::new(Square::new(10, 10), 1);
        assert!(fly(&early, &[Forward, Turn(Side::Right), Forward, Forward, Forward], false, succeed, open).is_err());
        // A wingover loses one band (004:778).
        let f = fly(&hawk, &[Forward, Wingover { side: Side::Left, degrees: 180 }, Forward], false, succeed, open);
        assert_eq!(f.unwrap().waypoints.last().unwrap().altitude, 2);
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

    fn open(_: Footprint, _: i32) -> Option<Obstacle> {
        None
    }

    fn wingovers(planned: &PlannedFlight) -> usize {
        planned.steps.iter().filter(|s| matches!(s, Wingover { .. })).count()
    }

    fn succeed(_: AdvancedManeuver, _: i32) -> bool {
        true
    }

    #[test]
    fn forward_climb_dive_and_their_costs_004_747_748_785() {
        let griffon = flier(Maneuverability::Average, 12.0);
        let f = fly(&griffon, &[Forward, Climb, Climb, Dive { far: true }, Forward], false, succeed, open).unwrap();
        let last = f.waypoints.last().unwrap();
        assert_eq!(last.square, Square::new(16, 10), "1 + 1 + 1 + 2 + 1 squares east");
        assert_eq!(last.altitude, 11, "up two, down one");
        assert_eq!(f.spent, 1 + 2 + 2 + 1 + 1);
        assert_eq!(f.status, SpeedStatus::Slow, "7 squares of a speed of 8");
        // The same at 24 m is a stall, and a stalling average flier has two manoeuvres only.
        let fast_bird = flier(Maneuverability::Average, 24.0);
        let plan = [Forward, Climb, Climb, Dive { far: true }, Forward];
        assert_eq!(fly(&fast_bird, &plan, false, succeed, open).unwrap_err().rule, "004:716-732");
        // A perfect flier climbs at no extra cost (004:786).
        let f = fly(&flier(Maneuverability::Perfect, 24.0), &[Climb, Climb], false, succeed, open).unwrap();
        assert_eq!(f.spent, 2);
    }

    #[test]
    fn the_status_comes_from_the_distance_flown_004_689_695() {
        let griffon = flier(Maneuverability::Average, 24.0);
        let straight = |n: usize| vec![Forward; n];
        assert_eq!(fly(&griffon, &straight(8), false, succeed, open).unwrap().status, SpeedStatus::Slow);
        assert_eq!(fly(&griffon, &straight(20), false, succeed, open).unwrap().status, SpeedStatus::Fast);
        assert_eq!(fly(&griffon, &straight(40), false, succeed, open).unwrap().status, SpeedStatus::TopSpeed);
        assert!(fly(&griffon, &straight(65), false, succeed, open).is_err(), "beyond four times its speed");
        assert!(fly(&griffon, &straight(2), true, succeed, open).is_err(), "an average flier cannot hover");
    }

    #[test]
    fn turns_wait_for_the_manoeuvre_factor_at_each_manoeuvrability_004_716_745() {
        // Slow at normal scale: good 1.5 m (1 square), average 1.5 m, poor 3 m, clumsy 3 m; perfect any time.
        for (m, factor) in [
            (Maneuverability::Good, 1),
            (Maneuverability::Average, 1),
            (Maneuverability::Poor, 2),
            (Maneuverability::Clumsy, 2),
        ] {
            let mut plan = vec![Forward; 8];
            plan.insert(factor, Turn(Side::Left));
            let ok = fly(&flier(m, 24.0), &plan, false, succeed, open);
            assert!(ok.is_ok(), "{m:?}: a turn after {factor} squares: {ok:?}");
            let mut early = vec![Forward; 8];
            early.insert(factor - 1, Turn(Side::Left));
            let refused = fly(&flier(m, 24.0), &early, false, succeed, open).unwrap_err();
            assert_eq!(refused.rule, "004:745", "{m:?}");
        }
        let perfect = fly(&flier(Maneuverability::Perfect, 24.0), &[Turn(Side::Left); 4], false, succeed, open);
        assert_eq!(perfect.unwrap().waypoints.last().unwrap().heading, Direction::North.turned(-2));
    }

    #[test]
    fn the_round_allows_so_many_manoeuvres_004_716_732() {
        // Clumsy and slow: 4 manoeuvres of factor 3 m; the fifth is refused.
        let clumsy = flier(Maneuverability::Clumsy, 30.0);
        let plan = [Forward, Forward, Climb, Climb, Climb, Climb, Forward, Forward];
        assert!(fly(&clumsy, &plan, false, succeed, open).is_ok());
        let plan = [Forward, Forward, Climb, Climb, Climb, Climb, Climb];
        assert_eq!(fly(&clumsy, &plan, false, succeed, open).unwrap_err().rule, "004:716-732");
        // Top speed, poor: none at all.
        let poor = flier(Maneuverability::Poor, 9.0);
        let mut plan = vec![Forward; 14];
        plan.push(Climb);
        assert_eq!(fly(&poor, &plan, false, succeed, open).unwrap_err().rule, "004:716-732");
    }

    #[test]
    fn the_tight_turn_of_the_poor_fast_flier_004_766() {
        // Poor and fast: factor 6 m (4 squares). A tight turn at DC 10 needs 4.5 m (3 squares) and costs 2.
        let poor = flier(Maneuverability::Poor, 12.0);
        let mut plan = vec![Forward, Forward, Forward, TightTurn { side: Side::Right, step: 1 }];
        plan.extend(vec![Forward; 4]);
        let f = fly(&poor, &plan, false, succeed, open).unwrap();
        assert_eq!(f.status, SpeedStatus::Fast);
        assert_eq!(f.waypoints[3].spent, 3 + 2);
        assert_eq!(f.waypoints[3].heading, Direction::SouthEast);
        assert_eq!(
            f.checks,
            vec![FlyCheck { step: 3, maneuver: AdvancedManeuver::TightTurn(1), dc: 10, success: true }]
        );
        // A simple turn after three squares is refused: the factor is four.
        let mut plan = vec![Forward, Forward, Forward, Turn(Side::Right)];
        plan.extend(vec![Forward; 6]);
        assert_eq!(fly(&poor, &plan, false, succeed, open).unwrap_err().rule, "004:745");
    }

    #[test]
    fn failed_advanced_manoeuvres_004_749_772_780() {
        let griffon = flier(Maneuverability::Average, 24.0);
        // A failed hard turn is a 45° turn, and no advanced manoeuvre follows.
        let plan = [Forward, HardTurn(Side::Left), Forward, Forward, Forward, Forward, Forward, Forward];
        let f = fly(&griffon, &plan, false, |_, _| false, open).unwrap();
        assert_eq!(f.waypoints[1].heading, Direction::NorthEast);
        let plan =
            [Forward, HardTurn(Side::Left), Forward, Wingover { side: Side::Left, degrees: 90 }, Forward, Forward];
        let f = fly(&griffon, &plan, false, |_, _| false, open).unwrap();
        assert_eq!(f.skipped, vec![3], "the wingover is not attempted");
        assert_eq!(f.checks.len(), 1);
        // A wingover turns 180° and loses 6 m; failed, it loses the height and keeps the heading.
        let plan = [Wingover { side: Side::Right, degrees: 180 }, Forward, Forward, Forward, Forward, Forward, Forward];
        let f = fly(&griffon, &plan, false, succeed, open).unwrap();
        assert_eq!((f.waypoints[0].heading, f.waypoints[0].altitude), (Direction::West, 6));
        let f = fly(&griffon, &plan, false, |_, _| false, open).unwrap();
        assert_eq!((f.waypoints[0].heading, f.waypoints[0].altitude), (Direction::East, 6));
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
        let below = |at: Footprint, alt: i32| {
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
    fn a_sideslip_keeps_the_heading_and_walls_stop_the_flight() {
        let griffon = flier(Maneuverability::Average, 24.0);
        let plan = [Forward, Sideslip(Side::Right), Forward, Forward, Forward, Forward, Forward];
        let f = fly(&griffon, &plan, false, succeed, open).unwrap();
        assert_eq!(f.waypoints[1].square, Square::new(12, 11));
        assert_eq!(f.waypoints[1].heading, Direction::East);
        assert_eq!(f.spent, 1 + 3 + 5);
        let wall = |at: Footprint, _| (at.origin.x >= 13).then(|| Obstacle::Wall(Refusal::new("a wall", "000:60")));
        assert!(fly(&griffon, &[Forward; 8], false, succeed, wall).is_err());
        let dragon =
            |at: Footprint, alt: i32| (at.origin.x == 12 && alt == 10).then(|| Obstacle::Creature("dragon".into()));
        let f = fly(&griffon, &[Forward; 8], false, succeed, dragon).unwrap();
        assert_eq!(f.collision, Some((1, "dragon".into())));
        assert_eq!(f.waypoints.last().unwrap().square, Square::new(11, 10), "it stops before the dragon");
    }

    #[test]
    fn the_planner_slips_aside_and_comes_back_by_a_wingover_004_746_774() {
        // A clumsy flier of 24 m, slow: 4 manoeuvres, 2 squares between two (004:732).
        let clumsy = flier(Maneuverability::Clumsy, 24.0);
        let all = flights(&clumsy, &[], None, &open);
        // A corridor with a jog, one row down at x 14: a sideslip keeps the heading through it, where a turn
        // would leave the clumsy flier heading into the wall (004:746).
        let jog = |at: Footprint, _: i32| {
            let s = at.origin;
            let open = if s.x <= 13 { s.y == 10 } else { s.y == 11 };
            (!open).then(|| Obstacle::Wall(Refusal::new("a wall", "000:60")))
        };
        let aside = &flights(&clumsy, &[], None, &jog)[&Square::new(18, 11)];
        assert!(aside.flight.checks.is_empty());
        assert_eq!(aside.steps, [Forward, Forward, Forward, Sideslip(Side::Right), Forward, Forward, Forward, Forward]);
        assert_eq!(aside.flight.waypoints.last().unwrap().heading, Direction::East);
        // Behind it: only by wingovers. With Dex +2 and clumsy's -4 it cannot make the 180° one (DC 20), so
        // two of 90° (DC 10 each), 12 m lower; failed, it flies on east.
        let back = &all[&Square::new(9, 10)];
        let checks: Vec<(AdvancedManeuver, i32)> = back.flight.checks.iter().map(|c| (c.maneuver, c.dc)).collect();
        assert_eq!(checks, vec![(AdvancedManeuver::Wingover(90), 10); 2], "{:?}", back.steps);
        assert!((back.chance - 0.45 * 0.45).abs() < 1e-6 && back.chance == chance(&clumsy, &back.flight));
        let end = back.flight.waypoints.last().unwrap();
        assert_eq!((end.altitude, end.heading), (2, Direction::West));
        let failed = fly(&clumsy, &back.steps, false, |_, _| false, open).unwrap();
        assert!(failed.waypoints.last().unwrap().square.x > 10);
        // A check it cannot make (DC 10 against -14) is no way anywhere.
        let hopeless = Flier { check_bonus: -10, ..clumsy };
        assert!(flights(&hopeless, &[], None, &open).values().all(|p| p.flight.checks.is_empty()));
        // Too low to lose 6 m, no wingover.
        let low = Flier { altitude: 4, ..clumsy };
        assert!(flights(&low, &[], None, &open).values().all(|p| wingovers(p) == 0));
        // A wall where it would come back down: the wingover's height is checked.
        let wall = |at: Footprint, alt: i32| {
            (at.origin.x < 10 && alt < 8).then(|| Obstacle::Wall(Refusal::new("a cliff", "000:60")))
        };
        assert!(!flights(&clumsy, &[], None, &wall).contains_key(&Square::new(9, 10)));
    }
}
