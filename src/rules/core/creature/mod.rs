//! The creature data model: the components every rules chapter reads. A creature is spawned whole
//! from a checked encounter (`crate::data`), never half-made: [`Creature`] requires the rest.

mod body;
mod perception;
mod riding;
mod sheet;

use std::collections::{BTreeMap, BTreeSet};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

pub use body::*;
pub use perception::*;
pub use riding::*;
pub use sheet::*;

use crate::rules::core::dice::DiceExpr;
use crate::rules::core::geometry::{Direction, Footprint, Square};
use crate::rules::core::refusal::Refusal;
pub use crate::rules::core::size::{BodyShape, Size};

/// Marks a combatant. Requiring the components below means a creature always has a full sheet; each chapter
/// adds the components of its own state to the requirements when its plugin is added.
#[derive(Component, Debug, Default)]
#[require(
    CreatureId,
    Faction,
    Size,
    Reach,
    Position,
    Space,
    Speed,
    SpeedModifiers,
    HitPoints,
    Abilities,
    BaseAttack,
    Saves,
    Defense,
    Encumbrance,
    Armament,
    Feats,
    Skills,
    Traits,
    Conditions,
    Altitude,
    Heading,
    Awareness
)]
pub struct Creature;

/// The id a level gives a creature ("goblin-2"): what scenarios, logs and errors name it by.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CreatureId(pub String);

impl From<String> for CreatureId {
    fn from(id: String) -> Self {
        CreatureId(id)
    }
}

impl PartialEq<str> for CreatureId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for CreatureId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<&str> for CreatureId {
    fn from(id: &str) -> Self {
        CreatureId(id.to_string())
    }
}

impl std::fmt::Display for CreatureId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The side a creature fights for. Creatures of one faction are allies, of different ones foes.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Faction(pub String);

/// Natural reach in squares ("allonge", 004:357-371): 0 for Tiny and smaller, who threaten nothing.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reach(pub u32);

impl Default for Reach {
    fn default() -> Self {
        Reach(1)
    }
}

/// The north-west square of the creature's footprint.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position(pub Square);

/// The squares a creature of `size` covers when standing at `position`.
pub fn footprint(position: Square, size: Size) -> Footprint {
    Footprint::new(position, size.side_squares())
}

/// The squares a creature of `size` covers at `position` at `scale`: a chase-scale square holds a creature
/// of any size (004:651).
pub fn footprint_at(scale: crate::rules::core::altitude::Scale, position: Square, size: Size) -> Footprint {
    Space::at_scale(scale, size).at(position)
}

/// The space a creature takes on the grid now ("espace occupé"): its size's square block, or a narrower
/// block while it squeezes (000:110-123).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Space {
    /// Squares from west to east.
    pub width: i32,
    /// Squares from north to south.
    pub height: i32,
}

impl Default for Space {
    fn default() -> Self {
        Space { width: 1, height: 1 }
    }
}

impl Space {
    /// The full space of a size.
    pub const fn full(size: Size) -> Self {
        let side = size.side_squares();
        Space { width: side, height: side }
    }

    /// The full space of a size at `scale`: one square at chase scale (004:651).
    pub const fn at_scale(scale: crate::rules::core::altitude::Scale, size: Size) -> Self {
        match scale {
            crate::rules::core::altitude::Scale::Normal => Space::full(size),
            crate::rules::core::altitude::Scale::Chase => Space { width: 1, height: 1 },
        }
    }

    /// The footprint at `origin`.
    pub const fn at(self, origin: Square) -> Footprint {
        Footprint::rect(origin, self.width, self.height)
    }

    /// The space of a footprint.
    pub const fn of(footprint: Footprint) -> Self {
        Space { width: footprint.width, height: footprint.height }
    }

    /// Whether this space is narrower than the size's: the creature squeezes.
    pub fn is_squeezed(self, size: Size) -> bool {
        self != Space::full(size)
    }
}

/// How well a flier turns ("manœuvrabilité", 004:716-732).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Maneuverability {
    /// Parfaite.
    Perfect,
    /// Bonne.
    Good,
    /// Moyenne.
    Average,
    /// Médiocre.
    Poor,
    /// Déplorable.
    Clumsy,
}

/// A fly speed and how well the creature manoeuvres.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlySpeed {
    /// Squares per move action.
    pub squares: u32,
    /// Manoeuvrability class.
    pub maneuverability: Maneuverability,
}

/// Base speeds in squares per move action, before armour and load ("vitesse de déplacement de base",
/// 000:8-10). A creature moves only with the modes it has a speed for (004:262).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Speed {
    /// Land speed.
    pub land: u32,
    /// Fly speed, if it flies.
    pub fly: Option<FlySpeed>,
    /// Swim speed, if it swims.
    pub swim: Option<u32>,
    /// Climb speed, if it climbs.
    pub climb: Option<u32>,
}

impl Default for Speed {
    fn default() -> Self {
        Speed { land: 6, fly: None, swim: None, climb: None }
    }
}

/// Armour worn, by category: it slows (000:30-57) and caps Dex (004:30).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ArmorCategory {
    /// No armour.
    #[default]
    None,
    /// Armure légère.
    Light,
    /// Armure intermédiaire.
    Medium,
    /// Armure lourde.
    Heavy,
}

/// Load carried ("charge portée", 000:11-12): medium and heavy loads slow like medium and heavy armour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Load {
    /// Charge légère.
    #[default]
    Light,
    /// Charge intermédiaire.
    Medium,
    /// Charge lourde.
    Heavy,
}

/// What the creature wears and carries.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encumbrance {
    /// Armour category.
    pub armor: ArmorCategory,
    /// Load.
    pub load: Load,
}

impl Encumbrance {
    /// The heavier of armour and load, as both slow alike (000:11-12, 000:19-20).
    pub fn hampering(self) -> ArmorCategory {
        let from_load = match self.load {
            Load::Light => ArmorCategory::None,
            Load::Medium => ArmorCategory::Medium,
            Load::Heavy => ArmorCategory::Heavy,
        };
        self.armor.max(from_load)
    }
}

