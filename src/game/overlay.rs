//! What the previews draw on the board: the squares the active creature can reach shaded by the action
//! they need, the path to the square under the cursor with its running cost, a marker on each step that
//! provokes naming who would strike, the waypoints, the charge lanes, the foes' threatened squares, the
//! outline of the hovered square and of the active creature.

use super::state::{Choice, Previews};
use super::{TILE_PX, ViewSystems, square_centre};
use crate::encounter::ActiveEncounter;
use crate::rules::core::creature::{Position, Space};
use crate::rules::core::geometry::{Footprint, Square, squares_to_metres};
use crate::rules::movement::MovementAction;
use bevy::prelude::*;

use super::state::AppState;

/// A sprite drawn by the previews, redrawn whenever they change.
#[derive(Component)]
#[require(DespawnOnExit<AppState> = DespawnOnExit(AppState::Battle))]
pub struct Overlay;

const Z_SHADE: f32 = 3.0;
const Z_PATH: f32 = 30.0;
const Z_TEXT: f32 = 40.0;

/// The colour a square is shaded with for the action that reaches it: the Okabe-Ito colours, told apart
/// by players with any colour vision, none of them the threat's red (threatened squares are hatched and
/// outlined, not filled, so that a fill under them keeps its colour).
pub fn action_colour(action: MovementAction) -> Color {
    match action {
        MovementAction::FiveFootStep => Color::srgba_u8(0, 158, 115, 110),
        MovementAction::Move => Color::srgba_u8(86, 180, 233, 80),
        MovementAction::DoubleMove => Color::srgba_u8(240, 228, 66, 62),
        MovementAction::Run => Color::srgba_u8(204, 121, 167, 80),
        MovementAction::Withdraw => Color::srgba_u8(0, 114, 178, 90),
        MovementAction::Charge => Color::srgba_u8(230, 159, 0, 110),
        MovementAction::MinimumMovement => Color::srgba_u8(200, 200, 200, 80),
        MovementAction::Crawl => Color::srgba_u8(0, 158, 115, 80),
    }
}

/// The colour of a flight's end square for the status it flies at.
pub fn status_colour(status: crate::rules::core::names::SpeedStatus) -> Color {
    use crate::rules::core::names::SpeedStatus;
    match status {
        SpeedStatus::Slow | SpeedStatus::Hover => action_colour(MovementAction::Move),
        SpeedStatus::Fast => action_colour(MovementAction::DoubleMove),
        SpeedStatus::TopSpeed => action_colour(MovementAction::Run),
        SpeedStatus::Stall | SpeedStatus::FreeFall => Color::srgba_u8(213, 94, 0, 90),
    }
}

/// The mark of a step that provokes.
pub const PROVOKES: Color = Color::srgb(0.9, 0.1, 0.1);

/// The threat's red: the hatching and the outline of the squares foes threaten.
pub const THREAT: Color = Color::srgba(0.9, 0.12, 0.12, 0.75);

/// The squares foes threaten (004:64): each hatched with three diagonal strokes, and the region's border
/// drawn, so that the threat reads over any fill and without telling red from other colours.
fn hatch_threats(commands: &mut Commands, threatened: &[Square], height: i32) {
    let set: std::collections::HashSet<Square> = threatened.iter().copied().collect();
    let across = std::f32::consts::SQRT_2 * TILE_PX;
    let perpendicular = Vec2::new(1.0, 1.0).normalize();
    for square in threatened {
        let centre = square_centre(*square, height);
        // Chords of the square along its diagonal, at 0 and ±22 units from the centre.
        for offset in [-22.0f32, 0.0, 22.0] {
            let length = across - 2.0 * offset.abs();
            commands.spawn((
                Overlay,
                Sprite::from_color(THREAT.with_alpha(0.5), Vec2::new(length, 3.0)),
                Transform::from_translation((centre + perpendicular * offset).extend(Z_SHADE + 0.5))
                    .with_rotation(Quat::from_rotation_z(-std::f32::consts::FRAC_PI_4)),
            ));
        }
        for (dx, dy) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
            if set.contains(&Square::new(square.x + dx, square.y + dy)) {
                continue;
            }
            // Screen y grows upward while rows grow southward.
            let at = centre + Vec2::new(dx as f32, -dy as f32) * (TILE_PX / 2.0 - 1.5);
            let size = if dx == 0 { Vec2::new(TILE_PX, 3.0) } else { Vec2::new(3.0, TILE_PX) };
            commands.spawn((
                Overlay,
                Sprite::from_color(THREAT, size),
                Transform::from_translation(at.extend(Z_SHADE + 0.6)),
            ));
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, redraw.after(super::tokens::remove_orphan_tokens).in_set(ViewSystems::Sync));
}

