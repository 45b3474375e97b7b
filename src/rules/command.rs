//! The one command path. A player's click, the AI, a script, a saved battle being replayed and a scenario
//! all give the rules the same [`Command`], naming creatures by their [`CreatureId`]. [`perform`] carries
//! it out: it writes the chapter's intent (or first sets off an action readied against it, 004:621-622),
//! runs the rules, and then whatever was put off. Nothing else writes a player's intents.

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::rules::aerial::route::FlightStep;
use crate::rules::core::creature::{Armament, Condition, Conditions, CreatureId, Faction, HitPoints, Roster};
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::Square;
use crate::rules::core::kept::kept;
use crate::rules::core::systems::run_rules;
use crate::rules::movement::MovementAction;
use crate::rules::turns::TurnOrder;
use crate::rules::turns::moving::{ChargeFinish, MoveIntent};
use crate::rules::turns::ready::{Readied, ReadiedAction, Trigger, move_before, waits_for};

fn default_move() -> MovementAction {
    MovementAction::Move
}

/// What a creature is asked to do, or the game master's hand (conditions imposed, rest after the fight).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Command {
    /// Move a creature with a movement action, along `path` or the cheapest path.
    Move {
        /// Its id.
        creature: CreatureId,
        /// Destination.
        to: Square,
        /// Movement action (default `move`).
        #[serde(default = "default_move")]
        action: MovementAction,
        /// Squares to pass, the destination last.
        #[serde(default)]
        path: Option<Vec<Square>>,
    },
    /// A move or a double move tumbling (000:78-79): at half speed, through foes' spaces (Tumble DC 25), a
    /// Tumble check (DC 15, +2 per foe after the first) in place of each foe's attack of opportunity.
    Tumble {
        /// Its id.
        creature: CreatureId,
        /// Destination.
        to: Square,
        /// Movement action (default `move`).
        #[serde(default = "default_move")]
        action: MovementAction,
        /// Squares to pass, the destination last.
        #[serde(default)]
        path: Option<Vec<Square>>,
    },
    /// A single attack (a standard action), or with `full: true` a full attack.
    Attack {
        /// Attacker id.
        creature: CreatureId,
        /// Target id.
        target: CreatureId,
        /// Weapon name; the first if absent.
        #[serde(default)]
        weapon: Option<String>,
        /// Fighting defensively (004:183).
        #[serde(default)]
        defensively: bool,
        /// A full attack (004:229-231).
        #[serde(default)]
        full: bool,
        /// An unarmed strike dealing lethal damage, at -4 (004:173).
        #[serde(default)]
        lethal: bool,
        /// A lethal melee weapon dealing nonlethal damage, at -4 (004:302).
        #[serde(default)]
        nonlethal: bool,
        /// Power Attack: this much off the attack roll, onto the damage (the d20 feat).
        #[serde(default)]
        power: u32,
        /// With `full: true`, also one attack with the weapon held in the off hand (004:462-472).
        #[serde(default)]
        two_weapons: bool,
        /// With `full: true`, at most this many blows now; the next `full: true` attack goes on with the
        /// rest, or a `Move` gives them up (004:232). Every blow at once if absent.
        #[serde(default)]
        blows: Option<u32>,
    },
    /// A coup de grâce on a helpless foe (004:424-427).
    CoupDeGrace {
        /// Attacker id.
        creature: CreatureId,
        /// Target id.
        target: CreatureId,
        /// Weapon name; the first if absent.
        #[serde(default)]
        weapon: Option<String>,
        /// Lethal damage with an unarmed strike, as one may declare (004:173); the -4 is nothing to a blow
        /// that cannot miss.
        #[serde(default)]
        lethal: bool,
    },
    /// Stand up from prone (004:225).
    StandUp {
        /// Its id.
        creature: CreatureId,
    },
    /// Drop prone (004:255).
    DropProne {
        /// Its id.
        creature: CreatureId,
    },
    /// Total defence (004:211).
    TotalDefense {
        /// Its id.
        creature: CreatureId,
    },
    /// Aid an ally against a foe (004:444): +2 on its next attack or to its AC against the foe.
    Aid {
        /// Its id.
        creature: CreatureId,
        /// The ally's id.
        ally: CreatureId,
        /// The foe's id.
        foe: CreatureId,
        /// `attack` or `defense`.
        kind: crate::rules::core::creature::AidKind,
    },
    /// Feint a foe (004:524-527).
    Feint {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        target: CreatureId,
    },
    /// Disarm a foe (004:490-498): with `weapon` (`unarmed strike` to take its weapon), its first melee
    /// weapon if absent.
    Disarm {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        target: CreatureId,
        /// The weapon it disarms with.
        #[serde(default)]
        weapon: Option<String>,
        /// An object the foe carries to snatch instead, unarmed (004:497).
        #[serde(default)]
        object: Option<String>,
    },
    /// Sunder a foe's weapon (004:499-523), with `weapon` or its first melee weapon.
    Sunder {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        target: CreatureId,
        /// The weapon it strikes with.
        #[serde(default)]
        weapon: Option<String>,
        /// Strike the foe's shield rather than its weapon (004:499).
        #[serde(default)]
        shield: bool,
        /// Strike an object the foe carries, by its AC (004:504).
        #[serde(default)]
        object: Option<String>,
    },
    /// A grapple (004:576-618): start or join one with the foe, or a move inside it (`action`); the foe of a
    /// break or an escape may be left out.
    Grapple {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        #[serde(default)]
        target: Option<CreatureId>,
        /// What it does: `grab` if absent.
        #[serde(default)]
        action: crate::rules::special::grapple::GrappleMove,
        /// Where it goes, for a `move` (004:602): the north-west square of its space.
        #[serde(default)]
        to: Option<Square>,
    },
    /// Throw a splash weapon (004:528-530) at a creature, or at the grid intersection `corner` (its grid
    /// lines from the west and the north).
    Throw {
        /// Its id.
        creature: CreatureId,
        /// The creature aimed at.
        #[serde(default)]
        target: Option<CreatureId>,
        /// The intersection aimed at, if no creature is.
        #[serde(default)]
        corner: Option<(i32, i32)>,
        /// The flask: the first it carries if absent.
        #[serde(default)]
        weapon: Option<String>,
    },
    /// Overrun a foe next to it (004:531-537): through its space, during a move.
    Overrun {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        target: CreatureId,
    },
    /// Pick up a weapon lying on or next to its squares (004:128): the one named, else the nearest.
    PickUp {
        /// Its id.
        creature: CreatureId,
        /// The weapon's name.
        #[serde(default)]
        weapon: Option<String>,
    },
    /// Draw a weapon put away (004:121, 004:218): a move action, free with a move for a base attack of +1 or
    /// more (004:219).
    Draw {
        /// Its id.
        creature: CreatureId,
        /// The weapon's name.
        weapon: String,
    },
    /// Put away a weapon held (004:129, 004:218): a move action that provokes.
    PutAway {
        /// Its id.
        creature: CreatureId,
        /// The weapon's name.
        weapon: String,
    },
    /// Drop a weapon held on its square (004:149, 004:254): a free action.
    Drop {
        /// Its id.
        creature: CreatureId,
        /// The weapon's name.
        weapon: String,
    },
    /// Strap on its shield slung on its back (`ready`), or loose the one strapped on, which falls on its
    /// square (004:127, 004:221): a move action that provokes nothing, free with a move at base attack +1.
    Shield {
        /// Its id.
        creature: CreatureId,
        /// Strap it on, or loose it.
        ready: bool,
    },
    /// Load a crossbow held (004:120, 004:137): a move action, a full-round one for a heavy crossbow; both
    /// provoke.
    Load {
        /// Its id.
        creature: CreatureId,
        /// The crossbow's name.
        weapon: String,
    },
    /// Prepare a splash weapon to throw (004:144): a full-round action that provokes; a flask put away is
    /// taken in hand with it.
    Prepare {
        /// Its id.
        creature: CreatureId,
        /// The flask's name.
        weapon: String,
    },
    /// Deliver the charge of a touch spell held (004:200): a melee touch attack, a standard action.
    Touch {
        /// Its id.
        creature: CreatureId,
        /// Whom it touches.
        target: CreatureId,
    },
    /// Tend a dying friend: a Heal check, DC 15, stabilises it (004:283); a standard action that provokes
    /// (004:107).
    FirstAid {
        /// Its id.
        creature: CreatureId,
        /// The dying creature's id.
        target: CreatureId,
    },
    /// Turn or rebuke undead (004:538-575).
    TurnUndead {
        /// Its id.
        creature: CreatureId,
        /// Turn (the default), or with negative energy dispel a turning or bolster undead (004:567-570).
        #[serde(default)]
        kind: crate::rules::special::turning::TurnKind,
    },
    /// Bull rush a foe (004:446-450): push it back, following it unless `stay`.
    BullRush {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        target: CreatureId,
        /// It does not follow the foe it pushes (004:449).
        #[serde(default)]
        stay: bool,
    },
    /// Trip a foe (004:483-489): unarmed or with a trip weapon.
    Trip {
        /// Its id.
        creature: CreatureId,
        /// The foe's id.
        target: CreatureId,
        /// The weapon: a trip weapon or `unarmed strike`; a trip weapon it holds, else unarmed, if absent.
        #[serde(default)]
        weapon: Option<String>,
    },
    /// Charge a target (004:451-459): along the lane ending at `to`, or the first legal lane.
    Charge {
        /// Charger id.
        creature: CreatureId,
        /// Target id.
        target: CreatureId,
        /// The square the lane ends on.
        #[serde(default)]
        to: Option<Square>,
        /// What it ends in: its attack, or a bull rush (004:458).
        #[serde(default)]
        finish: ChargeFinish,
        /// The weapon its attack strikes with (its first melee weapon ready if none is named).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weapon: Option<String>,
    },
    /// Ready an action for a trigger (004:620-628).
    Ready {
        /// Its id.
        creature: CreatureId,
        /// The action set aside.
        action: ReadiedAction,
        /// What sets it off.
        trigger: Trigger,
    },
    /// Impose a condition for some rounds from the current initiative count, as a spell or a poison would
    /// (004:74): the game master's hand.
    Impose {
        /// On whom.
        creature: CreatureId,
        /// The condition.
        condition: Condition,
        /// For how many rounds.
        rounds: u32,
    },
    /// Use a carried item: drink a potion (004:96).
    UseItem {
        /// Its id.
        creature: CreatureId,
        /// The item's name.
        item: String,
    },
    /// Take off, `extra_m` metres above its space with a Jump check (004:657-668).
    TakeOff {
        /// Its id.
        creature: CreatureId,
        /// Metres above its space to try for.
        #[serde(default)]
        extra_m: f32,
    },
    /// Fly, step by step along the heading (004:671-786).
    Fly {
        /// Its id.
        creature: CreatureId,
        /// The flight.
        steps: Vec<FlightStep>,
        /// Hover.
        #[serde(default)]
        hover: bool,
        /// A dive attack on this creature, at the end of the flight (004:753).
        #[serde(default)]
        dive_at: Option<CreatureId>,
        /// A charge at this creature: the flight straight at it, its attack at the end (004:451-459, 004:693).
        #[serde(default)]
        charge_at: Option<CreatureId>,
        /// A flyby attack on this creature after this many steps (004:755).
        #[serde(default)]
        flyby: Option<(CreatureId, usize)>,
        /// A deceleration: under half its speed, slow if the fly check succeeds (004:759).
        #[serde(default)]
        decelerate: bool,
        /// The flyby attack is a swoop: down 6 m first, the claw for double damage (004:751).
        #[serde(default)]
        swoop: bool,
        /// At chase scale, a collision with this flier in a square the flight enters (004:758).
        #[serde(default)]
        ram: Option<CreatureId>,
        /// A Bluff against this pursuer before the flight turns into a cloud or dives away (004:818).
        #[serde(default)]
        bluff: Option<CreatureId>,
    },
    /// Hide from its pursuers after its flight, among towers, cliffs or peaks (004:816-817).
    Hide {
        /// Creature id: a flier, or its rider.
        creature: CreatureId,
    },
    /// Land (004:669-670).
    Land {
        /// Its id.
        creature: CreatureId,
    },
    /// Breathe the creature's breath weapon at a creature (a standard action, docs/rulings.md).
    Breathe {
        /// Its id.
        creature: CreatureId,
        /// The creature aimed at.
        toward: CreatureId,
    },
    /// Get on an ally's back: a move action (004:226, 004:654-655), or `fast`, a free action on a Ride check
    /// DC 20 (004:227).
    Mount {
        /// Its id.
        creature: CreatureId,
        /// The mount's id.
        mount: CreatureId,
        /// Quickly (004:227).
        #[serde(default)]
        fast: bool,
    },
    /// Get off onto a square next to the mount: a move action (004:226), or `fast`, a free action on a Ride
    /// check DC 20 (004:227).
    Dismount {
        /// Its id.
        creature: CreatureId,
        /// Where it stands then.
        to: Square,
        /// Quickly (004:227).
        #[serde(default)]
        fast: bool,
    },
    /// A passenger takes the reins of its mount: into the free rider's seat, or changing places with the
    /// rider (004:822).
    TakeReins {
        /// Creature id: the passenger.
        creature: CreatureId,
    },
    /// Everyone rests, once the fight is over: natural healing (004:284-296, 004:307).
    Rest {
        /// Hours of rest.
        hours: u32,
        /// In bed all day (twice the healing of a night).
        #[serde(default)]
        bed_rest: bool,
    },
    /// Cast a spell at a creature (or at itself) (004:190-200, 004:235-238).
    Cast {
        /// Its id.
        creature: CreatureId,
        /// The spell's name.
        spell: String,
        /// The target's id; the caster itself if absent.
        #[serde(default)]
        target: Option<CreatureId>,
        /// Cast defensively: no attack of opportunity, a Concentration check (004:197).
        #[serde(default)]
        defensively: bool,
        /// A rider casting between two moves of its mount, which has moved this round and moves on after: a
        /// Concentration check, DC 10 + the spell's level (004:480).
        #[serde(default)]
        between_moves: bool,
    },
    /// Delay: the creature whose turn it is acts later (004:629).
    Delay {
        /// Its id.
        creature: CreatureId,
    },
    /// A delaying creature acts when the current turn ends (004:631).
    Resume {
        /// Its id.
        creature: CreatureId,
    },
    /// What the creature's attacks of opportunity do from now on: strike, trip where it can, or weigh it
    /// each time (004:483, 004:489); a standing choice, not an action (our ruling, docs/rulings.md).
    AttacksOfOpportunity {
        /// Its id.
        creature: CreatureId,
        /// The choice.
        choice: crate::rules::attack::manoeuvre::OpportunityChoice,
    },
    /// An evil cleric releases an undead it commands, to command others (004:566): a free action.
    Release {
        /// The cleric's id.
        creature: CreatureId,
        /// The undead's id.
        undead: CreatureId,
    },
    /// End the creature's turn.
    EndTurn {
        /// Its id.
        creature: CreatureId,
    },
}

