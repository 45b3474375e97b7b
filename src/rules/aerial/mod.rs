//! Aerial combat (004:646-852): the pure rules, each with the text's numbers. Scales, take-off, the blind
//! spot, the declared speed and the status it gives, the manoeuvre table, fly checks and the advanced
//! manoeuvres' DCs, 3-D distance, the chase scale ([`Scale`]: its squares, speeds, bands and what reaches
//! between them), collisions, tested against the text's worked examples. A flight's route, step by
//! step, is in [`route`]; the systems that fly creatures in the fight in [`flying`]; losing a pursuer in
//! [`pursuit`]. Readings of the damaged text are in
//! `docs/rulings.md`.

pub mod flying;
pub mod planner;
pub mod pursuit;
pub mod route;

use serde::{Deserialize, Serialize};

/// Aerial combat: flight, and losing a pursuer.
pub fn plugin(app: &mut bevy::prelude::App) {
    app.add_plugins((flying::plugin, pursuit::plugin));
}

use crate::rules::core::altitude::Scale;
use crate::rules::core::creature::Maneuverability;
use crate::rules::core::dice::DiceExpr;
use crate::rules::core::names::SpeedStatus;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::sight::is_nimble;
use crate::rules::core::size::Size;

/// The aerial rules of each scale: how statuses, manoeuvre factors and drops count in its squares.
impl Scale {
    /// Altitude steps a dive attack or a swoop comes down at least: 6 m, or one band (004:751, 004:753).
    pub fn dive_attack_drop(self) -> i32 {
        match self {
            Scale::Normal => 4,
            Scale::Chase => 1,
        }
    }

    /// Altitude steps a wingover loses: 6 m, or one band (004:778).
    pub fn wingover_drop(self) -> i32 {
        self.dive_attack_drop()
    }

    /// Altitude steps of a round of free fall: 180 m, or 3 bands (004:696, 004:699).
    pub fn free_fall_steps(self) -> i32 {
        match self {
            Scale::Normal => (FREE_FALL_M / 1.5) as i32,
            Scale::Chase => 3,
        }
    }

    /// Altitude steps a stall drops at the end of the turn: 45 m, or one band (004:701, 004:703).
    pub fn stall_drop_steps(self) -> i32 {
        match self {
            Scale::Normal => (STALL_DROP_M / 1.5) as i32,
            Scale::Chase => 1,
        }
    }

    /// The status a flight of `spent` squares of movement gives a flier of fly speed `speed_m`
    /// (004:681-710). At chase scale the speeds are counted in squares, rounded down, the least speed too:
    /// 27 m is 3 squares and its half 1 (004:712). No squares at all is a free fall; a hover covers a
    /// quarter of the speed, 9 m at most, in squares rounded down.
    pub fn status(
        self,
        spent: u32,
        speed_m: f32,
        maneuverability: Maneuverability,
        hover: bool,
        hover_feat: bool,
    ) -> Result<SpeedStatus, Refusal> {
        if self == Scale::Normal {
            return speed_status(spent as f32 * 1.5, speed_m, maneuverability, hover, hover_feat);
        }
        // In whole squares, each bound rounded down, then read as the normal table reads metres.
        let speed = self.squares(speed_m);
        let half = self.squares(speed_m / 2.0);
        let nimble = is_nimble(maneuverability);
        if hover {
            if !(nimble || hover_feat) {
                return Err(Refusal::new("only perfect or good fliers, or the Hover feat, can hover", "004:708"));
            }
            let most = self.squares((speed_m / 4.0).min(9.0));
            if spent > most {
                return Err(Refusal::new(format!("a hover covers {most} chase squares at most"), "004:709, 004:712"));
            }
            return Ok(SpeedStatus::Hover);
        }
        Ok(if spent == 0 {
            SpeedStatus::FreeFall
        } else if spent < half {
            if nimble { SpeedStatus::Slow } else { SpeedStatus::Stall }
        } else if spent <= speed {
            SpeedStatus::Slow
        } else if spent <= 2 * speed {
            SpeedStatus::Fast
        } else {
            SpeedStatus::TopSpeed
        })
    }

