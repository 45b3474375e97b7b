//! The camera and the cursor: pan with the arrow keys or by dragging with the middle button, zoom with
//! the wheel or `+` and `-` about the point under the cursor, and the square under the cursor.

use bevy::input::mouse::{AccumulatedMouseMotion, MouseWheel};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::input::EguiWantsInput;

/// The digit keys in the keyboard's order, 1 to 9 then 0.
pub const DIGITS: [KeyCode; 10] = [
    KeyCode::Digit1,
    KeyCode::Digit2,
    KeyCode::Digit3,
    KeyCode::Digit4,
    KeyCode::Digit5,
    KeyCode::Digit6,
    KeyCode::Digit7,
    KeyCode::Digit8,
    KeyCode::Digit9,
    KeyCode::Digit0,
];

/// Pixels per second the arrow keys pan at zoom 1.
const PAN_SPEED: f32 = 900.0;

/// How much one notch of the wheel, or one press of `+`, zooms in.
const ZOOM_STEP: f32 = 0.9;

pub(super) fn plugin(app: &mut App) {
    // In a battle and in the editor alike: before the square under the cursor is found.
    let board = in_state(super::state::AppState::Battle).or_else(in_state(super::state::AppState::Edit));
    app.add_systems(
        Update,
        (pan_camera, zoom_camera)
            .chain()
            .after(super::ViewSystems::Reload)
            .before(super::ViewSystems::Pointer)
            .run_if(board),
    );
}

fn pan_camera(
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    time: Res<Time>,
    camera: Single<(&mut Transform, &Projection), With<Camera2d>>,
) {
    let (mut transform, projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = projection else { return };
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
}

pub(super) fn zoom_camera(
    keys: Res<ButtonInput<KeyCode>>,
    mut wheel: MessageReader<MouseWheel>,
    wants: Option<Res<EguiWantsInput>>,
    window: Option<Single<&Window, With<PrimaryWindow>>>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
    options: Res<super::LaunchOptions>,
    mut settings: ResMut<super::settings::Settings>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else { return };
    let over_ui = wants.as_ref().is_some_and(|w| w.wants_any_pointer_input());
    let mut notches = 0;
    for event in wheel.read() {
        // A sideways scroll is no zoom.
        if !over_ui && event.y != 0.0 {
            notches += if event.y > 0.0 { 1 } else { -1 };
        }
    }
    let typing = wants.is_some_and(|w| w.wants_any_keyboard_input());
    if !typing {
        // `+` and `_` (Shift with `=` and `-`) or the keypad's: `=` and `-` alone are the bar's (throw a
        // flask, let go of a grapple).
        let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
        notches += i32::from(keys.just_pressed(KeyCode::NumpadAdd) || (shift && keys.just_pressed(KeyCode::Equal)));
        notches -=
            i32::from(keys.just_pressed(KeyCode::NumpadSubtract) || (shift && keys.just_pressed(KeyCode::Minus)));
    }
    if notches == 0 {
        return;
    }
    let old = ortho.scale;
    ortho.scale = (old * ZOOM_STEP.powi(notches)).clamp(super::settings::MIN_SCALE, super::settings::MAX_SCALE);
    // The zoom of each level is remembered for the next time it is played.
    settings.zoom.insert(super::settings::Settings::level_key(&options.level), ortho.scale);
    // The point under the cursor stays under it (the centre of the window without a cursor).
    let Some(window) = window else { return };
    let Some(cursor) = window.cursor_position() else { return };
    let from_centre = (cursor - window.size() / 2.0) * Vec2::new(1.0, -1.0);
    transform.translation += (from_centre * (old - ortho.scale)).extend(0.0);
}
