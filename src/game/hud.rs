//! The panels, drawn with egui: the turn banner and initiative tracker on top, what is under the cursor
//! and the combat log on the right, the action bar at the bottom, the menu (levels, who plays each
//! faction, save, load, restart), the end of the fight and any error.

use std::path::PathBuf;

use super::RIGHT_PANEL;
use super::actions::{BAR, BarKind, bar_state, use_bar};
use super::save;
use super::state::{
    AppState, Choice, Controllers, History, Hover, Notice, Previews, Restart, Selected, frames_per_second,
};
use super::turn::display_name;
use crate::data::level::Control;
use crate::encounter::ActiveEncounter;
use crate::locale::tr;
use crate::rules::core::battlefield::{Battlefield, Terrain};
use crate::rules::core::creature::*;
use crate::rules::core::facts::{EventLog, Fact};
use crate::rules::core::geometry::squares_to_metres;
use crate::rules::core::kept::kept;
use crate::rules::core::refusal::Refusal;
use crate::rules::turns::TurnOrder;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

use crate::tr;

/// An entry of the action bar as the panel shows it.
#[derive(Clone)]
struct BarEntry {
    /// Its index in [`BAR`].
    index: usize,
    /// Whether it applies now, or why not.
    state: Result<(), Refusal>,
    /// A mode or switch that is on.
    on: bool,
    /// What its hover says when it applies: who would strike an action that provokes.
    hover: Option<String>,
    /// Worth a button when the bar shows only what reads at a glance (a manoeuvre with a foe in reach).
    worth: bool,
}

impl BarEntry {
    /// Left out of the bar that shows only what reads at a glance.
    fn tucked_away(&self) -> bool {
        (self.state.is_err() || !self.worth) && !common(BAR[self.index].kind) && !self.on
    }
}

/// Everything the panels show, gathered from the world once a frame.
#[derive(Resource, Default, Clone)]
pub struct HudView {
    turn: String,
    /// The action declared and waiting for the player's word, in words (super::declare).
    declared: Option<String>,
    /// The player's setting: act at once, never asked first.
    act_at_once: bool,
    tracker: Vec<TrackerRow>,
    /// Each entry of the bar.
    bar: Vec<BarEntry>,
    /// The bar shows every action.
    all_actions: bool,
    inspect: Vec<(String, egui::Color32)>,
    ended: Option<String>,
    /// The level is played from the editor.
    from_editor: bool,
    /// Hot-seat: the side the screen waits to be handed to.
    hand_over: Option<(String, egui::Color32)>,
    /// An AI creature's turn is over but for its end, a creature the player plays delaying: whose turn, and
    /// who may act now (004:629-631).
    delay_choice: Option<(String, String)>,
    /// The cards of the levels, while the menu is open.
    levels: std::sync::Arc<Vec<super::menu::LevelCard>>,
    factions: Vec<(String, Control)>,
    level_name: String,
    steps: usize,
    fps: Option<f64>,
    /// The previews' generation and the selection `inspect` was last worked out for.
    inspected: Option<(u64, Option<Entity>)>,
    /// At chase scale, the altitude bands from the highest down (004:788-797).
    bands: Vec<BandRow>,
    /// The weapon selector of the creature the player commands.
    weapons: Vec<super::weapons::WeaponRow>,
    /// Its shield.
    shield: Option<super::weapons::ShieldRow>,
    /// The names of the creatures on the board, to name who would strike.
    names: std::collections::HashMap<Entity, String>,
    /// The blows deal the other kind of damage than the weapon's (004:173, 004:302).
    other_damage: bool,
    /// Moves tumble (000:78-79).
    tumble: bool,
    /// Whether a full attack strikes with two weapons, if the creature commanded could (004:462, 004:471-472).
    two_weapons: Option<bool>,
    /// What its attacks of opportunity do, if it could trip with them.
    opportunity: Option<crate::rules::attack::manoeuvre::OpportunityChoice>,
    /// Power Attack's amount, and whether the creature commanded has the feat.
    power: (u32, bool),
    /// What the weapon rows were worked out for: the steps played, the turn, the weapon chosen.
    weapons_for: Option<WeaponsFor>,
}

/// One altitude band of the chase scale's panel.
#[derive(Clone)]
struct BandRow {
    band: u8,
    /// Who is in it, in their faction's colour.
    creatures: Vec<(String, egui::Color32)>,
    /// What reaches the ground from it.
    reaches: String,
}

/// What reaches the ground from `band` (004:788-797), in words.
fn band_reaches(band: u8) -> String {
    use crate::rules::core::altitude::{Reaching, band_reach};
    let row = band_reach(band);
    let words: Vec<String> = [
        (Reaching::Melee, "reach-melee"),
        (Reaching::Thrown, "reach-thrown"),
        (Reaching::Projectile, "reach-projectiles"),
        (Reaching::CloseSpell, "reach-close-spells"),
        (Reaching::MediumSpell, "reach-medium-spells"),
        (Reaching::LongSpell, "reach-long-spells"),
        (Reaching::ConeBreath, "reach-cones"),
        (Reaching::LineBreath, "reach-lines"),
    ]
    .into_iter()
    .filter(|(what, _)| row.allows(*what))
    .map(|(_, id)| tr(id))
    .collect();
    if band == 0 {
        tr("reach-ground")
    } else if words.is_empty() {
        tr("reach-nothing")
    } else {
        words.join(", ")
    }
}

/// The bar's switch of what the creature's attacks of opportunity do.
fn opportunity_label(choice: crate::rules::attack::manoeuvre::OpportunityChoice) -> String {
    use crate::rules::attack::manoeuvre::OpportunityChoice;
    match choice {
        OpportunityChoice::Strike => tr("gear-opportunity-strike"),
        OpportunityChoice::Trip => tr("gear-opportunity-trip"),
        OpportunityChoice::Disarm => tr("gear-opportunity-disarm"),
        OpportunityChoice::Sunder => tr("gear-opportunity-sunder"),
        OpportunityChoice::Weigh => tr("gear-opportunity-weigh"),
        OpportunityChoice::Hold => tr("gear-opportunity-hold"),
    }
}

/// The weapon selector: each weapon with its attack line, the chosen one marked; one put away offers its
/// draw, the chosen one in hand its putting away and its dropping, each with its cost and who would strike.
fn weapon_row(ui: &mut egui::Ui, view: &HudView, clicks: &mut HudClicks) {
    use crate::rules::attack::gear::Handle;
    if view.weapons.is_empty() {
        return;
    }
    let name = |e: Entity| view.names.get(&e).cloned().unwrap_or_default();
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new(tr("gear-weapons")).color(GREY));
        for row in &view.weapons {
            let state = match (row.in_hand, row.unloaded) {
                (false, _) => tr("gear-put-away"),
                (true, true) => tr("gear-not-loaded"),
                (true, false) => String::new(),
            };
            let label =
                tr!("gear-weapon", name = row.name.clone(), line = row.line.clone(), state = state, key = row.key);
            let button = egui::Button::new(label).selected(row.chosen);
            let hover = match &row.draw {
                Some(Ok(draw)) => tr!("gear-draw", cost = super::weapons::cost_words(draw, name)),
                Some(Err(refusal)) => tr!("gear-cannot-draw", why = super::rules_words::refusal_full(refusal)),
                None => tr("gear-attack-with"),
            };
            let enabled = row.draw.as_ref().is_none_or(Result::is_ok);
            let response = ui.add_enabled(enabled, button);
            let response = super::rules_cursor::hover(response, &hover, enabled);
            if response.clicked() {
                clicks.0.push(HudClick::Weapon(row.key));
            }
            let chosen = row.chosen;
            for (what, label, cost) in [
                (Handle::Prepare, tr("gear-prepare"), &row.prepare),
                (Handle::Load, tr("gear-load"), &row.load),
                (Handle::PutAway, tr("gear-put-away-button"), &row.put_away),
                (Handle::Drop, tr("gear-drop"), &row.drop),
            ] {
                // A flask shows how to prepare it, in hand or not (004:144); the rest, the weapon chosen.
                let Some(cost) = cost.as_ref().filter(|_| chosen || what == Handle::Prepare) else { continue };
                let (enabled, hover) = match cost {
                    Ok(preview) => (true, super::weapons::cost_words(preview, name)),
                    Err(refusal) => (false, super::rules_words::refusal_full(refusal)),
                };
                let response = ui.add_enabled(enabled, egui::Button::new(label).small());
                let response = super::rules_cursor::hover(response, &hover, enabled);
                if response.clicked() {
                    clicks.0.push(HudClick::Handle(row.name.clone(), what));
                }
            }
        }
        if let Some(shield) = &view.shield {
            let label = if shield.strapped {
                tr!("gear-loose-shield", shield = shield.name.clone())
            } else {
                tr!("gear-strap-shield", shield = shield.name.clone())
            };
            let (enabled, hover) = match &shield.cost {
                Ok(preview) => (true, super::weapons::cost_words(preview, name)),
                Err(refusal) => (false, super::rules_words::refusal_full(refusal)),
            };
            let response = ui.add_enabled(enabled, egui::Button::new(label).selected(shield.strapped));
            let response = super::rules_cursor::hover(response, &hover, enabled);
            if response.clicked() {
                clicks.0.push(HudClick::Shield);
            }
        }
        let button = egui::Button::new(tr("gear-other-damage")).selected(view.other_damage);
        let hover = tr("gear-other-damage-hover");
        if ui.add(button).on_hover_text(hover).clicked() {
            clicks.0.push(HudClick::OtherDamage);
        }
        if let (power, true) = view.power {
            let label = if power == 0 { tr("gear-power") } else { tr!("gear-power-some", power = power) };
            let hover = tr("gear-power-hover");
            if ui.add(egui::Button::new(label).selected(power > 0)).on_hover_text(hover).clicked() {
                clicks.0.push(HudClick::Power);
            }
        }
        if let Some(two) = view.two_weapons {
            let button = egui::Button::new(tr("gear-two-weapons")).selected(two);
            if ui.add(button).on_hover_text(tr("gear-two-weapons-hover")).clicked() {
                clicks.0.push(HudClick::TwoWeapons);
            }
        }
        if let Some(choice) = view.opportunity {
            let button = egui::Button::new(opportunity_label(choice))
                .selected(choice != crate::rules::attack::manoeuvre::OpportunityChoice::Strike);
            if ui.add(button).on_hover_text(tr("gear-opportunity-hover")).clicked() {
                clicks.0.push(HudClick::Opportunity);
            }
        }
        let button = egui::Button::new(tr("gear-tumble")).selected(view.tumble);
        let hover = tr("gear-tumble-hover");
        if ui.add(button).on_hover_text(hover).clicked() {
            clicks.0.push(HudClick::Tumble);
        }
    });
}

/// What the weapon selector was worked out for: the steps played, whose turn and which round, the weapon
/// chosen, and the creature commanded.
type WeaponsFor = (usize, Option<usize>, u32, Option<String>, Option<Entity>);

#[derive(Clone)]
struct TrackerRow {
    /// The creature's display name (and its party's, riders and mount).
    name: String,
    faction_colour: egui::Color32,
    initiative: i32,
    hp: String,
    current: bool,
    /// Out of the fight or limited: dead, dying, stable, unconscious, helpless, disabled.
    down: Option<super::tokens::Down>,
    delaying: bool,
}

/// The combat log as text, kept in step with the event log.
#[derive(Resource, Default)]
pub struct LogView {
    /// Each row as drawn, its colour, and the entry it belongs to (in `entries`).
    lines: Vec<(String, egui::Color32, usize)>,
    /// Each entry whole: a row's hover shows its entry's rules, whichever row the citation fell in.
    entries: Vec<String>,
    seen: usize,
    /// The language the lines are in: another one writes them all again.
    language: crate::locale::Language,
}

/// What the player clicked in the panels, carried out in the next update.
#[derive(Resource, Default)]
pub struct HudClicks(pub Vec<HudClick>);

/// A click in the panels.
#[derive(Clone, Debug)]
pub enum HudClick {
    /// An action-bar entry.
    Bar(BarKind),
    /// Start the battle again.
    Restart,
    /// Rest after the fight: a night's sleep, or a whole day in bed (`true`) (004:293-294).
    Rest(bool),
    /// Play another level.
    Level(PathBuf),
    /// Edit a level, or a new one (`None`).
    Edit(Option<PathBuf>),
    /// Back to the editor the level is played from.
    BackToEditor,
    /// Who plays a faction.
    Control(String, Control),
    /// Save the battle.
    Save,
    /// Load the saved battle.
    Load,
    /// Dismiss the message.
    Dismiss,
    /// Show every action of the bar, or only those open now and the common ones.
    AllActions,
    /// The player's setting: act at once, or be asked first before an action that provokes or ends the
    /// turn early.
    ActAtOnce(bool),
    /// Choose the weapon of this number (drawing it if it is put away).
    Weapon(usize),
    /// Put away or drop a weapon.
    Handle(String, crate::rules::attack::gear::Handle),
    /// Switch the blows to the other kind of damage.
    OtherDamage,
    /// Switch the moves to tumbles.
    Tumble,
    /// Switch a full attack between two weapons and one.
    TwoWeapons,
    /// What the attacks of opportunity do.
    Opportunity,
    /// The next Power Attack amount.
    Power,
    /// Strap on or loose the shield.
    Shield,
    /// The next player is at the screen (hot-seat).
    HandedOver,
    /// The player's delaying creature keeps waiting past the AI creature's turn (004:629-631).
    KeepWaiting,
    /// Speak this language.
    Language(crate::locale::Language),
}

/// Whether the action bar shows every action, those that do not apply now greyed with their reason, or only
/// the ones open now and the common ones (the default: a bar that reads at a glance).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllActions(pub bool);