    /// The manoeuvre factor of a table cell in squares: metres over 1.5 at normal scale, squares already at
    /// chase scale (004:716-732).
    pub fn factor_squares(self, factor: Option<f32>) -> u32 {
        match (self, factor) {
            (_, None) => 0,
            (Scale::Normal, Some(m)) => (m / 1.5 + 1e-4).round() as u32,
            (Scale::Chase, Some(squares)) => squares.round() as u32,
        }
    }
}

/// A speed in chase-scale squares: the speed divided by 9 m, rounded down (004:712).
pub fn chase_squares(speed_m: f32) -> u32 {
    Scale::Chase.squares(speed_m)
}

/// The Jump DC to take off to `extra_m` metres above the creature's space (004:661-668): 20 for its space,
/// then 30, 40, 60, 80, 100, 120 for each 1.5 m more, up to 9 m; `None` higher.
pub fn takeoff_jump_dc(extra_m: f32) -> Option<u32> {
    const TABLE: [u32; 7] = [20, 30, 40, 60, 80, 100, 120];
    let steps = (extra_m / 1.5 + 1e-4).floor();
    (steps >= 0.0).then(|| TABLE.get(steps as usize).copied()).flatten()
}

/// The Jump bonus for speed on a take-off, with the fly or land speed, whichever is better (004:659): +4
/// for every full 3 m above 9 m (the giant eagle's 24 m gives +20).
pub fn takeoff_speed_bonus(land_m: f32, fly_m: f32) -> i32 {
    let best = land_m.max(fly_m);
    (((best - 9.0) / 3.0 + 1e-4).floor().max(0.0) as i32) * 4
}

/// A flier's Jump bonus for taking off higher (004:659): its Jump ranks, or untrained its Strength
/// modifier, and the bonus for the better of its land and fly speeds, as armour and load leave them
/// (000:30-57, 004:712).
pub fn takeoff_jump_bonus(
    skills: &crate::rules::core::creature::Skills,
    abilities: &crate::rules::core::creature::Abilities,
    (speed, modifiers): (&crate::rules::core::creature::Speed, &crate::rules::core::creature::SpeedModifiers),
    (encumbrance, traits): (crate::rules::core::creature::Encumbrance, &crate::rules::core::creature::Traits),
) -> i32 {
    let land = crate::rules::core::creature::land_speed(speed, modifiers, encumbrance, traits);
    let fly = crate::rules::core::creature::fly_speed(speed, encumbrance, traits);
    let fly_m = fly.map_or(0.0, |w| w.squares as f32 * 1.5);
    crate::rules::core::checks::skill(skills.jump, abilities.str) + takeoff_speed_bonus(land as f32 * 1.5, fly_m)
}

/// How a take-off is paid for (004:657-658): a move action, a free action with perfect manoeuvrability.
pub fn takeoff_is_free(maneuverability: Maneuverability) -> bool {
    maneuverability == Maneuverability::Perfect
}

/// Whether a flier at `altitude_m` can land as a free action at the start or end of its turn: at most its
/// space above the ground (004:669).
pub fn can_land_freely(altitude_m: f32, space_m: f32) -> bool {
    altitude_m <= space_m + 1e-4
}

/// Metres a flier in free fall drops in a round (004:696); 3 altitude bands at chase scale (004:699).
pub const FREE_FALL_M: f32 = 180.0;

/// Metres a stalled flier drops at the end of its turn (004:701); 1 band at chase scale (004:703).
pub const STALL_DROP_M: f32 = 45.0;

