//! The names the event log and the refusals give to what happened: statuses and shapes the facts carry.
//! Each chapter gives them their rules (`impl` blocks beside its rules); the log only names them, so the
//! core that every chapter shares does not depend on any chapter.

use serde::{Deserialize, Serialize};

/// The status a flier's declared speed gives it for the turn (004:681-710).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeedStatus {
    /// 1.5 m or less: it drops 180 m this round (004:690, 004:696).
    FreeFall,
    /// Under half its speed: one move and one standard action; 45 m down at the end of the turn (004:691,
    /// 004:700-701).
    Stall,
    /// Half to its full speed: one move and one standard action (004:692, 004:704).
    Slow,
    /// More than its speed, up to twice: two moves, or a dive attack or a charge (004:693, 004:706).
    Fast,
    /// More than twice: a run, nothing else (004:694, 004:707).
    TopSpeed,
    /// A quarter of its speed at most, 9 m at most: perfect or good manoeuvrability or the Hover feat
    /// (004:695, 004:708-709).
    Hover,
}

/// The shape of a breath weapon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BreathShape {
    /// A quarter circle widening from the breather, as long as its length (our ruling: what lies within 45°
    /// of the line from the breather's centre to the creature aimed at).
    Cone,
    /// A line 1.5 m wide from the breather, as long as its length.
    Line,
}

impl BreathShape {
    /// Its name in the log.
    pub fn name(self) -> &'static str {
        match self {
            BreathShape::Cone => "cone",
            BreathShape::Line => "line",
        }
    }
}

/// What a creature did, tried, or was stopped doing, as the facts and the refusals name it: the move actions
/// by their movement action, the rest by the action of the table (004:87-163) or the special action.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// A move action's movement (004:214).
    Move,
    /// Two move actions' movement (000:17-18).
    DoubleMove,
    /// Run (004:248).
    Run,
    /// Withdraw (004:243).
    Withdraw,
    /// The 5-foot step (004:259).
    FiveFootStep,
    /// The minimum movement (000:139-144).
    MinimumMovement,
    /// Crawling 1.5 m, prone (004:217).
    Crawl,
    /// Charge (004:451).
    Charge,
    /// An attack, single or full.
    Attack,
    /// A readied attack set off (004:621).
    ReadiedAttack,
    /// A coup de grâce (004:424).
    CoupDeGrace,
    /// Standing up (004:225).
    StandUp,
    /// Dropping prone (004:255).
    DropProne,
    /// Total defence (004:211).
    TotalDefense,
    /// Using an item, asked for.
    UseItem,
    /// Using this item, under way.
    Use(String),
    /// Casting a spell, under way.
    Casting,
    /// Casting this spell.
    Cast(String),
    /// Readying an action (004:620).
    Ready,
    /// Delaying (004:629).
    Delay,
    /// Acting after a delay (004:631).
    Resume,
    /// Ending the turn.
    EndTurn,
    /// Resting after the fight.
    Rest,
    /// Taking off (004:657).
    TakeOff,
    /// Flying (004:671).
    Fly,
    /// Landing (004:669).
    Land,
    /// Hiding from pursuers (004:816).
    Hide,
    /// A dive attack (004:753).
    DiveAttack,
    /// A flyby attack (004:755).
    FlybyAttack,
    /// A collision (004:758).
    Collision,
    /// Breathing a breath weapon.
    Breathe,
    /// Getting on a mount (004:226).
    Mount,
    /// Getting off a mount (004:226).
    Dismount,
    /// Taking the reins (004:822).
    TakeReins,
    /// Calming a frightened mount (004:119, 004:473).
    CalmMount,
    /// A trip (004:483-489).
    Trip,
    /// Aid another (004:444).
    AidAnother,
    /// A feint (004:524).
    Feint,
    /// A bull rush (004:446-450).
    BullRush,
    /// Turning or rebuking undead (004:538-575).
    TurnUndead,
    /// Releasing an undead commanded (004:566).
    ReleaseUndead,
    /// A disarm (004:490-498).
    Disarm,
    /// Picking up an item (004:128).
    PickUp,
    /// Draw a weapon (004:121, 004:218).
    Draw,
    /// Put away a weapon (004:129, 004:218).
    PutAway,
    /// Drop what it holds (004:149, 004:254).
    Drop,
    /// Load a crossbow (004:120, 004:137).
    Load,
    /// Prepare a splash weapon to throw (004:144).
    PrepareSplash,
    /// Strap a shield on (004:127, 004:221).
    ReadyShield,
    /// Loose a shield and drop it (004:127, 004:221).
    LooseShield,
    /// A sunder (004:499-523).
    Sunder,
    /// Starting or joining a grapple (004:576-587).
    Grapple,
    /// Damaging a grappled foe (004:597).
    GrappleDamage,
    /// Pinning a grappled foe (004:606).
    Pin,
    /// Breaking free of a pin (004:614).
    BreakPin,
    /// Escaping a grapple (004:600-601).
    Escape,
    /// Letting go of a pinned foe (004:612).
    Release,
    /// Freeing an ally from a pin (004:607).
    FreeAlly,
    /// Stabilising a dying friend (004:107, 004:283).
    FirstAid,
    /// Moving a grapple at half speed (004:602).
    GrappleMove,
    /// Delivering a held touch spell (004:200).
    Touch,
    /// Turning a grappled foe's light weapon against it (004:609).
    TurnWeapon,
    /// Throwing a splash weapon (004:528-530).
    Throw,
    /// An overrun (004:531-537).
    Overrun,
}

