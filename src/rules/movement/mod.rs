//! Movement and position (000-003, 004:212-262, 004:309-371): the movement actions, their allowances,
//! and the plugin that carries out [`MoveIntent`]s square by square.

pub mod cost;
pub mod lanes;
pub mod paths;
pub mod table;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

pub use cost::{Blocked, Medium, Mover, Occupant, StepWorld, squeeze_width, walls_between, walls_in_the_way};
pub use lanes::{ChargeLane, NoCharge, by_a_die, charge_lanes, straight_line, straight_reachable};
pub use paths::{Danger, Destination, PathStep, Route, SearchRules, nearest, reachable, settle, walk_path};

use crate::rules::core::altitude::{Scale, vertical_steps};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::{Footprint, Square, squares_to_metres};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;

/// The ways to move in a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementAction {
    /// A move action: up to speed (004:214).
    Move,
    /// Two move actions: up to twice the speed, one path (000:17-18).
    DoubleMove,
    /// Run, a full-round action: x4 speed (x3 heavy), no hampered square, loses Dex to AC (004:248-251).
    Run,
    /// Withdraw, a full-round action: twice the speed, the first square does not provoke from visible foes
    /// (004:243-247).
    Withdraw,
    /// The 5-foot step: one square, never provokes (004:259-262).
    FiveFootStep,
    /// Minimum movement: one square whatever the hampering, a full-round action that provokes (000:139-144,
    /// 004:252).
    MinimumMovement,
    /// Charge, a full-round action: a straight clear lane of 2 squares to twice the speed to the nearest
    /// square from which to attack the target, then one attack at +2 (004:451-459).
    Charge,
    /// Crawl: a creature lying prone moves 1.5 m as a move action, provoking from every foe that threatens
    /// it at any point of it, the squares it enters too (004:217).
    Crawl,
}

impl MovementAction {
    /// All of them, in the order a player reads them.
    pub const ALL: [MovementAction; 8] = [
        MovementAction::FiveFootStep,
        MovementAction::Crawl,
        MovementAction::Move,
        MovementAction::DoubleMove,
        MovementAction::Run,
        MovementAction::Withdraw,
        MovementAction::MinimumMovement,
        MovementAction::Charge,
    ];

    /// The name used in facts and scenarios.
    pub fn name(self) -> &'static str {
        match self {
            MovementAction::Move => "move",
            MovementAction::DoubleMove => "double_move",
            MovementAction::Run => "run",
            MovementAction::Withdraw => "withdraw",
            MovementAction::FiveFootStep => "five_foot_step",
            MovementAction::MinimumMovement => "minimum_movement",
            MovementAction::Charge => "charge",
            MovementAction::Crawl => "crawl",
        }
    }

    /// Its name in plain words, as a message says it ("double move").
    pub fn words(self) -> String {
        self.name().replace('_', " ")
    }

    /// The action as the log names it.
    pub fn action(self) -> crate::rules::core::names::Action {
        use crate::rules::core::names::Action;
        match self {
            MovementAction::Move => Action::Move,
            MovementAction::DoubleMove => Action::DoubleMove,
            MovementAction::Run => Action::Run,
            MovementAction::Withdraw => Action::Withdraw,
            MovementAction::FiveFootStep => Action::FiveFootStep,
            MovementAction::MinimumMovement => Action::MinimumMovement,
            MovementAction::Charge => Action::Charge,
            MovementAction::Crawl => Action::Crawl,
        }
    }

    /// Search limits: no hampered square when running (000:94-95) or for a 5-foot step (004:261); a
    /// withdrawal only by a form of movement one has a speed for (004:245).
    pub fn search_rules(self) -> SearchRules {
        SearchRules {
            no_hampered: matches!(self, MovementAction::Run | MovementAction::FiveFootStep | MovementAction::Charge),
            odd_diagonal: false,
            dry: self == MovementAction::Withdraw,
        }
    }
}

