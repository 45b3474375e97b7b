//! Movement modes and overland travel (text 003): the walk / hustle / run table, hampered movement,
//! terrain and road multipliers, mounts and boats, hustle and forced march costs, evasion and pursuit.
//!
//! Pure functions over plain values; distances are in metres, speeds are the creature's speed in metres
//! (`VD`, 9 m for an unencumbered human). Dice are described, never rolled: the caller rolls them with the
//! game's seeded dice and feeds the totals back.

use std::cmp::Ordering;
use std::fmt;

/// Side of one square of the grid, in metres ("Une case fait 1,50 mètre de côté"), 003:30.
pub const SQUARE_M: f64 = 1.5;

/// Rounds in a minute: the minute rows of the table are ten times the round rows, 003:7-15.
pub const ROUNDS_PER_MINUTE: u32 = 10;

/// Metres covered in an hour of walking per metre of speed: the hour row of the table is speed / 2 km
/// (4,5 m → 2,25 km, 9 m → 4,5 km), 003:17, 003:22. It is *not* sixty times the minute row.
pub const HOURLY_METRES_PER_METRE_OF_SPEED: f64 = 500.0;

/// Hours of travel in a normal day ("Une journée correspond à 8 heures de trajet effectif"), 003:65, 003:90.
pub const TRAVEL_HOURS_PER_DAY: u32 = 8;

/// Hours in the day of a rowed boat ("10 heures pour une embarcation à rames"), 003:65, 003:122.
pub const ROWING_HOURS_PER_DAY: u32 = 10;

/// Hours in the day of a sailing ship ("vingt-quatre pour un navire à voiles"), 003:65.
pub const SAILING_HOURS_PER_DAY: u32 = 24;

/// Hours a river craft may drift after its ten hours of rowing, if someone steers it, 003:122.
pub const DRIFT_HOURS_PER_DAY: u32 = 14;

/// Speed of a typical river current, in metres per hour. 003:122 says "généralement 5 km/h" but counts
/// the 14 drifting hours as 63 km, i.e. 4,5 km/h (3 miles/h at the 1,5 km a mile used throughout the
/// text); we keep 4,5 km/h so the 63 km hold. See docs/overland.md, Rulings.
pub const TYPICAL_CURRENT_M_PER_HOUR: f64 = 4_500.0;

/// Base DC of the forced-march Constitution check ("DD 10 + 2 par heure supplémentaire"), 003:92.
pub const FORCED_MARCH_BASE_DC: u32 = 10;

/// DC added per hour of forced march beyond the eighth, 003:92.
pub const FORCED_MARCH_DC_PER_HOUR: u32 = 2;

/// Damage of a failed forced-march check ("1d6 points de dégâts non-létaux"), 003:92.
pub const FORCED_MARCH_DAMAGE: DamageDice = DamageDice { count: 1, sides: 6 };

/// Rounds a same-speed chase lasts before the opposed checks ("quelques rounds", 003:128). The text gives
/// no number; this is our ruling (docs/overland.md).
pub const ROUNDS_BEFORE_CHASE_CHECK: u32 = 3;

/// What being fatigued does (fatigué), 003:71: no running, no charging, -2 Strength and Dexterity.
pub const FATIGUED: FatigueEffects = FatigueEffects {
    can_run: false,
    can_charge: false,
    strength: crate::rules::core::creature::FATIGUE_PENALTY,
    dexterity: crate::rules::core::creature::FATIGUE_PENALTY,
};

/// Dice of damage, as `count`d`sides` (1d6 is `DamageDice { count: 1, sides: 6 }`); the caller rolls them
/// with the seeded dice, 003:92.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DamageDice {
    /// Number of dice.
    pub count: u32,
    /// Faces of each die.
    pub sides: u32,
}

/// Effects of the fatigued condition (fatigué), 003:71. Removing the nonlethal damage removes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FatigueEffects {
    /// Whether the creature may run ("ne peut ni courir"), 003:71.
    pub can_run: bool,
    /// Whether the creature may charge ("ni charger"), 003:71.
    pub can_charge: bool,
    /// Modifier to Strength, 003:71.
    pub strength: i32,
    /// Modifier to Dexterity, 003:71.
    pub dexterity: i32,
}

/// Pace (cadence de déplacement), 003:20.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pace {
    /// Marche: one move a round, 4,5 km an hour for an unencumbered human, 003:22.
    Walk,
    /// Footing: a double move in a round (or an action then a move), 9 km/h for a human, 003:24.
    Hustle,
    /// Course: ×4 speed, ×3 in heavy armour or under a heavy load, 003:26, 003:28; never kept up for
    /// hours, 003:73.
    Run,
}

impl Pace {
    /// The three paces, in the order of the table, 003:7-10.
    pub const ALL: [Self; 3] = [Self::Walk, Self::Hustle, Self::Run];
}

/// What a runner carries, which sets the run multiplier, 003:26, 003:28 (and RULES-INDEX: heavy armour
/// and heavy load alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Burden {
    /// No armour, light or medium armour, not heavily loaded: runs at ×4 ("Course (x4)"), 003:28.
    Normal,
    /// Heavy armour (armure lourde, "harnois") or a heavy load: runs at ×3 ("Course (x3)"), 003:26.
    Heavy,
}

/// Distances a creature covers at one pace, from the table "Déplacements et distance", 003:4-19.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rates {
    /// Metres in one round (tactical movement, "UN ROUND"), 003:6-10.
    pub per_round_m: f64,
    /// Metres in one minute (local movement, "UNE MINUTE"), 003:11-15.
    pub per_minute_m: f64,
    /// Metres in one hour (overland, "UNE HEURE"), `None` where the table has "—", 003:16-19.
    pub per_hour_m: Option<f64>,
    /// Metres in a day of 8 hours ("UN JOUR"), `None` where the table has "—", 003:16-19.
    pub per_day_m: Option<f64>,
}

/// Speed multiplier of a pace in one round: walk ×1, hustle ×2, run ×4 (×3 heavily burdened),
/// 003:7-10, 003:24-28.
pub fn round_multiplier(pace: Pace, burden: Burden) -> u32 {
    match (pace, burden) {
        (Pace::Walk, _) => 1,
        (Pace::Hustle, _) => 2,
        (Pace::Run, Burden::Heavy) => 3,
        (Pace::Run, Burden::Normal) => 4,
    }
}

/// The row of the movement table for a speed of `speed_m` metres (VD), 003:4-19.
///
/// Round: speed × pace multiplier; minute: ten rounds; hour (walk and hustle only): speed × 500 m × pace
/// multiplier; day (walk only): 8 hours. Running has no hour or day figure ("— / —", 003:19, 003:73), and
/// hustling no day figure (003:18).
pub fn rates(speed_m: f64, pace: Pace, burden: Burden) -> Rates {
    let multiplier = f64::from(round_multiplier(pace, burden));
    let per_round_m = speed_m * multiplier;
    let per_hour_m = match pace {
        Pace::Walk | Pace::Hustle => Some(speed_m * HOURLY_METRES_PER_METRE_OF_SPEED * multiplier),
        Pace::Run => None,
    };
    let per_day_m = match pace {
        Pace::Walk => per_hour_m.map(|hour| hour * f64::from(TRAVEL_HOURS_PER_DAY)),
        Pace::Hustle | Pace::Run => None,
    };
    Rates { per_round_m, per_minute_m: per_round_m * f64::from(ROUNDS_PER_MINUTE), per_hour_m, per_day_m }
}

/// The speeds the text's table shows, in metres (003:5).
pub const TABLE_SPEEDS_M: [f64; 4] = [4.5, 6.0, 9.0, 12.0];

/// One row of the movement table: a pace (running at ×3 under a heavy burden, ×4 otherwise) and a speed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableRow {
    /// The pace.
    pub pace: Pace,
    /// Heavy armour or load (the run's ×3 row) or not.
    pub burden: Burden,
    /// The speed, in metres (VD).
    pub speed_m: f64,
    /// What [`rates`] gives for them.
    pub rates: Rates,
}

impl TableRow {
    /// The row's name as the table writes it: Marche, Footing, Course (x3), Course (x4).
    pub fn name(&self) -> &'static str {
        match (self.pace, self.burden) {
            (Pace::Walk, _) => "walk",
            (Pace::Hustle, _) => "hustle",
            (Pace::Run, Burden::Heavy) => "run (x3)",
            (Pace::Run, Burden::Normal) => "run (x4)",
        }
    }
}

/// The table « Déplacements et distance » (003:4-19) for `speeds_m`: walk, hustle, run ×3 and run ×4, each
/// at every speed, in the table's order; each row from [`rates`], the one rule the journeys use too.
pub fn movement_table(speeds_m: &[f64]) -> Vec<TableRow> {
    let paces = [
        (Pace::Walk, Burden::Normal),
        (Pace::Hustle, Burden::Normal),
        (Pace::Run, Burden::Heavy),
        (Pace::Run, Burden::Normal),
    ];
    paces
        .iter()
        .flat_map(|&(pace, burden)| {
            speeds_m.iter().map(move |&speed_m| TableRow { pace, burden, speed_m, rates: rates(speed_m, pace, burden) })
        })
        .collect()
}

/// Whole squares in a distance (the table's "4,50 m (3 cases)"), 003:5, 003:30.
pub fn whole_squares(distance_m: f64) -> u32 {
    // `as` saturates: a negative distance gives 0 squares.
    (distance_m / SQUARE_M).floor() as u32
}

/// A condition that hampers movement (déplacement contrarié), table 003:36-44.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hindrance {
    /// Terrain difficile, cost ×2, 003:39.
    DifficultTerrain,
    /// Obstacle, cost ×2, may call for a skill check ("Peut nécessiter un test de compétence"), 003:40, 003:44.
    Obstacle,
    /// Mauvaise visibilité, cost ×2, 003:41.
    PoorVisibility,
    /// Infranchissable: no movement at all, 003:42.
    Impassable,
}

