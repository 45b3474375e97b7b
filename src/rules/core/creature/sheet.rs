//! A creature's derived numbers: speeds after armour and load, Armor Class, attack bonuses and damage,
//! each with its named parts. Pure functions over component values; what `estoc sheet` prints and what
//! every roll starts from.

use serde::Serialize;

use super::*;
use crate::rules::core::gear::grips_in_both_hands;
use crate::rules::core::geometry::squares_to_metres;

/// One named term of a total: "+2 Str", "-1 size", "+4 cover: low wall at (5,3)".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Modifier {
    /// The amount.
    pub value: i32,
    /// Where it comes from, as a player would read it.
    pub source: String,
}

impl Modifier {
    /// A modifier of `value` from `source`.
    pub fn new(value: i32, source: impl Into<String>) -> Self {
        Modifier { value, source: source.into() }
    }
}

/// Sum of a list of modifiers.
pub fn total(modifiers: &[Modifier]) -> i32 {
    modifiers.iter().map(|m| m.value).sum()
}

/// Land speed in squares after modifiers, then armour and load (000:23-57).
///
/// Modifiers apply first; of several of one type only the best bonus and the worst penalty count
/// (000:27-29). A modifier lost in armour (the barbarian's in heavy armour, the monk's in any, 000:23-25)
/// is dropped first, by the armour worn alone: the text names no load for it. Then
/// medium or heavy armour, or a medium or heavy load, slow the creature as the tactical speed table
/// does: 6 squares become 4 and 4 become 3 (000:30-57); other speeds lose a third, rounded down (our
/// ruling, docs/rulings.md), and creatures unhindered by armour (dwarves) keep theirs.
pub fn land_speed(speed: &Speed, modifiers: &SpeedModifiers, encumbrance: Encumbrance, traits: &Traits) -> u32 {
    let hampering = encumbrance.hampering();
    let mut typed: std::collections::BTreeMap<&str, (i32, i32)> = Default::default();
    let mut untyped = 0;
    for m in &modifiers.0 {
        if m.lost_in.is_some_and(|lost| encumbrance.armor >= lost) {
            continue;
        }
        match &m.bonus_type {
            None => untyped += m.squares,
            Some(kind) => {
                let entry = typed.entry(kind.as_str()).or_insert((0, 0));
                entry.0 = entry.0.max(m.squares);
                entry.1 = entry.1.min(m.squares);
            }
        }
    }
    let modified = speed.land as i32 + untyped + typed.values().map(|(bonus, penalty)| bonus + penalty).sum::<i32>();
    let modified = modified.max(0) as u32;
    if hampering >= ArmorCategory::Medium && !traits.unhindered_by_armor { reduced_speed(modified) } else { modified }
}

/// The speed in medium or heavy armour for a base speed in squares: 6 → 4, 4 → 3 (000:30-57), and in
/// general a third lost, rounded down.
pub const fn reduced_speed(squares: u32) -> u32 {
    squares - squares / 3
}

/// Fly speed after armour and load: medium or heavy armour, or a medium or heavy load, slow a flier as they
/// slow a walker (« une vitesse en vol de 2, voire de 1 s'il porte une armure lourde ou intermédiaire »: 18 m
/// become 12 m, 004:712), a third lost, rounded down; creatures unhindered by armour keep theirs.
pub fn fly_speed(speed: &Speed, encumbrance: Encumbrance, traits: &Traits) -> Option<FlySpeed> {
    let slowed = encumbrance.hampering() >= ArmorCategory::Medium && !traits.unhindered_by_armor;
    speed
        .fly
        .map(|wings| FlySpeed { squares: if slowed { reduced_speed(wings.squares) } else { wings.squares }, ..wings })
}

/// Running multiplies speed by 4, by 3 in heavy armour or with a heavy load (004:248, RULES-INDEX).
pub fn run_multiplier(encumbrance: Encumbrance) -> u32 {
    if encumbrance.hampering() >= ArmorCategory::Heavy { 3 } else { 4 }
}

