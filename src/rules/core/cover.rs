//! Cover (004:398-406): lines from a corner of the attacker's square to the corners of the target's square,
//! through walls, low walls and creatures. Pure.

use crate::rules::core::battlefield::{Battlefield, EdgeFeature, Terrain};
use crate::rules::core::geometry::{Corner, Edge, Footprint, LineTrace, Square, trace_between, trace_line};

/// Squares within which a low obstacle gives cover (004:400): 9 m.
pub const LOW_OBSTACLE_RANGE: u32 = 6;

/// What a target is covered by, from the attacker's best point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cover {
    /// Nothing in the way.
    None,
    /// A creature in the way of a ranged attack: +4 to AC (004:404).
    Soft {
        /// Which creature.
        creature: String,
    },
    /// A wall, a low wall or an obstacle in the way: +4 to AC (004:398-400).
    Hard {
        /// What and where, for the log ("low wall at (5,3)").
        what: String,
    },
    /// Improved cover: the target stands at an arrow slit the attack goes through; +8 to AC, doubled
    /// (004:407).
    Improved {
        /// What and where, for the log ("arrow slit at (5,3)").
        what: String,
    },
    /// Improved cover the water gives a creature in it against a foe out of it: +8 to AC (004:634).
    Water,
    /// No line reaches: the target cannot be attacked (004:406).
    Total,
}

impl Cover {
    fn rank(&self) -> u8 {
        match self {
            Cover::None => 0,
            Cover::Soft { .. } => 1,
            Cover::Hard { .. } => 2,
            Cover::Improved { .. } | Cover::Water => 3,
            Cover::Total => 4,
        }
    }

    /// Its bonus on a Reflex save against an effect from the other side of it (004:402): +2, doubled for
    /// improved cover (004:407), none for a creature's soft cover (004:404).
    pub fn reflex_bonus(&self) -> Option<crate::rules::core::creature::Modifier> {
        use crate::rules::core::creature::Modifier;
        match self {
            Cover::None | Cover::Total | Cover::Soft { .. } => None,
            Cover::Hard { what } => Some(Modifier::new(2, format!("cover: {what} (004:402)"))),
            Cover::Improved { what } => Some(Modifier::new(4, format!("improved cover: {what} (004:402, 004:407)"))),
            Cover::Water => Some(Modifier::new(4, "improved cover: the water (004:402, 004:634)")),
        }
    }

    /// Whether it gives the effects of improved evasion against what its Reflex bonus counts against: no
    /// damage on a save for half, half on a failure (« obtient les effets de l'aptitude de classe d'esquive
    /// extraordinaire contre toutes les attaques contre lesquelles le bonus d'abri aux jets de Réflexes
    /// s'applique », 004:407): improved cover, the water's among it (004:634).
    pub fn improved_evasion(&self) -> bool {
        matches!(self, Cover::Improved { .. } | Cover::Water)
    }

    /// The AC bonus it gives.
    pub fn bonus(&self) -> i32 {
        match self {
            Cover::None | Cover::Total => 0,
            Cover::Soft { .. } | Cover::Hard { .. } => 4,
            Cover::Improved { .. } | Cover::Water => 8,
        }
    }
}

/// A creature in the field, as cover sees it.
#[derive(Clone, Debug)]
pub struct Bystander {
    /// Its id.
    pub id: String,
    /// Its squares.
    pub footprint: Footprint,
}

/// Whether a creature whose body spans `body` (from its feet to its top, in metres above the ground) at
/// `footprint` is in the height of the lines between two others, each a body too: the lines run between
/// the two bodies, from the attacker's feet and top to the target's, and over the stretch beside the
/// bystander's squares they must pass through its body. Between creatures on the ground every creature on
/// the ground between is in their way, as 004:404 counts squares; a creature flying above or below that
/// stretch is in no line's way (heights count, 004:783; our ruling, docs/rulings.md).
pub fn in_the_lines_height(
    (attacker, (attacker_feet, attacker_top)): (Footprint, (f32, f32)),
    (target, (target_feet, target_top)): (Footprint, (f32, f32)),
    (footprint, (feet, top)): (Footprint, (f32, f32)),
) -> bool {
    let centre = |f: Footprint| (f.origin.x as f32 + f.width as f32 / 2.0, f.origin.y as f32 + f.height as f32 / 2.0);
    let (p, q) = (centre(attacker), centre(target));
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let length = dx * dx + dy * dy;
    let along =
        |x: f32, y: f32| if length > 0.0 { (((x - p.0) * dx + (y - p.1) * dy) / length).clamp(0.0, 1.0) } else { 0.0 };
    let (x0, y0) = (footprint.origin.x as f32, footprint.origin.y as f32);
    let (x1, y1) = (x0 + footprint.width as f32, y0 + footprint.height as f32);
    let ends = [along(x0, y0), along(x1, y0), along(x0, y1), along(x1, y1)];
    let lowest = |s: f32| attacker_feet + s * (target_feet - attacker_feet);
    let highest = |s: f32| attacker_top + s * (target_top - attacker_top);
    let low = ends.iter().map(|&s| lowest(s)).fold(f32::MAX, f32::min);
    let high = ends.iter().map(|&s| highest(s)).fold(f32::MIN, f32::max);
    low < top && high > feet
}