impl Hindrance {
    /// Cost multiplier of this condition alone; `None` when impassable, 003:39-42.
    pub fn cost_factor(self) -> Option<u32> {
        match self {
            Self::DifficultTerrain | Self::Obstacle | Self::PoorVisibility => Some(2),
            Self::Impassable => None,
        }
    }
}

/// Cost multiplier of a square under several conditions: the costs multiply (×2, ×4, ×8; an exception to
/// the usual rule on multiple multipliers), `None` if any is impassable, 003:45, 003:47.
pub fn hampered_cost_factor(hindrances: &[Hindrance]) -> Option<u32> {
    hindrances.iter().try_fold(1_u32, |product, hindrance| Some(product.saturating_mul(hindrance.cost_factor()?)))
}

/// Whether moving one square under `hindrances` takes a full-round action: a move action (the creature's
/// speed in metres of cost) does not pay for 1,50 m, 003:49. Such a move provokes attacks of opportunity
/// as usual and never crosses an impassable square, so an impassable square answers `false`.
pub fn needs_full_round_for_one_square(speed_m: f64, hindrances: &[Hindrance]) -> bool {
    hampered_cost_factor(hindrances).is_some_and(|factor| SQUARE_M * f64::from(factor) > speed_m)
}

/// Whether a creature may run or charge through a square under `hindrances`: only if there is none
/// ("Il est impossible de courir ou de charger à travers une case où les mouvements du personnage sont
/// contrariés"), 003:51.
pub fn can_run_or_charge_through(hindrances: &[Hindrance]) -> bool {
    hindrances.is_empty()
}

/// An exact fraction by which distances are multiplied (×3/4, ×1/2…), 003:77-87.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Multiplier {
    numerator: u32,
    denominator: u32,
}

impl Multiplier {
    /// ×1.
    pub const ONE: Self = Self { numerator: 1, denominator: 1 };
    /// ×3/4.
    pub const THREE_QUARTERS: Self = Self { numerator: 3, denominator: 4 };
    /// ×1/2.
    pub const HALF: Self = Self { numerator: 1, denominator: 2 };
    /// ×1/4.
    pub const QUARTER: Self = Self { numerator: 1, denominator: 4 };

    /// Numerator of the reduced fraction.
    pub fn numerator(self) -> u32 {
        self.numerator
    }

    /// Denominator of the reduced fraction (never 0).
    pub fn denominator(self) -> u32 {
        self.denominator
    }

    /// This multiplier followed by `other`: multipliers compound by multiplication, reduced, 003:47, 003:75.
    pub fn then(self, other: Self) -> Self {
        let numerator = u64::from(self.numerator) * u64::from(other.numerator);
        let denominator = u64::from(self.denominator) * u64::from(other.denominator);
        let divisor = gcd(numerator, denominator);
        let reduce = |value: u64| u32::try_from(value / divisor).unwrap_or(u32::MAX);
        Self { numerator: reduce(numerator), denominator: reduce(denominator).max(1) }
    }

    /// `metres` multiplied by this fraction, 003:75.
    pub fn apply(self, metres: f64) -> f64 {
        metres * f64::from(self.numerator) / f64::from(self.denominator)
    }
}

impl fmt::Display for Multiplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denominator == 1 {
            write!(f, "×{}", self.numerator)
        } else {
            write!(f, "×{}/{}", self.numerator, self.denominator)
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Terrain of the table "Terrain et déplacements sur longue distance", 003:77-87.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Terrain {
    /// Broussailles (brush; the SRD's "moor" row), 003:79.
    Brush,
    /// Collines, 003:80.
    Hills,
    /// Désert de sable, 003:81.
    SandyDesert,
    /// Forêt, 003:82.
    Forest,
    /// Jungle, 003:83.
    Jungle,
    /// Marais, 003:84.
    Swamp,
    /// Montagnes, 003:85.
    Mountains,
    /// Plaine, 003:86.
    Plains,
    /// Toundra gelée, 003:87.
    FrozenTundra,
}

impl Terrain {
    /// Every terrain, in the order of the table, 003:79-87.
    pub const ALL: [Self; 9] = [
        Self::Brush,
        Self::Hills,
        Self::SandyDesert,
        Self::Forest,
        Self::Jungle,
        Self::Swamp,
        Self::Mountains,
        Self::Plains,
        Self::FrozenTundra,
    ];
}

/// The way travelled on, 003:75.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Way {
    /// Grand-route: a straight, paved main road; column "Grande route", 003:75, 003:78.
    Highway,
    /// Route: usually a dirt track; column "Chemin ou route", 003:75, 003:78.
    Road,
    /// Sentier: a road travelled in single file, no vehicle; column "Chemin ou route", 003:75, 003:78.
    Trail,
    /// Terrain vierge: no track at all; column "Terrain vierge", 003:75, 003:78.
    Trackless,
}

impl Way {
    /// Every way, from the best to the worst, 003:75.
    pub const ALL: [Self; 4] = [Self::Highway, Self::Road, Self::Trail, Self::Trackless];

    /// Whether a vehicle (cart, wagon) may use this way: not a trail ("sans véhicule"), 003:75.
    pub fn allows_vehicles(self) -> bool {
        self != Self::Trail
    }
}

/// Multiplier of overland distances (per hour and per day) for a terrain and a way, table 003:77-87.
pub fn terrain_multiplier(terrain: Terrain, way: Way) -> Multiplier {
    use Multiplier as M;
    let (highway, road, trackless) = match terrain {
        Terrain::Brush => (M::ONE, M::ONE, M::THREE_QUARTERS),
        Terrain::Hills => (M::ONE, M::THREE_QUARTERS, M::HALF),
        Terrain::SandyDesert => (M::ONE, M::HALF, M::HALF),
        Terrain::Forest => (M::ONE, M::ONE, M::HALF),
        Terrain::Jungle => (M::ONE, M::THREE_QUARTERS, M::QUARTER),
        Terrain::Swamp => (M::ONE, M::THREE_QUARTERS, M::HALF),
        Terrain::Mountains => (M::THREE_QUARTERS, M::THREE_QUARTERS, M::HALF),
        Terrain::Plains => (M::ONE, M::ONE, M::THREE_QUARTERS),
        Terrain::FrozenTundra => (M::ONE, M::THREE_QUARTERS, M::THREE_QUARTERS),
    };
    match way {
        Way::Highway => highway,
        Way::Road | Way::Trail => road,
        Way::Trackless => trackless,
    }
}

/// Family of a row of the table "Montures et véhicules", 003:98-117.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConveyanceKind {
    /// Monture: a ridden animal, 003:100-108.
    Mount,
    /// A vehicle drawn by draft animals (chariot ou charrette), 003:94, 003:109.
    LandVehicle,
    /// A small craft of lakes and rivers only (raft, keelboat, rowboat), 003:111-113, 003:122.
    RiverCraft,
    /// A ship (navire), sailing 24 hours a day, 003:65, 003:114-117.
    Ship,
}

/// A row of the table "Montures et véhicules", 003:98-117. The footnote digits glued to some first
/// numbers (notes 1, 2, 3) are read as RULES-INDEX says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conveyance {
    /// Cheval léger, 003:101.
    LightHorse,
    /// Cheval léger carrying 87,5–262,5 kg, 003:102.
    LightHorseLoaded,
    /// Cheval lourd, 003:103.
    HeavyHorse,
    /// Cheval lourd carrying 114,5–345 kg, 003:104.
    HeavyHorseLoaded,
    /// Poney, 003:105.
    Pony,
    /// Poney carrying 75,5–225 kg, 003:106.
    PonyLoaded,
    /// Chien de selle (riding dog), 003:107.
    RidingDog,
    /// Chien de selle carrying 50,5–150 kg, 003:108.
    RidingDogLoaded,
    /// Chariot ou charrette, 003:109.
    CartOrWagon,
    /// Radeau ou barge (perche ou tracté), 003:111.
    RaftOrBarge,
    /// Bateau à fond plat (rames) (keelboat), 003:112.
    Keelboat,
    /// Barque (rames), 003:113.
    Rowboat,
    /// Navire de haute mer (voiles), 003:114.
    SailingShip,
    /// Vaisseau de guerre (voiles ou rames), 003:115.
    Warship,
    /// Drakkar (voiles ou rames), 003:116.
    Longship,
    /// Trirème (voiles ou rames), 003:117.
    Galley,
}

impl Conveyance {
    /// Every row of the table, in its order, 003:101-117.
    pub const ALL: [Self; 16] = [
        Self::LightHorse,
        Self::LightHorseLoaded,
        Self::HeavyHorse,
        Self::HeavyHorseLoaded,
        Self::Pony,
        Self::PonyLoaded,
        Self::RidingDog,
        Self::RidingDogLoaded,
        Self::CartOrWagon,
        Self::RaftOrBarge,
        Self::Keelboat,
        Self::Rowboat,
        Self::SailingShip,
        Self::Warship,
        Self::Longship,
        Self::Galley,
    ];

