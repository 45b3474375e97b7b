//! Grid geometry: squares of 1.5 m, the eight directions, distances with the 1-2-1-2 diagonal count,
//! footprints of creatures that fill several squares, and lines between square corners.
//!
//! Coordinates: `x` grows to the east, `y` grows to the south (the order in which a level file's rows
//! are written). Squares are signed so that geometry outside the map is still well defined.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Side of a square in metres: "des zones carrées de 1,50 mètre de coté" (000:5).
pub const SQUARE_METRES: f32 = 1.5;

/// Converts a number of squares to metres.
pub fn squares_to_metres(squares: u32) -> f32 {
    squares as f32 * SQUARE_METRES
}

/// One square of the grid. Written `(x, y)` in levels and scenarios, `[x, y]` in the event log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "(i32, i32)", into = "(i32, i32)")]
pub struct Square {
    /// Column, growing to the east.
    pub x: i32,
    /// Row, growing to the south.
    pub y: i32,
}

impl Square {
    /// The square at column `x`, row `y`.
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }

    /// The neighbour in `direction`.
    pub fn step(self, direction: Direction) -> Self {
        let (dx, dy) = direction.delta();
        Self::new(self.x + dx, self.y + dy)
    }

    /// Offsets this square by `dx`, `dy`.
    #[inline]
    pub fn offset(self, dx: i32, dy: i32) -> Self {
        Self::new(self.x + dx, self.y + dy)
    }

    /// The direction of a single step from `self` to `to`, if they are neighbours.
    pub fn direction_to(self, to: Square) -> Option<Direction> {
        Direction::from_delta(to.x.checked_sub(self.x)?, to.y.checked_sub(self.y)?)
    }
}

impl From<(i32, i32)> for Square {
    fn from((x, y): (i32, i32)) -> Self {
        Square { x, y }
    }
}

impl From<Square> for (i32, i32) {
    fn from(square: Square) -> Self {
        (square.x, square.y)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}

/// The eight directions of movement and heading, clockwise from north.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    /// Towards smaller `y`.
    North,
    /// North-east.
    NorthEast,
    /// Towards larger `x`.
    East,
    /// South-east.
    SouthEast,
    /// Towards larger `y`.
    South,
    /// South-west.
    SouthWest,
    /// Towards smaller `x`.
    West,
    /// North-west.
    NorthWest,
}

impl Direction {
    /// All eight, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// The change of `x` and `y` of one step.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::North => (0, -1),
            Direction::NorthEast => (1, -1),
            Direction::East => (1, 0),
            Direction::SouthEast => (1, 1),
            Direction::South => (0, 1),
            Direction::SouthWest => (-1, 1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (-1, -1),
        }
    }

    /// The heading straight behind.
    pub fn opposite(self) -> Self {
        let (dx, dy) = self.delta();
        Direction::from_delta(-dx, -dy).expect("every heading has an opposite")
    }

    /// The direction of a single step `dx`, `dy` (each -1, 0 or 1, not both 0).
    pub fn from_delta(dx: i32, dy: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.delta() == (dx, dy))
    }

    /// Whether a step this way is diagonal.
    pub const fn is_diagonal(self) -> bool {
        let (dx, dy) = self.delta();
        dx != 0 && dy != 0
    }

    /// Index 0..8 clockwise from north.
    pub const fn index(self) -> usize {
        match self {
            Direction::North => 0,
            Direction::NorthEast => 1,
            Direction::East => 2,
            Direction::SouthEast => 3,
            Direction::South => 4,
            Direction::SouthWest => 5,
            Direction::West => 6,
            Direction::NorthWest => 7,
        }
    }

    /// Turned clockwise by `eighths` of a full turn (45° each); negative turns anticlockwise.
    pub fn turned(self, eighths: i32) -> Self {
        Self::ALL[(self.index() as i32 + eighths).rem_euclid(8) as usize]
    }

    /// The smallest number of 45° turns between two headings (0..=4).
    pub fn turns_between(self, other: Direction) -> u32 {
        let d = (other.index() as i32 - self.index() as i32).rem_euclid(8);
        d.min(8 - d) as u32
    }
}

