//! The gear in a creature's hands (004:218-222): which weapons it holds ready to strike and which are put
//! away, and whether its hands have room for one more. Pure.
//!
//! A creature has two hands. A two-handed weapon takes both (bows and crossbows among them), a light or
//! one-handed weapon one, a shield one, except a buckler strapped to the forearm; natural weapons and the
//! unarmed strike take none and are always ready (our ruling after the d20 standard, docs/rulings.md). A
//! weapon put away must be drawn before it strikes (004:218): a move action, or a free one combined with a
//! move for a creature with a base attack of +1 or more (004:219).

use super::creature::{Armament, Delivery, Handling, Reload, Shield, ShieldKind, Weapon};
use super::refusal::Refusal;

/// The hands of a creature that wields weapons.
pub const HANDS: u32 = 2;

/// The hands `weapon` takes to wield: none for a natural weapon or the unarmed strike, two for a
/// two-handed one, one otherwise.
pub fn hands_for(weapon: &Weapon) -> u32 {
    match weapon {
        w if w.natural || w.unarmed => 0,
        Weapon { handling: Handling::TwoHanded, .. } => 2,
        _ => 1,
    }
}

/// Whether a hand is free for a spell's gestures (« il faut au moins pouvoir bouger librement une main »,
/// 004:192): a weapon wielded in two hands is held in one while the other gestures (letting go with one hand
/// is no action; our ruling), so only a weapon in each hand, or one beside a strapped shield, fills them.
pub fn hand_free_for_gestures(armament: &Armament, shield: Option<&Shield>) -> bool {
    let held: u32 = armament.ready().map(|w| hands_for(w).min(1)).sum::<u32>() + shield_hands(shield);
    held < HANDS
}

/// The hands a shield takes: strapped on, one, a buckler none (004:221); slung on its back, none.
pub fn shield_hands(shield: Option<&Shield>) -> u32 {
    match shield {
        Some(Shield { kind: ShieldKind::Buckler, .. } | Shield { strapped: false, .. }) | None => 0,
        Some(_) => 1,
    }
}

/// Whether `weapon` is gripped in both hands as it strikes (004:26, « utilise à deux mains »): a one-handed
/// melee weapon in hand, the other hand free (no second weapon, no shield strapped on but a buckler). The
/// grip costs no action, and a wielder takes it whenever it can (our ruling, docs/rulings.md); a rider
/// holding the reins keeps a hand on them ([`crate::rules::attack`] asks that).
pub fn grips_in_both_hands(armament: &Armament, shield: Option<&Shield>, weapon: &Weapon) -> bool {
    weapon.handling == Handling::OneHanded
        && !weapon.natural
        && !weapon.unarmed
        && weapon.delivery == Delivery::Melee
        && !weapon.stowed
        && hands_free(armament, shield) >= 1
        // A hand kept for the off-hand blow, even a bare fist (004:462), grips nothing else.
        && !armament.ready().any(|w| w.off_hand && w.name != weapon.name)
}

/// The hands strapping `shield` on would take: one, a buckler none (004:221).
pub fn hands_to_strap(shield: &Shield) -> u32 {
    shield_hands(Some(&Shield { strapped: true, ..*shield }))
}

/// The hands its gear leaves free: two less the shield and every weapon in hand.
pub fn hands_free(armament: &Armament, shield: Option<&Shield>) -> u32 {
    let used: u32 = armament.ready().map(hands_for).sum::<u32>() + shield_hands(shield);
    HANDS.saturating_sub(used)
}

/// A creature's gear as the battle begins: its weapons taken in hand in the order its sheet lists them,
/// while its hands have room beside its shield; the rest put away (our ruling, docs/rulings.md).
pub fn ready_for_battle(armament: &mut Armament, shield: Option<&Shield>) {
    let mut free = HANDS.saturating_sub(shield_hands(shield));
    for weapon in &mut armament.0 {
        let hands = hands_for(weapon);
        weapon.stowed = hands > free;
        if !weapon.stowed {
            free -= hands;
        }
    }
}

