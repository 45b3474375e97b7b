//! Turning and rebuking undead (Renvoi des morts-vivants, 004:538-575). A standard action that provokes no
//! attack of opportunity (004:539), 3 + Cha modifier times a day (004:541). The turning check, 1d20 + Cha
//! modifier, gives through the table the most Hit Dice of undead affected (004:544, 004:552-563); if an
//! undead within 18 m with a line of effect (004:542) is within it, turning damage, 2d6 + level + Cha
//! modifier, is how many Hit Dice are affected, the nearest first (004:542, 004:546). Those already turned
//! are not counted again (004:548). Turned, an undead flees for 10 rounds; the turner coming nearer within
//! 3 m ends it (004:549); at twice its Hit Dice or more, the turner's level destroys it (004:551). An evil
//! cleric's negative energy rebukes instead: cowering for 10 rounds, and in place of destruction command,
//! up to its level in Hit Dice (004:564-566). A paladin turns as a cleric of its level - 3 (004:573): its
//! template gives that level.
//!
//! Our rulings (docs/rulings.md): turn resistance adds to an undead's Hit Dice for the check, not for the
//! damage; going nearest first, the first undead whose Hit Dice exceed what is left of the damage ends it;
//! a turned undead attacks no one.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::rules::attack::Slay;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::dice::{Dice, DiceExpr};
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::Footprint;
use crate::rules::core::kept::kept;
use crate::rules::core::names::{Action, TurnOutcome};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::lasting::ImposeIntent;
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// The power to turn (positive energy) or rebuke (negative energy) undead, as a cleric of `level`.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turning {
    /// The cleric level it turns at (a paladin's level - 3, 004:573).
    pub level: u32,
    /// Positive energy turns, negative rebukes (004:538).
    #[serde(default)]
    pub energy: Energy,
    /// Uses spent today.
    #[serde(default, skip)]
    pub spent: u32,
}

/// The energy a turner channels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Energy {
    /// Turns and destroys (004:538).
    #[default]
    Positive,
    /// Rebukes and commands (004:564).
    Negative,
}

/// An undead turned or rebuked, by one cleric or several (our ruling: each turning holds it on its own, for
/// its own minute, 004:549): one hold a turner.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnedBy(pub Vec<Hold>);

/// One cleric's turning or rebuking of an undead: by whom, so that its coming nearer within 3 m ends it
/// (004:549), the turning check that did it, which a dispelling must equal (004:568), and when its minute
/// ends, as the lasting effect it gave (004:74).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    /// The turner.
    pub turner: Entity,
    /// The turning check's result.
    pub check: i32,
    /// The round its effect ends in.
    pub ends_round: u32,
    /// The initiative count it began at, and just before which it ends (004:74).
    pub count_of: crate::rules::turns::Count,
    /// What it gave: turned (a good cleric's, 004:549) or cowering (a rebuke's, 004:565).
    pub condition: Condition,
}

impl TurnedBy {
    /// The holds whose minute is not over.
    pub fn running<'a>(&'a self, order: &'a TurnOrder) -> impl Iterator<Item = &'a Hold> + 'a {
        self.0.iter().filter(|h| !crate::rules::turns::lasting::count_reached(h.ends_round, h.count_of, order))
    }

    /// The running holds that turned it, not a rebuke's (004:549, 004:565).
    pub fn turnings<'a>(&'a self, order: &'a TurnOrder) -> impl Iterator<Item = &'a Hold> + 'a {
        self.running(order).filter(|h| h.condition == Condition::Turned)
    }

    /// The turners whose turning still holds it: those it flees (004:549).
    pub fn turners(&self, order: &TurnOrder) -> Vec<Entity> {
        self.turnings(order).map(|h| h.turner).collect()
    }

    /// What a dispelling must equal to free it (004:568): the highest check of the turnings that hold it
    /// (our ruling: held by two, it is freed of both or neither).
    pub fn check(&self, order: &TurnOrder) -> Option<i32> {
        self.turnings(order).map(|h| h.check).max()
    }

    /// Records `hold`, in place of its turner's earlier one.
    fn hold(&mut self, hold: Hold) {
        self.0.retain(|h| h.turner != hold.turner);
        self.0.push(hold);
    }
}

/// An undead whose morale an evil cleric bolstered: against turning it has these Hit Dice for 1 minute, 10
/// rounds (004:570), ending just before the bolsterer's count as any effect with a duration does (004:74).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bolstered {
    /// Its Hit Dice against turning.
    pub hit_dice: u32,
    /// The round the bolstering ends in: 10 rounds after it.
    pub until: u32,
    /// The initiative count it began at, and just before which it ends (004:74).
    pub count_of: crate::rules::turns::Count,
}

impl Bolstered {
    /// Its Hit Dice against turning now: the bolstered ones while they last, else `own`.
    pub fn hit_dice(bolstered: Option<&Bolstered>, own: u32, order: &TurnOrder) -> u32 {
        bolstered
            .filter(|b| !crate::rules::turns::lasting::count_reached(b.until, b.count_of, order))
            .map_or(own, |b| b.hit_dice.max(own))
    }
}

/// What a cleric does with its channelled energy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnKind {
    /// Turn or rebuke the undead in reach (004:538-566).
    #[default]
    Turn,
    /// With negative energy, free undead from a good cleric's turning (004:567-568).
    Dispel,
    /// With negative energy, bolster its undead against turning (004:570).
    Bolster,
}

