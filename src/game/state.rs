//! The game's state between frames: the square and token under the cursor, what the player chose in the
//! action bar, who is selected and commanded, the commands waiting and those taken (what a save replays),
//! who plays each faction, and what the previews show now.

use std::collections::{HashMap, VecDeque};

use bevy::prelude::*;

use crate::data::level::Control;
use crate::preview::{AttackPreview, MoveOptions, PathPreview};
use crate::rules::command::Command;
use crate::rules::core::geometry::Square;
use crate::rules::core::refusal::Refusal;
use crate::rules::movement::{ChargeLane, MovementAction};

/// The square under the cursor, if the cursor is over the board and not over a panel.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct Hover {
    /// The square.
    pub square: Option<Square>,
    /// The creature whose token is under the cursor, the topmost: a rider on its mount, one of the
    /// creatures sharing a chase-scale square.
    pub token: Option<Entity>,
    /// The grid intersection nearest the cursor: the corner of the hovered square it is nearest to (a
    /// splash weapon may be aimed at one, 004:529).
    pub corner: Option<crate::rules::core::geometry::Corner>,
}

/// What a click on the board does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Move to an empty square with the least action that reaches it; attack a foe.
    #[default]
    Auto,
    /// Move with this action.
    Move(MovementAction),
    /// One attack (a standard action).
    Attack,
    /// A full attack.
    FullAttack,
    /// Charge the foe clicked.
    Charge,
    /// Ready an action (004:620-622): an attack by default, or the action chosen with its key meanwhile
    /// (total defence, standing up, a potion, a spell, a move). A click on a creature readies it for when
    /// that creature acts; a readied attack on any other square is for the first foe that steps into reach;
    /// a readied move takes its square first.
    Ready,
    /// Cast the chosen spell at the creature clicked, foe, ally or itself (004:190-200).
    Cast,
    /// Breathe the breath weapon at the creature clicked.
    Breath,
    /// Trip the foe clicked (004:483-489).
    Trip,
    /// Bull rush the foe clicked (004:446-450): next to it, or at the end of a charge (004:458).
    BullRush,
    /// Turn (or rebuke) undead: a click anywhere (004:538-575).
    Turn(crate::rules::special::turning::TurnKind),
    /// Disarm the foe clicked (004:490-498).
    Disarm,
    /// Snatch an object the foe carries, unarmed (004:497).
    Snatch,
    /// Tend a dying friend (004:283).
    FirstAid,
    /// Release an undead it commands, to command others (004:566).
    Release,
    /// Deliver the charge of a touch spell held (004:200).
    Touch,
    /// Sunder the weapon of the foe clicked (004:499-523).
    Sunder,
    /// Sunder the foe's shield (004:499).
    SunderShield,
    /// Strike an object the foe carries, by its AC (004:504).
    SunderObject,
    /// Grapple the foe clicked (004:576-618): grab it or join its grapple, or, grappling it, damage or pin
    /// it.
    Grapple(crate::rules::special::grapple::GrappleMove),
    /// Throw a splash weapon at the creature clicked, or at the intersection nearest the click (004:528-530).
    Throw,
    /// Deliver a coup de grâce to the helpless foe clicked (004:424-427).
    CoupDeGrace,
    /// Overrun the foe clicked, next to it (004:531-537).
    Overrun,
    /// Feint the foe clicked (004:524-527).
    Feint,
    /// Aid an ally against the foe clicked (004:444): +2 on its next attack or to its AC.
    Aid(crate::rules::core::creature::AidKind),
    /// A flyby attack (004:755), a swoop after 6 m of dives (004:751): the foe clicked first, struck on the
    /// way; then the square the flight ends on.
    Flyby,
    /// Fly into the flier clicked: a collision (004:758, 004:825).
    Ram,
    /// Bluff the pursuer clicked, then fly the turn into a cloud or the dive away (004:818).
    Bluff,
}

