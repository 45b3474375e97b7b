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
use crate::rules::core::geometry::{Diagonals, Direction, Footprint, Square};
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
    pub(super) fn eighths(self, n: i32) -> i32 {
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
    /// The heading chosen anew, as the flight's first step, by a flier that has just recovered from a free
    /// fall or a stall (« elle décide de nouveau de son statut et de son cap », 004:763) or has just taken
    /// off (on the ground it turned as it liked, 004:671): no movement and no manoeuvre.
    Face(Direction),
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
        !matches!(self, FlightStep::Forward | FlightStep::Face(_))
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
    pub(super) fn entered(self, scale: Scale, from: Footprint, heading: Direction) -> impl Iterator<Item = Footprint> {
        let (ahead, aside) = self.movement(scale);
        let ahead = ahead as i32;
        let (dx, dy) = heading.delta();
        let slip = aside.map_or((0, 0), |side| heading.turned(side.eighths(2)).delta());
        let drop = matches!(self, FlightStep::Wingover { .. }).then_some(from);
        // On a diagonal heading the slip's last square is two columns (or rows) away: the flier passes the
        // square ahead first, so walls and bodies there stop it too (000:106-107).
        let through = heading.is_diagonal() && slip != (0, 0);
        let at = move |n: i32, (sx, sy): (i32, i32)| {
            Footprint::rect(from.origin.offset(dx * n + sx, dy * n + sy), from.width, from.height)
        };
        drop.into_iter().chain((1..=ahead).flat_map(move |n| {
            let last = n == ahead;
            let passed = (last && through).then(|| at(n, (0, 0)));
            passed.into_iter().chain(std::iter::once(at(n, if last { slip } else { (0, 0) })))
        }))
    }

    /// The heading after it, the manoeuvre made or failed (004:745, 004:766-780).
    pub(super) fn heading_after(self, heading: Direction, made: bool) -> Direction {
        match self {
            FlightStep::Turn(side) => heading.turned(side.eighths(1)),
            FlightStep::TightTurn { side, .. } if made => heading.turned(side.eighths(1)),
            FlightStep::HardTurn(side) => heading.turned(side.eighths(if made { 2 } else { 1 })),
            FlightStep::Wingover { side, degrees } if made => heading.turned(side.eighths(i32::from(degrees / 45))),
            FlightStep::Face(chosen) => chosen,
            _ => heading,
        }
    }

    /// The altitude it gains, in 1.5 m steps or bands: a wingover loses 6 m, made or not (004:778).
    pub(super) fn rise(self, scale: Scale) -> i32 {
        match self {
            FlightStep::Climb => 1,
            FlightStep::Dive { .. } => -1,
            FlightStep::Wingover { .. } => -scale.wingover_drop(),
            _ => 0,
        }
    }

    /// Whether it starts the count of squares flown since a turn again: turns, slips and wingovers.
    pub(super) fn resets_count(self) -> bool {
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
    /// How the table counts diagonals: 1-2-1-2 (000:61), or each one square.
    pub diagonals: Diagonals,
    /// Its fly checks' bonus before the table's modifiers: its Dex modifier, or its rider's Ride when better
    /// (004:734, 004:811). The planner weighs flights with checks by it.
    pub check_bonus: i32,
    /// An odd number of plain diagonals already taken this turn, on foot or flying: the 1-2-1-2 count runs
    /// over the whole turn (004:712, RULES-INDEX).
    pub odd_diagonal: bool,
    /// The flight is a dive attack or a swoop (004:751-753): its dives are the descent that advanced
    /// manoeuvre is made of (« chutant d'au moins 6 mètres au passage »), not manoeuvres of their own (our
    /// ruling: counted, they would leave the fast row's dive attack, 004:693, to perfect fliers alone).
    pub attack_descent: bool,
    /// The squares flown since its last manoeuvre (`since_maneuver`) count from a turn, a slip or a
    /// wingover: until the factor is flown, a climb or a dive waits too (004:745).
    pub after_turn: bool,
    /// It may choose its heading anew before it flies: it has just recovered from a fall (004:763) or taken
    /// off (004:671).
    pub heading_free: bool,
    /// The flight is a deceleration (004:760): under half its speed, its status stays slow.
    pub decelerating: bool,
    /// Manoeuvres already spent this turn: a recovery at its start is an advanced manoeuvre, two of them
    /// (004:750, 004:763).
    pub maneuvers_spent: u32,
}

impl Flier {
    /// The row of the tables (manoeuvres, 004:716-732; fly checks, 004:735-743) a flight of `status` is read
    /// on: a deceleration's is the slow row, « son statut reste lent » (004:760).
    pub fn row(&self, status: SpeedStatus) -> SpeedStatus {
        if self.decelerating && status == SpeedStatus::Stall { SpeedStatus::Slow } else { status }
    }

    /// Whether `step` counts against the round's manoeuvres (004:713-715): every manoeuvre, but the dives of
    /// a dive attack or a swoop.
    pub fn counts(&self, step: FlightStep) -> bool {
        step.is_maneuver() && !(self.attack_descent && matches!(step, FlightStep::Dive { .. }))
    }
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
    /// A wall: the flight cannot go there, and one sent there strikes it (004:825).
    Wall(Refusal),
    /// The map's edge, or a chase square a Colossal creature holds: the flight cannot go there, and one sent
    /// there stops, nothing struck.
    Edge(Refusal),
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
    /// The row of the tables it is read on: its status's, the slow row for a deceleration (004:760).
    #[serde(skip)]
    pub row: SpeedStatus,
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
    /// Whether an odd number of plain diagonals has been taken this turn once it is flown (004:712).
    #[serde(skip)]
    pub odd_diagonal: bool,
    /// The squares of movement declared, its speed for the round (004:686) even when a collision stops it
    /// short (004:827).
    #[serde(skip)]
    pub declared: u32,
    /// Where a failed advanced manoeuvre sent it into a wall or the map's edge: the step, and whether it
    /// struck something (a wall: a collision with an object, 004:825, 004:847 « Objet ... x1 »). The
    /// flight stops before it.
    #[serde(skip)]
    pub wall: Option<(usize, bool)>,
    /// The count of squares since a manoeuvre, at the end, began at a turn, a slip or a wingover: until the
    /// factor is flown, a climb or a dive waits too (004:745).
    #[serde(skip)]
    pub after_turn: bool,
}

/// Half-squares of movement one step costs, before any check (a failed manoeuvre costs what it tried).
/// `diagonal_odd` is the 1-2-1-2 alternation of diagonals so far (000:61), as the table counts them
/// (`flier.diagonals`). At chase scale `band` is the
/// flight's change of band: climbing one, each square entered costs 2; diving one, half a square
/// (004:749); the climb or the dive itself costs nothing more.
pub(super) fn step_halves(
    step: FlightStep,
    heading: Direction,
    perfect: bool,
    (diagonals, diagonal_odd): (Diagonals, &mut bool),
    scale: Scale,
    band: i32,
) -> u32 {
    let mut ahead = || {
        let squares = if heading.is_diagonal() {
            let (squares, odd) = diagonals.next_diagonal(*diagonal_odd);
            *diagonal_odd = odd;
            squares
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
        (FlightStep::Face(_), _) => 0,
    }
}

/// Half-squares of movement for `squares` flown ahead: 2 each; at chase scale 4 when the flight climbs a
/// band, 1 when it dives one (004:749).
pub(super) fn ahead_halves(squares: u32, scale: Scale, band: i32) -> u32 {
    match (scale, band.signum()) {
        (Scale::Chase, 1) => 4 * squares,
        (Scale::Chase, -1) => squares,
        _ => 2 * squares,
    }
}

/// Whole squares of movement for `halves` half-squares: a half square counts as a whole one.
pub(super) fn whole(halves: u32) -> u32 {
    halves.div_ceil(2)
}

/// The change of band a chase-scale flight makes by its climb or dive, which must come before it enters
/// any square, one band at most (our ruling on 004:749); 0 at normal scale.
pub(super) fn band_change(scale: Scale, steps: &[FlightStep]) -> Result<i32, Refusal> {
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
#[expect(
    clippy::too_many_lines,
    reason = "a flight step by step: one loop over its steps with the manoeuvre rules of 004:744-780"
)]
pub fn fly(
    flier: &Flier,
    steps: &[FlightStep],
    hover: bool,
    mut check: impl FnMut(AdvancedManeuver, i32) -> bool,
    obstacle: impl Fn(Footprint, Footprint, i32) -> Option<Obstacle>,
) -> Result<Flight, Refusal> {
    // The distance declared is what the flight costs; it sets the status, and the status the manoeuvres.
    let perfect = flier.maneuverability == Maneuverability::Perfect || hover;
    let scale = flier.scale;
    let band = band_change(scale, steps)?;
    let mut odd = flier.odd_diagonal;
    let mut heading = flier.heading;
    let mut planned_halves = 0;
    for step in steps {
        planned_halves += step_halves(*step, heading, perfect, (flier.diagonals, &mut odd), scale, band);
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
    let (limit, factor) = match maneuvers(flier.row(status), flier.maneuverability, scale) {
        _ if free => (u32::MAX, 0),
        Maneuvers::Unlimited => (u32::MAX, 0),
        Maneuvers::None => (0, 0),
        Maneuvers::Limited { per_round, factor } => (per_round, scale.factor_squares(factor)),
    };
    let mut flight = Flight {
        waypoints: Vec::new(),
        spent: 0,
        status,
        row: flier.row(status),
        maneuvers: flier.maneuvers_spent,
        checks: Vec::new(),
        since_maneuver: flier.since_maneuver,
        collision: None,
        skipped: Vec::new(),
        odd_diagonal: odd,
        declared: planned,
        after_turn: flier.after_turn,
        wall: None,
    };
    let (mut at, mut altitude, mut heading) = (flier.at, flier.altitude, flier.heading);
    let mut odd = flier.odd_diagonal;
    let mut advanced_open = true;
    let mut spent_halves = 0;
    for (i, step) in steps.iter().copied().enumerate() {
        if let FlightStep::Face(_) = step
            && (i > 0 || !flier.heading_free)
        {
            return Err(Refusal::new(
                format!(
                    "step {}: a flier chooses its heading anew only first, just after a recovery or a take-off; \
                     otherwise it turns by manoeuvres",
                    i + 1
                ),
                "004:673, 004:763",
            ));
        }
        // After a failed advanced manoeuvre no other is attempted this turn (004:749).
        if step.advanced().is_some() && !advanced_open {
            flight.skipped.push(i);
            continue;
        }
        let cost = step_halves(step, heading, perfect, (flier.diagonals, &mut odd), scale, band);
        if flier.counts(step) && !free {
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
        // After a turn or a slip, a climb, a dive or a wingover waits for the factor too: « La créature
        // doit avancer ... avant de pouvoir effectuer une nouvelle manœuvre » (004:745-746), whatever that
        // manoeuvre; only after a climb or a dive is the next manoeuvre free of it (004:747-748).
        let waits = matches!(step, FlightStep::Climb | FlightStep::Dive { .. } | FlightStep::Wingover { .. });
        if waits && flier.counts(step) && flight.after_turn && !free && flight.since_maneuver < factor {
            return Err(Refusal::new(
                format!(
                    "step {}: after a turn it must fly {factor} squares before another manoeuvre, and has flown {}",
                    i + 1,
                    flight.since_maneuver
                ),
                "004:745",
            ));
        }
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
            // A perfect flier needs no check « car elles virent quand elles le souhaitent » (004:769, 004:773),
            // but not at top speed, where the table limits it too (004:731): there it checks as others do.
            if !free {
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
            match obstacle(at, next, altitude) {
                // A flight declared into a wall is refused; one a failed manoeuvre sends there strikes it
                // (004:825 « heurte ... un objet »).
                Some(obstacle @ (Obstacle::Wall(_) | Obstacle::Edge(_)))
                    if flight.checks.iter().any(|c| !c.success) =>
                {
                    flight.wall = Some((i, matches!(obstacle, Obstacle::Wall(_))));
                    flight.spent = whole(spent_halves + cost);
                    flight.odd_diagonal = odd;
                    let last =
                        flight.waypoints.last().map_or((flier.at.origin, flier.altitude), |w| (w.square, w.altitude));
                    if last != (at.origin, altitude) {
                        flight.waypoints.push(Waypoint {
                            square: at.origin,
                            altitude,
                            heading,
                            spent: flight.spent,
                            step: i,
                        });
                    }
                    return Ok(flight);
                }
                Some(Obstacle::Wall(refusal) | Obstacle::Edge(refusal)) => {
                    return Err(Refusal::new(format!("step {}: {}", i + 1, refusal.reason), refusal.rule));
                }
                Some(Obstacle::Creature(id)) => {
                    flight.collision = Some((i, id));
                    flight.spent = whole(spent_halves + cost);
                    flight.odd_diagonal = odd;
                    return Ok(flight);
                }
                None => at = next,
            }
            flight.since_maneuver += 1;
        }
        if step.resets_count() {
            flight.since_maneuver = 0;
            flight.after_turn = true;
        }
        spent_halves += cost;
        flight.spent = whole(spent_halves);
        flight.waypoints.push(Waypoint { square: at.origin, altitude, heading, spent: flight.spent, step: i });
    }
    flight.odd_diagonal = odd;
    Ok(flight)
}

/// The chance that `flier` makes every fly check of `flight` (004:734-743): a d20 plus its bonus and the
/// table's modifiers for its manoeuvrability and the flight's status, against each DC.
pub fn chance(flier: &Flier, flight: &Flight) -> f32 {
    let bonus = flier.check_bonus + super::fly_check_modifier(flier.maneuverability, flight.row);
    flight.checks.iter().map(|c| ((21 + bonus - c.dc) as f32 / 20.0).clamp(0.0, 1.0)).product()
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

    fn open(_: Footprint, _: Footprint, _: i32) -> Option<Obstacle> {
        None
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
    fn a_sideslip_keeps_the_heading_and_walls_stop_the_flight() {
        let griffon = flier(Maneuverability::Average, 24.0);
        let plan = [Forward, Sideslip(Side::Right), Forward, Forward, Forward, Forward, Forward];
        let f = fly(&griffon, &plan, false, succeed, open).unwrap();
        assert_eq!(f.waypoints[1].square, Square::new(12, 11));
        assert_eq!(f.waypoints[1].heading, Direction::East);
        assert_eq!(f.spent, 1 + 3 + 5);
        let wall = |_: Footprint, at: Footprint, _| {
            (at.origin.x >= 13).then(|| Obstacle::Wall(Refusal::new("a wall", "000:60")))
        };
        assert!(fly(&griffon, &[Forward; 8], false, succeed, wall).is_err());
        let dragon = |_: Footprint, at: Footprint, alt: i32| {
            (at.origin.x == 12 && alt == 10).then(|| Obstacle::Creature("dragon".into()))
        };
        let f = fly(&griffon, &[Forward; 8], false, succeed, dragon).unwrap();
        assert_eq!(f.collision, Some((1, "dragon".into())));
        assert_eq!(f.waypoints.last().unwrap().square, Square::new(11, 10), "it stops before the dragon");
    }
}
