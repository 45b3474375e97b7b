//! The weapons at hand, as the table of actions handles them (004:121, 004:128-129, 004:149, 004:218-222,
//! 004:254): drawing a weapon is a move action that provokes nothing, free with a move for a creature with a
//! base attack of +1 or more (004:219); putting one away a move action that provokes; dropping it a free
//! action, onto its square; picking one up from the ground a move action that provokes. A weapon on the
//! ground is an object on the board, where a disarm made it fall (004:494), where it was dropped, or where a
//! thrown weapon struck (our ruling, docs/rulings.md).
//!
//! Which weapon fits in which hand is the core's (`rules::core::gear`); this module carries the actions out.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use super::provoke_as;
use crate::rules::core::creature::*;
use crate::rules::core::facts::Fact;
use crate::rules::core::gear::{Loading, check_draw, check_in_hand, check_load, hands_for, hands_free, loading};
use crate::rules::core::geometry::{Footprint, Square};
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::{
    ActionBudget, ActionKind, BegunAction, FullRoundBegun, Provoking, Strain, TurnOrder, over_two_rounds,
};

/// A weapon lying on the ground: an object on the board (004:494).
#[derive(Component, Clone, Debug, PartialEq)]
pub struct GroundWeapon {
    /// The weapon.
    pub weapon: Weapon,
    /// The square it lies on.
    pub at: Square,
}

/// A shield lying on the ground, loosed and dropped (004:221).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroundShield {
    /// The shield.
    pub shield: Shield,
    /// The square it lies on.
    pub at: Square,
}

/// Something lying on the ground a creature may pick up (004:128).
#[derive(Clone, Debug, PartialEq)]
pub enum Lying {
    /// A weapon.
    Weapon(GroundWeapon),
    /// A shield.
    Shield(GroundShield),
}

impl Lying {
    /// Its name.
    pub fn name(&self) -> String {
        match self {
            Lying::Weapon(g) => g.weapon.name.clone(),
            Lying::Shield(g) => g.shield.kind.name().to_string(),
        }
    }

    /// The square it lies on.
    pub fn at(&self) -> Square {
        match self {
            Lying::Weapon(g) => g.at,
            Lying::Shield(g) => g.at,
        }
    }
}

/// Asks to strap on its shield slung on its back, or to loose the one strapped on and drop it (004:127,
/// 004:221).
#[derive(Message, Clone, Copy, Debug)]
pub struct ShieldIntent {
    /// Who.
    pub creature: Entity,
    /// Strap it on (`true`) or loose it (`false`).
    pub ready: bool,
}

/// What a creature does with a weapon of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// Draw it (004:218).
    Draw,
    /// Put it away (004:129).
    PutAway,
    /// Drop it on its square (004:254).
    Drop,
    /// Load it, a crossbow (004:120, 004:137).
    Load,
    /// Prepare it to throw, a splash weapon (004:144).
    Prepare,
}

impl Handle {
    /// The action, as the log names it.
    pub const fn action(self) -> Action {
        match self {
            Handle::Draw => Action::Draw,
            Handle::PutAway => Action::PutAway,
            Handle::Drop => Action::Drop,
            Handle::Load => Action::Load,
            Handle::Prepare => Action::PrepareSplash,
        }
    }
}

/// Asks to draw, put away or drop a weapon.
#[derive(Message, Clone, Debug)]
pub struct HandleIntent {
    /// Who.
    pub creature: Entity,
    /// The weapon's name.
    pub weapon: String,
    /// What with it.
    pub handle: Handle,
}

/// Asks to pick up a weapon lying in or next to its space (004:128).
#[derive(Message, Clone, Debug)]
pub struct PickUpIntent {
    /// Who picks up.
    pub creature: Entity,
    /// The weapon's name; the nearest if `None`.
    pub weapon: Option<String>,
}

/// The rows of the table of actions the handlings are (004:121, 004:129, 004:149): line, action, whether
/// it provokes, as this module plays them; picking up is 004:128, a move action that provokes.
pub const TABLE_ROWS: [(u32, ActionKind, bool); 8] = [
    (120, ActionKind::Move, true),
    (121, ActionKind::Move, false),
    (127, ActionKind::Move, false),
    (128, ActionKind::Move, true),
    (129, ActionKind::Move, true),
    (137, ActionKind::FullRound, true),
    (144, ActionKind::FullRound, true),
    (149, ActionKind::Free, false),
];