fn outline(commands: &mut Commands, footprint: Footprint, height: i32, colour: Color, width: f32, z: f32) {
    let nw = square_centre(footprint.origin, height) + Vec2::new(-TILE_PX / 2.0, TILE_PX / 2.0);
    let (w, h) = (footprint.width as f32 * TILE_PX, footprint.height as f32 * TILE_PX);
    let sides = [
        (nw + Vec2::new(w / 2.0, 0.0), Vec2::new(w, width)),
        (nw + Vec2::new(w / 2.0, -h), Vec2::new(w, width)),
        (nw + Vec2::new(0.0, -h / 2.0), Vec2::new(width, h)),
        (nw + Vec2::new(w, -h / 2.0), Vec2::new(width, h)),
    ];
    for (at, size) in sides {
        commands.spawn((Overlay, Sprite::from_color(colour, size), Transform::from_translation(at.extend(z))));
    }
}

fn shade(commands: &mut Commands, square: Square, height: i32, colour: Color, inset: f32, z: f32) {
    commands.spawn((
        Overlay,
        Sprite::from_color(colour, Vec2::splat(TILE_PX - inset)),
        Transform::from_translation(square_centre(square, height).extend(z)),
    ));
}

fn label(commands: &mut Commands, text: String, at: Vec2, colour: Color, size: f32) {
    commands.spawn((
        Overlay,
        Text2d::new(text),
        TextFont { font_size: FontSize::Px(size), ..default() },
        TextColor(colour),
        Transform::from_translation(at.extend(Z_TEXT)),
    ));
}

/// A red `!` on each step of a move that provokes, with the names of those who would strike (004:64-71).
fn mark_provocations(
    commands: &mut Commands,
    provocations: &[crate::preview::Provoking],
    height: i32,
    creatures: &Query<(&Position, &Space, &Name)>,
) {
    for provocation in provocations {
        let at = square_centre(provocation.square, height);
        commands.spawn((
            Overlay,
            Sprite::from_color(PROVOKES, Vec2::splat(22.0)),
            Transform::from_translation(at.extend(Z_PATH + 1.0)),
        ));
        label(commands, "!".into(), at, Color::WHITE, 18.0);
        let names: Vec<String> = provocation
            .from
            .iter()
            .filter_map(|e| creatures.get(*e).ok())
            .map(|(_, _, name)| name.to_string())
            .collect();
        label(
            commands,
            crate::tr!("overlay-aoo", who = names.join(", ")),
            at + Vec2::new(0.0, -TILE_PX * 0.32),
            Color::srgb(1.0, 0.75, 0.7),
            13.0,
        );
    }
}

