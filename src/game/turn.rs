//! Whose turn it is in the game and who plays it: a person's commands and the AI's go through
//! [`crate::rules::command::perform`] one at a time, each kept in [`super::state::History`] (what a saved
//! battle replays); starting again.

use bevy::prelude::*;

use crate::data::level::Control;
use crate::encounter::{ActiveEncounter, begin, spawn_encounter};
use crate::rules::command::Command;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::TurnOrder;

use super::state::*;

/// Frames between two steps of an AI turn, so a player can follow it.
pub const AI_PACE_FRAMES: u32 = 6;

/// The creature whose turn it is, if a person plays it: of a party acting together, the one commanded.
pub fn human_turn(world: &World) -> Option<Entity> {
    let order = world.resource::<TurnOrder>();
    if order.ended {
        return None;
    }
    let turn = (order.round, order.place_holder());
    let commanded = world
        .get_resource::<Commanded>()
        .filter(|c| c.turn == turn)
        .and_then(|c| c.who)
        .filter(|c| order.acting.contains(c));
    let current = commanded.or(order.current_entity())?;
    let faction = world.get::<Faction>(current)?;
    let controllers = world.get_resource::<Controllers>()?;
    (controllers.0.get(&faction.0).copied().unwrap_or_default() == Control::Human).then_some(current)
}

/// The creature that flies when `me` flies: the mount it directs as its rider (004:807), else itself.
pub fn flier_of(world: &World, me: Entity) -> Entity {
    crate::rules::mounted::directed_mount(world, me).unwrap_or(me)
}

/// The creature the cursor points at on `square`: the one whose token is under it (a rider on its mount,
/// one of several in a chase-scale square), else the one standing there.
pub fn pointed_at(world: &mut World, square: Square) -> Option<Entity> {
    let token = world.resource::<Hover>().token.filter(|e| {
        world.get::<Position>(*e).zip(world.get::<Space>(*e)).is_some_and(|(p, s)| s.at(p.0).contains(square))
    });
    token.or_else(|| creature_at(world, square))
}

/// The creature standing on `square`, if any.
pub fn creature_at(world: &mut World, square: Square) -> Option<Entity> {
    let mut q = kept::<(Entity, &Position, &Space, &Conditions), With<Creature>>(world);
    let mut found: Vec<(bool, bool, Entity)> = q
        .iter(world)
        .filter(|(_, p, s, _)| s.at(p.0).contains(square))
        .map(|(e, _, _, c)| (c.has(Condition::Dead), false, e))
        .collect();
    // Grapplers share a square (004:586): the one whose turn it is comes last, so a click finds its foe.
    let acting = world.resource::<crate::rules::turns::TurnOrder>().current_entity();
    for (_, mine, e) in &mut found {
        *mine = Some(*e) == acting;
    }
    // The living over the dead.
    found.sort();
    found.first().map(|(_, _, e)| *e)
}

pub(super) fn id_of(world: &World, entity: Entity) -> CreatureId {
    world.get::<CreatureId>(entity).cloned().unwrap_or_default()
}

/// A creature's name on the board (Goblin 1), its id if it has none.
pub(super) fn display_name(world: &World, creature: Entity) -> String {
    world
        .get::<Name>(creature)
        .map(|n| n.as_str().to_string())
        .or_else(|| world.get::<CreatureId>(creature).map(|c| c.0.clone()))
        .unwrap_or_default()
}

/// Carries out the next pending command, keeping it in the history.
fn apply_pending(world: &mut World) {
    let Some(command) = world.resource_mut::<Pending>().0.pop_front() else { return };
    if let Err(unknown) = crate::rules::command::perform(world, &command) {
        world.insert_resource(super::state::Notice(Some((true, unknown.to_string()))));
        return;
    }
    world.resource_mut::<History>().0.push(command);
}

/// The creature of a side the player plays that is delaying its turn, the one selected if it is one, else
/// the first in initiative order: it may act when the current turn ends (004:629-631).
pub fn delayed_of_the_player(world: &World) -> Result<CreatureId, Refusal> {
    let controllers = world.resource::<Controllers>();
    let selected = world.resource::<Selected>().0;
    // One that cannot act takes no special action to change its place (004:281).
    let able = |e: Entity| world.get::<Conditions>(e).is_some_and(Conditions::can_act);
    let mut delaying =
        world.resource::<TurnOrder>().entries.iter().filter(|e| e.delaying && able(e.entity)).filter(|e| {
            world.get::<Faction>(e.entity).is_some_and(|f| {
                controllers.0.get(&f.0).copied().unwrap_or_default() == crate::data::level::Control::Human
            })
        });
    // The one selected (a click on it on the board or in the tracker), else the first in the order.
    let first = delaying.next();
    first
        .into_iter()
        .chain(delaying)
        .find(|e| Some(e.entity) == selected)
        .or(first)
        .map(|e| e.id.clone())
        .ok_or_else(|| Refusal::new("none of your creatures is delaying", "004:629"))
}

/// The end of an AI creature's turn, held while a creature a person plays is delaying: « il peut agir
/// juste après le tour de n'importe quel autre personnage » (004:629-631), so the person says whether it
/// acts now, right after this turn, or keeps waiting. Without the pause the AI's turns would run past
/// every moment the delaying creature could have chosen.
#[derive(Resource, Default, Debug, Clone)]
pub struct DelayChoice {
    /// The end of turn held, and whose turn it ends.
    pub held: Option<(Command, Entity)>,
    /// The person said to keep waiting (Space or Enter): the end of turn goes on at the AI's next step.
    pub go_on: bool,
}

