//! The cost and legality of single steps: terrain, obstacles, walls, corners and other creatures
//! (000:58-144, 002:51-130, RULES-INDEX rulings). Pure: plain values in, plain values out.

use serde::Serialize;

use crate::rules::core::battlefield::{Battlefield, EdgeFeature, Terrain};
use crate::rules::core::geometry::{Corner, Diagonals, Direction, Footprint, Square};
use crate::rules::core::size::Size;
use crate::rules::core::water;

/// How a creature moves this time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Medium {
    /// On foot.
    #[default]
    Land,
    /// Flying: ignores difficult terrain and hindering obstacles, not blocking ones (000:98, 000:108-109).
    Fly,
}

/// The moving creature, as the step rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mover {
    /// Its size.
    pub size: Size,
    /// How it moves.
    pub medium: Medium,
    /// Incorporeal: ignores terrain and obstacles, walls included (000:108).
    pub incorporeal: bool,
    /// Sees in the dark: darkness does not hamper it (our ruling).
    pub darkvision: bool,
    /// Swims at its speed (a swim speed, or freedom of movement): water does not slow it (004:641-642).
    pub swims: bool,
    /// Charging: may not pass through allies (000:67-68).
    pub charging: bool,
    /// May move through foes' squares without stopping: the hook that tumbling and overrun (special
    /// attacks) set for the path they allow (000:76-79).
    pub passes_foes: bool,
    /// The width in squares it can squeeze to (000:110-123): half its space, rounded up, or one less
    /// with Escape Artist; 0 when it cannot squeeze on the grid (one square or less).
    pub squeeze: i32,
    /// Tumbling (000:78-79): at half speed, every square counting double (the d20 Tumble rule).
    pub tumbling: bool,
    /// Blinded: it sees no better than in darkness (« Mauvaise visibilité », 003:41), every square hampering
    /// it as darkness does, darkvision or not (our ruling, docs/rulings.md).
    pub blinded: bool,
}

impl Mover {
    /// A Medium walker with no special ability.
    pub const fn walker(size: Size) -> Self {
        Mover {
            size,
            medium: Medium::Land,
            incorporeal: false,
            darkvision: false,
            swims: false,
            charging: false,
            passes_foes: false,
            squeeze: squeeze_width(size, false),
            tumbling: false,
            blinded: false,
        }
    }

    /// The spaces it may take, full first: its size's block, then squeezed across x and across y.
    pub fn shapes(&self) -> Vec<(i32, i32)> {
        let side = self.side();
        let mut shapes = vec![(side, side)];
        if self.squeeze > 0 && self.squeeze < side {
            shapes.push((self.squeeze, side));
            shapes.push((side, self.squeeze));
        }
        shapes
    }

    /// Side of its footprint in squares.
    pub const fn side(&self) -> i32 {
        self.size.side_squares()
    }
}

/// The width a creature of `size` squeezes to: at least half its space (000:111-112), rounded up to
/// whole squares; narrower by one with Escape Artist (000:121-123); 0 for creatures of one square or less.
pub const fn squeeze_width(size: Size, escape_artist: bool) -> i32 {
    let side = size.side_squares();
    if side < 2 {
        return 0;
    }
    let half = (side + 1) / 2;
    if escape_artist && half > 1 { half - 1 } else { half }
}

/// Another creature on the map, as the mover sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupant {
    /// Squares it covers.
    pub footprint: Footprint,
    /// Its size.
    pub size: Size,
    /// On the mover's side.
    pub ally: bool,
    /// Helpless: foes may pass and stop (000:70-75).
    pub helpless: bool,
    /// Still an obstacle when helpless: crossing costs double (000:72-73).
    pub obstructs_when_helpless: bool,
    /// Fills its space: nothing passes (000:89-90).
    pub fills_space: bool,
}

/// Why a step or a stop is not allowed, with the rule that forbids it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Blocked {
    /// Off the map.
    OffMap {
        /// The square.
        square: Square,
    },
    /// A wall square or wall edge.
    Wall {
        /// Where.
        square: Square,
    },
    /// A pit: no path enters or crosses it.
    Pit {
        /// Where.
        square: Square,
    },
    /// A diagonal step cutting a wall corner (000:61).
    CutsCorner {
        /// The square left.
        from: Square,
        /// The square aimed at.
        to: Square,
    },
    /// A foe's space (000:70-71).
    Foe {
        /// The square.
        square: Square,
    },
    /// An ally's space while charging (000:67-68).
    AllyWhileCharging {
        /// The square.
        square: Square,
    },
    /// A creature that fills its space (000:89-90).
    FillsSpace {
        /// The square.
        square: Square,
    },
    /// Deep water a withdrawal would swim without a swim speed (004:245).
    Swum {
        /// The square.
        square: Square,
    },
    /// A hampered square where running, charging and the 5-foot step may not go (000:94-95, 004:250,
    /// 004:261).
    Hampered {
        /// The square.
        square: Square,
        /// What hampers it there ([`StepWorld::hampered_by`]).
        by: &'static str,
    },
    /// Ending in an occupied space (000:74-75), or on an obstacle that must be crossed (000:101-105).
    CannotStop {
        /// The square.
        square: Square,
        /// What is there.
        what: String,
        /// The rule that forbids it.
        rule: &'static str,
    },
}