impl Command {
    /// A flight along `steps` with no manoeuvre of the advanced kind, or a dive attack on `dive_at` (004:753).
    pub fn flight(creature: CreatureId, steps: Vec<FlightStep>, dive_at: Option<CreatureId>) -> Self {
        Command::Fly {
            creature,
            steps,
            hover: false,
            dive_at,
            charge_at: None,
            flyby: None,
            decelerate: false,
            swoop: false,
            ram: None,
            bluff: None,
        }
    }

    /// A flier's charge at `target` along `steps` (004:451-459, 004:693).
    pub fn flying_charge(creature: CreatureId, steps: Vec<FlightStep>, target: CreatureId) -> Self {
        Command::Fly {
            creature,
            steps,
            hover: false,
            dive_at: None,
            charge_at: Some(target),
            flyby: None,
            decelerate: false,
            swoop: false,
            ram: None,
            bluff: None,
        }
    }

    /// One plain attack on `target` with `weapon` (the first it can strike with if `None`): no full attack, no
    /// switch.
    pub fn attack(creature: CreatureId, target: CreatureId, weapon: Option<String>) -> Self {
        Command::Attack {
            creature,
            target,
            weapon,
            defensively: false,
            full: false,
            lethal: false,
            nonlethal: false,
            power: 0,
            two_weapons: false,
            blows: None,
        }
    }

