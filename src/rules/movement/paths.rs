//! Paths: every square a creature can reach with a movement budget and what it costs, the cheapest
//! legal path to a square (shortest first, then fewest hampered squares), and the check of a path
//! given step by step. This is what the move preview draws, so it is written to run within a frame.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use super::cost::{Blocked, Mover, StepWorld, step_cost};
use crate::rules::geometry::{Direction, Footprint, Square};

/// Limits of one search beyond its budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchRules {
    /// No hampered square may be entered (running and charging, 000:94-95; the 5-foot step, 004:261).
    pub no_hampered: bool,
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
}

/// The result of a search from one start: for each square, the cheapest way to reach it.
#[derive(Clone, Debug)]
pub struct ReachMap {
    origin: Square,
    width: i32,
    height: i32,
    start: Square,
    budget: u32,
    /// Per (square, alternation): best (cost, hampered), the previous node, whether one may stop there.
    nodes: Vec<Node>,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    cost: u32,
    hampered: u32,
    step_cost: u32,
    step_hampered: bool,
    previous: u32,
    can_stop: bool,
}

const UNSEEN: u32 = u32::MAX;

impl Node {
    const EMPTY: Node =
        Node { cost: UNSEEN, hampered: 0, step_cost: 0, step_hampered: false, previous: UNSEEN, can_stop: false };
}

/// Where one may end a move, and at what cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Destination {
    /// North-west square of the footprint there.
    pub square: Square,
    /// Squares of movement spent.
    pub cost: u32,
    /// Hampered steps on the cheapest path.
    pub hampered: u32,
}

impl ReachMap {
    fn index(&self, square: Square, odd: bool) -> Option<usize> {
        let (x, y) = (square.x - self.origin.x, square.y - self.origin.y);
        (x >= 0 && y >= 0 && x < self.width && y < self.height)
            .then(|| ((y * self.width + x) as usize) * 2 + usize::from(odd))
    }

    fn square_of(&self, index: usize) -> (Square, bool) {
        let cell = (index / 2) as i32;
        (Square::new(self.origin.x + cell % self.width, self.origin.y + cell / self.width), index % 2 == 1)
    }

    /// The budget searched with.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// The best node for a square over both alternation states: (index, node).
    fn best(&self, square: Square) -> Option<(usize, Node)> {
        [false, true]
            .into_iter()
            .filter_map(|odd| self.index(square, odd).map(|i| (i, self.nodes[i])))
            .filter(|(_, n)| n.cost != UNSEEN && n.can_stop)
            .min_by_key(|(_, n)| (n.cost, n.hampered))
    }

    /// Every square where the move may end, with its cost, the start excluded.
    pub fn destinations(&self) -> Vec<Destination> {
        let mut out = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let square = Square::new(self.origin.x + x, self.origin.y + y);
                if square == self.start {
                    continue;
                }
                if let Some((_, n)) = self.best(square) {
                    out.push(Destination { square, cost: n.cost, hampered: n.hampered });
                }
            }
        }
        out
    }

    /// The cost to end the move at `square`, if it can be reached and stopped on.
    pub fn cost_to(&self, square: Square) -> Option<u32> {
        self.best(square).map(|(_, n)| n.cost)
    }

    /// The cheapest path to `square` (fewest hampered squares among the cheapest).
    pub fn route_to(&self, square: Square) -> Option<Route> {
        let (mut index, _) = self.best(square)?;
        let mut steps = Vec::new();
        loop {
            let node = self.nodes[index];
            if node.previous == UNSEEN {
                break;
            }
            let (sq, _) = self.square_of(index);
            steps.push(PathStep { square: sq, cost: node.step_cost, spent: node.cost, hampered: node.step_hampered });
            index = node.previous as usize;
        }
        steps.reverse();
        let cost = steps.last().map_or(0, |s| s.spent);
        let hampered = steps.iter().filter(|s| s.hampered).count() as u32;
        Some(Route { steps, cost, hampered })
    }
}

