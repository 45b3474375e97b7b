//! The board: terrain tiles from `assets/tiles/terrain.png`, darkness, edge walls, a subtle grid, and the
//! camera fitted to the map.

use bevy::prelude::*;

use super::state::AppState;
use bevy_ecs_tilemap::prelude::*;

use super::{TILE_PX, ViewSystems, square_centre};
use crate::encounter::ActiveEncounter;
use crate::rules::core::battlefield::{EdgeFeature, Terrain};
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;

/// Everything drawn for the current map, despawned when the encounter changes.
#[derive(Component, Clone)]
#[require(DespawnOnExit<AppState> = DespawnOnExit(AppState::Battle))]
pub struct BoardPart;

/// Index of a level character's tile in the terrain atlas (see tools/art/README.md).
pub fn tile_index(look: char) -> u32 {
    match look {
        ':' => 1,
        '%' => 2,
        '#' => 3,
        '=' => 4,
        'O' => 5,
        '~' => 6,
        ',' => 8,
        'T' => 9,
        'W' => 10,
        _ => 0,
    }
}

const TILE_COUNT: u32 = 11;
const DARKNESS: Color = Color::srgba(0.02, 0.0, 0.08, 0.92);
const FOG: Color = Color::srgba(0.85, 0.88, 0.9, 0.45);
/// Difficult ground laid over a square's own terrain (the level's `difficult` layer): a brown wash.
const ROUGH: Color = Color::srgba(0.45, 0.3, 0.12, 0.4);
/// An obstacle laid over a square's own terrain (the `obstacles` layer): a dark block in the middle.
const BLOCK: Color = Color::srgba(0.25, 0.2, 0.16, 0.85);
const GRID: Color = Color::srgba(0.1, 0.08, 0.06, 0.6);
const GRID_WIDTH: f32 = 2.0;
const WALL_EDGE: Color = Color::srgb(0.12, 0.11, 0.12);
const LOW_EDGE: Color = Color::srgb(0.42, 0.36, 0.28);
const SLIT: Color = Color::srgb(0.93, 0.86, 0.62);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_camera);
    app.add_systems(Update, (draw_board, fit_camera, follow_turn).chain().in_set(ViewSystems::Spawn));
}

fn spawn_camera(mut commands: Commands) {
    // Squares and sprites are axis-aligned: multisampling would smooth nothing and costs every pixel four
    // samples (a third of the frame under software rendering).
    commands.spawn((Camera2d, Msaa::Off));
}

/// Builds the tilemap and the edge walls when the encounter changes.
fn draw_board(
    mut commands: Commands,
    encounter: Option<Res<ActiveEncounter>>,
    old: Query<Entity, With<BoardPart>>,
    asset_server: Res<AssetServer>,
) {
    let Some(encounter) = encounter else { return };
    if !encounter.is_changed() && !old.is_empty() {
        return;
    }
    for entity in &old {
        commands.entity(entity).despawn();
    }
    spawn_board(
        &mut commands,
        &encounter.0.battlefield,
        &encounter.0.looks,
        asset_server.load("tiles/terrain.png"),
        BoardPart,
    );
}