/// The action a row of [`TABLE_ROWS`] is, and whether it provokes.
fn row(line: u32) -> (ActionKind, bool) {
    TABLE_ROWS.iter().find(|r| r.0 == line).map_or((ActionKind::Move, true), |r| (r.1, r.2))
}

/// The round a creature last drew a weapon as it moved: one free draw a turn (our ruling).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrewOnTheMove(pub u32);

/// The round a creature last readied or loosed its shield as it moved: once a turn (our ruling).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShieldOnTheMove(pub u32);

/// Whether a handling rides free on the move `creature` made this turn (004:219, 004:221): a base attack of
/// +1 or more, « un déplacement normal » made (a move action of movement: a move, a double move, a crawl;
/// not a run, a charge nor a withdrawal, full-round actions of their own, 004:243 « Cette action
/// complexe »), and none of that kind yet this round (`last`: the round of the last one).
fn free_with_the_move(world: &World, creature: Entity, last: Option<u32>) -> bool {
    let round = world.resource::<TurnOrder>().round;
    let moved = world.get::<crate::rules::turns::moving::Travelled>(creature).is_some_and(|t| t.moves_in(round) >= 1);
    let withdrew = world
        .get::<crate::rules::turns::moving::LastMove>(creature)
        .is_some_and(|m| m.round == round && m.action == crate::rules::movement::MovementAction::Withdraw);
    world.get::<BaseAttack>(creature).is_some_and(|b| b.0 >= 1) && moved && !withdrew && last != Some(round)
}

/// Whether a draw rides free on the move `creature` is still to make this turn (004:219 « dégainer une arme
/// par une action libre combinée à un déplacement normal »: combined with it, before as well as after): a
/// base attack of +1 or more, no movement yet this turn and its move action left. The draw takes it, as a
/// draw does, and the move after it takes none (`ActionBudget::move_with_draw`): drawn with no move after
/// it, it was a move action. Once a turn, as after the move.
fn free_before_the_move(world: &World, creature: Entity, last: Option<u32>, budget: &ActionBudget) -> bool {
    let round = world.resource::<TurnOrder>().round;
    world.get::<BaseAttack>(creature).is_some_and(|b| b.0 >= 1)
        && budget.movement == crate::rules::turns::MovementMade::None
        && budget.check(ActionKind::Move).is_ok()
        && last != Some(round)
}

/// What strapping on its shield (`ready`) or loosing it costs `creature` now, or why it cannot: a move
/// action that provokes nothing, free when it has moved this turn with a base attack of +1 or more, once a
/// turn (004:127, 004:221); strapping takes a free hand, but for a buckler.
pub fn check_shield(world: &World, creature: Entity, ready: bool) -> Result<HandleCost, Refusal> {
    world.resource::<TurnOrder>().check_turn(creature)?;
    if !world.get::<Conditions>(creature).is_some_and(|c| c.can_act()) {
        return Err(Refusal::new("a helpless creature cannot handle its shield", "004:278"));
    }
    if world.get::<Grapple>(creature).is_some() {
        return Err(Refusal::new("in a grapple it cannot handle its shield", "004:599"));
    }
    let shield = world.get::<Shield>(creature).ok_or_else(|| Refusal::new("it carries no shield", "004:221"))?;
    match (ready, shield.strapped) {
        (true, true) => return Err(Refusal::new("its shield is strapped on already", "004:221")),
        (false, false) => {
            return Err(Refusal::new("its shield is not strapped on: it is slung on its back", "004:221"));
        }
        (true, false) => {
            let empty = Armament::default();
            let armament = world.get::<Armament>(creature).unwrap_or(&empty);
            if crate::rules::core::gear::hands_to_strap(shield) > hands_free(armament, Some(shield)) {
                return Err(Refusal::new(
                    "its hands are full: put away or drop a weapon to strap its shield on",
                    "004:221",
                ));
            }
        }
        (false, true) => {}
    }
    let budget = world.get::<ActionBudget>(creature).copied().unwrap_or_default();
    let last = world.get::<ShieldOnTheMove>(creature).map(|d| d.0);
    let on_the_move = free_with_the_move(world, creature, last);
    // Before the move it is combined with, as the draw (004:221 has the draw's words, 004:219).
    let with_a_move = !on_the_move && free_before_the_move(world, creature, last, &budget);
    let (kind, provokes) = row(127);
    let cost = if on_the_move {
        HandleCost { kind: ActionKind::Free, provokes, rule: "004:221", over_two_rounds: None, with_a_move: false }
    } else {
        let rule = if with_a_move { "004:221" } else { "004:127, 004:221" };
        HandleCost { kind, provokes, rule, over_two_rounds: None, with_a_move }
    };
    budget.check_kind(cost.kind)?;
    Ok(cost)
}

