//! Creature templates and the weapon catalogue under `assets/`: raw RON definitions, validated into the
//! values the rules use. Speeds are written in metres, as the texts give them, and checked to fall on
//! whole squares.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::diagnostics::{Diagnostic, Diagnostics, Source, read_file};
use crate::rules::core::creature::*;
use crate::rules::core::dice::DiceExpr;
use crate::rules::core::geometry::SQUARE_METRES;
use crate::rules::core::size::{BodyShape, Size};

/// A weapon as written in `assets/weapons.ron` or inline in a template.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeaponDef {
    /// Damage dice for a Medium wielder, or for the creature itself for natural weapons.
    pub damage: DiceExpr,
    /// Threat range as its lowest roll (19 for "19-20").
    #[serde(default = "twenty")]
    pub threat: u32,
    /// Critical multiplier.
    #[serde(default = "two")]
    pub multiplier: u32,
    /// Reach weapon.
    #[serde(default)]
    pub reach: bool,
    /// Light, one-handed or two-handed.
    #[serde(default)]
    pub handling: Handling,
    /// Melee, thrown or projectile.
    #[serde(default)]
    pub delivery: Delivery,
    /// How Strength adds to damage.
    #[serde(default)]
    pub strength: StrengthToDamage,
    /// Natural weapon.
    #[serde(default)]
    pub natural: bool,
    /// Unarmed strike.
    #[serde(default)]
    pub unarmed: bool,
    /// Set against a charge, it deals double damage to a charging foe (the spear, the trident, 004:461).
    #[serde(default)]
    pub brace: bool,
    /// A tail: it strikes into its flier's blind spot, which no other weapon reaches (004:676).
    #[serde(default)]
    pub tail: bool,
    /// A wing: a hovering flier cannot strike with it (004:709).
    #[serde(default)]
    pub wing: bool,
    /// A trip weapon (004:489): flails, the halberd, the guisarme, the spiked chain, the whip.
    #[serde(default)]
    pub trip: bool,
    /// A whip (the d20 standard's, docs/rulings.md): reach 4.5 m for a Medium wielder, the next squares
    /// too, threatening nothing, provoking as a ranged attack, nonlethal, nothing through armour, +2 to
    /// disarm.
    #[serde(default)]
    pub whip: bool,
    /// Wielded with Weapon Finesse though not light (the whip, the spiked chain).
    #[serde(default)]
    pub finesse: bool,
    /// Extra damage dice, never multiplied (a flaming blade's 1d6 fire, 004:27).
    #[serde(default)]
    pub extra: Option<DiceExpr>,
    /// Its extra dice are fire: they burn nothing under water (004:635).
    #[serde(default)]
    pub extra_fire: bool,
    /// How it is made, for its hardness and hit points (004:505-523).
    #[serde(default)]
    pub make: Option<crate::rules::core::creature::Make>,
    /// It slashes or bludgeons: it can sunder (004:499).
    #[serde(default)]
    pub sunders: bool,
    /// It pierces (alone or among other types): the underwater table's piercing column (004:637-645).
    #[serde(default)]
    pub pierces: bool,
    /// A splash weapon (004:528-530): what it splashes.
    #[serde(default)]
    pub splash: Option<crate::rules::core::creature::Splash>,
    /// A crossbow: the action loading it takes (004:120, 004:137).
    #[serde(default)]
    pub reload: Option<crate::rules::core::creature::Reload>,
    /// A lance: double damage on a mounted charge (004:460, 004:478).
    #[serde(default)]
    pub lance: bool,
    /// A double weapon: its other head strikes as an off-hand weapon in a full attack (004:471).
    #[serde(default)]
    pub double: bool,
    /// A poison its blow delivers (004:28; the d20 injury poison).
    #[serde(default)]
    pub poison: Option<crate::rules::core::creature::Poison>,
    /// A natural weapon the creature has several of (two claws, two wings): each strikes in a full attack.
    #[serde(default = "one")]
    pub count: u32,
    /// A secondary natural weapon (the d20 standard: a dragon's claws, wings and tail, a griffon's claws): -5
    /// to hit and half the Strength bonus to damage (docs/rulings.md).
    #[serde(default)]
    pub secondary: bool,
}

/// A creature's skills with Alertness: +2 on Spot (the d20 feat, « Vigilance »; the texts name it
/// without its rule, docs/rulings.md). A template's skill values are totals, the feat's bonus counted in;
/// a creature with no Spot total spots with its Wisdom modifier, and the feat adds its +2 to that.
fn alert(mut skills: Skills, feats: &std::collections::BTreeSet<Feat>, wis: i32) -> Skills {
    if feats.contains(&Feat::Alertness) && skills.spot.is_none() {
        skills.spot = Some(crate::rules::core::creature::ability_modifier(wis) + 2);
    }
    skills
}