/// A bonus or penalty to speed, applied before armour and load; modifiers of one type do not stack
/// (000:23-29).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpeedModifier {
    /// Where it comes from ("barbarian fast movement", "haste").
    pub source: String,
    /// Bonus type: of two modifiers of the same type only the larger bonus (or worse penalty) counts.
    /// Untyped modifiers (`None`) always add.
    pub bonus_type: Option<String>,
    /// Change in squares (a barbarian's +3 m is +2).
    pub squares: i32,
    /// The modifier is lost in armour of this category or heavier (barbarian: heavy, 000:23-24).
    pub lost_in: Option<ArmorCategory>,
}

/// The speed modifiers a creature has.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpeedModifiers(pub Vec<SpeedModifier>);

/// Hit points: current, maximum, nonlethal damage taken and temporary points (004:263-308).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HitPoints {
    /// Current hit points (may go below zero).
    pub current: i32,
    /// Maximum hit points.
    pub max: i32,
    /// Nonlethal damage taken.
    pub nonlethal: i32,
    /// Temporary hit points, lost first.
    pub temporary: i32,
}

impl Default for HitPoints {
    fn default() -> Self {
        HitPoints::full(1)
    }
}

impl HitPoints {
    /// Unhurt with `max` points.
    pub const fn full(max: i32) -> Self {
        HitPoints { current: max, max, nonlethal: 0, temporary: 0 }
    }

    /// The current hit points the states are read from: the current ones with the temporary ones on top,
    /// which are part of them while they last (« notez le nombre de points de vie actuels … avant de prendre
    /// en compte l'effet magique », 004:298; « points de vie actuels », 004:301); dead at -10 whatever.
    pub fn total(&self) -> i32 {
        if self.current <= -10 { self.current } else { self.current + self.temporary.max(0) }
    }

    /// The damage taken since `before`: hit points lost, nonlethal damage taken and temporary hit points
    /// gone, each a wound « le moindre dégât » (004:196, 004:581); healing between is not counted off.
    pub fn damage_since(&self, before: &HitPoints) -> i32 {
        (before.current - self.current).max(0)
            + (self.nonlethal - before.nonlethal).max(0)
            + (before.temporary - self.temporary).max(0)
    }
}

/// The six ability scores.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Abilities {
    /// Force.
    pub str: i32,
    /// Dextérité.
    pub dex: i32,
    /// Constitution.
    pub con: i32,
    /// Intelligence.
    pub int: i32,
    /// Sagesse.
    pub wis: i32,
    /// Charisme.
    pub cha: i32,
}

/// One of the six abilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ability {
    /// Force.
    Str,
    /// Dextérité.
    Dex,
    /// Constitution.
    Con,
    /// Intelligence.
    Int,
    /// Sagesse.
    Wis,
    /// Charisme.
    Cha,
}

impl Ability {
    /// Its score among `abilities`.
    pub fn score(self, abilities: &Abilities) -> i32 {
        match self {
            Ability::Str => abilities.str,
            Ability::Dex => abilities.dex,
            Ability::Con => abilities.con,
            Ability::Int => abilities.int,
            Ability::Wis => abilities.wis,
            Ability::Cha => abilities.cha,
        }
    }

    /// Its short name: Str, Dex, Con, Int, Wis, Cha.
    pub const fn short(self) -> &'static str {
        match self {
            Ability::Str => "Str",
            Ability::Dex => "Dex",
            Ability::Con => "Con",
            Ability::Int => "Int",
            Ability::Wis => "Wis",
            Ability::Cha => "Cha",
        }
    }

    /// Its score among `abilities`, to change it.
    pub fn score_mut(self, abilities: &mut Abilities) -> &mut i32 {
        match self {
            Ability::Str => &mut abilities.str,
            Ability::Dex => &mut abilities.dex,
            Ability::Con => &mut abilities.con,
            Ability::Int => &mut abilities.int,
            Ability::Wis => &mut abilities.wis,
            Ability::Cha => &mut abilities.cha,
        }
    }
}

impl Default for Abilities {
    fn default() -> Self {
        Abilities { str: 10, dex: 10, con: 10, int: 10, wis: 10, cha: 10 }
    }
}

/// The modifier of an ability score: (score - 10) / 2 rounded down.
pub const fn ability_modifier(score: i32) -> i32 {
    (score - 10).div_euclid(2)
}

/// Base attack bonus.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseAttack(pub i32);

/// Base saving throws, before ability modifiers (004:44-50).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Saves {
    /// Vigueur (Con).
    pub fortitude: i32,
    /// Réflexes (Dex).
    pub reflex: i32,
    /// Volonté (Wis).
    pub will: i32,
}

/// The parts of Armor Class other than Dex and size (004:29-37).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Defense {
    /// Armour bonus (with its enhancement).
    pub armor: i32,
    /// Shield bonus (with its enhancement).
    pub shield: i32,
    /// Natural armour.
    pub natural: i32,
    /// Deflection bonus.
    pub deflection: i32,
    /// Dodge bonuses, which stack and vanish with Dex.
    pub dodge: i32,
    /// The most Dex the armour lets count, if it caps it.
    pub max_dex: Option<i32>,
}

/// How a weapon is held (004:24-26).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Handling {
    /// Light: no x1.5 Strength when held in two hands.
    Light,
    /// One-handed.
    #[default]
    OneHanded,
    /// Two-handed: x1.5 Strength to damage.
    TwoHanded,
}

/// How a weapon reaches its target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Delivery {
    /// Melee.
    #[default]
    Melee,
    /// Thrown, with a range increment in metres (at most 5 increments).
    Thrown {
        /// Range increment in metres.
        increment_m: f32,
    },
    /// Fired, with a range increment in metres (at most 10 increments).
    Projectile {
        /// Range increment in metres.
        increment_m: f32,
    },
}

/// How Strength adds to a weapon's damage (004:24).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StrengthToDamage {
    /// Melee and thrown weapons, slings: the modifier (x1.5 two-handed, x0.5 off-hand).
    #[default]
    Full,
    /// An ordinary bow: a Strength penalty applies, a bonus does not.
    PenaltyOnly,
    /// A composite bow or crossbow: Strength does not apply.
    None,
}

