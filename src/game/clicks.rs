//! The mouse on the board: the square and token under the cursor, and a click turned into the command the
//! mode and the previews say.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

use super::square_of;
use crate::encounter::ActiveEncounter;
use crate::preview::{charge_lanes, move_options_as};
use crate::rules::command::Command;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::Square;
use crate::rules::movement::MovementAction;
use crate::rules::turns::moving::ChargeFinish;
use crate::rules::turns::ready::{ReadiedAction, Trigger};

use super::actions::*;
use super::previews::*;
use super::state::*;
use super::turn::*;

/// An overrun of the foe clicked: from next to it, or at the end of a charge that brings it there
/// (004:533-534).
fn overrun_step(
    world: &mut World,
    (me, my_id): (Entity, CreatureId),
    (there, target): (Entity, CreatureId),
) -> Command {
    match crate::rules::special::overrun::charge_to_overrun(world, me, there) {
        Some(to) => {
            Command::Charge { creature: my_id, target, to: Some(to), finish: ChargeFinish::Overrun, weapon: None }
        }
        None => Command::Overrun { creature: my_id, target },
    }
}

/// What a click on a foe asks for in `choice`'s mode: a special attack, a charge, or an attack.
fn step_on_foe(
    world: &mut World,
    choice: &Choice,
    (me, my_id): (Entity, CreatureId),
    (there, target): (Entity, CreatureId),
) -> Command {
    match choice.mode {
        Mode::Trip => Command::Trip { creature: my_id, target, weapon: None },
        Mode::Disarm => Command::Disarm { creature: my_id, target, weapon: choice.weapon.clone(), object: None },
        Mode::Snatch => snatch_step(world, (me, my_id), (there, target)),
        Mode::Sunder | Mode::SunderShield => Command::Sunder {
            creature: my_id,
            target,
            weapon: choice.weapon.clone(),
            shield: choice.mode == Mode::SunderShield,
            object: None,
        },
        // A blow at the first object it carries, by the object's AC (004:504).
        Mode::SunderObject => {
            let object = world.get::<Armament>(there).and_then(|armament| {
                crate::rules::special::disarm::carried_objects(world.get::<Items>(there), armament).into_iter().next()
            });
            Command::Sunder { creature: my_id, target, weapon: choice.weapon.clone(), shield: false, object }
        }
        Mode::Grapple(action) => Command::Grapple { creature: my_id, target: Some(target), action, to: None },
        // The other kind of damage than the weapon's: lethal with an unarmed strike (004:173).
        Mode::CoupDeGrace => {
            Command::CoupDeGrace { creature: my_id, target, weapon: choice.weapon.clone(), lethal: choice.other_damage }
        }
        Mode::Overrun => overrun_step(world, (me, my_id), (there, target)),
        Mode::BullRush => {
            let stay = choice.stay;
            match crate::preview::bull_rush_preview(world, me, there, stay).ok().and_then(|p| p.charge_to) {
                Some(to) => Command::Charge {
                    creature: my_id,
                    target,
                    to: Some(to),
                    finish: ChargeFinish::BullRush { stay },
                    weapon: None,
                },
                // Next to it, or refused with the rule that forbids it.
                None => Command::BullRush { creature: my_id, target, stay },
            }
        }
        Mode::Feint => Command::Feint { creature: my_id, target },
        Mode::Aid(kind) => {
            let prefer = world.resource::<Selected>().0;
            let ally = crate::preview::aid_preview(world, me, there, prefer).map_or(me, |a| a.ally);
            Command::Aid { creature: my_id, ally: id_of(world, ally), foe: target, kind }
        }
        Mode::Charge => {
            let weapon = super::previews::charge_weapon_choice(world, me, choice);
            let to = charge_lanes(world, (me, weapon.as_deref()), there).ok().and_then(|mut lanes| {
                super::previews::chosen_lane_first(world, &mut lanes);
                lanes.first().map(|l| l.to)
            });
            Command::Charge { creature: my_id, target, to, finish: ChargeFinish::Attack, weapon }
        }
        mode => Command::Attack {
            creature: my_id,
            target,
            weapon: choice.weapon.clone(),
            defensively: choice.defensively,
            full: mode == Mode::FullAttack,
            // The other kind of damage than the weapon's, at -4 (004:173, 004:302).
            lethal: choice.other_damage,
            nonlethal: choice.other_damage,
            power: choice.power,
            // A full attack uses the off-hand weapon too when the creature holds one (004:462).
            two_weapons: mode == Mode::FullAttack
                && world.get::<Armament>(me).zip(world.get::<Feats>(me)).is_some_and(|(a, f)| {
                    crate::rules::attack::with_two_weapons(a, f, choice.weapon.as_deref(), choice.two_weapons)
                }),
            // One blow a click: after the first the player may give up the rest to move (004:232).
            blows: (mode == Mode::FullAttack).then_some(1),
        },
    }
}