/// Asks to turn (or rebuke) undead, dispel a turning or bolster undead.
#[derive(Message, Clone, Copy, Debug)]
pub struct TurnIntent {
    /// Who turns.
    pub turner: Entity,
    /// What it does.
    pub kind: TurnKind,
}

/// How far turning reaches: 18 m, 12 squares (004:542).
pub const TURNING_RANGE_SQUARES: u32 = 12;
/// How long a turning or a rebuke lasts: 1 minute, 10 rounds (004:549, 004:565).
pub const TURNED_ROUNDS: u32 = 10;
/// Within 3 m (2 squares), the turner coming nearer ends the turning (004:549).
pub const TURNER_NEAR_SQUARES: u32 = 2;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<TurnIntent>().add_message::<ReleaseIntent>();
    app.add_systems(
        Rules,
        (release_undead, turn_undead).chain().in_set(RulesSystems::Act).after(super::bull_rush::resolve_bull_rushes),
    );
    app.add_systems(
        Rules,
        (turner_comes_near, cornered_cower).chain().in_set(RulesSystems::Turns).after(super::feint::spend_feints),
    );
    app.add_observer(turner_steps_near);
}

/// A turned undead whose every retreat is cut off, cowering for it (004:549).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cornered;

/// « Si toute retraite leur est coupée, ils se recroquevillent » (004:549): as its turn begins, a turned
/// undead with no way to flee its turner ([`way_out`]) cowers (+2 to hit it: the cowering condition,
/// 004:388); it stops when a way opens at a later turn or when it is turned no more.
pub fn cornered_cower(world: &mut World, mut seen: Local<MessageCursor<Fact>>) {
    // At once, before the undead's first action of the turn or its turner's next one reads it.
    let cowers = |world: &mut World, e: Entity, gained: bool| {
        crate::rules::health::change_at_once(
            world,
            ConditionChange { creature: e, condition: Condition::Cowering, gained },
        );
    };
    // In the order of their ids, whatever the order the world keeps them in.
    let mut freed: Vec<(CreatureId, Entity)> = kept::<(Entity, &CreatureId, &Conditions), With<Cornered>>(world)
        .iter(world)
        .filter(|(_, _, c)| !c.has(Condition::Turned))
        .map(|(e, id, _)| (id.clone(), e))
        .collect();
    freed.sort();
    for (_, e) in freed {
        cowers(world, e, false);
        if let Some(mut budget) = world.get_mut::<ActionBudget>(e) {
            budget.cowering = false;
        }
        world.entity_mut(e).remove::<Cornered>();
    }
    let started: Vec<CreatureId> = seen
        .read(world.resource::<Messages<Fact>>())
        .filter_map(|f| match f {
            Fact::TurnStarted { creature, .. } => Some(creature.clone()),
            _ => None,
        })
        .collect();
    for creature in started {
        let Some(e) = world.resource::<Roster>().get(&creature.0) else { continue };
        let turned = world.get::<Conditions>(e).is_some_and(|c| c.has(Condition::Turned));
        if world.get::<TurnedBy>(e).is_none() || !turned {
            continue;
        }
        let was = world.get::<Cornered>(e).is_some();
        let out = way_out(world, e);
        if out == was {
            cowers(world, e, !out);
            // Its turn has begun: cowering, it does nothing in it; a way out, it flees.
            if let Some(mut budget) = world.get_mut::<ActionBudget>(e) {
                budget.cowering = !out;
            }
            if out {
                world.entity_mut(e).remove::<Cornered>();
            } else {
                world.entity_mut(e).insert(Cornered);
            }
        }
    }
}

/// Whether a turned undead has a way to flee its turner this turn: a square its movement reaches (a double
/// move, the search every move asks) that takes it farther from its turner, by the test its move must pass
/// ([`fleeing`]). A wall at its back is no cut retreat when it can go along it (004:549). Held in a grapple,
/// its way out is an escape, which it tries (our ruling).
fn way_out(world: &mut World, undead: Entity) -> bool {
    if world.get::<Conditions>(undead).is_some_and(|c| c.has(Condition::Grappling)) {
        return true;
    }
    let ends: Vec<crate::rules::core::geometry::Square> =
        crate::rules::turns::moving::with_move_query(world, undead, |q, _| {
            q.destinations(crate::rules::movement::MovementAction::DoubleMove).into_iter().map(|d| d.square).collect()
        })
        .unwrap_or_default();
    ends.into_iter().any(|square| fleeing(world, undead, square).is_ok())
}

/// Uses a day: 3 + the Charisma modifier (004:541), none below 0.
pub fn uses_per_day(charisma: i32) -> u32 {
    (3 + ability_modifier(charisma)).max(0) as u32
}

/// The most Hit Dice of undead a turning check of `result` affects for a cleric of `level`: the table of
/// 004:552-563, row by row.
pub fn max_hit_dice(result: i32, level: u32) -> i32 {
    let shift = match result {
        i32::MIN..=0 => -4,
        1..=3 => -3,
        4..=6 => -2,
        7..=9 => -1,
        10..=12 => 0,
        13..=15 => 1,
        16..=18 => 2,
        19..=21 => 3,
        _ => 4,
    };
    level as i32 + shift
}