/// The actions the bar always shows, open or not: the ones every creature has.
fn common(kind: BarKind) -> bool {
    use super::state::Mode;
    use crate::rules::movement::MovementAction::*;
    matches!(
        kind,
        BarKind::Mode(Mode::Move(Move | Run | Withdraw | FiveFootStep))
            | BarKind::Mode(Mode::Attack | Mode::FullAttack | Mode::Charge)
            | BarKind::TotalDefense
            | BarKind::Delay
            | BarKind::EndTurn
    )
}

/// The banner's letter size: 26 points, less when its line would not fit `width` points of board (a letter
/// of the banner's bold face is about 0.6 of its size wide), 12 at least.
fn banner_size(text: &str, width: f32) -> f32 {
    let wide = 0.6 * 26.0 * text.chars().count() as f32;
    (26.0 * (width / wide).min(1.0)).max(12.0)
}

/// A banner announcing the turn, shown for a moment.
#[derive(Resource, Default)]
struct Banner {
    text: String,
    shown_at: f32,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<HudView>()
        .init_resource::<LogView>()
        .init_resource::<HudClicks>()
        .init_resource::<Notice>()
        .init_resource::<Banner>();
    app.add_systems(Update, apply_clicks.after(super::clicks::clicks).in_set(super::ViewSystems::Input));
    app.add_systems(Update, (gather, follow_log).chain().in_set(super::ViewSystems::Panels));
    app.add_systems(EguiPrimaryContextPass, draw);
}

impl HudView {
    /// What the top bar says: whose turn, or how the fight ended.
    pub fn turn(&self) -> &str {
        &self.turn
    }
}

fn colour_of(encounter: &ActiveEncounter, faction: &str) -> egui::Color32 {
    let [r, g, b] = encounter.faction_rgb(faction);
    egui::Color32::from_rgb(r, g, b)
}

fn terrain_words(terrain: Terrain) -> String {
    match terrain {
        Terrain::Floor => tr("terrain-floor"),
        Terrain::Difficult => tr("terrain-difficult"),
        Terrain::Obstacle => tr("terrain-obstacle"),
        Terrain::LowWall => tr("terrain-low-wall"),
        Terrain::Wall => tr("terrain-wall"),
        Terrain::Pit => tr("terrain-pit"),
        Terrain::Water => tr("terrain-water"),
        Terrain::DeepWater => tr("terrain-deep-water"),
    }
}

const GREY: egui::Color32 = egui::Color32::from_rgb(190, 190, 190);
const GOOD: egui::Color32 = egui::Color32::from_rgb(120, 230, 140);
const BAD: egui::Color32 = egui::Color32::from_rgb(255, 120, 110);
const WARN: egui::Color32 = egui::Color32::from_rgb(255, 200, 90);

/// What the water does to a creature in it, by the row of the underwater table it fights by (004:637-645).
fn water_line(world: &World, entity: Entity) -> Option<String> {
    use crate::rules::core::water::{self, Headway, Swimmer, Thrust};
    let (size, speed, traits, conditions) = (
        world.get::<Size>(entity)?,
        world.get::<Speed>(entity)?,
        world.get::<Traits>(entity)?,
        world.get::<Conditions>(entity)?,
    );
    let at = world.get::<Space>(entity)?.at(world.get::<Position>(entity)?.0);
    let altitude = world.get::<Altitude>(entity)?.0;
    let swimmer = Swimmer::of(*size, speed, traits, conditions);
    let row = water::row_at(world.resource::<crate::rules::core::battlefield::Battlefield>(), at, altitude, swimmer)?;
    let blow = |thrust| if row.attack(thrust).is_some() { tr("water-hampered") } else { tr("water-normal") };
    let moves = match row.headway() {
        Headway::Normal => tr("water-moves-normally"),
        Headway::Half => tr("water-half-speed"),
        Headway::Quarter => tr("water-quarter"),
        Headway::None => tr("water-no-headway"),
    };
    Some(tr!(
        "water-line",
        row = row.label(),
        slash = blow(Thrust::SlashOrBludgeon),
        pierce = blow(Thrust::Pierce),
        moves = moves
    ))
}

fn creature_lines(world: &World, entity: Entity, out: &mut Vec<(String, egui::Color32)>) {
    let (Some(name), Some(id), Some(hp), Some(conditions)) = (
        world.get::<Name>(entity),
        world.get::<CreatureId>(entity),
        world.get::<HitPoints>(entity),
        world.get::<Conditions>(entity),
    ) else {
        return;
    };
    let faction = world.get::<Faction>(entity).map(|f| f.0.clone()).unwrap_or_default();
    out.push((format!("{name} ({faction}, #{id})"), egui::Color32::WHITE));
    out.push((tr!("creature-hp", current = hp.current, max = hp.max, nonlethal = hp.nonlethal), GREY));
    if let (Some(defense), Some(abilities), Some(size)) =
        (world.get::<Defense>(entity), world.get::<Abilities>(entity), world.get::<Size>(entity))
    {
        let traits = world.get::<Traits>(entity).cloned().unwrap_or_default();
        // Its Dexterity as its conditions leave it (004:378, 004:394, 004:423), as the attacks on it read it.
        let abilities = world
            .get::<Conditions>(entity)
            .map_or(*abilities, |c| crate::rules::core::creature::abilities_in_play(abilities, c));
        let ac = armor_class(defense, &abilities, *size).for_traits(&traits);
        out.push((tr!("creature-ac", normal = ac.normal, touch = ac.touch, flat = ac.flat_footed), GREY));
    }
    if let Some(armament) = world.get::<Armament>(entity) {
        let names: Vec<String> = armament
            .0
            .iter()
            .map(|w| if w.stowed { tr!("creature-put-away", weapon = w.name.clone()) } else { w.name.clone() })
            .collect();
        out.push((tr!("creature-weapons", list = names.join(", ")), GREY));
    }
    use crate::rules::attack::manoeuvre::OpportunityChoice;
    let options = crate::rules::attack::disarming::OpportunityOptions::of_creature(world, entity);
    let choice = world.get::<OpportunityChoice>(entity).copied().unwrap_or_default();
    let line = match choice {
        OpportunityChoice::Strike => None,
        _ if !options.allows(choice) => None,
        OpportunityChoice::Trip => Some("creature-opportunity-trip"),
        OpportunityChoice::Disarm => Some("creature-opportunity-disarm"),
        OpportunityChoice::Sunder => Some("creature-opportunity-sunder"),
        OpportunityChoice::Weigh => Some("creature-opportunity-weigh"),
        OpportunityChoice::Hold => Some("creature-opportunity-hold"),
    };
    if let Some(key) = line {
        out.push((tr(key), GREY));
    }
    if !conditions.0.is_empty() {
        let list: Vec<String> = conditions.0.iter().map(|c| super::condition_words(*c)).collect();
        out.push((tr!("creature-conditions", list = list.join(", ")), WARN));
    }
    if let Some(line) = water_line(world, entity) {
        out.push((line, WARN));
    }
    if let (Some(speed), Some(altitude)) = (world.get::<Speed>(entity), world.get::<Altitude>(entity))
        && (speed.fly.is_some() || altitude.0 > 0)
    {
        let heading = world.get::<Heading>(entity).map(|h| super::heading_words(h.0)).unwrap_or_default();
        let scale = world.resource::<crate::rules::core::battlefield::Battlefield>().scale();
        out.push((tr!("creature-altitude", altitude = scale.altitude_label(altitude.0), heading = heading), GREY));
    }
    let name = |e: &Entity| display_name(world, *e);
    if let Some(hidden) = world.get::<crate::rules::core::creature::Hidden>(entity)
        && !hidden.from.is_empty()
    {
        let from: Vec<String> = hidden.from.iter().map(name).collect();
        let line = if hidden.at.is_some() {
            tr!("creature-hidden-on-foot", from = from.join(", "))
        } else {
            tr!("creature-hidden", from = from.join(", "))
        };
        out.push((line, WARN));
    }
    if let Some(misled) = world.get::<crate::rules::core::creature::Misled>(entity) {
        out.push((tr!("creature-misled", by = misled.by.to_string()), WARN));
    }
    if world.get::<crate::rules::core::creature::MilitarySaddle>(entity).is_some() {
        out.push((tr("creature-military-saddle"), GREY));
    }
    if let Some(seat) = world.get::<crate::rules::core::creature::Seat>(entity)
        && seat.passenger
    {
        out.push((tr("creature-passenger"), GREY));
    }
}

/// Gathers what the panels show.
#[expect(clippy::too_many_lines, reason = "gathers every panel's rows from the world in one pass")]
pub(super) fn gather(world: &mut World) {
    let Some(encounter) = world.get_resource::<ActiveEncounter>().cloned() else { return };
    let order = world.resource::<TurnOrder>().clone();
    let mut view =
        HudView { level_name: encounter.0.name.clone(), steps: world.resource::<History>().0.len(), ..default() };
    let controllers = world.resource::<Controllers>().clone();
    view.factions = encounter
        .0
        .factions
        .iter()
        .map(|f| (f.name.clone(), controllers.0.get(&f.name).copied().unwrap_or_default()))
        .collect();
    for (i, entry) in order.entries.iter().enumerate() {
        let (Some(hp), Some(conditions), Some(faction)) = (
            world.get::<HitPoints>(entry.entity),
            world.get::<Conditions>(entry.entity),
            world.get::<Faction>(entry.entity),
        ) else {
            continue;
        };
        // A rider's place is its mount's and its passengers' too (004:653-655).
        let mount = world.get::<crate::rules::core::creature::Riding>(entry.entity).map_or(entry.entity, |r| r.0);
        let on_it =
            world.get::<crate::rules::core::creature::Riders>(mount).map(|r| r.all().to_vec()).unwrap_or_default();
        let party: Vec<String> = std::iter::once(mount)
            .chain(on_it)
            .filter(|e| *e != entry.entity)
            .map(|e| display_name(world, e))
            .collect();
        let own = display_name(world, entry.entity);
        let name = if party.is_empty() { own } else { format!("{own} + {}", party.join(" + ")) };
        view.tracker.push(TrackerRow {
            name,
            faction_colour: colour_of(&encounter, &faction.0),
            initiative: entry.total,
            hp: format!("{}/{}", hp.current, hp.max),
            current: order.current == Some(i),
            down: super::tokens::Down::of(conditions),
            delaying: entry.delaying,
        });
    }
    if let Some(current) = order.current_entity().filter(|_| !order.ended) {
        let id = display_name(world, current);
        let faction = world.get::<Faction>(current).map(|f| f.0.clone()).unwrap_or_default();
        let who = match controllers.0.get(&faction).copied().unwrap_or_default() {
            Control::Human => tr("turn-you-play"),
            Control::Ai => tr("turn-computer-plays"),
        };
        view.turn = tr!("turn-banner", round = order.round, name = id.clone(), side = faction.clone(), who = who);
        if order.acting.len() > 1 {
            let commanded = super::turn::human_turn(world).unwrap_or(current);
            let name = display_name(world, commanded);
            view.turn.push_str(&tr!("turn-party", name = name.clone()));
        }
    }
    if order.ended {
        let winner = world.resource::<EventLog>().0.iter().rev().find_map(|f| match f {
            Fact::EncounterEnded { winner } => Some(winner.clone()),
            _ => None,
        });
        let humans: Vec<&String> = view.factions.iter().filter(|(_, c)| *c == Control::Human).map(|(n, _)| n).collect();
        let ended = match winner.flatten() {
            Some(w) if humans.len() == 1 && humans[0] == &w => tr!("end-victory", side = w),
            Some(w) if humans.len() == 1 => tr!("end-defeat", side = w),
            Some(w) => tr!("end-won", side = w),
            None => tr("end-nobody"),
        };
        view.turn = tr!("turn-over", round = order.round, ended = ended.clone());
        view.ended = Some(ended);
    }
    view.from_editor = world.get_resource::<super::editor::Editor>().is_some_and(|e| e.playing);
    view.declared = super::declare::current(world).map(super::declare::words);
    view.act_at_once = world.get_resource::<super::settings::Settings>().is_some_and(|s| s.act_at_once);
    // Who would strike an action that provokes where the creature stands, named once (004:66).
    let mut strikers: Option<Vec<String>> = None;
    let near = super::turn::human_turn(world).map(|me| super::actions::Near::of(world, me)).unwrap_or_default();
    for (i, entry) in BAR.iter().enumerate() {
        let on = {
            let choice = world.resource::<Choice>();
            match entry.kind {
                BarKind::Mode(mode) => choice.mode == mode,
                BarKind::Defensively => choice.defensively,
                BarKind::Stay => choice.stay,
                BarKind::Threats => choice.show_threats,
                _ => false,
            }
        };
        let state = bar_state(world, entry.kind);
        let takeoff = match (entry.kind, &state, super::turn::human_turn(world)) {
            (BarKind::TakeOff, Ok(()), Some(me)) => Some(super::actions::takeoff_hint(world, me)),
            _ => None,
        };
        let hover = state.as_ref().ok().and_then(|()| super::actions::provokes_in_place(entry.kind)).map(|rule| {
            let strikers = strikers.get_or_insert_with(|| {
                let here = &world.resource::<Previews>().strikers_here;
                here.iter().map(|e| display_name(world, *e)).collect::<Vec<_>>()
            });
            if strikers.is_empty() {
                tr!("bar-provokes-no-foe", rule = rule)
            } else {
                tr!("bar-provokes-from", rule = rule, who = strikers.join(", "))
            }
        });
        let worth = super::actions::worth_a_button(world, &near, entry.kind);
        view.bar.push(BarEntry { index: i, state, on, hover: hover.or(takeoff), worth });
    }
    view.all_actions = world.get_resource::<AllActions>().is_some_and(|a| a.0);
    view.delay_choice =
        world.get_resource::<super::turn::DelayChoice>().and_then(|c| c.held.clone()).and_then(|(_, ended)| {
            let delayed = super::turn::delayed_of_the_player(world).ok()?;
            let delayed = world.resource::<crate::rules::core::creature::Roster>().0.get(&delayed).copied()?;
            Some((display_name(world, ended), display_name(world, delayed)))
        });
    view.hand_over = world
        .get_resource::<super::turn::HandOver>()
        .and_then(|h| h.to.clone())
        .map(|side| (side.clone(), colour_of(&encounter, &side)));
    // What the cursor is over changes only with the previews or the selection: not worked out every frame.
    let now = (world.resource::<Previews>().generation, world.resource::<Selected>().0);
    let last = world.resource::<HudView>();
    if last.inspected == Some(now) {
        view.inspect = last.inspect.clone();
    } else {
        let mut q = kept::<(&CreatureId, &Name), ()>(world);
        let names = board_names(q.iter(world).map(|(id, name)| (id.0.as_str(), name.as_str())));
        // The rules' words name creatures by id: the player reads their names on the board.
        view.inspect = inspect(world).into_iter().map(|(line, colour)| (with_names(&line, &names), colour)).collect();
    }
    view.inspected = Some(now);
    view.fps = frames_per_second(world);
    if encounter.0.battlefield.scale() == crate::rules::core::altitude::Scale::Chase {
        let mut q = kept::<(&CreatureId, &Altitude, &Faction, &Conditions), ()>(world);
        let mut everyone: Vec<(String, i32, egui::Color32)> = q
            .iter(world)
            .filter(|(.., c)| !c.has(Condition::Dead))
            .map(|(id, a, f, _)| (id.0.clone(), a.0, colour_of(&encounter, &f.0)))
            .collect();
        everyone.sort_by(|a, b| a.0.cmp(&b.0));
        view.bands = (0..=crate::rules::core::altitude::HIGHEST_BAND)
            .rev()
            .map(|band| BandRow {
                band,
                creatures: everyone
                    .iter()
                    .filter(|(_, a, _)| (*a).clamp(0, 6) == i32::from(band))
                    .map(|(id, _, colour)| (id.clone(), *colour))
                    .collect(),
                reaches: band_reaches(band),
            })
            .collect();
    }
    // The weapon selector, worked out again when a step is played, the turn passes or the choice changes.
    super::weapons::keep_choice_valid(world);
    super::weapons::keep_power_valid(world);
    // Of a party acting together, the one commanded: Tab changes whose weapons these are.
    let commanded = super::turn::human_turn(world);
    let key = (view.steps, order.current, order.round, world.resource::<Choice>().weapon.clone(), commanded);
    let old = world.resource::<HudView>();
    if old.weapons_for.as_ref() == Some(&key) {
        view.weapons = old.weapons.clone();
        view.shield = old.shield.clone();
        view.names = old.names.clone();
    } else {
        view.weapons = super::weapons::weapon_rows(world);
        view.shield = super::weapons::shield_row(world);
        let mut creatures = kept::<Entity, With<CreatureId>>(world);
        let all: Vec<Entity> = creatures.iter(world).collect();
        view.names = all.into_iter().map(|e| (e, display_name(world, e))).collect();
    }
    view.weapons_for = Some(key);
    view.other_damage = world.resource::<Choice>().other_damage;
    view.tumble = world.resource::<Choice>().tumble;
    view.two_weapons = super::weapons::two_weapons_now(world);
    view.opportunity = super::weapons::opportunity_choice_now(world);
    let feat = super::turn::human_turn(world)
        .is_some_and(|me| world.get::<Feats>(me).is_some_and(|f| f.has(Feat::PowerAttack)));
    view.power = (world.resource::<Choice>().power, feat);
    // The folder is read when the menu is open only.
    view.levels = if *world.resource::<State<AppState>>().get() == AppState::Menu {
        let cached = world.resource::<HudView>().levels.clone();
        if cached.is_empty() { std::sync::Arc::new(super::menu::level_cards(&list_levels())) } else { cached }
    } else {
        std::sync::Arc::default()
    };
    world.insert_resource(view);
}