/// The person keeps its creature waiting: the held end of turn goes on.
pub fn keep_waiting(world: &mut World) {
    let mut choice = world.resource_mut::<DelayChoice>();
    choice.go_on = false;
    if let Some((step, _)) = choice.held.take() {
        world.resource_mut::<Pending>().0.push_back(step);
    }
}

/// The person's delaying creature acts now (004:629-631): its return is asked, then the held end of turn
/// goes on, and its turn comes next.
pub fn act_now_between_turns(world: &mut World, delayed: CreatureId) {
    world.resource_mut::<Pending>().0.push_back(Command::Resume { creature: delayed });
    keep_waiting(world);
}

/// Space or Enter keeps the delaying creature waiting when the AI's end of turn is held.
pub(super) fn delay_keys(keys: Res<ButtonInput<KeyCode>>, mut choice: ResMut<DelayChoice>) {
    if choice.held.is_some() && keys.any_just_pressed([KeyCode::Enter, KeyCode::Space]) {
        choice.go_on = true;
    }
}

/// The held end of turn goes on when the person said so or the hold lost its reason (no creature of a person
/// delays or can act any more); it is dropped when its turn is no longer the computer's current one (the
/// sides changed hands).
fn settle_the_hold(world: &mut World) {
    let Some((_, whose)) = world.resource::<DelayChoice>().held.clone() else { return };
    let its_turn = world.resource::<TurnOrder>().current_entity() == Some(whose) && human_turn(world).is_none();
    if !its_turn {
        *world.resource_mut::<DelayChoice>() = DelayChoice::default();
    } else if world.resource::<DelayChoice>().go_on || delayed_of_the_player(world).is_err() {
        keep_waiting(world);
    }
}

/// The AI plays the creature whose turn it is when its faction is the computer's.
pub fn play_ai(world: &mut World, mut waited: Local<u32>, mut steps: Local<(Option<(u32, Entity)>, u32)>) {
    settle_the_hold(world);
    if !world.resource::<Pending>().0.is_empty()
        || world.contains_resource::<Restart>()
        || world.resource::<DelayChoice>().held.is_some()
    {
        return;
    }
    let order = world.resource::<TurnOrder>();
    if order.ended {
        return;
    }
    let Some(current) = order.current_entity() else { return };
    let turn = (order.round, current);
    if human_turn(world).is_some() {
        return;
    }
    *waited += 1;
    if *waited < AI_PACE_FRAMES {
        return;
    }
    *waited = 0;
    if steps.0 != Some(turn) {
        *steps = (Some(turn), 0);
    }
    steps.1 += 1;
    // A turn never takes more than a handful of steps; past that the AI ends it.
    let step = if steps.1 > 8 {
        Command::EndTurn { creature: id_of(world, current) }
    } else {
        crate::ai::next_step(world, current)
    };
    if matches!(step, Command::EndTurn { .. }) && delayed_of_the_player(world).is_ok() {
        world.resource_mut::<DelayChoice>().held = Some((step, current));
        return;
    }
    world.resource_mut::<Pending>().0.push_back(step);
}

/// Starts the battle again (restart, a new level, a loaded save), then queues the steps to replay.
fn restart(world: &mut World) {
    let Some(Restart { replay }) = world.remove_resource::<Restart>() else { return };
    let Some(ActiveEncounter(encounter)) = world.get_resource::<ActiveEncounter>().cloned() else { return };
    let seed = world.get_resource::<Seed>().map_or(0, |s| s.0);
    spawn_encounter(world, &encounter, seed, &[]);
    begin(world, &encounter.name, seed);
    world.insert_resource(History::default());
    world.insert_resource(Pending(replay.into()));
    world.insert_resource(Choice::default());
    world.insert_resource(DelayChoice::default());
}

pub(super) fn plugin(app: &mut App) {
    // `hand_over` and `hand_over_keys` are ordered in the game's plugin, which sees the systems they follow.
    app.init_resource::<HandOver>().init_resource::<DelayChoice>();
    app.add_systems(Update, (restart, apply_pending).chain().in_set(super::ViewSystems::Play));
    app.add_systems(Update, play_ai.in_set(super::ViewSystems::Think));
}

/// Hot-seat: when the turn passes to a side played by a person other than the one who played last, the
/// board is hidden until the next player says they are at the screen, so that no one sees the other's
/// turn begin.
#[derive(Resource, Default, Debug, Clone)]
pub struct HandOver {
    /// The side the screen waits to be handed to.
    pub to: Option<String>,
    /// The side a person played last.
    last: Option<String>,
}

/// Enter or Space shows the board to the next player (after the action keys, which the screen held back:
/// the Enter that hands over ends no turn).
pub(super) fn hand_over_keys(keys: Res<ButtonInput<KeyCode>>, mut hand: ResMut<HandOver>) {
    if hand.to.is_some() && keys.any_just_pressed([KeyCode::Enter, KeyCode::Space]) {
        hand.to = None;
    }
}

/// Notices a turn passing from one person's side to another's.
pub(super) fn hand_over(world: &mut World) {
    let people = world.resource::<Controllers>().0.values().filter(|c| **c == Control::Human).count();
    let Some(me) = human_turn(world) else { return };
    let Some(side) = world.get::<Faction>(me).map(|f| f.0.clone()) else { return };
    let mut hand = world.resource_mut::<HandOver>();
    if hand.last.as_ref() != Some(&side) {
        if people >= 2 {
            hand.to = Some(side.clone());
        }
        hand.last = Some(side);
    }
}