/// Where a flyby attack strikes: the foe, the part of the flight flown before the attack, and whether it
/// is a swoop (6 m of dives first, 004:751).
#[derive(Clone, Debug, PartialEq)]
pub struct FlybyPoint {
    /// The foe struck.
    pub target: Entity,
    /// The flight up to the attack.
    pub planned: crate::rules::aerial::planner::PlannedFlight,
    /// A swoop: the claw for double damage, DC 20 (004:751).
    pub swoop: bool,
}

impl FlybyPoint {
    /// The square the attack is made from.
    pub fn at(&self) -> Option<Square> {
        self.planned.flight.waypoints.last().map(|w| w.square)
    }
}

/// The player's choices for the active creature.
#[derive(Resource, Default, Debug, Clone, PartialEq)]
pub struct Choice {
    /// What a click does.
    pub mode: Mode,
    /// Fight defensively with the next attack (004:183).
    pub defensively: bool,
    /// Show the squares the foes threaten.
    pub show_threats: bool,
    /// Squares the path must pass, in order.
    pub waypoints: Vec<Square>,
    /// The weapon chosen; the first if `None`.
    pub weapon: Option<String>,
    /// The spell chosen in cast mode.
    pub spell: Option<String>,
    /// Steps of 1.5 m to climb (positive) or dive (negative) at the start of a flier's flight (Q and Z).
    pub climb: i32,
    /// The speed a flier declares for its turn (004:686), which its flight must keep to (V); `None` lets
    /// the length of the flight chosen say.
    pub speed: Option<crate::rules::core::names::SpeedStatus>,
    /// The declared stall is flown as a deceleration (004:760): a fly check, slow if it is made.
    pub decelerate: bool,
    /// In flyby mode, the attack chosen on the way.
    pub flyby: Option<FlybyPoint>,
    /// In bluff mode, the pursuer to mislead with the flight (004:818).
    pub bluff: Option<Entity>,
    /// In ready mode, the action to ready other than an attack (004:621); a move's square is known once
    /// clicked.
    pub readying: Option<Readying>,
    /// A bull rush does not follow the foe it pushes (004:449).
    pub stay: bool,
    /// Blows of the other kind of damage than the weapon's, at -4: lethal unarmed (004:173), nonlethal with
    /// a lethal melee weapon (004:302).
    pub other_damage: bool,
    /// Moves tumble (000:78-79): at half speed, through foes' spaces, Tumble checks in place of attacks of
    /// opportunity.
    pub tumble: bool,
    /// A full attack with two weapons or one (004:462, 004:471-472), as the player chose; `None`: the
    /// default (two when it holds a weapon in its off hand, both heads of a double weapon with the feat).
    pub two_weapons: Option<bool>,
    /// Power Attack: this much off the melee attack rolls, onto their damage (the d20 feat).
    pub power: u32,
}

/// An action other than an attack being readied, as the player chose it.
#[derive(Clone, Debug, PartialEq)]
pub enum Readying {
    /// An action the trigger's creature alone completes.
    Action(crate::rules::turns::ready::ReadiedAction),
    /// A move whose square is still to click.
    MoveTo(Option<Square>),
}

/// The creature last clicked on: its sheet stays in the panel.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
pub struct Selected(pub Option<Entity>);

/// Which of the party acting together (a rider, its mount, its passengers, 004:653-655) the player
/// commands now: `Tab` goes to the next.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commanded {
    /// The creature commanded.
    pub who: Option<Entity>,
    /// In which turn: the round and whose place it is. A new turn begins with the first of the party.
    pub turn: (u32, Option<Entity>),
}

/// Steps waiting to be carried out, one per frame.
#[derive(Resource, Default, Debug)]
pub struct Pending(pub VecDeque<Command>);

/// Every action taken since the battle began, in order: a saved battle replays them.
#[derive(Resource, Default, Debug, Clone)]
pub struct History(pub Vec<Command>);