/// An undead within reach of a turning.
#[derive(Clone, Debug, PartialEq)]
pub struct InReach {
    /// The creature.
    pub entity: Entity,
    /// Its id.
    pub id: CreatureId,
    /// Squares from the turner.
    pub distance: u32,
    /// Its Hit Dice.
    pub hit_dice: u32,
    /// Its Hit Dice against turning: the bolstered ones while they last (004:570), else its own.
    pub against_turning: u32,
    /// Its Hit Dice against turning and its turn resistance, against the check.
    pub against_check: i32,
    /// The check of the turning it is under, if any (for a dispelling).
    pub turned_by_check: Option<i32>,
}

impl InReach {
    /// Whether a turner of `level` destroys it (or commands it, with negative energy) rather than turns it:
    /// « au moins deux fois supérieur au nombre de DV » (004:551, 004:564), bolstered Hit Dice counting
    /// (004:570, docs/rulings.md).
    pub fn overwhelmed_by(&self, level: u32) -> bool {
        level >= 2 * self.against_turning
    }
}

/// An undead a cleric of negative energy commands (004:564-566): whose Hit Dice count against its level.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct CommandedBy {
    /// The cleric.
    pub cleric: Entity,
    /// Its Hit Dice.
    pub hit_dice: u32,
    /// The side it stood on before, which it goes back to when released (our ruling).
    pub was: Faction,
}

/// Asks a cleric to release an undead it commands, to command others in its place (004:566).
#[derive(Message, Clone, Copy, Debug)]
pub struct ReleaseIntent {
    /// The cleric.
    pub cleric: Entity,
    /// The undead it commands.
    pub undead: Entity,
}

/// A release checked: the Hit Dice it frees, and those the cleric commands and may command (004:566).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleasePlan {
    /// The undead's Hit Dice, freed for others.
    pub hit_dice: u32,
    /// The Hit Dice the cleric commands now, the living among them.
    pub commanded_hit_dice: u32,
    /// Its level: the most it may command (004:566).
    pub level: u32,
}

/// The Hit Dice of the living undead `cleric` commands: all count against its level (004:566).
pub fn commanded_hit_dice(world: &mut World, cleric: Entity) -> u32 {
    let mut under_command = kept::<(&CommandedBy, &Conditions), ()>(world);
    under_command
        .iter(world)
        .filter(|(c, conditions)| c.cleric == cleric && !conditions.has(Condition::Dead))
        .map(|(c, _)| c.hit_dice)
        .sum()
}

/// Whether `cleric` may release `undead` now: one it commands (« il peut relâcher son emprise sur certains
/// afin d'en contrôler d'autres », 004:566), on its turn; a free action (our ruling: the text gives none, and
/// letting go of a pinned foe is one, 004:612).
pub fn plan_release(world: &mut World, cleric: Entity, undead: Entity) -> Result<ReleasePlan, Refusal> {
    let Some(turning) = world.get::<Turning>(cleric).copied() else {
        return Err(Refusal::new("it cannot turn undead: clerics and paladins can", "004:538"));
    };
    world.resource::<TurnOrder>().check_turn(cleric)?;
    if !world.get::<Conditions>(cleric).is_some_and(|c| c.can_act()) {
        return Err(Refusal::new("a helpless creature cannot turn", "004:278"));
    }
    let Some(commanded) = world.get::<CommandedBy>(undead).filter(|c| c.cleric == cleric).cloned() else {
        return Err(Refusal::new("it commands no such undead", "004:566"));
    };
    let commanded_hit_dice = commanded_hit_dice(world, cleric);
    Ok(ReleasePlan { hit_dice: commanded.hit_dice, commanded_hit_dice, level: turning.level })
}

/// Releases undead as their clerics ask: each goes back to the side it stood on, its Hit Dice free for the
/// cleric to command others (004:566).
pub(super) fn release_undead(world: &mut World, mut intents: Local<bevy::ecs::message::MessageCursor<ReleaseIntent>>) {
    let messages = world.resource::<bevy::ecs::message::Messages<ReleaseIntent>>();
    let read: Vec<ReleaseIntent> = intents.read(messages).copied().collect();
    for intent in read {
        if let Err(refusal) = plan_release(world, intent.cleric, intent.undead) {
            super::refuse_in(world, intent.cleric, Action::ReleaseUndead, refusal);
            continue;
        }
        let Some(commanded) = world.get::<CommandedBy>(intent.undead).cloned() else { continue };
        world.entity_mut(intent.undead).remove::<CommandedBy>().insert(commanded.was);
        // A free action of its turn: no delay after it (004:629).
        if let Some(mut budget) = world.get_mut::<ActionBudget>(intent.cleric) {
            let _ = budget.spend(crate::rules::turns::ActionKind::Free);
        }
        let (Some(id), Some(undead)) =
            (world.get::<CreatureId>(intent.cleric).cloned(), world.get::<CreatureId>(intent.undead).cloned())
        else {
            continue;
        };
        world.write_message(Fact::UndeadTurned { creature: id, undead, outcome: TurnOutcome::Released });
    }
}

