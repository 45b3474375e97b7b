//! Creature tokens: a disc of the faction's colour sized to the creature's space, its icon, its name and
//! a health bar; they follow the rules' positions and hit points.

use bevy::prelude::*;

use super::state::AppState;

use super::{TILE_PX, ViewSystems, square_centre};
use crate::encounter::{ActiveEncounter, Portrait};
use crate::rules::core::creature::*;
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;

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

/// The dark part of a token's health bar, behind the green.
#[derive(Component)]
struct HealthBack;

/// The faction's disc of a token, with its colour when the creature stands.
#[derive(Component)]
struct Disc(Color);

/// The black ring around a token's disc.
#[derive(Component)]
struct Ring;

/// A token's portrait.
#[derive(Component)]
struct Portrait2d;

/// A token's name.
#[derive(Component)]
struct Label;

/// The word under a fallen token: dead, dying, stable…
#[derive(Component)]
struct StateWord;

/// How a token was last drawn, to redraw it only when its creature's state or the interface's language
/// changes.
#[derive(Component, Clone, Copy, PartialEq, Eq, Debug)]
struct Shown(Posture, Option<Down>, crate::locale::Language);

/// How a creature's body lies on the board.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Posture {
    /// On its feet.
    Standing,
    /// Prone and in the fight: the portrait turned on its side.
    Prone,
    /// Down and alive, out of the fight (dying, stable, unconscious, helpless): on its side, greyed.
    Out,
    /// Dead: a small grey marker under the living.
    Dead,
}

/// The state that puts a creature out of the fight, or limits it, in the player's words: shown under its
/// token and in the initiative tracker.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Down {
    /// Dead (004:281, 004:290).
    Dead,
    /// Dying: below 0 hit points, losing one a round (004:280).
    Dying,
    /// Stable: below 0 hit points, no longer losing them (004:282).
    Stable,
    /// Unconscious.
    Unconscious,
    /// Helpless: asleep, paralysed, bound (004:423).
    Helpless,
    /// Disabled: at 0 hit points, one move or standard action a turn (004:274-279).
    Disabled,
}

impl Down {
    /// The creature's state, if it is out of the fight or limited: a stable creature (still below 0, its
    /// dying stopped, 004:281-284) shows as stable, however it became so.
    pub fn of(conditions: &Conditions) -> Option<Down> {
        [
            (Condition::Dead, Down::Dead),
            (Condition::Stable, Down::Stable),
            (Condition::Dying, Down::Dying),
            (Condition::Unconscious, Down::Unconscious),
            (Condition::Helpless, Down::Helpless),
            (Condition::Disabled, Down::Disabled),
        ]
        .into_iter()
        .find(|(c, _)| conditions.has(*c))
        .map(|(_, d)| d)
    }

    /// The word shown.
    pub fn word(self) -> String {
        crate::locale::tr(match self {
            Down::Dead => "down-dead",
            Down::Dying => "down-dying",
            Down::Stable => "down-stable",
            Down::Unconscious => "down-unconscious",
            Down::Helpless => "down-helpless",
            Down::Disabled => "down-disabled",
        })
    }

    /// Its colour, as red, green and blue.
    pub fn rgb(self) -> [u8; 3] {
        match self {
            Down::Dead => [150, 150, 150],
            Down::Dying => [255, 90, 80],
            Down::Stable => [255, 200, 80],
            Down::Unconscious | Down::Helpless => [170, 190, 230],
            Down::Disabled => [255, 150, 60],
        }
    }
}

/// How a creature with `conditions` lies: the disabled stand and act (004:274-279).
fn posture_of(conditions: &Conditions) -> Posture {
    match Down::of(conditions) {
        Some(Down::Dead) => Posture::Dead,
        Some(Down::Disabled) | None if conditions.has(Condition::Prone) => Posture::Prone,
        Some(Down::Disabled) | None => Posture::Standing,
        Some(_) => Posture::Out,
    }
}

/// How much of a dead creature's token is left on the board: a marker under the living.
const DEAD_SCALE: f32 = 0.7;

const BAR_HEIGHT: f32 = 6.0;

/// A condition badge, an altitude label or a heading arrow drawn on a token.
#[derive(Component)]
pub struct Badge;

/// The badge of a disarmed creature: it goes when the creature holds a weapon again.
#[derive(Component)]
struct DisarmedBadge;

