//! The weapon selector: the weapons of the creature whose turn it is, each with its sheet's attack line,
//! which are in hand and which put away, and what drawing, putting away or dropping one costs and who would
//! strike, before the click (004:121, 004:129, 004:149, 004:218-219). `Shift+1`…`Shift+9` choose a weapon
//! for the attacks to come (drawing it first if it is put away), `Shift+P` puts the chosen one away,
//! `Shift+D` drops it, `Shift+L` loads the chosen crossbow (004:120, 004:137).

use bevy::prelude::*;

use crate::preview::{HandlePreview, handle_preview};
use crate::rules::attack::disarming::OpportunityOptions;
use crate::rules::attack::gear::Handle;
use crate::rules::attack::manoeuvre::OpportunityChoice;
use crate::rules::command::Command;
use crate::rules::core::creature::*;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::ActionKind;

use super::state::*;
use super::turn::*;

/// One weapon of the selector.
#[derive(Clone, Debug)]
pub struct WeaponRow {
    /// Its number: `Shift` and this digit choose it.
    pub key: usize,
    /// Its name.
    pub name: String,
    /// In hand (or a natural weapon, always ready).
    pub in_hand: bool,
    /// The weapon the attacks will use.
    pub chosen: bool,
    /// Its attack line: bonus, damage, critical, reach or range.
    pub line: String,
    /// What drawing it would cost, if it is put away.
    pub draw: Option<Result<HandlePreview, Refusal>>,
    /// What putting it away would cost, if it is in hand and can be.
    pub put_away: Option<Result<HandlePreview, Refusal>>,
    /// What dropping it would cost, if it is in hand and can be.
    pub drop: Option<Result<HandlePreview, Refusal>>,
    /// A crossbow shot and not loaded again (004:120, 004:137).
    pub unloaded: bool,
    /// What loading it would cost, if it is a crossbow in hand not loaded.
    pub load: Option<Result<HandlePreview, Refusal>>,
    /// What preparing it to throw would cost, if it is a splash weapon not prepared (004:144).
    pub prepare: Option<Result<HandlePreview, Refusal>>,
}

/// The weapon rows of the creature the player commands now; none outside its turn.
pub fn weapon_rows(world: &mut World) -> Vec<WeaponRow> {
    let Some(me) = human_turn(world) else { return Vec::new() };
    let Some(armament) = world.get::<Armament>(me).cloned() else { return Vec::new() };
    let sheet = crate::encounter::sheet_of(world, me);
    let chosen = chosen_weapon(world, &armament);
    let mut rows = Vec::new();
    for (i, weapon) in armament.0.iter().enumerate() {
        let line = sheet
            .as_ref()
            .and_then(|s| s.attacks.iter().find(|a| a.weapon == weapon.name))
            .map(|a| format!("{:+} {} {} {}", a.bonus, a.damage, a.critical, a.reach_or_range))
            .unwrap_or_default();
        let manufactured = !weapon.natural && !weapon.unarmed;
        let handled = |world: &mut World, handle| Some(handle_preview(world, me, &weapon.name, handle));
        let (draw, put_away, drop) = match (manufactured, weapon.stowed) {
            (false, _) => (None, None, None),
            (true, true) => (handled(world, Handle::Draw), None, None),
            (true, false) => (None, handled(world, Handle::PutAway), handled(world, Handle::Drop)),
        };
        let load = (weapon.unloaded && !weapon.stowed).then(|| handle_preview(world, me, &weapon.name, Handle::Load));
        let prepare = (weapon.splash.is_some() && !weapon.prepared)
            .then(|| handle_preview(world, me, &weapon.name, Handle::Prepare));
        rows.push(WeaponRow {
            key: i + 1,
            name: weapon.name.clone(),
            in_hand: !weapon.stowed,
            chosen: chosen.as_deref() == Some(weapon.name.as_str()),
            line,
            draw,
            put_away,
            drop,
            unloaded: weapon.unloaded,
            load,
            prepare,
        });
    }
    rows
}

/// The shield of the selector: its name, whether it is strapped on, and what strapping it on or loosing it
/// would cost (004:127, 004:221).
#[derive(Clone, Debug)]
pub struct ShieldRow {
    /// Its name.
    pub name: String,
    /// Strapped on (else slung on its back).
    pub strapped: bool,
    /// What loosing it (strapped) or strapping it on (slung) would cost.
    pub cost: Result<HandlePreview, Refusal>,
}