/// Straps shields on and looses them as asked, or writes why not. A shield loosed falls on its square
/// (004:221: « détacher et lâcher »).
pub(super) fn handle_shields(world: &mut World, mut intents: Local<MessageCursor<ShieldIntent>>) {
    let read: Vec<ShieldIntent> = intents.read(world.resource::<Messages<ShieldIntent>>()).copied().collect();
    for intent in read {
        let Some(id) = world.get::<CreatureId>(intent.creature).cloned() else { continue };
        let action = if intent.ready { Action::ReadyShield } else { Action::LooseShield };
        let cost = match check_shield(world, intent.creature, intent.ready) {
            Ok(cost) => cost,
            Err(refusal) => {
                refuse(world, &id, action, refusal);
                continue;
            }
        };
        pay(world, intent.creature, &cost);
        let free = cost.kind == ActionKind::Free;
        if free || cost.with_a_move {
            let round = world.resource::<TurnOrder>().round;
            world.entity_mut(intent.creature).insert(ShieldOnTheMove(round));
        }
        let Some(mut shield) = world.get::<Shield>(intent.creature).copied() else { continue };
        let at = world.get::<Position>(intent.creature).map_or(Square::new(0, 0), |p| p.0);
        let name = shield.kind.name().to_string();
        let fact = if intent.ready {
            shield.strapped = true;
            world.entity_mut(intent.creature).insert(shield);
            Fact::ShieldReadied { creature: id, shield: name, free }
        } else {
            world.entity_mut(intent.creature).remove::<Shield>();
            world.spawn(GroundShield { shield: Shield { strapped: false, ..shield }, at });
            Fact::ShieldLoosed { creature: id, shield: name, at, free }
        };
        let bonus = world.get::<Shield>(intent.creature).map_or(0, Shield::armor_class);
        if let Some(mut defense) = world.get_mut::<Defense>(intent.creature) {
            defense.shield = bonus;
        }
        world.write_message(fact);
    }
}

/// How a handling of a weapon is paid for, and whether it provokes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleCost {
    /// The action it takes.
    pub kind: ActionKind,
    /// It provokes attacks of opportunity.
    pub provokes: bool,
    /// The rule.
    pub rule: &'static str,
    /// A full-round action a creature restricted to one action takes over two rounds with a standard action
    /// each (004:86, 004:212): `Some(false)` begins it, provoking nothing yet; `Some(true)` finishes it.
    pub over_two_rounds: Option<bool>,
    /// A draw before the move it is combined with (004:219): it takes the move action, and the move after it
    /// takes none more.
    pub with_a_move: bool,
}