/// A line's heights, in altitude steps: from the attacker's altitude at its corner `from` to the target's at
/// `to`, and the top of a low obstacle (« pas plus de la moitié de la hauteur de la créature », 004:400:
/// half the target's height, its space's width in steps).
#[derive(Clone, Copy)]
struct LineHeights {
    from: Corner,
    to: Corner,
    heights: (f32, f32),
    obstacle_top: f32,
}

impl LineHeights {
    /// The heights of the lines from an attacker at `altitudes.0` to a target on `target` at `altitudes.1`,
    /// each line between two corners; none when both stand on the ground, where nothing changes.
    fn of(altitudes: (i32, i32), target: Footprint) -> impl Fn(Corner, Corner) -> Option<LineHeights> {
        let aloft = altitudes.0 != 0 || altitudes.1 != 0;
        let obstacle_top = target.width.max(1) as f32 / 2.0;
        move |from, to| {
            aloft.then_some(LineHeights { from, to, heights: (altitudes.0 as f32, altitudes.1 as f32), obstacle_top })
        }
    }

    /// Whether the line passes over a low obstacle on `squares` (one square, or the two beside an edge): its
    /// height, from feet to feet, midway along its stretch over them at the obstacle's top or above.
    fn over(&self, squares: &[Square]) -> bool {
        let (dx, dy) = ((self.to.x - self.from.x) as f32, (self.to.y - self.from.y) as f32);
        // The stretch of the line over the squares: the parameters where it enters and leaves their box.
        let (x0, y0) = squares.iter().fold((i32::MAX, i32::MAX), |(x, y), s| (x.min(s.x), y.min(s.y)));
        let (x1, y1) = squares.iter().fold((i32::MIN, i32::MIN), |(x, y), s| (x.max(s.x + 1), y.max(s.y + 1)));
        let slab = |from: i32, d: f32, low: i32, high: i32| -> (f32, f32) {
            if d.abs() < f32::EPSILON {
                (0.0, 1.0)
            } else {
                let (a, b) = ((low - from) as f32 / d, (high - from) as f32 / d);
                (a.min(b), a.max(b))
            }
        };
        let (ax, bx) = slab(self.from.x, dx, x0, x1);
        let (ay, by) = slab(self.from.y, dy, y0, y1);
        let (enter, leave) = (ax.max(ay).max(0.0), bx.min(by).min(1.0));
        let middle = if enter <= leave { (enter + leave) / 2.0 } else { 0.5 };
        self.heights.0 + middle * (self.heights.1 - self.heights.0) >= self.obstacle_top
    }
}

/// What one line meets.
#[derive(Default)]
struct LineMeets {
    blocked: bool,
    hard: Option<String>,
    improved: Option<String>,
    soft: Option<String>,
}

fn meets(
    field: &Battlefield,
    (trace, heights): (&LineTrace, Option<LineHeights>),
    target: Footprint,
    attacker: Footprint,
    bystanders: &[Bystander],
) -> LineMeets {
    let mut out = LineMeets { blocked: field.line_blocked(trace, attacker, target), ..LineMeets::default() };
    // A low obstacle covers a target within 9 m of it, unless the attacker is nearer to it than the target
    // (004:400): the obstacle fills its square, or lies on the edge between two, as near to each creature as
    // the nearer of them.
    // Heights count (004:783): a line passing above the obstacle's top there crosses it freely.
    let low_covers = |at: &[Square]| {
        if heights.is_some_and(|h| h.over(at)) {
            return false;
        }
        let nearest = |f: Footprint| at.iter().map(|&s| f.distance_to_square(s, field.diagonals())).min();
        let (Some(to_target), Some(to_attacker)) = (nearest(target), nearest(attacker)) else { return false };
        to_target <= LOW_OBSTACLE_RANGE && to_attacker >= to_target
    };
    for &square in &trace.squares {
        if target.contains(square) || attacker.contains(square) {
            continue;
        }
        // A low wall or an obstacle, of the square's terrain or laid over it (the same predicate movement asks).
        if field.has_obstacle(square) && low_covers(&[square]) {
            out.hard.get_or_insert(format!(
                "{} at {square}",
                if field.terrain(square) == Terrain::LowWall { "low wall" } else { "obstacle" }
            ));
        }
        if let Some(b) = bystanders.iter().find(|b| b.footprint.contains(square)) {
            out.soft.get_or_insert(b.id.clone());
        }
    }
    for &edge in &trace.crossed_edges {
        match field.edge(edge) {
            // An arrow slit lets a line through only for a creature standing at it: the target there has
            // improved cover; an attacker there shoots out freely; between two others it is a wall.
            Some(EdgeFeature::ArrowSlit) => {
                let (p, q) = edge.squares();
                if target.contains(p) || target.contains(q) {
                    out.improved.get_or_insert(format!("arrow slit at {}", edge.square));
                }
            }
            Some(feature @ (EdgeFeature::LowWall | EdgeFeature::Obstacle))
                if low_covers(&[edge.squares().0, edge.squares().1]) =>
            {
                let what = if feature == EdgeFeature::LowWall { "low wall" } else { "obstacle" };
                out.hard.get_or_insert(format!("{what} on the edge at {}", edge.square));
            }
            _ => {}
        }
    }
    out
}

