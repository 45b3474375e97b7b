//! Creature tokens: a disc of the faction's colour sized to the creature's space, its icon, its name and
//! a health bar; they follow the rules' positions and hit points.

use bevy::prelude::*;

use super::state::AppState;

use super::{TILE_PX, ViewSystems, square_centre};
use crate::encounter::{ActiveEncounter, Portrait};
use crate::rules::core::creature::*;
use crate::rules::core::geometry::Square;

/// The token drawn for a creature.
#[derive(Component)]
#[require(DespawnOnExit<AppState> = DespawnOnExit(AppState::Battle))]
pub struct Token {
    /// The creature shown.
    pub creature: Entity,
}

/// The green part of a token's health bar.
#[derive(Component)]
pub struct HealthFill;

const BAR_HEIGHT: f32 = 6.0;

/// A condition badge, an altitude label or a heading arrow drawn on a token.
#[derive(Component)]
pub struct Badge;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, spawn_tokens.in_set(ViewSystems::Spawn));
    app.add_systems(
        Update,
        (place_tokens, show_health, show_badges, remove_orphan_tokens).chain().in_set(ViewSystems::Sync),
    );
}

/// The badge image of a condition the token shows, if it shows it.
fn badge_of(condition: Condition) -> Option<&'static str> {
    Some(match condition {
        Condition::Prone => "prone",
        Condition::FlatFooted => "flat_footed",
        Condition::Disabled => "disabled",
        Condition::Dying => "dying",
        Condition::Stable => "stable",
        Condition::Dead => "dead",
        Condition::Unconscious => "unconscious",
        Condition::Staggered => "staggered",
        Condition::Helpless => "helpless",
        Condition::Squeezed | Condition::SqueezedTight => "squeezed",
        Condition::Grappling => "grappling",
        Condition::Pinned => "pinned",
        Condition::OffBalance => "off_balance",
        _ => return None,
    })
}

/// The clockwise angle of a heading from north, in radians, for the heading arrow.
fn heading_angle(direction: crate::rules::core::geometry::Direction) -> f32 {
    use crate::rules::core::geometry::Direction::*;
    let eighths = match direction {
        North => 0.0,
        NorthEast => 1.0,
        East => 2.0,
        SouthEast => 3.0,
        South => 4.0,
        SouthWest => 5.0,
        West => 6.0,
        NorthWest => 7.0,
    };
    -eighths * std::f32::consts::FRAC_PI_4
}

/// The badges of a creature whose conditions, altitude or heading changed: one small icon per condition
/// shown, in a row over the token's top edge; for fliers the flying badge, the altitude in metres and an
/// arrow along the heading.
#[expect(clippy::type_complexity, reason = "a Bevy query of the parts that change a token's badges")]
fn show_badges(
    mut commands: Commands,
    asset_server: Res<AssetServer>,
    creatures: Query<(Ref<Conditions>, Ref<Altitude>, Ref<Heading>, &Speed, &Size)>,
    tokens: Query<(Entity, &Token, Option<&Children>)>,
    badges: Query<(), With<Badge>>,
    encounter: Option<Res<ActiveEncounter>>,
) {
    let scale = encounter.map_or_else(Default::default, |e| e.0.battlefield.scale());
    for (token_entity, token, children) in &tokens {
        let Ok((conditions, altitude, heading, speed, size)) = creatures.get(token.creature) else { continue };
        let fresh = children.is_none_or(|c| !c.iter().any(|e| badges.contains(e)));
        if !fresh && !conditions.is_changed() && !altitude.is_changed() && !heading.is_changed() {
            continue;
        }
        if let Some(children) = children {
            for child in children.iter().filter(|e| badges.contains(*e)) {
                commands.entity(child).despawn();
            }
        }
        let side = token_side(scale, *size);
        let badge = (side * 0.3).clamp(14.0, 24.0);
        let mut names: Vec<&str> = conditions.0.iter().filter_map(|c| badge_of(*c)).collect();
        names.dedup();
        let flier = speed.fly.is_some() || altitude.0 > 0;
        if flier {
            names.insert(0, "flying");
        }
        let mut placed = 0;
        commands.entity(token_entity).with_children(|token| {
            for name in &names {
                let x = -side * 0.42 + badge / 2.0 + placed as f32 * (badge + 2.0);
                token.spawn((
                    Badge,
                    Sprite {
                        image: asset_server.load(format!("icons/badges/{name}.png")),
                        custom_size: Some(Vec2::splat(badge)),
                        color: Color::srgb(1.0, 0.9, 0.5),
                        ..default()
                    },
                    Transform::from_xyz(x, side * 0.3, 0.6),
                ));
                placed += 1;
            }
            // A placeholder keeps a creature with nothing to show from being rebuilt every frame.
            token.spawn((Badge, Transform::default(), Visibility::Hidden));
            if flier {
                token.spawn((
                    Badge,
                    Sprite {
                        image: asset_server.load("icons/badges/heading.png"),
                        custom_size: Some(Vec2::splat(badge)),
                        ..default()
                    },
                    Transform::from_xyz(side * 0.36, -side * 0.2, 0.6)
                        .with_rotation(Quat::from_rotation_z(heading_angle(heading.0))),
                ));
                token.spawn((
                    Badge,
                    Text2d::new(match scale {
                        crate::rules::core::altitude::Scale::Normal => scale.altitude_label(altitude.0),
                        crate::rules::core::altitude::Scale::Chase => format!("band {}", altitude.0.max(0)),
                    }),
                    TextFont { font_size: FontSize::Px(12.0), ..default() },
                    TextColor(Color::srgb(0.7, 0.9, 1.0)),
                    Transform::from_xyz(side * 0.36, -side * 0.36, 0.6),
                ));
            }
        });
    }
}