/// The creatures' ids and their names on the board, the longest id first.
fn board_names<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> =
        pairs.filter(|(id, name)| id != name).map(|(id, name)| (id.to_string(), name.to_string())).collect();
    names.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    names
}

/// `text` with each creature's id written as its name on the board: the player reads "Goblin 1" in the
/// log and the panels where the rules write "goblin-1". An id is replaced where it stands as a whole
/// word (not inside "goblin-10" or "hobgoblin", nor after a `#`).
pub fn with_names(text: &str, names: &[(String, String)]) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(c) = rest.chars().next() {
        // "#goblin-1" writes the id itself, for the level's designer.
        let after_word = out.chars().next_back().is_some_and(|c| word(c) || c == '#');
        if !after_word {
            for (id, name) in names {
                // The id already read inside its name ("Human fighter" for "fighter", "Human rogue 1" for
                // "rogue") stays.
                let in_name = name.len() > id.len()
                    && name
                        .match_indices(id.as_str())
                        .any(|(k, _)| out.ends_with(&name[..k]) && rest.starts_with(&name[k..]));
                if rest.starts_with(id.as_str()) && !rest[id.len()..].chars().next().is_some_and(word) && !in_name {
                    out.push_str(name);
                    rest = &rest[id.len()..];
                    continue 'scan;
                }
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Hot-seat: the whole window hidden behind a screen that asks for the next player.
fn hand_over_screen(ctx: &egui::Context, side: &str, colour: egui::Color32, clicks: &mut HudClicks) {
    let screen = ctx.content_rect();
    egui::Area::new("hand over".into()).order(egui::Order::Foreground).fixed_pos(screen.min).show(ctx, |ui| {
        let (rect, _) = ui.allocate_exact_size(screen.size(), egui::Sense::click());
        ui.painter().rect_filled(rect, 0.0, egui::Color32::from_rgb(16, 16, 22));
        ui.scope_builder(
            egui::UiBuilder::new().max_rect(rect.shrink2(egui::vec2(rect.width() * 0.3, rect.height() * 0.35))),
            |ui| {
                ui.vertical_centered(|ui| {
                    ui.label(egui::RichText::new(tr!("handover-now", side = side)).size(30.0).strong().color(colour));
                    ui.add_space(12.0);
                    ui.label(egui::RichText::new(tr!("handover-hand", side = side)).size(18.0));
                    ui.add_space(18.0);
                    if ui.button(egui::RichText::new(tr!("handover-show", side = side)).size(18.0)).clicked() {
                        clicks.0.push(HudClick::HandedOver);
                    }
                });
            },
        );
    });
}

/// A delaying creature's moment (004:629-631): the AI creature's turn is over, and the player says whether
/// its delaying creature acts now, right after it, or keeps waiting.
fn delay_choice(ctx: &egui::Context, (ended, delayed): (&str, &str), clicks: &mut HudClicks) {
    egui::Area::new("delay choice".into()).anchor(egui::Align2::CENTER_BOTTOM, [-(RIGHT_PANEL / 2.0), -90.0]).show(
        ctx,
        |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.label(egui::RichText::new(tr!("delay-choice-now", ended = ended, delayed = delayed)).size(18.0));
                ui.horizontal(|ui| {
                    if ui.button(tr!("delay-choice-act", delayed = delayed)).clicked() {
                        clicks.0.push(HudClick::Bar(BarKind::ActNow));
                    }
                    if ui.button(tr!("delay-choice-wait")).clicked() {
                        clicks.0.push(HudClick::KeepWaiting);
                    }
                });
            });
        },
    );
}

/// What the board's colours and marks say, in the corner of the board: the movement actions' fills, the
/// hatching of threatened squares, the marks of a step that provokes.
fn legend(ctx: &egui::Context, board: egui::Rect) {
    use crate::rules::movement::MovementAction;
    let swatch = |colour: Color| {
        let c = colour.to_srgba();
        egui::Color32::from_rgb((c.red * 255.0) as u8, (c.green * 255.0) as u8, (c.blue * 255.0) as u8)
    };
    let fills = [
        MovementAction::FiveFootStep,
        MovementAction::Move,
        MovementAction::DoubleMove,
        MovementAction::Run,
        MovementAction::Charge,
    ];
    egui::Area::new("legend".into())
        .pivot(egui::Align2::LEFT_BOTTOM)
        .fixed_pos(board.left_bottom() + egui::vec2(8.0, -8.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    for action in fills {
                        let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                        ui.painter().rect_filled(rect, 2.0, swatch(super::overlay::action_colour(action)));
                        ui.label(egui::RichText::new(super::movement_words(action)).small());
                    }
                    let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                    let red = swatch(super::overlay::THREAT);
                    ui.painter().rect_stroke(rect, 0.0, egui::Stroke::new(2.0, red), egui::StrokeKind::Inside);
                    for (a, b) in [((-7.0, -7.0), (7.0, 7.0)), ((-1.0, -7.0), (7.0, 1.0)), ((-7.0, -1.0), (1.0, 7.0))] {
                        let at = |(x, y): (f32, f32)| rect.center() + egui::vec2(x, y);
                        ui.painter().line_segment([at(a), at(b)], egui::Stroke::new(1.5, red));
                    }
                    ui.label(egui::RichText::new(tr("legend-threatened")).small());
                    let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                    ui.painter().rect_filled(rect.shrink(2.0), 0.0, swatch(super::overlay::PROVOKES));
                    ui.label(egui::RichText::new(tr("legend-provokes")).small());
                });
            });
        });
}

/// The charge lanes to the hovered foe, and where the first provokes.
fn lane_lines(
    world: &World,
    lanes: Result<Vec<crate::rules::movement::ChargeLane>, Refusal>,
    lane_provocations: &[crate::preview::Provoking],
    out: &mut Vec<(String, egui::Color32)>,
) {
    match lanes {
        Ok(l) => {
            out.push((tr!("charge-lanes", lanes = l.len()), GOOD));
            if crate::rules::movement::by_a_die(&l) {
                let among = l.first().map_or(0, |lane| lane.nearest.len());
                out.push((tr!("charge-by-a-die", among = among, clear = l.len()), WARN));
            }
            provocation_lines(world, lane_provocations, &tr("provoke-along-it"), out);
        }
        Err(refusal) => out.push((tr!("charge-none", why = super::rules_words::refusal_full(&refusal)), BAD)),
    }
}

/// What a click on a foe out of reach does in the automatic mode.
fn approach_lines(approach: Option<&super::state::Approach>, out: &mut Vec<(String, egui::Color32)>) {
    match approach {
        Some(super::state::Approach::MoveThenAttack { to, action, .. }) => {
            out.push((tr!("approach-walk", to = to.to_string(), action = super::movement_words(*action)), WARN))
        }
        Some(super::state::Approach::Charge {
            to, finish: crate::rules::turns::moving::ChargeFinish::Attack, ..
        }) => {
            out.push((tr!("approach-charge", to = to.to_string()), WARN));
        }
        Some(super::state::Approach::Charge { to, .. }) => {
            out.push((tr!("approach-charge-instead", to = to.to_string()), WARN));
        }
        None => {}
    }
}

/// The level files in `levels/`.
pub fn list_levels() -> Vec<PathBuf> {
    let dir = crate::data::root().join("levels");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "ron")).collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// What the right panel says about the square under the cursor, the path to it, or the attack on it.
fn inspect(world: &mut World) -> Vec<(String, egui::Color32)> {
    let mut out = Vec::new();
    let selected = world.resource::<Selected>().0;
    let Some(square) = world.resource::<Hover>().square else {
        if let Some(entity) = selected {
            out.push((tr("inspect-selected"), WARN));
            creature_lines(world, entity, &mut out);
        }
        return out;
    };
    let field = world.resource::<Battlefield>();
    let dark = if field.is_dark(square) { tr("square-dark") } else { String::new() };
    let fog = if field.is_foggy(square) { tr("square-fog") } else { String::new() };
    let terrain = field.terrain(square);
    let rough = if field.is_difficult(square) && !matches!(terrain, Terrain::Difficult | Terrain::Water) {
        tr("square-difficult")
    } else {
        String::new()
    };
    let blocked =
        if field.has_obstacle(square) && !terrain.is_obstacle() { tr("square-obstacle") } else { String::new() };
    let what = format!("{}{rough}{blocked}{dark}{fog}", terrain_words(terrain));
    out.push((tr!("square-line", square = square.to_string(), what = what), egui::Color32::WHITE));
    let previews = world.resource::<Previews>();
    if let Some((action, cost)) = previews.options.at(square) {
        out.push((
            tr!(
                "square-reachable",
                action = super::movement_words(action),
                squares = cost,
                metres = crate::locale::decimal(squares_to_metres(cost))
            ),
            GREY,
        ));
    }
    let hovered = previews.hovered;
    let active = previews.active;
    let path = previews.path.clone();
    let attack = previews.attack.clone();
    let lanes = previews.lanes.clone();
    let lane_provocations = previews.lane_provocations.clone();
    let approach = previews.approach.clone();
    let cast = previews.cast.clone();
    let manoeuvres = special_previews(previews);
    let breath = previews.breath.clone().map(|b| b.map(|covered| (covered, previews.breath_saves.clone())));
    let choice = world.resource::<super::state::Choice>().clone();
    // What cover the square gives: standing there, against the ranged attacks of each foe of the active
    // creature (004:398-406).
    if let Some(me) = active
        && hovered.is_none()
        && field_allows_standing(world, square)
    {
        let covers = cover_from_foes(world, me, square);
        if !covers.is_empty() {
            out.push((tr!("cover-standing-here", list = covers.join("; ")), WARN));
        }
    }
    if let Some(path) = path {
        path_lines(world, path, &mut out);
        tumble_lines(world, active.filter(|_| choice.tumble), &mut out);
    }
    if let Some(entity) = hovered.or(selected) {
        if hovered.is_none() {
            out.push((tr("inspect-selected"), WARN));
        }
        creature_lines(world, entity, &mut out);
    }
    // A flier in the air and a creature under the cursor: how it would strike it, instead of the attack from
    // where it is and the flight to that square.
    let flier_on_creature = world.resource::<Previews>().flights.is_some()
        && matches!(choice.mode, super::state::Mode::Auto | super::state::Mode::Attack)
        && hovered.is_some_and(|h| {
            Some(h) != active && world.get::<Faction>(h) != active.and_then(|a| world.get::<Faction>(a))
        });
    if flier_on_creature {
        flier_strike_lines(world, square, &mut out);
    }
    approach_lines(approach.as_ref(), &mut out);
    if let Some(attack) = attack.filter(|a| !flier_on_creature || a.is_ok()) {
        attack_lines(attack, &mut out);
    }
    if !flier_on_creature {
        flight_lines(world, active, &choice, square, &mut out);
    }
    if choice.mode == super::state::Mode::Breath
        && let Some(me) = active
    {
        breath_lines(world, me, breath, &mut out);
    }
    if let Some(me) = active {
        manoeuvre_lines(world, me, &choice, &mut out);
    }
    if let Some(hint) = mode_hint(&choice) {
        out.push((hint, WARN));
    }
    special_attack_lines(world, manoeuvres, &mut out);
    if let Some(cast) = cast {
        cast_lines(cast, &choice, &mut out);
    }
    if let Some(lanes) = lanes {
        lane_lines(world, lanes, &lane_provocations, &mut out);
    }
    out
}