impl Blocked {
    /// The rule text behind the refusal, `file:line`.
    pub fn rule(&self) -> &'static str {
        match self {
            Blocked::OffMap { .. } => "level bounds",
            Blocked::Wall { .. } => "000:106-107",
            Blocked::Pit { .. } => "002:58, RULES-INDEX",
            Blocked::CutsCorner { .. } => "000:61",
            Blocked::Foe { .. } => "000:70-71",
            Blocked::AllyWhileCharging { .. } => "000:67-68, 004:453",
            Blocked::FillsSpace { .. } => "000:89-90",
            Blocked::Hampered { .. } => "000:94-95, 004:250, 004:261",
            Blocked::Swum { .. } => "004:245",
            Blocked::CannotStop { rule, .. } => rule,
        }
    }
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Blocked::OffMap { square } => write!(f, "{square} is off the map"),
            Blocked::Wall { square } => write!(f, "a wall blocks {square}"),
            Blocked::Pit { square } => write!(f, "{square} is a pit"),
            Blocked::CutsCorner { from, to } => write!(f, "the step {from} to {to} would cut a wall corner"),
            Blocked::Foe { square } => write!(f, "a foe who is not helpless stands in {square}"),
            Blocked::AllyWhileCharging { square } => {
                write!(f, "an ally stands in {square} and a charge cannot pass allies")
            }
            Blocked::FillsSpace { square } => write!(f, "a creature that fills its space is in {square}"),
            Blocked::Hampered { square, by } => {
                write!(f, "{square} is hampered by {by}: no running, charging or 5-foot step there")
            }
            Blocked::Swum { square } => {
                write!(f, "{square} is deep water: one withdraws only by a form of movement one has a speed for")
            }
            Blocked::CannotStop { square, what, .. } => write!(f, "cannot end the move in {square}: {what}"),
        }
    }
}

/// The terms of one step's cost, before the diagonal count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Hampering {
    /// How many times the cost doubles: difficult terrain, obstacles, darkness, a helpless creature in
    /// the way, squeezing (000:130-138: x2, x4, x8).
    pub doublings: u32,
    /// Squares added for crossing an obstacle on an edge (RULES-INDEX: 2).
    pub edge_extra: u32,
}

/// Squares added to cross a hindering obstacle or low wall standing on an edge (RULES-INDEX, from 001).
pub const EDGE_OBSTACLE_COST: u32 = 2;

/// The cost of one step in squares. Orthogonal: 1, doubled per hampering (2, 4, 8). Diagonal: 1 or 2
/// by the alternation when unhampered; 3, 6, 12 when hampered, leaving the alternation as it was
/// (000:130-138 and the RULES-INDEX ruling). Under the house rule where every diagonal is one square, a
/// diagonal costs what an orthogonal step does. An obstacle on the edge crossed adds its 2 (RULES-INDEX),
/// doubled as the step's other hampering doubles it: the costs multiply (003:47), so a low wall on an edge
/// in the dark costs what one on a square does. Returns the cost and the alternation after the step.
#[inline]
pub fn step_cost(diagonals: Diagonals, diagonal: bool, hampering: Hampering, odd_diagonal_taken: bool) -> (u32, bool) {
    let edge = hampering.edge_extra << hampering.doublings;
    let base = match (diagonal && diagonals == Diagonals::Alternating, hampering.doublings) {
        (false, d) => 1 << d,
        (true, 0) => {
            let (squares, odd) = diagonals.next_diagonal(odd_diagonal_taken);
            return (squares + edge, odd);
        }
        (true, d) => 3 << (d - 1),
    };
    (base + edge, odd_diagonal_taken)
}

/// The world a step is judged in.
#[derive(Clone, Copy)]
pub struct StepWorld<'a> {
    /// The map.
    pub field: &'a Battlefield,
    /// Every other creature.
    pub occupants: &'a [Occupant],
}

/// What entering a footprint does to the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Cost terms.
    pub hampering: Hampering,
    /// Whether the mover may end its move there.
    pub can_stop: bool,
}