/// A snatch of the first object `there` carries: an unarmed disarm (004:497).
fn snatch_step(world: &mut World, (me, my_id): (Entity, CreatureId), (there, target): (Entity, CreatureId)) -> Command {
    let object = crate::preview::snatch_preview(world, me, there).ok().and_then(|p| p.object);
    Command::Disarm { creature: my_id, target, weapon: Some("unarmed strike".into()), object }
}

/// The step a left click on `square` asks for, if any.
pub fn click_step(world: &mut World, square: Square) -> Option<Command> {
    let me = human_turn(world)?;
    let choice = world.resource::<Choice>().clone();
    let my_id = id_of(world, me);
    // Turning reaches every undead in range at once (004:542): a click anywhere turns.
    if let Mode::Turn(kind) = choice.mode {
        return Some(Command::TurnUndead { creature: my_id, kind });
    }
    // A splash weapon: at the creature clicked, else at the intersection nearest the click (004:529).
    if choice.mode == Mode::Throw {
        let target = pointed_at(world, square).filter(|t| *t != me).map(|t| id_of(world, t));
        let corner = world.resource::<Hover>().corner.filter(|_| target.is_none()).map(|c| (c.x, c.y));
        return Some(Command::Throw { creature: my_id, target, corner, weapon: choice.weapon.clone() });
    }
    if let Some(there) = pointed_at(world, square)
        && choice.mode == Mode::Breath
        && there != me
    {
        return Some(Command::Breathe { creature: my_id, toward: id_of(world, there) });
    }
    if let Some(there) = pointed_at(world, square)
        && choice.mode == Mode::Cast
    {
        let spell = choice.spell.clone()?;
        return Some(Command::Cast {
            creature: my_id,
            spell,
            target: Some(id_of(world, there)),
            defensively: choice.defensively,
            // Shift+click: between two moves of its mount (004:480).
            between_moves: world
                .get_resource::<ButtonInput<KeyCode>>()
                .is_some_and(|k| k.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight])),
        });
    }
    if choice.mode == Mode::Ready {
        return ready_step(world, me, &choice, square);
    }
    // The charge of a touch spell held goes to the creature clicked, friend or foe (004:200).
    if choice.mode == Mode::Touch {
        let touched = pointed_at(world, square).filter(|t| *t != me)?;
        return Some(Command::Touch { creature: my_id, target: id_of(world, touched) });
    }
    // The undead clicked is released from the cleric's command (004:566).
    if choice.mode == Mode::Release {
        let undead = pointed_at(world, square).filter(|t| *t != me)?;
        return Some(Command::Release { creature: my_id, undead: id_of(world, undead) });
    }
    // First aid tends the creature clicked, a friend (004:283).
    if choice.mode == Mode::FirstAid {
        let patient = pointed_at(world, square).filter(|t| *t != me)?;
        return Some(Command::FirstAid { creature: my_id, target: id_of(world, patient) });
    }
    if let Some(there) = pointed_at(world, square) {
        // A flier that declared a hover stays where it is by a click on itself (004:708).
        if (there == me || there == flier_of(world, me))
            && choice.speed == Some(crate::rules::core::names::SpeedStatus::Hover)
            && let Some(flights) = flights_of(world, me, &choice)
        {
            let origin = world.get::<Position>(flier_of(world, me))?.0;
            return flights.get(&origin).map(|planned| planned_step(world, me, planned, None, &choice));
        }
        if there == me || world.get::<Faction>(there) == world.get::<Faction>(me) {
            return None;
        }
        let target = id_of(world, there);
        return Some(step_on_foe(world, &choice, (me, my_id), (there, target)));
    }
    // A grapple moved to the square clicked (004:602).
    if choice.mode == Mode::Grapple(crate::rules::special::grapple::GrappleMove::Move) {
        let action = crate::rules::special::grapple::GrappleMove::Move;
        return Some(Command::Grapple { creature: my_id, target: None, action, to: Some(square) });
    }
    // A flier in the air flies to the square, by the flight the preview shows; a rider's mount flies.
    if let Some(flights) = flights_of(world, me, &choice) {
        return flights.get(&square).map(|planned| planned_step(world, me, planned, None, &choice));
    }
    let options = move_options_as(world, me, choice.tumble);
    let (action, path) = match path_for(world, me, &choice, &options, square)? {
        Ok(path) => (path.action, Some(path.squares)),
        // Refused moves are still sent: the rules refuse them in the log, naming the rule.
        Err(_) => match choice.mode {
            Mode::Move(a) => (a, None),
            _ => (MovementAction::Move, None),
        },
    };
    // A tumble when the player asked for one (000:78-79).
    Some(if choice.tumble {
        Command::Tumble { creature: my_id, to: square, action, path }
    } else {
        Command::Move { creature: my_id, to: square, action, path }
    })
}