/// A turning checked and ready: its terms and the undead within reach, nearest first.
#[derive(Clone, Debug)]
pub struct TurnPlan {
    /// The turner's level and energy.
    pub turning: Turning,
    /// The check's bonus: the Charisma modifier (004:544).
    pub check_bonus: i32,
    /// The damage's bonus: level + Charisma modifier (004:546).
    pub damage_bonus: i32,
    /// The undead within 18 m with a line of effect, not yet turned, nearest first (004:542, 004:548).
    pub undead: Vec<InReach>,
    /// Uses left today after this one.
    pub uses_left: u32,
    /// What it does.
    pub kind: TurnKind,
    /// The Hit Dice of the living undead it commands already (004:566).
    pub commanded_hit_dice: u32,
}

impl TurnPlan {
    /// Whether negative energy overwhelming `undead` commands it, `commanded` Hit Dice being commanded so far
    /// (counted on when it does): their sum stays within the turner's level, and those beyond are rebuked
    /// (004:564-566). The turning and its preview both ask this, in order, nearest first.
    pub fn commands(&self, undead: &InReach, commanded: &mut u32) -> bool {
        let level = self.turning.level;
        let commands = self.turning.energy == Energy::Negative
            && undead.overwhelmed_by(level)
            && *commanded + undead.hit_dice <= level;
        if commands {
            *commanded += undead.hit_dice;
        }
        commands
    }

    /// The chance that the check reaches `hit_dice` (with turn resistance): a d20 + bonus whose row of
    /// the table gives that many or more.
    pub fn chance_for(&self, against_check: i32) -> f32 {
        let reached = (1..=20).filter(|d| max_hit_dice(d + self.check_bonus, self.turning.level) >= against_check);
        reached.count() as f32 / 20.0
    }
}

/// Whether the energy `turning` channels allows `kind`: only negative energy dispels a turning (004:567-568)
/// or bolsters undead (004:569-570).
pub fn energy_allows(turning: &Turning, kind: TurnKind) -> Result<(), Refusal> {
    match kind {
        TurnKind::Dispel if turning.energy != Energy::Negative => {
            Err(Refusal::new("only a cleric channelling negative energy dispels a turning", "004:567-568"))
        }
        TurnKind::Bolster if turning.energy != Energy::Negative => {
            Err(Refusal::new("only a cleric channelling negative energy bolsters undead", "004:569-570"))
        }
        _ => Ok(()),
    }
}

/// Whether `turner` may turn now, and whom it would reach (the checks of 004:538-548); for a dispelling, the
/// undead turned by positive energy within reach (004:567-568); for a bolstering, its own undead within
/// reach (004:570). Each uses a turning of the day.
pub fn plan_turning(world: &mut World, turner: Entity, kind: TurnKind) -> Result<TurnPlan, Refusal> {
    let Some(turning) = world.get::<Turning>(turner).copied() else {
        return Err(Refusal::new("it cannot turn undead: clerics and paladins can", "004:538"));
    };
    energy_allows(&turning, kind)?;
    world.resource::<TurnOrder>().check_turn(turner)?;
    world.get::<ActionBudget>(turner).copied().unwrap_or_default().check(ActionKind::Standard)?;
    let conditions = world.get::<Conditions>(turner).cloned().unwrap_or_default();
    if !conditions.can_act() {
        return Err(Refusal::new("a helpless creature cannot turn", "004:278"));
    }
    // Turning is an attack (004:539) and not among what a grappler may do (004:592-613).
    crate::rules::core::creature::out_of_grapple(&conditions, "turning")?;
    let charisma = world.get::<Abilities>(turner).map_or(10, |a| a.cha);
    let per_day = uses_per_day(charisma);
    // The Hit Dice it commands already, the living among them: all count against its level (004:566).
    let commanded_hit_dice = commanded_hit_dice(world, turner);
    if turning.spent >= per_day {
        return Err(Refusal::new(format!("its {per_day} turnings of the day are spent"), "004:541"));
    }
    let Some(from) = footprint(world, turner) else { return Err(Refusal::new("no such creature", "data")) };
    let mine = world.get::<Faction>(turner).cloned();
    let height = world.get::<Altitude>(turner).map_or(0, |a| a.0);
    let mut q = kept::<
        (
            Entity,
            &CreatureId,
            &Traits,
            (&Position, &Space, Option<&Altitude>),
            &Level,
            &Conditions,
            Option<&TurnedBy>,
            &Faction,
        ),
        With<Creature>,
    >(world);
    let mut bolstered = kept::<&Bolstered, ()>(world);
    let world: &World = world;
    let (field, order) = (world.resource::<Battlefield>(), world.resource::<TurnOrder>());
    let mut undead: Vec<InReach> = q
        .iter(world)
        .filter(|(e, _, traits, _, _, conditions, turned, faction)| {
            // « il ne gaspille pas » its Hit Dice on those its own earlier turning still holds (004:548); another
            // cleric's turning does not shield them from this one (it may destroy what the other turned).
            let already = turned.is_some_and(|t| t.running(order).any(|h| h.turner == turner))
                && (conditions.has(Condition::Turned) || conditions.has(Condition::Cowering));
            let own_side = mine.as_ref() == Some(*faction);
            let wanted = match kind {
                // A rebuker spares its own side's undead, which it commands already (our ruling).
                TurnKind::Turn => {
                    let commands_it = turning.energy == Energy::Negative && own_side;
                    !already && !commands_it
                }
                TurnKind::Dispel => {
                    turned.is_some_and(|t| t.check(order).is_some()) && conditions.has(Condition::Turned)
                }
                TurnKind::Bolster => own_side && !already,
            };
            let in_the_fight = !conditions.has(Condition::Dead) && !conditions.has(Condition::InPit);
            *e != turner && traits.undead && in_the_fight && wanted
        })
        .map(|(entity, id, traits, (position, space, altitude), level, _, turned, _)| {
            let at = space.at(position.0);
            // Its distance in three dimensions, the height between counted (004:781-784).
            let distance = squares_apart(field, (from, height), (at, altitude.map_or(0, |a| a.0)));
            let seen = field.line_of_sight(from, at);
            let hit_dice = level.0.max(1);
            let against = Bolstered::hit_dice(bolstered.get(world, entity).ok(), hit_dice, order);
            let reach = InReach {
                entity,
                id: id.clone(),
                distance,
                hit_dice,
                against_turning: against,
                against_check: against as i32 + traits.turn_resistance,
                turned_by_check: turned.and_then(|t| t.check(order)),
            };
            (reach, seen)
        })
        .filter(|(r, seen)| *seen && r.distance <= TURNING_RANGE_SQUARES)
        .map(|(r, _)| r)
        .collect();
    undead.sort_by_key(|r| (r.distance, r.id.clone()));
    let cha = ability_modifier(charisma);
    Ok(TurnPlan {
        turning,
        check_bonus: cha,
        damage_bonus: turning.level as i32 + cha,
        undead,
        uses_left: per_day - turning.spent - 1,
        kind,
        commanded_hit_dice,
    })
}