impl StepWorld<'_> {
    /// How many times the ground of `square` doubles the mover's cost: once for difficult terrain, once
    /// for an obstacle, once for poor visibility (fog, or darkness for a creature without darkvision); when several
    /// apply they multiply (003:36-47: ×2, ×4, ×8; 000:130-138). Fliers and incorporeal creatures are not
    /// hampered by the ground (000:98, 000:108-109) but are by darkness, which hampers sight, not feet
    /// (003:41); swimmers are not by shallow water. Deep water slows a walker as the underwater table's row
    /// says (004:641-645, `water::step_doublings`).
    fn terrain_doublings(&self, mover: &Mover, square: Square) -> u32 {
        let field = self.field;
        let on_ground = mover.medium != Medium::Fly && !mover.incorporeal;
        let terrain = field.terrain(square);
        let swum = mover.swims && terrain == Terrain::Water;
        let difficult = on_ground && !swum && field.is_difficult(square);
        let obstacle = on_ground && field.has_obstacle(square);
        // Poor visibility, once however it comes (« Mauvaise visibilité ×2 », 003:41): darkness it does not
        // see in, fog, which no eyes see through, or its own blindness.
        let dark = (field.is_dark(square) && !mover.darkvision) || field.is_foggy(square) || mover.blinded;
        let deep =
            if on_ground && terrain == Terrain::DeepWater { water::step_doublings(mover.size, mover.swims) } else { 0 };
        u32::from(difficult) + u32::from(obstacle) + u32::from(dark) + deep + u32::from(mover.tumbling)
    }

    /// Why `mover` may cross `to` but not end its move there, naming the cause: an obstacle crossed, never
    /// stopped on (000:99-105), another creature's space (000:74-75), else a squeezed space passed through
    /// in the open (000:110-111, docs/rulings.md).
    pub fn no_stop(&self, mover: &Mover, to: Footprint, own: Footprint) -> Blocked {
        let square = to.origin;
        let on_ground = mover.medium != Medium::Fly && !mover.incorporeal;
        if let Some(s) = to.squares().find(|s| on_ground && self.field.has_obstacle(*s)) {
            let what = format!("{s} holds an obstacle, crossed and never stopped on");
            return Blocked::CannotStop { square, what, rule: "000:99-105" };
        }
        if self.occupants.iter().any(|o| o.footprint != own && o.footprint.overlaps(to)) {
            return Blocked::CannotStop { square, what: "another creature stands there".into(), rule: "000:74-75" };
        }
        let what = "a squeezed space is passed through, not stopped in".into();
        Blocked::CannotStop { square, what, rule: "000:110-111, docs/rulings.md" }
    }

    /// What hampers `mover` entering `to`, for the refusal that names it (000:94-95, 004:261): the first of
    /// its squares' obstacle, difficult terrain, deep water, fog, darkness it does not see in; else an
    /// obstacle on the edge or corner crossed (`edge`), a squeeze, or its tumble.
    pub fn hampered_by(&self, mover: &Mover, to: Footprint, edge: bool) -> &'static str {
        let on_ground = mover.medium != Medium::Fly && !mover.incorporeal;
        for s in to.squares().filter(|s| self.field.contains(*s)) {
            let terrain = self.field.terrain(s);
            if on_ground && self.field.has_obstacle(s) {
                return "an obstacle";
            }
            if on_ground && self.field.is_difficult(s) && !(mover.swims && terrain == Terrain::Water) {
                return "difficult terrain";
            }
            if on_ground && terrain == Terrain::DeepWater {
                return "deep water";
            }
            if self.field.is_foggy(s) {
                return "fog";
            }
            if (self.field.is_dark(s) && !mover.darkvision) || mover.blinded {
                return "darkness";
            }
        }
        let squeezed = to.width.min(to.height) < mover.size.side_squares().max(1);
        match () {
            () if edge => "an obstacle on the way",
            () if squeezed => "squeezing",
            () if mover.tumbling => "tumbling",
            () => "an obstacle on the way",
        }
    }

    /// Whether the ground of `footprint` hampers `mover` standing there: difficult terrain, an obstacle, deep
    /// water, darkness it does not see in (what a 5-foot step may not be taken on, 004:261).
    pub fn ground_hampers(&self, mover: &Mover, footprint: Footprint) -> bool {
        let walking = Mover { tumbling: false, ..*mover };
        footprint.squares().any(|s| self.field.contains(s) && self.terrain_doublings(&walking, s) > 0)
    }

    /// Whether `mover` on `footprint` swims with no swim speed: on the ground (not flying), in deep water over
    /// its head, by its Swim checks (004:641-645): no form of movement it has a speed for (004:245).
    pub fn swims_without_speed(&self, mover: &Mover, footprint: Footprint) -> bool {
        !mover.swims
            && mover.medium != Medium::Fly
            && !mover.incorporeal
            && water::depth_for(mover.size) == water::Depth::OverHead
            && footprint.squares().any(|s| self.field.contains(s) && self.field.terrain(s) == Terrain::DeepWater)
    }

    /// Checks that a footprint can be entered at all, and what entering costs and allows.
    pub fn enter(&self, mover: &Mover, to: Footprint, own: Footprint) -> Result<Entry, Blocked> {
        let ground = self.enter_ground(mover, to)?;
        self.enter_among(mover, to, own, ground)
    }

    /// What the map alone says of entering a footprint: the walls, pits and terrain of its squares and
    /// the squeeze; the same for every search on the map, which keeps it (`super::table`).
    pub fn enter_ground(&self, mover: &Mover, to: Footprint) -> Result<Entry, Blocked> {
        let mut doublings = 0;
        let mut can_stop = true;
        for square in to.squares() {
            if !self.field.contains(square) {
                return Err(Blocked::OffMap { square });
            }
            let terrain = self.field.terrain(square);
            if terrain.blocks() && !mover.incorporeal {
                return Err(Blocked::Wall { square });
            }
            if terrain == Terrain::Pit && mover.medium != Medium::Fly && !mover.incorporeal {
                return Err(Blocked::Pit { square });
            }
            if self.field.has_obstacle(square) && mover.medium != Medium::Fly && !mover.incorporeal {
                can_stop = false;
            }
            doublings = doublings.max(self.terrain_doublings(mover, square));
        }
        // Squeezing doubles the cost of every square (000:112).
        if to.width < mover.side() || to.height < mover.side() {
            doublings += 1;
        }
        // Walls on edges inside the new footprint split it.
        if to.width > 1 || to.height > 1 {
            for square in to.squares() {
                for dir in [Direction::East, Direction::South] {
                    let next = square.step(dir);
                    if to.contains(next)
                        && self.field.edge_crossed(square, dir).is_some_and(EdgeFeature::is_wall)
                        && !mover.incorporeal
                    {
                        return Err(Blocked::Wall { square: next });
                    }
                }
            }
        }
        Ok(Entry { hampering: Hampering { doublings, edge_extra: 0 }, can_stop })
    }

    /// What the other creatures add to entering a footprint whose ground gave `ground`: a space one may
    /// not enter, a helpless body to step over, a space one may not stop in (000:67-90).
    pub fn enter_among(&self, mover: &Mover, to: Footprint, own: Footprint, ground: Entry) -> Result<Entry, Blocked> {
        let Entry { hampering: Hampering { mut doublings, edge_extra }, mut can_stop } = ground;
        // A squeezing creature may squeeze past a foe, never stopping in its space (000:119-120).
        let squeezing = to.width < mover.side() || to.height < mover.side();
        // The shares of the square taken by the creatures smaller than a square there, the mover's first.
        let mut shares = mover.size.share_of_square();
        // Bodies that obstruct double the squares crossed once, however many the space covers: its worst
        // square counts (000:72-73, 000:96-97).
        let mut over_a_body = false;
        for other in self.occupants {
            if other.footprint == own || !other.footprint.overlaps(to) {
                continue;
            }
            let square = other.footprint.squares().find(|s| to.contains(*s)).unwrap_or(to.origin);
            if other.fills_space {
                return Err(Blocked::FillsSpace { square });
            }
            let tiny_mover = mover.size.is_smaller_than_a_square();
            let far_apart = mover.size.steps_to(other.size).abs() >= 3;
            // A charge passes no creature, not even an ally; helpless ones do not stop it (004:453).
            if mover.charging && !other.helpless {
                return Err(if other.ally { Blocked::AllyWhileCharging { square } } else { Blocked::Foe { square } });
            }
            if other.helpless {
                if other.obstructs_when_helpless && !over_a_body {
                    over_a_body = true;
                    doublings += 1;
                }
            } else if !other.ally && !squeezing && !tiny_mover && !far_apart && !mover.incorporeal && !mover.passes_foes
            {
                return Err(Blocked::Foe { square });
            }
            // Only over a helpless creature, or as a creature smaller than a square, may one stop in an
            // occupied space (000:74-75, 000:80-82, 000:152-156).
            if !(other.helpless || tiny_mover) {
                can_stop = false;
            }
            // By their shares of it, whatever their sizes (000:148-151).
            if tiny_mover && other.size.is_smaller_than_a_square() {
                shares += other.size.share_of_square();
                if shares > 100 {
                    can_stop = false;
                }
            }
        }
        Ok(Entry { hampering: Hampering { doublings, edge_extra }, can_stop })
    }

    /// Judges one step of a footprint in `direction`: legality, the cost terms, and whether the mover may
    /// stop where it arrives.
    pub fn step(
        &self,
        mover: &Mover,
        from: Footprint,
        direction: Direction,
        own: Footprint,
    ) -> Result<(Footprint, Entry), Blocked> {
        let (to, ground) = self.step_ground(mover, from, direction)?;
        Ok((to, self.enter_among(mover, to, own, ground)?))
    }

    /// What the map alone says of one step: the edges and corners crossed and the ground entered.
    pub fn step_ground(
        &self,
        mover: &Mover,
        from: Footprint,
        direction: Direction,
    ) -> Result<(Footprint, Entry), Blocked> {
        let to = from.at(from.origin.step(direction));
        let mut edge_extra = 0;
        if !mover.incorporeal {
            walls_in_the_way(self.field, from, direction)?;
            for square in from.squares() {
                let next = square.step(direction);
                if from.contains(next) || mover.medium == Medium::Fly {
                    continue;
                }
                if direction.is_diagonal() {
                    let (dx, dy) = direction.delta();
                    let corner = Corner { x: square.x + i32::from(dx > 0), y: square.y + i32::from(dy > 0) };
                    if self.obstacle_edge_touches(corner) {
                        edge_extra = EDGE_OBSTACLE_COST;
                    }
                    // Between two squares of one obstacle meeting at their corner, the diagonal goes across it
                    // (« On ne peut pas traverser un obstacle infranchissable, comme une fosse, en diagonale »,
                    // 002:58): between two pit squares it is refused; between hindering obstacles (a pit on
                    // one side at most) it pays the obstacle as an edge's (docs/rulings.md).
                    let (side, other) = (square.offset(dx, 0), square.offset(0, dy));
                    let pit = |s: Square| !from.contains(s) && self.field.terrain(s) == Terrain::Pit;
                    let hinders = |s: Square| !from.contains(s) && (self.field.has_obstacle(s) || pit(s));
                    if pit(side) && pit(other) {
                        return Err(Blocked::Pit { square: side });
                    }
                    if hinders(side) && hinders(other) {
                        edge_extra = EDGE_OBSTACLE_COST;
                    }
                } else if matches!(
                    self.field.edge_crossed(square, direction),
                    Some(EdgeFeature::LowWall | EdgeFeature::Obstacle)
                ) {
                    edge_extra = EDGE_OBSTACLE_COST;
                }
            }
        }
        let mut entry = self.enter_ground(mover, to)?;
        entry.hampering.edge_extra = edge_extra;
        Ok((to, entry))
    }

    /// Whether an edge obstacle or low wall ends at or runs through `corner`.
    fn obstacle_edge_touches(&self, corner: Corner) -> bool {
        let (x, y) = (corner.x, corner.y);
        use crate::rules::core::geometry::Edge;
        [
            Edge { square: Square::new(x - 1, y - 1), east: true },
            Edge { square: Square::new(x - 1, y), east: true },
            Edge { square: Square::new(x - 1, y - 1), east: false },
            Edge { square: Square::new(x, y - 1), east: false },
        ]
        .iter()
        .any(|e| matches!(self.field.edge(*e), Some(EdgeFeature::LowWall | EdgeFeature::Obstacle)))
    }
}