/// A click in ready mode (004:620-622). On another creature: ready the chosen action for when it acts (an
/// attack or a spell goes at it unless the action names its own target). On the readier itself: for when a
/// foe starts casting, at the caster (004:621, to spoil its spell, 004:196). On any other square: a readied
/// move takes the square as its end; a readied attack waits for the first foe to step into reach.
fn ready_step(world: &mut World, me: Entity, choice: &Choice, square: Square) -> Option<Command> {
    let creature = id_of(world, me);
    let on_itself = pointed_at(world, square) == Some(me);
    let there = pointed_at(world, square).filter(|&t| t != me);
    let action = match &choice.readying {
        None => ReadiedAction::Attack { target: None, weapon: choice.weapon.clone() },
        Some(Readying::Action(action)) => action.clone(),
        Some(Readying::MoveTo(Some(to))) => ReadiedAction::Move { to: *to },
        Some(Readying::MoveTo(None)) => {
            // The move's square first; the creature whose action sets it off next.
            if there.is_none() && !on_itself {
                world.resource_mut::<Choice>().readying = Some(Readying::MoveTo(Some(square)));
            }
            return None;
        }
    };
    if on_itself {
        return Some(Command::Ready { creature, action, trigger: Trigger::StartsCasting });
    }
    let Some(there) = there else {
        return matches!(action, ReadiedAction::Attack { .. }).then_some(Command::Ready {
            creature,
            action,
            trigger: Trigger::EntersThreatened,
        });
    };
    let trigger = id_of(world, there);
    let action = match action {
        // An attack readied on an ally's acting would strike the ally: not offered.
        ReadiedAction::Attack { .. } if world.get::<Faction>(there) == world.get::<Faction>(me) => return None,
        ReadiedAction::Attack { target: None, weapon } => {
            ReadiedAction::Attack { target: Some(trigger.clone()), weapon }
        }
        ReadiedAction::Cast { spell, target: None } => ReadiedAction::Cast { spell, target: Some(trigger.clone()) },
        action => action,
    };
    Some(Command::Ready { creature, action, trigger: Trigger::Acts(trigger) })
}