/// The status for a declared speed `declared_m` of a flier of fly speed `speed_m` (004:681-702). `hover`
/// asks to hover; `hover_feat` is the Hover feat. Perfect and good fliers never stall unless they choose to:
/// under half their speed they are slow (004:702). At exactly its speed a flier is slow, at exactly twice
/// fast (our ruling: the table's bands overlap at their ends).
pub fn speed_status(
    declared_m: f32,
    speed_m: f32,
    maneuverability: Maneuverability,
    hover: bool,
    hover_feat: bool,
) -> Result<SpeedStatus, Refusal> {
    let nimble = is_nimble(maneuverability);
    if hover {
        if !(nimble || hover_feat) {
            return Err(Refusal::new("only perfect or good fliers, or the Hover feat, can hover", "004:708"));
        }
        let most = (speed_m / 4.0).min(9.0);
        if declared_m > most + 1e-4 {
            return Err(Refusal::new(format!("a hover covers {most} m at most"), "004:709"));
        }
        return Ok(SpeedStatus::Hover);
    }
    Ok(if declared_m <= 1.5 + 1e-4 {
        SpeedStatus::FreeFall
    } else if declared_m < speed_m / 2.0 - 1e-4 {
        if nimble { SpeedStatus::Slow } else { SpeedStatus::Stall }
    } else if declared_m <= speed_m + 1e-4 {
        SpeedStatus::Slow
    } else if declared_m <= 2.0 * speed_m + 1e-4 {
        SpeedStatus::Fast
    } else {
        SpeedStatus::TopSpeed
    })
}

/// What a status leaves a flier for its turn (004:689-695).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusActions {
    /// Move actions of flight.
    pub moves: u32,
    /// A standard action besides.
    pub standard: bool,
    /// A full-round action joining movement and attack (a charge, a dive attack).
    pub charge_or_dive: bool,
    /// A run: up to 4 times its speed (004:707).
    pub run: bool,
    /// Any action, as it falls (004:690, 004:696).
    pub any: bool,
}

/// The actions a status allows (004:689-695).
pub fn status_actions(status: SpeedStatus) -> StatusActions {
    let none = StatusActions { moves: 0, standard: false, charge_or_dive: false, run: false, any: false };
    match status {
        SpeedStatus::FreeFall => StatusActions { any: true, ..none },
        SpeedStatus::Stall | SpeedStatus::Slow | SpeedStatus::Hover => {
            StatusActions { moves: 1, standard: true, ..none }
        }
        SpeedStatus::Fast => StatusActions { moves: 2, charge_or_dive: true, ..none },
        SpeedStatus::TopSpeed => StatusActions { run: true, ..none },
    }
}

/// How many manoeuvres a flier may make in a round and how far it must fly between two (004:716-732).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Maneuvers {
    /// As many as it likes.
    Unlimited,
    /// None ("Aucune").
    None,
    /// `per_round` manoeuvres, `factor` (metres at normal scale, squares at chase scale) flown between two;
    /// `None` when the table gives a count alone (RULES-INDEX).
    Limited {
        /// Manoeuvres a round.
        per_round: u32,
        /// The manoeuvre factor.
        factor: Option<f32>,
    },
}

/// The manoeuvre table (004:716-732) for a status, a manoeuvrability and a scale; free fall has no row: no
/// manoeuvre but the recovery (004:697, 004:763).
pub fn maneuvers(status: SpeedStatus, maneuverability: Maneuverability, scale: Scale) -> Maneuvers {
    use Maneuverability::*;
    use SpeedStatus::*;
    let lim = |per_round: u32, factor: f32| Maneuvers::Limited { per_round, factor: Some(factor) };
    let one = Maneuvers::Limited { per_round: 1, factor: None };
    match (status, maneuverability, scale) {
        (Hover, ..) => Maneuvers::Unlimited,
        (FreeFall, ..) => Maneuvers::None,
        (TopSpeed, Perfect, Scale::Chase) => lim(2, 2.0),
        (TopSpeed, Perfect, Scale::Normal) => lim(2, 1.5),
        (_, Perfect, _) => Maneuvers::Unlimited,
        (TopSpeed, Good | Average, _) => one,
        (TopSpeed, Poor | Clumsy, _) => Maneuvers::None,
        (Stall, Clumsy, _) => one,
        // Chase scale, in squares (004:719-724).
        (Stall, Good, Scale::Chase) => lim(4, 2.0),
        (Stall, Average | Poor, Scale::Chase) => lim(2, 2.0),
        (Slow, Good, Scale::Chase) => lim(8, 1.0),
        (Slow, Average | Poor, Scale::Chase) => lim(6, 1.0),
        (Slow, Clumsy, Scale::Chase) => lim(4, 1.0),
        (Fast, Good, Scale::Chase) => lim(4, 1.0),
        (Fast, Average, Scale::Chase) => lim(3, 1.0),
        (Fast, Poor, Scale::Chase) => lim(3, 2.0),
        (Fast, Clumsy, Scale::Chase) => lim(2, 2.0),
        // Normal scale, in metres (004:727-732).
        (Stall, Good, Scale::Normal) => lim(4, 3.0),
        (Stall, Average | Poor, Scale::Normal) => lim(2, 3.0),
        (Slow, Good, Scale::Normal) => lim(8, 1.5),
        (Slow, Average, Scale::Normal) => lim(6, 1.5),
        (Slow, Poor, Scale::Normal) => lim(6, 3.0),
        (Slow, Clumsy, Scale::Normal) => lim(4, 3.0),
        (Fast, Good, Scale::Normal) => lim(4, 3.0),
        (Fast, Average, Scale::Normal) => lim(3, 3.0),
        (Fast, Poor, Scale::Normal) => lim(3, 6.0),
        (Fast, Clumsy, Scale::Normal) => lim(2, 6.0),
    }
}