/// Spawns a map's tiles, layers, grid and edges, each carrying `part` (what despawns them).
pub(super) fn spawn_board(
    commands: &mut Commands,
    field: &crate::rules::core::battlefield::Battlefield,
    looks: &[char],
    texture: Handle<Image>,
    part: impl Bundle + Clone,
) {
    let (width, height) = (field.width(), field.height());
    let map_size = TilemapSize { x: width as u32, y: height as u32 };
    let tilemap = commands.spawn(part.clone()).id();
    let mut storage = TileStorage::empty(map_size);
    for y in 0..height {
        for x in 0..width {
            let look = looks.get((y * width + x) as usize).copied().unwrap_or('.');
            let position = TilePos { x: x as u32, y: (height - 1 - y) as u32 };
            let tile = commands
                .spawn((
                    part.clone(),
                    TileBundle {
                        position,
                        tilemap_id: TilemapId(tilemap),
                        texture_index: TileTextureIndex(tile_index(look).min(TILE_COUNT - 1)),
                        ..default()
                    },
                ))
                .id();
            storage.set(&position, tile);
            let square = Square::new(x, y);
            let own = field.terrain(square);
            if field.is_difficult(square) && !matches!(own, Terrain::Difficult | Terrain::Water) {
                commands.spawn((
                    part.clone(),
                    Sprite::from_color(ROUGH, Vec2::splat(TILE_PX)),
                    Transform::from_translation(square_centre(square, height).extend(0.8)),
                ));
            }
            if field.has_obstacle(square) && !own.is_obstacle() {
                commands.spawn((
                    part.clone(),
                    Sprite::from_color(BLOCK, Vec2::splat(TILE_PX * 0.45)),
                    Transform::from_translation(square_centre(square, height).extend(0.9)),
                ));
            }
            if field.is_foggy(Square::new(x, y)) {
                commands.spawn((
                    part.clone(),
                    Sprite::from_color(FOG, Vec2::splat(TILE_PX)),
                    Transform::from_translation(square_centre(Square::new(x, y), height).extend(1.2)),
                ));
            }
            if field.is_dark(Square::new(x, y)) {
                commands.spawn((
                    part.clone(),
                    Sprite::from_color(DARKNESS, Vec2::splat(TILE_PX)),
                    Transform::from_translation(square_centre(Square::new(x, y), height).extend(1.0)),
                ));
            }
        }
    }
    let tile_size = TilemapTileSize { x: TILE_PX, y: TILE_PX };
    commands.entity(tilemap).insert(TilemapBundle {
        grid_size: tile_size.into(),
        map_type: TilemapType::Square,
        size: map_size,
        storage,
        texture: TilemapTexture::Single(texture),
        tile_size,
        anchor: TilemapAnchor::None,
        ..default()
    });
    draw_lines(commands, field, part);
}

/// The grid, one thin line per row and column, and the walls and low walls on the squares' edges.
fn draw_lines(
    commands: &mut Commands,
    field: &crate::rules::core::battlefield::Battlefield,
    part: impl Bundle + Clone,
) {
    let (width, height) = (field.width(), field.height());
    // A subtle grid: one thin line per row and column, over the tiles and under the tokens.
    let (w, h) = (width as f32 * TILE_PX, height as f32 * TILE_PX);
    let corner = Vec2::splat(-TILE_PX / 2.0);
    for x in 0..=width {
        let at = corner + Vec2::new(x as f32 * TILE_PX, h / 2.0);
        commands.spawn((
            part.clone(),
            Sprite::from_color(GRID, Vec2::new(GRID_WIDTH, h)),
            Transform::from_translation(at.extend(1.5)),
        ));
    }
    for y in 0..=height {
        let at = corner + Vec2::new(w / 2.0, y as f32 * TILE_PX);
        commands.spawn((
            part.clone(),
            Sprite::from_color(GRID, Vec2::new(w, GRID_WIDTH)),
            Transform::from_translation(at.extend(1.5)),
        ));
    }
    for (edge, feature) in field.edges() {
        let (a, _) = edge.squares();
        let centre = square_centre(a, height);
        let (offset, size) = if edge.east {
            (Vec2::new(TILE_PX / 2.0, 0.0), Vec2::new(TILE_PX * 0.16, TILE_PX * 1.08))
        } else {
            (Vec2::new(0.0, -TILE_PX / 2.0), Vec2::new(TILE_PX * 1.08, TILE_PX * 0.16))
        };
        let colour = if feature.is_wall() { WALL_EDGE } else { LOW_EDGE };
        commands.spawn((
            part.clone(),
            Sprite::from_color(colour, size),
            Transform::from_translation((centre + offset).extend(2.0)),
        ));
        if feature == EdgeFeature::ArrowSlit {
            // The slit: a narrow light gap across the middle of the wall.
            let gap = if edge.east {
                Vec2::new(size.x * 1.3, TILE_PX * 0.34)
            } else {
                Vec2::new(TILE_PX * 0.34, size.y * 1.3)
            };
            commands.spawn((
                part.clone(),
                Sprite::from_color(SLIT, gap),
                Transform::from_translation((centre + offset).extend(2.1)),
            ));
        }
    }
}

/// The smallest a square is drawn when the camera frames a level: a Medium token stays readable.
const MIN_SQUARE_PX: f32 = 40.0;

/// Where the panels leave the board room: the right panel, the tracker above, the action bar below.
const PANELS: (f32, f32, f32) = (super::RIGHT_PANEL, 64.0, 60.0);