/// Left click: act on the square; right click: add or remove a waypoint.
pub(super) fn clicks(world: &mut World) {
    let (left, right) = {
        let buttons = world.resource::<ButtonInput<MouseButton>>();
        (buttons.just_pressed(MouseButton::Left), buttons.just_pressed(MouseButton::Right))
    };
    if !(left || right) {
        return;
    }
    if world.get_resource::<EguiWantsInput>().is_some_and(|w| w.wants_any_pointer_input())
        || world.get_resource::<super::turn::HandOver>().is_some_and(|h| h.to.is_some())
    {
        return;
    }
    let Some(square) = world.resource::<Hover>().square else { return };
    if right {
        let mut choice = world.resource_mut::<Choice>();
        if let Some(i) = choice.waypoints.iter().position(|w| *w == square) {
            choice.waypoints.remove(i);
        } else {
            choice.waypoints.push(square);
        }
        return;
    }
    click(world, square);
}

/// What a left click on `square` does: an action of the creature whose turn it is, a flyby attack chosen,
/// or a creature selected.
pub fn click(world: &mut World, square: Square) {
    // A flier in the air clicking a foe flies beside it and strikes, or dives on it (004:753).
    if let Some(steps) = flier_strike(world, square) {
        world.resource_mut::<Pending>().0.extend(steps);
        flown(&mut world.resource_mut::<Choice>());
        return;
    }
    if let Some(me) = human_turn(world) {
        let mode = world.resource::<Choice>().mode;
        let there = pointed_at(world, square);
        // Flyby mode: the foe struck on the way first, then the end of the flight (004:755).
        if mode == Mode::Flyby {
            if world.resource::<Choice>().flyby.is_some() {
                if let Some(step) = flight_step(world, me, square) {
                    world.resource_mut::<Pending>().0.push_back(step);
                    flown(&mut world.resource_mut::<Choice>());
                }
            } else if let Some(foe) = there
                && let Ok(point) = flyby_point(world, me, foe)
            {
                world.resource_mut::<Choice>().flyby = Some(point);
            }
            return;
        }
        // Bluff mode: the pursuer first, then the flight that turns into a cloud or dives away (004:818).
        if mode == Mode::Bluff && world.resource::<Choice>().bluff.is_none() {
            if let Some(foe) = there.filter(|f| world.get::<Faction>(*f) != world.get::<Faction>(me)) {
                world.resource_mut::<Choice>().bluff = Some(foe);
            }
            return;
        }
        if mode == Mode::Bluff {
            if let Some(step) = flight_step(world, me, square) {
                world.resource_mut::<Pending>().0.push_back(step);
                flown(&mut world.resource_mut::<Choice>());
            }
            return;
        }
        if mode == Mode::Ram {
            if let Some(foe) = there
                && let Ok((_, step)) = ram_flight(world, me, foe)
            {
                world.resource_mut::<Pending>().0.push_back(step);
                flown(&mut world.resource_mut::<Choice>());
            }
            return;
        }
    }
    // A walk or a charge that provokes waits for a second click on the same square (super::declare).
    if let Some(steps) = approach_steps(world, square) {
        let why = super::declare::why_moving(world, &steps);
        if super::declare::submit(world, steps, why) {
            world.resource_mut::<Choice>().waypoints.clear();
        }
        return;
    }
    if let Some(step) = click_step(world, square) {
        // A full attack goes on blow by blow: the mode stays until the player changes it.
        let keep = matches!(step, Command::Attack { full: true, .. });
        let flew = matches!(step, Command::Fly { .. });
        let why = super::declare::why_acting(world, std::slice::from_ref(&step));
        if !super::declare::submit(world, vec![step], why) {
            return;
        }
        let mut choice = world.resource_mut::<Choice>();
        choice.waypoints.clear();
        choice.readying = None;
        if flew {
            flown(&mut choice);
        }
        if !keep {
            choice.mode = Mode::Auto;
        }
    } else if let Some(creature) = pointed_at(world, square) {
        world.insert_resource(Selected(Some(creature)));
    }
}