fn twenty() -> u32 {
    20
}

fn two() -> u32 {
    2
}

/// The most natural weapons of one kind a creature has (eight is plenty).
const MOST_NATURAL_WEAPONS: u32 = 8;

impl WeaponDef {
    fn to_weapon(&self, name: &str, off_hand: bool) -> Weapon {
        Weapon {
            name: name.to_string(),
            damage: self.damage,
            threat: self.threat,
            multiplier: self.multiplier,
            reach: self.reach,
            handling: self.handling,
            delivery: self.delivery,
            strength: self.strength,
            natural: self.natural,
            unarmed: self.unarmed,
            off_hand,
            two_hands: false,
            brace: self.brace,
            tail: self.tail,
            wing: self.wing,
            trip: self.trip,
            whip: self.whip,
            finesse: self.finesse,
            extra: self.extra,
            extra_fire: self.extra_fire,
            make: self.make,
            sunders: self.sunders,
            pierces: self.pierces,
            splash: self.splash.clone(),
            hit_points_lost: 0,
            stowed: false,
            reload: self.reload,
            unloaded: false,
            prepared: false,
            lance: self.lance,
            double: self.double,
            poison: self.poison,
            count: self.count,
            secondary: self.secondary,
        }
    }

    fn check(&self, name: &str) -> Option<String> {
        if !(2..=20).contains(&self.threat) {
            return Some(format!("weapon {name:?}: threat {} must be between 2 and 20", self.threat));
        }
        if !(2..=6).contains(&self.multiplier) {
            return Some(format!("weapon {name:?}: multiplier x{} must be between x2 and x6", self.multiplier));
        }
        if !(1..=MOST_NATURAL_WEAPONS).contains(&self.count) || (self.count > 1 && !self.natural) {
            return Some(format!(
                "weapon {name:?}: a count is for natural weapons, from 1 to {MOST_NATURAL_WEAPONS}, not {}",
                self.count
            ));
        }
        if self.secondary && !self.natural {
            return Some(format!("weapon {name:?}: only a natural weapon is secondary"));
        }
        match self.delivery {
            Delivery::Thrown { increment_m } | Delivery::Projectile { increment_m }
                if !(increment_m > 0.0 && increment_m <= MOST_METRES) =>
            {
                Some(format!(
                    "weapon {name:?}: a range increment is more than 0 and at most {MOST_METRES} m, not {increment_m}"
                ))
            }
            _ => None,
        }
    }
}

/// A weapon a template carries: a catalogue name, or a catalogue name held in the off hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WeaponRef {
    /// A weapon of the catalogue by name.
    Named(String),
    /// A weapon of the catalogue with how it is held.
    Held {
        /// Catalogue name.
        weapon: String,
        /// Held in the off hand.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        off_hand: bool,
    },
}

/// Speeds in metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedDef {
    /// Land speed in metres (9.0 for a human).
    pub land: f32,
    /// Fly speed and manoeuvrability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fly: Option<FlyDef>,
    /// Swim speed in metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swim: Option<f32>,
    /// Climb speed in metres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub climb: Option<f32>,
}

/// A fly speed in metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlyDef {
    /// Metres per move action.
    pub metres: f32,
    /// Manoeuvrability.
    pub maneuverability: Maneuverability,
}

/// Armour worn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmorDef {
    /// Category, which slows and limits running.
    #[serde(default)]
    pub category: ArmorCategory,
    /// Armour bonus.
    #[serde(default)]
    pub bonus: i32,
    /// Maximum Dex bonus.
    #[serde(default)]
    pub max_dex: Option<i32>,
}

/// A speed modifier in metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedModifierDef {
    /// Where it comes from.
    pub source: String,
    /// Bonus type, if typed.
    #[serde(default)]
    pub bonus_type: Option<String>,
    /// Metres (+3.0 for a barbarian).
    pub metres: f32,
    /// Lost in armour of this category or heavier.
    #[serde(default)]
    pub lost_in: Option<ArmorCategory>,
}