/// How many manoeuvres a round allows (004:716-732): `u32::MAX` when unlimited.
pub fn maneuvers_a_round(status: SpeedStatus, maneuverability: Maneuverability, scale: Scale) -> u32 {
    match maneuvers(status, maneuverability, scale) {
        Maneuvers::Unlimited => u32::MAX,
        Maneuvers::None => 0,
        Maneuvers::Limited { per_round, .. } => per_round,
    }
}

/// The fly check's modifiers besides Dex (004:734-743): manoeuvrability (perfect +4, good +2, average 0,
/// poor -2, clumsy -4; a hovering flier's is perfect, 004:709) and status (fast -2, top speed -4, stall -4,
/// the others 0).
pub fn fly_check_modifier(maneuverability: Maneuverability, status: SpeedStatus) -> i32 {
    // Hovering, it is a perfect flier (« elle bénéficie d'une manœuvrabilité parfaite », 004:709).
    let maneuverability = if status == SpeedStatus::Hover { Maneuverability::Perfect } else { maneuverability };
    let class = match maneuverability {
        Maneuverability::Perfect => 4,
        Maneuverability::Good => 2,
        Maneuverability::Average => 0,
        Maneuverability::Poor => -2,
        Maneuverability::Clumsy => -4,
    };
    let speed = match status {
        SpeedStatus::Fast => -2,
        SpeedStatus::TopSpeed | SpeedStatus::Stall => -4,
        SpeedStatus::FreeFall | SpeedStatus::Slow | SpeedStatus::Hover => 0,
    };
    class + speed
}

/// The advanced manoeuvres (004:750-780): each uses two of the round's manoeuvres and a fly check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdvancedManeuver {
    /// Dive attack and flyby together: double claw damage (004:751).
    Swoop,
    /// Up to twice its speed, 6 m down toward the foe, a claw for double damage (004:753).
    DiveAttack,
    /// A standard action in the middle of the move (004:755); automatic with the feat (004:756).
    FlybyAttack,
    /// Entering a flier's square at chase scale (004:758).
    Collision,
    /// Under half its speed and still slow (004:760).
    Deceleration,
    /// Out of free fall or a stall, at the start of the turn (004:763).
    Recovery,
    /// A turn with a smaller manoeuvre factor, in steps 1 to 3 (004:765-767).
    TightTurn(u8),
    /// A 90° turn instead of 45° (004:770-771).
    HardTurn,
    /// 90°, 135° or 180°, losing 6 m (004:774-780).
    Wingover(u16),
}

impl AdvancedManeuver {
    /// Its name in the log and the panel.
    pub fn name(self) -> String {
        match self {
            AdvancedManeuver::Swoop => "swoop".into(),
            AdvancedManeuver::DiveAttack => "dive attack".into(),
            AdvancedManeuver::FlybyAttack => "flyby attack".into(),
            AdvancedManeuver::Collision => "collision".into(),
            AdvancedManeuver::Deceleration => "deceleration".into(),
            AdvancedManeuver::Recovery => "recovery".into(),
            AdvancedManeuver::TightTurn(step) => format!("tight turn, step {step}"),
            AdvancedManeuver::HardTurn => "hard turn".into(),
            AdvancedManeuver::Wingover(degrees) => format!("wingover of {degrees}°"),
        }
    }