/// What walls say of one step of a footprint `from` in `direction`, for any body that is not incorporeal,
/// on foot or in the air (walls stand full height): a wall edge or an arrow slit crossed (000:106-107), a
/// wall corner cut or a wall square beside a diagonal (000:61, 002:56). The one predicate of the walls a
/// step meets, shared by the moves and the flights.
pub fn walls_in_the_way(field: &Battlefield, from: Footprint, direction: Direction) -> Result<(), Blocked> {
    // A wall in the space it would take blocks the step (000:106-107), before any corner its squares cut.
    if direction.is_diagonal()
        && let Some(square) = from.at(from.origin.step(direction)).squares().find(|s| field.terrain(*s).blocks())
    {
        return Err(Blocked::Wall { square });
    }
    for square in from.squares() {
        let next = square.step(direction);
        if from.contains(next) {
            continue;
        }
        if direction.is_diagonal() {
            let (dx, dy) = direction.delta();
            let corner = Corner { x: square.x + i32::from(dx > 0), y: square.y + i32::from(dy > 0) };
            let walled = |s: Square| field.terrain(s).blocks() && !from.contains(s);
            if field.wall_touches_corner(corner) || walled(square.offset(dx, 0)) || walled(square.offset(0, dy)) {
                return Err(Blocked::CutsCorner { from: square, to: next });
            }
        } else if matches!(field.edge_crossed(square, direction), Some(EdgeFeature::Wall | EdgeFeature::ArrowSlit)) {
            return Err(Blocked::Wall { square: next });
        }
    }
    Ok(())
}