/// Whether `name` can be drawn now: a weapon it carries put away, with hands enough free for it (004:218).
pub fn check_draw<'a>(armament: &'a Armament, shield: Option<&Shield>, name: &str) -> Result<&'a Weapon, Refusal> {
    // One of that name put away, if it holds another already.
    let weapon = armament
        .0
        .iter()
        .find(|w| w.name == name && w.stowed)
        .or_else(|| armament.0.iter().find(|w| w.name == name))
        .ok_or_else(|| Refusal::new(format!("it carries no {name}"), "004:218"))?;
    if !weapon.stowed {
        return Err(Refusal::new(format!("the {name} is already in hand"), "004:218"));
    }
    let free = hands_free(armament, shield);
    if hands_for(weapon) > free {
        let held: Vec<&str> = armament.ready().filter(|w| hands_for(w) > 0).map(|w| w.name.as_str()).collect();
        let mut holding = held.join(" and ");
        if shield_hands(shield) > 0 {
            holding = if holding.is_empty() { "its shield".into() } else { format!("{holding} and its shield") };
        }
        return Err(Refusal::new(
            format!("its hands are full ({holding}): put away or drop a weapon to draw the {name}"),
            "004:218",
        ));
    }
    Ok(weapon)
}

/// Whether `name` can be put away or dropped now: a weapon it holds in hand (004:218, 004:254).
pub fn check_in_hand<'a>(armament: &'a Armament, name: &str) -> Result<&'a Weapon, Refusal> {
    let weapon = armament
        .0
        .iter()
        .find(|w| w.name == name)
        .ok_or_else(|| Refusal::new(format!("it carries no {name}"), "004:218"))?;
    if weapon.natural || weapon.unarmed {
        return Err(Refusal::new(format!("its {name} is part of it"), "004:218"));
    }
    if weapon.stowed {
        return Err(Refusal::new(format!("the {name} is not in hand"), "004:218"));
    }
    Ok(weapon)
}

/// Whether the splash weapon named can be prepared to throw (004:144): one in hand not yet prepared, else one
/// put away with a hand free to take it.
pub fn check_prepare(armament: &Armament, shield: Option<&Shield>, name: &str) -> Result<(), Refusal> {
    let flasks: Vec<&Weapon> = armament.0.iter().filter(|w| w.name == name).collect();
    if flasks.is_empty() {
        return Err(Refusal::new(format!("it carries no {name}"), "004:218"));
    }
    if flasks.iter().all(|w| w.splash.is_none()) {
        return Err(Refusal::new(format!("the {name} is no splash weapon"), "004:528"));
    }
    if flasks.iter().any(|w| !w.stowed && !w.prepared) {
        return Ok(());
    }
    if flasks.iter().all(|w| !w.stowed) {
        return Err(Refusal::new(format!("the {name} is ready to throw already"), "004:144"));
    }
    check_draw(armament, shield, name).map(|_| ())
}

/// Why `weapon` cannot strike now, if it is put away: it must be drawn first (004:218).
pub fn put_away(weapon: &Weapon) -> Result<(), Refusal> {
    if weapon.stowed {
        return Err(Refusal::new(format!("the {} is not in hand: draw it first", weapon.name), "004:218"));
    }
    Ok(())
}

/// What loading a crossbow takes: a move action for a hand or light one (004:120), a full-round action for
/// a heavy or repeating one (004:137); with Rapid Reload one step less, a free action and a move action (the
/// d20 standard, docs/rulings.md). Other weapons are not loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loading {
    /// A free action: it loads as it shoots.
    Free,
    /// A move action.
    Move,
    /// A full-round action.
    FullRound,
}

/// What loading `weapon` takes its wielder, with Rapid Reload or not; `None` for a weapon not loaded.
pub fn loading(weapon: &Weapon, rapid_reload: bool) -> Option<Loading> {
    Some(match (weapon.reload?, rapid_reload) {
        (Reload::Move, true) => Loading::Free,
        (Reload::Move, false) | (Reload::FullRound, true) => Loading::Move,
        (Reload::FullRound, false) => Loading::FullRound,
    })
}

/// Whether `weapon` shoots once a round at most: its loading takes an action, so a full attack gives it one
/// shot (004:120, 004:137).
pub fn one_shot_a_round(weapon: &Weapon, rapid_reload: bool) -> bool {
    matches!(loading(weapon, rapid_reload), Some(Loading::Move | Loading::FullRound))
}

/// Why `weapon` cannot shoot now, if it is a crossbow not loaded again since its last shot (004:120, 004:137).
pub fn check_loaded(weapon: &Weapon) -> Result<(), Refusal> {
    if !weapon.unloaded {
        return Ok(());
    }
    Err(match weapon.reload {
        Some(Reload::FullRound) => {
            Refusal::new(format!("the {} is not loaded: loading it is a full-round action", weapon.name), "004:137")
        }
        _ => Refusal::new(format!("the {} is not loaded: loading it is a move action", weapon.name), "004:120"),
    })
}