/// Armor Class and its parts (004:29-37).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArmorClass {
    /// Normal AC.
    pub normal: i32,
    /// Touch AC: no armour, shield or natural armour (004:37).
    pub touch: i32,
    /// Flat-footed AC: no Dex bonus nor dodge (004:53).
    pub flat_footed: i32,
    /// Every term of the normal AC.
    pub parts: Vec<Modifier>,
}

/// The Dex bonus that counts toward AC: capped by armour (004:30).
pub fn dex_to_ac(abilities: &Abilities, defense: &Defense) -> i32 {
    let dex = ability_modifier(abilities.dex);
    match defense.max_dex {
        Some(cap) => dex.min(cap),
        None => dex,
    }
}

/// AC = 10 + armour + shield + Dex (capped) + size + natural + deflection + dodge (004:29-37). The
/// flat-footed AC drops a Dex bonus and dodge bonuses (a Dex penalty stays); touch AC drops armour,
/// shield and natural armour.
pub fn armor_class(defense: &Defense, abilities: &Abilities, size: Size) -> ArmorClass {
    let dex = dex_to_ac(abilities, defense);
    let mut parts = vec![Modifier::new(10, "base")];
    let mut push = |value: i32, source: &str| {
        if value != 0 {
            parts.push(Modifier::new(value, source));
        }
    };
    push(defense.armor, "armour");
    push(defense.shield, "shield");
    push(dex, "Dex");
    push(size.modifier(), "size");
    push(defense.natural, "natural armour");
    push(defense.deflection, "deflection");
    push(defense.dodge, "dodge");
    let normal = total(&parts);
    let touch = normal - defense.armor - defense.shield - defense.natural;
    let flat_footed = normal - dex.max(0) - defense.dodge;
    ArmorClass { normal, touch, flat_footed, parts }
}

impl ArmorClass {
    /// As a creature with `traits` has it: uncanny dodge keeps its Dex bonus to AC when flat-footed (the
    /// rule its attacks read, 004:53).
    pub fn for_traits(self, traits: &Traits) -> ArmorClass {
        if traits.uncanny_dodge { ArmorClass { flat_footed: self.normal, ..self } } else { self }
    }
}

/// The damage of an unarmed strike by size: 1d3 Medium, 1d2 Small, 1d4 Large (004:172); the other sizes
/// take the same steps as a weapon's damage ([`weapon_damage`]: 1 Tiny and smaller, 1d6 Huge, 1d8
/// Gargantuan, 2d6 Colossal).
pub fn unarmed_damage(size: Size) -> crate::rules::core::dice::DiceExpr {
    weapon_damage(crate::rules::core::dice::DiceExpr::new(1, 3), size)
}

/// The damage of a weapon made for a wielder of `size`, from its damage for a Medium one. The texts give the
/// step for unarmed strikes only (004:172, 1d3 Medium, 1d2 Small, 1d4 Large); weapons take the usual steps
/// of the d20 weapon tables (our ruling, docs/rulings.md): one step down or up per size category from
/// Medium, by [`damage_step_down`] and [`damage_step_up`]. The bonus stays.
pub fn weapon_damage(medium: crate::rules::core::dice::DiceExpr, size: Size) -> crate::rules::core::dice::DiceExpr {
    let steps = Size::Medium.steps_to(size);
    let mut dice = medium;
    for _ in 0..steps.unsigned_abs() {
        dice = if steps > 0 { damage_step_up(dice) } else { damage_step_down(dice) };
    }
    dice
}

/// The next dice up: 1, 1d2, 1d3, 1d4, 1d6, 1d8, 2d6, 3d6, 4d6, 6d6, 8d6, 12d6; 1d10 to 2d8, 1d12 to 3d6,
/// 2d4 to 2d6, 2d8 to 3d8, 2d10 to 4d8 (the d20 weapon tables, Small to Medium to Large to Huge).
pub fn damage_step_up(dice: crate::rules::core::dice::DiceExpr) -> crate::rules::core::dice::DiceExpr {
    use crate::rules::core::dice::DiceExpr;
    let with = |count, sides| DiceExpr { count, sides, bonus: dice.bonus };
    match (dice.count, dice.sides) {
        (0, _) => with(1, 2),
        (1, 2) => with(1, 3),
        (1, 3) => with(1, 4),
        (1, 4) => with(1, 6),
        (1, 6) => with(1, 8),
        (1, 8) | (2, 4) => with(2, 6),
        (1, 10) => with(2, 8),
        (1, 12) | (2, 6) => with(3, 6),
        (2, 8) => with(3, 8),
        (2, 10) => with(4, 8),
        (1, sides) => with(2, sides),
        (count, sides) => with(more_dice(count), sides),
    }
}