/// What walls say of a footprint `from` shifting to `to` step by step, diagonally first and then straight
/// (each step [`walls_in_the_way`]): what entering a foe's space asks of a bull rush, a grapple and an
/// overrun's passage (004:447, 004:531, 004:586), one predicate with the moves.
pub fn walls_between(field: &Battlefield, from: Footprint, to: Footprint) -> Result<(), Blocked> {
    let mut at = from;
    while at.origin != to.origin {
        let (dx, dy) = ((to.origin.x - at.origin.x).signum(), (to.origin.y - at.origin.y).signum());
        let Some(direction) = Direction::from_delta(dx, dy) else { break };
        walls_in_the_way(field, at, direction)?;
        at = at.at(at.origin.offset(dx, dy));
    }
    Ok(())
}

/// What a footprint `from` shifting to `to` step by step (diagonally first, then straight, as
/// [`walls_between`]) meets, each step judged as a move's is: walls and corners, pits, the spaces of foes
/// (000:70-71): the way a grappler with reach goes into its foe's space, « un déplacement » (004:586).
pub fn steps_between(ground: &StepWorld<'_>, mover: &Mover, from: Footprint, to: Footprint) -> Result<(), Blocked> {
    let mut at = from;
    while at.origin != to.origin {
        let (dx, dy) = ((to.origin.x - at.origin.x).signum(), (to.origin.y - at.origin.y).signum());
        let Some(direction) = Direction::from_delta(dx, dy) else { break };
        at = ground.step(mover, at, direction, from)?.0;
    }
    Ok(())
}