    /// The row's label in the text, 003:101-117.
    pub fn label(self) -> &'static str {
        match self {
            Self::LightHorse => "Cheval léger",
            Self::LightHorseLoaded => "Cheval léger (87,5–262,5 kg)",
            Self::HeavyHorse => "Cheval lourd",
            Self::HeavyHorseLoaded => "Cheval lourd (114,5–345 kg)",
            Self::Pony => "Poney",
            Self::PonyLoaded => "Poney (75,5–225 kg)",
            Self::RidingDog => "Chien de selle",
            Self::RidingDogLoaded => "Chien de selle (50,5–150 kg)",
            Self::CartOrWagon => "Chariot ou charrette",
            Self::RaftOrBarge => "Radeau ou barge (perche ou tracté)",
            Self::Keelboat => "Bateau à fond plat (rames)",
            Self::Rowboat => "Barque (rames)",
            Self::SailingShip => "Navire de haute mer (voiles)",
            Self::Warship => "Vaisseau de guerre (voiles ou rames)",
            Self::Longship => "Drakkar (voiles ou rames)",
            Self::Galley => "Trirème (voiles ou rames)",
        }
    }

    /// The row's family, 003:100, 003:109, 003:110, 003:122.
    pub fn kind(self) -> ConveyanceKind {
        match self {
            Self::LightHorse
            | Self::LightHorseLoaded
            | Self::HeavyHorse
            | Self::HeavyHorseLoaded
            | Self::Pony
            | Self::PonyLoaded
            | Self::RidingDog
            | Self::RidingDogLoaded => ConveyanceKind::Mount,
            Self::CartOrWagon => ConveyanceKind::LandVehicle,
            Self::RaftOrBarge | Self::Keelboat | Self::Rowboat => ConveyanceKind::RiverCraft,
            Self::SailingShip | Self::Warship | Self::Longship | Self::Galley => ConveyanceKind::Ship,
        }
    }

    /// The load range in kilograms of a loaded mount's row (note 1: quadrupeds carry more), 003:102-108, 003:120.
    pub fn load_kg(self) -> Option<(f64, f64)> {
        match self {
            Self::LightHorseLoaded => Some((87.5, 262.5)),
            Self::HeavyHorseLoaded => Some((114.5, 345.0)),
            Self::PonyLoaded => Some((75.5, 225.0)),
            Self::RidingDogLoaded => Some((50.5, 150.0)),
            _ => None,
        }
    }

    /// Metres covered in an hour ("Par heure"), 003:101-117.
    pub fn per_hour_m(self) -> f64 {
        match self {
            Self::LightHorse | Self::HeavyHorse => 7_500.0,
            Self::LightHorseLoaded | Self::HeavyHorseLoaded => 5_250.0,
            Self::Pony | Self::RidingDog | Self::Galley => 6_000.0,
            Self::PonyLoaded | Self::RidingDogLoaded | Self::Longship => 4_500.0,
            Self::CartOrWagon | Self::SailingShip => 3_000.0,
            Self::RaftOrBarge => 750.0,
            Self::Keelboat => 1_500.0,
            Self::Rowboat => 2_250.0,
            Self::Warship => 3_750.0,
        }
    }

    /// Metres covered in a day ("Par jour"), 003:101-117.
    pub fn per_day_m(self) -> f64 {
        match self {
            Self::LightHorse | Self::HeavyHorse => 60_000.0,
            Self::LightHorseLoaded | Self::HeavyHorseLoaded => 42_000.0,
            Self::Pony | Self::RidingDog => 48_000.0,
            Self::PonyLoaded | Self::RidingDogLoaded => 36_000.0,
            Self::CartOrWagon => 24_000.0,
            Self::RaftOrBarge => 7_500.0,
            Self::Keelboat => 15_000.0,
            Self::Rowboat => 22_500.0,
            Self::SailingShip => 72_000.0,
            Self::Warship => 90_000.0,
            Self::Longship => 108_000.0,
            Self::Galley => 144_000.0,
        }
    }

    /// Hours in this conveyance's day: 8 on land, 10 for the river craft, 24 for ships, 003:65.
    pub fn day_hours(self) -> u32 {
        match self.kind() {
            ConveyanceKind::Mount | ConveyanceKind::LandVehicle => TRAVEL_HOURS_PER_DAY,
            ConveyanceKind::RiverCraft => ROWING_HOURS_PER_DAY,
            ConveyanceKind::Ship => SAILING_HOURS_PER_DAY,
        }
    }
}

/// Why a journey or a voyage cannot be planned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TravelError {
    /// The party has no member.
    EmptyParty,
    /// A speed is not a positive, finite number of metres.
    InvalidSpeed(f64),
    /// A distance or a current is negative or not finite.
    InvalidDistance(f64),
    /// Hours of travel a day must be 1 to 24.
    InvalidHoursPerDay(u32),
    /// A stretch of travel without sleep lasts 0 to 24 hours.
    InvalidHours(u32),
    /// A vehicle on a trail ("sans véhicule"), 003:75.
    VehicleOnTrail(Conveyance),
    /// A boat in a land journey: use `voyage_rate`, 003:96.
    NotALandTraveller(Conveyance),
    /// A mount or a cart in a voyage: use `plan_journey`.
    NotAWaterCraft(Conveyance),
    /// A raft, keelboat or rowboat at sea: lakes and rivers only, 003:122.
    RiverCraftAtSea(Conveyance),
    /// A raft, keelboat or rowboat cannot go upstream unless towed from the bank, 003:122.
    CannotGoUpstream(Conveyance),
    /// Days of travel over several days leave no 8 hours of sleep between them (004:293).
    NoNightsSleep(u32),
    /// A journey longer than `MAX_JOURNEY_DAYS` days.
    TooLong(f64),
}

/// The longest journey planned, in days (ten years on the road).
pub const MAX_JOURNEY_DAYS: f64 = 3650.0;

impl fmt::Display for TravelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyParty => write!(f, "the party has no member"),
            Self::InvalidSpeed(speed) => write!(f, "speed {speed} m is not a positive distance"),
            Self::InvalidDistance(metres) => write!(f, "{metres} m is not a valid distance"),
            Self::InvalidHoursPerDay(hours) => write!(f, "{hours} hours a day is not 1 to 24"),
            Self::InvalidHours(hours) => write!(f, "{hours} hours without sleep is not 0 to 24"),
            Self::VehicleOnTrail(c) => write!(f, "{} cannot use a trail (003:75)", c.label()),
            Self::NotALandTraveller(c) => {
                write!(f, "{} does not travel on land (a craft on the water: estoc voyage)", c.label())
            }
            Self::NotAWaterCraft(c) => write!(f, "{} is not a boat", c.label()),
            Self::RiverCraftAtSea(c) => {
                write!(f, "{} is for lakes and rivers only (003:122)", c.label())
            }
            Self::CannotGoUpstream(c) => {
                write!(f, "{} goes upstream only towed from the bank (003:122)", c.label())
            }
            Self::NoNightsSleep(hours) => write!(
                f,
                "{hours} hours a day over several days leave no 8 hours of sleep between them (004:293): 16 at most"
            ),
            Self::TooLong(days) => write!(f, "a journey of {days:.0} days is longer than {MAX_JOURNEY_DAYS} days"),
        }
    }
}

impl std::error::Error for TravelError {}

/// The water a boat travels on, 003:122.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Water {
    /// The open sea (haute mer).
    Sea,
    /// A lake, or slack water.
    Lake,
    /// Down a river: the current is added to the boat's speed ("on ajoute la vitesse de ce dernier"),
    /// typically `TYPICAL_CURRENT_M_PER_HOUR`, 003:122.
    Downstream {
        /// Speed of the current in metres per hour.
        current_m_per_hour: f64,
    },
    /// Up a river: small craft only when hauled by draft animals from the bank ("hâler depuis la berge"),
    /// 003:122.
    Upstream {
        /// Whether draft animals tow the boat from the bank.
        towed: bool,
    },
}

/// How fast a boat goes on some water, 003:65, 003:111-117, 003:122.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoyageRate {
    /// Metres an hour while under way (rowing, poling, sailing, towed).
    pub per_hour_m: f64,
    /// Metres a day, drift included.
    pub per_day_m: f64,
    /// Hours moving in the day: 10 rowing (24 with the night's drift), 24 sailing, 003:65, 003:122.
    pub hours_moving: u32,
    /// Of those, the hours under way at `per_hour_m`; the rest drift on the current alone (003:122).
    pub hours_under_way: u32,
    /// Metres an hour while drifting: the current's.
    pub drift_m_per_hour: f64,
}

impl VoyageRate {
    /// Whole days and hours left over to cover `m` metres: each day as far as `per_day_m`, then the
    /// last day's remainder under way first and, past its hours under way, drifting on the current
    /// (003:122: rowed ten hours, it drifts the fourteen others).
    pub fn duration(&self, m: f64) -> (f64, f64) {
        let days = (m / self.per_day_m).floor();
        let left = m - days * self.per_day_m;
        let under_way_m = self.per_hour_m * f64::from(self.hours_under_way);
        let hours = if left <= under_way_m || self.drift_m_per_hour <= 0.0 {
            left / self.per_hour_m
        } else {
            f64::from(self.hours_under_way) + (left - under_way_m) / self.drift_m_per_hour
        };
        (days, hours)
    }
}

/// Speed of `craft` on `water`, 003:111-117, 003:122. River craft (raft, keelboat, rowboat) stay off the
/// sea, add the current going downstream, may drift the 14 remaining hours of the day if
/// `drift_overnight` (someone steers; 63 km with the typical current), and go upstream only towed, at the
/// table's towed rate (750 m/h, the raft's "tracté" row). Ships keep their table rate on any water.
pub fn voyage_rate(craft: Conveyance, water: Water, drift_overnight: bool) -> Result<VoyageRate, TravelError> {
    let table = VoyageRate {
        per_hour_m: craft.per_hour_m(),
        per_day_m: craft.per_day_m(),
        hours_moving: craft.day_hours(),
        hours_under_way: craft.day_hours(),
        drift_m_per_hour: 0.0,
    };
    match craft.kind() {
        ConveyanceKind::Mount | ConveyanceKind::LandVehicle => Err(TravelError::NotAWaterCraft(craft)),
        ConveyanceKind::Ship => Ok(table),
        ConveyanceKind::RiverCraft => match water {
            Water::Sea => Err(TravelError::RiverCraftAtSea(craft)),
            Water::Lake => Ok(table),
            Water::Downstream { current_m_per_hour } => {
                if !current_m_per_hour.is_finite() || current_m_per_hour < 0.0 {
                    return Err(TravelError::InvalidDistance(current_m_per_hour));
                }
                let drift_hours = if drift_overnight { DRIFT_HOURS_PER_DAY } else { 0 };
                Ok(VoyageRate {
                    per_hour_m: table.per_hour_m + current_m_per_hour,
                    per_day_m: table.per_day_m + current_m_per_hour * f64::from(table.hours_moving + drift_hours),
                    hours_moving: table.hours_moving + drift_hours,
                    hours_under_way: table.hours_moving,
                    drift_m_per_hour: if drift_overnight { current_m_per_hour } else { 0.0 },
                })
            }
            Water::Upstream { towed: false } => Err(TravelError::CannotGoUpstream(craft)),
            Water::Upstream { towed: true } => Ok(VoyageRate {
                per_hour_m: Conveyance::RaftOrBarge.per_hour_m(),
                per_day_m: Conveyance::RaftOrBarge.per_day_m(),
                hours_moving: ROWING_HOURS_PER_DAY,
                hours_under_way: ROWING_HOURS_PER_DAY,
                drift_m_per_hour: 0.0,
            }),
        },
    }
}

