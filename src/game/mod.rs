//! The window: the level drawn with bevy_ecs_tilemap, the creatures as tokens, a camera fitted to the
//! map. The rules run here exactly as headless; the view only reads rules state.

mod board;
mod capture;
mod tokens;

use std::path::PathBuf;
use std::process::ExitCode;

use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_ecs_tilemap::TilemapPlugin;

use crate::data::{Content, load_level};
use crate::encounter::{begin, spawn_encounter};

pub use capture::CaptureRequest;

/// Pixels of one square on screen at zoom 1.
pub const TILE_PX: f32 = 64.0;

/// What the player asked for on the command line.
#[derive(Resource, Clone, Debug)]
pub struct LaunchOptions {
    /// The level file.
    pub level: PathBuf,
    /// Dice seed.
    pub seed: u64,
}

/// The game's systems, in order each frame.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewSystems {
    /// Build what is missing (the board for a new encounter, tokens for new creatures).
    Spawn,
    /// Follow the rules state (positions, hit points).
    Sync,
}

/// Opens the game window on `level`; `capture` takes a screenshot after a few frames and exits.
pub fn run(level: PathBuf, seed: u64, capture: Option<CaptureRequest>) -> ExitCode {
    let content = match Content::load(&crate::data::assets_dir()) {
        Ok(content) => content,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    let encounter = match load_level(&level, &content) {
        Ok(encounter) => encounter,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!("Estoc — {}", encounter.name),
                    resolution: WindowResolution::new(1280, 800),
                    ..default()
                }),
                ..default()
            })
            .set(AssetPlugin { file_path: crate::data::assets_dir().to_string_lossy().into_owned(), ..default() })
            .set(ImagePlugin::default_nearest()),
    );
    app.add_plugins(TilemapPlugin).add_plugins(crate::rules::plugin).add_plugins(plugin);
    app.insert_resource(LaunchOptions { level, seed });
    app.insert_resource(ClearColor(Color::srgb(0.08, 0.08, 0.1)));
    if let Some(capture) = capture {
        app.insert_resource(capture);
    }
    let world = app.world_mut();
    spawn_encounter(world, &encounter, seed, &[]);
    begin(world, &encounter.name, seed);
    app.run();
    match app.world().get_resource::<capture::CaptureFailed>() {
        Some(_) => ExitCode::FAILURE,
        None => ExitCode::SUCCESS,
    }
}

/// The game's plugins.
pub fn plugin(app: &mut App) {
    app.configure_sets(
        Update,
        (ViewSystems::Spawn, ViewSystems::Sync).chain().after(crate::rules::RulesSystems::Record),
    );
    app.add_plugins((board::plugin, tokens::plugin, capture::plugin));
}

/// The world position of the centre of a square: x to the east, rows growing south drawn downward.
pub fn square_centre(square: crate::rules::geometry::Square, map_height: i32) -> Vec2 {
    Vec2::new(square.x as f32 * TILE_PX, (map_height - 1 - square.y) as f32 * TILE_PX)
}