/// The next dice down, the reverse of [`damage_step_up`] (2d4 to 1d6 and 2d6 to 1d10, as the tables give);
/// a single point stays a single point.
pub fn damage_step_down(dice: crate::rules::core::dice::DiceExpr) -> crate::rules::core::dice::DiceExpr {
    use crate::rules::core::dice::DiceExpr;
    let with = |count, sides| DiceExpr { count, sides, bonus: dice.bonus };
    match (dice.count, dice.sides) {
        (0, _) => dice,
        (1, 1 | 2) => DiceExpr { count: 0, sides: 0, bonus: dice.bonus + 1 },
        (1, 3) => with(1, 2),
        (1, 4) => with(1, 3),
        (1, 6) => with(1, 4),
        (1, 8) | (2, 4) => with(1, 6),
        (1, 10) => with(1, 8),
        (1, 12) | (2, 6) => with(1, 10),
        (2, 8) | (3, 6) => with(2, 6),
        (2, 10) | (3, 8) => with(2, 8),
        (1, sides) => with(1, sides),
        (count, sides) => with(fewer_dice(count), sides),
    }
}

/// The counts of dice the steps go through past two.
const DICE_COUNTS: [u32; 10] = [2, 3, 4, 6, 8, 12, 16, 24, 32, 48];

/// The next count of dice up: 2, 3, 4, 6, 8, 12 and so on.
fn more_dice(count: u32) -> u32 {
    DICE_COUNTS.iter().copied().find(|&c| c > count).unwrap_or(count)
}

/// The next count of dice down.
fn fewer_dice(count: u32) -> u32 {
    DICE_COUNTS.iter().copied().rev().find(|&c| c < count).unwrap_or(1)
}

/// Whether the weapon is used at range.
pub fn is_ranged(weapon: &Weapon) -> bool {
    !matches!(weapon.delivery, Delivery::Melee)
}

/// Why an attack with the weapon provokes every foe that threatens its attacker, if it does: a ranged
/// attack (004:90), a whip's lash as a ranged attack (the d20 standard's whip; docs/rulings.md).
pub fn provokes_as_a_shot(weapon: &Weapon) -> Option<&'static str> {
    if is_ranged(weapon) {
        Some("a ranged attack in a threatened square (004:90)")
    } else if weapon.whip {
        Some("a whip's lash in a threatened square, as a ranged attack (004:90, docs/rulings.md)")
    } else {
        None
    }
}

/// The attack bonus of a weapon before the situation: BAB + Str (melee) or Dex (ranged) + size
/// (004:5-8). Weapon Finesse lets a light weapon or natural attack use Dex in melee.
pub fn attack_bonus(
    base_attack: BaseAttack,
    abilities: &Abilities,
    size: Size,
    feats: &Feats,
    weapon: &Weapon,
) -> Vec<Modifier> {
    let mut parts = vec![Modifier::new(base_attack.0, "base attack")];
    let str_mod = ability_modifier(abilities.str);
    let dex_mod = ability_modifier(abilities.dex);
    let finesse = feats.has(Feat::WeaponFinesse)
        && (weapon.handling == Handling::Light || weapon.natural || weapon.finesse)
        && dex_mod > str_mod;
    if is_ranged(weapon) {
        parts.push(Modifier::new(dex_mod, "Dex"));
    } else if finesse {
        parts.push(Modifier::new(dex_mod, "Dex (Weapon Finesse)"));
    } else {
        parts.push(Modifier::new(str_mod, "Str"));
    }
    if size.modifier() != 0 {
        parts.push(Modifier::new(size.modifier(), "size"));
    }
    if feats.focus_on(weapon) {
        parts.push(Modifier::new(1, "Weapon Focus"));
    }
    if weapon.natural && weapon.secondary {
        parts.push(Modifier::new(-5, "a secondary natural weapon"));
    }
    if weapon.broken() {
        parts.push(Modifier::new(-2, "broken weapon (our ruling)"));
    }
    parts.retain(|m| m.value != 0 || m.source == "base attack");
    parts
}