/// Searches every square `mover` can reach from `start` spending at most `budget` squares, with the
/// diagonal alternation counted along the whole path (RULES-INDEX ruling). Dijkstra over (square,
/// alternation), ordered by cost then hampered steps.
pub fn reachable(world: &StepWorld<'_>, mover: &Mover, start: Footprint, budget: u32, rules: SearchRules) -> ReachMap {
    let reach = budget.min(4096) as i32 + 1;
    let origin = Square::new((start.origin.x - reach).max(-1), (start.origin.y - reach).max(-1));
    let far = Square::new(
        (start.origin.x + reach).min(world.field.width()),
        (start.origin.y + reach).min(world.field.height()),
    );
    let mut map = ReachMap {
        origin,
        width: far.x - origin.x + 1,
        height: far.y - origin.y + 1,
        start: start.origin,
        budget,
        nodes: Vec::new(),
    };
    map.nodes = vec![Node::EMPTY; (map.width * map.height * 2) as usize];
    let Some(first) = map.index(start.origin, false) else { return map };
    map.nodes[first] = Node { cost: 0, can_stop: true, ..Node::EMPTY };
    let mut queue = BinaryHeap::new();
    queue.push(Reverse((0u32, 0u32, first)));
    while let Some(Reverse((cost, hampered, index))) = queue.pop() {
        let node = map.nodes[index];
        if (node.cost, node.hampered) < (cost, hampered) {
            continue;
        }
        let (square, odd) = map.square_of(index);
        let here = start.at(square);
        for direction in Direction::ALL {
            let Ok((to, entry)) = world.step(mover, here, direction, start) else { continue };
            let step_hampered = entry.hampering.doublings > 0 || entry.hampering.edge_extra > 0;
            if rules.no_hampered && step_hampered {
                continue;
            }
            let (step, next_odd) = step_cost(direction.is_diagonal(), entry.hampering, odd);
            let total = cost + step;
            if total > budget {
                continue;
            }
            let Some(next) = map.index(to.origin, next_odd) else { continue };
            let key = (total, hampered + u32::from(step_hampered));
            let old = map.nodes[next];
            if old.cost == UNSEEN || key < (old.cost, old.hampered) {
                map.nodes[next] = Node {
                    cost: total,
                    hampered: key.1,
                    step_cost: step,
                    step_hampered,
                    previous: index as u32,
                    can_stop: entry.can_stop,
                };
                queue.push(Reverse((key.0, key.1, next)));
            }
        }
    }
    map
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
    let mut odd = false;
    let mut route = Route::default();
    let mut last_can_stop = true;
    for (i, &square) in path.iter().enumerate() {
        let refuse = |blocked| PathRefused { step: i, square, blocked };
        let Some(direction) = here.origin.direction_to(square) else {
            return Err(refuse(Blocked::CannotStop { square, what: format!("not next to {}", here.origin) }));
        };
        let (to, entry) = world.step(mover, here, direction, start).map_err(refuse)?;
        let hampered = entry.hampering.doublings > 0 || entry.hampering.edge_extra > 0;
        if rules.no_hampered && hampered {
            return Err(refuse(Blocked::CannotStop {
                square,
                what: "hampered square (no running, charging or 5-foot step there)".into(),
            }));
        }
        let (cost, next_odd) = step_cost(direction.is_diagonal(), entry.hampering, odd);
        odd = next_odd;
        route.cost += cost;
        route.hampered += u32::from(hampered);
        route.steps.push(PathStep { square, cost, spent: route.cost, hampered });
        here = to;
        last_can_stop = entry.can_stop;
    }
    if !last_can_stop {
        let square = here.origin;
        return Err(PathRefused {
            step: path.len().saturating_sub(1),
            square,
            blocked: Blocked::CannotStop { square, what: "occupied, or an obstacle that must be crossed".into() },
        });
    }
    Ok(route)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::battlefield::{Battlefield, Terrain};
    use crate::rules::size::Size;

    fn open_world(field: &Battlefield) -> StepWorld<'_> {
        StepWorld { field, occupants: &[] }
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
            .filter(|&(dx, dy)| (dx, dy) != (0, 0) && crate::rules::geometry::distance_squares(dx, dy) <= 6)
            .count();
        assert_eq!(map.destinations().len(), expected);
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
            SearchRules { no_hampered: true },
        );
        assert!(running.is_err());
    }
}