/// The shield of the creature the player commands now, if it carries one.
pub fn shield_row(world: &mut World) -> Option<ShieldRow> {
    let me = human_turn(world)?;
    let shield = *world.get::<Shield>(me)?;
    let cost = crate::preview::shield_preview(world, me, !shield.strapped);
    Some(ShieldRow { name: shield.kind.name().to_string(), strapped: shield.strapped, cost })
}

/// Straps on or looses the shield of the creature commanded, or says why not (004:127, 004:221).
pub fn handle_shield(world: &mut World) {
    let Some(me) = human_turn(world) else { return };
    let Some(shield) = world.get::<Shield>(me).copied() else {
        world.insert_resource(Notice(Some((false, "it carries no shield (004:221)".into()))));
        return;
    };
    let ready = !shield.strapped;
    if let Err(refusal) = crate::preview::shield_preview(world, me, ready) {
        world.insert_resource(Notice(Some((false, super::rules_words::refusal_full(&refusal)))));
        return;
    }
    let creature = id_of(world, me);
    world.resource_mut::<Pending>().0.push_back(Command::Shield { creature, ready });
}

/// The weapon the attacks will use: the one chosen if it is still in hand, else the first ready.
fn chosen_weapon(world: &World, armament: &Armament) -> Option<String> {
    let choice = world.resource::<Choice>();
    choice
        .weapon
        .as_ref()
        .filter(|name| armament.ready().any(|w| &w.name == *name))
        .cloned()
        .or_else(|| armament.ready().next().map(|w| w.name.clone()))
}

/// Forgets the weapon chosen once the creature commanded no longer holds it ready (thrown, dropped, put
/// away, or another creature's turn).
pub fn keep_choice_valid(world: &mut World) {
    let Some(name) = world.resource::<Choice>().weapon.clone() else { return };
    let ready =
        human_turn(world).and_then(|me| world.get::<Armament>(me)).is_some_and(|a| a.ready().any(|w| w.name == name));
    if !ready {
        world.resource_mut::<Choice>().weapon = None;
    }
}

/// Words for what a handling costs: "a move action", "free with its move", with who would strike.
pub fn cost_words(preview: &HandlePreview, name: impl Fn(Entity) -> String) -> String {
    let kind = crate::locale::tr(match (preview.cost.kind, preview.cost.rule) {
        (ActionKind::Free, "004:219") => "cost-free-with-move",
        (ActionKind::Free, _) => "cost-free",
        (ActionKind::Move, _) => "cost-move",
        (ActionKind::Standard, _) => "cost-standard",
        (ActionKind::FullRound, _) => "cost-full-round",
    });
    let strikes = if preview.strikers.is_empty() {
        if preview.cost.provokes { crate::locale::tr("cost-provokes-no-foe") } else { String::new() }
    } else {
        let who: Vec<String> = preview.strikers.iter().map(|e| name(*e)).collect();
        crate::tr!("cost-provokes", who = who.join(", "))
    };
    format!("{kind}{strikes} ({})", preview.cost.rule)
}

/// Chooses the weapon numbered `key` for the attacks to come; one put away is drawn first.
pub fn choose(world: &mut World, key: usize) {
    let Some(me) = human_turn(world) else { return };
    let Some(weapon) = world.get::<Armament>(me).and_then(|a| a.0.get(key.wrapping_sub(1))).cloned() else { return };
    if weapon.stowed {
        handle(world, &weapon.name, Handle::Draw);
    }
    world.resource_mut::<Choice>().weapon = Some(weapon.name);
}