/// DC of the forced-march Constitution check for the `travel_hour`-th hour of travel since the last sleep
/// (1-based): none for the first 8 hours, then 10 + 2 per hour beyond the 8th (9th hour DC 12), 003:92.
pub fn forced_march_dc(travel_hour: u32) -> Option<u32> {
    (travel_hour > TRAVEL_HOURS_PER_DAY).then(|| {
        let extra = travel_hour - TRAVEL_HOURS_PER_DAY;
        FORCED_MARCH_BASE_DC.saturating_add(extra.saturating_mul(FORCED_MARCH_DC_PER_HOUR))
    })
}

/// Damage of the `hustle_hour`-th hour of hustling since the last sleep (1-based): nothing the first hour,
/// 1 point the second, then double the previous hour's (1, 2, 4, 8…), 003:69. No check is made.
pub fn hustle_damage(hustle_hour: u32) -> u32 {
    match hustle_hour {
        0 | 1 => 0,
        hour => 1_u32.checked_shl(hour - 2).unwrap_or(u32::MAX),
    }
}

/// Who bears the strain of a long march, 003:69, 003:92, 003:94.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bearer {
    /// A creature on its own feet (characters, unridden animals, draft animals): nonlethal damage,
    /// forced-march checks rolled, 003:69, 003:92.
    OnFoot,
    /// A mount carrying a rider: lethal damage, forced-march checks failed automatically, 003:94.
    RiddenMount,
}

/// Kind of damage taken from hustle or forced march, 003:69, 003:92, 003:94.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DamageKind {
    /// Dégâts non-létaux, 003:69, 003:92.
    Nonlethal,
    /// Dégâts létaux (a ridden mount), 003:94.
    Lethal,
}

/// Whether an hour of travel leaves the bearer fatigued: taking any damage from hustle or forced march
/// does, at once ("devient aussitôt fatigué"), 003:69, 003:92, 003:94.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FatigueRisk {
    /// No damage this hour, no fatigue.
    None,
    /// Fatigued if the forced-march check fails.
    IfCheckFails,
    /// Fatigued whatever the dice (hustle damage, or a check failed automatically).
    Certain,
}

/// The forced-march Constitution check of one hour (test de Constitution), 003:92, 003:94.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ForcedMarchCheck {
    /// DC of the check, 003:92.
    pub dc: u32,
    /// A ridden mount fails it without rolling, 003:94.
    pub automatic_failure: bool,
    /// Damage rolled on a failure (1d6), 003:92.
    pub damage_on_failure: DamageDice,
}

/// What one hour of travel costs one bearer, 003:69, 003:92, 003:94.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HourStrain {
    /// Damage taken without any check for hustling this hour, 003:69.
    pub hustle_damage: u32,
    /// The forced-march check of this hour, if it is beyond the 8th, 003:92.
    pub forced_march: Option<ForcedMarchCheck>,
    /// Kind of all the damage above, 003:94.
    pub damage_kind: DamageKind,
    /// Whether the bearer ends the hour fatigued, 003:69, 003:92, 003:94.
    pub fatigue: FatigueRisk,
}

impl HourStrain {
    /// Whether the hour costs nothing: no damage, no check.
    pub fn is_free(&self) -> bool {
        self.hustle_damage == 0 && self.forced_march.is_none()
    }
}

/// The strain of one hour of travel. `travel_hour` is the hour of travel since the last sleep (1-based,
/// whatever the pace: it calls the forced-march check past the 8th); `hustle_hour` is `Some(n)` when this
/// hour is hustled and is the n-th hustled hour since the last sleep, 003:69, 003:92, 003:94.
pub fn hour_strain(bearer: Bearer, travel_hour: u32, hustle_hour: Option<u32>) -> HourStrain {
    let hustle_damage = hustle_hour.map_or(0, hustle_damage);
    let forced_march = forced_march_dc(travel_hour).map(|dc| ForcedMarchCheck {
        dc,
        automatic_failure: bearer == Bearer::RiddenMount,
        damage_on_failure: FORCED_MARCH_DAMAGE,
    });
    let fatigue = match forced_march {
        _ if hustle_damage > 0 => FatigueRisk::Certain,
        Some(check) if check.automatic_failure => FatigueRisk::Certain,
        Some(_) => FatigueRisk::IfCheckFails,
        None => FatigueRisk::None,
    };
    HourStrain {
        hustle_damage,
        forced_march,
        damage_kind: match bearer {
            Bearer::OnFoot => DamageKind::Nonlethal,
            Bearer::RiddenMount => DamageKind::Lethal,
        },
        fatigue,
    }
}

/// A member of a travelling party, 003:67-94.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Traveller {
    /// Walks on its own feet at its speed in metres (VD), 003:17.
    OnFoot {
        /// Speed in metres.
        speed_m: f64,
    },
    /// Rides a mount, or travels in a cart or wagon whose draft animals walk, 003:94, 003:101-109.
    Mounted(Conveyance),
    /// A mount led by the bridle or a pack animal, no rider on its back: at its table rate, on its own feet
    /// (nonlethal damage, checks rolled; 003:94 speaks of a horse « portant un cavalier »).
    Led(Conveyance),
}

/// What to plan: a distance, or a number of hours, 003:65.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    /// Cover `metres`, travelling `hours_per_day` hours a day (8 is a normal day, more is a forced march)
    /// and sleeping between days, 003:65, 003:90.
    Distance {
        /// Distance to cover, in metres.
        metres: f64,
        /// Hours of travel a day, 1 to 24.
        hours_per_day: u32,
    },
    /// Travel this many hours (0 to 24) in one stretch, without sleep, 003:69, 003:92.
    Hours(u32),
}

/// One started hour of a day's travel and what it costs each member of the party, 003:69, 003:92, 003:94.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TravelHour {
    /// Hour of the day's travel, 1-based.
    pub hour: u32,
    /// The strain on each member, in the party's order: a walker on its own feet, a ridden mount (its rider
    /// bears none), a cart's draft animals.
    pub members: Vec<HourStrain>,
}

/// A planned journey: how far, how long, what it costs, 003:63-94.
#[derive(Clone, Debug, PartialEq)]
pub struct Journey {
    /// The pace actually kept: running over hours works out as hustling, 003:73.
    pub pace: Pace,
    /// The terrain and way multiplier applied, 003:77-87.
    pub multiplier: Multiplier,
    /// Metres the party covers an hour: its slowest member's rate, at the pace, multiplied, 003:17, 003:75.
    pub per_hour_m: f64,
    /// Metres covered.
    pub distance_m: f64,
    /// Hours of travel in all (the last may be partial).
    pub hours: f64,
    /// Days on the road, a sleep between two (1 for a `Goal::Hours` stretch, 0 for no travel).
    pub days: u32,
    /// Hours of travel in a full day (the stretch itself for `Goal::Hours`).
    pub hours_per_day: u32,
    /// Strain of each started hour of the first day; every full day repeats it after the night's sleep
    /// and a shorter last day takes its first hours, 003:69, 003:92.
    pub daily_strain: Vec<TravelHour>,
}

/// Plans a journey over land: the party moves at its slowest member's rate (walkers at speed × 500 m an
/// hour, mounts and carts at their table rate), doubled when hustling, multiplied by the terrain and way,
/// and pays the hustle and forced-march costs of each hour, 003:17-18, 003:65-94, 003:101-109.
/// Running is kept up only as a hustle, 003:73.
pub fn plan_journey(
    party: &[Traveller],
    pace: Pace,
    terrain: Terrain,
    way: Way,
    goal: Goal,
) -> Result<Journey, TravelError> {
    // Each member's own walking rate an hour, and who bears its strain.
    let mut members: Vec<(f64, Bearer)> = Vec::with_capacity(party.len());
    for traveller in party {
        members.push(match *traveller {
            Traveller::OnFoot { speed_m } => {
                if !speed_m.is_finite() || speed_m <= 0.0 {
                    return Err(TravelError::InvalidSpeed(speed_m));
                }
                (speed_m * HOURLY_METRES_PER_METRE_OF_SPEED, Bearer::OnFoot)
            }
            Traveller::Led(conveyance) if conveyance.kind() == ConveyanceKind::Mount => {
                (conveyance.per_hour_m(), Bearer::OnFoot)
            }
            Traveller::Mounted(conveyance) | Traveller::Led(conveyance) => match conveyance.kind() {
                ConveyanceKind::Mount => (conveyance.per_hour_m(), Bearer::RiddenMount),
                // A cart's draft animals walk, on their own feet (003:94 speaks of mounts ridden).
                ConveyanceKind::LandVehicle if way.allows_vehicles() => (conveyance.per_hour_m(), Bearer::OnFoot),
                ConveyanceKind::LandVehicle => return Err(TravelError::VehicleOnTrail(conveyance)),
                ConveyanceKind::RiverCraft | ConveyanceKind::Ship => {
                    return Err(TravelError::NotALandTraveller(conveyance));
                }
            },
        });
    }
    let walking_rate_m = members.iter().map(|(rate, _)| *rate).reduce(f64::min).ok_or(TravelError::EmptyParty)?;

    let pace = match pace {
        Pace::Walk => Pace::Walk,
        Pace::Hustle | Pace::Run => Pace::Hustle,
    };
    let multiplier = terrain_multiplier(terrain, way);
    let per_hour_m = multiplier.apply(walking_rate_m * f64::from(round_multiplier(pace, Burden::Normal)));

    let (distance_m, hours, days, hours_per_day) = match goal {
        Goal::Distance { metres, hours_per_day } => {
            if !metres.is_finite() || metres < 0.0 {
                return Err(TravelError::InvalidDistance(metres));
            }
            if !(1..=24).contains(&hours_per_day) {
                return Err(TravelError::InvalidHoursPerDay(hours_per_day));
            }
            let hours = metres / per_hour_m;
            let days = (hours / f64::from(hours_per_day)).ceil();
            if days > MAX_JOURNEY_DAYS {
                return Err(TravelError::TooLong(days));
            }
            if days > 1.0 && hours_per_day > 16 {
                return Err(TravelError::NoNightsSleep(hours_per_day));
            }
            (metres, hours, days as u32, hours_per_day)
        }
        Goal::Hours(hours) => {
            if hours > 24 {
                return Err(TravelError::InvalidHours(hours));
            }
            (per_hour_m * f64::from(hours), f64::from(hours), u32::from(hours > 0), hours)
        }
    };

    // A started hour is an hour marched: it pays its full strain (ruling, docs/overland.md).
    let started_hours = hours.min(f64::from(hours_per_day)).ceil() as u32;
    // A member hustles when the party's rate is above its own walk: the party keeps its slowest member's
    // rate, so a member twice as fast only walks, and bears no hustle's damage (003:17, 003:69, 003:94).
    let party_rate = walking_rate_m * f64::from(round_multiplier(pace, Burden::Normal));
    let hustles = |own_walk: f64| pace == Pace::Hustle && own_walk < party_rate;
    let daily_strain = (1..=started_hours)
        .map(|hour| TravelHour {
            hour,
            members: members
                .iter()
                .map(|&(own_walk, bearer)| hour_strain(bearer, hour, hustles(own_walk).then_some(hour)))
                .collect(),
        })
        .collect();

    Ok(Journey { pace, multiplier, per_hour_m, distance_m, hours, days, hours_per_day, daily_strain })
}