/// The cover the lines from one point of view give: total when all are blocked, improved through an arrow
/// slit, hard when one is blocked or passes a low wall or an obstacle, soft when one passes a creature.
fn verdict(lines: &[LineMeets]) -> Cover {
    if lines.iter().all(|l| l.blocked) {
        Cover::Total
    } else if let Some(l) = lines.iter().find(|l| l.improved.is_some()) {
        Cover::Improved { what: l.improved.clone().unwrap_or_default() }
    } else if let Some(l) = lines.iter().find(|l| l.blocked || l.hard.is_some()) {
        Cover::Hard { what: l.hard.clone().unwrap_or_else(|| "a wall".into()) }
    } else if let Some(l) = lines.iter().find(|l| l.soft.is_some()) {
        Cover::Soft { creature: l.soft.clone().unwrap_or_default() }
    } else {
        Cover::None
    }
}

/// The cover a target has against a ranged attack, or a melee attack from beyond the adjacent squares: the
/// attacker picks the corner (and, for creatures of several squares, the squares) that see best; from
/// that corner a line to each corner of the target's square is drawn; if all are blocked the cover is
/// total, if one is blocked or passes a low obstacle the cover is hard, if one passes a creature it is
/// soft (004:398-404, 004:400).
pub fn ranged_cover(field: &Battlefield, attacker: Footprint, target: Footprint, bystanders: &[Bystander]) -> Cover {
    ranged_cover_traced(field, ((attacker, 0), (target, 0)), bystanders, true)
}

/// [`ranged_cover`] between an attacker and a target at their altitudes (in steps): a line from one in the
/// air passes over a low obstacle whose top it clears (004:400, 004:783; our ruling, docs/rulings.md).
pub fn ranged_cover_at(
    field: &Battlefield,
    (attacker, target): ((Footprint, i32), (Footprint, i32)),
    bystanders: &[Bystander],
) -> Cover {
    ranged_cover_traced(field, (attacker, target), bystanders, true)
}

/// [`ranged_cover`], taking bare ground between the two with no creature in it as clear without tracing it
/// when `shortcut` (the tests compare both).
fn ranged_cover_traced(
    field: &Battlefield,
    ((attacker, attacker_altitude), (target, target_altitude)): ((Footprint, i32), (Footprint, i32)),
    bystanders: &[Bystander],
    shortcut: bool,
) -> Cover {
    let heights = LineHeights::of((attacker_altitude, target_altitude), target);
    // The creature named for soft cover is the first by id among those in the way, whatever the order given.
    // Every line runs within the rectangle that holds both creatures: a bystander outside it is in no line's
    // way, and need not be looked for along each.
    let (x0, y0) = (attacker.origin.x.min(target.origin.x), attacker.origin.y.min(target.origin.y));
    let x1 = (attacker.origin.x + attacker.width).max(target.origin.x + target.width);
    let y1 = (attacker.origin.y + attacker.height).max(target.origin.y + target.height);
    let between = Footprint::rect(Square::new(x0, y0), x1 - x0, y1 - y0);
    let mut by_id: Vec<Bystander> = bystanders.iter().filter(|b| b.footprint.overlaps(between)).cloned().collect();
    // No creature between and nothing on the ground or the edges around: every line is clear. (The lines
    // stay within `between`; what stops or covers them lies on its squares, or on the edges and corners of
    // its border, kept by the squares one beyond.)
    if shortcut && by_id.is_empty() && bare_rect(field, (x0 - 1, y0 - 1), (x1, y1)) {
        return Cover::None;
    }
    by_id.sort_by(|a, b| a.id.cmp(&b.id));
    let bystanders = by_id.as_slice();
    let mut best = Cover::Total;
    for a in attacker.squares() {
        for t in target.squares() {
            for corner in Corner::of(a) {
                let lines: Vec<LineMeets> = Corner::of(t)
                    .iter()
                    .map(|&tc| {
                        let trace = trace_between(a, corner, t, tc);
                        meets(field, (&trace, heights(corner, tc)), target, attacker, bystanders)
                    })
                    .collect();
                let cover = verdict(&lines);
                if cover.rank() < best.rank() {
                    best = cover;
                }
                // Nothing beats no cover: the other corners need not be traced.
                if best == Cover::None {
                    return best;
                }
            }
        }
    }
    best
}

/// The cover an adjacent target has against a melee attack (004:399): every line from a corner of the
/// attacker's square to a corner of the target's is drawn, « n'importe quelle ligne » (but those running
/// along a grid line, which cross nothing and only graze what lies along it), through the same
/// [`meets`] as ranged cover (walls and low walls on squares or edges, the corner between two walls, arrow
/// slits); if every line is blocked there is no line of effect and the cover is total (004:406), if any is
/// blocked or passes a low wall or an obstacle the cover is hard. Creatures give none. A creature of
/// several squares attacks from its best square (004:405); a target beyond the adjacent squares is covered
/// as against a ranged attack (004:398).
pub fn melee_cover(field: &Battlefield, attacker: Footprint, target: Footprint) -> Cover {
    melee_cover_traced(field, ((attacker, 0), (target, 0)), true, Some(&[]))
}

