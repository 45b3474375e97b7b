//! Screenshot and exit: `estoc play --screenshot FILE` waits for the scene to settle, saves the window
//! to a PNG and quits. It is how the README's pictures are made and how CI checks the window draws.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

/// A screenshot to take after `after_frames` frames, then exit.
#[derive(Resource, Clone, Debug)]
pub struct CaptureRequest {
    /// Where to write the PNG.
    pub path: PathBuf,
    /// Frames to wait for assets and layout.
    pub after_frames: u32,
}

/// Set when the screenshot could not be saved.
#[derive(Resource)]
pub struct CaptureFailed;

#[derive(Resource, Default)]
struct CaptureState {
    frames: u32,
    requested: bool,
    saved_at: Option<u32>,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CaptureState>();
    app.add_systems(
        Update,
        take_screenshot.run_if(resource_exists::<CaptureRequest>).in_set(super::ViewSystems::Capture),
    );
}

fn take_screenshot(
    mut commands: Commands,
    request: Res<CaptureRequest>,
    mut state: ResMut<CaptureState>,
    mut exit: MessageWriter<AppExit>,
) {
    state.frames += 1;
    if !state.requested && state.frames >= request.after_frames {
        state.requested = true;
        let path = request.path.clone();
        commands.spawn(Screenshot::primary_window()).observe(save_to_disk(path.clone())).observe(
            move |_: On<ScreenshotCaptured>, mut state: ResMut<CaptureState>| {
                state.saved_at = Some(state.frames);
            },
        );
    }
    if let Some(at) = state.saved_at {
        // Give the writer a few frames to finish the file.
        if state.frames > at + 5 {
            if !request.path.exists() {
                eprintln!("screenshot was not written to {}", request.path.display());
                commands.insert_resource(CaptureFailed);
            }
            exit.write(AppExit::Success);
        }
    }
}