fn faction_colour(encounter: &ActiveEncounter, faction: &str) -> Color {
    let [r, g, b] = encounter.faction_rgb(faction);
    Color::srgb_u8(r, g, b)
}

/// The side in pixels of a creature's token: its space, a quarter square for the smallest; at chase scale
/// the square whatever its size (shrunk to a quarter when it shares the square, 004:651).
pub(super) fn token_side(scale: crate::rules::core::altitude::Scale, size: Size) -> f32 {
    if scale == crate::rules::core::altitude::Scale::Chase {
        TILE_PX * 0.9
    } else if size.is_smaller_than_a_square() {
        TILE_PX * 0.5
    } else {
        size.side_squares() as f32 * TILE_PX
    }
}

/// The centre of a creature's footprint on screen; at chase scale, the `nth` (of `of`) creature in a square
/// takes a quarter of it.
fn footprint_centre(
    scale: crate::rules::core::altitude::Scale,
    at: Square,
    size: Size,
    map_height: i32,
    nth: usize,
    of: usize,
) -> Vec2 {
    if scale == crate::rules::core::altitude::Scale::Chase {
        let quarter = TILE_PX / 4.0;
        let offset = match (of, nth % 4) {
            (1, _) => Vec2::ZERO,
            (_, 0) => Vec2::new(-quarter, quarter),
            (_, 1) => Vec2::new(quarter, quarter),
            (_, 2) => Vec2::new(-quarter, -quarter),
            _ => Vec2::new(quarter, -quarter),
        };
        return square_centre(at, map_height) + offset;
    }
    let side = size.side_squares() as f32;
    // Grapplers on one square stand side by side in it, each at half size (004:586).
    let beside = if of > 1 {
        let step = TILE_PX / 2.0 / of as f32;
        Vec2::new((nth as f32 * 2.0 + 1.0 - of as f32) * step, 0.0)
    } else {
        Vec2::ZERO
    };
    square_centre(at, map_height) + Vec2::new((side - 1.0) * TILE_PX / 2.0, -(side - 1.0) * TILE_PX / 2.0) + beside
}

/// Creatures spawned since the last frame.
type Creatures<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static Name, &'static Faction, &'static Size, &'static Position, &'static Portrait),
    With<Creature>,
>;

fn spawn_tokens(
    mut commands: Commands,
    encounter: Option<Res<ActiveEncounter>>,
    creatures: Creatures,
    tokens: Query<&Token>,
    asset_server: Res<AssetServer>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let Some(encounter) = encounter else { return };
    let height = encounter.0.battlefield.height();
    let scale = encounter.0.battlefield.scale();
    // Every creature without a token gets one: a new creature, or every creature back from the menu.
    let drawn: std::collections::HashSet<Entity> = tokens.iter().map(|t| t.creature).collect();
    for (entity, name, faction, size, position, portrait) in creatures.iter().filter(|c| !drawn.contains(&c.0)) {
        let side = token_side(scale, *size);
        let colour = faction_colour(&encounter, &faction.0);
        let centre = footprint_centre(scale, position.0, *size, height, 0, 1);
        commands
            .spawn((
                Token { creature: entity },
                Transform::from_translation(centre.extend(10.0)),
                Visibility::default(),
            ))
            .with_children(|token| {
                token.spawn((
                    Mesh2d(meshes.add(Circle::new(side * 0.46))),
                    MeshMaterial2d(materials.add(Color::srgb(0.05, 0.05, 0.05))),
                    Transform::from_xyz(0.0, 0.0, 0.0),
                ));
                token.spawn((
                    Mesh2d(meshes.add(Circle::new(side * 0.42))),
                    MeshMaterial2d(materials.add(colour)),
                    Transform::from_xyz(0.0, 0.0, 0.1),
                ));
                token.spawn((
                    Sprite {
                        image: asset_server.load(format!("icons/{}.png", portrait.icon)),
                        custom_size: Some(Vec2::splat(side * 0.62)),
                        ..default()
                    },
                    Transform::from_xyz(0.0, 0.0, 0.2),
                ));
                let bar_width = side * 0.8;
                token.spawn((
                    Sprite::from_color(Color::srgb(0.3, 0.0, 0.0), Vec2::new(bar_width, BAR_HEIGHT)),
                    Transform::from_xyz(0.0, -side * 0.46, 0.3),
                ));
                token.spawn((
                    HealthFill,
                    Sprite::from_color(Color::srgb(0.2, 0.85, 0.25), Vec2::new(bar_width, BAR_HEIGHT)),
                    bevy::sprite::Anchor::CENTER_LEFT,
                    Transform::from_xyz(-bar_width / 2.0, -side * 0.46, 0.4),
                ));
                token.spawn((
                    Text2d::new(name.as_str()),
                    TextFont { font_size: FontSize::Px(13.0), ..default() },
                    TextColor(Color::WHITE),
                    Transform::from_xyz(0.0, side * 0.5 + 2.0, 0.5),
                ));
            });
    }
}