/// [`melee_cover`] between an attacker and a target at their altitudes (in steps): a line from or to one in
/// the air passes over a low obstacle whose top it clears, as [`ranged_cover_at`] (004:400, 004:783).
pub fn melee_cover_at(field: &Battlefield, (attacker, target): ((Footprint, i32), (Footprint, i32))) -> Cover {
    melee_cover_traced(field, (attacker, target), true, Some(&[]))
}

/// [`melee_cover_at`] for a blow: from a square of a big attacker (or to one of a big target) that does not
/// touch the other, the ranged rule judges, and the `bystanders` there give soft cover as against a shot
/// (004:398-399, 004:404-405).
pub fn melee_cover_among(
    field: &Battlefield,
    ends: ((Footprint, i32), (Footprint, i32)),
    bystanders: &[Bystander],
) -> Cover {
    melee_cover_traced(field, ends, true, Some(bystanders))
}

/// The cover between the squares of `from` and those of `target` that touch, by the rule of adjacent blows
/// alone (004:399): what a burst from a space reaches beside it (a splash), where no one chooses a square.
pub fn melee_cover_beside(field: &Battlefield, from: Footprint, target: Footprint) -> Cover {
    melee_cover_traced(field, ((from, 0), (target, 0)), true, None)
}

/// [`melee_cover`], taking the bare ground around two squares as clear without tracing it when `shortcut`
/// (the tests compare both); from the squares that do not touch, the ranged rule with the `far` bystanders
/// (004:405), or not at all when `None`.
fn melee_cover_traced(
    field: &Battlefield,
    ((attacker, attacker_altitude), (target, target_altitude)): ((Footprint, i32), (Footprint, i32)),
    shortcut: bool,
    far: Option<&[Bystander]>,
) -> Cover {
    let heights = LineHeights::of((attacker_altitude, target_altitude), target);
    let mut best = Cover::Total;
    let mut adjacent = false;
    for a in attacker.squares() {
        for t in target.squares() {
            if !Footprint::new(a, 1).touches(Footprint::new(t, 1)) {
                continue;
            }
            // One square shared (a creature smaller than a square fights in its foe's space, « on les combat
            // normalement », 000:154-156): every line stays in it, and nothing on its edges is between them.
            if a == t {
                return Cover::None;
            }
            adjacent = true;
            // Nothing around the two squares that a line could meet: every line is clear.
            if shortcut && bare_around(field, a, t) {
                return Cover::None;
            }
            // The corners the two squares share are the gap between them: a line from one passes there, and
            // is blocked where a wall edge ends on it or, diagonally, the two other squares are walls (000:61).
            // (Not `Battlefield::corner_closed`: a flier may stand over a wall square, which closes nothing.)
            let shared = Corner::of(a).into_iter().filter(|c| Corner::of(t).contains(c)).collect::<Vec<_>>();
            // Between diagonal neighbours every line passes the one corner they share, and a wall ending on it
            // stands between them. Side by side they share an edge: a wall on it closes its corners, but a wall
            // merely touching its end runs along their far sides, not between them.
            let diagonal = a.x != t.x && a.y != t.y;
            let between = match (t.x - a.x, t.y - a.y) {
                (1, _) => Edge { square: a, east: true },
                (-1, _) => Edge { square: t, east: true },
                (_, 1) => Edge { square: a, east: false },
                _ => Edge { square: t, east: false },
            };
            let wall_between = !diagonal && field.edge(between).is_some_and(EdgeFeature::is_wall);
            let closed = |c: Corner| {
                let wall = |s: Square| field.terrain(s).blocks();
                wall_between
                    || (diagonal
                        && (field.wall_touches_corner(c)
                            || (wall(Square::new(a.x, t.y)) && wall(Square::new(t.x, a.y)))))
            };
            let lines: Vec<LineMeets> = Corner::of(a)
                .iter()
                .flat_map(|&ac| Corner::of(t).map(move |tc| (ac, tc)))
                // A line along a grid line runs beside what stands on it, and « traverse » no wall (004:399): two
                // creatures side by side along a wall have no cover from each other. The slanted lines cross
                // every edge between them, and those from a corner they share meet what closes it.
                .filter(|(ac, tc)| ac.x != tc.x && ac.y != tc.y)
                .map(|(ac, tc)| {
                    let mut line = meets(field, (&trace_between(a, ac, t, tc), heights(ac, tc)), target, attacker, &[]);
                    line.blocked |= [ac, tc].iter().any(|c| shared.contains(c) && closed(*c));
                    line
                })
                .collect();
            let cover = verdict(&lines);
            if cover.rank() < best.rank() {
                best = cover;
            }
            // Nothing beats no cover (and the target is adjacent): the other squares need not be traced.
            if best == Cover::None {
                return best;
            }
        }
    }
    if !adjacent {
        return ranged_cover_at(field, ((attacker, attacker_altitude), (target, target_altitude)), far.unwrap_or(&[]));
    }
    let Some(bystanders) = far else { return best };
    // « Ces créatures peuvent choisir n'importe laquelle des cases qu'elles occupent », and whoever attacks
    // one « peut choisir n'importe laquelle des cases qu'elle occupe » (004:405): between a square of the
    // attacker and one of the target that do not touch, the target is not adjacent, and the rule of ranged
    // attacks judges (004:399).
    for a in attacker.squares() {
        for t in target.squares().filter(|t| !Footprint::new(a, 1).touches(Footprint::new(*t, 1))) {
            let ends = ((Footprint::new(a, 1), attacker_altitude), (Footprint::new(t, 1), target_altitude));
            let cover = ranged_cover_at(field, ends, bystanders);
            if cover.rank() < best.rank() {
                best = cover;
            }
            if best == Cover::None {
                return best;
            }
        }
    }
    best
}