/// The Strength term of a weapon's damage (004:24-26): x1.5 two-handed (not light weapons), x0.5 in
/// the off hand or with a secondary natural weapon (the d20 standard), rounded down; only a penalty for
/// ordinary bows; nothing for composite bows and crossbows.
pub fn strength_to_damage(abilities: &Abilities, weapon: &Weapon) -> Option<Modifier> {
    let str_mod = ability_modifier(abilities.str);
    let value = match weapon.strength {
        StrengthToDamage::None => 0,
        StrengthToDamage::PenaltyOnly => str_mod.min(0),
        StrengthToDamage::Full if str_mod > 0 && (weapon.off_hand || weapon.secondary) => str_mod / 2,
        StrengthToDamage::Full if str_mod > 0 && weapon.wielded_two_handed() => str_mod * 3 / 2,
        StrengthToDamage::Full => str_mod,
    };
    let source = match weapon.strength {
        StrengthToDamage::Full if weapon.off_hand && str_mod > 0 => "Str x0.5 (off hand)",
        StrengthToDamage::Full if weapon.secondary && str_mod > 0 => "Str x0.5 (a secondary natural weapon)",
        StrengthToDamage::Full if weapon.wielded_two_handed() && str_mod > 0 => "Str x1.5 (two hands)",
        _ => "Str",
    };
    (value != 0).then(|| Modifier::new(value, source))
}

/// The maximum range of a ranged weapon in metres: 5 increments thrown, 10 fired (004:174).
pub fn max_range_m(weapon: &Weapon) -> Option<f32> {
    match weapon.delivery {
        Delivery::Melee => None,
        Delivery::Thrown { increment_m } => Some(increment_m * 5.0),
        Delivery::Projectile { increment_m } => Some(increment_m * 10.0),
    }
}

/// Initiative modifier: Dex + 4 with Improved Initiative (004:51-54).
pub fn initiative_modifier(abilities: &Abilities, feats: &Feats) -> Vec<Modifier> {
    let mut parts = vec![Modifier::new(ability_modifier(abilities.dex), "Dex")];
    if feats.has(Feat::ImprovedInitiative) {
        parts.push(Modifier::new(4, "Improved Initiative"));
    }
    parts
}

/// Distances a creature covers with each movement action, in squares and metres.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpeedLine {
    /// The action ("move", "double move", "run", "fly", …).
    pub action: String,
    /// Squares.
    pub squares: u32,
    /// Metres.
    pub metres: f32,
}

/// One weapon's line on the sheet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttackLine {
    /// The weapon.
    pub weapon: String,
    /// Total attack bonus.
    pub bonus: i32,
    /// Its parts.
    pub bonus_parts: Vec<Modifier>,
    /// Damage dice.
    pub damage: String,
    /// Damage bonus parts.
    pub damage_parts: Vec<Modifier>,
    /// Threat range and multiplier, "19-20/x2".
    pub critical: String,
    /// Reach in squares for melee, range increment in metres for ranged weapons.
    pub reach_or_range: String,
}

/// A creature's derived sheet: what a designer checks after editing a template.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sheet {
    /// Size.
    pub size: Size,
    /// Space in squares (side).
    pub space_squares: i32,
    /// Natural reach in squares and metres.
    pub reach_squares: u32,
    /// Natural reach in metres.
    pub reach_m: f32,
    /// Hit points.
    pub hit_points: HitPoints,
    /// Speeds by movement action.
    pub speeds: Vec<SpeedLine>,
    /// Armor Class.
    pub armor_class: ArmorClass,
    /// Initiative modifier.
    pub initiative: i32,
    /// Saves: Fortitude, Reflex, Will totals.
    pub saves: [i32; 3],
    /// Weapons.
    pub attacks: Vec<AttackLine>,
    /// Feats.
    pub feats: Vec<Feat>,
}