/// A click in the automatic mode on a foe out of reach: the compound action its preview showed, a walk
/// within reach then the blow, or a charge.
fn approach_steps(world: &mut World, square: Square) -> Option<Vec<Command>> {
    let me = human_turn(world)?;
    let choice = world.resource::<Choice>().clone();
    let approach = world.resource::<super::state::Previews>().approach.clone()?;
    let there = pointed_at(world, square)?;
    let (my_id, target) = (id_of(world, me), id_of(world, there));
    match approach {
        super::state::Approach::MoveThenAttack { foe, to, action, path } if foe == there => {
            let walk = if choice.tumble {
                Command::Tumble { creature: my_id.clone(), to, action, path: Some(path) }
            } else {
                Command::Move { creature: my_id.clone(), to, action, path: Some(path) }
            };
            let blow = step_on_foe(world, &choice, (me, my_id), (there, target));
            Some(vec![walk, blow])
        }
        super::state::Approach::Charge { foe, to, finish } if foe == there => {
            // A trip takes its trip weapon or goes unarmed, not the weapon chosen for blows (004:483).
            let weapon =
                super::previews::charge_weapon_choice(world, me, &choice).filter(|_| finish != ChargeFinish::Trip);
            Some(vec![Command::Charge { creature: my_id, target, to: Some(to), finish, weapon }])
        }
        _ => None,
    }
}

/// After a flight the choices made for it are spent: climbs, declared speed, manoeuvres, the mode.
fn flown(choice: &mut Choice) {
    choice.climb = 0;
    choice.speed = None;
    choice.decelerate = false;
    choice.flyby = None;
    choice.bluff = None;
    choice.mode = Mode::Auto;
}

/// The square under the cursor, from the window's cursor through the camera.
pub fn cursor_square(window: &Window, camera: &Camera, transform: &GlobalTransform, map_height: i32) -> Option<Square> {
    let cursor = window.cursor_position()?;
    let world = camera.viewport_to_world_2d(transform, cursor).ok()?;
    Some(square_of(world, map_height))
}

/// Tracks the hovered square.
pub(super) fn track_hover(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    encounter: Option<Res<ActiveEncounter>>,
    wants: Option<Res<EguiWantsInput>>,
    tokens: Query<(&super::tokens::Token, &Transform)>,
    sizes: Query<&Size>,
    mut hover: ResMut<Hover>,
) {
    let Some(encounter) = encounter else { return };
    let field = &encounter.0.battlefield;
    let over_ui = wants.is_some_and(|w| w.is_pointer_over_area());
    let square = if over_ui { None } else { cursor_square(&window, camera.0, camera.1, field.height()) }
        .filter(|s| s.x >= 0 && s.y >= 0 && s.x < field.width() && s.y < field.height());
    // The topmost token whose disc is under the cursor.
    let point = window.cursor_position().and_then(|c| camera.0.viewport_to_world_2d(camera.1, c).ok());
    let token = point.filter(|_| square.is_some()).and_then(|point| {
        tokens
            .iter()
            .filter(|(token, transform)| {
                let side =
                    sizes.get(token.creature).map_or(super::TILE_PX, |s| super::tokens::token_side(field.scale(), *s));
                transform.translation.truncate().distance(point) <= side * 0.46 * transform.scale.x
            })
            .max_by(|a, b| a.1.translation.z.total_cmp(&b.1.translation.z).then(b.0.creature.cmp(&a.0.creature)))
            .map(|(token, _)| token.creature)
    });
    // The corner of the hovered square nearest the cursor (world y grows northward).
    let corner = square.zip(point).map(|(square, point)| {
        let centre = super::square_centre(square, field.height());
        crate::rules::core::geometry::Corner {
            x: square.x + i32::from(point.x > centre.x),
            y: square.y + i32::from(point.y < centre.y),
        }
    });
    if hover.square != square || hover.token != token || hover.corner != corner {
        hover.square = square;
        hover.token = token;
        hover.corner = corner;
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, track_hover.after(super::input::zoom_camera).in_set(super::ViewSystems::Pointer));
    app.add_systems(
        Update,
        clicks.after(keys).in_set(super::ViewSystems::Input).run_if(in_state(super::state::AppState::Battle)),
    );
}