/// How diagonals count on the grid: 1-2-1-2 as the text has it, "la première diagonale compte pour une
/// case, la seconde compte pour deux cases" (000:59-61), or every diagonal one square, the house rule many
/// tables play (a level's `house_rules: (diagonals: Single)`). Every distance, step cost, reach, range and
/// area asks here, so that the rules, the previews, the AI and the simulator count alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Diagonals {
    /// 1, 2, 1, 2 (000:59-61).
    #[default]
    Alternating,
    /// Every diagonal one square (house rule).
    Single,
}

impl Diagonals {
    /// Squares counted for a gap of (`dx`, `dy`) squares: 1-2-1-2, the longer leg plus half the shorter;
    /// or, every diagonal one square, the longer leg alone.
    pub fn squares(self, dx: i32, dy: i32) -> u32 {
        let (a, b) = (dx.unsigned_abs(), dy.unsigned_abs());
        let (long, short) = (a.max(b), a.min(b));
        match self {
            Diagonals::Alternating => long + short / 2,
            Diagonals::Single => long,
        }
    }

    /// Squares between two single squares.
    pub fn between(self, a: Square, b: Square) -> u32 {
        self.squares(b.x - a.x, b.y - a.y)
    }

    /// Squares one more diagonal costs after `odd_taken` (an odd number of diagonals so far), and the
    /// alternation after it: 1 then 2 (000:61), or always 1.
    #[inline]
    pub fn next_diagonal(self, odd_taken: bool) -> (u32, bool) {
        match self {
            Diagonals::Alternating => (if odd_taken { 2 } else { 1 }, !odd_taken),
            Diagonals::Single => (1, odd_taken),
        }
    }

    /// The distance in 3-D from its horizontal and vertical legs: the longer plus half the shorter
    /// (004:783, the diagonal rule in the air), or the longer alone when every diagonal is one square
    /// (our ruling: the house rule counts the air's diagonals as the ground's).
    pub fn distance_3d(self, horizontal: f32, vertical: f32) -> f32 {
        let (long, short) = if horizontal >= vertical { (horizontal, vertical) } else { (vertical, horizontal) };
        match self {
            Diagonals::Alternating => long + short / 2.0,
            Diagonals::Single => long,
        }
    }
}

/// The squares a creature covers: a `width` x `height` block whose north-west square is `origin`.
/// Creatures smaller than a square still sit in one square, sharing it (000:148-151); a squeezing
/// creature covers a narrower block (000:115-118).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Footprint {
    /// North-west square.
    pub origin: Square,
    /// Squares from west to east.
    pub width: i32,
    /// Squares from north to south.
    pub height: i32,
}

impl Footprint {
    /// A square block of `side` squares from `origin`.
    pub const fn new(origin: Square, side: i32) -> Self {
        Self { origin, width: side, height: side }
    }

    /// A block of `width` x `height` squares from `origin`.
    #[inline]
    pub const fn rect(origin: Square, width: i32, height: i32) -> Self {
        Self { origin, width, height }
    }

    /// Every square covered, row by row.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let Footprint { origin, width, height } = self;
        (0..height).flat_map(move |dy| (0..width).map(move |dx| origin.offset(dx, dy)))
    }

    /// Whether `square` is covered.
    pub fn contains(self, square: Square) -> bool {
        square.x >= self.origin.x
            && square.y >= self.origin.y
            && square.x < self.origin.x + self.width
            && square.y < self.origin.y + self.height
    }

    /// Whether two footprints share a square.
    pub fn overlaps(self, other: Footprint) -> bool {
        self.origin.x < other.origin.x + other.width
            && other.origin.x < self.origin.x + self.width
            && self.origin.y < other.origin.y + other.height
            && other.origin.y < self.origin.y + self.height
    }

    /// The same footprint moved to a new origin.
    #[inline]
    pub fn at(self, origin: Square) -> Self {
        Self { origin, ..self }
    }

    /// The steps between the nearest squares of two footprints, per axis: 0 when they overlap on that
    /// axis, 1 when adjacent.
    pub fn gaps(self, other: Footprint) -> (u32, u32) {
        let gap = |a0: i32, a_len: i32, b0: i32, b_len: i32| {
            if b0 >= a0 + a_len {
                (b0 - (a0 + a_len - 1)) as u32
            } else if a0 >= b0 + b_len {
                (a0 - (b0 + b_len - 1)) as u32
            } else {
                0
            }
        };
        (
            gap(self.origin.x, self.width, other.origin.x, other.width),
            gap(self.origin.y, self.height, other.origin.y, other.height),
        )
    }

    /// Squares between the nearest squares of two footprints, with the table's diagonal count: what
    /// "distance between two creatures" and reach measure.
    pub fn distance_to(self, other: Footprint, diagonals: Diagonals) -> u32 {
        let (dx, dy) = self.gaps(other);
        diagonals.squares(dx as i32, dy as i32)
    }

    /// Squares from this footprint to one square.
    pub fn distance_to_square(self, square: Square, diagonals: Diagonals) -> u32 {
        self.distance_to(Footprint::new(square, 1), diagonals)
    }

    /// Whether the two are side by side or corner to corner, sharing no square: one square apart
    /// whichever way diagonals count.
    pub fn adjacent_to(self, other: Footprint) -> bool {
        let (dx, dy) = self.gaps(other);
        dx.max(dy) == 1
    }

    /// Whether the two share a square or are adjacent.
    pub fn touches(self, other: Footprint) -> bool {
        let (dx, dy) = self.gaps(other);
        dx.max(dy) <= 1
    }
}