/// What a tumble asks (000:78-79, the d20 Tumble rule's numbers): its checks and their chances.
fn tumble_lines(world: &World, tumbler: Option<Entity>, out: &mut Vec<(String, egui::Color32)>) {
    use crate::rules::movement::{TUMBLE_THROUGH_DC, tumble_past_dc};
    let Some(me) = tumbler else { return };
    let Some(bonus) = world.get::<Skills>(me).and_then(|s| s.tumble) else {
        out.push((tr("hud-tumble-untrained"), BAD));
        return;
    };
    let chance = |dc: i32| (1..=20).filter(|roll| roll + bonus >= dc).count() * 5;
    out.push((
        tr!(
            "hud-tumble-checks",
            bonus = format!("{bonus:+}"),
            first = tumble_past_dc(0).to_string(),
            first_chance = chance(tumble_past_dc(0)).to_string(),
            second = tumble_past_dc(1).to_string(),
            second_chance = chance(tumble_past_dc(1)).to_string(),
            through = TUMBLE_THROUGH_DC.to_string(),
            through_chance = chance(TUMBLE_THROUGH_DC).to_string()
        ),
        WARN,
    ));
}

/// The path to the hovered square: its action, steps and cost, and each attack of opportunity on the way.
fn path_lines(
    world: &World,
    path: Result<crate::preview::PathPreview, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    match path {
        Ok(p) => {
            out.push((
                tr!(
                    "path-line",
                    action = super::movement_words(p.action),
                    steps = p.route.steps.len(),
                    squares = p.route.cost,
                    metres = crate::locale::decimal(squares_to_metres(p.route.cost))
                ),
                GOOD,
            ));
            provocation_lines(world, &p.provocations, &tr("provoke-on-the-way"), out);
        }
        Err(refusal) => out.push((tr!("path-none", why = super::rules_words::refusal_full(&refusal)), BAD)),
    }
}

/// Each step of a move that provokes, who would strike and why (004:64-71); or that none does, `place`.
fn provocation_lines(
    world: &World,
    provocations: &[crate::preview::Provoking],
    place: &str,
    out: &mut Vec<(String, egui::Color32)>,
) {
    if provocations.is_empty() {
        out.push((tr!("provoke-none", place = place), GOOD));
    }
    for p in provocations {
        let names: Vec<String> = p.from.iter().map(|e| display_name(world, *e)).collect();
        out.push((
            tr!(
                "provoke-step",
                step = p.after_steps,
                square = p.square.to_string(),
                who = names.join(", "),
                why = p.reason
            ),
            BAD,
        ));
        let trippers: Vec<String> = p
            .from
            .iter()
            .filter(|e| {
                let mover = world.resource::<Previews>().active;
                mover.is_some_and(|m| crate::rules::attack::manoeuvre::may_trip_by_opportunity(world, **e, m))
            })
            .map(|e| display_name(world, *e))
            .collect();
        if !trippers.is_empty() {
            out.push((tr!("provoke-may-trip", who = trippers.join(", ")), WARN));
        }
        let mover = world.resource::<Previews>().active;
        for e in &p.from {
            use crate::rules::attack::manoeuvre::OpportunityChoice;
            let taking =
                mover.and_then(|m| crate::rules::attack::disarming::may_take_weapon_by_opportunity(world, *e, m));
            let who = display_name(world, *e);
            let line = match taking {
                Some(OpportunityChoice::Disarm) => tr!("provoke-may-disarm", who = who),
                Some(OpportunityChoice::Sunder) => tr!("provoke-may-sunder", who = who),
                Some(_) => tr!("provoke-may-disarm-or-sunder", who = who),
                None => continue,
            };
            out.push((line, WARN));
        }
    }
}

/// How a flier in the air would strike the creature under the cursor: a dive attack, or a flight beside it
/// and a blow with the standard action left; or what it must do first.
fn flier_strike_lines(
    world: &mut World,
    square: crate::rules::core::geometry::Square,
    out: &mut Vec<(String, egui::Color32)>,
) {
    // The foe above the flier is reached by climbing, one below by diving (004:747, 004:753).
    let above = super::turn::human_turn(world)
        .map(|me| super::turn::flier_of(world, me))
        .zip(super::turn::pointed_at(world, square))
        .and_then(|(flier, foe)| Some(world.get::<Altitude>(foe)?.0 > world.get::<Altitude>(flier)?.0))
        .unwrap_or(false);
    match super::previews::flier_strike(world, square) {
        Some(steps) if matches!(&steps[..], [crate::rules::command::Command::Fly { charge_at: Some(_), .. }]) => {
            out.push((tr("preview-click-a-flying-charge"), GOOD));
            let me = super::turn::human_turn(world);
            let foe = super::turn::pointed_at(world, square);
            if let (Some(me), Some(foe)) = (me, foe) {
                attack_lines(crate::preview::flying_charge_preview(world, me, foe).map(|(_, a)| a), out);
            }
        }
        Some(steps) if steps.len() == 1 => out.push((tr("preview-click-a-dive-attack-on"), GOOD)),
        Some(_) => out.push((tr("preview-click-fly-beside-it-and"), GOOD)),
        None => out.push((
            tr(match world.resource::<crate::rules::core::battlefield::Battlefield>().scale() {
                crate::rules::core::altitude::Scale::Normal if above => "hud-flier-climb-first",
                crate::rules::core::altitude::Scale::Normal => "hud-flier-dive-first",
                crate::rules::core::altitude::Scale::Chase => "hud-flier-band-first",
            }),
            BAD,
        )),
    }
}

/// The attack on the hovered creature: bonus, AC and chance of each blow, and every term.
fn attack_lines(attack: Result<crate::preview::AttackPreview, Refusal>, out: &mut Vec<(String, egui::Color32)>) {
    match attack {
        Ok(a) => {
            let bonuses: Vec<String> = a.bonuses.iter().map(|b| format!("{b:+}")).collect();
            let chances: Vec<String> = a.chances.iter().map(|c| format!("{:.0}%", c * 100.0)).collect();
            out.push((
                tr!(
                    "attack-line",
                    weapon = a.plan.weapon.name.clone(),
                    bonuses = bonuses.join("/"),
                    ac = a.plan.armor_class,
                    chances = chances.join("/")
                ),
                GOOD,
            ));
            out.push((tr!("attack-bonus", terms = super::rules_words::terms(&a.plan.modifiers)), GREY));
            out.push((tr!("attack-ac", terms = super::rules_words::terms(&a.plan.armor_class_parts)), GREY));
            // The damage: the weapon's dice, its modifiers, extra dice thrown once even on a critical (004:27).
            let mut damage = a.plan.weapon.damage.to_string();
            if !a.plan.damage_modifiers.is_empty() {
                damage = format!("{damage}, {}", super::rules_words::terms(&a.plan.damage_modifiers));
            }
            // Multiplied (a set spear, a lance on a mounted charge, a dive): the dice and modifiers again.
            for times in &a.plan.multipliers {
                damage = format!("{damage}, x{} {}", times.value, times.source);
            }
            for extra in &a.plan.extra_dice {
                damage = format!("{damage}, {}", tr!("attack-extra-dice", dice = extra.to_string()));
            }
            let nonlethal = if a.plan.deals_nonlethal() { tr("attack-nonlethal") } else { String::new() };
            out.push((tr!("attack-damage", damage = format!("{damage}{nonlethal}")), GREY));
            if let Some(why) = a.plan.harmless {
                out.push((tr!("attack-harmless", reason = super::rules_words::reason(why)), WARN));
            }
            if a.plan.miss_chance > 0 {
                out.push((tr!("attack-concealment", chance = a.plan.miss_chance), WARN));
            }
            if let Some((bonus, chance)) = a.knees {
                out.push((
                    tr!("attack-knees", bonus = format!("{bonus:+}"), chance = format!("{:.0}", chance * 100.0)),
                    WARN,
                ));
            }
            out.push((tr("attack-click"), GOOD));
        }
        Err(refusal) => out.push((tr!("attack-none", why = super::rules_words::refusal_full(&refusal)), BAD)),
    }
}

/// The previews of the special attacks: a trip's, an aid another's.
type SpecialPreviews = (
    Option<Result<crate::preview::TripPreview, Refusal>>,
    Option<Result<crate::preview::AidPreview, Refusal>>,
    Option<Result<crate::preview::FeintPreview, Refusal>>,
    Option<Result<crate::preview::BullRushPreview, Refusal>>,
    Option<Result<crate::rules::special::turning::TurnPlan, Refusal>>,
    Option<Result<crate::rules::special::disarm::DisarmPlan, Refusal>>,
    Option<Result<crate::rules::special::sunder::SunderPlan, Refusal>>,
);

/// The previews of the special attacks, for the panel.
fn special_previews(previews: &Previews) -> SpecialPreviews {
    (
        previews.trip.clone(),
        previews.aid.clone(),
        previews.feint.clone(),
        previews.bull_rush.clone(),
        previews.turning.clone(),
        previews.disarm.clone(),
        previews.sunder.clone(),
    )
}

/// The special attack a click on the hovered foe would make: a trip, an aid another.
/// First aid to the hovered friend: the Heal check and its chance (004:283), and that it provokes (004:107).
fn first_aid_lines(
    first_aid: Option<Result<crate::rules::health::first_aid::FirstAidPlan, Refusal>>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    match first_aid {
        Some(Ok(aid)) => {
            let chance = aid.chance() * 100.0;
            out.push((
                tr!(
                    "preview-first-aid-heal-against-dc",
                    bonus = format!("{:+}", aid.bonus),
                    chance = format!("{:.0}", chance)
                ),
                GOOD,
            ));
            out.push((tr("preview-a-standard-action-that-provokes"), WARN));
        }
        Some(Err(refusal)) => out.push((
            tr!(
                "preview-no-first-aid",
                reason = super::rules_words::refusal(&refusal.reason),
                rule = refusal.rule.clone()
            ),
            BAD,
        )),
        None => {}
    }
}

/// What a click on the hovered friend would do: first aid (004:283), a release (004:566).
fn friend_lines(previews: &Previews, out: &mut Vec<(String, egui::Color32)>) {
    first_aid_lines(previews.first_aid.clone(), out);
    release_lines(previews.release.clone(), out);
}

/// Releasing the hovered undead: the Hit Dice it frees (004:566), or why not.
fn release_lines(
    release: Option<Result<crate::rules::special::turning::ReleasePlan, Refusal>>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    match release {
        Some(Ok(plan)) => out.push((
            tr!(
                "preview-release",
                hit_dice = plan.hit_dice.to_string(),
                left = plan.commanded_hit_dice.saturating_sub(plan.hit_dice).to_string(),
                level = plan.level.to_string()
            ),
            GOOD,
        )),
        Some(Err(refusal)) => out.push((
            tr!(
                "preview-no-release",
                reason = super::rules_words::refusal(&refusal.reason),
                rule = refusal.rule.clone()
            ),
            BAD,
        )),
        None => {}
    }
}

fn special_attack_lines(
    world: &World,
    (trip, aid, feint, bull_rush, turning, disarm, sunder): SpecialPreviews,
    out: &mut Vec<(String, egui::Color32)>,
) {
    if let Some(grapple) = world.resource::<Previews>().grapple.clone() {
        grapple_lines(world, grapple, out);
    }
    if let Some(throw) = world.resource::<Previews>().throw.clone() {
        throw_lines(world, throw, out);
    }
    friend_lines(world.resource::<Previews>(), out);
    match world.resource::<Previews>().overrun.clone() {
        Some(Ok(o)) if o.blocks => {
            out.push((
                tr!(
                    "preview-overrun-it-blocks-to-go",
                    defender = contest_terms(&o.attacker, &o.defender),
                    chance = format!("{:.0}", o.chance() * 100.0)
                ),
                GOOD,
            ));
            out.push((
                tr!(
                    "preview-won-it-falls-prone-and",
                    squares = o.squares.to_string(),
                    resist = contest_terms(&o.knock, &o.resist)
                ),
                WARN,
            ));
            out.push((overrun_cost(o.during), GOOD));
            overrun_strikers(world, out);
        }
        Some(Ok(o)) => {
            out.push((tr!("preview-overrun-it-would-step-aside", squares = o.squares.to_string()), GOOD));
            overrun_strikers(world, out);
        }
        Some(Err(refusal)) if refusal.reason.starts_with("it must stand next to the foe") => {
            out.push((tr("preview-overrun-not-next-to-it"), WARN))
        }
        Some(Err(refusal)) => out.push((
            tr!(
                "preview-no-overrun",
                reason = super::rules_words::refusal(&refusal.reason),
                rule = refusal.rule.clone()
            ),
            BAD,
        )),
        None => {}
    }
    match world.resource::<Previews>().coup_de_grace.clone() {
        Some(Ok(weapon)) => {
            out.push((tr!("preview-coup-de-gr-ce-with", name = weapon.name.to_string()), GOOD));
            out.push((tr("preview-it-provokes-from-every-foe"), WARN));
        }
        Some(Err(refusal)) => out.push((
            tr!(
                "preview-no-coup-de-gr-ce",
                reason = super::rules_words::refusal(&refusal.reason),
                rule = refusal.rule.clone()
            ),
            BAD,
        )),
        None => {}
    }
    if let Some(sunder) = sunder {
        sunder_lines(sunder, out);
    }
    if let Some(disarm) = disarm {
        disarm_lines(disarm, out);
    }
    if let Some(turning) = turning {
        turning_lines(turning, out);
    }
    if let Some(trip) = trip {
        trip_lines(trip, out);
    }
    if let Some(rush) = bull_rush {
        bull_rush_lines(world, rush, out);
    }
    if let Some(aid) = aid {
        aid_lines(world, aid, out);
    }
    match feint {
        Some(Ok(f)) => {
            use crate::rules::special::feint::sum;
            out.push((
                tr!(
                    "preview-feint-bluff-against-sense-motive",
                    bluff = format!("{:+}", sum(&f.plan.bluff)),
                    terms = super::rules_words::terms(&f.plan.bluff),
                    sense_motive = format!("{:+}", sum(&f.plan.sense_motive)),
                    terms2 = super::rules_words::terms(&f.plan.sense_motive),
                    chance = format!("{:.0}", f.chance * 100.0)
                ),
                GOOD,
            ));
            out.push((tr("preview-won-it-keeps-no-dex"), GOOD));
        }
        Some(Err(refusal)) => out.push((
            tr!("preview-no-feint", reason = super::rules_words::refusal(&refusal.reason), rule = refusal.rule.clone()),
            BAD,
        )),
        None => {}
    }
}