/// One weapon or natural attack a creature can use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weapon {
    /// Name, as actions refer to it.
    pub name: String,
    /// Damage dice for the wielder's size.
    pub damage: DiceExpr,
    /// Lowest natural roll that threatens a critical (20 for "20", 19 for "19-20").
    pub threat: u32,
    /// Critical multiplier (x2, x3, x4).
    pub multiplier: u32,
    /// A reach weapon: hits at twice the natural reach but not within it (004:63, 000:169-172).
    pub reach: bool,
    /// Light, one-handed or two-handed.
    pub handling: Handling,
    /// Melee, thrown or projectile.
    pub delivery: Delivery,
    /// How Strength adds to damage.
    pub strength: StrengthToDamage,
    /// A natural weapon (claw, bite): counts as armed.
    pub natural: bool,
    /// An unarmed strike: nonlethal, provokes, threatens nothing unless the creature is "armed".
    pub unarmed: bool,
    /// Held in the off hand: x0.5 Strength to damage.
    pub off_hand: bool,
    /// A one-handed weapon gripped in both hands as it strikes (004:26), set by the attack that uses it
    /// ([`crate::rules::core::gear::grips_in_both_hands`]), never by the data.
    #[serde(skip)]
    pub two_hands: bool,
    /// Set against a charge, double damage to a charging foe (004:461).
    #[serde(default)]
    pub brace: bool,
    /// A poison its blow delivers (004:28): see [`Poison`].
    #[serde(default)]
    pub poison: Option<Poison>,
    /// A double weapon: held in both hands, its other head strikes as an off-hand weapon in a full attack,
    /// as a light one (004:471).
    #[serde(default)]
    pub double: bool,
    /// A tail: it strikes into its flier's blind spot, which no other weapon reaches (004:676).
    #[serde(default)]
    pub tail: bool,
    /// A wing: a hovering flier cannot strike with it (004:709).
    #[serde(default)]
    pub wing: bool,
    /// A trip weapon (004:489): it trips with a melee touch attack of its own, provoking nothing.
    #[serde(default)]
    pub trip: bool,
    /// A whip, « le fouet » of 004:489, as the d20 standard has it (docs/rulings.md): it strikes up to two
    /// squares beyond the natural reach, the next squares too, threatens nothing, provokes when it attacks
    /// as a ranged attack does, deals nonlethal damage, none to a foe in armour (an armour bonus of +1 or
    /// more, or a natural armour of +3 or more), and gives +2 on the opposed rolls of a disarm.
    #[serde(default)]
    pub whip: bool,
    /// Wielded with Weapon Finesse though not light (the whip, the spiked chain: the d20 standard).
    #[serde(default)]
    pub finesse: bool,
    /// Extra damage dice, thrown once even on a critical (004:27).
    #[serde(default)]
    pub extra: Option<DiceExpr>,
    /// Its extra dice are fire (a flaming blade's): none under water (004:635).
    #[serde(default)]
    pub extra_fire: bool,
    /// What it is made as, for its hardness and hit points (004:505-523); `None` for natural weapons and
    /// unarmed strikes, which cannot be sundered.
    #[serde(default)]
    pub make: Option<Make>,
    /// It slashes or bludgeons: it can sunder (004:499).
    #[serde(default)]
    pub sunders: bool,
    /// It pierces (alone or among other damage types): under water it fights in the table's piercing
    /// column (004:637-645).
    pub pierces: bool,
    /// A splash weapon (004:528-530): what it splashes; thrown, it is gone.
    #[serde(default)]
    pub splash: Option<Splash>,
    /// Hit points it has lost to sunders (004:502).
    #[serde(default)]
    pub hit_points_lost: u32,
    /// Put away (sheathed, slung, at the belt) rather than in hand: drawn before it strikes (004:218).
    #[serde(default)]
    pub stowed: bool,
    /// A crossbow: the action loading it takes (004:120, 004:137).
    #[serde(default)]
    pub reload: Option<Reload>,
    /// A crossbow shot and not loaded again: it shoots no more until loaded (004:120, 004:137).
    #[serde(default)]
    pub unloaded: bool,
    /// A splash weapon made ready to throw, in hand (« Se préparer à lancer une arme à impact », a full-round
    /// action, 004:144): thrown only once prepared.
    #[serde(default)]
    pub prepared: bool,
    /// A lance: double damage when its rider's mount charges (004:460, 004:478).
    #[serde(default)]
    pub lance: bool,
    /// How many of it a creature has, for natural weapons (two claws): each strikes in a full attack.
    #[serde(default = "one")]
    pub count: u32,
    /// A secondary natural weapon: -5 to hit, half the Strength bonus to damage (the d20 standard,
    /// docs/rulings.md).
    #[serde(default)]
    pub secondary: bool,
}

fn one() -> u32 {
    1
}

/// A poison a blow delivers, as the d20 standard plays an injury poison (the texts name ability damage,
/// 004:28, not poisons; docs/rulings.md): on a hit that deals damage, a Fortitude save against `dc`; failed,
/// `damage` points off `ability`. Only its initial damage is played, not the secondary a minute later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Poison {
    /// The Fortitude save's DC.
    pub dc: i32,
    /// The ability it weakens.
    pub ability: Ability,
    /// The points it takes.
    pub damage: DiceExpr,
}

/// The action loading a crossbow takes (004:120, 004:137).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reload {
    /// A hand or light crossbow: a move action (004:120).
    Move,
    /// A heavy or repeating crossbow: a full-round action (004:137).
    FullRound,
}

/// What a splash weapon splashes (004:528): its damage to every creature within 1.5 m of where it bursts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Splash {
    /// The splash damage.
    pub damage: crate::rules::core::dice::DiceExpr,
    /// It harms undead alone (holy water).
    #[serde(default)]
    pub undead_only: bool,
    /// It burns on: this damage again to the creature hit, on its next turn (alchemist's fire).
    #[serde(default)]
    pub burns: Option<crate::rules::core::dice::DiceExpr>,
}

/// How a weapon is made, the rows of the table of 004:505-523 with its handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Make {
    /// A blade (Lame).
    Blade,
    /// A metal haft (à manche en métal).
    MetalHaft,
    /// A wooden haft (à manche en bois).
    WoodHaft,
    /// A projectile weapon (Arme à projectiles).
    Projectile,
    /// Leather, as a whip is (no row of the table: the d20 standard's leather, hardness 2, and 2 hit points
    /// as the lightest weapons of the table; docs/rulings.md).
    Leather,
}