/// The scale of a chase, 003:126-130.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChaseScale {
    /// Round by round, counting squares, 003:126-128.
    RoundByRound,
    /// A long chase lasting all day, the sides glimpsing each other now and then, 003:130.
    AllDay,
}

/// The ability of the opposed check that settles a chase, 003:128, 003:130.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChaseAbility {
    /// Test de Dextérité opposé (round by round, after a few rounds), 003:128.
    Dexterity,
    /// Test de Constitution opposé (all-day chase), 003:130.
    Constitution,
}

/// How a chase goes before any die is rolled, 003:126-130.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chase {
    /// The faster pursuer runs the quarry down, 003:126.
    PursuerCatchesUp,
    /// The faster quarry gets away, 003:126.
    QuarryEscapes,
    /// Opposed checks decide: Dexterity at the same speed (003:128), Constitution all day long (003:130).
    OpposedCheck(ChaseAbility),
}

/// Who wins a chase between a pursuer and a quarry at these speeds (any one unit for both: metres a
/// round, or metres an hour overland): round by round, the faster one (003:126, « dans un déplacement au
/// round par round »), or at the same speed an opposed Dexterity check after `ROUNDS_BEFORE_CHASE_CHECK`
/// rounds (003:128); all day long, an opposed Constitution check whatever the speeds: which keeps its pace
/// the longest (003:130).
pub fn chase(pursuer_speed: f64, quarry_speed: f64, scale: ChaseScale) -> Chase {
    if scale == ChaseScale::AllDay {
        return Chase::OpposedCheck(ChaseAbility::Constitution);
    }
    match pursuer_speed.total_cmp(&quarry_speed) {
        Ordering::Greater => Chase::PursuerCatchesUp,
        Ordering::Less => Chase::QuarryEscapes,
        Ordering::Equal => Chase::OpposedCheck(ChaseAbility::Dexterity),
    }
}

/// One side's rolled check: the total, and the modifier that breaks ties (004:52, 004:585).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CheckResult {
    /// d20 + modifier, as rolled.
    pub total: i32,
    /// The modifier included in the total.
    pub modifier: i32,
}

/// End of a same-speed chase, 003:128, 003:130.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChaseOutcome {
    /// The quarry won the opposed check and gets away ("parvient à s'enfuir").
    QuarryEscapes,
    /// The pursuer won and catches the quarry ("la rattrape").
    PursuerCatchesUp,
    /// Same total and same modifier: draw lots (the seeded dice) and call this again.
    RollOff,
}

/// Settles the opposed check of a same-speed chase: the higher total wins; on a tie the higher modifier,
/// then a roll-off (the texts' tie rule, 004:52, 004:585), 003:128, 003:130.
pub fn resolve_chase_check(quarry: CheckResult, pursuer: CheckResult) -> ChaseOutcome {
    match quarry.total.cmp(&pursuer.total).then(quarry.modifier.cmp(&pursuer.modifier)) {
        Ordering::Greater => ChaseOutcome::QuarryEscapes,
        Ordering::Less => ChaseOutcome::PursuerCatchesUp,
        Ordering::Equal => ChaseOutcome::RollOff,
    }
}