    /// What a failed fly check does (004:750-780; the wingover's is our ruling).
    pub fn on_failure(self) -> &'static str {
        match self {
            AdvancedManeuver::Swoop => "it flies past its target without attacking",
            AdvancedManeuver::DiveAttack => "it reaches its target but cannot attack",
            AdvancedManeuver::FlybyAttack => "it loses the attack and finishes its move",
            AdvancedManeuver::Collision => "it misses and flies on",
            AdvancedManeuver::Deceleration => "it ends where it meant to, but stalls",
            AdvancedManeuver::Recovery => "it keeps falling",
            AdvancedManeuver::TightTurn(_) => "no turn",
            AdvancedManeuver::HardTurn => "only a 45° turn",
            AdvancedManeuver::Wingover(_) => "the heading stays, the 6 m are lost all the same",
        }
    }

    /// The fly check's DC, or why the manoeuvre does not exist.
    pub fn dc(self) -> Result<i32, Refusal> {
        Ok(match self {
            AdvancedManeuver::Swoop => 20,
            AdvancedManeuver::DiveAttack => 10,
            AdvancedManeuver::FlybyAttack => 20,
            AdvancedManeuver::Collision => 15,
            AdvancedManeuver::Deceleration => 15,
            AdvancedManeuver::Recovery => 5,
            AdvancedManeuver::TightTurn(step @ 1..=3) => 10 * step as i32,
            AdvancedManeuver::TightTurn(_) => return Err(Refusal::new("a tight turn has three steps", "004:765")),
            AdvancedManeuver::HardTurn => 15,
            AdvancedManeuver::Wingover(90) => 10,
            AdvancedManeuver::Wingover(135) => 15,
            AdvancedManeuver::Wingover(180) => 20,
            AdvancedManeuver::Wingover(_) => {
                return Err(Refusal::new("a wingover turns 90°, 135° or 180°", "004:778-780"));
            }
        })
    }
}

/// Manoeuvres an advanced manoeuvre uses from the round's count (004:715).
pub const ADVANCED_MANEUVER_COST: u32 = 2;

/// A tight turn at normal scale (004:765): at step 1 to 3 (DC 10, 20, 30) the manoeuvre factor shrinks by
/// 1.5 m a step, never below 0, and the turn costs 1 square more a step. Returns the factor in metres and
/// the squares the 45° turn costs after advancing one square (2 without the manoeuvre).
pub fn tight_turn(factor_m: f32, step: u8) -> (f32, u32) {
    let step = step.min(3);
    ((factor_m - 1.5 * step as f32).max(0.0), 2 + u32::from(step))
}

/// How a collision strikes the creature hit (004:845-850).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    /// A standing object or creature: x1.
    Stationary,
    /// A flier hit head-on or at 45° in front: x2.
    HeadOn,
    /// A flier hit at 90°: x1.
    Side,
    /// A flier hit from behind or at 45° behind: x1/2.
    Behind,
}

impl Impact {
    /// The multiplier in halves: 2 (x1), 4 (x2), 1 (x1/2).
    pub fn halves(self) -> u32 {
        match self {
            Impact::Stationary | Impact::Side => 2,
            Impact::HeadOn => 4,
            Impact::Behind => 1,
        }
    }
}

/// The Reflex DC to take half a collision's damage (004:825, 004:852).
pub const COLLISION_REFLEX_DC: i32 = 15;