/// A shield, as the table of hardness and hit points names it (004:518-523).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShieldKind {
    /// Targe.
    Buckler,
    /// Rondache en bois.
    LightWooden,
    /// Écu en bois.
    HeavyWooden,
    /// Rondache en acier.
    LightSteel,
    /// Écu en acier.
    HeavySteel,
    /// Pavois.
    Tower,
}

impl ShieldKind {
    /// Its hardness and hit points: the table of 004:505-523, rows 518-523.
    pub const fn hardness_and_hit_points(self) -> (u32, u32) {
        match self {
            ShieldKind::Buckler => (10, 5),
            ShieldKind::LightWooden => (5, 7),
            ShieldKind::HeavyWooden => (5, 15),
            ShieldKind::LightSteel => (10, 10),
            ShieldKind::HeavySteel => (10, 20),
            ShieldKind::Tower => (5, 20),
        }
    }

    /// The kind a template's shield bonus stands for when it names none (our ruling): +1 a light wooden
    /// shield, +4 a tower shield, otherwise a heavy wooden one.
    pub const fn of_bonus(bonus: i32) -> ShieldKind {
        match bonus {
            ..=1 => ShieldKind::LightWooden,
            4.. => ShieldKind::Tower,
            _ => ShieldKind::HeavyWooden,
        }
    }

    /// Its name.
    pub const fn name(self) -> &'static str {
        match self {
            ShieldKind::Buckler => "buckler",
            ShieldKind::LightWooden => "light wooden shield",
            ShieldKind::HeavyWooden => "heavy wooden shield",
            ShieldKind::LightSteel => "light steel shield",
            ShieldKind::HeavySteel => "heavy steel shield",
            ShieldKind::Tower => "tower shield",
        }
    }
}

/// The shield a creature carries, an object a sunder may strike (004:499, 004:518-523): its kind, the AC
/// bonus it gave whole, and the hit points it has lost. Broken at half its hit points, it gives half its
/// bonus; destroyed at 0, none (our ruling after the d20 standard).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shield {
    /// Its kind.
    pub kind: ShieldKind,
    /// Its AC bonus whole.
    pub bonus: i32,
    /// Hit points lost to sunders.
    pub hit_points_lost: u32,
    /// Strapped to its arm (004:221): it gives its bonus and takes its hand (not a buckler's); otherwise
    /// slung on its back, giving nothing and taking no hand (our ruling, docs/rulings.md).
    pub strapped: bool,
}

impl Shield {
    /// The AC bonus it gives now: none unless strapped on (004:221); half its bonus once broken, at half
    /// its hit points (our ruling after the d20 standard).
    pub fn armor_class(&self) -> i32 {
        let (_, hit_points) = self.kind.hardness_and_hit_points();
        match (self.strapped, 2 * self.hit_points_lost >= hit_points) {
            (false, _) => 0,
            (true, true) => self.bonus / 2,
            (true, false) => self.bonus,
        }
    }
}

/// The hardness and hit points of an ordinary weapon made as `make` and held as `handling`: the table of
/// 004:505-523 row by row. The table has no two-handed metal-hafted row: our ruling gives it the
/// one-handed one's (docs/rulings.md).
pub fn hardness_and_hit_points(make: Make, handling: Handling) -> (u32, u32) {
    match (make, handling) {
        (Make::Blade, Handling::Light) => (10, 2),
        (Make::Blade, Handling::OneHanded) => (10, 5),
        (Make::Blade, Handling::TwoHanded) => (10, 10),
        (Make::MetalHaft, Handling::Light) => (10, 10),
        (Make::MetalHaft, Handling::OneHanded | Handling::TwoHanded) => (10, 20),
        (Make::WoodHaft, Handling::Light) => (5, 2),
        (Make::WoodHaft, Handling::OneHanded) => (5, 5),
        (Make::WoodHaft, Handling::TwoHanded) => (5, 10),
        (Make::Projectile, _) => (5, 5),
        (Make::Leather, _) => (2, 2),
    }
}

#[cfg(test)]
impl Weapon {
    /// A plain manufactured melee weapon for the tests, 19-20/x2, in the main hand, of no make.
    pub(crate) fn plain(name: &str, damage: &str, handling: Handling) -> Weapon {
        Weapon {
            name: name.into(),
            damage: damage.parse().unwrap(),
            threat: 19,
            multiplier: 2,
            reach: false,
            handling,
            delivery: Delivery::Melee,
            strength: StrengthToDamage::Full,
            natural: false,
            unarmed: false,
            off_hand: false,
            two_hands: false,
            brace: false,
            tail: false,
            wing: false,
            trip: false,
            whip: false,
            finesse: false,
            extra: None,
            extra_fire: false,
            make: None,
            sunders: false,
            pierces: false,
            splash: None,
            hit_points_lost: 0,
            stowed: false,
            reload: None,
            unloaded: false,
            prepared: false,
            lance: false,
            double: false,
            poison: None,
            count: 1,
            secondary: false,
        }
    }
}

impl Weapon {
    /// Whether it strikes as a weapon in two hands, for the Strength bonus x1.5 (004:26) and Power Attack's
    /// damage doubled: a two-handed weapon, or a one-handed one gripped in both hands; never a light one
    /// (« les armes légères ne bénéficient pas de ce bonus quand on les utilise à deux mains »), a natural
    /// weapon or the unarmed strike.
    pub fn wielded_two_handed(&self) -> bool {
        !self.natural
            && !self.unarmed
            && (self.handling == Handling::TwoHanded || (self.two_hands && self.handling == Handling::OneHanded))
    }

    /// How far it strikes in melee (004:63, 000:169-172; a whip's, docs/rulings.md).
    pub fn reach_kind(&self) -> crate::rules::core::weapon_reach::WeaponReach {
        use crate::rules::core::weapon_reach::WeaponReach;
        if self.whip {
            WeaponReach::Whip
        } else if self.reach {
            WeaponReach::Doubled
        } else {
            WeaponReach::Natural
        }
    }

    /// Whether its blows deal nonlethal damage: an unarmed strike or a whip (the d20 standard) unless dealt
    /// as lethal (004:168, 004:303).
    pub fn nonlethal_blows(&self, lethal: bool) -> bool {
        (self.unarmed || self.whip) && !lethal
    }