/// Whether a footprint at `from` can get to `to` by as few steps as the squares between them, each judged
/// as a move's ([`StepWorld::step`]): any such route, not only the diagonal-first one, but no detour. Why
/// not, as the diagonal-first route finds it, when none does.
pub fn way_between(ground: &StepWorld<'_>, mover: &Mover, from: Footprint, to: Footprint) -> Result<(), Blocked> {
    let apart = |f: Footprint| (to.origin.x - f.origin.x).abs().max((to.origin.y - f.origin.y).abs());
    let mut seen = std::collections::BTreeSet::from([(from.origin.x, from.origin.y)]);
    let mut frontier = std::collections::VecDeque::from([from]);
    while let Some(at) = frontier.pop_front() {
        if at.origin == to.origin {
            return Ok(());
        }
        for direction in Direction::ALL {
            let Ok((next, _)) = ground.step(mover, at, direction, from) else { continue };
            // Each step one square nearer: a shortest route.
            if apart(next) < apart(at) && seen.insert((next.origin.x, next.origin.y)) {
                frontier.push_back(next);
            }
        }
    }
    steps_between(ground, mover, from, to).and(Err(Blocked::Wall { square: to.origin }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::geometry::Edge;

    const PLAIN: Hampering = Hampering { doublings: 0, edge_extra: 0 };
    const DIFFICULT: Hampering = Hampering { doublings: 1, edge_extra: 0 };

    #[test]
    fn doubling_multiplies_000_130() {
        let h = |doublings| Hampering { doublings, edge_extra: 0 };
        assert_eq!(step_cost(Diagonals::Alternating, false, h(1), false).0, 2);
        assert_eq!(step_cost(Diagonals::Alternating, false, h(2), false).0, 4);
        assert_eq!(step_cost(Diagonals::Alternating, false, h(3), false).0, 8);
        assert_eq!(step_cost(Diagonals::Alternating, true, h(1), false).0, 3);
        assert_eq!(step_cost(Diagonals::Alternating, true, h(2), true).0, 6);
        assert_eq!(step_cost(Diagonals::Alternating, true, h(3), false).0, 12);
    }

    #[test]
    fn the_fighter_of_002_46() {
        // 1.5 + 1.5 + 3 + 3 = 9 m, then 4.5 m on a difficult diagonal.
        let mut odd = false;
        let mut spent = Vec::new();
        for (diagonal, hampering) in
            [(false, PLAIN), (true, PLAIN), (true, PLAIN), (false, DIFFICULT), (true, DIFFICULT)]
        {
            let (cost, next) = step_cost(Diagonals::Alternating, diagonal, hampering, odd);
            odd = next;
            spent.push(cost);
        }
        assert_eq!(spent, vec![1, 1, 2, 2, 3]);
        assert_eq!(spent[..4].iter().sum::<u32>(), 6, "9 m: one move action");
    }

    #[test]
    fn every_diagonal_costs_as_a_straight_step_under_the_house_rule() {
        let single = Diagonals::Single;
        let mut odd = false;
        let mut spent = Vec::new();
        for (diagonal, hampering) in
            [(false, PLAIN), (true, PLAIN), (true, PLAIN), (false, DIFFICULT), (true, DIFFICULT)]
        {
            let (cost, next) = step_cost(single, diagonal, hampering, odd);
            odd = next;
            spent.push(cost);
        }
        assert_eq!(spent, vec![1, 1, 1, 2, 2], "the fighter of 002:46 under the house rule");
        let edge = Hampering { doublings: 0, edge_extra: EDGE_OBSTACLE_COST };
        assert_eq!(step_cost(single, true, edge, false), (3, false));
        // The edge's 2 doubles with the step's other hampering (003:47): 2 + 4 in the dark.
        let dark_edge = Hampering { doublings: 1, edge_extra: EDGE_OBSTACLE_COST };
        assert_eq!(step_cost(Diagonals::Alternating, false, dark_edge, false), (6, false));
    }

    #[test]
    fn a_hampered_diagonal_leaves_the_alternation() {
        let (_, odd) = step_cost(Diagonals::Alternating, true, PLAIN, false);
        assert!(odd);
        let (cost, still_odd) = step_cost(Diagonals::Alternating, true, DIFFICULT, odd);
        assert_eq!(cost, 3);
        assert!(still_odd, "it counts as two diagonals");
        assert_eq!(step_cost(Diagonals::Alternating, true, PLAIN, still_odd).0, 2);
    }

    fn world(field: &Battlefield) -> StepWorld<'_> {
        StepWorld { field, occupants: &[] }
    }

    #[test]
    fn no_cutting_wall_corners_000_61() {
        let mut field = Battlefield::open(4, 4);
        field.set_terrain(Square::new(1, 1), Terrain::Wall);
        let man = Mover::walker(Size::Medium);
        let at = Footprint::new(Square::new(0, 1), 1);
        let w = world(&field);
        assert!(matches!(w.step(&man, at, Direction::NorthEast, at), Err(Blocked::CutsCorner { .. })));
        assert!(w.step(&man, at, Direction::North, at).is_ok());
        // A wall edge ending at the corner also blocks the diagonal.
        let mut field = Battlefield::open(4, 4);
        field.set_edge(Edge { square: Square::new(0, 0), east: true }, EdgeFeature::Wall);
        let w = world(&field);
        assert!(matches!(w.step(&man, at, Direction::NorthEast, at), Err(Blocked::CutsCorner { .. })));
        let corner = Footprint::new(Square::new(0, 0), 1);
        assert!(matches!(w.step(&man, corner, Direction::East, corner), Err(Blocked::Wall { .. })));
        assert!(w.step(&man, at, Direction::East, at).is_ok(), "the wall edge is north of this step");
        // An arrow slit is a wall to those who move.
        let mut field = Battlefield::open(4, 4);
        field.set_edge(Edge { square: Square::new(0, 0), east: true }, EdgeFeature::ArrowSlit);
        let w = world(&field);
        assert!(matches!(w.step(&man, corner, Direction::East, corner), Err(Blocked::Wall { .. })));
        assert!(matches!(w.step(&man, at, Direction::NorthEast, at), Err(Blocked::CutsCorner { .. })));
    }

    #[test]
    fn pits_are_passed_by_diagonally_but_never_entered() {
        let mut field = Battlefield::open(4, 4);
        field.set_terrain(Square::new(1, 1), Terrain::Pit);
        let man = Mover::walker(Size::Medium);
        let at = Footprint::new(Square::new(0, 1), 1);
        let w = world(&field);
        assert!(w.step(&man, at, Direction::NorthEast, at).is_ok(), "diagonally past the pit (001)");
        assert!(matches!(w.step(&man, at, Direction::East, at), Err(Blocked::Pit { .. })));
        let bird = Mover { medium: Medium::Fly, ..man };
        assert!(w.step(&bird, at, Direction::East, at).is_ok());
    }

    #[test]
    fn obstacles_are_crossed_not_stopped_on() {
        let mut field = Battlefield::open(4, 1);
        field.set_terrain(Square::new(1, 0), Terrain::LowWall);
        let man = Mover::walker(Size::Medium);
        let at = Footprint::new(Square::new(0, 0), 1);
        let (on, entry) = world(&field).step(&man, at, Direction::East, at).unwrap();
        assert_eq!(entry.hampering.doublings, 1);
        assert!(!entry.can_stop);
        let (_, beyond) = world(&field).step(&man, on, Direction::East, at).unwrap();
        assert!(beyond.can_stop);
        // On an edge: 2 more on top of the square beyond.
        let mut field = Battlefield::open(4, 1);
        field.set_edge(Edge { square: Square::new(0, 0), east: true }, EdgeFeature::LowWall);
        let (_, entry) = world(&field).step(&man, at, Direction::East, at).unwrap();
        assert_eq!(step_cost(Diagonals::Alternating, false, entry.hampering, false).0, 3);
    }

    #[test]
    fn creatures_in_the_way() {
        let field = Battlefield::open(5, 5);
        let man = Mover::walker(Size::Medium);
        let at = Footprint::new(Square::new(0, 0), 1);
        let other = |ally, helpless, size: Size| Occupant {
            footprint: Footprint::new(Square::new(1, 0), size.side_squares()),
            size,
            ally,
            helpless,
            obstructs_when_helpless: false,
            fills_space: false,
        };
        let judge = |occupant: Occupant, mover: Mover| {
            let occupants = [occupant];
            StepWorld { field: &field, occupants: &occupants }.step(&mover, at, Direction::East, at).map(|(_, e)| e)
        };
        let ally = judge(other(true, false, Size::Medium), man).unwrap();
        assert!(!ally.can_stop, "through an ally, not into its space");
        assert!(matches!(
            judge(other(true, false, Size::Medium), Mover { charging: true, ..man }),
            Err(Blocked::AllyWhileCharging { .. })
        ));
        assert!(matches!(judge(other(false, false, Size::Medium), man), Err(Blocked::Foe { .. })));
        assert!(judge(other(false, true, Size::Medium), man).unwrap().can_stop, "a helpless foe can be stood over");
        let giant = judge(other(false, false, Size::Gargantuan), man).unwrap();
        assert!(!giant.can_stop, "three sizes larger: passed through, not stopped in");
        let rat = judge(other(false, false, Size::Medium), Mover::walker(Size::Tiny)).unwrap();
        assert!(rat.can_stop, "a Tiny creature enters a foe's square to attack it");
        let mut dragon = other(false, true, Size::Medium);
        dragon.obstructs_when_helpless = true;
        assert_eq!(judge(dragon, man).unwrap().hampering.doublings, 1);
        let mut ooze = other(false, false, Size::Gargantuan);
        ooze.fills_space = true;
        assert!(matches!(judge(ooze, man), Err(Blocked::FillsSpace { .. })));
    }

    #[test]
    fn fliers_ignore_difficult_terrain_incorporeal_ignore_walls() {
        let mut field = Battlefield::open(3, 1);
        field.set_terrain(Square::new(1, 0), Terrain::Difficult);
        let at = Footprint::new(Square::new(0, 0), 1);
        let bird = Mover { medium: Medium::Fly, ..Mover::walker(Size::Small) };
        assert_eq!(world(&field).step(&bird, at, Direction::East, at).unwrap().1.hampering.doublings, 0);
        field.set_terrain(Square::new(1, 0), Terrain::Wall);
        assert!(world(&field).step(&bird, at, Direction::East, at).is_err());
        let ghost = Mover { incorporeal: true, ..Mover::walker(Size::Medium) };
        assert!(world(&field).step(&ghost, at, Direction::East, at).is_ok());
        // Darkness hampers sight, not feet: a ghost without darkvision is slowed in the dark (003:41), not
        // by rubble (000:98).
        field.set_terrain(Square::new(1, 0), Terrain::Difficult);
        assert_eq!(world(&field).step(&ghost, at, Direction::East, at).unwrap().1.hampering.doublings, 0);
        field.set_dark(Square::new(1, 0), true);
        assert_eq!(world(&field).step(&ghost, at, Direction::East, at).unwrap().1.hampering.doublings, 1);
        let seeing = Mover { darkvision: true, ..ghost };
        assert_eq!(world(&field).step(&seeing, at, Direction::East, at).unwrap().1.hampering.doublings, 0);
    }

    #[test]
    fn an_obstacle_in_difficult_terrain_in_the_dark_costs_8_003_47() {
        // Three conditions, each x2, multiply (003:47): x8, 8 squares straight, 12 diagonally (000:135-138).
        let mut field = Battlefield::open(3, 3);
        for square in [Square::new(1, 0), Square::new(1, 1)] {
            field.set_terrain(square, Terrain::Obstacle);
            field.set_difficult(square, true);
            field.set_dark(square, true);
        }
        let at = Footprint::new(Square::new(0, 0), 1);
        let man = Mover::walker(Size::Medium);
        let (_, entry) = world(&field).step(&man, at, Direction::East, at).unwrap();
        assert_eq!(entry.hampering.doublings, 3);
        assert!(!entry.can_stop, "an obstacle is crossed, not stopped on");
        assert_eq!(step_cost(Diagonals::Alternating, false, entry.hampering, false).0, 8);
        assert_eq!(step_cost(Diagonals::Alternating, true, entry.hampering, false).0, 12);
        // Twice hampered: 4 squares, 6 diagonally (000:135-136).
        let elf = Mover { darkvision: true, ..man };
        let (_, entry) = world(&field).step(&elf, at, Direction::East, at).unwrap();
        assert_eq!(
            (
                step_cost(Diagonals::Alternating, false, entry.hampering, false).0,
                step_cost(Diagonals::Alternating, true, entry.hampering, false).0
            ),
            (4, 6)
        );
        // A flier is hampered by the dark alone.
        let bird = Mover { medium: Medium::Fly, ..man };
        assert_eq!(world(&field).step(&bird, at, Direction::East, at).unwrap().1.hampering.doublings, 1);
    }

    #[test]
    fn darkness_hampers_and_multiplies_with_difficult_terrain() {
        let mut field = Battlefield::open(3, 1);
        field.set_terrain(Square::new(1, 0), Terrain::Difficult);
        field.set_dark(Square::new(1, 0), true);
        let at = Footprint::new(Square::new(0, 0), 1);
        let man = Mover::walker(Size::Medium);
        let entry = world(&field).step(&man, at, Direction::East, at).unwrap().1;
        assert_eq!(step_cost(Diagonals::Alternating, false, entry.hampering, false).0, 4);
        let elf = Mover { darkvision: true, ..man };
        assert_eq!(world(&field).step(&elf, at, Direction::East, at).unwrap().1.hampering.doublings, 1);
    }
}