impl Action {
    /// Its name in the log.
    pub fn name(&self) -> std::borrow::Cow<'static, str> {
        use std::borrow::Cow;
        Cow::Borrowed(match self {
            Action::Move => "move",
            Action::DoubleMove => "double_move",
            Action::Run => "run",
            Action::Withdraw => "withdraw",
            Action::FiveFootStep => "five_foot_step",
            Action::MinimumMovement => "minimum_movement",
            Action::Crawl => "crawl",
            Action::Charge => "charge",
            Action::Attack => "attack",
            Action::ReadiedAttack => "readied attack",
            Action::CoupDeGrace => "coup_de_grace",
            Action::StandUp => "stand_up",
            Action::DropProne => "drop_prone",
            Action::TotalDefense => "total_defense",
            Action::UseItem => "use_item",
            Action::Use(item) => return Cow::Owned(format!("use {item}")),
            Action::Casting => "cast",
            Action::Cast(spell) => return Cow::Owned(format!("cast {spell}")),
            Action::Ready => "ready",
            Action::Delay => "delay",
            Action::Resume => "resume",
            Action::EndTurn => "end_turn",
            Action::Rest => "rest",
            Action::TakeOff => "take_off",
            Action::Fly => "fly",
            Action::Land => "land",
            Action::Hide => "hide",
            Action::DiveAttack => "dive_attack",
            Action::FlybyAttack => "flyby_attack",
            Action::Collision => "collision",
            Action::Breathe => "breathe",
            Action::Mount => "mount",
            Action::Dismount => "dismount",
            Action::TakeReins => "take_reins",
            Action::CalmMount => "calm_mount",
            Action::Trip => "trip",
            Action::AidAnother => "aid_another",
            Action::Feint => "feint",
            Action::BullRush => "bull_rush",
            Action::TurnUndead => "turn_undead",
            Action::ReleaseUndead => "release_undead",
            Action::Disarm => "disarm",
            Action::PickUp => "pick_up",
            Action::Draw => "draw a weapon",
            Action::PutAway => "put away a weapon",
            Action::Drop => "drop a weapon",
            Action::Load => "load a crossbow",
            Action::PrepareSplash => "prepare a splash weapon",
            Action::ReadyShield => "ready a shield",
            Action::LooseShield => "loose a shield",
            Action::Sunder => "sunder",
            Action::Grapple => "grapple",
            Action::GrappleDamage => "grapple_damage",
            Action::Pin => "pin",
            Action::BreakPin => "break_pin",
            Action::Escape => "escape",
            Action::Release => "release",
            Action::FreeAlly => "free an ally",
            Action::FirstAid => "first aid",
            Action::GrappleMove => "move the grapple",
            Action::Touch => "touch",
            Action::TurnWeapon => "turn its weapon",
            Action::Throw => "throw",
            Action::Overrun => "overrun",
        })
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

/// The ability or skill a check is made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// Constitution, to keep running (004:249).
    Constitution,
    /// A fly check (004:734).
    Fly,
    /// Jump, to take off (004:657).
    Jump,
    /// Concentration, to keep a spell (004:193-197).
    Concentration,
    /// Hide (Discrétion).
    Hide,
    /// Spot (Détection).
    Spot,
    /// Bluff.
    Bluff,
    /// Sense Motive (Psychologie).
    #[serde(rename = "sense motive")]
    SenseMotive,
    /// Ride (Équitation).
    Ride,
    /// A Strength check (a trip, 004:485).
    Strength,
    /// A Dexterity check (resisting a trip, 004:485).
    Dexterity,
    /// An opposed attack roll (a disarm, 004:493).
    Attack,
    /// A grapple check: base attack, Strength, the special size modifier (004:576-577).
    Grapple,
    /// Escape Artist (Évasion), in place of a grapple check (004:600).
    #[serde(rename = "escape artist")]
    EscapeArtist,
    /// Swim (Natation), to swim in deep water (004:643).
    Swim,
    /// Heal (Premiers secours), to stabilise a dying creature (004:283).
    Heal,
    /// Tumble (Acrobaties), to pass foes and their spaces (000:78-79).
    Tumble,
}

/// The three saving throws (004:45-48).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Save {
    /// Vigueur: Constitution.
    Fortitude,
    /// Réflexes: Dextérité.
    Reflex,
    /// Volonté: Sagesse.
    Will,
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Check::Constitution => "constitution",
            Check::Fly => "fly",
            Check::Jump => "jump",
            Check::Concentration => "concentration",
            Check::Hide => "hide",
            Check::Spot => "spot",
            Check::Bluff => "bluff",
            Check::SenseMotive => "sense motive",
            Check::Ride => "ride",
            Check::Strength => "strength",
            Check::Attack => "attack roll",
            Check::Dexterity => "dexterity",
            Check::Grapple => "grapple",
            Check::EscapeArtist => "escape artist",
            Check::Tumble => "tumble",
            Check::Swim => "swim",
            Check::Heal => "heal",
        })
    }
}

impl std::fmt::Display for Save {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Save::Fortitude => "fortitude",
            Save::Reflex => "reflex",
            Save::Will => "will",
        })
    }
}

/// What a turning did to one undead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    /// It flees 10 rounds (004:549).
    Turned,
    /// Destroyed: the turner's level is twice its Hit Dice or more (004:551).
    Destroyed,
    /// Cowering 10 rounds (004:565).
    Rebuked,
    /// Under the rebuker's command (004:566).
    Commanded,
    /// Freed from a good cleric's turning by an evil cleric's dispelling (004:568).
    Freed,
    /// Released from the cleric's command, back to its side (004:566).
    Released,
    /// Its morale bolstered: these Hit Dice against turning for 10 rounds (004:570).
    Bolstered {
        /// Its Hit Dice against turning.
        hit_dice: u32,
    },
}