    /// Its hardness and full hit points, if it can be sundered.
    pub fn toughness(&self) -> Option<(u32, u32)> {
        self.make.map(|make| hardness_and_hit_points(make, self.handling))
    }

    /// Broken: at half its hit points or fewer (the d20 standard; our ruling), -2 on attack and damage.
    pub fn broken(&self) -> bool {
        self.toughness().is_some_and(|(_, hp)| self.hit_points_lost > 0 && self.hit_points_lost * 2 >= hp)
    }
}

/// An item carried for use in combat: a potion, for now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Its name.
    pub name: String,
    /// The line of its use in the table of actions (004:87-163).
    pub action_line: u32,
    /// The kind of action its use is, from that line of the table.
    pub action_kind: crate::rules::core::action_table::TableKind,
    /// Whether its use provokes, from that line of the table.
    pub provokes: crate::rules::core::action_table::Provokes,
    /// The hit points it heals.
    pub heal: Option<crate::rules::core::dice::DiceExpr>,
}

/// The items a creature carries; each is used up when used.
#[derive(Component, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Items(pub Vec<Item>);

/// The weapons and natural attacks a creature can use, the first being its usual one.
#[derive(Component, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Armament(pub Vec<Weapon>);

impl Armament {
    /// The weapons it can strike with now: what it holds, its natural weapons and its unarmed strike; not
    /// what is put away (004:218).
    pub fn ready(&self) -> impl Iterator<Item = &Weapon> {
        self.0.iter().filter(|w| !w.stowed)
    }

    /// The weapon `name`, or with no name the one an attack naming none takes ([`Armament::first_in_hand`]).
    pub fn chosen(&self, name: Option<&str>) -> Option<&Weapon> {
        match name {
            Some(name) => self.0.iter().find(|w| w.name == name),
            None => self.first_in_hand(),
        }
    }

    /// The weapon an attack naming none takes first: the main hand's (the off hand's is named to strike with
    /// it), not the bare fist while a weapon is in a hand; else the first ready. Every path that asks which
    /// weapon an attack will use asks here: the attack, its preview, the knees' check, the coup de grâce.
    pub fn first_in_hand(&self) -> Option<&Weapon> {
        self.ready().find(|w| !w.off_hand && !w.unarmed).or_else(|| self.ready().next())
    }
}

/// Feats the rules know of. Unknown names in data are refused, so a typo never passes silently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Feat {
    /// Science de l'initiative: +4 initiative.
    ImprovedInitiative,
    /// Attaques réflexes: 1 + Dex attacks of opportunity a round (004:71).
    CombatReflexes,
    /// Course: keeps Dex to AC while running (004:248).
    Run,
    /// Tir de précision: no -4 for shooting into melee (004:182).
    PreciseShot,
    /// Tir à bout portant: +1 attack and damage within 9 m.
    PointBlankShot,
    /// Attaque en vol (004, aerial combat).
    FlybyAttack,
    /// Vol stationnaire (004, aerial combat).
    Hover,
    /// Esquive: +1 dodge bonus to AC against every foe, lost with the Dex bonus (004:36; the Pathfinder
    /// wording, docs/rulings.md).
    Dodge,
    /// Souplesse du serpent.
    Mobility,
    /// Science du combat à mains nues: an unarmed strike counts as armed.
    ImprovedUnarmedStrike,
    /// Attaque en finesse.
    WeaponFinesse,
    /// Attaque en puissance.
    PowerAttack,
    /// Combat à deux armes.
    TwoWeaponFighting,
    /// Vigilance.
    Alertness,
    /// Enchaînement: once a round, an extra blow after a blow that drops its foe (004:234).
    Cleave,
    /// Succession d'enchaînements (named at 004:234): Cleave's blow as often as a blow drops a foe, no
    /// limit in the round (the d20 feat).
    GreatCleave,
    /// Arme de prédilection.
    WeaponFocus,
    /// Science du croc-en-jambe: an unarmed trip provokes nothing (004:486, which misnames it).
    ImprovedTrip,
    /// Science de la feinte: a feint is a move action (004:527).
    ImprovedFeint,
    /// Science de la bousculade: a bull rush provokes nothing from its target (004:447).
    ImprovedBullRush,
    /// Science du désarmement: a disarm provokes nothing (004:492).
    ImprovedDisarm,
    /// Science de la destruction: a sunder provokes nothing (004:500).
    ImprovedSunder,
    /// Science de la lutte: starting a grapple provokes nothing, +4 on grapple checks (d20 standard; the
    /// text gives the first to Improved Unarmed Strike, 004:581; our ruling).
    ImprovedGrapple,
    /// Science du renversement: the foe of an overrun cannot avoid it (004:536).
    ImprovedOverrun,
    /// Piétinement: the foe of its mount's overrun cannot avoid it, and a foe knocked down takes a hoof
    /// (004:537).
    Trample,
    /// Rechargement rapide: a light or hand crossbow loads as a free action, a heavy one as a move action
    /// (the d20 standard; the texts name no such feat, docs/rulings.md).
    RapidReload,
}

/// The feats a creature has, and the weapons its Weapon Focus names (one feat per weapon).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feats(pub BTreeSet<Feat>, #[serde(default)] pub BTreeSet<String>);

impl Feats {
    /// Whether the creature has `feat`.
    pub fn has(&self, feat: Feat) -> bool {
        self.0.contains(&feat)
    }

    /// Whether its Weapon Focus is with `weapon`: the feat names one weapon and gives +1 with it alone (the
    /// texts name the feat, « Arme de prédilection », without its rule; our ruling, docs/rulings.md).
    pub fn focus_on(&self, weapon: &Weapon) -> bool {
        self.has(Feat::WeaponFocus) && self.1.contains(&weapon.name)
    }
}

/// Skill bonuses the combat rules call on (Escape Artist to squeeze, Jump to take off, Ride, Hide,
/// Bluff, Sense Motive, Tumble), as total modifiers. Written with the skills it has only.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Skills {
    /// Évasion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escape_artist: Option<i32>,
    /// Saut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jump: Option<i32>,
    /// Équitation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ride: Option<i32>,
    /// Discrétion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hide: Option<i32>,
    /// Bluff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bluff: Option<i32>,
    /// Psychologie.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sense_motive: Option<i32>,
    /// Détection: finding a flier that hides (004:816-817).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot: Option<i32>,
    /// Acrobaties.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tumble: Option<i32>,
    /// Concentration: keeping a spell when hurt or casting defensively (004:193-197).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concentration: Option<i32>,
    /// Natation: swimming in deep water without a swim speed (004:643).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swim: Option<i32>,
    /// Premiers secours: stabilising a dying creature (004:283).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heal: Option<i32>,
}