/// A flight from `start`: a line through its waypoints with the squares spent at each, an arrow along the
/// heading at its end, and its status, length and end at the last.
fn draw_flight(
    commands: &mut Commands,
    (planned, start): (&crate::rules::aerial::planner::PlannedFlight, Option<Square>),
    height: i32,
    scale: crate::rules::core::altitude::Scale,
) {
    let colour = status_colour(planned.flight.status).with_alpha(0.95);
    let waypoints = &planned.flight.waypoints;
    // The flight as one line from square to square, an arrow along the heading at its end.
    let mut from = start.map(|s| square_centre(s, height));
    for waypoint in waypoints {
        let to = square_centre(waypoint.square, height);
        if let Some(from) = from.filter(|f| f.distance(to) > 1.0) {
            let along = to - from;
            commands.spawn((
                Overlay,
                Sprite::from_color(colour, Vec2::new(along.length(), 5.0)),
                Transform::from_translation(((from + to) / 2.0).extend(Z_PATH - 0.5))
                    .with_rotation(Quat::from_rotation_z(along.y.atan2(along.x))),
            ));
        }
        from = Some(to);
    }
    if let Some(last) = waypoints.last() {
        let (dx, dy) = last.heading.delta();
        let ahead = Vec2::new(dx as f32, -dy as f32).normalize_or_zero();
        let tip = square_centre(last.square, height) + ahead * TILE_PX * 0.45;
        for side in [-1.0f32, 1.0] {
            let back = Vec2::from_angle(side * 2.6).rotate(ahead) * 16.0;
            commands.spawn((
                Overlay,
                Sprite::from_color(colour, Vec2::new(16.0, 5.0)),
                Transform::from_translation((tip + back / 2.0).extend(Z_PATH))
                    .with_rotation(Quat::from_rotation_z(back.y.atan2(back.x))),
            ));
        }
    }
    for (i, waypoint) in waypoints.iter().enumerate() {
        let at = square_centre(waypoint.square, height);
        commands.spawn((
            Overlay,
            Sprite::from_color(colour, Vec2::splat(12.0)),
            Transform::from_translation(at.extend(Z_PATH)),
        ));
        // A turn in place: the square's running cost once, after its last step.
        if waypoints.get(i + 1).is_none_or(|next| next.square != waypoint.square) {
            label(commands, waypoint.spent.to_string(), at + Vec2::new(14.0, -14.0), Color::WHITE, 12.0);
        }
    }
    if let Some(last) = planned.flight.waypoints.last() {
        let at = square_centre(last.square, height) + Vec2::new(0.0, TILE_PX * 0.28);
        let odds = if planned.flight.checks.is_empty() {
            String::new()
        } else {
            crate::tr!("overlay-flight-checks", chance = format!("{:.0}", planned.chance * 100.0))
        };
        let text = crate::tr!(
            "overlay-flight",
            status = super::speed_words(planned.flight.status),
            spent = planned.flight.spent,
            maneuvers = planned.flight.maneuvers,
            altitude = scale.altitude_label(last.altitude),
            heading = super::heading_words(last.heading),
            odds = odds
        );
        label(commands, text, at, Color::WHITE, 15.0);
    }
    // Where a fly check is needed: the manoeuvre and its DC at its step (004:750-780).
    let mut placed: Vec<Square> = Vec::new();
    for check in &planned.flight.checks {
        if let Some(waypoint) = planned.flight.waypoints.iter().find(|w| w.step == check.step) {
            // Two checks in one square (a turn in place after another) one under the other.
            let below = placed.iter().filter(|s| **s == waypoint.square).count() as f32;
            placed.push(waypoint.square);
            let at = square_centre(waypoint.square, height) + Vec2::new(0.0, -TILE_PX * (0.3 + 0.2 * below));
            // The board's font has no degree sign.
            let text = format!("{} DC {}", check.maneuver.name().replace('°', " deg"), check.dc);
            label(commands, text, at, Color::srgb(1.0, 0.8, 0.3), 12.0);
        }
    }
}