fn footprint(world: &World, e: Entity) -> Option<Footprint> {
    Some(world.get::<Space>(e)?.at(world.get::<Position>(e)?.0))
}

/// Carries out turning intents: checked and paid for, the check, the damage, then each undead nearest
/// first, turned, destroyed, rebuked or commanded.
pub(super) fn turn_undead(world: &mut World, mut intents: Local<bevy::ecs::message::MessageCursor<TurnIntent>>) {
    let read: Vec<TurnIntent> =
        intents.read(world.resource::<bevy::ecs::message::Messages<TurnIntent>>()).copied().collect();
    for intent in read {
        let Some(id) = world.get::<CreatureId>(intent.turner).cloned() else { continue };
        let plan = match plan_turning(world, intent.turner, intent.kind) {
            Ok(plan) => plan,
            Err(refusal) => {
                super::refuse_in(world, intent.turner, Action::TurnUndead, refusal);
                continue;
            }
        };
        super::pay_in(world, intent.turner, (Action::TurnUndead, ActionKind::Standard));
        if let Some(mut turning) = world.get_mut::<Turning>(intent.turner) {
            turning.spent += 1;
        }
        let (affected, total) = roll_turning(world, &id, &plan);
        match plan.kind {
            TurnKind::Turn => apply_turning(world, intent.turner, &plan, &affected, total),
            TurnKind::Dispel => dispel(world, intent.turner, &affected),
            TurnKind::Bolster => bolster(world, intent.turner, &affected, max_hit_dice(total, plan.turning.level)),
        }
    }
}

/// The check and, if it reaches an undead in range, the damage; the undead affected, in order, the ties of
/// distance broken by a die (002: « en lançant un dé »), and the check's result. A turning reaches the undead
/// whose Hit Dice the table's row covers (004:544); a dispelling those turned by a check it equals or beats
/// (004:568); a bolstering those whose Hit Dice are below the row's, which it raises (004:570). The damage,
/// 2d6 + level + Charisma, counts the Hit Dice affected by a turning or a bolstering (004:546, « la
/// procédure est la même », 004:564), and the undead a dispelling frees (« combien de morts-vivants il peut
/// libérer », 004:568).
fn roll_turning(world: &mut World, id: &CreatureId, plan: &TurnPlan) -> (Vec<InReach>, i32) {
    let mut dice = world.resource_mut::<Dice>();
    let roll = dice.d20();
    let total = roll as i32 + plan.check_bonus;
    let most = max_hit_dice(total, plan.turning.level);
    let reachable: Vec<InReach> = plan
        .undead
        .iter()
        .filter(|u| match plan.kind {
            TurnKind::Turn => u.against_check <= most,
            TurnKind::Dispel => u.turned_by_check.is_some_and(|check| check <= total),
            TurnKind::Bolster => (u.hit_dice as i32) < most,
        })
        .cloned()
        .collect();
    let mut facts =
        vec![Fact::TurningChecked { creature: id.clone(), roll, bonus: plan.check_bonus, total, max_hit_dice: most }];
    let mut affected = Vec::new();
    if !reachable.is_empty() {
        let thrown = dice.throw(DiceExpr::new(2, 6));
        let mut left = thrown.total + plan.damage_bonus;
        facts.push(Fact::TurningDamage {
            creature: id.clone(),
            faces: thrown.faces.clone(),
            bonus: plan.damage_bonus,
            total: left,
        });
        // Nearest first; ties by a die.
        let mut rest = reachable;
        while !rest.is_empty() {
            let nearest = rest.iter().map(|u| u.distance).min().unwrap_or(0);
            let tied: Vec<usize> = (0..rest.len()).filter(|i| rest[*i].distance == nearest).collect();
            let pick = if tied.len() > 1 { tied[dice.roll(tied.len() as u32) as usize - 1] } else { tied[0] };
            let next = rest.remove(pick);
            let spent = if plan.kind == TurnKind::Dispel { 1 } else { next.hit_dice as i32 };
            if spent > left {
                break;
            }
            left -= spent;
            affected.push(next);
        }
    }
    for fact in facts {
        world.write_message(fact);
    }
    (affected, total)
}