/// Squares of movement an action allows for a creature of `speed` squares.
pub fn allowance(action: MovementAction, speed: u32, run_multiplier: u32) -> u32 {
    match action {
        MovementAction::Move => speed,
        MovementAction::DoubleMove | MovementAction::Withdraw | MovementAction::Charge => speed * 2,
        MovementAction::Run => speed * run_multiplier,
        MovementAction::FiveFootStep | MovementAction::MinimumMovement | MovementAction::Crawl => 1,
    }
}

/// Whether `mover` may stand on `at`, as a move's end must (000:126-129): on the map, no wall, pit or
/// obstacle, no creature it may not share a space with ([`StepWorld::enter`]'s `can_stop`). The mover is
/// not among the world's occupants.
pub fn legal_space(world: &StepWorld<'_>, mover: &Mover, at: Footprint) -> Result<(), Refusal> {
    // No occupant's footprint is the mover's own.
    let nowhere = Footprint::new(Square::new(i32::MIN / 2, i32::MIN / 2), 0);
    match world.enter(mover, at, nowhere) {
        Ok(entry) if entry.can_stop => Ok(()),
        Ok(_) => Err(Refusal::new("the space is taken or cannot be stood on", "000:126-129")),
        Err(blocked) => Err(Refusal::new(blocked.to_string(), "000:126-129")),
    }
}

/// Where a creature that comes to rest on the ground at `at` without choosing it (a fall, a flier dropping)
/// is placed: there if it may stand there, else on the nearest space where it may (« sur l'espace légal le
/// plus près s'il en existe un », 000:126-129), counted as the table counts diagonals from where it came down; a tie is broken
/// by a die (000:63-65). A legal space is one a move could end on ([`StepWorld::enter`]'s `can_stop`): on the
/// map, no wall, pit or obstacle, no creature it may not share a space with. `None` if the map has none.
pub fn nearest_legal_space(
    world: &StepWorld<'_>,
    mover: &Mover,
    at: Footprint,
    dice: &mut crate::rules::core::dice::Dice,
) -> Option<Footprint> {
    let legal = |f: Footprint| legal_space(world, mover, f).is_ok();
    if legal(at) {
        return Some(at);
    }
    let mut found: Vec<(u32, Footprint)> = Vec::new();
    let rings = world.field.width().max(world.field.height());
    for ring in 1..=rings {
        // A space `ring` squares away on the larger axis is at least `ring` squares away.
        if found.iter().any(|(d, _)| *d < ring as u32) {
            break;
        }
        for dy in -ring..=ring {
            for dx in -ring..=ring {
                if dx.abs().max(dy.abs()) != ring {
                    continue;
                }
                let there = at.at(at.origin.offset(dx, dy));
                if legal(there) {
                    found.push((world.field.diagonals().between(at.origin, there.origin), there));
                }
            }
        }
    }
    let best = found.iter().map(|(d, _)| *d).min()?;
    let tied: Vec<Footprint> = found.iter().filter(|(d, _)| *d == best).map(|(_, f)| *f).collect();
    let pick = if tied.len() == 1 { 0 } else { dice.roll(tied.len() as u32) as usize - 1 };
    tied.get(pick).copied()
}

/// Whether a creature lying prone, or standing, may take `action`: lying prone it crawls (004:217) or
/// takes the minimum movement of a full round (000:139-144), and stands up first for anything else
/// (004:225); standing, it does not crawl. The one posture rule of every movement question.
pub fn posture_allows(action: MovementAction, prone: bool) -> Result<(), Refusal> {
    let crawls = matches!(action, MovementAction::Crawl | MovementAction::MinimumMovement);
    match (prone, action) {
        (false, MovementAction::Crawl) => {
            Err(Refusal::new("it crawls only when lying prone; standing, it walks", "004:217"))
        }
        (true, _) if !crawls => Err(Refusal::new(
            "lying prone it crawls 1.5 m as a move action, or stands up first (a move action that provokes)",
            "004:217, 004:225",
        )),
        _ => Ok(()),
    }
}