/// Per map, how many squares are not bare in each rectangle from the north-west corner: a square is bare when
/// nothing on it or on its east and south edges could stop or cover a line (no wall, low wall or obstacle,
/// no edge feature). A summed-area table, `(width + 1) * (height + 1)`, kept with the map.
struct Bare(Vec<u32>);

impl Bare {
    fn of(field: &Battlefield) -> Bare {
        let (w, h) = (field.width().max(0) as usize, field.height().max(0) as usize);
        let mut sums = vec![0u32; (w + 1) * (h + 1)];
        for y in 0..h {
            for x in 0..w {
                let s = Square::new(x as i32, y as i32);
                let bare = !field.terrain(s).blocks()
                    && !field.has_obstacle(s)
                    && field.edge(Edge { square: s, east: true }).is_none()
                    && field.edge(Edge { square: s, east: false }).is_none();
                sums[(y + 1) * (w + 1) + x + 1] =
                    u32::from(!bare) + sums[y * (w + 1) + x + 1] + sums[(y + 1) * (w + 1) + x] - sums[y * (w + 1) + x];
            }
        }
        Bare(sums)
    }
}

/// Whether every square from `(x0, y0)` to `(x1, y1)`, both included, lies on the map and is bare.
fn bare_rect(field: &Battlefield, (x0, y0): (i32, i32), (x1, y1): (i32, i32)) -> bool {
    if x0 < 0 || y0 < 0 || x1 >= field.width() || y1 >= field.height() || x0 > x1 || y0 > y1 {
        return false;
    }
    let bare = field.derived().get_or_build(0, || Bare::of(field));
    let w = field.width() as usize + 1;
    let at = |x: i32, y: i32| bare.0[y as usize * w + x as usize];
    at(x1 + 1, y1 + 1) + at(x0, y0) - at(x0, y1 + 1) - at(x1 + 1, y0) == 0
}

/// Whether the squares within one square of `a` and `t` (two adjacent squares) are all bare: every line
/// between their corners stays among them, and what closes a corner they share stands on their edges.
fn bare_around(field: &Battlefield, a: Square, t: Square) -> bool {
    bare_rect(field, (a.x.min(t.x) - 1, a.y.min(t.y) - 1), (a.x.max(t.x) + 1, a.y.max(t.y) + 1))
}

/// Miss chance of total concealment: the target's own squares in darkness (004:408-413).
pub const TOTAL_CONCEALMENT: u32 = 50;
/// Miss chance of concealment: darkness between (004:407-410).
pub const CONCEALMENT: u32 = 20;

/// Whether a looker with `darkvision_m` metres of darkvision, on `own` at `altitude`, sees by it a creature
/// on `theirs` at its altitude: it has some, and the creature is within its range (an orc's 18 m; 004:415
/// « une zone faiblement éclairée ou sombre ne fournit aucun camouflage face à un attaquant qui dispose de la
/// vision dans le noir »), heights counting (004:783-784). Beyond it the dark conceals as from any creature.
pub fn darkvision_reaches(
    field: &Battlefield,
    darkvision_m: u32,
    (own, altitude): (Footprint, i32),
    (theirs, their_altitude): (Footprint, i32),
) -> bool {
    darkvision_m > 0
        && crate::rules::core::altitude::separation_m(
            field.scale(),
            field.diagonals(),
            (own, altitude),
            (theirs, their_altitude),
        ) <= darkvision_m as f32
}

/// The miss chance concealment gives a target, in percent, the highest of (004:411):
/// - darkness: 50 when all its squares lie in darkness, 20 when a line from the attacker's best corner to
///   its corners (ranged or reach attacks) crosses darkness; none against darkvision (004:415);
/// - fog (smoke, foliage): 20 when all its squares are in it or, for ranged and reach attacks, when the
///   lines from the attacker's best corner cross it (004:408-409); darkvision does not see through it.
///
/// Against an adjacent melee attack only the target's own squares count (004:409).
pub fn concealment(
    field: &Battlefield,
    attacker: Footprint,
    target: Footprint,
    darkvision: bool,
    adjacent_melee: bool,
) -> u32 {
    let dark = if darkvision {
        0
    } else {
        through(field, attacker, target, adjacent_melee, Battlefield::is_dark, TOTAL_CONCEALMENT)
    };
    let fog = through(field, attacker, target, adjacent_melee, Battlefield::is_foggy, CONCEALMENT);
    dark.max(fog)
}