/// Frees each undead affected from the turning it was under (004:568).
fn dispel(world: &mut World, turner: Entity, affected: &[InReach]) {
    let Some(id) = world.get::<CreatureId>(turner).cloned() else { return };
    for undead in affected {
        if let Some(mut lasting) = world.get_mut::<crate::rules::turns::lasting::Lasting>(undead.entity) {
            lasting.0.retain(|e| e.condition != Condition::Turned);
        }
        world.write_message(ConditionChange { creature: undead.entity, condition: Condition::Turned, gained: false });
        // The turnings go; a rebuke that holds it too stays (004:565).
        if let Some(mut by) = world.get_mut::<TurnedBy>(undead.entity) {
            by.0.retain(|h| h.condition != Condition::Turned);
        }
        world.write_message(Fact::UndeadTurned {
            creature: id.clone(),
            undead: undead.id.clone(),
            outcome: TurnOutcome::Freed,
        });
    }
}

/// Gives each undead affected `hit_dice` against turning for 10 rounds (004:570), unless a bolstering still
/// running gives it more: the higher holds while it lasts (« tant que dure cet effet »), a weaker one
/// lowering nothing.
fn bolster(world: &mut World, turner: Entity, affected: &[InReach], hit_dice: i32) {
    let Some(id) = world.get::<CreatureId>(turner).cloned() else { return };
    let until = world.resource::<TurnOrder>().round + TURNED_ROUNDS;
    let count_of = world.resource::<TurnOrder>().count_now().unwrap_or_default();
    let hit_dice = hit_dice.max(0) as u32;
    for undead in affected {
        let running = world.get::<Bolstered>(undead.entity).copied().filter(|b| {
            !crate::rules::turns::lasting::count_reached(b.until, b.count_of, world.resource::<TurnOrder>())
        });
        let now = match running {
            Some(stronger) if stronger.hit_dice >= hit_dice => stronger.hit_dice,
            _ => {
                world.entity_mut(undead.entity).insert(Bolstered { hit_dice, until, count_of });
                hit_dice
            }
        };
        world.write_message(Fact::UndeadTurned {
            creature: id.clone(),
            undead: undead.id.clone(),
            outcome: TurnOutcome::Bolstered { hit_dice: now },
        });
    }
}

/// Turns, destroys, rebukes or commands each undead affected (004:549-551, 004:564-566).
fn apply_turning(world: &mut World, turner: Entity, plan: &TurnPlan, affected: &[InReach], check: i32) {
    let level = plan.turning.level;
    let mut commanded_hit_dice = plan.commanded_hit_dice;
    let faction = world.get::<Faction>(turner).cloned();
    for undead in affected {
        let overwhelmed = undead.overwhelmed_by(level);
        let outcome = match plan.turning.energy {
            Energy::Positive if overwhelmed => {
                world.write_message(Slay { target: undead.entity });
                TurnOutcome::Destroyed
            }
            Energy::Negative if plan.commands(undead, &mut commanded_hit_dice) => {
                let was = world.get::<Faction>(undead.entity).cloned();
                if let (Some(faction), Some(was), Ok(mut e)) =
                    (faction.clone(), was, world.get_entity_mut(undead.entity))
                {
                    e.insert((faction, CommandedBy { cleric: turner, hit_dice: undead.hit_dice, was }));
                }
                TurnOutcome::Commanded
            }
            energy => {
                let condition = if energy == Energy::Positive { Condition::Turned } else { Condition::Cowering };
                world.write_message(ImposeIntent { creature: undead.entity, condition, rounds: TURNED_ROUNDS });
                // As the lasting effect will record it (`lasting::impose`): from the count now.
                let order = world.resource::<TurnOrder>();
                let hold = Hold {
                    turner,
                    check,
                    ends_round: order.round + TURNED_ROUNDS,
                    count_of: order.count_now().unwrap_or_default(),
                    condition,
                };
                if let Ok(mut e) = world.get_entity_mut(undead.entity) {
                    match e.get_mut::<TurnedBy>() {
                        Some(mut by) => by.hold(hold),
                        None => {
                            e.insert(TurnedBy(vec![hold]));
                        }
                    }
                }
                if energy == Energy::Positive { TurnOutcome::Turned } else { TurnOutcome::Rebuked }
            }
        };
        let Some(id) = world.get::<CreatureId>(turner).cloned() else { continue };
        world.write_message(Fact::UndeadTurned { creature: id, undead: undead.id.clone(), outcome });
    }
}