/// The dice of a collision (004:826-844): the die by the higher of the two speeds (metres flown that round:
/// up to 18 m d2, to 36 m d4, to 72 m d8, more d12; each band's top belongs to it, and beyond 144 m stays
/// d12, our rulings), the number by the smaller of the two sizes (Colossal 20 … Tiny 1, smaller none).
/// `None` when the smaller is smaller than Tiny.
pub fn collision_dice(speed_a_m: f32, speed_b_m: f32, size_a: Size, size_b: Size) -> Option<DiceExpr> {
    let speed = speed_a_m.max(speed_b_m);
    let sides = if speed <= 18.0 {
        2
    } else if speed <= 36.0 {
        4
    } else if speed <= 72.0 {
        8
    } else {
        12
    };
    let count = match size_a.min(size_b) {
        Size::Colossal => 20,
        Size::Gargantuan => 16,
        Size::Huge => 12,
        Size::Large => 8,
        Size::Medium => 4,
        Size::Small => 2,
        Size::Tiny => 1,
        _ => return None,
    };
    Some(DiceExpr { count, sides, bonus: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::altitude::*;
    use crate::rules::core::geometry::{Diagonals, Footprint, Square};

    #[test]
    fn chase_scale_distances_004_652_004_800() {
        let at = |x, y| Footprint::new(Square::new(x, y), 1);
        // Sharing a square: 3 m apart; bands 0 or 1 apart add nothing.
        assert_eq!(separation_m(Scale::Chase, Diagonals::Alternating, (at(2, 2), 3), (at(2, 2), 2)), 3.0);
        // Two squares: 18 m, three bands apart: 60 m more.
        assert_eq!(separation_m(Scale::Chase, Diagonals::Alternating, (at(2, 2), 1), (at(4, 2), 4)), 78.0);
        // Normal scale: 004:784's example, 12 m apart on the grid, at 6 m and 24 m: 24 m, whatever the bodies.
        assert_eq!(separation_m(Scale::Normal, Diagonals::Alternating, (at(0, 0), 4), (at(8, 0), 16)), 24.0);
        let large = |x, y| Footprint::new(Square::new(x, y), 2);
        assert_eq!(separation_m(Scale::Normal, Diagonals::Alternating, (large(0, 0), 4), (large(9, 0), 16)), 24.0);
    }

    #[test]
    fn chase_bands_limit_what_reaches_the_ground_004_790() {
        assert!(band_allows(Scale::Chase, 1, 0, Reaching::Melee).is_ok());
        assert!(band_allows(Scale::Chase, 2, 0, Reaching::Melee).is_err());
        assert!(band_allows(Scale::Chase, 0, 2, Reaching::Thrown).is_err(), "both ways");
        assert!(band_allows(Scale::Chase, 4, 0, Reaching::Projectile).is_ok());
        assert!(band_allows(Scale::Chase, 5, 0, Reaching::Projectile).is_err());
        assert!(band_allows(Scale::Chase, 3, 0, Reaching::LineBreath).is_ok());
        assert!(band_allows(Scale::Chase, 3, 0, Reaching::ConeBreath).is_err());
        assert!(band_allows(Scale::Chase, 5, 0, Reaching::spell(120.0)).is_ok());
        assert!(band_allows(Scale::Chase, 5, 0, Reaching::spell(33.0)).is_err());
        assert!(band_allows(Scale::Chase, 6, 0, Reaching::spell(400.0)).is_err());
        assert!(band_allows(Scale::Chase, 6, 2, Reaching::Melee).is_ok(), "between fliers only distance counts");
        assert!(band_allows(Scale::Normal, 40, 0, Reaching::Melee).is_ok());
    }

    #[test]
    fn chase_falls_and_statuses() {
        assert_eq!((Scale::Chase.free_fall_steps(), Scale::Chase.stall_drop_steps()), (3, 1));
        assert_eq!((Scale::Normal.free_fall_steps(), Scale::Normal.stall_drop_steps()), (120, 30));
        assert_eq!(Scale::Chase.height_m(2) - Scale::Chase.height_m(1), 24.0);
        let status = |spent, m| Scale::Chase.status(spent, m, Maneuverability::Poor, false, false).unwrap();
        assert_eq!(status(0, 27.0), SpeedStatus::FreeFall);
        assert_eq!(status(1, 27.0), SpeedStatus::Slow);
        assert_eq!(status(1, 45.0), SpeedStatus::Stall);
        assert_eq!(status(6, 27.0), SpeedStatus::Fast);
        assert_eq!(status(7, 27.0), SpeedStatus::TopSpeed);
        // A hover covers a quarter of the speed, 9 m at most: one chase square at best.
        assert!(Scale::Chase.status(1, 27.0, Maneuverability::Good, true, false).is_err());
        assert!(Scale::Chase.status(1, 45.0, Maneuverability::Good, true, false).is_ok());
    }

    #[test]
    fn the_distance_between_two_fliers_004_784() {
        // 12 m apart on the map, at 6 m and 24 m: 18 m up and half of 12, 24 m.
        assert_eq!(Diagonals::Alternating.distance_3d(12.0, 24.0 - 6.0), 24.0);
        assert_eq!(Diagonals::Alternating.distance_3d(18.0, 12.0), 24.0);
        assert_eq!(Diagonals::Alternating.distance_3d(9.0, 0.0), 9.0);
    }

    #[test]
    fn the_white_dragon_hits_the_brass_dragon_for_8d8_004_827() {
        let dice = collision_dice(45.0, 0.0, Size::Large, Size::Huge).unwrap();
        assert_eq!((dice.count, dice.sides), (8, 8));
        assert_eq!(collision_dice(18.0, 10.0, Size::Medium, Size::Huge).map(|d| (d.count, d.sides)), Some((4, 2)));
        assert_eq!(collision_dice(150.0, 0.0, Size::Colossal, Size::Colossal).map(|d| d.sides), Some(12));
        assert_eq!(collision_dice(60.0, 0.0, Size::Diminutive, Size::Huge), None);
        assert_eq!(Impact::HeadOn.halves(), 4);
        assert_eq!(Impact::Behind.halves(), 1);
    }

    #[test]
    fn the_tight_turn_of_a_poor_flier_at_fast_speed_004_765() {
        // Poor and fast at normal scale: a factor of 6 m; a 45° turn after a square costs 2.
        assert_eq!(
            maneuvers(SpeedStatus::Fast, Maneuverability::Poor, Scale::Normal),
            Maneuvers::Limited { per_round: 3, factor: Some(6.0) }
        );
        assert_eq!(tight_turn(6.0, 0), (6.0, 2));
        // DC 10: a factor of 4.5 m, the turn costs 3 squares.
        assert_eq!(AdvancedManeuver::TightTurn(1).dc().unwrap(), 10);
        assert_eq!(tight_turn(6.0, 1), (4.5, 3));
        assert_eq!(tight_turn(6.0, 3), (1.5, 5));
        assert_eq!(tight_turn(3.0, 3), (0.0, 5));
        assert!(AdvancedManeuver::TightTurn(4).dc().is_err());
    }

    #[test]
    fn the_take_off_table_004_657_668() {
        assert_eq!(takeoff_jump_dc(0.0), Some(20));
        assert_eq!(takeoff_jump_dc(1.5), Some(30));
        assert_eq!(takeoff_jump_dc(4.5), Some(60));
        assert_eq!(takeoff_jump_dc(9.0), Some(120));
        assert_eq!(takeoff_jump_dc(10.5), None);
        // The giant eagle: 3 m on land, 24 m flying: +20.
        assert_eq!(takeoff_speed_bonus(3.0, 24.0), 20);
        assert_eq!(takeoff_speed_bonus(9.0, 0.0), 0);
        assert!(takeoff_is_free(Maneuverability::Perfect));
        assert!(!takeoff_is_free(Maneuverability::Good));
        assert!(can_land_freely(3.0, 3.0));
        assert!(!can_land_freely(4.5, 3.0));
    }

    #[test]
    fn the_declared_speed_gives_the_status_004_689_702() {
        let avg = Maneuverability::Average;
        let status = |declared: f32, m: Maneuverability| speed_status(declared, 24.0, m, false, false).unwrap();
        assert_eq!(status(1.5, avg), SpeedStatus::FreeFall);
        assert_eq!(status(9.0, avg), SpeedStatus::Stall);
        assert_eq!(status(9.0, Maneuverability::Good), SpeedStatus::Slow, "good fliers do not stall (004:702)");
        assert_eq!(status(12.0, avg), SpeedStatus::Slow);
        assert_eq!(status(24.0, avg), SpeedStatus::Slow);
        assert_eq!(status(30.0, avg), SpeedStatus::Fast);
        assert_eq!(status(48.0, avg), SpeedStatus::Fast);
        assert_eq!(status(60.0, avg), SpeedStatus::TopSpeed);
        assert_eq!(speed_status(6.0, 24.0, Maneuverability::Good, true, false), Ok(SpeedStatus::Hover));
        assert!(speed_status(6.0, 24.0, avg, true, false).is_err(), "an average flier cannot hover");
        assert_eq!(speed_status(6.0, 24.0, avg, true, true), Ok(SpeedStatus::Hover), "unless it has the feat");
        assert!(speed_status(7.5, 24.0, Maneuverability::Perfect, true, false).is_err(), "a quarter of 24 m is 6 m");
        assert_eq!(status_actions(SpeedStatus::Fast).moves, 2);
        assert!(status_actions(SpeedStatus::TopSpeed).run);
        assert!(!status_actions(SpeedStatus::TopSpeed).standard);
    }

    #[test]
    fn the_manoeuvre_tables_at_both_scales_004_719_732() {
        use Maneuverability::*;
        assert_eq!(maneuvers(SpeedStatus::Slow, Perfect, Scale::Normal), Maneuvers::Unlimited);
        assert_eq!(
            maneuvers(SpeedStatus::TopSpeed, Perfect, Scale::Normal),
            Maneuvers::Limited { per_round: 2, factor: Some(1.5) }
        );
        assert_eq!(
            maneuvers(SpeedStatus::Slow, Poor, Scale::Chase),
            Maneuvers::Limited { per_round: 6, factor: Some(1.0) }
        );
        assert_eq!(
            maneuvers(SpeedStatus::Slow, Poor, Scale::Normal),
            Maneuvers::Limited { per_round: 6, factor: Some(3.0) }
        );
        assert_eq!(
            maneuvers(SpeedStatus::Stall, Clumsy, Scale::Normal),
            Maneuvers::Limited { per_round: 1, factor: None }
        );
        assert_eq!(maneuvers(SpeedStatus::TopSpeed, Poor, Scale::Chase), Maneuvers::None);
        assert_eq!(maneuvers(SpeedStatus::Hover, Clumsy, Scale::Chase), Maneuvers::Unlimited);
        assert_eq!(maneuvers(SpeedStatus::FreeFall, Good, Scale::Normal), Maneuvers::None);
    }

    #[test]
    fn fly_checks_and_advanced_manoeuvres_004_734_780() {
        assert_eq!(fly_check_modifier(Maneuverability::Perfect, SpeedStatus::Slow), 4);
        assert_eq!(fly_check_modifier(Maneuverability::Clumsy, SpeedStatus::TopSpeed), -8);
        assert_eq!(fly_check_modifier(Maneuverability::Good, SpeedStatus::Fast), 0);
        // Hovering, a poor flier with the Hover feat checks as a perfect one (004:709).
        assert_eq!(fly_check_modifier(Maneuverability::Poor, SpeedStatus::Hover), 4);
        assert_eq!(AdvancedManeuver::Recovery.dc().unwrap(), 5);
        assert_eq!(AdvancedManeuver::Swoop.dc().unwrap(), 20);
        assert_eq!(AdvancedManeuver::Wingover(135).dc().unwrap(), 15);
        assert!(AdvancedManeuver::Wingover(45).dc().is_err());
    }

    #[test]
    fn chase_scale_speeds_and_bands_004_712_804() {
        assert_eq!(chase_squares(18.0), 2);
        assert_eq!(chase_squares(30.0), 3);
        assert_eq!(chase_squares(27.0), 3);
        assert_eq!(chase_squares(13.5), 1);
        assert_eq!(band_distance_m(1), 0.0);
        assert_eq!(band_distance_m(3), 60.0);
        assert_eq!(band_distance_m(5), 240.0);
        assert!(band_reach(1).melee);
        assert!(!band_reach(2).melee && band_reach(2).projectile && band_reach(2).cone_breath);
        assert!(band_reach(3).line_breath && !band_reach(3).cone_breath);
        assert!(!band_reach(4).medium_spells && band_reach(4).long_spells);
        assert_eq!(band_reach(6), band_reach(7));
        assert!(!band_reach(6).long_spells);
    }
}