    /// The creature that acts, if the command is a creature's action.
    pub fn actor(&self) -> Option<&CreatureId> {
        match self {
            Command::Move { creature, .. }
            | Command::Tumble { creature, .. }
            | Command::Attack { creature, .. }
            | Command::CoupDeGrace { creature, .. }
            | Command::StandUp { creature }
            | Command::DropProne { creature }
            | Command::TotalDefense { creature }
            | Command::Trip { creature, .. }
            | Command::BullRush { creature, .. }
            | Command::TurnUndead { creature, .. }
            | Command::FirstAid { creature, .. }
            | Command::Touch { creature, .. }
            | Command::Disarm { creature, .. }
            | Command::PickUp { creature, .. }
            | Command::Draw { creature, .. }
            | Command::PutAway { creature, .. }
            | Command::Drop { creature, .. }
            | Command::Load { creature, .. }
            | Command::Prepare { creature, .. }
            | Command::Shield { creature, .. }
            | Command::Sunder { creature, .. }
            | Command::Grapple { creature, .. }
            | Command::Throw { creature, .. }
            | Command::Overrun { creature, .. }
            | Command::Aid { creature, .. }
            | Command::Feint { creature, .. }
            | Command::Charge { creature, .. }
            | Command::Ready { creature, .. }
            | Command::UseItem { creature, .. }
            | Command::Cast { creature, .. }
            | Command::TakeOff { creature, .. }
            | Command::Fly { creature, .. }
            | Command::Land { creature }
            | Command::Hide { creature }
            | Command::Breathe { creature, .. }
            | Command::Mount { creature, .. }
            | Command::Dismount { creature, .. }
            | Command::Release { creature, .. }
            | Command::TakeReins { creature } => Some(creature),
            Command::Impose { .. }
            | Command::Rest { .. }
            | Command::Delay { .. }
            | Command::Resume { .. }
            | Command::AttacksOfOpportunity { .. }
            | Command::EndTurn { .. } => None,
        }
    }
}

/// A command named a creature the fight does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCreature(pub CreatureId);

impl std::fmt::Display for UnknownCreature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "there is no creature {:?}", self.0.0)
    }
}

/// The intent of a move, an attack or a casting: the commands whose refusal is checked before they set
/// off a readied action.
enum PlainIntent {
    /// A move or a tumble.
    Move(MoveIntent),
    /// An attack.
    Attack(crate::rules::attack::AttackIntent),
    /// A casting.
    Cast(crate::rules::magic::CastIntent),
}

impl PlainIntent {
    /// Writes it for the rules to carry out when they next run.
    fn write(self, world: &mut World) {
        match self {
            PlainIntent::Move(intent) => {
                world.write_message(intent);
            }
            PlainIntent::Attack(intent) => {
                world.write_message(intent);
            }
            PlainIntent::Cast(intent) => {
                world.write_message(intent);
            }
        }
    }
}