/// Properties that change how rules apply to a creature.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Traits {
    /// Incorporeal: ignores terrain and obstacles (000:108).
    pub incorporeal: bool,
    /// Fills its space: nobody passes through it (000:89-90).
    pub fills_space: bool,
    /// Still an obstacle when helpless: its squares cost double to cross (000:72-73).
    pub obstructs_when_helpless: bool,
    /// Immune to critical hits (and so to coup de grâce, 004:427).
    pub immune_to_criticals: bool,
    /// Sees all around: no blind spot when flying.
    pub all_round_vision: bool,
    /// Darkvision range in metres (0: none).
    pub darkvision_m: u32,
    /// Uncanny dodge: keeps Dex to AC when flat-footed.
    pub uncanny_dodge: bool,
    /// Speed not reduced by armour or load (the dwarf's line of 000:46-50).
    pub unhindered_by_armor: bool,
    /// Unarmed strikes count as armed (monk).
    pub armed_unarmed: bool,
    /// More than two legs, or exceptionally stable: +4 against a trip (004:485) or a bull rush (004:448).
    pub stable: bool,
    /// A humanoid: a feint against any other creature takes -4 (004:525).
    pub humanoid: bool,
    /// An undead: turning affects it (004:538).
    pub undead: bool,
    /// Starts a grapple without provoking (« certains monstres », 004:580): Improved Grab.
    pub improved_grab: bool,
    /// Turn resistance: added to its Hit Dice against a turning check (d20 standard; our ruling).
    pub turn_resistance: i32,
    /// Freedom of movement (a ring, a spell): the water changes nothing for it (004:641, 004:634).
    pub freedom_of_movement: bool,
    /// A mount not trained for war, frightened by the shouts and the clash of arms (« poneys, chevaux
    /// légers et lourds », 004:473): its rider must control it each round.
    pub skittish: bool,
    /// Sneak attack (« attaque sournoise », 004:27, 004:425): these extra dice against a foe it flanks or
    /// that is denied its Dex bonus to AC (the d20 rogue's rule; our ruling, docs/rulings.md).
    pub sneak_attack: Option<DiceExpr>,
}

/// The states of a creature its wounds dropped (« s'effondre », 004:229, 004:234): dying, dead, or
/// unconscious (from its wounds or nonlethal damage, 004:269, 004:305).
pub const DROPPED: [Condition; 3] = [Condition::Dying, Condition::Dead, Condition::Unconscious];

/// What fatigue takes off Strength and Dexterity while it lasts (003:71 « un malus de -2 à la Force et à la
/// Dextérité »).
pub const FATIGUE_PENALTY: i32 = -2;

/// States and conditions that change what a creature can do or how it is hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// No Dex to AC, no attacks of opportunity, until its first turn (004:53).
    FlatFooted,
    /// À terre.
    Prone,
    /// Sans défense.
    Helpless,
    /// Squeezing into a narrow space: -4 attack and AC (000:110-114).
    Squeezed,
    /// Squeezing narrower than half its space with Escape Artist: no attacks, -4 AC, no Dex to AC
    /// (000:121-123).
    SqueezedTight,
    /// Hors de combat at 0 HP (004:263-308).
    Disabled,
    /// Mourant, -1 to -9 HP.
    Dying,
    /// Stabilised while dying.
    Stable,
    /// Mort.
    Dead,
    /// Inconscient.
    Unconscious,
    /// Chancelant: nonlethal damage equals current HP.
    Staggered,
    /// Aveuglé.
    Blinded,
    /// Running this round: no Dex to AC without the Run feat.
    Running,
    /// Total defence this round: +4 AC, no attacks of opportunity.
    TotalDefense,
    /// Fighting defensively this round: -4 attack, +2 dodge.
    FightingDefensively,
    /// Charged this round: -2 AC until its next turn (004:457).
    Charging,
    /// Dazzled: -1 to attacks (004:376).
    Dazzled,
    /// Entangled: -2 to attacks and Dex -4 (004:378, 004:389).
    Entangled,
    /// Invisible: +2 to its attacks, and the defender loses its Dex bonus (004:379); total concealment
    /// against others (004:413-415).
    Invisible,
    /// Shaken: -2 to attacks (004:380).
    Shaken,
    /// Frightened: -2 to attacks (004:380).
    Frightened,
    /// Fatigued (« fatigué », 003:71): it can neither run nor charge, -2 to Strength and Dexterity (taken off
    /// its scores while it lasts, [`FATIGUE_PENALTY`]); it ends with the nonlethal damage that brought it.
    Fatigued,
    /// Cowering: -2 AC and no Dex bonus (004:388).
    Cowering,
    /// Turned: an undead that flees its turner and attacks no one (004:549).
    Turned,
    /// Grappling: no Dex bonus against those outside the grapple (004:391, 004:590).
    Grappling,
    /// Pinned: -4 AC against melee, Dex counted as 0 (004:394).
    Pinned,
    /// Stunned: -2 AC and no Dex bonus (004:397); it takes no actions and threatens no square (the d20
    /// standard, docs/rulings.md).
    Stunned,
    /// Kneeling or sitting: -2 AC against melee, +2 against ranged (004:393); a level may say `sitting`.
    #[serde(alias = "sitting")]
    Kneeling,
    /// Casting a spell of a round or more: threatens no square (004:238).
    Casting,
    /// Off balance in the water, its Swim check failed: no headway, no Dex bonus to AC, +2 to attacks
    /// against it (004:645; our ruling after the d20 standard for the lost footnote).
    OffBalance,
    /// At the bottom of a pit it was pushed into: out of the fight, no one reaching it nor it anyone,
    /// climbing being out of the game (our ruling, docs/rulings.md).
    InPit,
}

/// Asks that a condition be gained or lost; the health chapter applies it and writes the fact.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConditionChange {
    /// Whose.
    pub creature: Entity,
    /// Which.
    pub condition: Condition,
    /// Gained (`true`) or lost.
    pub gained: bool,
}