/// The miss chance of one kind of concealing square: `inside` when all the target's squares are of it,
/// `CONCEALMENT` when at least one line from the attacker's best corner crosses one, that is when no corner
/// of the attacker has its four lines to a square of the target all clear (004:408; not for adjacent melee). Against
/// a creature of several squares the attacker judges by whichever of its squares it sees best, as for cover
/// (004:405 « on peut choisir n'importe laquelle des cases qu'elle occupe », 004:409; docs/rulings.md).
fn through(
    field: &Battlefield,
    attacker: Footprint,
    target: Footprint,
    adjacent_melee: bool,
    conceals: fn(&Battlefield, Square) -> bool,
    inside: u32,
) -> u32 {
    if target.squares().all(|s| conceals(field, s)) {
        return inside;
    }
    if adjacent_melee {
        return 0;
    }
    let clear_corner = attacker.squares().flat_map(Corner::of).any(|corner| {
        target.squares().any(|t| {
            Corner::of(t).iter().all(|&tc| {
                trace_line(corner, tc)
                    .squares
                    .iter()
                    .all(|s| attacker.contains(*s) || target.contains(*s) || !conceals(field, *s))
            })
        })
    });
    if clear_corner { 0 } else { CONCEALMENT }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bare ground shortcut changes no verdict: random maps of walls, low walls, obstacles and edge
        /// features, every pair of adjacent squares and creatures of one or two squares.
        #[test]
        fn melee_cover_is_the_same_with_or_without_the_shortcut(
            cells in proptest::collection::vec(0u8..24, 36),
            edges in proptest::collection::vec((0u8..72, 0u8..3), 0..5),
            (ax, ay, side) in (0i32..6, 0i32..6, 1i32..3),
            (dx, dy) in (-2i32..3, -2i32..3),
        ) {
            let field = random_field(6, &cells, &edges);
            let attacker = Footprint::new(Square::new(ax, ay), side);
            let target = Footprint::new(Square::new(ax + dx, ay + dy), 1);
            prop_assert_eq!(
                melee_cover_traced(&field, ((attacker, 0), (target, 0)), true, Some(&[])),
                melee_cover_traced(&field, ((attacker, 0), (target, 0)), false, Some(&[]))
            );
        }

        /// The bare rectangle shortcut of ranged cover changes no verdict: random maps, mostly open, creatures
        /// of one or two squares anywhere, with or without a bystander.
        #[test]
        fn ranged_cover_is_the_same_with_or_without_the_shortcut(
            cells in proptest::collection::vec(0u8..60, 64),
            edges in proptest::collection::vec((0u8..128, 0u8..4), 0..3),
            (ax, ay, side) in (0i32..8, 0i32..8, 1i32..3),
            (tx, ty) in (0i32..8, 0i32..8),
            bystander in proptest::option::of((0i32..8, 0i32..8)),
        ) {
            let field = random_field(8, &cells, &edges);
            let attacker = Footprint::new(Square::new(ax, ay), side);
            let target = Footprint::new(Square::new(tx, ty), 1);
            prop_assume!(!attacker.overlaps(target));
            let by: Vec<Bystander> = bystander
                .map(|(x, y)| Bystander { id: "by".into(), footprint: Footprint::new(Square::new(x, y), 1) })
                .into_iter()
                .filter(|b| !b.footprint.overlaps(attacker) && !b.footprint.overlaps(target))
                .collect();
            prop_assert_eq!(
                ranged_cover_traced(&field, ((attacker, 0), (target, 0)), &by, true),
                ranged_cover_traced(&field, ((attacker, 0), (target, 0)), &by, false)
            );
        }
    }

    /// A square map `side` wide: each cell 0 a wall, 1 a low wall, 2 an obstacle terrain, 3 an obstacle laid
    /// over it, anything else open; each edge `(at, feature)` on the east (`at` below side²) or south side
    /// of square `at % side²`: a wall, a low wall, an arrow slit, an obstacle.
    fn random_field(side: i32, cells: &[u8], edges: &[(u8, u8)]) -> Battlefield {
        let mut field = Battlefield::open(side, side);
        for (i, cell) in cells.iter().enumerate() {
            let square = Square::new(i as i32 % side, i as i32 / side);
            match cell {
                0 => field.set_terrain(square, Terrain::Wall),
                1 => field.set_terrain(square, Terrain::LowWall),
                2 => field.set_terrain(square, Terrain::Obstacle),
                3 => field.set_obstacle(square, true),
                _ => {}
            }
        }
        let area = side * side;
        for &(at, feature) in edges {
            let i = i32::from(at) % area;
            let feature = [EdgeFeature::Wall, EdgeFeature::LowWall, EdgeFeature::ArrowSlit, EdgeFeature::Obstacle]
                [usize::from(feature)];
            field.set_edge(Edge { square: Square::new(i % side, i / side), east: i32::from(at) < area }, feature);
        }
        field
    }

    fn at(x: i32, y: i32) -> Footprint {
        Footprint::new(Square::new(x, y), 1)
    }

    #[test]
    fn fog_conceals_20_percent_and_darkvision_does_not_see_through_it() {
        let mut field = Battlefield::open(10, 5);
        for y in 0..5 {
            field.set_fog(Square::new(4, y), true);
        }
        // A shot across the fog bank: 20%, darkvision or not.
        assert_eq!(concealment(&field, at(1, 2), at(7, 2), false, false), CONCEALMENT);
        assert_eq!(concealment(&field, at(1, 2), at(7, 2), true, false), CONCEALMENT);
        // Standing in it: 20% even to an adjacent sword; beside it, nothing for the sword.
        assert_eq!(concealment(&field, at(3, 2), at(4, 2), false, true), CONCEALMENT);
        assert_eq!(concealment(&field, at(4, 2), at(5, 2), false, true), 0);
        // Darkness and fog together: the highest applies (004:411).
        field.set_dark(Square::new(7, 2), true);
        assert_eq!(concealment(&field, at(1, 2), at(7, 2), false, false), TOTAL_CONCEALMENT);
    }

    #[test]
    fn an_open_line_gives_no_cover() {
        let field = Battlefield::open(10, 10);
        assert_eq!(ranged_cover(&field, at(0, 0), at(6, 3), &[]), Cover::None);
    }

    #[test]
    fn a_line_from_high_above_passes_over_a_low_wall_004_400_004_783() {
        let mut field = Battlefield::open(12, 5);
        for y in 0..5 {
            field.set_terrain(Square::new(8, y), Terrain::LowWall);
        }
        let (archer, target) = (at(1, 2), at(9, 2));
        let from = |altitude| ranged_cover_at(&field, ((archer, altitude), (target, 0)), &[]);
        // On the ground, or just above it far away, the line runs through the wall.
        assert!(matches!(from(0), Cover::Hard { .. }));
        assert!(matches!(from(1), Cover::Hard { .. }));
        // 18 m up (12 steps), it comes down over the wall's square well above its top.
        assert_eq!(from(12), Cover::None);
        // Two fliers above it: nothing in the way.
        assert_eq!(ranged_cover_at(&field, ((archer, 4), (target, 4)), &[]), Cover::None);
    }

    #[test]
    fn a_low_wall_covers_a_target_near_it_004_400() {
        let mut field = Battlefield::open(12, 5);
        for y in 0..5 {
            field.set_terrain(Square::new(8, y), Terrain::LowWall);
        }
        let target = at(9, 2);
        assert!(matches!(ranged_cover(&field, at(1, 2), target, &[]), Cover::Hard { .. }));
        assert_eq!(ranged_cover(&field, at(1, 2), target, &[]).bonus(), 4);
        // An attacker nearer to the wall than the target ignores it.
        let wall_at = |x: i32| {
            let mut f = Battlefield::open(20, 5);
            for y in 0..5 {
                f.set_terrain(Square::new(x, y), Terrain::LowWall);
            }
            f
        };
        assert!(
            matches!(ranged_cover(&wall_at(5), at(0, 2), at(9, 2), &[]), Cover::Hard { .. }),
            "the target is nearer"
        );
        assert_eq!(ranged_cover(&wall_at(5), at(4, 2), at(9, 2), &[]), Cover::None, "the archer stands at the wall");
        // A target more than 9 m from the wall gets nothing from it, even with the attacker farther still.
        assert_eq!(ranged_cover(&wall_at(10), at(0, 2), at(17, 2), &[]), Cover::None);
        assert!(
            matches!(ranged_cover(&wall_at(10), at(0, 2), at(16, 2), &[]), Cover::Hard { .. }),
            "6 squares: still covered"
        );
    }

    #[test]
    fn a_creature_gives_soft_cover_to_ranged_attacks() {
        let field = Battlefield::open(10, 3);
        let ogre = Bystander { id: "goblin-2".into(), footprint: at(4, 1) };
        assert_eq!(ranged_cover(&field, at(1, 1), at(7, 1), &[ogre]), Cover::Soft { creature: "goblin-2".into() });
    }

    #[test]
    fn a_wall_between_gives_total_cover_and_a_corner_gives_cover() {
        let mut field = Battlefield::open(10, 5);
        for y in 0..5 {
            field.set_terrain(Square::new(4, y), Terrain::Wall);
        }
        assert_eq!(ranged_cover(&field, at(1, 2), at(7, 2), &[]), Cover::Total);
        // Around the end of a wall: some lines pass, some are blocked.
        let mut field = Battlefield::open(10, 6);
        for y in 0..3 {
            field.set_terrain(Square::new(4, y), Terrain::Wall);
        }
        assert!(matches!(ranged_cover(&field, at(1, 3), at(7, 2), &[]), Cover::Hard { .. }));
    }

    #[test]
    fn darkness_conceals_from_those_without_darkvision_004_407() {
        let mut field = Battlefield::open(10, 3);
        field.set_dark(Square::new(7, 1), true);
        assert_eq!(concealment(&field, at(1, 1), at(7, 1), false, false), TOTAL_CONCEALMENT);
        assert_eq!(concealment(&field, at(1, 1), at(7, 1), true, false), 0, "darkvision sees through");
        let mut field = Battlefield::open(10, 3);
        for y in 0..3 {
            field.set_dark(Square::new(4, y), true);
        }
        assert_eq!(concealment(&field, at(1, 1), at(7, 1), false, false), CONCEALMENT, "shooting across a dark band");
        assert_eq!(concealment(&field, at(6, 1), at(7, 1), false, true), 0, "melee beside a lit target");
    }

    #[test]
    fn an_arrow_slit_gives_improved_cover_to_the_creature_at_it_004_407() {
        // A wall along x = 4|5 with a slit on the east edge of (4,2).
        let mut field = Battlefield::open(10, 5);
        for y in 0..5 {
            let feature = if y == 2 { EdgeFeature::ArrowSlit } else { EdgeFeature::Wall };
            field.set_edge(Edge { square: Square::new(4, y), east: true }, feature);
        }
        let archer_at_slit = at(4, 2);
        let cover = ranged_cover(&field, at(8, 2), archer_at_slit, &[]);
        assert!(matches!(cover, Cover::Improved { .. }), "{cover:?}");
        assert_eq!(cover.bonus(), 8);
        // The archer at the slit shoots out freely.
        assert_eq!(ranged_cover(&field, archer_at_slit, at(8, 2), &[]), Cover::None);
        assert_eq!(ranged_cover(&field, archer_at_slit, at(8, 0), &[]), Cover::None);
        // Nobody at the slit: it is a wall.
        assert_eq!(ranged_cover(&field, at(2, 2), at(8, 2), &[]), Cover::Total);
        // A sword through the slit: improved cover for the one behind it.
        assert!(matches!(melee_cover(&field, at(5, 2), archer_at_slit), Cover::Improved { .. }));
        assert!(!field.line_of_sight(at(2, 2), at(8, 2)));
    }

    #[test]
    fn a_large_target_is_seen_by_its_best_square_004_405() {
        // A wall down x = 5 for rows 0 to 3: a Large ogre at (7,3)-(8,4) has one row below the wall's end.
        let mut field = Battlefield::open(10, 6);
        for y in 0..4 {
            field.set_terrain(Square::new(5, y), Terrain::Wall);
        }
        let ogre = Footprint::new(Square::new(7, 3), 2);
        assert_eq!(ranged_cover(&field, at(1, 4), ogre, &[]), Cover::None, "its lower squares are in plain sight");
        assert_eq!(ranged_cover(&field, at(1, 2), at(7, 2), &[]), Cover::Total, "a Medium one behind the wall is not");
    }

    #[test]
    fn a_wall_square_covers_an_adjacent_melee_target_004_399() {
        let mut f = Battlefield::open(3, 3);
        f.set_terrain(Square::new(1, 0), Terrain::Wall);
        assert_eq!(melee_cover(&f, at(0, 0), at(1, 1)).bonus(), 4, "a line through the wall square");
        assert!(matches!(melee_cover(&f, at(0, 0), at(1, 1)), Cover::Hard { .. }));
        f.set_terrain(Square::new(0, 1), Terrain::Wall);
        assert_eq!(melee_cover(&f, at(0, 0), at(1, 1)), Cover::Total, "every line through a wall or the corner");
        let mut f = Battlefield::open(3, 3);
        f.set_terrain(Square::new(1, 0), Terrain::LowWall);
        assert!(matches!(melee_cover(&f, at(0, 0), at(1, 1)), Cover::Hard { .. }), "a low wall square");
        let open = Battlefield::open(3, 3);
        assert_eq!(melee_cover(&open, at(0, 0), at(1, 1)), Cover::None);
        assert_eq!(melee_cover(&open, at(0, 0), at(1, 0)), Cover::None);
        let mut f = Battlefield::open(3, 3);
        f.set_edge(Edge { square: Square::new(0, 0), east: true }, EdgeFeature::Wall);
        assert_eq!(melee_cover(&f, at(0, 0), at(1, 0)), Cover::Total, "a wall between: no line of effect (004:406)");
        // The wall ends on the corner the two squares below share, beyond them: it is between no line of
        // theirs (it stands along the squares above).
        assert_eq!(melee_cover(&f, at(0, 1), at(1, 1)), Cover::None, "a wall ending on their shared edge's end");
    }

    #[test]
    fn melee_over_a_low_wall_edge_004_399() {
        let mut field = Battlefield::open(5, 5);
        field.set_edge(Edge { square: Square::new(1, 1), east: true }, EdgeFeature::LowWall);
        assert!(matches!(melee_cover(&field, at(1, 1), at(2, 1)), Cover::Hard { .. }));
        assert_eq!(melee_cover(&field, at(1, 2), at(2, 2)), Cover::None);
    }
}