/// The components a sheet is derived from.
#[derive(Clone, Copy)]
pub struct SheetInput<'a> {
    /// Size.
    pub size: Size,
    /// Reach.
    pub reach: Reach,
    /// Base speeds.
    pub speed: &'a Speed,
    /// Speed modifiers.
    pub speed_modifiers: &'a SpeedModifiers,
    /// Armour and load.
    pub encumbrance: Encumbrance,
    /// Traits.
    pub traits: &'a Traits,
    /// Hit points.
    pub hit_points: HitPoints,
    /// Abilities.
    pub abilities: &'a Abilities,
    /// Base attack.
    pub base_attack: BaseAttack,
    /// Base saves.
    pub saves: Saves,
    /// AC parts.
    pub defense: &'a Defense,
    /// Weapons.
    pub armament: &'a Armament,
    /// Its shield, which may fill the hand a one-handed weapon would be gripped with (004:26).
    pub shield: Option<&'a Shield>,
    /// Feats.
    pub feats: &'a Feats,
    /// Fatigued: it cannot run (003:71).
    pub fatigued: bool,
}

/// Derives the sheet.
pub fn derive_sheet(c: SheetInput<'_>) -> Sheet {
    let land = land_speed(c.speed, c.speed_modifiers, c.encumbrance, c.traits);
    let line =
        |action: &str, squares: u32| SpeedLine { action: action.into(), squares, metres: squares_to_metres(squares) };
    let mut speeds = vec![line("move", land), line("double move", land * 2)];
    // A fatigued creature runs not at all (« ne peut ni courir ni charger », 003:71).
    if !c.fatigued {
        speeds.push(line("run", land * run_multiplier(c.encumbrance)));
    }
    if let Some(fly) = fly_speed(c.speed, c.encumbrance, c.traits) {
        speeds.push(line(&format!("fly ({:?})", fly.maneuverability).to_lowercase(), fly.squares));
    }
    if let Some(swim) = c.speed.swim {
        speeds.push(line("swim", swim));
    }
    if let Some(climb) = c.speed.climb {
        speeds.push(line("climb", climb));
    }
    let attacks = c
        .armament
        .0
        .iter()
        .map(|weapon| {
            let bonus_parts = attack_bonus(c.base_attack, c.abilities, c.size, c.feats, weapon);
            // On foot, a one-handed weapon held alone is gripped in both hands (004:26).
            let held = Weapon { two_hands: grips_in_both_hands(c.armament, c.shield, weapon), ..weapon.clone() };
            let damage_parts: Vec<Modifier> = strength_to_damage(c.abilities, &held).into_iter().collect();
            let threat = if weapon.threat >= 20 { "20".to_string() } else { format!("{}-20", weapon.threat) };
            let reach_or_range = match weapon.delivery {
                Delivery::Melee if weapon.reach => format!(
                    "reach weapon: {} m, not within {} m",
                    squares_to_metres(c.reach.0 * 2),
                    squares_to_metres(c.reach.0)
                ),
                Delivery::Melee if weapon.whip => format!(
                    "whip: reach {} m, threatening nothing",
                    squares_to_metres(weapon.reach_kind().squares(c.reach.0))
                ),
                Delivery::Melee => format!("reach {} m", squares_to_metres(c.reach.0)),
                Delivery::Thrown { increment_m } => format!("thrown, increment {increment_m} m"),
                Delivery::Projectile { increment_m } => format!("fired, increment {increment_m} m"),
            };
            AttackLine {
                weapon: weapon.name.clone(),
                bonus: total(&bonus_parts),
                bonus_parts,
                damage: weapon.damage.to_string(),
                damage_parts,
                critical: format!("{threat}/x{}", weapon.multiplier),
                reach_or_range,
            }
        })
        .collect();
    let con = ability_modifier(c.abilities.con);
    let dex = ability_modifier(c.abilities.dex);
    let wis = ability_modifier(c.abilities.wis);
    Sheet {
        size: c.size,
        space_squares: c.size.side_squares(),
        reach_squares: c.reach.0,
        reach_m: squares_to_metres(c.reach.0),
        hit_points: c.hit_points,
        speeds,
        armor_class: armor_class(c.defense, c.abilities, c.size).for_traits(c.traits),
        initiative: total(&initiative_modifier(c.abilities, c.feats)),
        saves: [c.saves.fortitude + con, c.saves.reflex + dex, c.saves.will + wis],
        attacks,
        feats: c.feats.0.iter().copied().collect(),
    }
}

