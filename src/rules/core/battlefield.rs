//! The battlefield: terrain of every square, darkness, and the walls and obstacles that stand on the
//! edges between squares (000:91-123; 001 allows obstacles on edges).

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::rules::core::geometry::{Corner, Direction, Edge, Footprint, LineTrace, Square, trace_between};
use crate::rules::core::memo::Memo;

/// What covers the ground of a square.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Terrain {
    /// Open ground.
    #[default]
    Floor,
    /// Terrain difficile: each square costs double; no running, charging or 5-foot step (000:92-98).
    Difficult,
    /// An obstacle that hampers without stopping (a bed of branches): crossed at double cost on top of
    /// the free square beyond, never stopped on (000:99-105).
    Obstacle,
    /// A low wall ("muret"): an obstacle like the above that also gives cover (004:400).
    LowWall,
    /// A wall from floor to ceiling: blocks movement, sight and attacks (000:106-107).
    Wall,
    /// A pit: no path enters or crosses it (002:58); fliers pass over.
    Pit,
    /// Shallow water: hampers walkers like difficult terrain (our ruling); swimmers and fliers move freely.
    Water,
    /// Deep water: over the head of a Medium creature, to the chest of a Large one; whoever is in it fights
    /// by the underwater table (004:632-645, `core::water`).
    DeepWater,
}

impl Terrain {
    /// Whether it stops every movement but incorporeal creatures.
    pub const fn blocks(self) -> bool {
        matches!(self, Terrain::Wall)
    }

    /// Whether it is an obstacle that must be crossed, not stopped on.
    pub const fn is_obstacle(self) -> bool {
        matches!(self, Terrain::Obstacle | Terrain::LowWall)
    }
}

/// What stands on the edge between two squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EdgeFeature {
    /// A wall: nothing crosses, nor cuts its ends diagonally.
    Wall,
    /// A low wall on the edge: crossing costs 2 more squares (RULES-INDEX) and it gives cover.
    LowWall,
    /// A hindering obstacle on the edge: crossing costs 2 more squares.
    Obstacle,
    /// A wall pierced by an arrow slit: nothing crosses it, but a creature standing at it sees and shoots
    /// through it, and has improved cover against attacks through it (004:407, ruled in docs/rulings.md).
    ArrowSlit,
}

impl EdgeFeature {
    /// Whether it stops movement and cuts the corners at its ends like a wall.
    pub fn is_wall(self) -> bool {
        matches!(self, EdgeFeature::Wall | EdgeFeature::ArrowSlit)
    }
}

/// The switches a table may turn against the texts, the texts being the default; each names the line it
/// departs from. A level sets them (`house_rules:`) and the map carries them, so that the rules, the
/// previews, the AI and the simulator all follow the same switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HouseRules {
    /// Flanking: +2 to hit a foe an ally threatens from the opposite side (004:417). Off: no flanking.
    pub flanking: bool,
    /// Massive damage: 50 or more from one attack calls for a Fortitude save DC 15 or death (004:272).
    /// Off: no such save.
    pub massive_damage: bool,
    /// A threat is a critical hit only if a second attack roll hits (004:185). Off: every threat is one.
    pub confirm_criticals: bool,
    /// Attacks of opportunity a creature may make in a round, before Combat Reflexes adds its Dexterity
    /// bonus (004:71: one).
    pub attacks_of_opportunity: u32,
    /// How diagonals count: 1-2-1-2 (000:59-61), or every diagonal one square.
    pub diagonals: crate::rules::core::geometry::Diagonals,
}

impl Default for HouseRules {
    fn default() -> Self {
        HouseRules {
            flanking: true,
            massive_damage: true,
            confirm_criticals: true,
            attacks_of_opportunity: 1,
            diagonals: crate::rules::core::geometry::Diagonals::Alternating,
        }
    }
}

impl HouseRules {
    /// Whether they are the texts' (a level then writes none).
    pub fn is_default(&self) -> bool {
        *self == HouseRules::default()
    }

    /// Each departure from the texts in words, with the line it departs from.
    pub fn departures(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.flanking {
            out.push("no flanking (004:417)".to_string());
        }
        if !self.massive_damage {
            out.push("no massive damage (004:272)".to_string());
        }
        if !self.confirm_criticals {
            out.push("threats are criticals unconfirmed (004:185)".to_string());
        }
        if self.diagonals == crate::rules::core::geometry::Diagonals::Single {
            out.push("every diagonal one square (000:59-61)".to_string());
        }
        if self.attacks_of_opportunity != 1 {
            out.push(format!("{} attacks of opportunity a round (004:71)", self.attacks_of_opportunity));
        }
        out
    }
}