/// Who plays each faction.
#[derive(Resource, Default, Debug, Clone)]
pub struct Controllers(pub HashMap<String, Control>);

impl Controllers {
    /// Who plays each faction as the level says.
    pub fn of(encounter: &crate::data::Encounter) -> Self {
        Controllers(encounter.factions.iter().map(|f| (f.name.clone(), f.control)).collect())
    }
}

/// Asks for the battle to start again from `encounter`.
#[derive(Resource, Debug, Clone)]
pub struct Restart {
    /// Replay these steps after the start (loading a saved battle).
    pub replay: Vec<Command>,
}

/// The dice seed of the battle.
#[derive(Resource, Debug, Clone, Copy)]
pub struct Seed(pub u64);

/// What the previews show now.
#[derive(Resource, Default)]
pub struct Previews {
    /// What the previews were worked out for.
    pub(super) key: Option<PreviewKey>,
    /// Bumped whenever the previews change, for the overlays.
    pub generation: u64,
    /// The creature whose turn it is, when a person plays it.
    pub active: Option<Entity>,
    /// Where it can go.
    pub options: MoveOptions,
    /// The path to the hovered square.
    pub path: Option<Result<PathPreview, Refusal>>,
    /// The creature under the cursor.
    pub hovered: Option<Entity>,
    /// The attack on the hovered foe.
    pub attack: Option<Result<AttackPreview, Refusal>>,
    /// The spell on the hovered creature, in cast mode.
    pub cast: Option<Result<crate::preview::CastPreview, Refusal>>,
    /// The aid another a click on the hovered foe would give.
    pub aid: Option<Result<crate::preview::AidPreview, Refusal>>,
    /// The feint a click on the hovered foe would make.
    pub feint: Option<Result<crate::preview::FeintPreview, Refusal>>,
    /// The trip a click on the hovered foe would make.
    pub trip: Option<Result<crate::preview::TripPreview, Refusal>>,
    /// The sunder a click on the hovered foe would make.
    pub sunder: Option<Result<crate::rules::special::sunder::SunderPlan, Refusal>>,
    /// The grapple move a click on the hovered foe would make.
    pub grapple: Option<Result<crate::preview::GrapplePreview, Refusal>>,
    /// The first aid a click on the hovered creature would give (004:283).
    pub first_aid: Option<Result<crate::rules::health::first_aid::FirstAidPlan, Refusal>>,
    /// Releasing the hovered undead commanded (004:566).
    pub release: Option<Result<crate::rules::special::turning::ReleasePlan, Refusal>>,
    /// The throw a click would make, in throw mode: at the hovered creature or intersection.
    pub throw: Option<Result<crate::rules::special::splash::ThrowPlan, Refusal>>,
    /// The overrun a click on the hovered foe would make.
    pub overrun: Option<Result<crate::rules::special::overrun::OverrunPlan, Refusal>>,
    /// The foes that would strike the active creature for an action that provokes where it stands (004:66):
    /// a throw, a potion, an overrun leaving its square. Worked out when the state changes, not the cursor.
    pub strikers_here: Vec<Entity>,
    /// The coup de grâce a click on the hovered foe would deliver.
    pub coup_de_grace: Option<Result<crate::rules::core::creature::Weapon, Refusal>>,
    /// The disarm a click on the hovered foe would make.
    pub disarm: Option<Result<crate::rules::special::disarm::DisarmPlan, Refusal>>,
    /// The turning a click would make, in turn mode.
    pub turning: Option<Result<crate::rules::special::turning::TurnPlan, Refusal>>,
    /// The bull rush a click on the hovered foe would make.
    pub bull_rush: Option<Result<crate::preview::BullRushPreview, Refusal>>,
    /// Whom a breath at the hovered creature would cover, in breath mode.
    pub breath: Option<Result<Vec<Entity>, Refusal>>,
    /// Each creature that breath would cover: its chance to save for half, and cover's terms (004:402).
    pub breath_saves: Vec<(Entity, f32, Vec<crate::rules::core::creature::Modifier>)>,
    /// For a flier in the air: every square its flight can end on this turn, with the flight (004:671-786).
    pub flights: Option<std::collections::HashMap<Square, crate::rules::aerial::planner::PlannedFlight>>,
    /// In flyby and ram modes, the flight a click on the hovered creature would fly: to strike it on the
    /// way (before the end is chosen), or into it; or the rule that leaves none.
    pub manoeuvre: Option<Result<crate::rules::aerial::planner::PlannedFlight, Refusal>>,
    /// The charge lanes toward the hovered foe, in charge mode (or in the automatic mode, for a foe a
    /// charge reaches and a move does not).
    pub lanes: Option<Result<Vec<ChargeLane>, Refusal>>,
    /// In the automatic mode, what a click on a foe out of reach does: walk within reach then strike, or
    /// charge; [`Previews::path`] and [`Previews::attack`] are then the walk and the blow from its end.
    pub approach: Option<Approach>,
    /// Where the charge along the first lane would provoke, and from whom (004:64-71).
    pub lane_provocations: Vec<crate::preview::Provoking>,
    /// Squares the foes of the active creature threaten, when asked.
    pub threatened: Vec<Square>,
}