/// A sheet as text, for a designer's eyes.
pub fn format_sheet(name: &str, sheet: &super::Sheet) -> String {
    use std::fmt::Write;
    let signed = |v: i32| if v >= 0 { format!("+{v}") } else { v.to_string() };
    let parts = |parts: &[super::Modifier]| {
        parts.iter().map(|m| format!("{} {}", signed(m.value), m.source)).collect::<Vec<_>>().join(", ")
    };
    let mut out = String::new();
    let _ = writeln!(out, "{name}");
    let _ = writeln!(
        out,
        "  size {:?} ({}), space {} x {} squares, reach {} m",
        sheet.size,
        sheet.size.french(),
        sheet.space_squares,
        sheet.space_squares,
        sheet.reach_m
    );
    let hp = sheet.hit_points;
    let _ = writeln!(out, "  hit points {}/{}", hp.current, hp.max);
    let _ = writeln!(out, "  initiative {}", signed(sheet.initiative));
    for line in &sheet.speeds {
        let _ = writeln!(out, "  {:<12} {:>3} squares  {:>5} m", line.action, line.squares, line.metres);
    }
    let ac = &sheet.armor_class;
    let _ =
        writeln!(out, "  AC {} (touch {}, flat-footed {}): {}", ac.normal, ac.touch, ac.flat_footed, parts(&ac.parts));
    let _ = writeln!(
        out,
        "  saves Fort {} Ref {} Will {}",
        signed(sheet.saves[0]),
        signed(sheet.saves[1]),
        signed(sheet.saves[2])
    );
    for attack in &sheet.attacks {
        let damage_bonus: i32 = attack.damage_parts.iter().map(|m| m.value).sum();
        let _ = writeln!(
            out,
            "  {} {} ({}), damage {}{} ({}), critical {}, {}",
            attack.weapon,
            signed(attack.bonus),
            parts(&attack.bonus_parts),
            attack.damage,
            if damage_bonus != 0 { signed(damage_bonus) } else { String::new() },
            if attack.damage_parts.is_empty() { "no Str".to_string() } else { parts(&attack.damage_parts) },
            attack.critical,
            attack.reach_or_range
        );
    }
    if !sheet.feats.is_empty() {
        let _ = writeln!(out, "  feats {:?}", sheet.feats);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain melee weapon, 19-20/x2.
    fn melee(name: &str, damage: &str, handling: Handling) -> Weapon {
        Weapon::plain(name, damage, handling)
    }

    #[test]
    fn weapon_focus_names_one_weapon() {
        let sword = melee("longsword", "1d8", Handling::OneHanded);
        let javelin = Weapon { name: "javelin".into(), ..sword.clone() };
        let feats = Feats([Feat::WeaponFocus].into_iter().collect(), ["longsword".to_string()].into_iter().collect());
        let has_focus = |w: &Weapon| {
            attack_bonus(BaseAttack(1), &Abilities::default(), Size::Medium, &feats, w)
                .iter()
                .any(|m| m.source == "Weapon Focus" && m.value == 1)
        };
        assert!(has_focus(&sword));
        assert!(!has_focus(&javelin), "the feat names the longsword alone");
    }

    fn human() -> (Speed, SpeedModifiers, Traits) {
        (Speed { land: 6, ..Speed::default() }, SpeedModifiers::default(), Traits::default())
    }

    #[test]
    fn tactical_speed_table_000_30() {
        let (speed, mods, traits) = human();
        let armoured = |armor| Encumbrance { armor, load: Load::Light };
        assert_eq!(land_speed(&speed, &mods, armoured(ArmorCategory::Light), &traits), 6, "human, light: 9 m");
        assert_eq!(land_speed(&speed, &mods, armoured(ArmorCategory::Medium), &traits), 4, "human, medium: 6 m");
        assert_eq!(land_speed(&speed, &mods, armoured(ArmorCategory::Heavy), &traits), 4, "human, heavy: 6 m");
        let small = Speed { land: 4, ..speed };
        assert_eq!(land_speed(&small, &mods, armoured(ArmorCategory::Heavy), &traits), 3, "halfling, heavy: 4.5 m");
        let dwarf = Traits { unhindered_by_armor: true, ..Traits::default() };
        assert_eq!(land_speed(&small, &mods, armoured(ArmorCategory::Heavy), &dwarf), 4, "dwarf, heavy: 6 m");
        let loaded = Encumbrance { armor: ArmorCategory::None, load: Load::Medium };
        assert_eq!(land_speed(&speed, &mods, loaded, &traits), 4, "a medium load slows like medium armour");
    }

    #[test]
    fn barbarian_bonus_applies_before_armour_and_is_lost_in_heavy_armour() {
        let (speed, _, traits) = human();
        let mods = SpeedModifiers(vec![SpeedModifier {
            source: "fast movement".into(),
            bonus_type: None,
            squares: 2,
            lost_in: Some(ArmorCategory::Heavy),
        }]);
        let enc = |armor| Encumbrance { armor, load: Load::Light };
        assert_eq!(land_speed(&speed, &mods, enc(ArmorCategory::None), &traits), 8, "9 + 3 m = 12 m");
        assert_eq!(
            land_speed(&speed, &mods, enc(ArmorCategory::Medium), &traits),
            6,
            "12 m slowed by medium armour: 9 m"
        );
        assert_eq!(land_speed(&speed, &mods, enc(ArmorCategory::Heavy), &traits), 4, "lost in heavy armour");
        // A heavy load slows it as heavy armour would, but the text takes the bonus away only in heavy
        // armour (000:23-24): 12 m slowed to 9 m.
        let loaded = Encumbrance { armor: ArmorCategory::Light, load: Load::Heavy };
        assert_eq!(land_speed(&speed, &mods, loaded, &traits), 6, "12 m slowed by a heavy load: 9 m");
    }

    #[test]
    fn same_type_speed_bonuses_do_not_stack() {
        let (speed, _, traits) = human();
        let bonus = |squares, kind: &str| SpeedModifier {
            source: kind.into(),
            bonus_type: Some("enhancement".into()),
            squares,
            lost_in: None,
        };
        let mods = SpeedModifiers(vec![bonus(2, "boots"), bonus(4, "spell"), bonus(-2, "slow")]);
        assert_eq!(land_speed(&speed, &mods, Encumbrance::default(), &traits), 8, "+4 best bonus, -2 worst penalty");
    }

    #[test]
    fn running_is_x4_or_x3_heavy() {
        assert_eq!(run_multiplier(Encumbrance::default()), 4);
        assert_eq!(run_multiplier(Encumbrance { armor: ArmorCategory::Heavy, load: Load::Light }), 3);
        assert_eq!(run_multiplier(Encumbrance { armor: ArmorCategory::Light, load: Load::Heavy }), 3);
    }

    #[test]
    fn armor_class_parts() {
        let defense = Defense { armor: 5, shield: 2, natural: 1, deflection: 1, dodge: 1, max_dex: Some(2) };
        let abilities = Abilities { dex: 16, ..Abilities::default() };
        let ac = armor_class(&defense, &abilities, Size::Large);
        // 10 + 5 + 2 + 2 (Dex 3 capped at 2) - 1 + 1 + 1 + 1 = 21
        assert_eq!(ac.normal, 21);
        assert_eq!(ac.touch, 21 - 5 - 2 - 1);
        assert_eq!(ac.flat_footed, 21 - 2 - 1);
        let clumsy = Abilities { dex: 8, ..Abilities::default() };
        let ac = armor_class(&Defense::default(), &clumsy, Size::Medium);
        assert_eq!(ac.flat_footed, 9, "a Dex penalty stays when flat-footed");
    }

    #[test]
    fn strength_to_damage_by_grip() {
        let abilities = Abilities { str: 15, ..Abilities::default() };
        let sword = melee("greatsword", "2d6", Handling::TwoHanded);
        assert_eq!(strength_to_damage(&abilities, &sword).unwrap().value, 3, "+2 becomes +3 (004:26)");
        let off = Weapon { off_hand: true, handling: Handling::Light, ..sword.clone() };
        assert_eq!(strength_to_damage(&abilities, &off).unwrap().value, 1);
        let weak = Abilities { str: 8, ..Abilities::default() };
        let bow = Weapon { strength: StrengthToDamage::PenaltyOnly, ..sword.clone() };
        assert_eq!(strength_to_damage(&weak, &bow).unwrap().value, -1, "a bow takes a Str penalty");
        assert_eq!(strength_to_damage(&abilities, &bow), None, "but not a bonus");
        let composite = Weapon { strength: StrengthToDamage::None, ..sword };
        assert_eq!(strength_to_damage(&weak, &composite), None);
    }

    #[test]
    fn unarmed_damage_by_size_004_172() {
        assert_eq!(unarmed_damage(Size::Medium).to_string(), "1d3");
        assert_eq!(unarmed_damage(Size::Small).to_string(), "1d2");
        assert_eq!(unarmed_damage(Size::Large).to_string(), "1d4");
        assert_eq!(unarmed_damage(Size::Tiny).max(), 1);
        assert_eq!(unarmed_damage(Size::Huge).to_string(), "1d6");
        assert_eq!(unarmed_damage(Size::Colossal).to_string(), "2d6");
    }

    /// The rows of the d20 weapon tables (our ruling, docs/rulings.md): a Medium weapon's damage, then the
    /// same weapon made for a Tiny, Small, Large and Huge wielder.
    #[test]
    fn weapon_damage_by_size_follows_the_weapon_tables() {
        use crate::rules::core::dice::DiceExpr;
        let rows = [
            ("1d3", ["1", "1d2", "1d4", "1d6"]),
            ("1d4", ["1d2", "1d3", "1d6", "1d8"]),
            ("1d6", ["1d3", "1d4", "1d8", "2d6"]),
            ("1d8", ["1d4", "1d6", "2d6", "3d6"]),
            ("1d10", ["1d6", "1d8", "2d8", "3d8"]),
            ("1d12", ["1d8", "1d10", "3d6", "4d6"]),
            ("2d4", ["1d4", "1d6", "2d6", "3d6"]),
            ("2d6", ["1d8", "1d10", "3d6", "4d6"]),
            ("2d8", ["1d10", "2d6", "3d8", "4d8"]),
            ("2d10", ["2d6", "2d8", "4d8", "6d8"]),
        ];
        for (medium, sized) in rows {
            let dice: DiceExpr = medium.parse().unwrap();
            assert_eq!(weapon_damage(dice, Size::Medium), dice);
            let got: Vec<String> = [Size::Tiny, Size::Small, Size::Large, Size::Huge]
                .iter()
                .map(|&size| weapon_damage(dice, size))
                .map(|d| if d.count == 0 { d.bonus.to_string() } else { d.to_string() })
                .collect();
            assert_eq!(got, sized, "{medium}");
        }
        // Past Huge the counts go on 6, 8, 12; a bonus stays.
        assert_eq!(weapon_damage("1d8".parse().unwrap(), Size::Colossal).to_string(), "6d6");
        assert_eq!(weapon_damage("1d6+1".parse().unwrap(), Size::Large).to_string(), "1d8+1");
    }

    #[test]
    fn ability_modifiers_round_down() {
        assert_eq!(ability_modifier(10), 0);
        assert_eq!(ability_modifier(11), 0);
        assert_eq!(ability_modifier(9), -1);
        assert_eq!(ability_modifier(18), 4);
        assert_eq!(ability_modifier(3), -4);
    }
}