/// The conditions on a creature now.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditions(pub BTreeSet<Condition>);

impl Conditions {
    /// Whether `condition` holds.
    pub fn has(&self, condition: Condition) -> bool {
        self.0.contains(&condition)
    }

    /// Whether the creature is helpless: bound, asleep, paralysed, unconscious or dead (004:423).
    pub fn is_helpless(&self) -> bool {
        [Condition::Helpless, Condition::Unconscious, Condition::Dying, Condition::Dead].iter().any(|c| self.has(*c))
    }

    /// Whether the creature threatens no square whatever it holds: casting a spell of a round or more
    /// (004:238), grappling (004:589), cowering (no actions, 004:388, 004:565), stunned (no actions, the
    /// d20 standard, docs/rulings.md), turned (it flees and attacks no one, 004:549) or squeezed too tight
    /// to attack (000:121-123). One that threatens nothing controls no space: it flanks nobody (« Seul un
    /// allié qui est en mesure de porter une attaque de corps à corps », 004:420) and makes no attack of
    /// opportunity.
    pub fn threatens_nothing(&self) -> bool {
        [
            Condition::Casting,
            Condition::Grappling,
            Condition::Cowering,
            Condition::Stunned,
            Condition::Turned,
            Condition::SqueezedTight,
        ]
        .iter()
        .any(|c| self.has(*c))
    }

    /// Whether its wounds dropped it (« s'effondre », 004:229, 004:234): one of [`DROPPED`].
    pub fn dropped(&self) -> bool {
        DROPPED.iter().any(|c| self.has(*c))
    }

    /// Whether the creature can still act at all: not helpless, nor at the bottom of a pit.
    pub fn can_act(&self) -> bool {
        !self.is_helpless() && !self.has(Condition::InPit)
    }

    /// Whether it takes actions now: able to act, and neither stunned nor cowering, which take none
    /// (004:388, 004:565; the d20 standard for stunned, docs/rulings.md): a readied action waits.
    pub fn takes_actions(&self) -> bool {
        self.can_act() && !self.has(Condition::Stunned) && !self.has(Condition::Cowering)
    }
}

/// A creature's abilities as its conditions leave them in play, for its saving throws: Dex 0 when helpless
/// (« on considère même que sa valeur de Dextérité est égale à 0 », 004:423) or pinned (004:394, the same
/// footnote), Dex -4 when entangled (004:378); the Reflex save takes the Dex modifier (004:46). (The AC
/// takes the same rows as the defender's table, each named.)
pub fn abilities_in_play(abilities: &Abilities, conditions: &Conditions) -> Abilities {
    let mut out = *abilities;
    if conditions.is_helpless() || conditions.has(Condition::Pinned) {
        out.dex = 0;
    } else if conditions.has(Condition::Entangled) {
        out.dex -= 4;
    }
    out
}

/// A Dexterity-based skill's bonus (Ride, Hide, Escape Artist) with the Dex its conditions leave it
/// ([`abilities_in_play`]): the total its sheet gives (which counts the whole Dex modifier) moved by what the
/// conditions take off that modifier; untrained, that modifier (004:378, 004:394, 004:423).
pub fn dex_skill(total: Option<i32>, abilities: &Abilities, conditions: &Conditions) -> i32 {
    let (raw, now) = (ability_modifier(abilities.dex), ability_modifier(abilities_in_play(abilities, conditions).dex));
    total.map_or(now, |t| t + now - raw)
}

/// Refuses to aim at a creature at the bottom of a pit: out of the fight (our ruling, docs/rulings.md).
pub fn within_the_fight(conditions: &Conditions) -> Result<(), Refusal> {
    if conditions.has(Condition::InPit) {
        Err(Refusal::new("it lies at the bottom of a pit, out of the fight", "docs/rulings.md"))
    } else {
        Ok(())
    }
}

/// Refuses any action of a creature at the bottom of a pit (our ruling) or helpless (004:278).
pub fn able_to_act(conditions: &Conditions) -> Result<(), Refusal> {
    within_the_fight(conditions)?;
    if conditions.can_act() { Ok(()) } else { Err(Refusal::new("a helpless creature cannot act", "004:278")) }
}

/// Refuses a special attack (`what`) to a creature in a grapple: there it can only make the grapple's own
/// moves, strike with a light or natural weapon, cast or use an item (004:592-596).
pub fn out_of_grapple(conditions: &Conditions, what: &str) -> Result<(), Refusal> {
    if conditions.has(Condition::Grappling) {
        return Err(Refusal::new(
            format!("in a grapple there is no {what}: only the grapple's moves, a light weapon, a spell or an item"),
            "004:592-596",
        ));
    }
    Ok(())
}

/// Refuses to a pinned creature what is not breaking free (004:614): « incapable de bouger », held, it
/// tries to break the pin by a grapple check or with Escape Artist, or casts a spell with no gestures
/// (« agrippé ou même immobilisé », 004:595), no more.
pub fn not_pinned(conditions: &Conditions) -> Result<(), Refusal> {
    if conditions.has(Condition::Pinned) {
        return Err(Refusal::new("pinned, it can only try to break free (004:614)", "004:614"));
    }
    Ok(())
}

/// Whether a creature is on its feet for what it is about to do (taking off, mounting, an overrun): lying
/// prone it stands up first, a move action that provokes (004:225; our ruling, docs/rulings.md); grappling,
/// it moves only by a grapple check (004:591).
pub fn on_its_feet(conditions: &Conditions) -> Result<(), Refusal> {
    if conditions.has(Condition::Grappling) {
        return Err(Refusal::new("grappling, it moves only by winning a grapple check, or escapes first", "004:591"));
    }
    if conditions.has(Condition::Prone) {
        Err(Refusal::new("lying prone it stands up first (a move action that provokes)", "004:225"))
    } else {
        Ok(())
    }
}

/// Character level, or Hit Dice for a monster: natural healing goes by it (004:293-295, 004:307).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level(pub u32);

impl Default for Level {
    fn default() -> Self {
        Level(1)
    }
}

/// Height above the ground in steps of 1.5 m (fliers, 004:646-851). Zero for creatures on the ground.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Altitude(pub i32);