/// How diagonals count in the fight `world` holds (its battlefield's house rules; the texts' 1-2-1-2 when
/// it holds none).
pub fn diagonals_in(world: &World) -> crate::rules::core::geometry::Diagonals {
    world.get_resource::<Battlefield>().map(Battlefield::diagonals).unwrap_or_default()
}

/// The map of the fight, in squares. `(0,0)` is the north-west square.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub struct Battlefield {
    width: i32,
    height: i32,
    terrain: Vec<Terrain>,
    dark: Vec<bool>,
    /// Fog, smoke or foliage: concealment, 20% (004:408-416).
    fog: Vec<bool>,
    /// Difficult ground laid over a square's terrain (the level's `difficult` layer): an obstacle or a
    /// dark square can be in difficult terrain too, and the costs multiply (003:47).
    difficult: Vec<bool>,
    /// An obstacle laid over a square's terrain (the level's `obstacles` layer): crossed, never stopped on.
    obstacle: Vec<bool>,
    /// Per square: the feature on its east edge, then on its south edge. Edges of squares off the map are
    /// not kept: outside the map is wall already.
    edges: Vec<[Option<EdgeFeature>; 2]>,
    /// The scale of its squares (004:647-652).
    scale: crate::rules::core::altitude::Scale,
    /// The table's switches against the texts.
    house: HouseRules,
    /// How deep its pits are, in centimetres (the level's `pit_depth`, in metres).
    pit_depth_cm: u32,
    /// Tables the chapters derive from this map (the ground's cost of each step), dropped on any change.
    derived: Memo,
}

impl Battlefield {
    /// Tables the chapters derive from this map and keep until it changes.
    pub fn derived(&self) -> &Memo {
        &self.derived
    }

    /// An open floor of `width` x `height` squares.
    pub fn open(width: i32, height: i32) -> Self {
        let n = (width.max(0) * height.max(0)) as usize;
        Battlefield {
            width,
            height,
            terrain: vec![Terrain::Floor; n],
            dark: vec![false; n],
            fog: vec![false; n],
            difficult: vec![false; n],
            obstacle: vec![false; n],
            edges: vec![[None; 2]; n],
            scale: crate::rules::core::altitude::Scale::Normal,
            house: HouseRules::default(),
            pit_depth_cm: 300,
            derived: Memo::default(),
        }
    }

    /// The scale of its squares: 1.5 m, or 9 m for a chase (004:647-652).
    pub fn scale(&self) -> crate::rules::core::altitude::Scale {
        self.scale
    }

    /// Sets the scale of its squares.
    pub fn set_scale(&mut self, scale: crate::rules::core::altitude::Scale) {
        self.derived.clear();
        self.scale = scale;
    }

    /// The table's switches against the texts, played on this map.
    pub fn house_rules(&self) -> HouseRules {
        self.house
    }

    /// How its diagonals count, as its house rules have it (000:59-61).
    pub fn diagonals(&self) -> crate::rules::core::geometry::Diagonals {
        self.house.diagonals
    }

    /// How deep its pits are, in metres: a creature pushed into one falls that far (our ruling,
    /// docs/rulings.md).
    pub fn pit_depth_m(&self) -> f32 {
        self.pit_depth_cm as f32 / 100.0
    }

    /// Sets how deep its pits are.
    pub fn set_pit_depth_m(&mut self, depth: f32) {
        self.pit_depth_cm = (depth.max(0.0) * 100.0).round() as u32;
    }

    /// Sets the table's switches.
    pub fn set_house_rules(&mut self, house: HouseRules) {
        self.derived.clear();
        self.house = house;
    }

    /// Squares from west to east.
    pub fn width(&self) -> i32 {
        self.width
    }

    /// Squares from north to south.
    pub fn height(&self) -> i32 {
        self.height
    }

    /// Whether `square` is on the map.
    pub fn contains(&self, square: Square) -> bool {
        square.x >= 0 && square.y >= 0 && square.x < self.width && square.y < self.height
    }

    fn index(&self, square: Square) -> Option<usize> {
        self.contains(square).then(|| (square.y * self.width + square.x) as usize)
    }

    /// The terrain of a square; outside the map counts as wall.
    pub fn terrain(&self, square: Square) -> Terrain {
        self.index(square).map_or(Terrain::Wall, |i| self.terrain[i])
    }

    /// Whether any square of the map is a pit (a bull rush may then push a foe into one).
    pub fn has_pit(&self) -> bool {
        self.terrain.contains(&Terrain::Pit)
    }

    /// Sets the terrain of a square on the map.
    pub fn set_terrain(&mut self, square: Square, terrain: Terrain) {
        self.derived.clear();
        if let Some(i) = self.index(square) {
            self.terrain[i] = terrain;
        }
    }