/// Whether a creature may move over the ground: not a flier in the air, which moves by flying, along its
/// heading and by manoeuvres (004:671-673), unless it has perfect manoeuvrability (004:674).
/// At chase scale no creature walks: the fight is a chase of fliers over 9 m squares (our ruling,
/// docs/rulings.md).
pub fn check_grounded(
    scale: crate::rules::core::altitude::Scale,
    speed: &Speed,
    altitude: &Altitude,
) -> Result<(), Refusal> {
    if scale == crate::rules::core::altitude::Scale::Chase {
        return Err(Refusal::new(
            "at chase scale creatures fly: a walker covers no 9 m square worth playing (our ruling)",
            "004:650, docs/rulings.md",
        ));
    }
    match speed.fly {
        Some(wings) if altitude.0 > 0 && wings.maneuverability != Maneuverability::Perfect => {
            Err(Refusal::new("in the air it moves by flying: along its heading, turning by manoeuvres", "004:671-673"))
        }
        _ => Ok(()),
    }
}

/// The other creatures as `mover` sees them: those whose bodies share its height; a body flying above or
/// below it neither blocks nor hinders its way (as placing them shows, docs/levels.md).
pub fn occupants_for(bodies: &[Body], mover: &Body) -> Vec<Occupant> {
    bodies
        .iter()
        .filter(|b| b.entity != mover.entity)
        .filter(|b| vertical_steps(Scale::Normal, b.altitude, b.size, mover.altitude, mover.size) == 0)
        .map(|b| Occupant {
            footprint: b.footprint,
            size: b.size,
            ally: b.faction == mover.faction,
            helpless: b.helpless,
            obstructs_when_helpless: b.traits.obstructs_when_helpless,
            fills_space: b.traits.fills_space,
        })
        .collect()
}

/// The medium a creature moves in: the air when it has wings and is off the ground, or has no legs at all;
/// the ground otherwise. A flier in the air is not hampered by the ground's difficult terrain or obstacles
/// (000:98, 000:108-109, 004:337, 004:340) and moves at its fly speed, whichever action it takes.
pub fn medium_of(speed: &Speed, altitude: i32) -> Medium {
    if speed.fly.is_some() && (altitude > 0 || speed.land == 0) { Medium::Fly } else { Medium::Land }
}

/// The step rules' view of a creature at `altitude`.
pub fn mover_of(size: Size, speed: &Speed, altitude: i32, traits: &Traits, skills: &Skills) -> Mover {
    Mover {
        size,
        medium: medium_of(speed, altitude),
        incorporeal: traits.incorporeal,
        darkvision: traits.darkvision_m > 0,
        swims: speed.swim.is_some() || traits.freedom_of_movement,
        charging: false,
        passes_foes: false,
        squeeze: squeeze_width(size, skills.escape_artist.is_some()),
        tumbling: false,
        blinded: false,
    }
}

/// The least a charge moves: « Il doit parcourir un minimum de 3 mètres (2 cases) » (004:452).
pub const CHARGE_LEAST_SQUARES: u32 = 2;

/// Why a withdrawal does not swim without a swim speed (004:245).
const WITHDRAW_SWIMMING: &str =
    "one withdraws only by a form of movement one has a speed for: swimming without a swim speed, it does not";

/// Whether a creature of `speed` squares may take a 5-foot step at all: not at 1.5 m or less (004:261).
pub fn five_foot_step_speed(speed: u32) -> Result<(), Refusal> {
    if speed <= 1 {
        return Err(Refusal::new("a creature of speed 1.5 m or less cannot take a 5-foot step", "004:261"));
    }
    Ok(())
}

/// The Tumble DC to pass the `nth` foe (from 0) whose threatened squares a tumbler moves through without
/// provoking: 15, +2 for each foe after the first (the d20 Tumble rule; 000:78-79 names the skill).
pub const fn tumble_past_dc(nth: usize) -> i32 {
    15 + 2 * nth as i32
}

/// The Tumble DC to pass through a foe's space (000:78-79; the d20 Tumble rule's 25).
pub const TUMBLE_THROUGH_DC: i32 = 25;