/// The squares between two creatures in three dimensions: the metres between them (004:781-784) in squares
/// of 1.5 m, to the nearest; the ground distance when both stand at one height.
fn squares_apart(field: &Battlefield, own: (Footprint, i32), theirs: (Footprint, i32)) -> u32 {
    if own.1 == theirs.1 {
        return own.0.distance_to(theirs.0, field.diagonals());
    }
    let metres = crate::rules::core::altitude::separation_m(field.scale(), field.diagonals(), own, theirs);
    (metres / 1.5).round() as u32
}

/// Whether a turner that went from `before` to `now` came within 3 m of an undead at `theirs`, nearer than it
/// stood: « il suffit que le prêtre s'approche à moins de 3 mètres d'eux » (004:549), wherever the undead
/// fled in between.
fn came_near(
    field: &Battlefield,
    (before, now): ((Footprint, i32), (Footprint, i32)),
    theirs: (Footprint, i32),
) -> bool {
    let distance = squares_apart(field, now, theirs);
    distance <= TURNER_NEAR_SQUARES && distance < squares_apart(field, before, theirs)
}

/// Ends the `ended` turnings of an undead: their holds, and its own lasting effects with them (another's
/// keeps it turned for what is left of its minute). Whether some ended and none holds it any more.
fn end_turnings(
    by: &mut TurnedBy,
    lasting: Option<Mut<crate::rules::turns::lasting::Lasting>>,
    ended: &[Hold],
    order: &TurnOrder,
) -> bool {
    if ended.is_empty() {
        return false;
    }
    by.0.retain(|h| !ended.contains(h));
    if let Some(mut lasting) = lasting {
        lasting.0.retain(|e| {
            !(e.condition == Condition::Turned
                && ended.iter().any(|h| h.ends_round == e.ends_round && h.count_of == e.count_of))
        });
    }
    by.turnings(order).next().is_none()
}

/// The undead some cleric's turning holds, where they are and in what state (changed at once when the turner
/// comes near), and the effects that hold them.
type TurnedUndead<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static mut TurnedBy,
        (&'static Position, &'static Space, Option<&'static Altitude>),
        &'static mut Conditions,
        Option<&'static mut crate::rules::turns::lasting::Lasting>,
        Has<Cornered>,
    ),
>;