/// Whether `name` can be loaded now: a crossbow it holds, shot and not loaded again (004:120, 004:137).
pub fn check_load<'a>(armament: &'a Armament, name: &str) -> Result<&'a Weapon, Refusal> {
    let weapon = check_in_hand(armament, name)?;
    if weapon.reload.is_none() {
        return Err(Refusal::new(format!("the {name} is not loaded: only crossbows are"), "004:120"));
    }
    if !weapon.unloaded {
        return Err(Refusal::new(format!("the {name} is loaded already"), "004:120"));
    }
    Ok(weapon)
}

/// Whether a weapon in hand is ready to be thrown or shot at once: not a melee weapon.
pub fn ranged(weapon: &Weapon) -> bool {
    !matches!(weapon.delivery, Delivery::Melee)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::creature::Make;

    fn weapon(name: &str, handling: Handling) -> Weapon {
        Weapon { threat: 20, make: Some(Make::Blade), sunders: true, ..Weapon::plain(name, "1d8", handling) }
    }

    fn shield(kind: ShieldKind) -> Shield {
        Shield { kind, bonus: 2, hit_points_lost: 0, strapped: true }
    }

    #[test]
    fn a_sword_and_board_fighter_puts_its_javelin_away_and_cannot_draw_it_with_its_hands_full() {
        let mut gear = Armament(vec![weapon("longsword", Handling::OneHanded), weapon("javelin", Handling::OneHanded)]);
        let heavy = shield(ShieldKind::HeavySteel);
        ready_for_battle(&mut gear, Some(&heavy));
        assert!(!gear.0[0].stowed && gear.0[1].stowed);
        assert_eq!(hands_free(&gear, Some(&heavy)), 0);
        let refused = check_draw(&gear, Some(&heavy), "javelin").unwrap_err();
        assert!(refused.reason.contains("longsword and its shield"), "{refused}");
        // With a buckler both weapons fit.
        let buckler = shield(ShieldKind::Buckler);
        ready_for_battle(&mut gear, Some(&buckler));
        assert!(gear.0.iter().all(|w| !w.stowed));
    }

    #[test]
    fn a_bow_takes_both_hands_and_the_sword_waits_in_its_sheath() {
        let mut gear = Armament(vec![weapon("longbow", Handling::TwoHanded), weapon("short sword", Handling::Light)]);
        ready_for_battle(&mut gear, None);
        assert!(gear.0[1].stowed);
        assert!(check_draw(&gear, None, "short sword").is_err());
        assert!(check_in_hand(&gear, "longbow").is_ok());
        assert!(check_in_hand(&gear, "short sword").is_err());
        gear.0[0].stowed = true;
        assert!(check_draw(&gear, None, "short sword").is_ok());
    }

    /// 004:26: a one-handed weapon is gripped in both hands when the other hand is free, a light one never
    /// counts as two-handed, a shield strapped on (not a buckler) fills the other hand, a throw is no grip.
    #[test]
    fn a_lone_one_handed_weapon_is_gripped_in_both_hands() {
        let sword = weapon("longsword", Handling::OneHanded);
        let alone = Armament(vec![sword.clone()]);
        assert!(grips_in_both_hands(&alone, None, &sword));
        assert!(Weapon { two_hands: true, ..sword.clone() }.wielded_two_handed());
        assert!(!grips_in_both_hands(&alone, Some(&shield(ShieldKind::HeavySteel)), &sword));
        assert!(!grips_in_both_hands(&alone, Some(&shield(ShieldKind::LightWooden)), &sword));
        assert!(grips_in_both_hands(&alone, Some(&shield(ShieldKind::Buckler)), &sword));
        let slung = Shield { strapped: false, ..shield(ShieldKind::HeavySteel) };
        assert!(grips_in_both_hands(&alone, Some(&slung), &sword));
        let with_dagger = Armament(vec![sword.clone(), weapon("dagger", Handling::Light)]);
        assert!(!grips_in_both_hands(&with_dagger, None, &sword));
        let short = weapon("short sword", Handling::Light);
        assert!(!grips_in_both_hands(&Armament(vec![short.clone()]), None, &short));
        assert!(!Weapon { two_hands: true, ..short }.wielded_two_handed(), "a light weapon gains nothing (004:26)");
        let javelin =
            Weapon { delivery: Delivery::Thrown { increment_m: 9.0 }, ..weapon("javelin", Handling::OneHanded) };
        assert!(!grips_in_both_hands(&Armament(vec![javelin.clone()]), None, &javelin));
    }
}