/// Whether a creature may tumble on this move, and its Tumble bonus (000:78-79, « si le personnage a la
/// formation nécessaire »): trained in Tumble, on its feet on the ground, with a move or a double move, its
/// speed not slowed by armour or load (the d20 Tumble rule; docs/rulings.md).
pub fn check_tumble(
    action: MovementAction,
    skills: &Skills,
    (medium, prone): (Medium, bool),
    encumbrance: &Encumbrance,
    traits: &Traits,
) -> Result<i32, Refusal> {
    let bonus = skills.tumble.ok_or_else(|| Refusal::new("only a creature trained in Tumble tumbles", "000:78-79"))?;
    if !matches!(action, MovementAction::Move | MovementAction::DoubleMove) {
        return Err(Refusal::new("a tumble is made in a move or a double move, at half speed", "000:78-79"));
    }
    if medium != Medium::Land || prone {
        return Err(Refusal::new("a tumble is made on one's feet on the ground", "000:78-79"));
    }
    let armoured =
        matches!(encumbrance.armor, ArmorCategory::Medium | ArmorCategory::Heavy) && !traits.unhindered_by_armor;
    if armoured || matches!(encumbrance.load, Load::Medium | Load::Heavy) {
        return Err(Refusal::new("no tumbling when armour or load slows its speed", "000:78-79"));
    }
    Ok(bonus)
}

impl MoveQuery<'_> {
    /// The same query for a tumbling mover: half speed, through foes' spaces (000:78-79).
    pub fn tumbling(mut self) -> Self {
        self.mover.tumbling = true;
        self.mover.passes_foes = true;
        self
    }
}

/// Everything a movement query or action needs about one creature and the field.
pub struct MoveQuery<'a> {
    /// The map.
    pub field: &'a Battlefield,
    /// The others.
    pub occupants: Vec<Occupant>,
    /// The mover.
    pub mover: Mover,
    /// Where it stands.
    pub start: Footprint,
    /// Its land speed after armour and load, in squares.
    pub speed: u32,
    /// Its run multiplier.
    pub run_multiplier: u32,
    /// Restricted to one action this turn: withdraw and charge cover one speed only (004:247, 004:456).
    pub restricted: bool,
    /// An odd number of plain diagonals already taken this turn.
    pub odd_diagonal: bool,
    /// The squares the foes who could strike threaten: among the cheapest paths, the search prefers the
    /// one that provokes least (004:64-71).
    pub danger: Option<paths::Danger>,
    /// It lies prone: it crawls, or stands up first (004:217, 004:225).
    pub prone: bool,
    /// The squares of a move going on after an overrun's passage, which a move takes (004:535).
    pub going_on: Option<u32>,
    /// The squares it paid this turn following a bull rush, which its move action does not get again
    /// (004:449).
    pub followed: u32,
    /// The searches made so far, for the query's later questions: its fields are set before it is asked.
    pub searched: Searched,
}

/// The squares each movement action reaches, searched once for all a query's questions.
#[derive(Default)]
pub struct Searched(std::cell::RefCell<Vec<(MovementAction, paths::ReachMap)>>);