/// Where turners are, at what height, and on what mount.
type Turners<'w, 's> = Query<
    'w,
    's,
    (&'static CreatureId, &'static Position, &'static Space, Option<&'static Altitude>, Option<&'static Riding>),
>;

/// Whether a turned undead may move its `creature` to `to`: « Les morts-vivants repoussés fuient aussi vite
/// que possible » (004:549): a move must take it farther from its turner than it stands, never nearer nor
/// as near; turned by several, farther from each (our ruling). Any other creature may.
pub fn fleeing(world: &World, creature: Entity, to: crate::rules::core::geometry::Square) -> Result<(), Refusal> {
    let (Some(by), Some(conditions)) = (world.get::<TurnedBy>(creature), world.get::<Conditions>(creature)) else {
        return Ok(());
    };
    if !conditions.has(Condition::Turned) {
        return Ok(());
    }
    let place = |who: Entity| {
        let (position, space) = (world.get::<Position>(who)?, world.get::<Space>(who)?);
        Some((*space, position.0, world.get::<Altitude>(who).map_or(0, |a| a.0)))
    };
    let Some((space, at, height)) = place(creature) else { return Ok(()) };
    let field = world.resource::<Battlefield>();
    for turner in by.turners(world.resource::<TurnOrder>()) {
        let Some((turner_space, turner_at, turner_height)) = place(turner) else { continue };
        let turner = (turner_space.at(turner_at), turner_height);
        let now = squares_apart(field, (space.at(at), height), turner);
        let then = squares_apart(field, (space.at(to), height), turner);
        if then <= now {
            return Err(Refusal::new("a turned undead flees its turner: it moves only farther from it", "004:549"));
        }
    }
    Ok(())
}

/// The turners whose turning holds `creature`, turned, as it flees them (004:549).
pub fn fled_from(world: &World, creature: Entity) -> Vec<Entity> {
    let turned = world.get::<Conditions>(creature).is_some_and(|c| c.has(Condition::Turned));
    match world.get::<TurnedBy>(creature) {
        Some(by) if turned => by.turners(world.resource::<TurnOrder>()),
        _ => Vec::new(),
    }
}

/// The turner's walk bringing it nearer than it stood, within 3 m, ends its turning at that very square
/// (« il suffit que le prêtre s'approche à moins de 3 mètres d'eux pour qu'ils se remettent à agir
/// normalement », 004:549): the undead acts normally for the rest of the walk, and strikes as its turner
/// leaves the squares it threatens (004:64-65). [`turner_comes_near`] settles the rest (flights, mounts).
fn turner_steps_near(
    moving: On<crate::rules::turns::moving::Moving>,
    mut turned: TurnedUndead<'_, '_>,
    (altitudes, ridings): (Query<&Altitude>, Query<&Riding>),
    (field, order): (Res<Battlefield>, Res<TurnOrder>),
    mut reactions: ResMut<crate::rules::opportunity::MoveReactions>,
    mut facts: MessageWriter<Fact>,
    mut commands: Commands,
) {
    let moment = moving.event();
    if moment.phase != crate::rules::turns::moving::MovePhase::Entered {
        return;
    }
    let high = altitudes.get(moment.mover).map_or(0, |a| a.0);
    let before_high = moment.before_altitude.unwrap_or(high);
    for (entity, id, mut by, (position, space, altitude), mut state, lasting, cornered) in &mut turned {
        if !state.has(Condition::Turned) {
            continue;
        }
        let theirs = (space.at(position.0), altitude.map_or(0, |a| a.0));
        // The turner walking, or carried on the mount that walks (« s'approche », however it comes).
        let carried = |turner: Entity| ridings.get(turner).is_ok_and(|r| r.0 == moment.mover);
        let near = |hold: &Hold| {
            (hold.turner == moment.mover || carried(hold.turner))
                && came_near(&field, ((moment.before, before_high), (moment.at, high)), theirs)
        };
        let ended: Vec<Hold> = by.turnings(&order).filter(|h| near(h)).copied().collect();
        if end_turnings(&mut by, lasting, &ended, &order)
            && flees_no_more((entity, id, &mut state, cornered), &mut facts, &mut commands)
        {
            reactions.wake(entity);
        }
    }
}

/// An undead its last turning let go: turned no more, at once, and cowering no more if it cowered for being
/// cornered (004:549). Whether it was turned.
fn flees_no_more(
    (entity, id, state, cornered): (Entity, &CreatureId, &mut Conditions, bool),
    facts: &mut MessageWriter<Fact>,
    commands: &mut Commands,
) -> bool {
    use crate::rules::health::change_conditions;
    let Some(lost) = change_conditions(id, state, Condition::Turned, false) else { return false };
    facts.write(lost);
    if cornered {
        commands.entity(entity).remove::<Cornered>();
        facts.write_batch(change_conditions(id, state, Condition::Cowering, false));
    }
    true
}

/// The turner coming nearer than it was, within 3 m, ends its turning of that undead (004:549): at any
/// square of a walk (« il suffit que le prêtre s'approche »), or where a flight or a move carried it. Turned
/// by another too, the undead stays turned by that one's turning for what is left of its minute.
pub fn turner_comes_near(
    mut io: ParamSet<(MessageReader<Fact>, MessageWriter<Fact>)>,
    mut walking: Local<Option<(CreatureId, crate::rules::core::geometry::Square)>>,
    mut turned: TurnedUndead<'_, '_>,
    places: Turners<'_, '_>,
    (field, order): (Res<Battlefield>, Res<TurnOrder>),
    mut commands: Commands,
) {
    let read: Vec<Fact> = io.p0().read().cloned().collect();
    let mut facts = io.p1();
    for fact in &read {
        // A walk or a flight, its own or its mount's carrying it (004:549 « s'approche », however it comes).
        // Where it came from and where it is now (`None`: where it stands once moved).
        let (mover, from, now, climbed) = match fact {
            Fact::MoveStarted { creature, from, .. } => {
                *walking = Some((creature.clone(), *from));
                continue;
            }
            Fact::SquareEntered { creature, square, .. } => match &*walking {
                Some((walker, from)) if walker == creature => (creature, *from, Some(*square), 0),
                _ => continue,
            },
            Fact::CreatureMoved { creature, from, .. } => (creature, *from, None, 0),
            Fact::Flew { creature, from, climbed_m, .. } => (creature, *from, None, (climbed_m / 1.5).round() as i32),
            _ => continue,
        };
        for (entity, undead, mut by, (position, space, altitude), mut state, lasting, cornered) in &mut turned {
            // Only a turned undead flees its turner; a rebuked one cowers for its minute (004:565).
            if !state.has(Condition::Turned) {
                continue;
            }
            let theirs = (space.at(position.0), altitude.map_or(0, |a| a.0));
            let near = |hold: &Hold| {
                let Ok((id, p, s, height, riding)) = places.get(hold.turner) else { return false };
                let carried = riding.and_then(|r| places.get(r.0).ok()).is_some_and(|mount| mount.0 == mover);
                if id != mover && !carried {
                    return false;
                }
                let high = height.map_or(0, |a| a.0);
                came_near(&field, ((s.at(from), high - climbed), (s.at(now.unwrap_or(p.0)), high)), theirs)
            };
            let ended: Vec<Hold> = by.turnings(&order).filter(|h| near(h)).copied().collect();
            // Ended at once, before anything else is done: the undead acts normally from now on.
            if end_turnings(&mut by, lasting, &ended, &order) {
                flees_no_more((entity, undead, &mut state, cornered), &mut facts, &mut commands);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turning_table_row_by_row_004_554_563() {
        // A cleric of level 5: each row's range of results and the Hit Dice it gives.
        let rows: [(&[i32], i32); 9] = [
            (&[-3, 0], 1),
            (&[1, 3], 2),
            (&[4, 6], 3),
            (&[7, 9], 4),
            (&[10, 12], 5),
            (&[13, 15], 6),
            (&[16, 18], 7),
            (&[19, 21], 8),
            (&[22, 30], 9),
        ];
        for (results, hit_dice) in rows {
            for result in results {
                assert_eq!(max_hit_dice(*result, 5), hit_dice, "result {result}");
            }
        }
    }

    #[test]
    fn three_uses_plus_charisma_004_541() {
        assert_eq!(uses_per_day(10), 3);
        assert_eq!(uses_per_day(14), 5);
        assert_eq!(uses_per_day(7), 1);
        assert_eq!(uses_per_day(1), 0);
    }
}