/// What handling `weapon` costs `creature` now, or why it cannot: drawing a weapon put away with hands free
/// for it, a move action, free when it has moved this turn with a base attack of +1 or more and has not yet
/// drawn so (004:219); putting away what it holds, a move action that provokes (004:129); dropping it, free
/// (004:149); loading a crossbow shot, a move action for a light one, a full-round action for a heavy one,
/// one step less with Rapid Reload, provoking (004:120, 004:137); preparing a splash weapon to throw, a
/// full-round action that provokes, the flask taken in hand with it if put away (004:144).
pub fn check_handle(world: &World, creature: Entity, weapon: &str, handle: Handle) -> Result<HandleCost, Refusal> {
    world.resource::<TurnOrder>().check_turn(creature)?;
    if !world.get::<Conditions>(creature).is_some_and(|c| c.can_act()) {
        return Err(Refusal::new("a helpless creature cannot handle its weapons", "004:278"));
    }
    if world.get::<Grapple>(creature).is_some() && handle != Handle::Drop {
        return Err(Refusal::new("in a grapple a weapon is drawn only by a grapple check (a light one)", "004:599"));
    }
    let armament = world.get::<Armament>(creature).ok_or_else(|| Refusal::new("it carries nothing", "004:218"))?;
    let shield = world.get::<Shield>(creature);
    let budget = world.get::<ActionBudget>(creature).copied().unwrap_or_default();
    let cost = match handle {
        Handle::Draw => {
            check_draw(armament, shield, weapon)?;
            let last = world.get::<DrewOnTheMove>(creature).map(|d| d.0);
            let on_the_move = free_with_the_move(world, creature, last);
            let with_a_move = !on_the_move && free_before_the_move(world, creature, last, &budget);
            let (kind, provokes) = row(121);
            HandleCost {
                kind: if on_the_move { ActionKind::Free } else { kind },
                provokes,
                rule: if on_the_move || with_a_move { "004:219" } else { "004:121, 004:218" },
                over_two_rounds: None,
                with_a_move,
            }
        }
        Handle::PutAway => {
            check_in_hand(armament, weapon)?;
            let (kind, provokes) = row(129);
            HandleCost { kind, provokes, rule: "004:129, 004:218", over_two_rounds: None, with_a_move: false }
        }
        Handle::Drop => {
            check_in_hand(armament, weapon)?;
            let (kind, provokes) = row(149);
            HandleCost { kind, provokes, rule: "004:149, 004:254", over_two_rounds: None, with_a_move: false }
        }
        Handle::Load => {
            let crossbow = check_load(armament, weapon)?;
            let rapid = world.get::<Feats>(creature).is_some_and(|f| f.has(Feat::RapidReload));
            let heavy = crossbow.reload == Some(Reload::FullRound);
            let (kind, provokes) = row(if heavy { 137 } else { 120 });
            let (kind, rule) = match (loading(crossbow, rapid), heavy) {
                (Some(Loading::Move), true) => (ActionKind::Move, "004:137, Rapid Reload"),
                (_, true) => (kind, "004:137"),
                (_, false) => (kind, "004:120"),
            };
            HandleCost { kind, provokes, rule, over_two_rounds: None, with_a_move: false }
        }
        Handle::Prepare => {
            crate::rules::core::gear::check_prepare(armament, shield, weapon)?;
            let (kind, provokes) = row(144);
            HandleCost { kind, provokes, rule: "004:144", over_two_rounds: None, with_a_move: false }
        }
    };
    let mut cost = cost;
    let begun_as = match handle {
        Handle::Load if cost.kind == ActionKind::FullRound => Some(BegunAction::Load { weapon: weapon.to_string() }),
        Handle::Prepare => Some(BegunAction::Prepare { weapon: weapon.to_string() }),
        _ => None,
    };
    let round = world.resource::<TurnOrder>().round;
    let begun = world.get::<FullRoundBegun>(creature);
    if let Some(finishing) = begun_as.and_then(|action| over_two_rounds(&budget, begun, &action, round)) {
        cost = HandleCost {
            kind: ActionKind::Standard,
            provokes: cost.provokes && finishing,
            over_two_rounds: Some(finishing),
            ..cost
        };
    }
    budget.check_kind(cost.kind)?;
    Ok(cost)
}