/// A creature template, one file under `assets/creatures/`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateDef {
    /// Display name.
    pub name: String,
    /// Icon file stem under `assets/icons/`.
    #[serde(default)]
    pub icon: Option<String>,
    /// Size.
    pub size: Size,
    /// Tall or long.
    #[serde(default)]
    pub shape: BodyShape,
    /// Natural reach in metres when it differs from the size table.
    #[serde(default)]
    pub reach_m: Option<f32>,
    /// Speeds.
    pub speed: SpeedDef,
    /// Speed modifiers.
    #[serde(default)]
    pub speed_modifiers: Vec<SpeedModifierDef>,
    /// Maximum hit points.
    pub hit_points: i32,
    /// Character level, or Hit Dice for a monster: natural healing goes by it (004:293-295, 004:307).
    #[serde(default = "one")]
    pub level: u32,
    /// Ability scores.
    pub abilities: Abilities,
    /// Base attack bonus.
    pub base_attack: i32,
    /// Base saves.
    #[serde(default)]
    pub saves: Saves,
    /// Armour.
    #[serde(default)]
    pub armor: ArmorDef,
    /// Shield bonus.
    #[serde(default)]
    pub shield: i32,
    /// Which shield (004:518-523): by its bonus if not named (+1 light wooden, +4 tower, else heavy wooden).
    #[serde(default)]
    pub shield_kind: Option<ShieldKind>,
    /// Natural armour bonus.
    #[serde(default)]
    pub natural_armor: i32,
    /// Deflection bonus.
    #[serde(default)]
    pub deflection: i32,
    /// Dodge bonus.
    #[serde(default)]
    pub dodge: i32,
    /// Load carried.
    #[serde(default)]
    pub load: Load,
    /// Weapons from the catalogue.
    #[serde(default)]
    pub weapons: Vec<WeaponRef>,
    /// Natural weapons defined here.
    #[serde(default)]
    pub natural_weapons: BTreeMap<String, WeaponDef>,
    /// Feats.
    #[serde(default)]
    pub feats: Vec<Feat>,
    /// The weapons its Weapon Focus feats name, one each (`weapon_focus: ["longsword"]`).
    #[serde(default)]
    pub weapon_focus: Vec<String>,
    /// Skills.
    #[serde(default)]
    pub skills: Skills,
    /// Traits.
    #[serde(default)]
    pub traits: Traits,
    /// Items carried, by name from `assets/items.ron`.
    #[serde(default)]
    pub items: Vec<String>,
    /// Spells, for a caster.
    #[serde(default)]
    pub spellcasting: Option<SpellcastingDef>,
    /// A breath weapon.
    #[serde(default)]
    pub breath: Option<crate::rules::breath::BreathWeapon>,
    /// The power to turn or rebuke undead: `(level: 3)`, `(level: 3, energy: Negative)` (004:538-575).
    #[serde(default)]
    pub turning: Option<crate::rules::special::turning::Turning>,
}

fn one() -> u32 {
    1
}

/// A caster's magic in a template: `(caster_level: 3, ability: Int, spells: {"magic missile": 3})`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellcastingDef {
    /// Caster level.
    pub caster_level: u32,
    /// The ability its spells' saving throws go by.
    pub ability: CastingAbility,
    /// Spells from `assets/spells.ron`, with the castings a day.
    pub spells: BTreeMap<String, u32>,
}

/// The ability a caster's spells go by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum CastingAbility {
    /// Intelligence (wizards).
    Int,
    /// Wisdom (clerics, druids).
    Wis,
    /// Charisma (sorcerers, bards).
    Cha,
}

/// An item of the catalogue `assets/items.ron`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemDef {
    /// The line of its use in the table of actions (004:87-163).
    pub action: u32,
    /// Healing it gives.
    #[serde(default)]
    pub heal: Option<crate::rules::core::dice::DiceExpr>,
}

/// The checked values of a creature, ready to spawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Display name.
    pub name: String,
    /// Icon stem.
    pub icon: String,
    /// Size.
    pub size: Size,
    /// Reach.
    pub reach: Reach,
    /// Speeds in squares.
    pub speed: Speed,
    /// Speed modifiers.
    pub speed_modifiers: SpeedModifiers,
    /// Hit points.
    pub hit_points: HitPoints,
    /// Character level or Hit Dice.
    pub level: Level,
    /// Abilities.
    pub abilities: Abilities,
    /// BAB.
    pub base_attack: BaseAttack,
    /// Saves.
    pub saves: Saves,
    /// AC parts.
    pub defense: Defense,
    /// Armour and load.
    pub encumbrance: Encumbrance,
    /// Weapons.
    pub armament: Armament,
    /// Feats.
    pub feats: Feats,
    /// Skills.
    pub skills: Skills,
    /// Traits.
    pub traits: Traits,
    /// Items carried.
    pub items: Items,
    /// Spells, for a caster.
    pub spellcasting: Option<crate::rules::magic::Spellcasting>,
    /// A breath weapon.
    pub breath: Option<crate::rules::breath::Breath>,
    /// The power to turn undead.
    pub turning: Option<crate::rules::special::turning::Turning>,
    /// Its shield, if it carries one.
    pub shield: Option<Shield>,
}

impl Stats {
    /// The sheet these stats give.
    pub fn sheet(&self) -> Sheet {
        self.sheet_in(&[])
    }