    /// Whether a square lies in darkness or poor visibility (hampering x2, no 5-foot step, 004:261).
    pub fn is_dark(&self, square: Square) -> bool {
        self.index(square).is_some_and(|i| self.dark[i])
    }

    /// Whether fog, smoke or foliage conceals a square (20%, 004:408-416).
    pub fn is_foggy(&self, square: Square) -> bool {
        self.index(square).is_some_and(|i| self.fog.get(i).copied().unwrap_or(false))
    }

    /// Puts fog on a square or takes it off.
    pub fn set_fog(&mut self, square: Square, fog: bool) {
        self.derived.clear();
        if let Some(i) = self.index(square) {
            self.fog[i] = fog;
        }
    }

    /// Whether a walker's step into `square` is hampered by difficult ground: its terrain (difficult,
    /// shallow water) or the difficult layer over it (000:92-98).
    pub fn is_difficult(&self, square: Square) -> bool {
        matches!(self.terrain(square), Terrain::Difficult | Terrain::Water)
            || self.index(square).is_some_and(|i| self.difficult[i])
    }

    /// Whether an obstacle stands on `square`: its terrain (obstacle, low wall) or the obstacles layer over
    /// it; crossed at double cost, never stopped on (000:99-105).
    pub fn has_obstacle(&self, square: Square) -> bool {
        self.terrain(square).is_obstacle() || self.index(square).is_some_and(|i| self.obstacle[i])
    }

    /// Lays difficult ground over a square's terrain, or takes it off.
    pub fn set_difficult(&mut self, square: Square, difficult: bool) {
        self.derived.clear();
        if let Some(i) = self.index(square) {
            self.difficult[i] = difficult;
        }
    }

    /// Lays an obstacle over a square's terrain, or takes it off.
    pub fn set_obstacle(&mut self, square: Square, obstacle: bool) {
        self.derived.clear();
        if let Some(i) = self.index(square) {
            self.obstacle[i] = obstacle;
        }
    }

    /// Darkens or lights a square.
    pub fn set_dark(&mut self, square: Square, dark: bool) {
        self.derived.clear();
        if let Some(i) = self.index(square) {
            self.dark[i] = dark;
        }
    }

    /// What stands on an edge.
    pub fn edge(&self, edge: Edge) -> Option<EdgeFeature> {
        self.index(edge.square).and_then(|i| self.edges[i][usize::from(!edge.east)])
    }

    /// Puts a feature on an edge (of a square on the map; the map's outer edges are walls already).
    pub fn set_edge(&mut self, edge: Edge, feature: EdgeFeature) {
        self.derived.clear();
        if let Some(i) = self.index(edge.square) {
            self.edges[i][usize::from(!edge.east)] = Some(feature);
        }
    }

    /// Every edge feature, row by row.
    pub fn edges(&self) -> impl Iterator<Item = (Edge, EdgeFeature)> + '_ {
        self.squares().flat_map(move |square| {
            let i = (square.y * self.width + square.x) as usize;
            [true, false]
                .into_iter()
                .filter_map(move |east| self.edges[i][usize::from(!east)].map(|f| (Edge { square, east }, f)))
        })
    }

    /// The feature on the edge crossed by an orthogonal step.
    pub fn edge_crossed(&self, from: Square, direction: Direction) -> Option<EdgeFeature> {
        Edge::crossed(from, direction).and_then(|e| self.edge(e))
    }

    /// Whether a wall edge ends at or passes through `corner`: a diagonal step through that corner
    /// would cut the wall (000:61, 002:56).
    pub fn wall_touches_corner(&self, corner: Corner) -> bool {
        let (x, y) = (corner.x, corner.y);
        let around = [
            Edge { square: Square::new(x - 1, y - 1), east: true },
            Edge { square: Square::new(x - 1, y), east: true },
            Edge { square: Square::new(x - 1, y - 1), east: false },
            Edge { square: Square::new(x, y - 1), east: false },
        ];
        around.iter().any(|e| self.edge(*e).is_some_and(EdgeFeature::is_wall))
    }

    /// Every square of the map, row by row.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Square::new(x, y)))
    }
}

impl Battlefield {
    /// Whether a straight line from some corner of a square of `from` to some corner of a square of `to`
    /// is not [blocked](Self::line_blocked): line of sight for a charge (004:454), the AI's aim, pursuit.
    pub fn line_of_sight(&self, from: Footprint, to: Footprint) -> bool {
        let corners = |f: Footprint| f.squares().flat_map(|s| Corner::of(s).map(move |c| (s, c))).collect::<Vec<_>>();
        let (ours, theirs) = (corners(from), corners(to));
        ours.iter()
            .any(|&(a, ac)| theirs.iter().any(|&(b, bc)| !self.line_blocked(&trace_between(a, ac, b, bc), from, to)))
    }