/// Draws, puts away and drops weapons as asked, or writes why not.
pub(super) fn handle_weapons(world: &mut World, mut intents: Local<MessageCursor<HandleIntent>>) {
    let read: Vec<HandleIntent> = intents.read(world.resource::<Messages<HandleIntent>>()).cloned().collect();
    for intent in read {
        let Some(id) = world.get::<CreatureId>(intent.creature).cloned() else { continue };
        let action = intent.handle.action();
        let cost = match check_handle(world, intent.creature, &intent.weapon, intent.handle) {
            Ok(cost) => cost,
            Err(refusal) => {
                refuse(world, &id, action, refusal);
                continue;
            }
        };
        pay(world, intent.creature, &cost);
        // Each half is a standard action: it costs a disabled creature 1 hit point (004:274).
        if cost.over_two_rounds.is_some() {
            world.write_message(Strain::standard_action(intent.creature));
        }
        match cost.over_two_rounds {
            Some(false) => {
                let round = world.resource::<TurnOrder>().round;
                let action = match intent.handle {
                    Handle::Load => BegunAction::Load { weapon: intent.weapon.clone() },
                    _ => BegunAction::Prepare { weapon: intent.weapon.clone() },
                };
                let named = action.action();
                world.entity_mut(intent.creature).insert(FullRoundBegun { action, round });
                world.write_message(Fact::FullRoundActionBegun { creature: id, action: named });
                continue;
            }
            Some(true) => {
                world.entity_mut(intent.creature).remove::<FullRoundBegun>();
            }
            None => {}
        }
        let why = match intent.handle {
            Handle::Load => "loading a crossbow (004:120, 004:137)",
            Handle::Prepare => "preparing a splash weapon (004:144)",
            _ => "putting away a weapon (004:129)",
        };
        if cost.provokes && provoke_as(world, Provoking::new(intent.creature, action, why)).dropped {
            continue;
        }
        let at = world.get::<Position>(intent.creature).map_or(Square::new(0, 0), |p| p.0);
        let weapon = intent.weapon;
        let fact = match intent.handle {
            Handle::Draw => {
                let free = cost.kind == ActionKind::Free;
                if free || cost.with_a_move {
                    let round = world.resource::<TurnOrder>().round;
                    world.entity_mut(intent.creature).insert(DrewOnTheMove(round));
                }
                set_stowed(world, intent.creature, &weapon, false);
                armed_again(world, intent.creature);
                if let Some(second) = second_draw(world, intent.creature, &weapon) {
                    set_stowed(world, intent.creature, &second, false);
                    world.write_message(Fact::Drew { creature: id.clone(), weapon: weapon.clone(), free });
                    Fact::Drew { creature: id, weapon: second, free: true }
                } else {
                    Fact::Drew { creature: id, weapon, free }
                }
            }
            Handle::PutAway => {
                set_stowed(world, intent.creature, &weapon, true);
                Fact::PutAway { creature: id, weapon }
            }
            Handle::Load => {
                set_loaded(world, intent.creature, &weapon, true);
                let line = if cost.rule.starts_with("004:137") { 137 } else { 120 };
                Fact::Loaded { creature: id, weapon, line }
            }
            Handle::Prepare => {
                prepare(world, intent.creature, &weapon);
                Fact::Prepared { creature: id, weapon }
            }
            Handle::Drop => {
                let Some(dropped) = take_from_hand(world, intent.creature, &weapon) else { continue };
                world.spawn(GroundWeapon { weapon: dropped, at });
                Fact::Dropped { creature: id, weapon, at, thrown: false }
            }
        };
        world.write_message(fact);
    }
}

/// With Two-Weapon Fighting, drawing a light or one-handed weapon draws a second one with it, in the time of
/// one (004:219): the first such weapon put away, in its sheet's order, that a hand still free can take.
fn second_draw(world: &World, creature: Entity, drawn: &str) -> Option<String> {
    if !world.get::<Feats>(creature).is_some_and(|f| f.has(Feat::TwoWeaponFighting)) {
        return None;
    }
    let armament = world.get::<Armament>(creature)?;
    let one_hand = |w: &Weapon| !w.natural && !w.unarmed && hands_for(w) == 1;
    if !armament.ready().any(|w| w.name == drawn && one_hand(w)) {
        return None;
    }
    let free = hands_free(armament, world.get::<Shield>(creature));
    armament.0.iter().find(|w| w.stowed && one_hand(w) && free >= 1).map(|w| w.name.clone())
}