/// The badge of a creature hidden from some foe (004:403, 004:412, 004:816-817).
#[derive(Component)]
struct HiddenBadge;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, spawn_tokens.in_set(ViewSystems::Spawn));
    app.add_systems(
        Update,
        (place_tokens, show_health, show_badges, show_posture, fit_labels, remove_orphan_tokens)
            .chain()
            .in_set(ViewSystems::Sync),
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
        Condition::InPit => "in_pit",
        Condition::Cowering => "cowering",
        Condition::Stunned => "stunned",
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
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource it reads")]
fn show_badges(
    mut commands: Commands,
    asset_server: Res<AssetServer>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    creatures: Query<(Ref<Conditions>, Ref<Altitude>, Ref<Heading>, &Speed, &Size)>,
    disarmed: Query<(), With<crate::rules::attack::gear::Disarmed>>,
    disarmed_badges: Query<(), With<DisarmedBadge>>,
    hidden: Query<&crate::rules::core::creature::Hidden>,
    hidden_badges: Query<(), With<HiddenBadge>>,
    tokens: Query<(Entity, &Token, Option<&Children>)>,
    badges: Query<(), With<Badge>>,
    encounter: Option<Res<ActiveEncounter>>,
) {
    let scale = encounter.map_or_else(Default::default, |e| e.0.battlefield.scale());
    for (token_entity, token, children) in &tokens {
        let Ok((conditions, altitude, heading, speed, size)) = creatures.get(token.creature) else { continue };
        let fresh = children.is_none_or(|c| !c.iter().any(|e| badges.contains(e)));
        let is_disarmed = disarmed.contains(token.creature);
        let shown = children.is_some_and(|c| c.iter().any(|e| disarmed_badges.contains(e)));
        let is_hidden = hidden.get(token.creature).is_ok_and(|h| !h.from.is_empty());
        let shown_hidden = children.is_some_and(|c| c.iter().any(|e| hidden_badges.contains(e)));
        if !fresh
            && !conditions.is_changed()
            && !altitude.is_changed()
            && !heading.is_changed()
            && is_disarmed == shown
            && is_hidden == shown_hidden
        {
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
        // Disarmed (004:494), until it holds a weapon again.
        if is_disarmed {
            names.push("disarmed");
        }
        // Hidden from some foe: the panel says from whom.
        if is_hidden {
            names.push("hidden");
        }
        let flier = speed.fly.is_some() || altitude.0 > 0;
        if flier {
            names.insert(0, "flying");
        }
        let mut placed = 0;
        commands.entity(token_entity).with_children(|token| {
            for name in &names {
                let x = -side * 0.42 + badge / 2.0 + placed as f32 * (badge + 2.0);
                let mut shown = token.spawn((
                    Badge,
                    Sprite {
                        image: asset_server.load(format!("icons/badges/{name}.png")),
                        custom_size: Some(Vec2::splat(badge)),
                        color: Color::srgb(1.0, 0.9, 0.5),
                        ..default()
                    },
                    Transform::from_xyz(x, side * 0.3, 0.6),
                ));
                if *name == "disarmed" {
                    shown.insert(DisarmedBadge);
                }
                if *name == "hidden" {
                    shown.insert(HiddenBadge);
                }
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
                // The altitude on a dark plate at the token's lower right, readable over any ground.
                let words = match scale {
                    crate::rules::core::altitude::Scale::Normal => scale.altitude_label(altitude.0),
                    crate::rules::core::altitude::Scale::Chase => crate::tr!("token-band", band = altitude.0.max(0)),
                };
                let plate = Vec2::new(words.chars().count() as f32 * 9.5 + 8.0, 20.0);
                token.spawn((
                    Badge,
                    Sprite::from_color(Color::srgba(0.05, 0.08, 0.15, 0.85), plate),
                    Transform::from_xyz(side * 0.3, -side * 0.38, 0.65),
                ));
                token.spawn((
                    Badge,
                    Text2d::new(words),
                    TextFont { font_size: FontSize::Px(16.0), ..default() },
                    TextColor(Color::srgb(0.75, 0.92, 1.0)),
                    Transform::from_xyz(side * 0.3, -side * 0.38, 0.7),
                ));
                // Its shadow on the ground square, the token lifted above it.
                let up = lift(scale, altitude.0);
                if up > 0.0 {
                    token.spawn((
                        Badge,
                        Mesh2d(meshes.add(Ellipse::new(side * 0.4, side * 0.16))),
                        MeshMaterial2d(materials.add(Color::srgba(0.0, 0.0, 0.0, 0.45))),
                        Transform::from_xyz(0.0, -up - side * 0.3, -0.5),
                    ));
                }
            }
        });
    }
}

/// How far above its square a flier's token is drawn, its shadow left on the ground: more the higher it
/// flies, at most a quarter square; none at chase scale, where altitude is a band.
fn lift(scale: crate::rules::core::altitude::Scale, altitude: i32) -> f32 {
    if scale == crate::rules::core::altitude::Scale::Chase || altitude <= 0 {
        0.0
    } else {
        (6.0 + altitude as f32 * 1.5).min(TILE_PX * 0.25)
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
                    Ring,
                    Mesh2d(meshes.add(Circle::new(side * 0.46))),
                    MeshMaterial2d(materials.add(Color::srgb(0.05, 0.05, 0.05))),
                    Transform::from_xyz(0.0, 0.0, 0.0),
                ));
                token.spawn((
                    Disc(colour),
                    Mesh2d(meshes.add(Circle::new(side * 0.42))),
                    MeshMaterial2d(materials.add(colour)),
                    Transform::from_xyz(0.0, 0.0, 0.1),
                ));
                token.spawn((
                    Portrait2d,
                    Sprite {
                        image: asset_server.load(format!("icons/{}.png", portrait.icon)),
                        custom_size: Some(Vec2::splat(side * 0.62)),
                        ..default()
                    },
                    Transform::from_xyz(0.0, 0.0, 0.2),
                ));
                let bar_width = side * 0.8;
                token.spawn((
                    HealthBack,
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
                    Label,
                    Text2d::new(name.as_str()),
                    TextFont { font_size: FontSize::Px(LABEL_PX), ..default() },
                    TextColor(Color::WHITE),
                    Transform::from_xyz(0.0, side * 0.5 + 2.0, 0.5),
                ));
                token.spawn((
                    StateWord,
                    Text2d::new(""),
                    TextFont { font_size: FontSize::Px(STATE_WORD_PX), ..default() },
                    TextColor(Color::WHITE),
                    Transform::from_xyz(0.0, -side * 0.46, 0.7),
                    Visibility::Hidden,
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
        &Conditions,
        &Altitude,
    )>,
    mut tokens: Query<(&Token, &mut Transform)>,
) {
    let Some(encounter) = encounter else { return };
    let height = encounter.0.battlefield.height();
    let scale = encounter.0.battlefield.scale();
    let chase = scale == crate::rules::core::altitude::Scale::Chase;
    // At chase scale, who shares each square, in a steady order: they split it in quarters; so do
    // grapplers on one square (004:586), and fliers stacked over one square at different heights, fanned
    // out side by side.
    let mut sharing: std::collections::HashMap<Square, Vec<Entity>> = std::collections::HashMap::new();
    for (token, _) in &tokens {
        if let Ok((position, _, None, _, grappling, conditions, altitude)) = creatures.get(token.creature)
            && (chase || grappling || altitude.0 > 0)
            && !conditions.has(Condition::Dead)
        {
            sharing.entry(position.0).or_default().push(token.creature);
        }
    }
    for here in sharing.values_mut() {
        here.sort();
    }
    let place = |creature: Entity| -> Option<(Vec2, f32)> {
        let (position, size, ..) = creatures.get(creature).ok()?;
        let here = sharing.get(&position.0).map_or(&[][..], Vec::as_slice);
        let nth = here.iter().position(|e| *e == creature).unwrap_or(0);
        let centre = footprint_centre(scale, position.0, *size, height, nth, here.len().max(1));
        Some((centre, if here.len() > 1 { 0.5 } else { 1.0 }))
    };
    for (token, mut transform) in &mut tokens {
        let Ok((_, _, riding, _, _, conditions, altitude)) = creatures.get(token.creature) else { continue };
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
            // The dead lie small under the living, who may stand on their square.
            let (token_scale, z) =
                if conditions.has(Condition::Dead) { (token_scale * DEAD_SCALE, z - 5.0) } else { (token_scale, z) };
            // A flier drawn above its shadow, higher fliers over lower ones; a rider sits on its mount.
            let (up, z) = match riding {
                Some(mount) => (creatures.get(mount.0).map_or(0.0, |m| lift(scale, m.6.0)), z),
                None => (lift(scale, altitude.0), z + altitude.0.clamp(0, 400) as f32 * 0.001),
            };
            transform.translation = (centre + Vec2::new(0.0, up)).extend(z);
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

/// The size of a fallen creature's state word on the board, at most: it shrinks to its token's width.
const STATE_WORD_PX: f32 = 15.0;

/// The size of a token's name on screen, in pixels, whatever the zoom.
const LABEL_PX: f32 = 13.0;

/// How wide the font's glyphs are, for its size.
const GLYPH_WIDTH: f32 = 0.62;

/// Draws the names at one size on screen whatever the zoom. A name wider than its token would run into its
/// neighbours': it is shown only for the creature under the cursor, the one selected and the one whose
/// turn it is, the others keeping their names for when the board is zoomed in (the tracker lists them all).
/// The creature under the cursor names itself under its token, the acting one over its own.
#[expect(clippy::type_complexity, reason = "a Bevy query of the tokens and of their names")]
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource it reads")]
fn fit_labels(
    camera: Single<&Projection, With<Camera2d>>,
    hover: Res<super::state::Hover>,
    selected: Res<super::state::Selected>,
    previews: Res<super::state::Previews>,
    encounter: Option<Res<ActiveEncounter>>,
    creatures: Query<(&Size, &Conditions)>,
    tokens: Query<(&Token, &Children, &Transform)>,
    mut labels: Query<(&Text2d, &mut Transform, &mut Visibility), (With<Label>, Without<Token>)>,
) {
    let Projection::Orthographic(ortho) = *camera else { return };
    let scale = encounter.map_or_else(Default::default, |e| e.0.battlefield.scale());
    let picked = [hover.token, selected.0, previews.active, previews.hovered];
    for (token, children, placed) in &tokens {
        let Ok((size, conditions)) = creatures.get(token.creature) else { continue };
        let side = token_side(scale, *size);
        let token_scale = placed.scale.x.max(0.01);
        for child in children.iter() {
            let Ok((text, mut transform, mut visibility)) = labels.get_mut(child) else { continue };
            let on_screen = side * token_scale / ortho.scale;
            let wide = text.0.chars().count() as f32 * GLYPH_WIDTH * LABEL_PX;
            let shown =
                picked.contains(&Some(token.creature)) || (wide <= on_screen * 1.1 && !conditions.has(Condition::Dead));
            let want = if shown { Visibility::Inherited } else { Visibility::Hidden };
            if *visibility != want {
                *visibility = want;
            }
            let grow = ortho.scale / token_scale;
            // The creature under the cursor, when it is not the one acting or selected, names itself under its
            // token: beside the acting one, the two names do not run into each other.
            let hovered = [hover.token, previews.hovered].contains(&Some(token.creature));
            let acting = [selected.0, previews.active].contains(&Some(token.creature));
            let lift = side * 0.5 + (LABEL_PX / 2.0 + 1.0) * grow;
            let at = Vec3::new(0.0, if hovered && !acting { -lift - 4.0 * grow } else { lift }, 0.5);
            if transform.translation != at || transform.scale.x != grow {
                transform.translation = at;
                transform.scale = Vec3::splat(grow);
            }
        }
    }
}

/// Draws each token as its creature lies: on its feet; on its side when prone or down (greyed when out of
/// the fight, its state written where the health bar was); dead, a small grey marker.
#[expect(clippy::type_complexity, reason = "a Bevy query of the parts of a token its state redraws")]
fn show_posture(
    mut commands: Commands,
    creatures: Query<(&Conditions, &Size)>,
    encounter: Option<Res<ActiveEncounter>>,
    tokens: Query<(Entity, &Token, &Children, Option<&Shown>)>,
    mut parts: ParamSet<(
        Query<(&Disc, &MeshMaterial2d<ColorMaterial>)>,
        Query<&MeshMaterial2d<ColorMaterial>, With<Ring>>,
        Query<(&mut Sprite, &mut Transform), With<Portrait2d>>,
        Query<&mut TextColor, With<Label>>,
        Query<(&mut Text2d, &mut TextColor, &mut Visibility, &mut Transform), (With<StateWord>, Without<Portrait2d>)>,
        Query<&mut Visibility, Or<(With<HealthFill>, With<HealthBack>)>>,
    )>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let scale = encounter.map_or_else(Default::default, |e| e.0.battlefield.scale());
    for (entity, token, children, shown) in &tokens {
        let Ok((conditions, size)) = creatures.get(token.creature) else { continue };
        let side = token_side(scale, *size);
        let posture = posture_of(conditions);
        let down = Down::of(conditions);
        let now = Shown(posture, down, crate::locale::language());
        if shown.is_some_and(|s| *s == now) {
            continue;
        }
        commands.entity(entity).insert(now);
        let grey = |c: Color, amount: f32, alpha: f32| {
            let l = c.to_srgba();
            let mean = (l.red + l.green + l.blue) / 3.0 * 0.6;
            Color::srgba(
                l.red + (mean - l.red) * amount,
                l.green + (mean - l.green) * amount,
                l.blue + (mean - l.blue) * amount,
                alpha,
            )
        };
        for child in children.iter() {
            if let Ok((disc, material)) = parts.p0().get(child) {
                let colour = match posture {
                    Posture::Dead => grey(disc.0, 1.0, 0.55),
                    Posture::Out => grey(disc.0, 0.6, 1.0),
                    Posture::Standing | Posture::Prone => disc.0,
                };
                if let Some(mut m) = materials.get_mut(&material.0) {
                    m.color = colour;
                }
            }
            if let Ok(material) = parts.p1().get(child) {
                let alpha = if posture == Posture::Dead { 0.4 } else { 1.0 };
                if let Some(mut m) = materials.get_mut(&material.0) {
                    m.color = Color::srgba(0.05, 0.05, 0.05, alpha);
                }
            }
            if let Ok((mut sprite, mut transform)) = parts.p2().get_mut(child) {
                let lying = posture != Posture::Standing;
                transform.rotation = Quat::from_rotation_z(if lying { -std::f32::consts::FRAC_PI_2 } else { 0.0 });
                sprite.color = match posture {
                    Posture::Dead => Color::srgba(0.6, 0.6, 0.6, 0.5),
                    Posture::Out => Color::srgb(0.7, 0.7, 0.7),
                    Posture::Standing | Posture::Prone => Color::WHITE,
                };
            }
            if let Ok(mut colour) = parts.p3().get_mut(child) {
                colour.0 = match posture {
                    Posture::Dead => Color::srgba(0.7, 0.7, 0.7, 0.6),
                    Posture::Out => Color::srgb(0.75, 0.75, 0.75),
                    Posture::Standing | Posture::Prone => Color::WHITE,
                };
            }
            if let Ok((mut text, mut colour, mut visibility, mut transform)) = parts.p4().get_mut(child) {
                match down {
                    Some(down) => {
                        let [r, g, b] = down.rgb();
                        text.0 = down.word();
                        // Within its token's width: two fallen side by side keep their words apart.
                        let wide = text.0.chars().count() as f32 * GLYPH_WIDTH * STATE_WORD_PX;
                        transform.scale = Vec3::splat((side * 0.95 / wide).min(1.0));
                        colour.0 = Color::srgb_u8(r, g, b);
                        *visibility = Visibility::Inherited;
                    }
                    None => *visibility = Visibility::Hidden,
                }
            }
            if let Ok(mut visibility) = parts.p5().get_mut(child) {
                *visibility = if down.is_some() { Visibility::Hidden } else { Visibility::Inherited };
            }
        }
    }
}

/// How a token is drawn, read back from what is on the board (for the scripted runs' final state).
#[derive(Clone, Debug, serde::Serialize, PartialEq)]
pub struct TokenLook {
    /// Turned on its side (prone, down or dead).
    pub lying: bool,
    /// Its disc greyed (out of the fight).
    pub greyed: bool,
    /// The word written under it (dead, dying, stable…), if one is shown.
    pub word: Option<String>,
    /// Its name shown over it.
    pub label_shown: bool,
    /// Drawn smaller than its space (a dead creature's marker).
    pub shrunk: bool,
}

/// How each creature's token is drawn.
pub(super) fn token_looks(world: &mut World) -> std::collections::HashMap<Entity, TokenLook> {
    let mut tokens = kept::<(&Token, &Children, &Transform), ()>(world);
    let mut out = std::collections::HashMap::new();
    for (token, children, placed) in tokens.iter(world) {
        let mut look = TokenLook {
            lying: false,
            greyed: false,
            word: None,
            label_shown: false,
            shrunk: placed.scale.x < 0.99
                && world.get::<crate::rules::core::creature::Riding>(token.creature).is_none(),
        };
        for child in children.iter() {
            let shown = world.get::<Visibility>(child).is_some_and(|v| *v != Visibility::Hidden);
            if world.get::<Portrait2d>(child).is_some() {
                look.lying = world.get::<Transform>(child).is_some_and(|t| t.rotation.z.abs() > 0.1);
            }
            if let Some(disc) = world.get::<Disc>(child)
                && let Some(material) = world.get::<MeshMaterial2d<ColorMaterial>>(child)
            {
                look.greyed =
                    world.resource::<Assets<ColorMaterial>>().get(&material.0).is_some_and(|m| m.color != disc.0);
            }
            if world.get::<StateWord>(child).is_some() && shown {
                look.word = world.get::<Text2d>(child).map(|t| t.0.clone());
            }
            if world.get::<Label>(child).is_some() {
                look.label_shown = shown;
            }
        }
        out.insert(token.creature, look);
    }
    out
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