/// An aid another against the hovered foe: the ally, the attack against AC 10 and its chance (004:444).
fn aid_lines(world: &World, aid: Result<crate::preview::AidPreview, Refusal>, out: &mut Vec<(String, egui::Color32)>) {
    match aid {
        Ok(a) => {
            let ally = display_name(world, a.ally);
            out.push((
                tr!(
                    "preview-aid-the-vs-ac-10",
                    ally = ally.to_string(),
                    name = a.plan.weapon.name.to_string(),
                    modifiers = format!("{:+}", total(&a.plan.modifiers)),
                    chance = format!("{:.0}", a.chance * 100.0)
                ),
                GOOD,
            ));
            out.push((tr!("attack-bonus", terms = super::rules_words::terms(&a.plan.modifiers)), GREY));
            if a.foe_strikes {
                out.push((tr("preview-aid-unarmed-provokes"), WARN));
            }
            out.push((tr("preview-lasts-until-your-next-turn"), GOOD));
        }
        Err(refusal) => out.push((
            tr!("preview-no-aid", reason = super::rules_words::refusal(&refusal.reason), rule = refusal.rule.clone()),
            BAD,
        )),
    }
}

/// The two sides of a special attack's opposed check, each its check, bonus and terms.
fn contest_terms(ours: &crate::rules::special::Side, theirs: &crate::rules::special::Side) -> String {
    let side = |s: &crate::rules::special::Side| {
        format!("{} {:+} ({})", super::check_words(s.check), s.bonus(), super::rules_words::terms(&s.terms))
    };
    tr!("contest-terms", ours = side(ours), theirs = side(theirs))
}

/// A sunder on the hovered foe's weapon: the opposed attack rolls with their terms and the chance, the
/// weapon's hardness and hit points, whether it provokes (004:499-523).
fn sunder_lines(
    sunder: Result<crate::rules::special::sunder::SunderPlan, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    let s = match sunder {
        Ok(s) => s,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-sunder",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    out.push((
        tr!(
            "preview-sunder-its-with-the",
            struck = s.struck().to_string(),
            name = s.weapon.name.to_string(),
            defender = contest_terms(&s.attacker, &s.defender),
            chance = format!("{:.0}", s.chance() * 100.0)
        ),
        GOOD,
    ));
    let (hardness, hit_points) = s.toughness;
    out.push((
        tr!(
            "preview-won-your-damage-less-its",
            hardness = hardness.to_string(),
            hit_points_left = s.hit_points_left().to_string(),
            hit_points = hit_points.to_string()
        ),
        GOOD,
    ));
    if s.provokes {
        out.push((tr("preview-it-provokes-the-foe-s"), WARN));
    }
    out.push((tr("preview-click-to-sunder"), GOOD));
}

/// A disarm on the hovered foe: the opposed attack rolls with their terms and the chance, whether it
/// provokes, and what winning and losing do (004:490-498).
fn disarm_lines(
    disarm: Result<crate::rules::special::disarm::DisarmPlan, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    let d = match disarm {
        Ok(d) => d,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-disarm",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    if let Some(object) = &d.object {
        out.push((
            tr!(
                "preview-snatch-its-unarmed",
                object = object.to_string(),
                defender = contest_terms(&d.attacker, &d.defender),
                chance = format!("{:.0}", d.chance() * 100.0)
            ),
            GOOD,
        ));
        out.push((tr("preview-won-you-hold-it-lost"), GOOD));
        if d.provokes {
            out.push((tr("preview-it-provokes-the-foe-s-2"), WARN));
        }
        out.push((tr("preview-click-to-snatch"), GOOD));
        return;
    }
    out.push((
        tr!(
            "preview-disarm-its-with-the",
            name = d.item.name.to_string(),
            name2 = d.weapon.name.to_string(),
            defender = contest_terms(&d.attacker, &d.defender),
            chance = format!("{:.0}", d.chance() * 100.0)
        ),
        GOOD,
    ));
    let won = if d.weapon.unarmed { tr("preview-disarm-won-unarmed") } else { tr("preview-disarm-won-armed") };
    out.push((won, GOOD));
    if d.counter {
        out.push((tr("preview-lost-it-may-disarm-you"), WARN));
    }
    if d.provokes {
        out.push((tr("preview-it-provokes-the-foe-s-3"), WARN));
    }
    out.push((tr("preview-click-to-disarm"), GOOD));
}

/// The turning a click would make: its check and damage, and each undead within reach, nearest first, with
/// the chance the check reaches its Hit Dice and what becomes of it (004:538-575).
fn turning_lines(
    turning: Result<crate::rules::special::turning::TurnPlan, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    use crate::rules::special::turning::{Energy, TurnKind};
    let plan = match turning {
        Ok(plan) => plan,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-turning",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    let (verb, worst) = match (plan.kind, plan.turning.energy) {
        (TurnKind::Dispel, _) => (tr("turning-dispel"), tr("turning-freed")),
        (TurnKind::Bolster, _) => (tr("turning-bolster"), tr("turning-bolstered")),
        (_, Energy::Positive) => (tr("turning-turn"), tr("turning-destroyed")),
        (_, Energy::Negative) => (tr("turning-rebuke"), tr("turning-commanded")),
    };
    out.push((
        tr!(
            "preview-undead-as-a-cleric-of",
            verb = verb.to_string(),
            level = plan.turning.level.to_string(),
            check_bonus = format!("{:+}", plan.check_bonus),
            damage_bonus = format!("{:+}", plan.damage_bonus),
            uses_left = plan.uses_left.to_string()
        ),
        GOOD,
    ));
    if plan.undead.is_empty() {
        out.push((tr("preview-no-undead-within-18-m"), WARN));
    }
    let mut commanded = plan.commanded_hit_dice;
    for u in &plan.undead {
        if plan.kind != TurnKind::Turn {
            let line = match (plan.kind, u.turned_by_check) {
                (TurnKind::Dispel, Some(check)) => tr!(
                    "preview-hd-turned-by-a-check",
                    id = u.id.to_string(),
                    hit_dice = u.hit_dice.to_string(),
                    check = check.to_string(),
                    count = format!("{:.0}", (1..=20).filter(|d| d + plan.check_bonus >= check).count() as f32 * 5.0),
                    worst = worst.to_string()
                ),
                _ => tr!("preview-hd-bolstered-to-the-table", id = u.id.to_string(), hit_dice = u.hit_dice.to_string()),
            };
            out.push((line, GREY));
            continue;
        }
        let fate = match plan.turning.energy {
            Energy::Positive if u.overwhelmed_by(plan.turning.level) => worst.clone(),
            Energy::Negative if plan.commands(u, &mut commanded) => worst.clone(),
            Energy::Negative => tr("turning-rebuked-10-rounds"),
            Energy::Positive => tr("turning-turned-10-rounds"),
        };
        let resisting = if u.against_check > u.hit_dice as i32 {
            tr!("preview-against-the-check", against_check = u.against_check.to_string())
        } else {
            String::new()
        };
        out.push((
            tr!(
                "preview-hd-m-the-check-reaches",
                id = u.id.to_string(),
                hit_dice = u.hit_dice.to_string(),
                resisting = resisting.to_string(),
                distance = format!("{:.1}", u.distance as f32 * 1.5),
                chance = format!("{:.0}", plan.chance_for(u.against_check) * 100.0),
                fate = fate.to_string()
            ),
            GREY,
        ));
    }
    out.push((tr!("preview-the-nearest-first-as-far", verb = verb.to_string()), GOOD));
}