/// Takes the weapon named out of `creature`'s hand, the first of that name it holds.
pub fn take_from_hand(world: &mut World, creature: Entity, name: &str) -> Option<Weapon> {
    let mut armament = world.get_mut::<Armament>(creature)?;
    let i = armament.0.iter().position(|w| w.name == name && !w.stowed)?;
    Some(armament.0.remove(i))
}

/// Whether `weapon`, as a plan holds it, is in hand in `armament`: by its name, and in the hand the plan
/// strikes with when one of that name is in each (a dart in each hand, 004:472).
pub fn in_hand(armament: &Armament, weapon: &Weapon) -> bool {
    armament.ready().any(|w| w.name == weapon.name && w.off_hand == weapon.off_hand)
}

/// Takes thrown `weapon` from the hand that threw it: the off hand's for an off-hand throw.
fn take_thrown(world: &mut World, creature: Entity, weapon: &Weapon) -> Option<Weapon> {
    let mut armament = world.get_mut::<Armament>(creature)?;
    let held = |w: &Weapon| w.name == weapon.name && !w.stowed;
    let i = armament
        .0
        .iter()
        .position(|w| held(w) && w.off_hand == weapon.off_hand)
        .or_else(|| armament.0.iter().position(held))?;
    Some(armament.0.remove(i))
}

/// A thrown weapon leaves the hand and lies where it struck (our ruling after 004:218: a weapon thrown is
/// no longer held); a splash weapon is gone, which its own rules see to.
pub fn throw_away(world: &mut World, thrower: Entity, weapon: &Weapon, at: Square) {
    if !matches!(weapon.delivery, Delivery::Thrown { .. }) || weapon.splash.is_some() {
        return;
    }
    let Some(id) = world.get::<CreatureId>(thrower).cloned() else { return };
    let Some(thrown) = take_thrown(world, thrower, weapon) else { return };
    world.spawn(GroundWeapon { weapon: thrown, at });
    world.write_message(Fact::Dropped { creature: id, weapon: weapon.name.clone(), at, thrown: true });
}

/// Takes a weapon into `creature`'s hand if it has room for it, else puts it away (our ruling).
pub fn take_in_hand(world: &mut World, creature: Entity, mut weapon: Weapon) {
    let shield = world.get::<Shield>(creature).copied();
    let Some(mut armament) = world.get_mut::<Armament>(creature) else { return };
    weapon.stowed = hands_for(&weapon) > hands_free(&armament, shield.as_ref());
    // A weapon taken becomes its usual one; a flask snatched goes with its other gear.
    if weapon.splash.is_some() {
        armament.0.push(weapon)
    } else {
        armament.0.insert(0, weapon)
    }
    armed_again(world, creature);
}

/// Whether a weapon is one a disarm takes from the hand: a manufactured weapon held, not a natural weapon,
/// the unarmed strike or a flask (004:490).
pub fn in_hand_to_disarm(weapon: &Weapon) -> bool {
    !weapon.stowed && !weapon.natural && !weapon.unarmed && weapon.splash.is_none()
}

/// A creature that lost a weapon to a disarm (004:494) and holds none again yet: the board shows it disarmed.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Disarmed;

/// A light weapon drawn by a won grapple check (004:599), the move action paid by the grapple: in hand now
/// if its hands are free for it, or why not.
pub fn draw_in_a_grapple(world: &mut World, creature: Entity, weapon: &str) {
    let Some(id) = world.get::<CreatureId>(creature).cloned() else { return };
    let Some(armament) = world.get::<Armament>(creature) else { return };
    if let Err(refusal) = crate::rules::core::gear::check_draw(armament, world.get::<Shield>(creature), weapon) {
        refuse(world, &id, Action::Draw, refusal);
        return;
    }
    set_stowed(world, creature, weapon, false);
    armed_again(world, creature);
    world.write_message(Fact::Drew { creature: id, weapon: weapon.to_string(), free: false });
}

/// A disarmed creature holding a weapon again (taken in hand, picked up, drawn) is disarmed no more.
fn armed_again(world: &mut World, creature: Entity) {
    if world.get::<Armament>(creature).is_some_and(|a| a.0.iter().any(in_hand_to_disarm)) {
        world.entity_mut(creature).remove::<Disarmed>();
    }
}