/// A corner of a square: the point at the north-west of square (`x`, `y`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Corner {
    /// Grid line counted from the west.
    pub x: i32,
    /// Grid line counted from the north.
    pub y: i32,
}

impl Corner {
    /// The four corners of a square.
    pub fn of(square: Square) -> [Corner; 4] {
        let (x, y) = (square.x, square.y);
        [Corner { x, y }, Corner { x: x + 1, y }, Corner { x, y: y + 1 }, Corner { x: x + 1, y: y + 1 }]
    }
}

/// An edge between two orthogonally adjacent squares, stored from the square on its north or west.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    /// The square north or west of the edge.
    pub square: Square,
    /// `true`: the edge on the east of `square`; `false`: on its south.
    pub east: bool,
}

impl Edge {
    /// The edge crossed by an orthogonal step from `from` in `direction`; `None` for a diagonal.
    pub fn crossed(from: Square, direction: Direction) -> Option<Edge> {
        match direction {
            Direction::East => Some(Edge { square: from, east: true }),
            Direction::West => Some(Edge { square: from.step(Direction::West), east: true }),
            Direction::South => Some(Edge { square: from, east: false }),
            Direction::North => Some(Edge { square: from.step(Direction::North), east: false }),
            _ => None,
        }
    }

    /// The edge on `side` of `square` (any of the four orthogonal directions).
    pub fn of_side(square: Square, side: Direction) -> Option<Edge> {
        Self::crossed(square, side)
    }

    /// The two squares this edge separates.
    pub fn squares(self) -> (Square, Square) {
        let other = if self.east { self.square.step(Direction::East) } else { self.square.step(Direction::South) };
        (self.square, other)
    }

    /// The two corners at the ends of this edge.
    pub fn ends(self) -> (Corner, Corner) {
        let Square { x, y } = self.square;
        if self.east {
            (Corner { x: x + 1, y }, Corner { x: x + 1, y: y + 1 })
        } else {
            (Corner { x, y: y + 1 }, Corner { x: x + 1, y: y + 1 })
        }
    }
}

/// What a straight line between two corners passes through: the squares whose inside it crosses and
/// the edges it runs along or crosses. Cover and charge lanes are judged on these (004:398-416).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTrace {
    /// Squares whose interior the line crosses, from start to end.
    pub squares: Vec<Square>,
    /// Edges crossed through their middle, from start to end.
    pub crossed_edges: Vec<Edge>,
    /// Edges the line runs along (it touches them without entering either square).
    pub along_edges: Vec<Edge>,
    /// Square corners the line passes through between its ends, with the two squares it slips between
    /// there (the pair of squares touching the corner that the line does not enter).
    pub corners_passed: Vec<(Corner, [Square; 2])>,
    /// Square corners a line along a grid line passes through between its ends: a wall edge touching one
    /// of them stands across the line or ends on it.
    pub corners_along: Vec<Corner>,
    /// Where a line leaves its first square or reaches its last along a grid line from a corner of it: the
    /// two edges of the grid line across it that meet at that corner; a wall on both stands across the line.
    pub crossed_at_corners: Vec<[Edge; 2]>,
}