    /// The sheet these stats give a creature under `conditions` (a level's): a fatigued one runs not at all
    /// (003:71).
    pub fn sheet_in(&self, conditions: &[crate::rules::core::creature::Condition]) -> Sheet {
        derive_sheet(SheetInput {
            size: self.size,
            reach: self.reach,
            speed: &self.speed,
            speed_modifiers: &self.speed_modifiers,
            encumbrance: self.encumbrance,
            traits: &self.traits,
            hit_points: self.hit_points,
            abilities: &self.abilities,
            base_attack: self.base_attack,
            saves: self.saves,
            defense: &self.defense,
            armament: &self.armament,
            shield: self.shield.as_ref(),
            feats: &self.feats,
            fatigued: conditions.contains(&crate::rules::core::creature::Condition::Fatigued),
        })
    }
}

/// The catalogue's unarmed strike, which every wielder of weapons also has.
pub const UNARMED_STRIKE: &str = "unarmed strike";

/// The longest distance in metres a file may give.
pub const MOST_METRES: f32 = 3000.0;

/// The most hit points a creature may have: far above any creature of the texts, far below an overflow.
pub const MOST_HIT_POINTS: i32 = 10_000;

/// Converts a distance in metres to squares of 1.5 m; refused when it is not a finite distance within
/// 0..=[`MOST_METRES`] or not on a square's step.
pub fn metres_to_squares(metres: f32, what: &str) -> Result<u32, String> {
    let squares = metres / SQUARE_METRES;
    if !(0.0..=MOST_METRES).contains(&metres) {
        Err(format!("{what} of {metres} m is outside 0 to {MOST_METRES} m"))
    } else if (squares - squares.round()).abs() > 1e-3 {
        Err(format!("{what} of {metres} m is not a whole number of 1.5 m squares"))
    } else {
        Ok(squares.round() as u32)
    }
}

/// Everything under `assets/` the rules need: weapons and creature templates.
#[derive(Clone, Debug, Default)]
pub struct Content {
    /// Weapons by name.
    pub weapons: BTreeMap<String, WeaponDef>,
    /// Templates by file stem, with the file they came from.
    pub templates: BTreeMap<String, (PathBuf, TemplateDef)>,
    /// The table of actions in combat (004:87-163).
    pub actions: Vec<crate::rules::core::action_table::ActionRow>,
    /// Items by name.
    pub items: BTreeMap<String, ItemDef>,
    /// Spells by name.
    pub spells: BTreeMap<String, crate::rules::magic::SpellDef>,
}