/// The intent of a move, an attack or a casting command; `None` for the other commands.
fn plain_intent(world: &World, command: &Command) -> Result<Option<PlainIntent>, UnknownCreature> {
    let roster = world.resource::<Roster>();
    let entity = |id: &CreatureId| roster.0.get(id).copied().ok_or_else(|| UnknownCreature(id.clone()));
    Ok(Some(match command {
        Command::Move { creature, to, action, path } | Command::Tumble { creature, to, action, path } => {
            PlainIntent::Move(MoveIntent {
                creature: entity(creature)?,
                target: None,
                action: *action,
                to: *to,
                path: path.clone(),
                readied: false,
                finish: ChargeFinish::Attack,
                tumble: matches!(command, Command::Tumble { .. }),
                weapon: None,
            })
        }
        Command::Attack {
            creature,
            target,
            weapon,
            defensively,
            full,
            lethal,
            nonlethal,
            power,
            two_weapons,
            blows,
        } => PlainIntent::Attack(crate::rules::attack::AttackIntent {
            defensively: *defensively,
            full: *full,
            lethal: *lethal,
            nonlethal: *nonlethal,
            power: *power,
            two_weapons: *two_weapons,
            blows: *blows,
            ..crate::rules::attack::AttackIntent::new(entity(creature)?, entity(target)?, weapon.clone())
        }),
        Command::Cast { creature, spell, target, defensively, between_moves } => {
            let caster = entity(creature)?;
            let target = target.as_ref().map(entity).transpose()?.unwrap_or(caster);
            PlainIntent::Cast(crate::rules::magic::CastIntent {
                caster,
                spell: spell.clone(),
                target,
                defensively: *defensively,
                readied: false,
                between_moves: *between_moves,
            })
        }
        _ => return Ok(None),
    }))
}

/// Whether the rules would refuse the move, attack or casting `plain` as things stand: a refused action
/// is no action, and sets off no readied action (« juste avant l'action qui déclenche », 004:621).
fn refused_anyway(world: &mut World, plain: Option<&PlainIntent>) -> bool {
    let refusal = match plain {
        Some(PlainIntent::Move(intent)) => {
            world.run_system_cached_with(crate::rules::turns::moving::move_refusal, intent.clone()).ok().flatten()
        }
        Some(PlainIntent::Attack(intent)) => {
            world.run_system_cached_with(crate::rules::attack::attack_refusal, intent.clone()).ok().flatten()
        }
        Some(PlainIntent::Cast(intent)) => {
            world.run_system_cached_with(crate::rules::magic::cast_refusal, intent.clone()).ok().flatten()
        }
        None => None,
    };
    refusal.is_some()
}

/// Whether the rules would refuse a special attack, a first aid, a standing up or a turning as things stand,
/// by the plan its chapter makes before it acts (the plan its preview shows): a refused action is no action
/// and sets off no readied action (004:621), as [`refused_anyway`] asks of moves, attacks and castings.
fn special_refused(world: &mut World, command: &Command) -> bool {
    use crate::rules::special::{disarm, grapple, plan_in, sunder, trip};
    let roster = world.resource::<Roster>();
    let pair = |a: &CreatureId, t: &CreatureId| roster.0.get(a).copied().zip(roster.0.get(t).copied());
    let refused = match command {
        Command::Trip { creature, target, weapon } => pair(creature, target).map(|p| {
            plan_in(world, p, Box::new(|g, (a, t), b| trip::plan_trip(g, a, t, weapon.as_deref(), b))).is_err()
        }),
        Command::Disarm { creature, target, weapon, object: None } => pair(creature, target).map(|p| {
            plan_in(world, p, Box::new(|g, pair, b| disarm::plan_disarm(g, pair, weapon.as_deref(), b))).is_err()
        }),
        Command::Sunder { creature, target, weapon, shield, object: None } => pair(creature, target).map(|p| {
            let shield = shield.then(|| world.get::<crate::rules::core::creature::Shield>(p.1).copied());
            plan_in(world, p, Box::new(move |g, pair, b| sunder::plan_sunder(g, pair, (weapon.as_deref(), shield), b)))
                .is_err()
        }),
        Command::Grapple { creature, target: Some(target), action: grapple::GrappleMove::Grab, .. } => {
            pair(creature, target).map(|p| plan_in(world, p, Box::new(grapple::plan_grab)).is_err())
        }
        // A move inside a grapple it is in (an escape, a pin, damage…), by its plan (004:592-614).
        Command::Grapple { creature, action, .. } if *action != grapple::GrappleMove::Grab => {
            roster.0.get(creature).map(|e| grapple::move_now(world, *e, *action).is_err())
        }
        Command::Overrun { creature, target } => {
            pair(creature, target).map(|p| crate::rules::special::overrun::overrunnable_in(world, p).is_err())
        }
        Command::Hide { creature } => {
            roster.0.get(creature).map(|e| crate::rules::attack::hiding::hide_allowed(world, *e).is_err())
        }
        // What these need first: something to dismount from, the item carried, wings on the ground, a flask
        // to throw at the foe (004:227, 004:97-163, 004:657, 004:528).
        Command::Dismount { creature, .. } => {
            roster.0.get(creature).map(|e| world.get::<crate::rules::core::creature::Riding>(*e).is_none())
        }
        Command::UseItem { creature, item } => roster.0.get(creature).map(|e| {
            !world.get::<crate::rules::core::creature::Items>(*e).is_some_and(|i| i.0.iter().any(|it| it.name == *item))
        }),
        Command::TakeOff { creature, .. } => roster.0.get(creature).map(|e| {
            let flies = world.get::<crate::rules::core::creature::Speed>(*e).is_some_and(|s| s.fly.is_some());
            let aloft = world.get::<crate::rules::core::creature::Altitude>(*e).is_some_and(|a| a.0 > 0);
            !flies || aloft
        }),
        Command::Throw { creature, target: Some(target), weapon, .. } => pair(creature, target).map(|p| {
            use crate::rules::special::splash::{Aim, plan_throw};
            plan_in(world, p, Box::new(|g, (a, t), b| plan_throw(g, a, Aim::Creature(t.entity), weapon.as_deref(), b)))
                .is_err()
        }),
        Command::FirstAid { creature, target } => pair(creature, target).map(|p| {
            plan_in(world, p, Box::new(|g, pair, b| crate::rules::health::first_aid::plan_first_aid(g.order, pair, b)))
                .is_err()
        }),
        Command::TurnUndead { creature, kind } => roster
            .0
            .get(creature)
            .copied()
            .map(|e| crate::rules::special::turning::plan_turning(world, e, *kind).is_err()),
        _ => other_refused(world, command),
    };
    refused.unwrap_or(false)
}