/// The board's free part of the window, in screen pixels.
fn free_size(window: &Window) -> Vec2 {
    let (right, top, bottom) = PANELS;
    Vec2::new((window.width() - right).max(100.0), (window.height() - top - bottom).max(100.0))
}

/// The camera's position that shows `target` (world units) in the middle of the board's free part.
fn camera_centre(target: Vec2, scale: f32) -> Vec2 {
    let (right, top, bottom) = PANELS;
    target + Vec2::new(right / 2.0 * scale, (top - bottom) / 2.0 * scale)
}

/// Frames a new battle: the whole map if its squares stay readable; else the action (the box of the
/// creatures) as closely as it fits, never with squares under [`MIN_SQUARE_PX`]; a level the player
/// zoomed before at the zoom it had.
fn fit_camera(
    encounter: Option<Res<ActiveEncounter>>,
    window: Single<&Window>,
    camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
    options: Res<super::LaunchOptions>,
    settings: Res<super::settings::Settings>,
) {
    let Some(encounter) = encounter else { return };
    if !encounter.is_changed() {
        return;
    }
    let field = &encounter.0.battlefield;
    let (w, h) = (field.width() as f32 * TILE_PX, field.height() as f32 * TILE_PX);
    let (mut transform, mut projection) = camera.into_inner();
    let free = free_size(&window);
    let margin = 1.04;
    let whole = (w / free.x).max(h / free.y) * margin;
    let readable = TILE_PX / MIN_SQUARE_PX;
    let map_centre = Vec2::new((w - TILE_PX) / 2.0, (h - TILE_PX) / 2.0);
    // The action: the box of the squares the creatures stand on, two squares around; its centre, and the
    // zoom that fits it.
    let action = encounter
        .0
        .creatures
        .iter()
        .map(|c| super::square_centre(c.at, field.height()))
        .fold(None, |corners: Option<(Vec2, Vec2)>, at| {
            Some(corners.map_or((at, at), |(lo, hi)| (lo.min(at), hi.max(at))))
        });
    let action = action.map(|(lo, hi)| {
        let size = hi - lo + Vec2::splat(5.0 * TILE_PX);
        ((lo + hi) / 2.0, (size.x / free.x).max(size.y / free.y) * margin)
    });
    let remembered = settings.zoom.get(&super::settings::Settings::level_key(&options.level)).copied();
    let (target, scale) = match (remembered, action) {
        (Some(zoom), _) if zoom >= whole => (map_centre, zoom),
        (Some(zoom), Some((centre, _))) => (centre, zoom),
        (Some(zoom), None) => (map_centre, zoom),
        (None, _) if whole <= readable => (map_centre, whole),
        (None, Some((centre, fit))) => (centre, fit.min(readable)),
        (None, None) => (map_centre, readable),
    };
    transform.translation = camera_centre(target, scale).extend(transform.translation.z);
    if let Projection::Orthographic(ortho) = &mut *projection {
        ortho.scale = scale;
    }
}

/// When a creature a person plays starts its turn out of sight, the camera moves to show it.
pub(super) fn follow_turn(world: &mut World, mut last: Local<Option<Entity>>) {
    let now = super::turn::human_turn(world);
    if now == *last {
        return;
    }
    *last = now;
    let Some(creature) = now else { return };
    let Some(encounter) = world.get_resource::<ActiveEncounter>() else { return };
    let height = encounter.0.battlefield.height();
    let Some(at) = world.get::<crate::rules::core::creature::Position>(creature).map(|p| p.0) else { return };
    let spot = super::square_centre(at, height);
    let mut windows = kept::<&Window, ()>(world);
    let Some(free) = windows.iter(world).next().map(free_size) else { return };
    let mut camera = kept::<(&mut Transform, &Projection), With<Camera2d>>(world);
    let Some((mut transform, projection)) = camera.iter_mut(world).next() else { return };
    let Projection::Orthographic(ortho) = projection else { return };
    let shown = transform.translation.truncate() - camera_centre(Vec2::ZERO, ortho.scale);
    let half = free / 2.0 * ortho.scale - Vec2::splat(TILE_PX);
    if (spot - shown).abs().cmple(half).all() {
        return;
    }
    transform.translation = camera_centre(spot, ortho.scale).extend(transform.translation.z);
}