/// Draws, puts away or drops `name`, or says why not.
pub fn handle(world: &mut World, name: &str, what: Handle) {
    let Some(me) = human_turn(world) else { return };
    let preview = match handle_preview(world, me, name, what) {
        Ok(preview) => preview,
        Err(refusal) => {
            world.insert_resource(Notice(Some((false, super::rules_words::refusal_full(&refusal)))));
            return;
        }
    };
    let creature = id_of(world, me);
    let weapon = name.to_string();
    let command = match what {
        Handle::Draw => Command::Draw { creature, weapon },
        Handle::PutAway => Command::PutAway { creature, weapon },
        Handle::Drop => Command::Drop { creature, weapon },
        Handle::Load => Command::Load { creature, weapon },
        Handle::Prepare => Command::Prepare { creature, weapon },
    };
    // A handling that provokes where it stands (putting a weapon away, loading a crossbow, 004:120, 004:129)
    // waits for a second press, as a potion or standing up does, naming who would strike.
    let why = (preview.cost.provokes && !preview.strikers.is_empty())
        .then(|| super::declare::why_in_place(world, preview.cost.rule))
        .flatten();
    super::declare::submit(world, vec![command], why);
}

/// The next Power Attack amount for the creature commanded: one more, back to none past its base attack
/// bonus; none without the feat (the d20 feat; docs/rulings.md).
pub fn next_power(world: &mut World) {
    let most = human_turn(world)
        .filter(|me| world.get::<Feats>(*me).is_some_and(|f| f.has(Feat::PowerAttack)))
        .and_then(|me| world.get::<BaseAttack>(me))
        .map_or(0, |b| b.0.max(0) as u32);
    let mut choice = world.resource_mut::<Choice>();
    choice.power = if choice.power >= most { 0 } else { choice.power + 1 };
}

/// The Power Attack amount kept for a creature that may use it, none otherwise.
pub fn keep_power_valid(world: &mut World) {
    let most = human_turn(world)
        .filter(|me| world.get::<Feats>(*me).is_some_and(|f| f.has(Feat::PowerAttack)))
        .and_then(|me| world.get::<BaseAttack>(me))
        .map_or(0, |b| b.0.max(0) as u32);
    if world.resource::<Choice>().power > most {
        world.resource_mut::<Choice>().power = 0;
    }
}

/// Puts away or drops the weapon chosen (or the first in hand).
pub fn handle_chosen(world: &mut World, what: Handle) {
    let Some(me) = human_turn(world) else { return };
    let Some(armament) = world.get::<Armament>(me).cloned() else { return };
    let Some(name) = chosen_weapon(world, &armament) else { return };
    // The key that loads a crossbow prepares a flask (004:120, 004:144).
    let flask = armament.0.iter().any(|w| w.name == name && w.splash.is_some());
    let what = if what == Handle::Load && flask { Handle::Prepare } else { what };
    handle(world, &name, what);
}

/// Whether the creature commanded's full attack strikes with two weapons, if it could at all (004:462,
/// 004:471-472): what the bar's switch shows.
pub fn two_weapons_now(world: &World) -> Option<bool> {
    let me = super::turn::human_turn(world)?;
    let (armament, feats) = (world.get::<Armament>(me)?, world.get::<Feats>(me)?);
    let choice = world.resource::<Choice>();
    let main = choice.weapon.as_deref();
    crate::rules::attack::could_fight_with_two_weapons(armament, main)
        .then(|| crate::rules::attack::with_two_weapons(armament, feats, main, choice.two_weapons))
}

/// What the attacks of opportunity of the creature commanded do, if it could do more than strike with them:
/// trip (a trip weapon in hand or Improved Trip, 004:483, 004:486, 004:489), disarm (Improved Disarm,
/// 004:490) or sunder (Improved Sunder, 004:499): what the bar's switch shows.
pub fn opportunity_choice_now(world: &World) -> Option<OpportunityChoice> {
    let me = super::turn::human_turn(world)?;
    Some(world.get::<OpportunityChoice>(me).copied().unwrap_or_default())
}

/// Switches what the creature's attacks of opportunity do: strike, then each of trip, disarm and sunder it
/// could do, then weigh each, then hold them all (004:68) (`Shift+O`).
pub fn switch_opportunity_choice(world: &mut World) {
    let (Some(me), Some(now)) = (super::turn::human_turn(world), opportunity_choice_now(world)) else { return };
    let creature = id_of(world, me);
    let choice = OpportunityOptions::of_creature(world, me).after(now);
    world.resource_mut::<Pending>().0.push_back(Command::AttacksOfOpportunity { creature, choice });
}

/// Switches the full attack between two weapons and one (`Shift+W`).
pub fn switch_two_weapons(world: &mut World) {
    if let Some(two) = two_weapons_now(world) {
        world.resource_mut::<Choice>().two_weapons = Some(!two);
    }
}