impl Content {
    /// Reads `weapons.ron` and every `creatures/*.ron` under `assets`, listing every problem.
    pub fn load(assets: &Path) -> Result<Content, Diagnostics> {
        let mut problems = Vec::new();
        let mut content = Content::default();
        let weapons_path = assets.join("weapons.ron");
        match read_file(&weapons_path) {
            Ok(text) => {
                let source = Source::new(&weapons_path, &text);
                match source.parse::<BTreeMap<String, WeaponDef>>() {
                    Ok(weapons) => {
                        for (name, weapon) in &weapons {
                            if let Some(message) = weapon.check(name) {
                                problems.push(source.error(source.locate(&format!("\"{name}\""), None), message));
                            }
                        }
                        content.weapons = weapons;
                    }
                    Err(e) => problems.push(e),
                }
            }
            Err(e) => problems.push(e),
        }
        let actions_path = assets.join("actions.ron");
        match read_file(&actions_path) {
            Ok(text) => match Source::new(&actions_path, &text).parse() {
                Ok(actions) => content.actions = actions,
                Err(e) => problems.push(e),
            },
            Err(e) => problems.push(e),
        }
        let items_path = assets.join("items.ron");
        match read_file(&items_path) {
            Ok(text) => {
                let source = Source::new(&items_path, &text);
                match source.parse::<BTreeMap<String, ItemDef>>() {
                    Ok(items) => {
                        for (name, item) in &items {
                            if !content.actions.iter().any(|row| row.line == item.action) {
                                problems.push(source.error(
                                    source.locate(&format!("\"{name}\""), None),
                                    format!(
                                        "item {name:?}: no action on line {} of the table (004:87-163)",
                                        item.action
                                    ),
                                ));
                            }
                        }
                        content.items = items;
                    }
                    Err(e) => problems.push(e),
                }
            }
            Err(e) => problems.push(e),
        }
        let spells_path = assets.join("spells.ron");
        match read_file(&spells_path).and_then(|text| Source::new(&spells_path, &text).parse()) {
            Ok(spells) => content.spells = spells,
            Err(e) => problems.push(e),
        }
        let dir = assets.join("creatures");
        let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect(),
            Err(e) => {
                problems.push(Diagnostic {
                    file: dir.clone(),
                    line: 0,
                    column: 0,
                    message: format!("cannot list templates: {e}"),
                });
                Vec::new()
            }
        };
        files.sort();
        for path in files {
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            match read_file(&path).and_then(|text| Source::new(&path, &text).parse::<TemplateDef>()) {
                Ok(template) => {
                    content.templates.insert(stem, (path, template));
                }
                Err(e) => problems.push(e),
            }
        }
        // Check every template against the catalogue now, so `estoc check` catches a bad one.
        for (stem, (path, template)) in &content.templates {
            if let Err(messages) = content.stats(template, &TemplateOverrides::default()) {
                let text = read_file(path).unwrap_or_default();
                let source = Source::new(path, &text);
                for (key, message) in messages {
                    problems.push(source.error(source.locate(&key, None), format!("template {stem:?}: {message}")));
                }
            }
        }
        Diagnostics(problems).into_result(content)
    }

    /// Builds a creature's stats from a template and per-instance overrides; every problem is returned
    /// with a text to look for in the file (`"longsowrd"`, `land:`) to place it.
    #[expect(
        clippy::too_many_lines,
        reason = "each field of a template and its overrides checked in turn, each with its located error"
    )]
    pub fn stats(&self, template: &TemplateDef, overrides: &TemplateOverrides) -> Result<Stats, Vec<(String, String)>> {
        let mut problems = Vec::new();
        let mut squares = |metres: f32, what: &str, key: &str| match metres_to_squares(metres, what) {
            Ok(s) => s,
            Err(message) => {
                problems.push((key.to_string(), message));
                0
            }
        };
        let speed_def = overrides.speed.as_ref().unwrap_or(&template.speed);
        let speed = Speed {
            land: squares(speed_def.land, "land speed", "land:"),
            fly: speed_def.fly.as_ref().map(|f| FlySpeed {
                squares: squares(f.metres, "fly speed", "fly:"),
                maneuverability: f.maneuverability,
            }),
            swim: speed_def.swim.map(|m| squares(m, "swim speed", "swim:")),
            climb: speed_def.climb.map(|m| squares(m, "climb speed", "climb:")),
        };
        let speed_modifiers = SpeedModifiers(
            overrides
                .speed_modifiers
                .as_ref()
                .unwrap_or(&template.speed_modifiers)
                .iter()
                .map(|m| SpeedModifier {
                    source: m.source.clone(),
                    bonus_type: m.bonus_type.clone(),
                    squares: if m.metres < 0.0 {
                        -(squares(-m.metres, "speed modifier", "metres:") as i32)
                    } else {
                        squares(m.metres, "speed modifier", "metres:") as i32
                    },
                    lost_in: m.lost_in,
                })
                .collect(),
        );
        let size = overrides.size.unwrap_or(template.size);
        let reach = match template.reach_m {
            Some(m) => Reach(squares(m, "reach", "reach_m:")),
            None => Reach(size.natural_reach(template.shape)),
        };
        let mut weapons = Vec::new();
        let refs = overrides.weapons.as_ref().unwrap_or(&template.weapons);
        for weapon_ref in refs {
            let (name, off_hand) = match weapon_ref {
                WeaponRef::Named(name) => (name, false),
                WeaponRef::Held { weapon, off_hand } => (weapon, *off_hand),
            };
            match self.weapons.get(name) {
                Some(def) if def.unarmed => {
                    // Unarmed damage goes by the striker's size (004:172).
                    let mut strike = def.to_weapon(name, off_hand);
                    strike.damage = unarmed_damage(size);
                    weapons.push(strike);
                }
                Some(def) => {
                    // A creature's weapons are made for its size (our ruling, docs/rulings.md); a splash
                    // weapon's flask is the same for all (004:528).
                    let mut weapon = def.to_weapon(name, off_hand);
                    // A two-handed weapon takes both hands: it is no off-hand weapon (004:25-26, 004:467).
                    if off_hand && weapon.handling == crate::rules::core::creature::Handling::TwoHanded {
                        problems.push((
                            format!("\"{name}\""),
                            format!("{name:?} is a two-handed weapon: it cannot be held in the off hand (004:25-26)"),
                        ));
                    }
                    if weapon.splash.is_none() {
                        weapon.damage = weapon_damage(weapon.damage, size);
                    }
                    weapons.push(weapon);
                }
                None => problems
                    .push((format!("\"{name}\""), format!("unknown weapon {name:?} (not in assets/weapons.ron)"))),
            }
        }
        // A creature that wields manufactured weapons can always strike unarmed (004:168-172), to trip a foe
        // (004:483) among others: last of its weapons, after its natural ones, so never its first choice (a
        // lizardfolk that threw its javelin charges with its claws, not its fists). So can one that carries
        // nothing at all and has no natural weapon (a commoner with empty hands): its fists are its weapon.
        let empty_handed = weapons.is_empty() && template.natural_weapons.is_empty();
        let strikes_unarmed =
            (empty_handed || weapons.iter().any(|w| !w.natural && !w.unarmed)) && !weapons.iter().any(|w| w.unarmed);
        // The primary natural weapons first, the secondary after (the d20 standard): a charge, an attack of
        // opportunity or a blow with no weapon named strikes with the first (a warhorse's hoof, not its bite).
        let (primary, secondary): (Vec<_>, Vec<_>) = template.natural_weapons.iter().partition(|(_, d)| !d.secondary);
        for (name, def) in primary.into_iter().chain(secondary) {
            if let Some(message) = def.check(name) {
                problems.push((format!("\"{name}\""), message));
            }
            weapons.push(def.to_weapon(name, false));
        }
        if strikes_unarmed && let Some(def) = self.weapons.get(UNARMED_STRIKE) {
            let mut strike = def.to_weapon(UNARMED_STRIKE, false);
            strike.damage = unarmed_damage(size);
            weapons.push(strike);
        }
        let mut items = Vec::new();
        for name in overrides.items.as_ref().unwrap_or(&template.items) {
            let row = self
                .items
                .get(name)
                .and_then(|def| self.actions.iter().find(|r| r.line == def.action).map(|r| (def, r)));
            match row {
                Some((def, row)) => items.push(Item {
                    name: name.clone(),
                    action_line: def.action,
                    action_kind: row.kind,
                    provokes: row.provokes,
                    heal: def.heal,
                }),
                None => {
                    problems.push((format!("\"{name}\""), format!("unknown item {name:?} (not in assets/items.ron)")))
                }
            }
        }
        let spellcasting = template.spellcasting.as_ref().map(|def| {
            let score = match def.ability {
                CastingAbility::Int => abilities_for_casting(overrides, template).int,
                CastingAbility::Wis => abilities_for_casting(overrides, template).wis,
                CastingAbility::Cha => abilities_for_casting(overrides, template).cha,
            };
            let mut spells = Vec::new();
            for (name, uses) in &def.spells {
                match self.spells.get(name) {
                    Some(spell) => spells.push(crate::rules::magic::KnownSpell {
                        name: name.clone(),
                        def: spell.clone(),
                        uses: *uses,
                    }),
                    None => problems
                        .push((format!("\"{name}\""), format!("unknown spell {name:?} (not in assets/spells.ron)"))),
                }
            }
            crate::rules::magic::Spellcasting {
                caster_level: def.caster_level,
                ability_modifier: crate::rules::core::creature::ability_modifier(score),
                spells,
            }
        });
        if let Some(breath) = &template.breath
            && !(breath.length_m > 0.0 && breath.length_m <= MOST_METRES)
        {
            problems.push((
                "length_m".into(),
                format!("a breath reaches more than 0 m and at most {MOST_METRES} m, not {}", breath.length_m),
            ));
        }
        let hit_points = overrides.hit_points.unwrap_or(template.hit_points);
        if !(1..=MOST_HIT_POINTS).contains(&hit_points) {
            problems.push((
                "hit_points".into(),
                format!("hit points must be from 1 to {MOST_HIT_POINTS}, not {hit_points}"),
            ));
        }
        let abilities = overrides.abilities.unwrap_or(template.abilities);
        for (score, what) in [
            (abilities.str, "str"),
            (abilities.dex, "dex"),
            (abilities.con, "con"),
            (abilities.int, "int"),
            (abilities.wis, "wis"),
            (abilities.cha, "cha"),
        ] {
            if !(0..=60).contains(&score) {
                problems.push((format!("{what}:"), format!("ability {what} {score} is outside 0..=60")));
            }
        }
        let base_attack = overrides.base_attack.unwrap_or(template.base_attack);
        let feats: std::collections::BTreeSet<Feat> =
            overrides.feats.as_ref().unwrap_or(&template.feats).iter().copied().collect();
        // The weapons of focus count only with the feat (an override may take the feat away).
        let focus: std::collections::BTreeSet<String> = match feats.contains(&Feat::WeaponFocus) {
            true => overrides.weapon_focus.as_ref().unwrap_or(&template.weapon_focus).iter().cloned().collect(),
            false => Default::default(),
        };
        // The advice names one of the creature's own weapons.
        let own = weapons.first().map_or_else(|| "longsword".to_string(), |w: &Weapon| w.name.clone());
        if feats.contains(&Feat::WeaponFocus) && focus.is_empty() {
            problems.push((
                "WeaponFocus".into(),
                format!("Weapon Focus names its weapon: add weapon_focus: [{own:?}] (one weapon per feat)"),
            ));
        }
        for name in focus.iter().filter(|n| !weapons.iter().any(|w: &Weapon| &w.name == *n)) {
            problems.push((
                "weapon_focus".into(),
                format!(
                    "Weapon Focus names {name:?}, a weapon it does not carry: name one it carries \
                     (weapon_focus: [{own:?}]) or leave WeaponFocus out of its feats"
                ),
            ));
        }
        if overrides.shield.is_some_and(|bonus| !(0..=20).contains(&bonus)) {
            problems.push(("shield".into(), "a shield bonus is between 0 (no shield) and 20".into()));
        }
        for (field, bonus) in [
            ("natural_armor", overrides.natural_armor),
            ("deflection", overrides.deflection),
            ("dodge", overrides.dodge),
        ] {
            if bonus.is_some_and(|b| !(0..=60).contains(&b)) {
                problems.push((field.into(), format!("a {field} bonus is between 0 and 60")));
            }
        }
        if let Some(s) = overrides.saves
            && [s.fortitude, s.reflex, s.will].iter().any(|b| !(-10..=60).contains(b))
        {
            problems.push(("saves".into(), "a base save is between -10 and 60".into()));
        }
        let level = overrides.level.unwrap_or(template.level).max(1);
        if level > 60 {
            problems.push(("level".into(), format!("level {level} is outside 1..=60")));
        }
        if let Some(Some(turning)) = overrides.turning
            && !(1..=60).contains(&turning.level)
        {
            problems.push(("turning".into(), "a turning level is between 1 and 60".into()));
        }
        if !(0..=60).contains(&base_attack) {
            problems.push(("base_attack".into(), format!("base attack {base_attack} is outside 0..=60")));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let shield_bonus = overrides.shield.unwrap_or(template.shield);
        let shield = (shield_bonus > 0).then(|| Shield {
            kind: overrides.shield_kind.or(template.shield_kind).unwrap_or(ShieldKind::of_bonus(shield_bonus)),
            bonus: shield_bonus,
            hit_points_lost: 0,
            strapped: !overrides.shield_slung,
        });
        let mut armament = Armament(weapons);
        crate::rules::core::gear::ready_for_battle(&mut armament, shield.as_ref());
        let skills = alert(overrides.skills.clone().unwrap_or_else(|| template.skills.clone()), &feats, abilities.wis);
        let armor = overrides.armor.as_ref().unwrap_or(&template.armor);
        Ok(Stats {
            name: overrides.name.clone().unwrap_or_else(|| template.name.clone()),
            icon: template.icon.clone().unwrap_or_else(|| "generic".into()),
            size,
            reach,
            speed,
            speed_modifiers,
            hit_points: HitPoints::full(hit_points),
            level: Level(level),
            abilities,
            base_attack: BaseAttack(base_attack),
            saves: overrides.saves.unwrap_or(template.saves),
            defense: Defense {
                armor: armor.bonus,
                shield: shield.map_or(0, |s| s.armor_class()),
                natural: overrides.natural_armor.unwrap_or(template.natural_armor),
                deflection: overrides.deflection.unwrap_or(template.deflection),
                // Dodge (the feat): +1 dodge bonus to AC, lost with the Dex bonus (004:36; our ruling,
                // docs/rulings.md).
                dodge: overrides.dodge.unwrap_or(template.dodge) + i32::from(feats.contains(&Feat::Dodge)),
                max_dex: armor.max_dex,
            },
            encumbrance: Encumbrance { armor: armor.category, load: overrides.load.unwrap_or(template.load) },
            armament,
            feats: Feats(feats, focus),
            skills,
            traits: overrides.traits.clone().unwrap_or_else(|| template.traits.clone()),
            items: Items(items),
            spellcasting,
            breath: template
                .breath
                .clone()
                .map(|weapon| crate::rules::breath::Breath::new(weapon, level, abilities.con)),
            turning: overrides.turning.unwrap_or(template.turning),
            shield,
        })
    }
}