/// A caster holding a touch spell's charge (004:200), as the magic chapter marks it while the charge is
/// held: armed though its hands are bare, for the squares it threatens and its attacks of opportunity, and
/// against an unarmed attacker (« un lanceur de sorts délivrant un sort de contact … valable aussi bien pour
/// l'attaque que pour la défense (le personnage peut porter des attaques d'opportunité) », 004:170-171). Its
/// own unarmed attacks provoke all the same (004:201).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HoldingCharge;

/// Whether a creature of `speed` at `altitude` is a flier in the air (a walker on a ledge is not): the one
/// predicate of "in the air" for the rules that spare or forbid it (a trip, a hiding place on the ground).
pub fn flying(speed: &Speed, altitude: i32) -> bool {
    altitude > 0 && speed.fly.is_some()
}

/// Whether a creature's unarmed strike is a weapon it threatens with and strikes by opportunity with
/// (« Être armé à mains nues », 004:170-171): a monk's or a natural attacker's (`armed_unarmed`), with
/// Improved Unarmed Strike, or while it holds a touch spell's charge. The one predicate of the threat, the
/// attacks of opportunity, flanking and an unarmed attack's provocation.
pub fn armed_unarmed(traits: &Traits, feats: &Feats, holding_charge: bool) -> bool {
    traits.armed_unarmed || feats.has(Feat::ImprovedUnarmedStrike) || holding_charge
}

/// This flier hovers in the air (004:708-709): the aerial chapter marks it so while its last flight was a
/// hover, and the attacks read it (no wing attacks while hovering, 004:709).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hovering;

/// Where a creature faces, one of the eight 45° headings; fliers turn only by manoeuvres.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading(pub Direction);

impl Default for Heading {
    fn default() -> Self {
        Heading(Direction::North)
    }
}

/// Which creatures this one noticed before the fight: those it does not know of can catch it in a
/// surprise round (004:58-60). `None` means it is aware of everyone.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Awareness(pub Option<BTreeSet<CreatureId>>);

impl Awareness {
    /// Whether this creature knows of `other` at the start.
    pub fn knows(&self, other: &CreatureId) -> bool {
        self.0.as_ref().is_none_or(|known| known.contains(other))
    }
}

/// Takes damage off temporary hit points first, then off current hit points (004:298-299).
pub fn absorb(hp: HitPoints, amount: i32) -> HitPoints {
    let from_temporary = hp.temporary.min(amount.max(0));
    HitPoints { temporary: hp.temporary - from_temporary, current: hp.current - (amount - from_temporary), ..hp }
}

/// Creatures of the fight by id.
#[derive(Resource, Clone, Debug, Default)]
pub struct Roster(pub BTreeMap<CreatureId, Entity>);

impl Roster {
    /// The entity of a creature id.
    pub fn get(&self, id: &str) -> Option<Entity> {
        self.0.get(&CreatureId(id.to_string())).copied()
    }
}

/// What an ally's aid another gives (004:444): +2 on the next attack against the foe, or +2 AC against the
/// foe's next attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AidKind {
    /// +2 on the aided creature's next attack roll against the foe.
    Attack,
    /// +2 to the aided creature's AC against the foe's next attack.
    Defense,
}

/// One aid another received: from whom, against which foe, of which kind. It lasts until the start of the
/// aider's next turn (004:444), or until the attack it is for is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AidBonus {
    /// The aider.
    pub aider: Entity,
    /// The foe it distracted.
    pub foe: Entity,
    /// What it gives.
    pub kind: AidKind,
}

/// The aid another bonuses a creature holds (004:444); several aiders' stack.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Aided(pub Vec<AidBonus>);

impl Aided {
    /// The bonus of `kind` against `foe`: +2 for each aid held.
    pub fn bonus(aided: Option<&Aided>, kind: AidKind, foe: Entity) -> i32 {
        aided.map_or(0, |a| 2 * a.0.iter().filter(|b| b.kind == kind && b.foe == foe).count() as i32)
    }
}

/// The source an aid's +2 on an attack roll goes by, in the log.
pub const AID_ON_ATTACK: &str = "aid another (004:444)";

/// The source an aid's +2 to AC goes by, in the log.
pub const AID_ON_ARMOR_CLASS: &str = "aided against this foe (004:444)";

/// The feints a creature fell for (004:524): against each feinter's next melee attack on it, made before the
/// end of the feinter's next turn, it keeps no Dexterity bonus to AC.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Feinted(pub Vec<FeintBy>);

/// One feint fallen for: by whom, in which round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeintBy {
    /// The feinter.
    pub feinter: Entity,
    /// The round of the feint: it lasts to the end of the feinter's next turn.
    pub round: u32,
    /// The turn the feinter feinted in has ended: the end of its next one ends the feint.
    pub turn_over: bool,
}

/// The creatures a creature grapples with (004:576-618): every side of a grapple carries it, naming the
/// others, with `Condition::Grappling`; a pinned one names its pinner (004:611).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Grapple {
    /// Its opponents in the grapple.
    pub with: Vec<Entity>,
    /// Who pins it, while `Condition::Pinned` holds (004:611).
    pub pinned_by: Option<Entity>,
    /// It moved into the others' space to hold them (004:587): it steps out when the grapple ends.
    pub entered: bool,
}

impl Grapple {
    /// Whether `target`, grappling, grapples with `other`: it keeps its Dex bonus against it (004:590).
    pub fn holds(target: Option<&Grapple>, other: Entity) -> bool {
        target.is_some_and(|g| g.with.contains(&other))
    }

    /// Whether `target` is pinned by `other`: the pinned creature's -4 is against the others (004:611).
    pub fn pinned_by(target: Option<&Grapple>, other: Entity) -> bool {
        target.is_some_and(|g| g.pinned_by == Some(other))
    }

    /// Whether `pinner` pins `target` now: it is pinned (004:611), by `pinner`.
    pub fn pins(pinner: Entity, target: Option<&Grapple>, conditions: &Conditions) -> bool {
        conditions.has(Condition::Pinned) && Grapple::pinned_by(target, pinner)
    }
}

impl Feinted {
    /// Whether `target` keeps no Dex bonus against `attacker`'s melee attack, for a feint (004:524).
    pub fn by(target: Option<&Feinted>, attacker: Entity) -> bool {
        target.is_some_and(|f| f.0.iter().any(|b| b.feinter == attacker))
    }
}
