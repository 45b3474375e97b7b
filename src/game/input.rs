//! The camera and the cursor: pan with the arrow keys or by dragging with the middle button, zoom with
//! the wheel, and the square under the cursor.

use bevy::input::mouse::{AccumulatedMouseMotion, MouseWheel};
use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

/// Reading the mouse and keys: before the rules run, so a click is resolved in its frame.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InputSystems;

/// Pixels per second the arrow keys pan at zoom 1.
const PAN_SPEED: f32 = 900.0;

pub(super) fn plugin(app: &mut App) {
    app.configure_sets(Update, InputSystems.before(crate::rules::RulesSystems::Setup));
    app.add_systems(Update, (move_camera, super::play::track_hover).chain().before(InputSystems));
}

fn move_camera(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    mut wheel: MessageReader<MouseWheel>,
    time: Res<Time>,
    wants: Option<Res<EguiWantsInput>>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else { return };
    let mut pan = Vec2::ZERO;
    for (key, direction) in [
        (KeyCode::ArrowLeft, Vec2::NEG_X),
        (KeyCode::ArrowRight, Vec2::X),
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::ArrowDown, Vec2::NEG_Y),
    ] {
        if keys.pressed(key) {
            pan += direction;
        }
    }
    let mut offset = pan * PAN_SPEED * time.delta_secs() * ortho.scale;
    if buttons.pressed(MouseButton::Middle) {
        offset += Vec2::new(-motion.delta.x, motion.delta.y) * ortho.scale;
    }
    transform.translation += offset.extend(0.0);
    let over_ui = wants.is_some_and(|w| w.wants_any_pointer_input());
    for event in wheel.read() {
        if over_ui {
            continue;
        }
        let step = if event.y > 0.0 { 0.9 } else { 1.0 / 0.9 };
        ortho.scale = (ortho.scale * step).clamp(0.2, 8.0);
    }
}