/// Rounds a pursuer needs to close a gap of `gap_m` metres, gaining the difference of the distances both
/// cover each round; `None` if it never gains (the quarry is as fast or faster), 003:126.
pub fn rounds_to_catch(gap_m: f64, pursuer_per_round_m: f64, quarry_per_round_m: f64) -> Option<u32> {
    if gap_m <= 0.0 {
        return Some(0);
    }
    let gain = pursuer_per_round_m - quarry_per_round_m;
    // `as` saturates an absurdly long chase at u32::MAX rounds.
    (gain > 0.0).then(|| (gap_m / gain).ceil() as u32)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_movement_table_003_5_19() {
        let table = movement_table(&TABLE_SPEEDS_M);
        let row = |name: &str| -> Vec<(f64, f64, Option<f64>, Option<f64>)> {
            table
                .iter()
                .filter(|r| r.name() == name)
                .map(|r| (r.rates.per_round_m, r.rates.per_minute_m, r.rates.per_hour_m, r.rates.per_day_m))
                .collect()
        };
        let km = |m: f64| m * 1000.0;
        // 003:7, 003:12, 003:17: Marche 4,50 / 6 / 9 / 12 m; 45 / 60 / 90 / 120 m; 2,25 km / 18 km …
        assert_eq!(
            row("walk"),
            vec![
                (4.5, 45.0, Some(km(2.25)), Some(km(18.0))),
                (6.0, 60.0, Some(km(3.0)), Some(km(24.0))),
                (9.0, 90.0, Some(km(4.5)), Some(km(36.0))),
                (12.0, 120.0, Some(km(6.0)), Some(km(48.0))),
            ]
        );
        // 003:8, 003:13, 003:18: Footing 9 / 12 / 18 / 24 m; 90 / 120 / 180 / 240 m; 4,5 km / — …
        assert_eq!(
            row("hustle"),
            vec![
                (9.0, 90.0, Some(km(4.5)), None),
                (12.0, 120.0, Some(km(6.0)), None),
                (18.0, 180.0, Some(km(9.0)), None),
                (24.0, 240.0, Some(km(12.0)), None),
            ]
        );
        // 003:9, 003:14, 003:19: Course (x3) 13,50 / 18 / 27 / 36 m; 135 / 180 / 270 / 360 m; — / —.
        assert_eq!(
            row("run (x3)"),
            vec![
                (13.5, 135.0, None, None),
                (18.0, 180.0, None, None),
                (27.0, 270.0, None, None),
                (36.0, 360.0, None, None)
            ]
        );
        // 003:10, 003:15: Course (x4) 18 / 24 / 36 / 48 m; 180 / 240 / 360 / 480 m.
        assert_eq!(
            row("run (x4)"),
            vec![
                (18.0, 180.0, None, None),
                (24.0, 240.0, None, None),
                (36.0, 360.0, None, None),
                (48.0, 480.0, None, None)
            ]
        );
    }

    use super::*;

    /// The table's speed columns, 003:5.
    const SPEEDS: [f64; 4] = [4.5, 6.0, 9.0, 12.0];

    fn on_foot(speed_m: f64) -> Traveller {
        Traveller::OnFoot { speed_m }
    }

    #[test]
    fn speed_columns_are_the_squares_of_the_header() {
        // 003:5: 4,50 m (3 cases), 6 m (4 cases), 9 m (6 cases), 12 m (8 cases).
        let squares: Vec<u32> = SPEEDS.iter().map(|&speed| whole_squares(speed)).collect();
        assert_eq!(squares, [3, 4, 6, 8]);
        assert_eq!(whole_squares(1.4), 0);
        assert_eq!(whole_squares(-3.0), 0);
    }

    #[test]
    fn round_rows_of_the_table() {
        // 003:7-10, per speed column.
        let rows: [(Pace, Burden, [f64; 4]); 4] = [
            (Pace::Walk, Burden::Normal, [4.5, 6.0, 9.0, 12.0]),
            (Pace::Hustle, Burden::Normal, [9.0, 12.0, 18.0, 24.0]),
            (Pace::Run, Burden::Heavy, [13.5, 18.0, 27.0, 36.0]),
            (Pace::Run, Burden::Normal, [18.0, 24.0, 36.0, 48.0]),
        ];
        for (pace, burden, expected) in rows {
            for (speed, metres) in SPEEDS.into_iter().zip(expected) {
                assert_eq!(rates(speed, pace, burden).per_round_m, metres, "{pace:?} {burden:?} {speed}");
            }
        }
    }

    #[test]
    fn minute_rows_of_the_table() {
        // 003:12-15.
        let rows: [(Pace, Burden, [f64; 4]); 4] = [
            (Pace::Walk, Burden::Normal, [45.0, 60.0, 90.0, 120.0]),
            (Pace::Hustle, Burden::Normal, [90.0, 120.0, 180.0, 240.0]),
            (Pace::Run, Burden::Heavy, [135.0, 180.0, 270.0, 360.0]),
            (Pace::Run, Burden::Normal, [180.0, 240.0, 360.0, 480.0]),
        ];
        for (pace, burden, expected) in rows {
            for (speed, metres) in SPEEDS.into_iter().zip(expected) {
                assert_eq!(rates(speed, pace, burden).per_minute_m, metres, "{pace:?} {burden:?} {speed}");
            }
        }
    }

    #[test]
    fn hour_and_day_rows_of_the_table() {
        // 003:17 Marche 2,25 km / 18 km, 3 km / 24 km, 4,5 km / 36 km, 6 km / 48 km.
        let walk = [(2_250.0, 18_000.0), (3_000.0, 24_000.0), (4_500.0, 36_000.0), (6_000.0, 48_000.0)];
        for (speed, (hour, day)) in SPEEDS.into_iter().zip(walk) {
            let walking = rates(speed, Pace::Walk, Burden::Normal);
            assert_eq!(walking.per_hour_m, Some(hour), "walk {speed}");
            assert_eq!(walking.per_day_m, Some(day), "walk {speed}");
        }
        // 003:18 Footing 4,5 km / —, 6 km / —, 9 km / —, 12 km / —.
        for (speed, hour) in SPEEDS.into_iter().zip([4_500.0, 6_000.0, 9_000.0, 12_000.0]) {
            let hustling = rates(speed, Pace::Hustle, Burden::Normal);
            assert_eq!(hustling.per_hour_m, Some(hour), "hustle {speed}");
            assert_eq!(hustling.per_day_m, None, "hustle {speed}");
        }
        // 003:19 Course — / — in every column, whatever the burden.
        for speed in SPEEDS {
            for burden in [Burden::Normal, Burden::Heavy] {
                let running = rates(speed, Pace::Run, burden);
                assert_eq!((running.per_hour_m, running.per_day_m), (None, None));
            }
        }
    }

    #[test]
    fn the_hour_is_not_sixty_minutes_of_the_minute_row() {
        // 45 m a minute would be 2,7 km an hour; the table says 2,25 km, 003:12, 003:17.
        let walking = rates(4.5, Pace::Walk, Burden::Normal);
        assert_eq!(walking.per_minute_m * 60.0, 2_700.0);
        assert_eq!(walking.per_hour_m, Some(2_250.0));
    }

    #[test]
    fn worked_examples_of_the_paces() {
        // 003:22: an unencumbered human (9 m) walks 4,5 km in an hour; 003:24: hustles 9 km/h.
        assert_eq!(rates(9.0, Pace::Walk, Burden::Normal).per_hour_m, Some(4_500.0));
        assert_eq!(rates(9.0, Pace::Hustle, Burden::Normal).per_hour_m, Some(9_000.0));
        // 003:24: a hustle is two moves in the round.
        assert_eq!(rates(9.0, Pace::Hustle, Burden::Normal).per_round_m, 2.0 * 9.0);
        assert_eq!(round_multiplier(Pace::Run, Burden::Heavy), 3);
        assert_eq!(round_multiplier(Pace::Run, Burden::Normal), 4);
        assert_eq!(Pace::ALL.map(|pace| round_multiplier(pace, Burden::Normal)), [1, 2, 4]);
    }

    #[test]
    fn hampered_costs_multiply() {
        // 003:39-42 and 003:47: ×2 each, multiplied together; impassable stops everything.
        use Hindrance::*;
        assert_eq!(hampered_cost_factor(&[]), Some(1));
        assert_eq!(hampered_cost_factor(&[DifficultTerrain]), Some(2));
        assert_eq!(hampered_cost_factor(&[DifficultTerrain, PoorVisibility]), Some(4));
        assert_eq!(hampered_cost_factor(&[DifficultTerrain, Obstacle, PoorVisibility]), Some(8));
        assert_eq!(hampered_cost_factor(&[DifficultTerrain, Impassable]), None);
        assert_eq!(Impassable.cost_factor(), None);
    }

    #[test]
    fn a_square_too_costly_for_a_move_action_takes_a_full_round() {
        use Hindrance::*;
        // 4,5 m of speed: ×4 costs 6 m > 4,5 m, 003:49.
        assert!(needs_full_round_for_one_square(4.5, &[DifficultTerrain, PoorVisibility]));
        // 6 m of speed pays exactly 6 m.
        assert!(!needs_full_round_for_one_square(6.0, &[DifficultTerrain, PoorVisibility]));
        assert!(needs_full_round_for_one_square(9.0, &[DifficultTerrain, Obstacle, PoorVisibility]));
        assert!(!needs_full_round_for_one_square(1.5, &[]));
        // The full-round step never crosses an impassable square, 003:49.
        assert!(!needs_full_round_for_one_square(1.0, &[Impassable]));
    }

    #[test]
    fn no_running_or_charging_through_hampered_squares() {
        // 003:51.
        assert!(can_run_or_charge_through(&[]));
        assert!(!can_run_or_charge_through(&[Hindrance::PoorVisibility]));
    }

    #[test]
    fn every_cell_of_the_terrain_table() {
        use Multiplier as M;
        // 003:79-87: highway, road or trail, trackless.
        let table = [
            (Terrain::Brush, [M::ONE, M::ONE, M::THREE_QUARTERS]),
            (Terrain::Hills, [M::ONE, M::THREE_QUARTERS, M::HALF]),
            (Terrain::SandyDesert, [M::ONE, M::HALF, M::HALF]),
            (Terrain::Forest, [M::ONE, M::ONE, M::HALF]),
            (Terrain::Jungle, [M::ONE, M::THREE_QUARTERS, M::QUARTER]),
            (Terrain::Swamp, [M::ONE, M::THREE_QUARTERS, M::HALF]),
            (Terrain::Mountains, [M::THREE_QUARTERS, M::THREE_QUARTERS, M::HALF]),
            (Terrain::Plains, [M::ONE, M::ONE, M::THREE_QUARTERS]),
            (Terrain::FrozenTundra, [M::ONE, M::THREE_QUARTERS, M::THREE_QUARTERS]),
        ];
        assert_eq!(table.map(|(terrain, _)| terrain), Terrain::ALL);
        for (terrain, [highway, road, trackless]) in table {
            assert_eq!(terrain_multiplier(terrain, Way::Highway), highway, "{terrain:?}");
            assert_eq!(terrain_multiplier(terrain, Way::Road), road, "{terrain:?}");
            assert_eq!(terrain_multiplier(terrain, Way::Trail), road, "{terrain:?}");
            assert_eq!(terrain_multiplier(terrain, Way::Trackless), trackless, "{terrain:?}");
        }
    }

    #[test]
    fn a_better_way_is_never_slower() {
        for terrain in Terrain::ALL {
            let factors = Way::ALL.map(|way| terrain_multiplier(terrain, way).apply(1.0));
            assert!(factors.windows(2).all(|pair| pair[0] >= pair[1]), "{terrain:?}");
        }
    }

    #[test]
    fn multipliers_compound() {
        let nine_sixteenths = Multiplier::THREE_QUARTERS.then(Multiplier::THREE_QUARTERS);
        assert_eq!((nine_sixteenths.numerator(), nine_sixteenths.denominator()), (9, 16));
        assert_eq!(Multiplier::HALF.then(Multiplier::HALF), Multiplier::QUARTER);
        assert_eq!(Multiplier::QUARTER.then(Multiplier::ONE), Multiplier::QUARTER);
        let eighth = Multiplier::HALF.then(Multiplier::QUARTER);
        assert_eq!((eighth.numerator(), eighth.denominator()), (1, 8));
        // 4,5 km/h in mountains, trackless, then ×3/4 more: 4 500 × 1/2 × 3/4.
        let compounded = terrain_multiplier(Terrain::Mountains, Way::Trackless).then(Multiplier::THREE_QUARTERS);
        assert_eq!(compounded.apply(4_500.0), 1_687.5);
        assert_eq!(Multiplier::THREE_QUARTERS.to_string(), "×3/4");
        assert_eq!(Multiplier::ONE.to_string(), "×1");
    }

    #[test]
    fn every_row_of_the_mounts_and_boats_table() {
        use Conveyance::*;
        // 003:101-117, footnote digits read through (RULES-INDEX).
        let table = [
            (LightHorse, 7_500.0, 60_000.0),
            (LightHorseLoaded, 5_250.0, 42_000.0),
            (HeavyHorse, 7_500.0, 60_000.0),
            (HeavyHorseLoaded, 5_250.0, 42_000.0),
            (Pony, 6_000.0, 48_000.0),
            (PonyLoaded, 4_500.0, 36_000.0),
            (RidingDog, 6_000.0, 48_000.0),
            (RidingDogLoaded, 4_500.0, 36_000.0),
            (CartOrWagon, 3_000.0, 24_000.0),
            (RaftOrBarge, 750.0, 7_500.0),
            (Keelboat, 1_500.0, 15_000.0),
            (Rowboat, 2_250.0, 22_500.0),
            (SailingShip, 3_000.0, 72_000.0),
            (Warship, 3_750.0, 90_000.0),
            (Longship, 4_500.0, 108_000.0),
            (Galley, 6_000.0, 144_000.0),
        ];
        assert_eq!(table.map(|(conveyance, _, _)| conveyance), Conveyance::ALL);
        for (conveyance, hour, day) in table {
            assert_eq!(conveyance.per_hour_m(), hour, "{}", conveyance.label());
            assert_eq!(conveyance.per_day_m(), day, "{}", conveyance.label());
            // 003:65: the day is 8 hours on land, 10 rowing, 24 sailing.
            assert_eq!(hour * f64::from(conveyance.day_hours()), day, "{}", conveyance.label());
        }
        assert_eq!(Galley.day_hours(), 24);
        assert_eq!(Rowboat.day_hours(), 10);
        assert_eq!(CartOrWagon.day_hours(), 8);
        assert_eq!(HeavyHorseLoaded.load_kg(), Some((114.5, 345.0)));
        assert_eq!(HeavyHorse.load_kg(), None);
        assert_eq!(RidingDogLoaded.label(), "Chien de selle (50,5–150 kg)");
    }

    #[test]
    fn mounts_move_like_walkers_of_a_matching_speed() {
        // A light horse's 7,5 km/h is a 15 m walker's hour; a cart's 3 km/h a 6 m walker's, 003:17, 003:101.
        assert_eq!(rates(15.0, Pace::Walk, Burden::Normal).per_hour_m, Some(Conveyance::LightHorse.per_hour_m()));
        assert_eq!(rates(6.0, Pace::Walk, Burden::Normal).per_day_m, Some(Conveyance::CartOrWagon.per_day_m()));
    }

    #[test]
    fn drifting_downstream_adds_sixty_three_kilometres() {
        // 003:122: 14 hours of drift at the typical current add 63 km a day.
        let current = Water::Downstream { current_m_per_hour: TYPICAL_CURRENT_M_PER_HOUR };
        let rowing = voyage_rate(Conveyance::Rowboat, current, false).unwrap();
        let drifting = voyage_rate(Conveyance::Rowboat, current, true).unwrap();
        assert_eq!(drifting.per_day_m - rowing.per_day_m, 63_000.0);
        // Rowing downstream: 2,25 + 4,5 km an hour, for 10 hours.
        assert_eq!(rowing.per_hour_m, 6_750.0);
        assert_eq!(rowing.per_day_m, 67_500.0);
        assert_eq!((rowing.hours_moving, drifting.hours_moving), (10, 24));
        assert_eq!(drifting.per_day_m, 130_500.0);
        // The last day's remainder goes rowing ten hours, then drifting (003:122): 200 km is 130,5 km the
        // first day, then 67,5 km in 10 hours and 2 km more at the current's 4,5 km an hour.
        let (days, hours) = drifting.duration(200_000.0);
        assert_eq!(days, 1.0);
        assert!((hours - (10.0 + 2.0 / 4.5)).abs() < 1e-9, "{hours}");
        // A keelboat on a 5 km/h current: 65 km rowing in 10 hours, the 35 km left in 7 hours drifting.
        let keelboat = voyage_rate(Conveyance::Keelboat, Water::Downstream { current_m_per_hour: 5_000.0 }, true);
        assert_eq!(keelboat.unwrap().duration(100_000.0), (0.0, 17.0));
        // Without the drift, all of it rowing.
        assert_eq!(rowing.duration(33_750.0), (0.0, 5.0));
    }

    #[test]
    fn boats_on_their_waters() {
        use Conveyance::*;
        let lake = voyage_rate(Keelboat, Water::Lake, true).unwrap();
        assert_eq!((lake.per_hour_m, lake.per_day_m, lake.hours_moving), (1_500.0, 15_000.0, 10));
        assert_eq!(voyage_rate(Rowboat, Water::Sea, false), Err(TravelError::RiverCraftAtSea(Rowboat)));
        assert_eq!(
            voyage_rate(Rowboat, Water::Upstream { towed: false }, false),
            Err(TravelError::CannotGoUpstream(Rowboat))
        );
        let towed = voyage_rate(Rowboat, Water::Upstream { towed: true }, false).unwrap();
        assert_eq!((towed.per_hour_m, towed.per_day_m), (750.0, 7_500.0));
        let ship = voyage_rate(Longship, Water::Sea, false).unwrap();
        assert_eq!((ship.per_hour_m, ship.per_day_m, ship.hours_moving), (4_500.0, 108_000.0, 24));
        assert_eq!(voyage_rate(Pony, Water::Lake, false), Err(TravelError::NotAWaterCraft(Pony)));
        assert_eq!(
            voyage_rate(Rowboat, Water::Downstream { current_m_per_hour: -1.0 }, false),
            Err(TravelError::InvalidDistance(-1.0))
        );
    }

    #[test]
    fn forced_march_dcs() {
        // 003:92 and RULES-INDEX: DC 10 + 2 per hour beyond 8; the 9th hour is DC 12.
        assert_eq!((1..=8).map(forced_march_dc).collect::<Vec<_>>(), [None; 8]);
        assert_eq!(forced_march_dc(9), Some(12));
        assert_eq!(forced_march_dc(10), Some(14));
        assert_eq!(forced_march_dc(12), Some(18));
        assert_eq!(forced_march_dc(24), Some(42));
        assert_eq!(forced_march_dc(u32::MAX), Some(u32::MAX));
    }

    #[test]
    fn hustle_damage_doubles_each_hour() {
        // 003:69: nothing the first hour, 1 the second, then double.
        assert_eq!((1..=6).map(hustle_damage).collect::<Vec<_>>(), [0, 1, 2, 4, 8, 16]);
        assert_eq!(hustle_damage(0), 0);
        assert_eq!(hustle_damage(33), 1 << 31);
        assert_eq!(hustle_damage(34), u32::MAX);
    }

    #[test]
    fn strain_of_an_hour() {
        // A walker's 9th hour: DC 12, 1d6 nonlethal and fatigue on a failure, 003:92.
        let ninth = hour_strain(Bearer::OnFoot, 9, None);
        assert_eq!(
            ninth.forced_march,
            Some(ForcedMarchCheck {
                dc: 12,
                automatic_failure: false,
                damage_on_failure: DamageDice { count: 1, sides: 6 }
            })
        );
        assert_eq!(
            (ninth.hustle_damage, ninth.damage_kind, ninth.fatigue),
            (0, DamageKind::Nonlethal, FatigueRisk::IfCheckFails)
        );
        // A ridden mount fails automatically and takes lethal damage, and is fatigued, 003:94.
        let mount = hour_strain(Bearer::RiddenMount, 9, None);
        assert_eq!(mount.forced_march.map(|check| check.automatic_failure), Some(true));
        assert_eq!((mount.damage_kind, mount.fatigue), (DamageKind::Lethal, FatigueRisk::Certain));
        // A trotting mount's second hour: 1 lethal point, fatigued, 003:94.
        let trot = hour_strain(Bearer::RiddenMount, 2, Some(2));
        assert_eq!((trot.hustle_damage, trot.damage_kind, trot.fatigue), (1, DamageKind::Lethal, FatigueRisk::Certain));
        // Hustling one hour or walking eight costs nothing, 003:67, 003:69.
        assert!(hour_strain(Bearer::OnFoot, 1, Some(1)).is_free());
        assert!(hour_strain(Bearer::OnFoot, 8, None).is_free());
        assert_eq!(hour_strain(Bearer::OnFoot, 8, None).fatigue, FatigueRisk::None);
        // The fatigued condition, 003:71.
        assert_eq!(FATIGUED, FatigueEffects { can_run: false, can_charge: false, strength: -2, dexterity: -2 });
    }

    #[test]
    fn a_party_moves_at_its_slowest_members_pace() {
        // A human (9 m) and a dwarf (6 m) on a plain road: 3 km an hour, 24 km a day, 003:17.
        let party = [on_foot(9.0), on_foot(6.0)];
        let goal = Goal::Distance { metres: 24_000.0, hours_per_day: 8 };
        let journey = plan_journey(&party, Pace::Walk, Terrain::Plains, Way::Road, goal).unwrap();
        assert_eq!(journey.per_hour_m, 3_000.0);
        assert_eq!((journey.hours, journey.days), (8.0, 1));
        assert_eq!(journey.daily_strain.len(), 8);
        assert!(journey.daily_strain.iter().all(|hour| hour.members.iter().all(HourStrain::is_free)));
        assert!(
            journey.daily_strain.iter().all(|hour| hour.members.iter().all(|s| s.damage_kind == DamageKind::Nonlethal))
        );
    }

    #[test]
    fn a_journey_through_jungle_with_a_pony() {
        // A 9 m walker and a loaded pony (4,5 km/h): the pony governs; trackless jungle ×1/4, 003:83, 003:106.
        let party = [on_foot(9.0), Traveller::Mounted(Conveyance::PonyLoaded)];
        let goal = Goal::Distance { metres: 20_000.0, hours_per_day: 8 };
        let journey = plan_journey(&party, Pace::Walk, Terrain::Jungle, Way::Trackless, goal).unwrap();
        assert_eq!(journey.multiplier, Multiplier::QUARTER);
        assert_eq!(journey.per_hour_m, 1_125.0);
        assert_eq!(journey.days, 3);
        assert!((journey.hours - 20_000.0 / 1_125.0).abs() < 1e-9);
        assert!(journey.daily_strain.iter().all(|hour| hour.members[1].damage_kind == DamageKind::Lethal));
    }

    #[test]
    fn a_forced_march_day() {
        // Walking 10 hours a day: the 9th and 10th hours call for DC 12 and 14, 003:92.
        let goal = Goal::Distance { metres: 90_000.0, hours_per_day: 10 };
        let journey = plan_journey(&[on_foot(9.0)], Pace::Walk, Terrain::Plains, Way::Highway, goal).unwrap();
        assert_eq!((journey.hours, journey.days), (20.0, 2));
        let dcs: Vec<Option<u32>> =
            journey.daily_strain.iter().map(|hour| hour.members[0].forced_march.map(|check| check.dc)).collect();
        assert_eq!(dcs, [None, None, None, None, None, None, None, None, Some(12), Some(14)]);
    }

    #[test]
    fn a_started_hour_beyond_the_eighth_is_marched() {
        // 38 km at 4,5 km/h is 8 h 26 min: the 9th hour is begun and calls its check.
        let goal = Goal::Distance { metres: 38_000.0, hours_per_day: 9 };
        let journey = plan_journey(&[on_foot(9.0)], Pace::Walk, Terrain::Plains, Way::Road, goal).unwrap();
        assert_eq!(journey.days, 1);
        assert_eq!(journey.daily_strain.len(), 9);
        assert_eq!(journey.daily_strain[8].members[0].forced_march.map(|c| c.dc), Some(12));
    }

    #[test]
    fn hustling_for_hours_costs_and_running_works_out_as_a_hustle() {
        // 003:73: running over hours progresses as a hustle; 003:69: 0, 1, 2, 4 nonlethal points.
        let journey =
            plan_journey(&[on_foot(9.0)], Pace::Run, Terrain::Forest, Way::Trackless, Goal::Hours(4)).unwrap();
        assert_eq!(journey.pace, Pace::Hustle);
        assert_eq!(journey.per_hour_m, 4_500.0); // 9 km/h × 1/2, 003:24, 003:82.
        assert_eq!(journey.distance_m, 18_000.0);
        let damage: Vec<u32> = journey.daily_strain.iter().map(|hour| hour.members[0].hustle_damage).collect();
        assert_eq!(damage, [0, 1, 2, 4]);
        assert_eq!(journey.daily_strain[1].members[0].fatigue, FatigueRisk::Certain);
    }

    #[test]
    fn a_trotting_mount_takes_lethal_damage_and_its_rider_nothing() {
        // 003:94: a light horse trots at 15 km/h; the second hour deals it 1 lethal point.
        let party = [Traveller::Mounted(Conveyance::LightHorse)];
        let journey = plan_journey(&party, Pace::Hustle, Terrain::Plains, Way::Highway, Goal::Hours(2)).unwrap();
        assert_eq!(journey.per_hour_m, 15_000.0);
        let second = &journey.daily_strain[1];
        assert_eq!(second.members.len(), 1);
        assert_eq!((second.members[0].hustle_damage, second.members[0].damage_kind), (1, DamageKind::Lethal));
    }

    #[test]
    fn a_party_hustles_only_those_slower_than_its_rate() {
        // Walkers of 6 m hustle at 6 km/h (003:18); the light horse beside them walks 7,5 km/h (003:101):
        // it keeps up at a walk, and takes no hustle damage; the walkers take theirs (003:69).
        let party = [on_foot(6.0), Traveller::Mounted(Conveyance::LightHorse)];
        let journey = plan_journey(&party, Pace::Hustle, Terrain::Plains, Way::Highway, Goal::Hours(3)).unwrap();
        assert_eq!(journey.per_hour_m, 6_000.0);
        let walkers: Vec<u32> = journey.daily_strain.iter().map(|h| h.members[0].hustle_damage).collect();
        let horse: Vec<u32> = journey.daily_strain.iter().map(|h| h.members[1].hustle_damage).collect();
        assert_eq!(walkers, [0, 1, 2]);
        assert_eq!(horse, [0, 0, 0]);
        // A 9 m walker beside a 4,5 m one: the party hustles at 4,5 km/h, the 9 m walker's own walk; the
        // slow one hustles and pays, the fast one walks and pays nothing.
        let journey =
            plan_journey(&[on_foot(9.0), on_foot(4.5)], Pace::Hustle, Terrain::Plains, Way::Highway, Goal::Hours(2))
                .unwrap();
        let second = &journey.daily_strain[1];
        assert_eq!((second.members[0].hustle_damage, second.members[1].hustle_damage), (0, 1));
        // A 12 m walker beside a cart (3 km/h): the cart's draft animals hustle at 6 km/h, nonlethal damage on
        // their own feet; the walker keeps up at its walk and bears nothing (003:69, 003:94).
        // A horse led, no rider: its own feet, nonlethal damage (003:94 « portant un cavalier »).
        let party = [on_foot(6.0), Traveller::Led(Conveyance::LightHorse)];
        let journey = plan_journey(&party, Pace::Hustle, Terrain::Plains, Way::Road, Goal::Hours(2)).unwrap();
        assert_eq!(journey.daily_strain[1].members[1].damage_kind, DamageKind::Nonlethal);
        let party = [on_foot(12.0), Traveller::Mounted(Conveyance::CartOrWagon)];
        let journey = plan_journey(&party, Pace::Hustle, Terrain::Plains, Way::Road, Goal::Hours(2)).unwrap();
        let second = &journey.daily_strain[1];
        assert_eq!(second.members[0].hustle_damage, 0);
        assert_eq!((second.members[1].hustle_damage, second.members[1].damage_kind), (1, DamageKind::Nonlethal));
    }

    #[test]
    fn mountains_slow_even_the_highway() {
        // 003:85: ×3/4 on the highway: a 9 m walker covers 27 km a day instead of 36.
        let goal = Goal::Hours(8);
        let journey = plan_journey(&[on_foot(9.0)], Pace::Walk, Terrain::Mountains, Way::Highway, goal).unwrap();
        assert_eq!(journey.distance_m, 27_000.0);
        assert_eq!(journey.days, 1);
    }

    #[test]
    fn journeys_that_cannot_be_planned() {
        let walk = |party: &[Traveller], way, goal| plan_journey(party, Pace::Walk, Terrain::Plains, way, goal);
        let day = Goal::Distance { metres: 1_000.0, hours_per_day: 8 };
        assert_eq!(walk(&[], Way::Road, day), Err(TravelError::EmptyParty));
        assert_eq!(walk(&[on_foot(0.0)], Way::Road, day), Err(TravelError::InvalidSpeed(0.0)));
        let cart = [Traveller::Mounted(Conveyance::CartOrWagon)];
        assert_eq!(walk(&cart, Way::Trail, day), Err(TravelError::VehicleOnTrail(Conveyance::CartOrWagon)));
        assert!(walk(&cart, Way::Road, day).is_ok());
        let boat = [Traveller::Mounted(Conveyance::Galley)];
        assert_eq!(walk(&boat, Way::Road, day), Err(TravelError::NotALandTraveller(Conveyance::Galley)));
        let bad_day = Goal::Distance { metres: 1_000.0, hours_per_day: 0 };
        assert_eq!(walk(&[on_foot(9.0)], Way::Road, bad_day), Err(TravelError::InvalidHoursPerDay(0)));
        let negative = Goal::Distance { metres: -1.0, hours_per_day: 8 };
        assert_eq!(walk(&[on_foot(9.0)], Way::Road, negative), Err(TravelError::InvalidDistance(-1.0)));
        assert_eq!(walk(&[on_foot(9.0)], Way::Road, Goal::Hours(25)), Err(TravelError::InvalidHours(25)));
        assert_eq!(
            TravelError::VehicleOnTrail(Conveyance::CartOrWagon).to_string(),
            "Chariot ou charrette cannot use a trail (003:75)"
        );
    }

    #[test]
    fn no_travel_costs_nothing() {
        let nothing = Goal::Distance { metres: 0.0, hours_per_day: 8 };
        let journey = plan_journey(&[on_foot(9.0)], Pace::Walk, Terrain::Plains, Way::Road, nothing).unwrap();
        assert_eq!((journey.hours, journey.days, journey.daily_strain.len()), (0.0, 0, 0));
        let idle = plan_journey(&[on_foot(9.0)], Pace::Walk, Terrain::Plains, Way::Road, Goal::Hours(0)).unwrap();
        assert_eq!((idle.distance_m, idle.days), (0.0, 0));
    }

    #[test]
    fn who_wins_a_chase() {
        // 003:126: round by round the faster wins; 003:128: equal speeds go to opposed Dexterity checks;
        // 003:130: all day long, opposed Constitution checks whatever the speeds.
        assert_eq!(chase(12.0, 9.0, ChaseScale::RoundByRound), Chase::PursuerCatchesUp);
        assert_eq!(chase(9.0, 12.0, ChaseScale::RoundByRound), Chase::QuarryEscapes);
        assert_eq!(chase(9.0, 9.0, ChaseScale::RoundByRound), Chase::OpposedCheck(ChaseAbility::Dexterity));
        assert_eq!(chase(4_500.0, 4_500.0, ChaseScale::AllDay), Chase::OpposedCheck(ChaseAbility::Constitution));
        assert_eq!(chase(7_500.0, 4_500.0, ChaseScale::AllDay), Chase::OpposedCheck(ChaseAbility::Constitution));
        assert_eq!(chase(3_000.0, 4_500.0, ChaseScale::AllDay), Chase::OpposedCheck(ChaseAbility::Constitution));
    }

    #[test]
    fn opposed_chase_checks() {
        let roll = |total, modifier| CheckResult { total, modifier };
        // 003:128: the quarry escapes if it wins, else it is caught.
        assert_eq!(resolve_chase_check(roll(15, 2), roll(14, 5)), ChaseOutcome::QuarryEscapes);
        assert_eq!(resolve_chase_check(roll(10, 4), roll(16, 0)), ChaseOutcome::PursuerCatchesUp);
        // Ties: higher modifier, then a roll-off (004:52, 004:585).
        assert_eq!(resolve_chase_check(roll(13, 3), roll(13, 1)), ChaseOutcome::QuarryEscapes);
        assert_eq!(resolve_chase_check(roll(13, 1), roll(13, 3)), ChaseOutcome::PursuerCatchesUp);
        assert_eq!(resolve_chase_check(roll(13, 2), roll(13, 2)), ChaseOutcome::RollOff);
        assert_eq!(ROUNDS_BEFORE_CHASE_CHECK, 3);
    }

    #[test]
    fn closing_a_gap() {
        // Running (×4) 12 m against a 9 m runner: gains 12 m a round, 30 m take 3 rounds, 003:126.
        let pursuer = rates(12.0, Pace::Run, Burden::Normal).per_round_m;
        let quarry = rates(9.0, Pace::Run, Burden::Normal).per_round_m;
        assert_eq!(rounds_to_catch(30.0, pursuer, quarry), Some(3));
        assert_eq!(rounds_to_catch(36.0, pursuer, quarry), Some(3));
        assert_eq!(rounds_to_catch(36.5, pursuer, quarry), Some(4));
        assert_eq!(rounds_to_catch(0.0, quarry, pursuer), Some(0));
        assert_eq!(rounds_to_catch(30.0, quarry, pursuer), None);
        assert_eq!(rounds_to_catch(30.0, quarry, quarry), None);
    }
}