/// Puts each token where its creature is; at chase scale creatures sharing a square take its quarters. A
/// rider's token sits small on its mount's, at its right shoulder, passengers after it (004:813).
#[expect(clippy::type_complexity, reason = "a Bevy query of what places a token: square, size, riding, grappling")]
fn place_tokens(
    encounter: Option<Res<ActiveEncounter>>,
    creatures: Query<(
        &Position,
        &Size,
        Option<&crate::rules::core::creature::Riding>,
        Option<&crate::rules::core::creature::Riders>,
        Has<crate::rules::core::creature::Grapple>,
    )>,
    mut tokens: Query<(&Token, &mut Transform)>,
) {
    let Some(encounter) = encounter else { return };
    let height = encounter.0.battlefield.height();
    let scale = encounter.0.battlefield.scale();
    let chase = scale == crate::rules::core::altitude::Scale::Chase;
    // At chase scale, who shares each square, in a steady order: they split it in quarters; so do
    // grapplers on one square (004:586).
    let mut sharing: std::collections::HashMap<Square, Vec<Entity>> = std::collections::HashMap::new();
    for (token, _) in &tokens {
        if let Ok((position, _, None, _, grappling)) = creatures.get(token.creature)
            && (chase || grappling)
        {
            sharing.entry(position.0).or_default().push(token.creature);
        }
    }
    for here in sharing.values_mut() {
        here.sort();
    }
    let place = |creature: Entity| -> Option<(Vec2, f32)> {
        let (position, size, _, _, _) = creatures.get(creature).ok()?;
        let here = sharing.get(&position.0).map_or(&[][..], Vec::as_slice);
        let nth = here.iter().position(|e| *e == creature).unwrap_or(0);
        let centre = footprint_centre(scale, position.0, *size, height, nth, here.len().max(1));
        Some((centre, if here.len() > 1 { 0.5 } else { 1.0 }))
    };
    for (token, mut transform) in &mut tokens {
        let Ok((_, _, riding, _, _)) = creatures.get(token.creature) else { continue };
        let placed = match riding {
            Some(riding) => place(riding.0).map(|(centre, mount_scale)| {
                let seat = creatures
                    .get(riding.0)
                    .ok()
                    .and_then(|m| m.3)
                    .and_then(|r| r.all().iter().position(|e| *e == token.creature))
                    .unwrap_or(0);
                let mount_side = creatures.get(riding.0).map_or(TILE_PX, |m| token_side(scale, *m.1)) * mount_scale;
                let shoulder = Vec2::new(mount_side * 0.28 - seat as f32 * mount_side * 0.3, mount_side * 0.22);
                (centre + shoulder, 0.5 * mount_scale, 12.0)
            }),
            None => place(token.creature).map(|(centre, s)| (centre, s, 10.0)),
        };
        if let Some((centre, token_scale, z)) = placed {
            transform.translation = centre.extend(z);
            transform.scale = Vec3::splat(token_scale);
        }
    }
}

fn show_health(
    creatures: Query<&HitPoints>,
    tokens: Query<(&Token, &Children)>,
    mut fills: Query<&mut Transform, With<HealthFill>>,
) {
    for (token, children) in &tokens {
        let Ok(hp) = creatures.get(token.creature) else { continue };
        let fraction = (hp.current.max(0) as f32 / hp.max.max(1) as f32).clamp(0.0, 1.0);
        for child in children.iter() {
            if let Ok(mut transform) = fills.get_mut(child) {
                transform.scale.x = fraction;
            }
        }
    }
}

pub(super) fn remove_orphan_tokens(
    mut commands: Commands,
    creatures: Query<(), With<Creature>>,
    tokens: Query<(Entity, &Token)>,
) {
    for (entity, token) in &tokens {
        if creatures.get(token.creature).is_err() {
            commands.entity(entity).despawn();
        }
    }
}