/// Where a segment of `dx` across and `dy` down meets the grid lines, as parameters `k / n` along it (`n` =
/// |dx| |dy|, each at least 1), from 0 to `n`, rising, once each: the vertical lines' parameters and the
/// horizontal ones', each rising already, merged.
fn grid_cuts(dx: i64, dy: i64) -> Vec<i64> {
    let (ax, ay) = (dx.abs(), dy.abs());
    let n = ax.max(1) * ay.max(1);
    let mut cuts: Vec<i64> = Vec::with_capacity((ax + ay + 1) as usize);
    cuts.push(0);
    let (mut i, mut j) = (1, 1);
    while i < ax || j < ay {
        let across = if i < ax { i * n / ax } else { i64::MAX };
        let down = if j < ay { j * n / ay } else { i64::MAX };
        let t = across.min(down);
        i += i64::from(across == t);
        j += i64::from(down == t);
        cuts.push(t);
    }
    cuts.push(n);
    cuts
}

/// Traces the segment between two corners. Exact: corners are integer points, so every crossing is a
/// rational parameter computed without rounding.
pub fn trace_line(from: Corner, to: Corner) -> LineTrace {
    let (dx, dy) = ((to.x - from.x) as i64, (to.y - from.y) as i64);
    let mut trace = LineTrace::default();
    if dx == 0 && dy == 0 {
        return trace;
    }
    // Parameters t = k / n (n = the common denominator) where the segment meets a grid line.
    let n = (dx.abs().max(1)) * (dy.abs().max(1));
    let cuts = grid_cuts(dx, dy);
    for &t in &cuts[1..cuts.len() - 1] {
        let (px, py) = (n * from.x as i64 + dx * t, n * from.y as i64 + dy * t);
        if px % n == 0 && py % n == 0 && dx != 0 && dy != 0 {
            let corner = Corner { x: (px / n) as i32, y: (py / n) as i32 };
            let (x, y) = (corner.x, corner.y);
            let sides = if (dx > 0) == (dy > 0) {
                [Square::new(x, y - 1), Square::new(x - 1, y)]
            } else {
                [Square::new(x - 1, y - 1), Square::new(x, y)]
            };
            trace.corners_passed.push((corner, sides));
        } else if px % n == 0 && py % n == 0 {
            trace.corners_along.push(Corner { x: (px / n) as i32, y: (py / n) as i32 });
        }
    }
    // Each piece between two cuts lies in one square or along one edge; look at its midpoint, scaled by 2n
    // so that it is an integer point.
    for pair in cuts.windows(2) {
        let mid = pair[0] + pair[1];
        let px = 2 * n * from.x as i64 + dx * mid;
        let py = 2 * n * from.y as i64 + dy * mid;
        let scale = 2 * n;
        let on_vertical = px.rem_euclid(scale) == 0;
        let on_horizontal = py.rem_euclid(scale) == 0;
        let cx = px.div_euclid(scale) as i32;
        let cy = py.div_euclid(scale) as i32;
        match (on_vertical, on_horizontal) {
            (false, false) => {
                let square = Square::new(cx, cy);
                if let Some(&last) = trace.squares.last()
                    && let Some(direction) = last.direction_to(square)
                    && let Some(edge) = Edge::crossed(last, direction)
                {
                    trace.crossed_edges.push(edge);
                }
                if trace.squares.last() != Some(&square) {
                    trace.squares.push(square);
                }
            }
            (true, false) => trace.along_edges.push(Edge { square: Square::new(cx - 1, cy), east: true }),
            (false, true) => trace.along_edges.push(Edge { square: Square::new(cx, cy - 1), east: false }),
            (true, true) => {}
        }
    }
    trace
}

/// [`trace_line`] from corner `from` of square `a` to corner `to` of square `b`, with the way the line leaves
/// `a` and enters `b` at those corners: into a square sharing an edge with it, across that edge; into the
/// square diagonally across, through the corner between the two others; along a grid line that is not its
/// own edge, through the corner. The lines of 004:398 are drawn from the squares' corners, but they leave the
/// attacker's square and reach the target's: a wall along the edge of either stands in the way of the lines
/// drawn from its corners to the far side of it (« passe par … un bord qui bloque la ligne d'effet »).
pub fn trace_between(a: Square, from: Corner, b: Square, to: Corner) -> LineTrace {
    let mut trace = trace_line(from, to);
    let (dx, dy) = ((to.x - from.x).signum(), (to.y - from.y).signum());
    if (dx, dy) == (0, 0) {
        return trace;
    }
    if let Some(way) = way_out(a, from, dx, dy) {
        match way {
            WayOut::Edge(edge) => trace.crossed_edges.insert(0, edge),
            WayOut::Corner(corner, sides) => trace.corners_passed.insert(0, (corner, sides)),
            WayOut::Along(edges) => trace.crossed_at_corners.insert(0, edges),
        }
    }
    if let Some(way) = way_out(b, to, -dx, -dy) {
        match way {
            WayOut::Edge(edge) => trace.crossed_edges.push(edge),
            WayOut::Corner(corner, sides) => trace.corners_passed.push((corner, sides)),
            WayOut::Along(edges) => trace.crossed_at_corners.push(edges),
        }
    }
    trace
}