impl MoveQuery<'_> {
    /// `f` of the squares `action` reaches, searched the first time it is asked.
    fn with_reach<T>(&self, action: MovementAction, f: impl FnOnce(&paths::ReachMap) -> T) -> T {
        if let Some((_, map)) = self.searched.0.borrow().iter().find(|(a, _)| *a == action) {
            return f(map);
        }
        let map = self.reachable(action);
        let out = f(&map);
        self.searched.0.borrow_mut().push((action, map));
        out
    }

    /// Whether `to`, out of a move of `action`, would be within it were it not for the foes standing in the
    /// way (neither allies nor helpless): what bars it is then them, not the distance (000:70-71). Asked only
    /// to say why a square is refused.
    fn barred_by_foes(&self, action: MovementAction, to: Square) -> bool {
        // Farther than the allowance as the crow flies, the distance alone refuses it: no search.
        if self.start.distance_to(self.start.at(to), self.field.diagonals()) > self.allowance(action) {
            return false;
        }
        let passable: Vec<Occupant> = self.occupants.iter().filter(|o| o.ally || o.helpless).cloned().collect();
        let world = StepWorld { field: self.field, occupants: &passable };
        paths::reachable(&world, &self.mover, self.start, self.allowance(action), self.rules(action))
            .route_to(to)
            .is_some()
    }

    /// The step world.
    pub fn world(&self) -> StepWorld<'_> {
        StepWorld { field: self.field, occupants: &self.occupants }
    }

    /// The search limits of `action` for this creature now.
    pub fn rules(&self, action: MovementAction) -> SearchRules {
        SearchRules { odd_diagonal: self.odd_diagonal, ..action.search_rules() }
    }

    /// Squares of movement `action` allows this creature.
    pub fn allowance(&self, action: MovementAction) -> u32 {
        if posture_allows(action, self.prone).is_err() {
            return 0;
        }
        match (action, self.going_on) {
            (MovementAction::Move, Some(left)) => left,
            (MovementAction::Move, None) => self.speed.saturating_sub(self.followed),
            (MovementAction::Withdraw | MovementAction::Charge, _) if self.restricted => self.speed,
            _ => allowance(action, self.speed, self.run_multiplier),
        }
    }

    /// The legal charge lanes toward `target`, for a creature of natural reach `reach` wielding a melee
    /// weapon that is a reach weapon or not (004:451-459).
    pub fn charge_lanes(
        &self,
        (target, rise): (Footprint, u32),
        reach: u32,
        reach_weapon: crate::rules::core::reach::WeaponReach,
    ) -> Result<Vec<ChargeLane>, Refusal> {
        self.charge_lanes_to((target, rise), reach, reach_weapon, None)
    }

    /// [`MoveQuery::charge_lanes`], or, given `only`, the one lane to that square, or why there is none.
    pub fn charge_lanes_to(
        &self,
        (target, rise): (Footprint, u32),
        reach: u32,
        reach_weapon: crate::rules::core::reach::WeaponReach,
        only: Option<Square>,
    ) -> Result<Vec<ChargeLane>, Refusal> {
        if !self.field.line_of_sight(self.start, target) {
            return Err(Refusal::new("no line of sight to the target at the start of the turn", "004:454"));
        }
        self.sets_off_from_here(MovementAction::Charge)?;
        let charger = Mover { charging: true, ..self.mover };
        let shape = self.start;
        let diagonals = self.field.diagonals();
        // A square from which it can attack the foe (004:453): within reach, `rise` steps up or down and
        // across making one distance (004:783), and with a line of effect to it (no total cover, 004:406).
        let scale = self.field.scale();
        let attack_from = |square: Square| {
            let both = (shape.at(square), target);
            crate::rules::core::reach::melee_reaches_at_height((diagonals, scale), reach, reach_weapon, both, rise)
                && crate::rules::core::cover::melee_cover(self.field, shape.at(square), target)
                    != crate::rules::core::cover::Cover::Total
        };
        // A creature of reach 0 attacks in its foe's space, which it must enter (000:152-156): its charge
        // ends there, the foe no creature in its lane.
        let without_the_foe: Vec<Occupant> =
            self.occupants.iter().filter(|o| reach > 0 || o.footprint != target).cloned().collect();
        let world = StepWorld { field: self.field, occupants: &without_the_foe };
        lanes::charge_lanes_to(
            &world,
            &charger,
            self.start,
            (self.allowance(MovementAction::Charge), only),
            attack_from,
        )
        .map_err(|no| Refusal::new(no.to_string(), no.rule()))
    }

    /// The search of every square reachable with a budgeted action (move, double move, withdraw).
    pub fn reachable(&self, action: MovementAction) -> paths::ReachMap {
        paths::reachable_avoiding(
            &self.world(),
            &self.mover,
            self.start,
            self.allowance(action),
            self.rules(action),
            self.danger.as_ref(),
        )
    }

    /// Whether a route is a legal 5-foot step: one square (004:259), not into darkness even for a creature
    /// that sees in the dark, not onto difficult terrain (004:261), and of cost 1 (a squeezed step costs 2,
    /// 000:116: not a 5-foot step, our ruling). Where it sets off from is [`Self::sets_off_from_here`]'s, which
    /// every caller asks first. The refusal names the true reason.
    fn five_foot_step_ok(&self, route: &Route) -> Result<(), Refusal> {
        let end = route.end_footprint();
        if route.steps.len() != 1 || end.is_none() {
            return Err(Refusal::new("a 5-foot step moves one square", "004:259"));
        }
        if let Some(dark) = end.and_then(|f| f.squares().find(|s| self.field.is_dark(*s))) {
            return Err(Refusal::new(format!("no 5-foot step into darkness: {dark} is dark"), "004:261"));
        }
        if let Some(to) = end.filter(|_| route.hampered > 0) {
            let by = self.world().hampered_by(&self.mover, to, false);
            return Err(Refusal::new(Blocked::Hampered { square: route.steps[0].square, by }.to_string(), "004:261"));
        }
        if route.cost != 1 {
            return Err(Refusal::new(
                format!(
                    "the path costs {} squares ({} m) and a 5-foot step allows 1",
                    route.cost,
                    squares_to_metres(route.cost)
                ),
                "004:259-261",
            ));
        }
        Ok(())
    }

    /// Whether a 5-foot step may leave the squares the mover stands on: not « sur un terrain difficile ou
    /// dans les ténèbres » (004:261), which a step out of rubble or out of the dark is made on as much as a
    /// step into it (our ruling, docs/rulings.md).
    pub fn five_foot_step_from_here(&self) -> Result<(), Refusal> {
        let world = self.world();
        if self.start.squares().any(|s| self.field.is_dark(s)) {
            return Err(Refusal::new("no 5-foot step in darkness: it stands in the dark", "004:261"));
        }
        if self.mover.blinded {
            return Err(Refusal::new("no 5-foot step blinded: it sees no more than in darkness", "004:261"));
        }
        if world.ground_hampers(&self.mover, self.start) {
            return Err(Refusal::new(
                "no 5-foot step on difficult terrain: it stands on ground that hampers it",
                "004:261",
            ));
        }
        Ok(())
    }

    /// Whether `action` may set off from the squares the mover stands on: not a 5-foot step
    /// ([`Self::five_foot_step_from_here`]), nor a run or a charge « sur un terrain difficile » (000:94-95),
    /// out of hampering ground as much as into it (our ruling, docs/rulings.md); anything else may.
    pub fn sets_off_from_here(&self, action: MovementAction) -> Result<(), Refusal> {
        match action {
            MovementAction::FiveFootStep => self.five_foot_step_from_here(),
            MovementAction::Run | MovementAction::Charge if self.world().ground_hampers(&self.mover, self.start) => {
                Err(Refusal::new(
                    "no run nor charge on difficult terrain: it stands on ground that hampers it",
                    "000:94-95",
                ))
            }
            MovementAction::Withdraw if self.world().swims_without_speed(&self.mover, self.start) => {
                Err(Refusal::new(WITHDRAW_SWIMMING, "004:245"))
            }
            _ => Ok(()),
        }
    }

    /// The single steps that are legal whatever their cost: the minimum movement (000:139-144).
    fn single_steps(&self) -> Vec<Route> {
        crate::rules::core::geometry::Direction::ALL
            .into_iter()
            .filter_map(|d| {
                let to = self.start.origin.step(d);
                walk_path(&self.world(), &self.mover, self.start, &[to], SearchRules::default()).ok()
            })
            .collect()
    }

    /// Every square where `action` may end, with its cost: a budgeted search for moves, straight lines
    /// for a run, single steps for the 5-foot step and the minimum movement.
    pub fn destinations(&self, action: MovementAction) -> Vec<Destination> {
        let of_route = |r: &Route| {
            let last = r.steps.last().expect("a route of one step at least");
            Destination { square: last.square, space: last.space, cost: r.cost, hampered: r.hampered }
        };
        if self.sets_off_from_here(action).is_err() {
            return Vec::new();
        }
        match action {
            MovementAction::Run => straight_reachable(
                &self.world(),
                &self.mover,
                self.start,
                self.allowance(action),
                action.search_rules(),
            )
            .into_iter()
            .collect(),
            MovementAction::MinimumMovement => self.single_steps().iter().map(of_route).collect(),
            // Where a charge could end if a target stood beyond: straight clear lanes of 2 squares or more
            // (the lanes toward a given target come from `charge_lanes`).
            MovementAction::Charge => {
                let charger = Mover { charging: true, ..self.mover };
                let (world, allowance) = (self.world(), self.allowance(action));
                let ends = straight_reachable(&world, &charger, self.start, allowance, action.search_rules())
                    .into_iter()
                    .filter(|d| d.cost >= CHARGE_LEAST_SQUARES)
                    .collect();
                lanes::clear_lanes(&world, &charger, self.start, allowance, ends)
            }
            MovementAction::FiveFootStep if five_foot_step_speed(self.speed).is_err() => Vec::new(),
            MovementAction::FiveFootStep => {
                self.single_steps().iter().filter(|r| self.five_foot_step_ok(r).is_ok()).map(of_route).collect()
            }
            _ => self.with_reach(action, paths::ReachMap::destinations),
        }
    }

    /// Why `to` is out of a move when no route reaches it: what the square itself holds first (a wall, a
    /// foe, a square it may cross but not stop on, 000:74-75, 000:101-105), else `otherwise`. Each space
    /// the mover may take there is asked, its full one and squeezed (000:111-118): a space it could stand
    /// in leaves `otherwise` (too dear, no way there), one it could cross but not stop in says so, and
    /// only when none fits does the full space's obstacle answer.
    fn unreachable(&self, to: Square, otherwise: Refusal) -> Refusal {
        let world = self.world();
        let mut full = None;
        let mut no_stop = None;
        for (shape, (width, height)) in self.mover.shapes().into_iter().enumerate() {
            let space = Footprint::rect(to, width, height);
            // One squeezes only where one must (000:110-111): a narrower space where the full one fits
            // around it is no place to stop, as the search has it.
            if shape > 0 && paths::fits_full_around(&world, &self.mover, space) {
                continue;
            }
            match world.enter(&self.mover, space, self.start) {
                Ok(entry) if entry.can_stop => return otherwise,
                Ok(_) => {
                    no_stop.get_or_insert(space);
                }
                Err(blocked) => {
                    full.get_or_insert(blocked);
                }
            }
        }
        // Narrower than half its width, only Escape Artist squeezes it there (000:121-123).
        let narrowest = cost::squeeze_width(self.mover.size, true);
        if no_stop.is_none() && narrowest > 0 && narrowest < self.mover.squeeze {
            let artist = Mover { squeeze: narrowest, ..self.mover };
            let side = artist.side();
            let fits = [(narrowest, side), (side, narrowest)]
                .into_iter()
                .any(|(w, h)| world.enter(&artist, Footprint::rect(to, w, h), self.start).is_ok());
            if fits {
                return Refusal::new(
                    format!("{to}: squeezing into a space under half its width takes Escape Artist"),
                    "000:121-123",
                );
            }
        }
        match full {
            _ if let Some(space) = no_stop => {
                let blocked = world.no_stop(&self.mover, space, self.start);
                Refusal::new(blocked.to_string(), blocked.rule())
            }
            Some(blocked) => Refusal::new(blocked.to_string(), blocked.rule()),
            None => otherwise,
        }
    }

    /// The route for an intent: the given path checked, or the cheapest one found (a straight line for a
    /// run); refused with the rule if it is illegal or too dear.
    pub fn route(&self, action: MovementAction, to: Square, path: Option<&[Square]>) -> Result<Route, Refusal> {
        let budget = self.allowance(action);
        if let Some(off) = std::iter::once(&to).chain(path.into_iter().flatten()).find(|s| !self.field.contains(**s)) {
            return Err(Refusal::new(
                format!("{off} is off the {}x{} map", self.field.width(), self.field.height()),
                "000:8-22",
            ));
        }
        // A move that ends where it began is no move (« Un personnage qui ne se déplace pas », 004:259): it
        // spends nothing and takes no 5-foot step away.
        if to == self.start.origin && path.is_none_or(|p| p.is_empty() || p == [to]) {
            return Err(Refusal::new(format!("it stands on {to} already: no movement to make"), "004:259"));
        }
        let refuse_path = |r: paths::PathRefused| {
            Refusal::new(format!("step {} to {}: {}", r.step + 1, r.square, r.blocked), r.blocked.rule())
        };
        let line;
        let path = match (action, path) {
            (MovementAction::Run, Some(path)) if path != straight_line(self.start.origin, to).as_slice() => {
                return Err(Refusal::new("a run goes in a straight line", "004:248"));
            }
            // A run and a charge go in a straight line (004:248, 004:452); a charge's lane toward its target
            // is `lanes::charge_lanes`', which gives the path.
            (MovementAction::Run | MovementAction::Charge, None) => {
                line = straight_line(self.start.origin, to);
                Some(line.as_slice())
            }
            (_, path) => path,
        };
        self.sets_off_from_here(action)?;
        let route = match path {
            Some(path) => {
                if path.last() != Some(&to) {
                    return Err(Refusal::new(format!("the path does not end at {to}"), "scenario"));
                }
                let rules =
                    if action == MovementAction::MinimumMovement { SearchRules::default() } else { self.rules(action) };
                // A charge may not pass even an ally (004:453).
                let mover = Mover { charging: action == MovementAction::Charge, ..self.mover };
                walk_path(&self.world(), &mover, self.start, path, rules).map_err(refuse_path)?
            }
            None if matches!(action, MovementAction::MinimumMovement | MovementAction::FiveFootStep) => {
                let steps = self.single_steps();
                let found = steps.into_iter().find(|r| r.end() == Some(to));
                found.ok_or_else(|| {
                    // The step itself, if it is one, says what forbids it (a wall's corner cut, 000:61).
                    let stepped = walk_path(&self.world(), &self.mover, self.start, &[to], self.rules(action));
                    let otherwise = match stepped {
                        Err(r) if self.start.origin.direction_to(to).is_some() => {
                            Refusal::new(r.blocked.to_string(), r.blocked.rule())
                        }
                        _ => Refusal::new(format!("{to} is not a legal square one step away"), "000:139-144, 004:259"),
                    };
                    self.unreachable(to, otherwise)
                })?
            }
            None => self.with_reach(action, |reach| reach.route_to(to)).ok_or_else(|| {
                let otherwise = if action == MovementAction::Withdraw
                    && self.world().swims_without_speed(&self.mover, self.start.at(to))
                {
                    Refusal::new(WITHDRAW_SWIMMING, "004:245")
                } else if self.barred_by_foes(action, to) {
                    Refusal::new(
                        format!("{to}: the foes in the way bar it, and no one passes through a foe's square"),
                        "000:70-71",
                    )
                } else {
                    Refusal::new(
                        format!("{to} cannot be reached with a {} of {} squares", action.words(), budget),
                        "000:8-22",
                    )
                };
                self.unreachable(to, otherwise)
            })?,
        };
        if action == MovementAction::Charge && route.cost < CHARGE_LEAST_SQUARES {
            return Err(Refusal::new("a charge moves 3 m (2 squares) at least", "004:452"));
        }
        // Any line between the two spaces, not the drawn one alone (004:453).
        if action == MovementAction::Charge
            && let Some(blocked) =
                lanes::lane_blocked(&self.world(), &Mover { charging: true, ..self.mover }, self.start, to)
        {
            return Err(Refusal::new(format!("the lane to {to} is not clear: {blocked}"), "004:453"));
        }
        if action == MovementAction::FiveFootStep {
            five_foot_step_speed(self.speed)?;
            self.five_foot_step_ok(&route)?;
            return Ok(route);
        }
        let (ok, rule) = match action {
            MovementAction::MinimumMovement => (route.steps.len() == 1, "000:139-144"),
            _ => (route.cost <= budget, "000:15-22"),
        };
        if !ok {
            return Err(Refusal::new(
                format!(
                    "the path costs {} squares ({} m) and a {} allows {}",
                    route.cost,
                    squares_to_metres(route.cost),
                    action.words(),
                    budget
                ),
                rule,
            ));
        }
        Ok(route)
    }
}

/// Movement and position: the map the creatures stand on. The movement actions that spend a turn's
/// actions are the turns chapter's ([`crate::rules::turns::moving`]).
pub fn plugin(app: &mut App) {
    app.init_resource::<Battlefield>();
}