/// A bull rush on the hovered foe: the charge that brings the rusher there, who strikes as it enters, the
/// check with its terms and chance, and where a win pushes the foe (004:446-450).
fn bull_rush_lines(
    world: &World,
    rush: Result<crate::preview::BullRushPreview, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    let r = match rush {
        Ok(r) => r,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-bull-rush",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    let name = |e: Entity| display_name(world, e);
    let p = &r.plan;
    out.push((
        tr!(
            "preview-bull-rush",
            defender = contest_terms(&p.attacker, &p.defender),
            chance = format!("{:.0}", r.chance * 100.0)
        ),
        GOOD,
    ));
    if let Some(to) = r.charge_to {
        out.push((tr!("preview-charges-to-first-then-rushes", to = to.to_string()), WARN));
    } else {
        if p.provokers.is_empty() {
            out.push((tr("preview-entering-its-space-provokes-no"), GREY));
        } else {
            let names: Vec<String> = p.provokers.iter().map(|e| name(*e)).collect();
            out.push((tr!("preview-entering-its-space-provokes-a", names = names.join(", ")), WARN));
        }
        let way: Vec<String> = p.pushes.iter().map(|f| f.origin.to_string()).collect();
        // A push whose first 1.5 m is the pit says so alone, below.
        let straight_in = p.into_pit && p.pushes.len() == 1;
        match (p.pushes.first(), p.follows.is_empty()) {
            _ if straight_in => {}
            (None, _) => out.push((tr("preview-won-it-cannot-be-pushed"), WARN)),
            (Some(first), true) => {
                out.push((tr!("preview-won-pushed-to-you-stay", origin = first.origin.to_string()), GOOD));
            }
            (Some(_), false) => out
                .push((tr!("preview-won-pushed-to-one-square", then = way.join(&tr("preview-then-separator"))), GOOD)),
        }
        if let (Some(chance), Some(last)) = (p.pit_chance(), p.pushes.last()) {
            let depth = world.resource::<Battlefield>().pit_depth_m();
            let dice = crate::rules::health::falls::falling_damage(depth).map_or("0".into(), |d| d.to_string());
            out.push((
                tr!(
                    "preview-into-the-pit",
                    origin = last.origin.to_string(),
                    depth = depth.to_string(),
                    dice = dice,
                    chance = format!("{:.0}", chance * 100.0)
                ),
                GOOD,
            ));
        }
    }
    out.push((tr("preview-lost-you-are-thrown-back"), WARN));
    out.push((tr("preview-click-to-rush"), GOOD));
}

/// A trip on the hovered foe: the touch attack and the check, each with its terms and chance (004:483-489).
fn trip_lines(trip: Result<crate::preview::TripPreview, Refusal>, out: &mut Vec<(String, egui::Color32)>) {
    let t = match trip {
        Ok(t) => t,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-trip",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    let percent = |p: f32| format!("{:.0}%", p * 100.0);
    out.push((
        tr!(
            "preview-trip-with-the-to-lay",
            name = t.plan.touch.weapon.name.to_string(),
            chance = percent(t.touch_chance * t.check_chance)
        ),
        GOOD,
    ));
    out.push((
        tr!(
            "preview-touch-attack-vs-touch-ac",
            modifiers = format!("{:+}", total(&t.plan.touch.modifiers)),
            armor_class = t.plan.touch.armor_class.to_string(),
            chance = percent(t.touch_chance)
        ),
        GREY,
    ));
    out.push((
        tr!(
            "preview-then-trip-check",
            terms = contest_terms(&t.plan.attacker, &t.plan.defender),
            chance = percent(t.check_chance)
        ),
        GREY,
    ));
    out.push((tr("preview-lost-the-foe-may-trip"), WARN));
    if t.plan.provokes {
        out.push((tr("preview-unarmed-it-provokes-an-attack"), WARN));
    }
    out.push((tr("preview-click-to-trip"), GOOD));
}

/// What an overrun costs, by the move it is made during (004:531).
fn overrun_cost(during: crate::rules::special::overrun::During) -> String {
    use crate::rules::special::overrun::During;
    match during {
        During::MoveGoingOn => tr("preview-overrun-during-the-move"),
        During::NewMove | During::Charge => tr("preview-the-move-and-the-standard"),
    }
}

/// The foes that would strike as the overrunner leaves its square, the foe passed among them (004:65, 004:531), if any.
fn overrun_strikers(world: &World, out: &mut Vec<(String, egui::Color32)>) {
    let previews = world.resource::<Previews>();
    // The foe passed among them: the square next to it is left for its space (004:65, docs/rulings.md).
    let strikers: Vec<Entity> = previews.strikers_here.clone();
    if !strikers.is_empty() {
        let names: Vec<String> = strikers.iter().map(|e| display_name(world, *e)).collect();
        out.push((tr!("preview-overrun-leaving-provokes", names = names.join(", ")), WARN));
    }
}

/// A splash weapon's throw: the ranged touch attack (or AC 5 at an intersection) with its terms and chance,
/// who the burst would splash, how a miss scatters (004:528-530), and who would strike first (004:90).
fn throw_lines(
    world: &World,
    throw: Result<crate::rules::special::splash::ThrowPlan, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    let t = match throw {
        Ok(t) => t,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-throw",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    let name = |e: Entity| display_name(world, e);
    let at = match t.target {
        Some(target) => tr!("preview-throw-target", name = name(target), ac = t.armor_class),
        None => tr("preview-the-intersection-ac-5-004"),
    };
    out.push((
        tr!(
            "preview-throw-the-at",
            name = t.weapon.name.to_string(),
            at = at.to_string(),
            modifiers = format!("{:+}", total(&t.modifiers)),
            chance = format!("{:.0}", t.chance() * 100.0)
        ),
        GOOD,
    ));
    out.push((tr!("attack-bonus", terms = super::rules_words::terms(&t.modifiers)), GREY));
    let splash = t.weapon.splash.as_ref();
    let direct =
        if t.target.is_some() { tr!("preview-to-it", damage = t.weapon.damage.to_string()) } else { String::new() };
    out.push((
        tr!(
            "preview-on-target-splash-to-every",
            direct = direct.to_string(),
            damage = splash.map_or_else(String::new, |s| s.damage.to_string()),
            undead_only = if splash.is_some_and(|s| s.undead_only) { tr("preview-undead-only") } else { String::new() }
        ),
        GOOD,
    ));
    out.push((tr!("preview-a-miss-scatters-square-s", increments = t.increments.to_string()), WARN));
    let strikers = &world.resource::<Previews>().strikers_here;
    if strikers.is_empty() {
        out.push((tr("preview-it-provokes-in-a-threatened"), GOOD));
    } else {
        let names: Vec<String> = strikers.iter().map(|e| display_name(world, *e)).collect();
        out.push((tr!("preview-throw-provokes-from", names = names.join(", ")), WARN));
    }
}

/// A grapple move on the hovered foe: for a grab the touch attack and the hold's check, who strikes as it
/// starts and as it moves in (004:579-587); for a move in the grapple its checks; each chance.
fn grapple_lines(
    world: &World,
    grapple: Result<crate::preview::GrapplePreview, Refusal>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    use crate::rules::special::grapple::GrappleMove;
    let g = match grapple {
        Ok(g) => g,
        Err(refusal) => {
            out.push((
                tr!(
                    "preview-no-grapple",
                    reason = super::rules_words::refusal(&refusal.reason),
                    rule = refusal.rule.clone()
                ),
                BAD,
            ));
            return;
        }
    };
    let percent = |p: f32| format!("{:.0}%", p * 100.0);
    let name = |e: Entity| display_name(world, e);
    if let Some(grab) = &g.grab {
        let what = if grab.joining { "join the grapple (004:615)" } else { "grapple it (004:579-587)" };
        out.push((tr!("preview-to-hold-it", what = what.to_string(), chance = percent(g.chance)), GOOD));
        if let (Some(touch), Some(chance)) = (&grab.touch, g.touch_chance) {
            out.push((
                tr!(
                    "preview-touch-attack-vs-touch-ac-2",
                    modifiers = format!("{:+}", total(&touch.modifiers)),
                    armor_class = touch.armor_class.to_string(),
                    chance = percent(chance)
                ),
                GREY,
            ));
        }
        if grab.hopeless {
            out.push((tr("preview-the-hold-always-fails"), BAD));
        } else {
            out.push((
                tr!(
                    "preview-then-grapple-check",
                    terms = contest_terms(&grab.attacker, &grab.defender),
                    chance = percent(grab.attacker.chance_against(&grab.defender))
                ),
                GREY,
            ));
        }
        out.push((tr("preview-won-an-unarmed-strike-s"), GOOD));
        if g.target_strikes {
            out.push((tr("preview-it-provokes-the-foe-strikes"), WARN));
        } else if grab.provokes {
            out.push((tr("preview-it-provokes-but-the-foe"), GREY));
        }
        if !g.strikers.is_empty() {
            let names: Vec<String> = g.strikers.iter().map(|e| name(*e)).collect();
            out.push((tr!("preview-moving-in-provokes-from", names = names.join(", ")), WARN));
        }
        if grab.into.is_none() {
            out.push((tr("preview-no-room-to-enter-its"), WARN));
        }
        out.push((tr("preview-click-to-grapple"), GOOD));
        return;
    }
    let Some(hold) = &g.hold else { return };
    let what = match g.action {
        GrappleMove::Damage => "grapple-damage",
        GrappleMove::LethalDamage => "grapple-lethal",
        GrappleMove::Pin => "grapple-pin",
        GrappleMove::BreakPin => "grapple-break-pin",
        GrappleMove::Escape | GrappleMove::EscapeArtist => "grapple-escape",
        GrappleMove::Release | GrappleMove::Grab => "grapple-let-go",
        GrappleMove::FreeAlly => "grapple-free-ally",
        GrappleMove::TurnWeapon => "grapple-turn-weapon",
        GrappleMove::DrawLight => "grapple-draw-light",
        GrappleMove::Move => "grapple-move",
    };
    out.push((tr!("grapple-chance", what = tr(what), chance = percent(g.chance)), GOOD));
    for (foe, side) in &hold.opponents {
        out.push((tr!("grapple-against", name = name(*foe), terms = contest_terms(&hold.attacker, side)), GREY));
    }
    if !g.strikers.is_empty() {
        let names: Vec<String> = g.strikers.iter().map(|e| name(*e)).collect();
        out.push((tr!("preview-moving-provokes-from", names = names.join(", ")), WARN));
    }
    out.push((tr("preview-click-to-do-it"), GOOD));
}

/// A flier's flights: how many squares its flight can end on, the speed declared, and the flight to the
/// hovered square with its fly checks.
fn flight_lines(
    world: &mut World,
    active: Option<Entity>,
    choice: &super::state::Choice,
    square: crate::rules::core::geometry::Square,
    out: &mut Vec<(String, egui::Color32)>,
) {
    let Some((count, here)) = world.resource::<Previews>().flights.as_ref().map(|f| (f.len(), f.get(&square).cloned()))
    else {
        return;
    };
    let chase = world.resource::<crate::rules::core::battlefield::Battlefield>().scale()
        == crate::rules::core::altitude::Scale::Chase;
    let climb = match choice.climb {
        0 => tr("preview-level-flight"),
        _ if chase && choice.climb > 0 => tr("preview-climbing-a-band-each-square"),
        _ if chase => tr("preview-diving-a-band-each-square"),
        n if n > 0 => tr!("preview-climbing-m-first", n = (n as f32 * 1.5).to_string()),
        n => tr!("preview-diving-m-first", n = (-n as f32 * 1.5).to_string()),
    };
    out.push((tr!("preview-flying-q-climbs-z-dives", climb = climb.to_string(), flights = count.to_string()), WARN));
    let fly_m = active
        .map(|a| super::turn::flier_of(world, a))
        .and_then(|f| {
            let (speed, traits) = (world.get::<Speed>(f)?, world.get::<crate::rules::core::creature::Traits>(f)?);
            let encumbrance = world.get::<crate::rules::core::creature::Encumbrance>(f).copied().unwrap_or_default();
            crate::rules::core::creature::fly_speed(speed, encumbrance, traits)
        })
        .map_or(0.0, |w| w.squares as f32 * 1.5);
    out.push((declared_speed(choice.speed, choice.decelerate, fly_m), WARN));
    match here {
        Some(planned) => {
            let f = &planned.flight;
            let last = f.waypoints.last();
            let scale = world.resource::<crate::rules::core::battlefield::Battlefield>().scale();
            out.push((
                tr!(
                    "preview-flight-squares-m-manoeuvres-ends",
                    status = super::speed_words(f.status),
                    spent = f.spent.to_string(),
                    square_m = (f.spent as f32 * scale.square_m()).to_string(),
                    maneuvers = f.maneuvers.to_string(),
                    altitude = (scale.altitude_label(last.map_or(0, |w| w.altitude))).to_string(),
                    heading = super::heading_words(
                        last.map_or(crate::rules::core::geometry::Direction::North, |w| w.heading)
                    )
                ),
                if matches!(f.status, crate::rules::core::names::SpeedStatus::Stall) { BAD } else { GOOD },
            ));
            if !f.checks.is_empty() {
                let checks: Vec<String> = f
                    .checks
                    .iter()
                    .map(|c| {
                        let m = c.maneuver;
                        tr!(
                            "preview-dc-at-step-failed",
                            m = m.name().to_string(),
                            dc = c.dc.to_string(),
                            step = (c.step + 1).to_string(),
                            on_failure = m.on_failure().to_string()
                        )
                    })
                    .collect();
                out.push((
                    tr!(
                        "preview-fly-checks-all-made-of",
                        chance = format!("{:.0}", planned.chance * 100.0),
                        checks = checks.join(", ")
                    ),
                    WARN,
                ));
            }
            if matches!(f.status, crate::rules::core::names::SpeedStatus::Stall) {
                out.push((tr("hud-stall-drops"), BAD));
            }
            // Who strikes as it flies past (004:64-65, 004:656), as a move's preview says it.
            if let Some(flier) = active.map(|a| super::turn::flier_of(world, a)) {
                let provoked = crate::preview::flight_provocations(world, flier, f);
                provocation_lines(world, &provoked, &tr("provoke-on-the-way"), out);
            }
        }
        None => out.push((tr("preview-no-flight-ends-here-this"), BAD)),
    }
}

/// What a click does in cast and ready modes.
fn mode_hint(choice: &Choice) -> Option<String> {
    match (&choice.mode, &choice.spell) {
        (super::state::Mode::Cast, Some(spell)) => {
            Some(tr!("preview-casting-click-a-creature-itself", spell = spell.to_string()))
        }
        (super::state::Mode::Ready, _) => Some(ready_hint(choice)),
        _ => None,
    }
}

/// What a click readies in ready mode, and the keys that choose another action (004:620-622).
fn ready_hint(choice: &Choice) -> String {
    use super::state::Readying;
    let keys = tr("preview-ready-keys");
    match &choice.readying {
        None => tr!("preview-ready-an-attack-click-a", keys = keys.to_string()),
        Some(Readying::MoveTo(None)) => tr("preview-ready-a-move-click-the"),
        Some(Readying::MoveTo(Some(to))) => {
            tr!("preview-ready-a-move-to-click", to = to.to_string())
        }
        Some(Readying::Action(action)) => {
            tr!("preview-ready-click-the-creature-whose", action = action.to_string(), keys = keys.to_string())
        }
    }
}

/// The spell on the hovered creature: its level and casting time, and what casting it provokes.
fn cast_lines(
    cast: Result<crate::preview::CastPreview, Refusal>,
    choice: &super::state::Choice,
    out: &mut Vec<(String, egui::Color32)>,
) {
    match cast {
        Ok(c) => {
            let def = &c.spell.def;
            out.push((
                tr!(
                    "preview-cast-level-left",
                    name = c.spell.name.to_string(),
                    level = def.level.to_string(),
                    meanwhile = (match def.casting {
                        crate::rules::magic::CastingTime::Standard => tr("cost-standard"),
                        crate::rules::magic::CastingTime::Rounds(n) => tr!("preview-casting-rounds", rounds = n),
                    })
                    .to_string(),
                    uses = c.spell.uses.to_string()
                ),
                GOOD,
            ));
            if choice.defensively {
                let chance = crate::preview::CastPreview::chance(c.concentration, c.defensive_dc);
                out.push((
                    tr!(
                        "preview-defensively-concentration-vs-dc",
                        concentration = format!("{:+}", c.concentration),
                        defensive_dc = c.defensive_dc.to_string(),
                        chance = format!("{:.0}", chance * 100.0)
                    ),
                    WARN,
                ));
            } else if c.provokes_from.is_empty() {
                out.push((tr("preview-no-foe-threatens-the-caster"), GOOD));
            } else {
                out.push((
                    tr!(
                        "preview-provokes-from-g-to-cast",
                        provokes_from = c.provokes_from.join(", "),
                        defensive_dc = c.defensive_dc.to_string()
                    ),
                    BAD,
                ));
            }
            // The Concentration checks a moving mount calls for (004:480): its pace now, a cast between its moves.
            for (dc, between) in [(c.jolted.map(|(dc, _)| dc), false), (c.between_moves, true)] {
                let Some(dc) = dc else { continue };
                let chance = format!("{:.0}", crate::preview::CastPreview::chance(c.concentration, dc) * 100.0);
                let (concentration, dc) = (format!("{:+}", c.concentration), dc.to_string());
                let line = if between {
                    tr!("preview-cast-between-moves", concentration = concentration, dc = dc, chance = chance)
                } else {
                    tr!("preview-moving-mount-concentration", concentration = concentration, dc = dc, chance = chance)
                };
                out.push((line, WARN));
            }
            out.push((tr("preview-click-to-cast"), GOOD));
        }
        Err(refusal) => out.push((
            tr!(
                "preview-no-casting",
                reason = super::rules_words::refusal(&refusal.reason),
                rule = refusal.rule.clone()
            ),
            BAD,
        )),
    }
}

fn field_allows_standing(world: &World, square: crate::rules::core::geometry::Square) -> bool {
    let field = world.resource::<Battlefield>();
    let terrain = field.terrain(square);
    !terrain.blocks() && !field.has_obstacle(square) && terrain != Terrain::Pit
}

/// A creature as [`cover_from_foes`] reads it: its entity, name, whether a foe, its squares, whether it
/// can act, and its altitude, size and conditions for whether it stands in a line's way.
type Placed = (Entity, String, bool, crate::rules::core::geometry::Footprint, bool, (i32, Size, Conditions));

/// The foes of `me` against whose ranged attacks `me` would have cover standing on `square`.
fn cover_from_foes(world: &mut World, me: Entity, square: crate::rules::core::geometry::Square) -> Vec<String> {
    use crate::rules::attack::{Bystander, Cover};
    use crate::rules::core::geometry::Footprint;
    let Some(mine) = world.get::<Faction>(me).cloned() else { return Vec::new() };
    let side = world.get::<Space>(me).map_or(1, |s| s.width.max(1));
    let mut swimmers = kept::<(&Size, &Speed, &Traits, &Conditions, &Altitude), ()>(world);
    let swimmer = |(size, speed, traits, conditions, altitude): (&Size, &Speed, &Traits, &Conditions, &Altitude)| {
        let swimmer = crate::rules::core::water::Swimmer::of(*size, speed, traits, conditions);
        (swimmer, altitude.0)
    };
    let Ok((my_swimmer, my_altitude)) = swimmers.get(world, me).map(swimmer) else { return Vec::new() };
    let my_size = world.get::<Size>(me).copied().unwrap_or(Size::Medium);
    let mut q = kept::<(Entity, &Name, &Faction, &Position, &Space, &Conditions, &Altitude, &Size), ()>(world);
    // One at the bottom of a pit is out of the fight: no foe to aim at, in no one's way (our ruling).
    let all: Vec<Placed> = q
        .iter(world)
        .filter(|(_, _, _, _, _, c, _, _)| !c.has(Condition::InPit))
        .map(|(e, n, f, p, s, c, a, size)| {
            (e, n.to_string(), *f != mine, s.at(p.0), c.can_act(), (a.0, *size, c.clone()))
        })
        .collect();
    let field = world.resource::<Battlefield>();
    let here = Footprint::new(square, side);
    let mut found = Vec::new();
    for (foe, id, hostile, at, up, (altitude, foe_size, _)) in
        all.iter().filter(|(e, _, hostile, _, up, _)| *hostile && *up && *e != me)
    {
        let _ = (hostile, up);
        let ends = ((*at, *altitude, *foe_size), (here, my_altitude, my_size));
        let bystanders: Vec<Bystander> = all
            .iter()
            .filter(|(e, ..)| *e != me && e != foe)
            .filter(|(_, _, _, fp, _, (a, size, c))| {
                crate::rules::attack::in_the_way(field.scale(), ends, (*fp, *a, *size), c)
            })
            .map(|(_, id, _, fp, _, _)| Bystander { id: id.clone(), footprint: *fp })
            .collect();
        let water = swimmers.get(world, *foe).map(swimmer).ok().and_then(|(foe_swimmer, foe_altitude)| {
            crate::rules::attack::underwater::water_cover_at(
                field,
                (foe_swimmer, *at, foe_altitude),
                (my_swimmer, here, my_altitude),
                false,
            )
        });
        let cover =
            crate::rules::core::cover::ranged_cover_at(field, ((*at, *altitude), (here, my_altitude)), &bystanders);
        match crate::rules::attack::underwater::with_water(cover, water) {
            Cover::None => {}
            Cover::Total => found.push(tr!("preview-total-no-line-of-effect", id = id.to_string())),
            Cover::Hard { what } => found.push(tr!("cover-hard", id = id.clone(), what = what.to_string())),
            Cover::Soft { creature } => found.push(tr!("cover-soft", id = id.clone(), creature = creature.to_string())),
            Cover::Improved { what } => {
                found.push(tr!("cover-improved", id = id.clone(), what = what.to_string()));
            }
            Cover::Water => found.push(tr!("preview-8-improved-in-the-water", id = id.to_string())),
        }
    }
    found
}

fn fact_colour(fact: &Fact) -> egui::Color32 {
    match fact {
        Fact::ActionRefused { .. } | Fact::OpportunityProvoked { .. } => BAD,
        Fact::AttackRolled { hit: true, .. } | Fact::DamageDealt { .. } => WARN,
        Fact::RoundStarted { .. }
        | Fact::TurnStarted { .. }
        | Fact::TurnResumed { .. }
        | Fact::EncounterEnded { .. } => egui::Color32::WHITE,
        _ => GREY,
    }
}

/// Characters per row of the combat log in the right panel.
const LOG_COLUMNS: usize = 54;

/// The combat log's font size: read at a glance, beside the board.
const LOG_FONT: f32 = 12.5;

/// Splits `text` into rows of at most `width` characters at spaces (a longer word gets a row of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut rows = vec![String::new()];
    for word in text.split(' ') {
        let row = rows.last_mut().expect("one row at least");
        if !row.is_empty() && row.chars().count() + 1 + word.chars().count() > width {
            rows.push(word.to_string());
        } else {
            if !row.is_empty() {
                row.push(' ');
            }
            row.push_str(word);
        }
    }
    rows
}

/// Keeps the combat log text in step with the event log, and raises the turn banner.
fn follow_log(
    log: Res<EventLog>,
    mut view: ResMut<LogView>,
    mut banner: ResMut<Banner>,
    time: Res<Time>,
    creatures: Query<(&CreatureId, &Name)>,
) {
    // A shorter log is a new battle; another language, the same log in other words (no banner again).
    let language = crate::locale::language();
    let rewritten = view.language != language && view.seen > 0;
    if log.0.len() < view.seen || view.language != language {
        *view = LogView { language, ..LogView::default() };
    }
    if log.0.len() == view.seen {
        return;
    }
    let names = board_names(creatures.iter().map(|(id, name)| (id.0.as_str(), name.as_str())));
    // The round of a turn just started: those acting with it start theirs next (004:653-655).
    let mut joining: Option<u32> = None;
    for fact in &log.0[view.seen..] {
        if let Some(text) = fact.describe() {
            let text = with_names(&text, &names);
            let entry = view.entries.len();
            for (i, row) in wrap(&text, LOG_COLUMNS).into_iter().enumerate() {
                let row = if i == 0 { row } else { format!("    {row}") };
                view.lines.push((row, fact_colour(fact), entry));
            }
            view.entries.push(text);
        }
        match fact {
            _ if rewritten => {}
            Fact::TurnStarted { creature, round } | Fact::TurnResumed { creature, round } => {
                let creature = with_names(&creature.0, &names);
                let text = if joining == Some(*round) {
                    format!("{} + {creature}", banner.text)
                } else {
                    tr!("banner-turn", round = *round, name = creature)
                };
                *banner = Banner { text, shown_at: time.elapsed_secs() };
                joining = Some(*round);
            }
            Fact::ConditionLost { .. } => {}
            _ => joining = None,
        }
    }
    view.seen = log.0.len();
}

#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource it reads")]
#[expect(clippy::too_many_lines, reason = "the panels' layout, top to bottom")]
fn draw(
    mut contexts: EguiContexts,
    view: Res<HudView>,
    log: Res<LogView>,
    notice: Res<Notice>,
    banner: Res<Banner>,
    state: Res<State<AppState>>,
    mut next: ResMut<NextState<AppState>>,
    mut clicks: ResMut<HudClicks>,
    time: Res<Time>,
    mut thumbnails: Local<std::collections::HashMap<PathBuf, egui::TextureHandle>>,
) -> Result {
    if *state.get() == AppState::Edit {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    // The keys are the game's: Tab commands the next of a party acting together, not the next button, and
    // no button keeps the keyboard to itself (the HUD has no text to type).
    ctx.memory_mut(|m| {
        if let Some(id) = m.focused() {
            m.surrender_focus(id);
        }
    });
    let mut root = egui::Ui::new(
        ctx.clone(),
        "hud".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    egui::Panel::top("turn").show(&mut root, |ui| {
        ui.horizontal(|ui| {
            if ui.button(tr("top-menu")).clicked() {
                next.set(if *state.get() == AppState::Menu { AppState::Battle } else { AppState::Menu });
            }
            if view.from_editor && ui.button(tr("back-to-editor")).on_hover_text(tr("back-to-editor-hover")).clicked() {
                clicks.0.push(HudClick::BackToEditor);
            }
            ui.label(egui::RichText::new(&view.level_name).strong());
            ui.separator();
            ui.label(egui::RichText::new(&view.turn).strong().color(egui::Color32::WHITE));
            if let Some(fps) = view.fps {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(egui::RichText::new(tr!("top-fps", fps = fps.round())).small().color(GREY));
                });
            }
        });
        if let Some(declared) = &view.declared {
            ui.label(egui::RichText::new(declared).strong().color(WARN));
        }
        ui.horizontal_wrapped(|ui| {
            for row in &view.tracker {
                let state = match row.down {
                    Some(down) => down.word(),
                    None => row.hp.clone(),
                };
                let mut text =
                    egui::RichText::new(format!("{} {} · {state}", row.initiative, row.name)).color(row.faction_colour);
                if row.current {
                    text = text.strong().background_color(egui::Color32::from_rgb(70, 60, 20));
                }
                match row.down {
                    Some(super::tokens::Down::Dead) => text = text.strikethrough().color(GREY),
                    Some(super::tokens::Down::Disabled) | None => {}
                    Some(_) => text = text.color(row.faction_colour.gamma_multiply(0.55)),
                }
                if row.delaying {
                    text = text.italics();
                }
                // One entry never breaks across two lines of the tracker (30 creatures fill three).
                let response = ui.add(egui::Label::new(text).extend());
                if let Some(down) = row.down {
                    response.on_hover_text(format!("{} · {}", down.word(), row.hp));
                }
                ui.separator();
            }
        });
    });
    egui::Panel::bottom("actions").show(&mut root, |ui| {
        weapon_row(ui, &view, &mut clicks);
        ui.horizontal_wrapped(|ui| {
            let hidden = view.bar.iter().filter(|e| e.tucked_away()).count();
            let toggle = if view.all_actions { tr("bar-fewer") } else { tr!("bar-all", hidden = hidden) };
            if ui.button(toggle).on_hover_text(tr("bar-all-hover")).clicked() {
                clicks.0.push(HudClick::AllActions);
            }
            for bar_entry in &view.bar {
                let BarEntry { index: i, state, on, hover, .. } = bar_entry;
                let entry = &BAR[*i];
                if !view.all_actions && bar_entry.tucked_away() {
                    continue;
                }
                let button = egui::Button::new(entry.label()).selected(*on);
                let response = ui.add_enabled(state.is_ok(), button);
                let response = match (state, hover) {
                    (Err(refusal), _) => {
                        super::rules_cursor::hover(response, &super::rules_words::refusal_full(refusal), false)
                    }
                    (Ok(()), Some(hover)) => super::rules_cursor::hover(response, hover, true),
                    (Ok(()), None) => response,
                };
                if response.clicked() {
                    clicks.0.push(HudClick::Bar(entry.kind));
                }
            }
        });
        ui.label(egui::RichText::new(tr("bar-mouse-help")).small().color(GREY));
    });
    egui::Panel::right("info").exact_size(RIGHT_PANEL).show(&mut root, |ui| {
        if !view.bands.is_empty() {
            ui.heading(tr("panel-bands"));
            for row in &view.bands {
                ui.horizontal_wrapped(|ui| {
                    let name = crate::rules::core::altitude::BAND_NAMES[usize::from(row.band)];
                    ui.label(egui::RichText::new(format!("{} {name}", row.band)).strong());
                    for (id, colour) in &row.creatures {
                        ui.label(egui::RichText::new(id).color(*colour));
                    }
                    ui.label(egui::RichText::new(&row.reaches).small().color(GREY));
                });
            }
            ui.separator();
        }
        ui.heading(tr("panel-cursor"));
        // Each line that cites the rules shows their own words on hover (the rules at the cursor).
        for (line, colour) in &view.inspect {
            super::rules_cursor::with_rules(ui.label(egui::RichText::new(line).color(*colour)), line);
        }
        ui.separator();
        ui.heading(tr("panel-log"));
        // Only the rows in sight are laid out: the log of a long battle costs nothing per frame.
        let row_height = LOG_FONT + 3.0 + ui.spacing().item_spacing.y;
        egui::ScrollArea::vertical().stick_to_bottom(true).auto_shrink([false, false]).show_rows(
            ui,
            row_height,
            log.lines.len(),
            |ui, rows| {
                for (line, colour, entry) in &log.lines[rows] {
                    let label = egui::Label::new(egui::RichText::new(line).color(*colour).size(LOG_FONT)).truncate();
                    super::rules_cursor::with_rules(ui.add(label), &log.entries[*entry]);
                }
            },
        );
    });
    if *state.get() == AppState::Battle {
        legend(ctx, root.available_rect_before_wrap());
        if let Some((side, colour)) = &view.hand_over {
            hand_over_screen(ctx, side, *colour, &mut clicks);
        }
        if let Some((ended, delayed)) = &view.delay_choice {
            delay_choice(ctx, (ended, delayed), &mut clicks);
        }
    }
    if time.elapsed_secs() - banner.shown_at < 1.5 && !banner.text.is_empty() {
        // One line, never wrapped: on a narrow window the letters shrink to fit the board instead.
        let board = (ctx.content_rect().width() - RIGHT_PANEL - 60.0).max(120.0);
        let size = banner_size(&banner.text, board);
        egui::Area::new("banner".into()).anchor(egui::Align2::CENTER_TOP, [-(RIGHT_PANEL / 2.0), 90.0]).show(
            ctx,
            |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    let text = egui::RichText::new(&banner.text).size(size).strong().color(egui::Color32::WHITE);
                    ui.add(egui::Label::new(text).extend());
                });
            },
        );
    }
    if let Some(ended) = &view.ended {
        egui::Window::new(tr("end-title")).collapsible(false).anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0]).show(
            ctx,
            |ui| {
                ui.label(egui::RichText::new(ended).size(22.0));
                ui.horizontal(|ui| {
                    if ui.button(tr("menu-restart")).clicked() {
                        clicks.0.push(HudClick::Restart);
                    }
                    if ui.button(tr("end-levels")).clicked() {
                        next.set(AppState::Menu);
                    }
                    // The night's sleep and the day in bed that heal the survivors (004:293-294).
                    if ui.button(tr("end-rest-night")).clicked() {
                        clicks.0.push(HudClick::Rest(false));
                    }
                    if ui.button(tr("end-rest-bed")).clicked() {
                        clicks.0.push(HudClick::Rest(true));
                    }
                    if view.from_editor && ui.button(tr("back-to-editor")).clicked() {
                        clicks.0.push(HudClick::BackToEditor);
                    }
                });
            },
        );
    }
    if *state.get() == AppState::Menu {
        egui::Window::new(tr("top-menu")).collapsible(false).default_pos([40.0, 90.0]).default_width(540.0).show(
            ctx,
            |ui| {
                ui.horizontal(|ui| {
                    ui.label(tr("menu-language"));
                    for language in crate::locale::Language::ALL {
                        if ui.selectable_label(crate::locale::language() == language, language.endonym()).clicked() {
                            clicks.0.push(HudClick::Language(language));
                        }
                    }
                });
                let mut at_once = view.act_at_once;
                if ui.checkbox(&mut at_once, tr("settings-act-at-once")).changed() {
                    clicks.0.push(HudClick::ActAtOnce(at_once));
                }
                ui.heading(tr("menu-levels"));
                match super::menu::show_cards(ui, &view.levels, &mut thumbnails) {
                    Some((level, super::menu::CardChoice::Play)) => {
                        clicks.0.push(HudClick::Level(level));
                        next.set(AppState::Battle);
                    }
                    Some((level, super::menu::CardChoice::Edit)) => clicks.0.push(HudClick::Edit(Some(level))),
                    None => {}
                }
                if ui.button(tr("menu-new-level")).on_hover_text(tr("menu-new-level-hover")).clicked() {
                    clicks.0.push(HudClick::Edit(None));
                }
                ui.separator();
                ui.heading(tr("menu-who-plays"));
                for (faction, control) in &view.factions {
                    ui.horizontal(|ui| {
                        ui.label(faction);
                        for (option, label) in
                            [(Control::Human, tr("menu-a-person")), (Control::Ai, tr("menu-the-computer"))]
                        {
                            if ui.selectable_label(*control == option, label).clicked() {
                                clicks.0.push(HudClick::Control(faction.clone(), option));
                            }
                        }
                    });
                }
                ui.separator();
                ui.horizontal(|ui| {
                    if ui.button(tr("menu-save")).clicked() {
                        clicks.0.push(HudClick::Save);
                    }
                    if ui.button(tr("menu-load")).clicked() {
                        clicks.0.push(HudClick::Load);
                    }
                    if ui.button(tr("menu-restart")).clicked() {
                        clicks.0.push(HudClick::Restart);
                    }
                    if ui.button(tr("menu-back")).clicked() {
                        next.set(AppState::Battle);
                    }
                });
                ui.label(egui::RichText::new(tr!("menu-steps", steps = view.steps)).small().color(GREY));
            },
        );
    }
    if let Some((error, text)) = &notice.0 {
        let title = if *error { tr("notice-error") } else { tr("notice-notice") };
        egui::Window::new(title).collapsible(false).anchor(egui::Align2::CENTER_BOTTOM, [0.0, -90.0]).show(ctx, |ui| {
            let label = ui.label(egui::RichText::new(text).color(if *error { BAD } else { GOOD }).monospace());
            super::rules_cursor::with_rules(label, text);
            if ui.button(tr("notice-ok")).clicked() {
                clicks.0.push(HudClick::Dismiss);
            }
        });
    }
    Ok(())
}