/// How a line leaving `square` from its `corner` with signs (`dx`, `dy`) gets out of it.
enum WayOut {
    /// Across an edge of the square.
    Edge(Edge),
    /// Through the corner, diagonally, between the two other squares around it.
    Corner(Corner, [Square; 2]),
    /// Along a grid line through the corner, across the grid line of these two edges, which meet there.
    Along([Edge; 2]),
}

/// The way out of `square` of a line drawn from its `corner` with signs (`dx`, `dy`); `None` if the line
/// goes through the square itself or along its own edge.
fn way_out(square: Square, corner: Corner, dx: i32, dy: i32) -> Option<WayOut> {
    if dx != 0 && dy != 0 {
        // The square the line's first piece lies in.
        let first = Square::new(corner.x - i32::from(dx < 0), corner.y - i32::from(dy < 0));
        let (ox, oy) = (first.x - square.x, first.y - square.y);
        return match (ox, oy) {
            (0, 0) => None,
            (0, _) | (_, 0) => Edge::crossed(square, Direction::from_delta(ox, oy)?).map(WayOut::Edge),
            _ => Some(WayOut::Corner(corner, [Square::new(square.x, first.y), Square::new(first.x, square.y)])),
        };
    }
    let next = Corner { x: corner.x + dx, y: corner.y + dy };
    if Corner::of(square).contains(&next) {
        return None;
    }
    let (x, y) = (corner.x, corner.y);
    Some(WayOut::Along(if dx != 0 {
        [Edge { square: Square::new(x - 1, y - 1), east: true }, Edge { square: Square::new(x - 1, y), east: true }]
    } else {
        [Edge { square: Square::new(x - 1, y - 1), east: false }, Edge { square: Square::new(x, y - 1), east: false }]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merged cuts are the plain way's: every parameter of both families, sorted, each once.
    #[test]
    fn grid_cuts_merge_as_sorting_would() {
        for dx in -40..=40_i64 {
            for dy in -40..=40_i64 {
                let n = dx.abs().max(1) * dy.abs().max(1);
                let mut plain: Vec<i64> = vec![0, n];
                plain.extend((1..dx.abs()).map(|k| k * n / dx.abs()));
                plain.extend((1..dy.abs()).map(|k| k * n / dy.abs()));
                plain.sort_unstable();
                plain.dedup();
                assert_eq!(grid_cuts(dx, dy), plain, "dx {dx}, dy {dy}");
            }
        }
    }

    #[test]
    fn diagonals_count_one_two_one_two() {
        let d = Diagonals::Alternating;
        assert_eq!(d.squares(1, 1), 1);
        assert_eq!(d.squares(2, 2), 3);
        assert_eq!(d.squares(3, 3), 4);
        assert_eq!(d.squares(4, 4), 6);
        assert_eq!(d.squares(5, 2), 6);
        assert_eq!(d.squares(-6, 0), 6);
        assert_eq!(squares_to_metres(d.squares(2, 2)), 4.5);
        assert_eq!((d.next_diagonal(false), d.next_diagonal(true)), ((1, true), (2, false)));
    }

    #[test]
    fn every_diagonal_one_square_under_the_house_rule() {
        let d = Diagonals::Single;
        assert_eq!(d.squares(1, 1), 1);
        assert_eq!(d.squares(2, 2), 2);
        assert_eq!(d.squares(4, 4), 4);
        assert_eq!(d.squares(5, 2), 5);
        assert_eq!(d.squares(-6, 0), 6);
        assert_eq!((d.next_diagonal(false), d.next_diagonal(true)), ((1, false), (1, true)));
        assert_eq!(d.distance_3d(12.0, 18.0), 18.0);
        assert_eq!(Diagonals::Alternating.distance_3d(12.0, 18.0), 24.0);
        let ogre = Footprint::new(Square::new(0, 0), 2);
        let far = Footprint::new(Square::new(4, 4), 1);
        assert_eq!((ogre.distance_to(far, d), ogre.distance_to(far, Diagonals::Alternating)), (3, 4));
        assert!(ogre.adjacent_to(Footprint::new(Square::new(2, 2), 1)));
        assert!(
            !ogre.adjacent_to(Footprint::new(Square::new(1, 1), 1))
                && ogre.touches(Footprint::new(Square::new(1, 1), 1))
        );
    }

    #[test]
    fn directions_turn_and_step() {
        assert_eq!(Direction::North.turned(1), Direction::NorthEast);
        assert_eq!(Direction::North.turned(-1), Direction::NorthWest);
        assert_eq!(Direction::East.turned(4), Direction::West);
        assert_eq!(Direction::North.turns_between(Direction::SouthWest), 3);
        assert_eq!(Square::new(2, 2).step(Direction::SouthWest), Square::new(1, 3));
        for (i, direction) in Direction::ALL.into_iter().enumerate() {
            assert_eq!(direction.index(), i);
        }
        assert!(Direction::NorthWest.is_diagonal());
        assert!(!Direction::West.is_diagonal());
    }

    #[test]
    fn footprints_measure_between_nearest_squares() {
        let ogre = Footprint::new(Square::new(0, 0), 2);
        let man = Footprint::new(Square::new(3, 0), 1);
        assert_eq!(ogre.distance_to(man, Diagonals::Alternating), 2);
        assert_eq!(
            ogre.distance_to(Footprint::new(Square::new(2, 2), 1), Diagonals::Alternating),
            1,
            "diagonally adjacent"
        );
        assert_eq!(ogre.distance_to(Footprint::new(Square::new(1, 1), 1), Diagonals::Alternating), 0);
        assert!(ogre.contains(Square::new(1, 1)));
        assert!(!ogre.contains(Square::new(2, 1)));
        assert_eq!(ogre.squares().count(), 4);
        assert!(ogre.overlaps(Footprint::new(Square::new(1, 1), 2)));
        assert!(!ogre.overlaps(Footprint::new(Square::new(2, 0), 2)));
    }

    #[test]
    fn edges_between_squares() {
        let e = Edge::crossed(Square::new(3, 3), Direction::West).unwrap();
        assert_eq!(e, Edge { square: Square::new(2, 3), east: true });
        assert_eq!(e.squares(), (Square::new(2, 3), Square::new(3, 3)));
        assert_eq!(Edge::crossed(Square::new(3, 3), Direction::NorthEast), None);
    }

    #[test]
    fn a_straight_line_along_a_row_crosses_each_square() {
        // From the centre line? No: corners. Corner (0,0) to (3,0) runs along the top edges.
        let t = trace_line(Corner { x: 0, y: 0 }, Corner { x: 3, y: 0 });
        assert!(t.squares.is_empty());
        assert_eq!(t.along_edges.len(), 3);
        // Corner (0,0) to (3,1): a shallow line through three squares of row 0.
        let t = trace_line(Corner { x: 0, y: 0 }, Corner { x: 3, y: 1 });
        assert_eq!(t.squares, vec![Square::new(0, 0), Square::new(1, 0), Square::new(2, 0)]);
        assert_eq!(t.crossed_edges.len(), 2);
    }

    #[test]
    fn a_diagonal_line_passes_through_corners_only() {
        let t = trace_line(Corner { x: 0, y: 0 }, Corner { x: 3, y: 3 });
        assert_eq!(t.squares, vec![Square::new(0, 0), Square::new(1, 1), Square::new(2, 2)]);
        assert!(t.crossed_edges.is_empty(), "it goes corner to corner, through no edge's middle");
    }

    #[test]
    fn a_steep_line_crosses_rows() {
        let t = trace_line(Corner { x: 0, y: 0 }, Corner { x: 1, y: 2 });
        assert_eq!(t.squares, vec![Square::new(0, 0), Square::new(0, 1)]);
        assert_eq!(t.crossed_edges, vec![Edge { square: Square::new(0, 0), east: false }]);
    }
}