/// A crossbow shot is not loaded, unless it loads as a free action (Rapid Reload with a light one), which we
/// play as done with the shot (004:120, 004:137; docs/rulings.md).
pub fn shot(world: &mut World, shooter: Entity, weapon: &Weapon) {
    let rapid = world.get::<Feats>(shooter).is_some_and(|f| f.has(Feat::RapidReload));
    if crate::rules::core::gear::one_shot_a_round(weapon, rapid) {
        set_loaded(world, shooter, &weapon.name, false);
    }
}

fn set_loaded(world: &mut World, creature: Entity, name: &str, loaded: bool) {
    if let Some(mut armament) = world.get_mut::<Armament>(creature)
        && let Some(weapon) = armament.0.iter_mut().find(|w| w.name == name && !w.stowed && w.unloaded == loaded)
    {
        weapon.unloaded = !loaded;
    }
}

fn set_stowed(world: &mut World, creature: Entity, name: &str, stowed: bool) {
    if let Some(mut armament) = world.get_mut::<Armament>(creature)
        && let Some(weapon) = armament.0.iter_mut().find(|w| w.name == name && w.stowed != stowed)
    {
        weapon.stowed = stowed;
        // A flask put away is no longer ready to throw (004:144).
        weapon.prepared &= !stowed;
    }
}

/// Makes the flask named ready to throw, in hand: the one in hand not yet prepared, else one put away.
fn prepare(world: &mut World, creature: Entity, name: &str) {
    let Some(mut armament) = world.get_mut::<Armament>(creature) else { return };
    let held = armament.0.iter().position(|w| w.name == name && w.splash.is_some() && !w.prepared && !w.stowed);
    let Some(i) = held.or_else(|| armament.0.iter().position(|w| w.name == name && w.splash.is_some() && w.stowed))
    else {
        return;
    };
    let flask = &mut armament.0[i];
    flask.stowed = false;
    flask.prepared = true;
}

fn spend(world: &mut World, creature: Entity, kind: ActionKind) {
    if let Some(mut budget) = world.get_mut::<ActionBudget>(creature) {
        let _ = budget.spend(kind);
    }
}

/// Spends what handling a weapon or a shield costs; one taken before the move it is combined with leaves
/// that move paid (004:219, 004:221).
fn pay(world: &mut World, creature: Entity, cost: &HandleCost) {
    spend(world, creature, cost.kind);
    if cost.with_a_move
        && let Some(mut budget) = world.get_mut::<ActionBudget>(creature)
    {
        budget.move_with_draw = true;
    }
}

fn refuse(world: &mut World, id: &CreatureId, action: Action, refusal: Refusal) {
    world.write_message(Fact::ActionRefused {
        creature: id.clone(),
        action,
        reason: refusal.reason,
        rule: refusal.rule,
    });
}

/// Whether `creature` is low enough to reach the ground with a hand: no higher above it than its reach,
/// a step at least (heights count, 004:783-784: a flier 30 m up picks nothing up); at chase scale, on the
/// ground itself (the lowest band above it is 6 m up).
fn reaches_the_ground(world: &World, creature: Entity) -> bool {
    let altitude = world.get::<Altitude>(creature).map_or(0, |a| a.0);
    let reach = world.get::<Reach>(creature).map_or(1, |r| r.0).max(1);
    match world.resource::<crate::rules::core::battlefield::Battlefield>().scale() {
        crate::rules::core::altitude::Scale::Normal => altitude <= reach as i32,
        crate::rules::core::altitude::Scale::Chase => altitude == 0,
    }
}

/// The weapons on the ground `creature` could pick up now: on its squares or next to them, nearest first.
pub fn within_reach(world: &World, creature: Entity) -> Vec<(Entity, GroundWeapon)> {
    let Some(at) = world.get::<Space>(creature).zip(world.get::<Position>(creature)).map(|(s, p)| s.at(p.0)) else {
        return Vec::new();
    };
    if !reaches_the_ground(world, creature) {
        return Vec::new();
    }
    let Some(mut q) = world.try_query::<(Entity, &GroundWeapon)>() else { return Vec::new() };
    let mut found: Vec<(Entity, GroundWeapon)> =
        q.iter(world).filter(|(_, g)| at.touches(Footprint::new(g.at, 1))).map(|(e, g)| (e, g.clone())).collect();
    found.sort_by_key(|(_, g)| (!at.contains(g.at), g.at.y, g.at.x, g.weapon.name.clone()));
    found
}