impl Previews {
    /// Forgets what the previews were worked out for: the next update works them all out anew (a state
    /// changed outside the rules' facts, a hot reload, a test setting a creature's state).
    pub fn forget(&mut self) {
        self.key = None;
    }
}

/// The compound action a click on a foe out of reach makes in the automatic mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approach {
    /// A 5-foot step or a move to `to`, along `path`, then the attack from there.
    MoveThenAttack {
        /// The foe.
        foe: Entity,
        /// Where the walk ends.
        to: Square,
        /// The action it takes.
        action: MovementAction,
        /// Its squares.
        path: Vec<Square>,
    },
    /// A charge along the first lane (004:455-459).
    Charge {
        /// The foe.
        foe: Entity,
        /// Where the charge ends.
        to: Square,
        /// What it ends in: its attack, or a trip, a disarm, a sunder in its place (004:457).
        finish: crate::rules::turns::moving::ChargeFinish,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct PreviewKey {
    pub(super) active: Option<Entity>,
    pub(super) facts: usize,
    pub(super) hover: Option<Square>,
    pub(super) corner: Option<crate::rules::core::geometry::Corner>,
    pub(super) token: Option<Entity>,
    pub(super) choice: Choice,
    /// The previews' words are written in the interface's language: a change writes them again.
    pub(super) language: crate::locale::Language,
}

pub(super) fn plugin(app: &mut App) {
    app.init_state::<AppState>();
    app.init_resource::<Hover>()
        .init_resource::<Choice>()
        .init_resource::<Pending>()
        .init_resource::<History>()
        .init_resource::<Selected>()
        .init_resource::<Commanded>()
        .init_resource::<Previews>();
}

/// A message for the player: an error (a level that does not load, a damaged save) or a notice.
#[derive(Resource, Default, Clone)]
pub struct Notice(pub Option<(bool, String)>);

/// The screen the game shows: the menu of levels, or a battle. What a screen draws is despawned when the
/// game leaves it (`DespawnOnExit`); the rules' world, the fight itself, is kept.
#[derive(States, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AppState {
    /// The battle on the board.
    #[default]
    Battle,
    /// The menu: levels, who plays each side, save and load.
    Menu,
    /// The level editor.
    Edit,
}

/// Frames per second, smoothed, when the diagnostics run.
pub fn frames_per_second(world: &World) -> Option<f64> {
    use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
    world.get_resource::<DiagnosticsStore>()?.get(&FrameTimeDiagnosticsPlugin::FPS)?.smoothed()
}