/// The other commands [`special_refused`] asks of: by what their chapter checks first (004:225, 004:255,
/// 004:451-455, 004:524, 004:446, 004:424, 004:218-222, 004:128, 004:403, 004:227, 004:657, 004:528).
fn other_refused(world: &mut World, command: &Command) -> Option<bool> {
    use crate::rules::special::plan_in;
    let roster = world.resource::<Roster>();
    let pair = |a: &CreatureId, t: &CreatureId| roster.0.get(a).copied().zip(roster.0.get(t).copied());
    match command {
        // Standing up is for the prone (004:225), dropping prone for the standing (004:255).
        Command::StandUp { creature } => roster.0.get(creature).map(|e| {
            !world.get::<crate::rules::core::creature::Conditions>(*e).is_some_and(|c| c.has(Condition::Prone))
        }),
        Command::DropProne { creature } => roster.0.get(creature).map(|e| {
            world.get::<crate::rules::core::creature::Conditions>(*e).is_some_and(|c| c.has(Condition::Prone))
        }),
        // A charge with no clear lane, or none ending where it names (004:451-455).
        // A die to throw among equally near squares is thrown first: the charge it refuses sets off nothing
        // (000:63-65, 004:621).
        Command::Charge { creature, target, weapon, finish, to } => pair(creature, target).map(|(c, t)| {
            use crate::rules::turns::moving::{charge_lanes_of, throw_charge_die};
            let lanes = charge_lanes_of(world, (c, weapon.as_deref()), t, finish.enters()).and_then(Result::ok);
            let Some(lanes) = lanes else { return true };
            if !crate::rules::movement::by_a_die(&lanes) {
                return to.is_some_and(|to| !lanes.iter().any(|l| l.to == to));
            }
            throw_charge_die(world, (c, t), &lanes).is_none_or(|to| !lanes.iter().any(|l| l.to == to))
        }),
        Command::Feint { creature, target } => pair(creature, target).map(|p| {
            use crate::rules::core::creature::Skills;
            let skills = |e: Entity| world.get::<Skills>(e).cloned().unwrap_or_default();
            let (mine, theirs) = (skills(p.0), skills(p.1));
            plan_in(
                world,
                p,
                Box::new(move |g, (a, t), b| {
                    crate::rules::special::feint::plan_feint((g.order, g.field), (a, &mine), (t, &theirs), b)
                }),
            )
            .is_err()
        }),
        Command::BullRush { creature, target, stay } => pair(creature, target).map(|(attacker, target)| {
            let intent =
                crate::rules::special::bull_rush::BullRushIntent { attacker, target, stay: *stay, charge: false };
            crate::rules::special::bull_rush::plan_bull_rush(world, &intent).is_err()
        }),
        Command::CoupDeGrace { creature, target, weapon, .. } => pair(creature, target).map(|p| {
            plan_in(
                world,
                p,
                Box::new(|g, (a, t), b| {
                    g.order.check_turn(a.entity)?;
                    b.check_full_round().or_else(|r| if b.restricted { Ok(()) } else { Err(r) })?;
                    let w = a
                        .armament
                        .chosen(weapon.as_deref())
                        .ok_or_else(|| crate::rules::core::refusal::Refusal::new("no such weapon", "data"))?;
                    crate::rules::attack::check_coup_de_grace((g.field, g.order, g.creatures), a, t, w)
                }),
            )
            .is_err()
        }),
        Command::Draw { creature, weapon }
        | Command::PutAway { creature, weapon }
        | Command::Drop { creature, weapon } => {
            use crate::rules::attack::gear::{Handle, check_handle};
            let handle = match command {
                Command::Draw { .. } => Handle::Draw,
                Command::PutAway { .. } => Handle::PutAway,
                _ => Handle::Drop,
            };
            roster.0.get(creature).map(|e| check_handle(world, *e, weapon, handle).is_err())
        }
        Command::PickUp { creature, weapon } => roster.0.get(creature).map(|e| {
            let intent = crate::rules::attack::gear::PickUpIntent { creature: *e, weapon: weapon.clone() };
            crate::rules::attack::gear::check_pick_up(world, &intent).is_err()
        }),
        _ => None,
    }
}

/// The commands waiting for a readied action to be taken first (004:621).
#[derive(Resource, Default, Debug)]
pub struct Deferred(pub Vec<Command>);

/// Carries out a command: its intent, the rules run, then any command a readied action put off, in turn.
pub fn perform(world: &mut World, command: &Command) -> Result<(), UnknownCreature> {
    apply(world, command)?;
    run_rules(world);
    while let Some(put_off) = take_deferred(world) {
        apply(world, &put_off)?;
        run_rules(world);
    }
    Ok(())
}

/// The command put off by a readied action, if any.
pub fn take_deferred(world: &mut World) -> Option<Command> {
    world.get_resource_mut::<Deferred>().and_then(|mut d| (!d.0.is_empty()).then(|| d.0.remove(0)))
}