/// An override that may take a template's value away: present, `None` is "none", where a plain `Option`
/// would read it as "not overridden".
/// `None`, `Some(None)` (as levels written before were), `Some(x)` and a bare `x` are all read.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Present<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Present<T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("None or a value")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<S: serde::Deserializer<'de>>(self, inner: S) -> Result<Self::Value, S::Error> {
            Option::<T>::deserialize(inner)
        }
    }
    deserializer.deserialize_option(Present(std::marker::PhantomData)).map(Some)
}

/// Writes an override read by [`present`] as it was given.
fn as_given<S, T>(value: &Option<Option<T>>, serializer: S) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
    T: Serialize,
{
    value.as_ref().and_then(Option::as_ref).serialize(serializer)
}

impl TemplateOverrides {
    /// Whether it changes nothing (a level then writes no `overrides:`).
    pub fn is_empty(&self) -> bool {
        *self == TemplateOverrides::default()
    }
}

fn abilities_for_casting(overrides: &TemplateOverrides, template: &TemplateDef) -> Abilities {
    overrides.abilities.unwrap_or(template.abilities)
}

/// What a level may change of a template for one creature.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateOverrides {
    /// Another display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Another size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Other maximum hit points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit_points: Option<i32>,
    /// Other abilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abilities: Option<Abilities>,
    /// Another base attack bonus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_attack: Option<i32>,
    /// Another level, its hit dice (an undead's against turning, 004:541-545; its breath's DC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// The power to turn or rebuke undead, as a cleric of this level (`turning: Some((level: 1))` for a
    /// 4th-level paladin, 004:573; `Some((level: 5, energy: Negative))`), or `None` for none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present",
        serialize_with = "as_given"
    )]
    pub turning: Option<Option<crate::rules::special::turning::Turning>>,
    /// Other base saves (`saves: (fortitude: 4, reflex: 1, will: 1)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saves: Option<Saves>,
    /// Another natural armour bonus to AC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub natural_armor: Option<i32>,
    /// Another deflection bonus to AC (a ring of protection's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deflection: Option<i32>,
    /// Another dodge bonus to AC (the Dodge feat adds its own +1 on top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dodge: Option<i32>,
    /// Other speeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<SpeedDef>,
    /// Other speed modifiers, in place of the template's (`speed_modifiers: [(source: "fast movement",
    /// bonus_type: Some("enhancement"), metres: 3.0, lost_in: Some(Heavy))]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_modifiers: Option<Vec<SpeedModifierDef>>,
    /// Other armour (`armor: (category: Heavy, bonus: 8, max_dex: Some(1))`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub armor: Option<ArmorDef>,
    /// Other weapons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapons: Option<Vec<WeaponRef>>,
    /// Other feats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feats: Option<Vec<Feat>>,
    /// Other weapons of focus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapon_focus: Option<Vec<String>>,
    /// Another load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<Load>,
    /// Other items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<String>>,
    /// Other skills, in place of the template's (`skills: (swim: 6)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Skills>,
    /// Other traits, in place of the template's (`traits: (humanoid: true, freedom_of_movement: true)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traits: Option<Traits>,
    /// Another shield bonus: `shield: 0` for none, freeing the hand for a two-handed weapon (004:218).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shield: Option<i32>,
    /// Another kind of shield (`shield_kind: Buckler`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shield_kind: Option<ShieldKind>,
    /// Its shield begins slung on its back, not strapped on: no AC bonus and no hand taken until readied
    /// (004:221).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shield_slung: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_may_take_the_turning_away_and_reads_back_as_written() {
        let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let read = |text: &str| options.from_str::<TemplateOverrides>(text).expect(text).turning;
        let paladin = crate::rules::special::turning::Turning {
            level: 1,
            energy: crate::rules::special::turning::Energy::Positive,
            spent: 0,
        };
        assert_eq!(read("()"), None);
        assert_eq!(read("(turning: None)"), Some(None));
        assert_eq!(read("(turning: Some(None))"), Some(None));
        assert_eq!(read("(turning: (level: 1))"), Some(Some(paladin)));
        assert_eq!(read("(turning: Some((level: 1)))"), Some(Some(paladin)));
        for turning in [None, Some(None), Some(Some(paladin))] {
            let written = options.to_string(&TemplateOverrides { turning, ..Default::default() }).unwrap();
            assert_eq!(read(&written), turning, "{written}");
        }
    }

    #[test]
    fn speeds_fall_on_whole_squares() {
        assert_eq!(metres_to_squares(9.0, "speed"), Ok(6));
        assert_eq!(metres_to_squares(4.5, "speed"), Ok(3));
        assert!(metres_to_squares(10.0, "speed").is_err());
    }

    #[test]
    fn metre_values_must_be_finite_and_sensible() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1.5, 3001.5] {
            assert!(metres_to_squares(bad, "speed").is_err(), "{bad} accepted");
        }
        assert_eq!(metres_to_squares(3000.0, "altitude"), Ok(2000));
    }

    #[test]
    fn natural_weapon_counts_and_secondary_weapons_are_checked() {
        let def = |text: &str| ron::from_str::<WeaponDef>(text).expect("a weapon");
        assert_eq!(def(r#"(damage: "1d4", natural: true, count: 2, secondary: true)"#).check("claw"), None);
        for bad in [
            r#"(damage: "1d4", natural: true, count: 0)"#,
            r#"(damage: "1d4", natural: true, count: 9)"#,
            r#"(damage: "1d8", count: 2)"#,
            r#"(damage: "1d8", secondary: true)"#,
        ] {
            assert!(def(bad).check("w").is_some(), "{bad} accepted");
        }
    }
}