/// Carries out the clicks made in the panels.
pub(super) fn apply_clicks(world: &mut World) {
    let clicks = std::mem::take(&mut world.resource_mut::<HudClicks>().0);
    for click in clicks {
        match click {
            HudClick::Bar(kind) => {
                if bar_state(world, kind).is_ok() {
                    use_bar(world, kind);
                }
            }
            HudClick::Restart => {
                world.insert_resource(Restart { replay: Vec::new() });
            }
            HudClick::Rest(bed_rest) => {
                let hours = if bed_rest { 24 } else { 8 };
                world
                    .resource_mut::<super::state::Pending>()
                    .0
                    .push_back(crate::rules::command::Command::Rest { hours, bed_rest });
            }
            HudClick::Level(path) => super::switch_level(world, &path),
            HudClick::Edit(path) => {
                let request = match path {
                    Some(path) => super::editor::EditRequest::Open(path),
                    None => {
                        super::editor::EditRequest::New { width: 20, height: 14, path: super::editor::new_level_path() }
                    }
                };
                world.insert_resource(request);
            }
            HudClick::BackToEditor => super::editor::back_to_editor(world),
            HudClick::Control(faction, control) => {
                world.resource_mut::<Controllers>().0.insert(faction, control);
            }
            HudClick::Save => save::save_and_tell(world),
            HudClick::Load => save::load_or_tell(world),
            HudClick::Dismiss => world.insert_resource(Notice(None)),
            HudClick::HandedOver => world.resource_mut::<super::turn::HandOver>().to = None,
            HudClick::KeepWaiting => super::turn::keep_waiting(world),
            HudClick::Weapon(key) => super::weapons::choose(world, key),
            HudClick::Handle(name, what) => super::weapons::handle(world, &name, what),
            HudClick::OtherDamage => {
                let mut choice = world.resource_mut::<Choice>();
                choice.other_damage = !choice.other_damage;
            }
            HudClick::Shield => super::weapons::handle_shield(world),
            HudClick::Tumble => {
                let mut choice = world.resource_mut::<Choice>();
                choice.tumble = !choice.tumble;
            }
            HudClick::TwoWeapons => super::weapons::switch_two_weapons(world),
            HudClick::Opportunity => super::weapons::switch_opportunity_choice(world),
            HudClick::Power => super::weapons::next_power(world),
            HudClick::Language(language) => {
                crate::locale::set_language(language);
                world.resource_mut::<super::settings::Settings>().language = language;
            }
            HudClick::ActAtOnce(at_once) => world.resource_mut::<super::settings::Settings>().act_at_once = at_once,
            HudClick::AllActions => {
                let all = world.get_resource::<AllActions>().copied().unwrap_or_default();
                world.insert_resource(AllActions(!all.0));
            }
        }
    }
}