    /// Whether the line `trace`, drawn from a corner of `from` to a corner of `to`, is blocked: it enters a
    /// wall square or crosses a wall edge; runs along an edge that is a wall or lies between two wall squares;
    /// slips through a corner between two wall squares or one a wall edge touches. An arrow slit lets the
    /// line through only for a creature standing at it (004:407). The one predicate of what stops a line
    /// (004:398, 004:406), shared by cover, melee cover and line of sight.
    pub fn line_blocked(&self, trace: &LineTrace, from: Footprint, to: Footprint) -> bool {
        let wall = |s: Square| self.terrain(s).blocks();
        let ends = |s: Square| from.contains(s) || to.contains(s);
        let crosses_wall = |e: &Edge| match self.edge(*e) {
            Some(EdgeFeature::Wall) => true,
            Some(EdgeFeature::ArrowSlit) => {
                let (p, q) = e.squares();
                !(ends(p) || ends(q))
            }
            _ => false,
        };
        let between_walls = |e: &Edge| {
            let (p, q) = e.squares();
            self.edge(*e).is_some_and(EdgeFeature::is_wall) || (wall(p) && wall(q))
        };
        trace.squares.iter().any(|&s| !ends(s) && wall(s))
            || trace.crossed_edges.iter().any(crosses_wall)
            || trace.along_edges.iter().any(between_walls)
            || trace.corners_passed.iter().any(|(c, [p, q])| (wall(*p) && wall(*q)) || self.wall_touches_corner(*c))
            || trace.corners_along.iter().any(|c| self.corner_closed(*c))
            || trace.crossed_at_corners.iter().any(|[p, q]| crosses_wall(p) && crosses_wall(q))
    }

    /// Whether no line passes through `corner`: a wall edge ends at it or runs through it, or two wall squares
    /// meet diagonally there (the wall leaves no gap of zero width).
    pub fn corner_closed(&self, corner: Corner) -> bool {
        let wall = |x: i32, y: i32| self.terrain(Square::new(x, y)).blocks();
        let (x, y) = (corner.x, corner.y);
        self.wall_touches_corner(corner) || (wall(x - 1, y - 1) && wall(x, y)) || (wall(x, y - 1) && wall(x - 1, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walls_block_the_line_of_sight() {
        use crate::rules::core::geometry::Footprint;
        let mut field = Battlefield::open(7, 3);
        let a = Footprint::new(Square::new(0, 1), 1);
        let b = Footprint::new(Square::new(6, 1), 1);
        assert!(field.line_of_sight(a, b));
        for y in 0..3 {
            field.set_terrain(Square::new(3, y), Terrain::Wall);
        }
        assert!(!field.line_of_sight(a, b));
        let mut field = Battlefield::open(7, 3);
        field.set_terrain(Square::new(3, 1), Terrain::Wall);
        assert!(field.line_of_sight(a, b), "around a single pillar");
        // A diagonal line of wall squares leaves no gap to see through at the corners where they touch.
        let mut field = Battlefield::open(4, 4);
        for i in 0..4 {
            field.set_terrain(Square::new(i, i), Terrain::Wall);
        }
        let (below, above) = (Footprint::new(Square::new(0, 3), 1), Footprint::new(Square::new(3, 0), 1));
        assert!(!field.line_of_sight(below, above));
        field.set_terrain(Square::new(2, 2), Terrain::Floor);
        assert!(field.line_of_sight(below, above), "through the gap");
    }

    #[test]
    fn outside_the_map_is_wall() {
        let field = Battlefield::open(3, 2);
        assert_eq!(field.terrain(Square::new(2, 1)), Terrain::Floor);
        assert_eq!(field.terrain(Square::new(3, 1)), Terrain::Wall);
        assert_eq!(field.terrain(Square::new(-1, 0)), Terrain::Wall);
    }

    #[test]
    fn wall_edges_touch_their_end_corners() {
        let mut field = Battlefield::open(4, 4);
        // A wall on the east edge of (1,1): from corner (2,1) to corner (2,2).
        field.set_edge(Edge { square: Square::new(1, 1), east: true }, EdgeFeature::Wall);
        assert!(field.wall_touches_corner(Corner { x: 2, y: 1 }));
        assert!(field.wall_touches_corner(Corner { x: 2, y: 2 }));
        assert!(!field.wall_touches_corner(Corner { x: 1, y: 1 }));
        assert_eq!(field.edge_crossed(Square::new(2, 1), Direction::West), Some(EdgeFeature::Wall));
        assert_eq!(field.edge_crossed(Square::new(2, 1), Direction::North), None);
    }
}