/// Writes a command's intent for the rules to carry out when they next run, or first the action readied
/// against it. Refused, with the id, when it names a creature the fight does not have.
#[expect(clippy::too_many_lines, reason = "one arm per command, each writing its chapter's intent")]
pub fn apply(world: &mut World, command: &Command) -> Result<(), UnknownCreature> {
    let roster = world.resource::<Roster>().clone();
    let entity = |id: &CreatureId| roster.0.get(id).copied().ok_or_else(|| UnknownCreature(id.clone()));
    let maybe = |id: &Option<CreatureId>| id.as_ref().map(entity).transpose();
    // Every creature named must exist before anything happens.
    let actor = command.actor().map(entity).transpose()?;
    let plain = plain_intent(world, command)?;
    // A turned undead flees (004:549): a move that does not take it farther from its turner is refused.
    if let (Command::Move { creature, to, action, .. } | Command::Tumble { creature, to, action, .. }, Some(actor)) =
        (command, actor)
        && let Err(refusal) = crate::rules::special::turning::fleeing(world, actor, *to)
    {
        world.write_message(Fact::ActionRefused {
            creature: creature.clone(),
            action: action.action(),
            reason: refusal.reason,
            rule: refusal.rule,
        });
        return Ok(());
    }
    if let Some(actor) = actor
        && set_off_readied(world, command, actor, plain.as_ref())
    {
        return Ok(());
    }
    if let Some(plain) = plain {
        plain.write(world);
        return Ok(());
    }
    match command {
        // Written above, as their plain intents.
        Command::Move { .. } | Command::Tumble { .. } | Command::Attack { .. } | Command::Cast { .. } => {}
        Command::CoupDeGrace { creature, target, weapon, lethal } => {
            world.write_message(crate::rules::attack::CoupDeGraceIntent {
                attacker: entity(creature)?,
                target: entity(target)?,
                weapon: weapon.clone(),
                lethal: *lethal,
            });
        }
        Command::StandUp { creature } | Command::DropProne { creature } => {
            let stand_up = matches!(command, Command::StandUp { .. });
            world.write_message(crate::rules::attack::StanceIntent {
                creature: entity(creature)?,
                stand_up,
                readied: false,
            });
        }
        Command::Aid { creature, ally, foe, kind } => {
            world.write_message(crate::rules::special::aid::AidIntent {
                aider: entity(creature)?,
                ally: entity(ally)?,
                foe: entity(foe)?,
                kind: *kind,
            });
        }
        Command::Feint { creature, target } => {
            world.write_message(crate::rules::special::feint::FeintIntent {
                feinter: entity(creature)?,
                target: entity(target)?,
            });
        }
        Command::Disarm { creature, target, weapon, object } => {
            world.write_message(crate::rules::special::disarm::DisarmIntent {
                attacker: entity(creature)?,
                target: entity(target)?,
                weapon: weapon.clone(),
                object: object.clone(),
                charge: false,
            });
        }
        Command::Sunder { creature, target, weapon, shield, object } => {
            world.write_message(crate::rules::special::sunder::SunderIntent {
                attacker: entity(creature)?,
                target: entity(target)?,
                weapon: weapon.clone(),
                shield: *shield,
                object: object.clone(),
                charge: false,
            });
        }
        Command::Grapple { creature, target, action, to } => {
            world.write_message(crate::rules::special::grapple::GrappleIntent {
                attacker: entity(creature)?,
                target: target.as_ref().map(entity).transpose()?,
                action: *action,
                to: *to,
            });
        }
        Command::Throw { creature, target, corner, weapon } => {
            use crate::rules::special::splash::{Aim, ThrowIntent};
            let aim = match (target, corner) {
                (Some(target), _) => Aim::Creature(entity(target)?),
                (None, Some((x, y))) => Aim::Corner(crate::rules::core::geometry::Corner { x: *x, y: *y }),
                (None, None) => {
                    let who = entity(creature)?;
                    crate::rules::special::refuse_in(
                        world,
                        who,
                        crate::rules::core::names::Action::Throw,
                        crate::rules::core::refusal::Refusal::new("aim at a creature or an intersection", "004:529"),
                    );
                    return Ok(());
                }
            };
            world.write_message(ThrowIntent { thrower: entity(creature)?, aim, weapon: weapon.clone() });
        }
        Command::Overrun { creature, target } => {
            world.write_message(crate::rules::special::overrun::OverrunIntent {
                attacker: entity(creature)?,
                target: entity(target)?,
                charge: false,
            });
        }
        Command::PickUp { creature, weapon } => {
            world.write_message(crate::rules::attack::gear::PickUpIntent {
                creature: entity(creature)?,
                weapon: weapon.clone(),
            });
        }
        Command::Draw { creature, weapon }
        | Command::PutAway { creature, weapon }
        | Command::Drop { creature, weapon }
        | Command::Load { creature, weapon }
        | Command::Prepare { creature, weapon } => {
            use crate::rules::attack::gear::{Handle, HandleIntent};
            let handle = match command {
                Command::Draw { .. } => Handle::Draw,
                Command::PutAway { .. } => Handle::PutAway,
                Command::Load { .. } => Handle::Load,
                Command::Prepare { .. } => Handle::Prepare,
                _ => Handle::Drop,
            };
            world.write_message(HandleIntent { creature: entity(creature)?, weapon: weapon.clone(), handle });
        }
        Command::Shield { creature, ready } => {
            world
                .write_message(crate::rules::attack::gear::ShieldIntent { creature: entity(creature)?, ready: *ready });
        }
        Command::Touch { creature, target } => {
            world
                .write_message(crate::rules::magic::TouchIntent { caster: entity(creature)?, target: entity(target)? });
        }
        Command::FirstAid { creature, target } => {
            world.write_message(crate::rules::health::first_aid::FirstAidIntent {
                healer: entity(creature)?,
                patient: entity(target)?,
            });
        }
        Command::TurnUndead { creature, kind } => {
            world.write_message(crate::rules::special::turning::TurnIntent { turner: entity(creature)?, kind: *kind });
        }
        Command::BullRush { creature, target, stay } => {
            world.write_message(crate::rules::special::bull_rush::BullRushIntent {
                attacker: entity(creature)?,
                target: entity(target)?,
                stay: *stay,
                charge: false,
            });
        }
        Command::Trip { creature, target, weapon } => {
            world.write_message(crate::rules::special::trip::TripIntent {
                attacker: entity(creature)?,
                target: entity(target)?,
                weapon: weapon.clone(),
                charge: false,
            });
        }
        Command::TotalDefense { creature } => {
            world.write_message(crate::rules::attack::TotalDefenseIntent {
                creature: entity(creature)?,
                readied: false,
            });
        }
        Command::Charge { creature, target, to, finish, weapon } => {
            let (charger, foe) = (entity(creature)?, entity(target)?);
            // A trip names its trip weapon, or goes unarmed, whose reach the lanes take.
            let weapon = world
                .get::<Armament>(charger)
                .and_then(|a| crate::rules::special::charge_end::weapon_for(a, *finish, weapon.as_deref()));
            // Without a lane the rules refuse the intent and say why; a bull rush ends next to its foe.
            let adjacent = finish.enters();
            let lane_end = to.or_else(|| {
                crate::rules::turns::moving::charge_lanes_of(world, (charger, weapon.as_deref()), foe, adjacent)
                    .and_then(|lanes| lanes.ok())
                    .and_then(|lanes| lanes.first().map(|l| l.to))
            });
            // A trip, a disarm or a sunder in place of its attack is refused before the charge if it would
            // be at its end (too big a foe, no weapon to take, 004:483-499); a bull rush or an overrun if its
            // foe could be pushed or passed from nowhere (004:446, 004:531).
            let pushed = crate::rules::special::charge_end::check_charge_push(world, (charger, foe), *finish);
            let planned = lane_end.and_then(|to| {
                crate::rules::special::charge_end::plan_charge_blow(
                    world,
                    (charger, foe),
                    (to, *finish, weapon.as_deref()),
                )
            });
            if let Some(refusal) = pushed.err().or_else(|| planned.and_then(Result::err)) {
                world.write_message(Fact::ActionRefused {
                    creature: creature.clone(),
                    action: crate::rules::core::names::Action::Charge,
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                return Ok(());
            }
            world.write_message(MoveIntent {
                creature: charger,
                target: Some(foe),
                action: MovementAction::Charge,
                to: lane_end.unwrap_or_default(),
                path: None,
                readied: false,
                finish: *finish,
                tumble: false,
                weapon: weapon.clone(),
            });
        }
        Command::Ready { creature, action, trigger } => {
            let readier = entity(creature)?;
            // A spell of a round or more is a full-round action, which cannot be readied (004:621).
            if let ReadiedAction::Cast { spell, .. } = action
                && let Err(refusal) = crate::rules::magic::check_readiable(world.get(readier), spell)
            {
                world.write_message(Fact::ActionRefused {
                    creature: creature.clone(),
                    action: crate::rules::core::names::Action::Ready,
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                return Ok(());
            }
            world.write_message(crate::rules::turns::ready::ReadyIntent {
                creature: readier,
                action: action.clone(),
                trigger: trigger.clone(),
            });
        }
        Command::Impose { creature, condition, rounds } => {
            world.write_message(crate::rules::turns::lasting::ImposeIntent {
                creature: entity(creature)?,
                condition: *condition,
                rounds: *rounds,
            });
        }
        Command::UseItem { creature, item } => {
            world.write_message(crate::rules::health::UseItemIntent {
                creature: entity(creature)?,
                item: item.clone(),
                readied: false,
            });
        }
        Command::TakeOff { creature, extra_m } => {
            world.write_message(crate::rules::aerial::flying::TakeOffIntent {
                creature: entity(creature)?,
                extra_m: *extra_m,
            });
        }
        Command::Fly { creature, steps, hover, dive_at, charge_at, flyby, decelerate, swoop, ram, bluff } => {
            let flier = entity(creature)?;
            let dive_at = maybe(dive_at)?;
            let charge_at = maybe(charge_at)?;
            let flyby = match flyby {
                Some((foe, after)) => Some((entity(foe)?, *after)),
                None => None,
            };
            world.write_message(crate::rules::aerial::flying::FlyIntent {
                creature: flier,
                steps: steps.clone(),
                hover: *hover,
                dive_at,
                charge_at,
                flyby,
                decelerate: *decelerate,
                swoop: *swoop,
                ram: maybe(ram)?,
                bluff: maybe(bluff)?,
            });
        }
        Command::Hide { creature } => {
            world.write_message(crate::rules::attack::hiding::HideIntent { creature: entity(creature)? });
        }
        Command::Land { creature } => {
            world.write_message(crate::rules::aerial::flying::LandIntent { creature: entity(creature)? });
        }
        Command::Breathe { creature, toward } => {
            world.write_message(crate::rules::breath::BreathIntent {
                creature: entity(creature)?,
                toward: entity(toward)?,
            });
        }
        Command::Mount { creature, mount, fast } => {
            world.write_message(crate::rules::mounted::MountIntent {
                creature: entity(creature)?,
                mount: entity(mount)?,
                fast: *fast,
            });
        }
        Command::Dismount { creature, to, fast } => {
            world.write_message(crate::rules::mounted::DismountIntent {
                creature: entity(creature)?,
                to: *to,
                fast: *fast,
            });
        }
        Command::TakeReins { creature } => {
            world.write_message(crate::rules::mounted::TakeReinsIntent { creature: entity(creature)? });
        }
        Command::Rest { hours, bed_rest } => {
            world.write_message(crate::rules::health::rest::RestIntent { hours: *hours, bed_rest: *bed_rest });
        }
        Command::Delay { creature } => {
            world.write_message(crate::rules::turns::DelayIntent { creature: entity(creature)? });
        }
        Command::Resume { creature } => {
            world.write_message(crate::rules::turns::ResumeIntent { creature: entity(creature)? });
        }
        Command::Release { creature, undead } => {
            world.write_message(crate::rules::special::turning::ReleaseIntent {
                cleric: entity(creature)?,
                undead: entity(undead)?,
            });
        }
        Command::AttacksOfOpportunity { creature, choice } => {
            world.entity_mut(entity(creature)?).insert(*choice);
        }
        Command::EndTurn { creature } => {
            world.write_message(crate::rules::turns::EndTurnIntent { creature: entity(creature)? });
        }
    }
    Ok(())
}

/// The first creature, by id, whose readied action `actor`'s command sets off and who takes it now; `None`
/// when no one waits for it or the rules refuse the command anyway.
fn willing_readier(
    world: &mut World,
    (actor, actor_id): (Entity, &CreatureId),
    casting: bool,
    (plain, command): (Option<&PlainIntent>, Option<&Command>),
) -> Option<(Entity, CreatureId, Readied)> {
    let actor_faction = world.get::<Faction>(actor).cloned()?;
    let mut readiers = kept::<(Entity, &CreatureId, &Readied, &Conditions, &Faction), ()>(world);
    let mut waiting: Vec<(Entity, CreatureId, Readied)> = readiers
        .iter(world)
        .filter(|(e, _, r, c, f)| {
            *e != actor && c.takes_actions() && waits_for(r, actor_id, casting && **f != actor_faction)
        })
        .map(|(e, id, r, ..)| (e, id.clone(), r.clone()))
        .collect();
    waiting.sort_by(|a, b| a.1.cmp(&b.1));
    // An action the rules refuse anyway sets nothing off (asked only when someone waits for it).
    if waiting.is_empty() || refused_anyway(world, plain) || command.is_some_and(|c| special_refused(world, c)) {
        return None;
    }
    // « il peut accomplir son action ... (sans toutefois y être obligé) » (004:621): a readied attack that
    // could not strike the foe, from where the readier stands or after its 5-foot step, is held for a later
    // trigger, and its initiative is left as it was (004:622).
    waiting.into_iter().find(|(readier, _, readied)| match &readied.action {
        ReadiedAction::Attack { target, weapon } => {
            let intent = readied_attack(world, (*readier, actor), target.as_ref(), weapon);
            crate::rules::attack::may_strike_readied(world, &intent)
        }
        // Any other readied action the rules would refuse now is not taken either: no action, so no new place
        // in the order (004:622 « au moment où il a exécuté son action préparée »); it waits for a later
        // trigger, as a held attack does.
        ReadiedAction::Move { to } => {
            let intent = readied_move(*readier, *to);
            world.run_system_cached_with(crate::rules::turns::moving::move_refusal, intent).ok().flatten().is_none()
        }
        ReadiedAction::Cast { spell, target } => {
            let intent = readied_cast(world, (*readier, actor), spell, target.as_ref());
            world.run_system_cached_with(crate::rules::magic::cast_refusal, intent).ok().flatten().is_none()
        }
        ReadiedAction::StandUp => world.get::<Conditions>(*readier).is_some_and(|c| c.has(Condition::Prone)),
        ReadiedAction::DropProne => !world.get::<Conditions>(*readier).is_some_and(|c| c.has(Condition::Prone)),
        ReadiedAction::TotalDefense => {
            world.get::<Conditions>(*readier).is_some_and(|c| crate::rules::attack::total_defense_refusal(c).is_ok())
        }
        ReadiedAction::UseItem { item } => {
            let user = (world.get::<CreatureId>(*readier), world.get::<Conditions>(*readier));
            let items = world.get::<crate::rules::core::creature::Items>(*readier);
            match (user, items) {
                ((Some(id), Some(state)), Some(items)) => {
                    crate::rules::health::item_refusal((id, state), items, item).is_ok()
                }
                _ => false,
            }
        }
    })
}

/// A charge's attack is a further chance for an attack readied « when it acts » against the charger and held
/// while it could not strike (the charger out of reach as it set off): at the end of the charge's move,
/// before its blow (or the bull rush or overrun in its place), the readied attack goes off if it can strike
/// now (004:621, 004:628), as it would before a move's attack.
pub fn readied_at_a_charge_end(on: On<crate::rules::turns::moving::ChargeArrived>, mut commands: Commands) {
    let charger = on.event().charger;
    commands.queue(move |world: &mut World| {
        let Some(id) = world.get::<CreatureId>(charger).cloned() else { return };
        if let Some(found) = willing_readier(world, (charger, &id), false, (None, None)) {
            take_readied(world, found, (charger, id));
        }
    });
}

/// If `command` is the action of a creature another readied against, takes the readied action first: the
/// readier moves to just before it in the order (004:622), its action is asked for, and the command waits
/// in [`Deferred`] (004:621). Returns whether it did.
fn set_off_readied(world: &mut World, command: &Command, actor: Entity, plain: Option<&PlainIntent>) -> bool {
    if world.resource::<TurnOrder>().check_turn(actor).is_err() {
        return false;
    }
    let Some(actor_id) = world.get::<CreatureId>(actor).cloned() else { return false };
    let casting = matches!(command, Command::Cast { .. });
    let Some(found) = willing_readier(world, (actor, &actor_id), casting, (plain, Some(command))) else {
        return false;
    };
    take_readied(world, found, (actor, actor_id));
    if casting && let Some(hp) = world.get::<HitPoints>(actor).copied() {
        // The readied action strikes before the spell: a wound calls for a Concentration check (004:196).
        world.entity_mut(actor).insert(crate::rules::magic::AwaitingCast { hit_points: hp });
    }
    world.get_resource_or_insert_with(Deferred::default).0.push(command.clone());
    true
}

/// Takes `readier`'s readied action against `actor`: the readier moves to just before it in the order
/// (004:622) and its action is asked for.
fn take_readied(
    world: &mut World,
    (readier, readier_id, readied): (Entity, CreatureId, Readied),
    (actor, actor_id): (Entity, CreatureId),
) {
    world.entity_mut(readier).remove::<Readied>();
    move_before(&mut world.resource_mut::<TurnOrder>(), readier, actor);
    let order: Vec<CreatureId> = world.resource::<TurnOrder>().entries.iter().map(|e| e.id.clone()).collect();
    world.write_message(Fact::ReadiedActionTriggered {
        creature: readier_id,
        by: actor_id,
        action: readied.action.to_string(),
    });
    world.write_message(Fact::InitiativeOrdered { order });
    match &readied.action {
        ReadiedAction::Attack { target, weapon } => {
            let intent = readied_attack(world, (readier, actor), target.as_ref(), weapon);
            // Out of its reach, a 5-foot step first, if it has not moved this round (004:623): taken at once,
            // before the attack is asked for, in whatever moment set it off (a charge's end among them).
            if let Some(to) = crate::rules::attack::step_to_strike(world, &intent) {
                crate::rules::turns::moving::move_creature(
                    world,
                    MoveIntent { action: MovementAction::FiveFootStep, ..readied_move(readier, to) },
                );
            }
            world.write_message(intent);
        }
        ReadiedAction::DropProne | ReadiedAction::StandUp => {
            world.write_message(crate::rules::attack::StanceIntent {
                creature: readier,
                stand_up: readied.action == ReadiedAction::StandUp,
                readied: true,
            });
        }
        ReadiedAction::TotalDefense => {
            world.write_message(crate::rules::attack::TotalDefenseIntent { creature: readier, readied: true });
        }
        ReadiedAction::UseItem { item } => {
            world.write_message(crate::rules::health::UseItemIntent {
                creature: readier,
                item: item.clone(),
                readied: true,
            });
        }
        ReadiedAction::Cast { spell, target } => {
            let intent = readied_cast(world, (readier, actor), spell, target.as_ref());
            world.write_message(intent);
        }
        ReadiedAction::Move { to } => {
            world.write_message(readied_move(readier, *to));
        }
    }
}

/// The creature a readied action names, else `actor`, the one that set it off.
fn readied_target(world: &World, named: Option<&CreatureId>, actor: Entity) -> Entity {
    named.and_then(|t| world.resource::<Roster>().0.get(t).copied()).unwrap_or(actor)
}

/// `readier`'s readied attack, set off by `actor`: on the foe it names, else on `actor`.
fn readied_attack(
    world: &World,
    (readier, actor): (Entity, Entity),
    target: Option<&CreatureId>,
    weapon: &Option<String>,
) -> crate::rules::attack::AttackIntent {
    let target = readied_target(world, target, actor);
    crate::rules::attack::AttackIntent {
        readied: true,
        ..crate::rules::attack::AttackIntent::new(readier, target, weapon.clone())
    }
}

/// `readier`'s readied move to `to` (a move action; its 5-foot step before an attack too).
fn readied_move(readier: Entity, to: Square) -> MoveIntent {
    MoveIntent {
        creature: readier,
        target: None,
        action: MovementAction::Move,
        to,
        path: None,
        readied: true,
        finish: ChargeFinish::Attack,
        tumble: false,
        weapon: None,
    }
}

/// `readier`'s readied casting of `spell`, set off by `actor`: on the creature it names, else on `actor`.
fn readied_cast(
    world: &World,
    (readier, actor): (Entity, Entity),
    spell: &str,
    target: Option<&CreatureId>,
) -> crate::rules::magic::CastIntent {
    crate::rules::magic::CastIntent {
        caster: readier,
        spell: spell.to_string(),
        target: readied_target(world, target, actor),
        defensively: false,
        readied: true,
        between_moves: false,
    }
}