/// What the speed a flier declares asks of its flight and leaves it (004:686-709), for a fly speed of
/// `fly_m` metres.
fn declared_speed(speed: Option<crate::rules::core::names::SpeedStatus>, decelerate: bool, fly_m: f32) -> String {
    use crate::rules::core::names::SpeedStatus::*;
    let (half, double, quarter) = (fly_m / 2.0, fly_m * 2.0, (fly_m / 4.0).min(9.0));
    let what = match speed {
        None => {
            return "speed: as the flight goes (V declares one: hover, stall, deceleration, slow, fast, top speed)"
                .into();
        }
        Some(Stall) if decelerate => tr!("preview-deceleration-under-m-a-fly", half = half.to_string()),
        Some(Hover) => {
            tr!("preview-hover-m-at-most-a", quarter = quarter.to_string())
        }
        Some(Stall) => {
            tr!("preview-stall-under-m-a-move", half = half.to_string())
        }
        Some(Slow) => tr!("preview-slow-to-m-a-move", half = half.to_string(), fly_m = fly_m.to_string()),
        Some(Fast) => tr!("preview-fast-over-up-to-m", fly_m = fly_m.to_string(), double = double.to_string()),
        Some(TopSpeed) => {
            tr!("preview-top-speed-over-up-to", double = double.to_string(), fly_m = (fly_m * 4.0).to_string())
        }
        Some(FreeFall) => tr("preview-free-fall"),
    };
    tr!("preview-declared-speed-v", what = what.to_string())
}

/// What the flyby and collide modes ask for, and what a click on the hovered creature would fly
/// (004:751-758, 004:825-843).
fn manoeuvre_lines(world: &World, me: Entity, choice: &super::state::Choice, out: &mut Vec<(String, egui::Color32)>) {
    use super::state::Mode;
    let name = |e: Entity| display_name(world, e);
    let manoeuvre = world.resource::<Previews>().manoeuvre.clone();
    let hovered = world.resource::<Previews>().hovered.filter(|h| *h != me);
    let flight_words = |p: &crate::rules::aerial::planner::PlannedFlight| {
        let f = &p.flight;
        tr!(
            "preview-squares-manoeuvres",
            spent = f.spent.to_string(),
            status = super::speed_words(f.status),
            maneuvers = f.maneuvers.to_string()
        )
    };
    match (choice.mode, &choice.flyby) {
        (Mode::Flyby, None) => {
            out.push((tr("hud-flyby-how"), WARN));
            match (manoeuvre, hovered) {
                (Some(Ok(p)), Some(foe)) => {
                    out.push((tr!("preview-click-strike-after-of-the", foe = name(foe), p = flight_words(&p)), GOOD))
                }
                (Some(Err(r)), Some(_)) => out.push((
                    tr!(
                        "preview-no-flyby-on-it",
                        reason = super::rules_words::refusal(&r.reason),
                        rule = r.rule.to_string()
                    ),
                    BAD,
                )),
                _ => {}
            }
        }
        (Mode::Flyby, Some(point)) => out.push((
            tr!(
                "preview-on-from-click-where-the",
                attack = if point.swoop { tr("preview-swoop") } else { tr("preview-flyby-attack") },
                target = name(point.target),
                s = point.at().map_or_else(String::new, |s| s.to_string())
            ),
            GOOD,
        )),
        (Mode::Bluff, _) => out.push((
            match choice.bluff {
                None => tr("hud-bluff-how"),
                Some(p) => tr!("preview-bluffing-click-where-the-flight", p = name(p)),
            },
            WARN,
        )),
        (Mode::Ram, _) => {
            out.push((tr("hud-collide-how"), WARN));
            match (manoeuvre, hovered) {
                (Some(Ok(p)), Some(foe)) => {
                    out.push((tr!("preview-click-fly-into", foe = name(foe), p = flight_words(&p)), GOOD))
                }
                (Some(Err(r)), Some(_)) => out.push((
                    tr!(
                        "preview-no-collision",
                        reason = super::rules_words::refusal(&r.reason),
                        rule = r.rule.to_string()
                    ),
                    BAD,
                )),
                _ => {}
            }
        }
        _ => {}
    }
}

/// What a breath at the hovered creature would do: its shape, dice and DC, and whom it covers, allies
/// marked.
/// Whom a breath covers, each with its chance to save for half and cover's terms on it (004:402).
type BreathPreview = (Vec<Entity>, Vec<(Entity, f32, Vec<Modifier>)>);

fn breath_lines(
    world: &World,
    me: Entity,
    breath: Option<Result<BreathPreview, Refusal>>,
    out: &mut Vec<(String, egui::Color32)>,
) {
    let Some(b) = world.get::<crate::rules::breath::Breath>(me) else { return };
    out.push((
        tr!(
            "preview-breath-a-m-of-reflex",
            length_m = b.weapon.length_m.to_string(),
            shape = b.weapon.shape.name().to_string(),
            damage = b.weapon.damage.to_string(),
            dc = b.dc.to_string(),
            sides = (b.weapon.recharge.count * b.weapon.recharge.sides).to_string()
        ),
        WARN,
    ));
    match breath {
        None => out.push((tr("preview-click-a-creature-to-breathe"), WARN)),
        Some(Err(refusal)) => out.push((
            tr!(
                "preview-no-breath-there",
                reason = super::rules_words::refusal(&refusal.reason),
                rule = refusal.rule.clone()
            ),
            BAD,
        )),
        Some(Ok((covered, saves))) => {
            let mine = world.get::<Faction>(me);
            let names: Vec<String> = covered
                .iter()
                .map(|e| {
                    let id = display_name(world, *e);
                    if world.get::<Faction>(*e) == mine { tr!("preview-ally-caught", name = id) } else { id }
                })
                .collect();
            out.push((tr!("preview-click-to-breathe-covers", names = names.join(", ")), GOOD));
            for (e, chance, terms) in saves {
                let id = display_name(world, e);
                let terms =
                    if terms.is_empty() { String::new() } else { format!(", {}", super::rules_words::terms(&terms)) };
                out.push((
                    tr!(
                        "preview-saves-for-half",
                        id = id.to_string(),
                        chance = format!("{:.0}", chance * 100.0),
                        terms = terms.to_string()
                    ),
                    GREY,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_shrinks_to_one_line_on_a_narrow_board() {
        let short = "Round 1: Ogre";
        assert_eq!(banner_size(short, 980.0), 26.0, "a short banner keeps its size");
        let long = "Round 3: Goblin 1 + Goblin 2 + Goblin 3 + Goblin 4 + Wolf 1 + Wolf 2";
        let size = banner_size(long, 500.0);
        assert!(size < 26.0 && 0.6 * size * long.chars().count() as f32 <= 500.0 + 1e-3, "{size}");
        assert_eq!(banner_size(long, 50.0), 12.0, "never below 12 points");
    }

    fn names() -> Vec<(String, String)> {
        board_names(
            [
                ("goblin-1", "Goblin 1"),
                ("goblin-10", "Goblin 10"),
                ("fighter", "Human fighter"),
                ("ogre", "ogre"),
                ("rogue", "Human rogue 1"),
            ]
            .into_iter(),
        )
    }

    #[test]
    fn the_log_names_creatures_as_the_board_does() {
        let names = names();
        assert_eq!(with_names("goblin-1 attacks goblin-10", &names), "Goblin 1 attacks Goblin 10");
        assert_eq!(
            with_names("fighter's turn (fighter, heroes)", &names),
            "Human fighter's turn (Human fighter, heroes)"
        );
        assert_eq!(with_names("hobgoblin-1 and goblin-11 stay", &names), "hobgoblin-1 and goblin-11 stay");
        // An id that is already its name, or the end of its name, or written as an id, stays.
        assert_eq!(with_names("the ogre strikes", &names), "the ogre strikes");
        assert_eq!(with_names("Human fighter (#fighter)", &names), "Human fighter (#fighter)");
        assert_eq!(with_names("Human rogue 1 (heroes, #rogue)", &names), "Human rogue 1 (heroes, #rogue)");
        assert_eq!(with_names("rogue hides", &names), "Human rogue 1 hides");
        assert_eq!(with_names("é goblin-1", &names), "é Goblin 1");
    }
}