/// The shields on the ground `creature` could pick up now, if it carries none: on its squares or next to
/// them, nearest first.
pub fn shields_within_reach(world: &World, creature: Entity) -> Vec<(Entity, GroundShield)> {
    let Some(at) = world.get::<Space>(creature).zip(world.get::<Position>(creature)).map(|(s, p)| s.at(p.0)) else {
        return Vec::new();
    };
    if world.get::<Shield>(creature).is_some() || !reaches_the_ground(world, creature) {
        return Vec::new();
    }
    let Some(mut q) = world.try_query::<(Entity, &GroundShield)>() else { return Vec::new() };
    let mut found: Vec<(Entity, GroundShield)> =
        q.iter(world).filter(|(_, g)| at.touches(Footprint::new(g.at, 1))).map(|(e, g)| (e, *g)).collect();
    found.sort_by_key(|(_, g)| (!at.contains(g.at), g.at.y, g.at.x, g.shield.kind.name()));
    found
}

/// Whether `creature` may pick up something now: its turn, its move action, a weapon within reach, or a
/// shield if it carries none; the one named, else the nearest weapon, else the nearest shield.
pub fn check_pick_up(world: &World, intent: &PickUpIntent) -> Result<(Entity, Lying), Refusal> {
    world.resource::<TurnOrder>().check_turn(intent.creature)?;
    world.get::<ActionBudget>(intent.creature).copied().unwrap_or_default().check(row(128).0)?;
    if !world.get::<Conditions>(intent.creature).is_some_and(|c| c.can_act()) {
        return Err(Refusal::new("a helpless creature cannot pick anything up", "004:278"));
    }
    // A grappler's hands are on its foe: it draws only a light weapon, by a grapple check (004:592-599).
    if world.get::<Grapple>(intent.creature).is_some() {
        return Err(Refusal::new(
            "in a grapple nothing is picked up: a light weapon is drawn by a grapple check",
            "004:599",
        ));
    }
    let weapons = within_reach(world, intent.creature).into_iter().map(|(e, g)| (e, Lying::Weapon(g)));
    let shields = shields_within_reach(world, intent.creature).into_iter().map(|(e, g)| (e, Lying::Shield(g)));
    weapons
        .chain(shields)
        .find(|(_, lying)| intent.weapon.as_ref().is_none_or(|name| *name == lying.name()))
        .ok_or_else(|| Refusal::new("nothing it could pick up lies on its squares or next to them", "004:128"))
}

/// Carries out pick-up intents: a move action that provokes (004:128), then the weapon in hand if a hand is
/// free for it, else put away.
pub fn resolve_pick_ups(world: &mut World, mut intents: Local<MessageCursor<PickUpIntent>>) {
    let read: Vec<PickUpIntent> = intents.read(world.resource::<Messages<PickUpIntent>>()).cloned().collect();
    for intent in read {
        let Some(id) = world.get::<CreatureId>(intent.creature).cloned() else { continue };
        let (object, ground) = match check_pick_up(world, &intent) {
            Ok(found) => found,
            Err(refusal) => {
                refuse(world, &id, Action::PickUp, refusal);
                continue;
            }
        };
        let (kind, provokes) = row(128);
        spend(world, intent.creature, kind);
        let provoking = Provoking::new(intent.creature, Action::PickUp, "picking up an item (004:128)");
        if provokes && provoke_as(world, provoking).dropped {
            continue;
        }
        world.despawn(object);
        let (weapon, at) = (ground.name(), ground.at());
        match ground {
            Lying::Weapon(g) => take_in_hand(world, intent.creature, g.weapon),
            // A shield picked up is slung on its back, to be strapped on (our ruling).
            Lying::Shield(g) => {
                world.entity_mut(intent.creature).insert(g.shield);
            }
        }
        world.write_message(Fact::PickedUp { creature: id, weapon, at });
    }
}