#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource it reads")]
#[expect(clippy::too_many_lines, reason = "draws the overlay layers in the order they stack")]
pub fn redraw(
    mut commands: Commands,
    previews: Res<Previews>,
    choice: Res<Choice>,
    hover: Res<super::state::Hover>,
    selected: Res<super::state::Selected>,
    encounter: Option<Res<ActiveEncounter>>,
    old: Query<Entity, With<Overlay>>,
    creatures: Query<(&Position, &Space, &Name)>,
    ground: Query<&crate::rules::attack::gear::GroundWeapon>,
    shields: Query<&crate::rules::attack::gear::GroundShield>,
    mut drawn: Local<u64>,
) {
    let Some(encounter) = encounter else { return };
    if *drawn == previews.generation && !encounter.is_changed() && !selected.is_changed() {
        return;
    }
    *drawn = previews.generation;
    for entity in &old {
        commands.entity(entity).despawn();
    }
    let height = encounter.0.battlefield.height();
    // A weapon on the ground: a blade across the bottom of its square, and its name (004:494).
    for lying in &ground {
        let at = square_centre(lying.at, height) + Vec2::new(0.0, -TILE_PX * 0.3);
        commands.spawn((
            Overlay,
            Sprite::from_color(Color::srgb(0.85, 0.85, 0.9), Vec2::new(TILE_PX * 0.6, 5.0)),
            Transform::from_translation(at.extend(Z_PATH)).with_rotation(Quat::from_rotation_z(0.5)),
        ));
        label(&mut commands, lying.weapon.name.clone(), at + Vec2::new(0.0, -8.0), Color::srgb(0.95, 0.9, 0.75), 11.0);
    }
    // A shield on the ground: a round boss on its square, and its name (004:221).
    for lying in &shields {
        let at = square_centre(lying.at, height) + Vec2::new(0.0, TILE_PX * 0.28);
        commands.spawn((
            Overlay,
            Sprite::from_color(Color::srgb(0.6, 0.62, 0.7), Vec2::new(TILE_PX * 0.3, TILE_PX * 0.22)),
            Transform::from_translation(at.extend(Z_PATH)),
        ));
        label(
            &mut commands,
            lying.shield.kind.name().to_string(),
            at + Vec2::new(0.0, 8.0),
            Color::srgb(0.85, 0.88, 0.95),
            11.0,
        );
    }
    hatch_threats(&mut commands, &previews.threatened, height);
    if let Some(me) = previews.active {
        for (square, (action, _)) in &previews.options.squares {
            shade(&mut commands, *square, height, action_colour(*action), 6.0, Z_SHADE);
        }
        // A flier in the air: where its flight can end, by the status it would fly at (004:689-695).
        for (square, planned) in previews.flights.iter().flatten() {
            shade(&mut commands, *square, height, status_colour(planned.flight.status), 6.0, Z_SHADE);
        }
        // The flight to the hovered square, or the one a flyby or a collision with the hovered creature would
        // fly (004:751-758).
        let manoeuvre = previews.manoeuvre.as_ref().and_then(|m| m.as_ref().ok());
        let to_hovered = hover.square.and_then(|s| previews.flights.as_ref().and_then(|f| f.get(&s)));
        if let Some(planned) = manoeuvre.or(to_hovered) {
            let start = creatures.get(me).ok().map(|(position, ..)| position.0);
            draw_flight(&mut commands, (planned, start), height, encounter.0.battlefield.scale());
        }
        if let Some(at) = choice.flyby.as_ref().and_then(|p| p.at()) {
            let gold = Color::srgb(1.0, 0.8, 0.1);
            outline(&mut commands, Footprint::new(at, 1), height, gold, 4.0, Z_PATH + 1.0);
            label(
                &mut commands,
                "strike".into(),
                square_centre(at, height) + Vec2::new(0.0, -TILE_PX * 0.3),
                gold,
                13.0,
            );
        }
        if let Ok((position, space, _)) = creatures.get(me) {
            outline(&mut commands, space.at(position.0), height, Color::srgb(1.0, 0.85, 0.2), 4.0, Z_PATH);
        }
    }
    for (i, waypoint) in choice.waypoints.iter().enumerate() {
        let at = square_centre(*waypoint, height);
        commands.spawn((
            Overlay,
            Sprite::from_color(Color::srgb(0.3, 0.5, 1.0), Vec2::splat(18.0)),
            Transform::from_translation(at.extend(Z_PATH)).with_rotation(Quat::from_rotation_z(0.785)),
        ));
        label(&mut commands, format!("{}", i + 1), at, Color::WHITE, 13.0);
    }
    if let Some(Ok(path)) = &previews.path {
        let colour = action_colour(path.action).with_alpha(0.95);
        for step in &path.route.steps {
            let at = square_centre(step.square, height);
            commands.spawn((
                Overlay,
                Sprite::from_color(colour, Vec2::splat(12.0)),
                Transform::from_translation(at.extend(Z_PATH)),
            ));
            // The running cost: squares spent so far, this step included.
            label(&mut commands, step.spent.to_string(), at + Vec2::new(14.0, -14.0), Color::WHITE, 12.0);
        }
        if let Some(last) = path.route.steps.last() {
            let at = square_centre(last.square, height) + Vec2::new(0.0, TILE_PX * 0.28);
            let text = crate::tr!(
                "overlay-path",
                action = super::movement_words(path.action),
                squares = path.route.cost,
                metres = crate::locale::decimal(squares_to_metres(path.route.cost))
            );
            label(&mut commands, text, at, Color::WHITE, 15.0);
        }
        mark_provocations(&mut commands, &path.provocations, height, &creatures);
    }
    if let Some(Ok(lanes)) = &previews.lanes {
        for lane in lanes {
            for square in lane.route.squares() {
                shade(&mut commands, square, height, action_colour(MovementAction::Charge), 18.0, Z_SHADE + 1.0);
            }
        }
        // The first lane is the one a click charges along: where it provokes, and from whom.
        mark_provocations(&mut commands, &previews.lane_provocations, height, &creatures);
    }
    // Where a bull rush would push the foe (orange) and take the rusher (blue), step by step; the charge
    // that brings it there.
    if let Some(Ok(rush)) = &previews.bull_rush {
        for (i, pushed) in rush.plan.pushes.iter().enumerate() {
            outline(&mut commands, *pushed, height, Color::srgb(1.0, 0.55, 0.1), 3.0, Z_PATH + 1.5);
            label(&mut commands, format!("{}", i + 1), square_centre(pushed.origin, height), Color::WHITE, 14.0);
        }
        for follow in &rush.plan.follows {
            outline(&mut commands, *follow, height, Color::srgb(0.3, 0.7, 1.0), 2.0, Z_PATH + 1.0);
        }
        if let Some(to) = rush.charge_to {
            shade(&mut commands, to, height, action_colour(MovementAction::Charge), 18.0, Z_SHADE + 1.0);
        }
    }
    // Where a splash weapon bursts on target (shaded orange) and where a miss would, by the d8 (numbered).
    if let Some(Ok(throw)) = &previews.throw {
        for square in throw.burst.squares(&encounter.0.battlefield) {
            shade(&mut commands, square, height, Color::srgba(1.0, 0.55, 0.1, 0.35), 4.0, Z_SHADE + 1.5);
        }
        for (i, missed) in throw.scatter.iter().enumerate() {
            outline(&mut commands, missed.area, height, Color::srgba(1.0, 0.8, 0.3, 0.8), 2.0, Z_PATH + 1.0);
            let centre = square_centre(missed.area.origin, height)
                + Vec2::new((missed.area.width - 1) as f32, -(missed.area.height - 1) as f32) * TILE_PX / 2.0;
            label(&mut commands, format!("{}", i + 1), centre, Color::srgb(1.0, 0.85, 0.4), 14.0);
        }
    }
    // Where an overrun would take the mover, through its foe's space.
    if let Some(Ok(overrun)) = &previews.overrun {
        outline(&mut commands, overrun.beyond, height, Color::srgb(0.3, 0.7, 1.0), 3.0, Z_PATH + 1.5);
    }
    // The undead a turning would reach: outlined in gold.
    if let Some(Ok(turning)) = &previews.turning {
        for undead in &turning.undead {
            if let Ok((position, space, _)) = creatures.get(undead.entity) {
                outline(&mut commands, space.at(position.0), height, Color::srgb(1.0, 0.85, 0.2), 4.0, Z_PATH + 2.0);
            }
        }
    }
    // Whom a breath would cover: each outlined in orange.
    for covered in previews.breath.iter().flatten().flatten() {
        if let Ok((position, space, _)) = creatures.get(*covered) {
            let at = space.at(position.0);
            for square in at.squares() {
                shade(&mut commands, square, height, Color::srgba(1.0, 0.45, 0.1, 0.35), 4.0, Z_SHADE + 1.5);
            }
            outline(&mut commands, at, height, Color::srgb(1.0, 0.5, 0.1), 4.0, Z_PATH + 2.0);
        }
    }
    if let (Some(target), Some(attack)) = (previews.hovered, &previews.attack)
        && let Ok((position, space, _)) = creatures.get(target)
    {
        let colour = if attack.is_ok() { Color::srgb(0.2, 1.0, 0.3) } else { Color::srgb(1.0, 0.2, 0.2) };
        outline(&mut commands, space.at(position.0), height, colour, 4.0, Z_PATH + 2.0);
    }
    if let Some(selected) = selected.0
        && Some(selected) != previews.active
        && let Ok((position, space, _)) = creatures.get(selected)
    {
        outline(&mut commands, space.at(position.0), height, Color::srgb(0.3, 0.9, 1.0), 3.0, Z_PATH);
    }
    if let Some(square) = hover.square {
        outline(&mut commands, Footprint::new(square, 1), height, Color::srgba(1.0, 1.0, 1.0, 0.8), 2.0, Z_PATH + 3.0);
    }
}
