//! Actions declared before they are carried out: a click that would provoke an attack of opportunity, or an
//! end of turn with actions left, waits for a second click (or Enter) on the same action; Escape takes it
//! back. Nothing has happened until then: the rules see the action only when it is confirmed. The player
//! may turn the question off in the settings (`act_at_once`).

use bevy::prelude::*;

use crate::rules::command::Command;
use crate::rules::turns::{ActionBudget, ActionKind};

use super::state::{Pending, Previews};
use super::turn::{display_name, human_turn};

/// Why an action waits for the player's word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// It provokes attacks of opportunity from these (their names), by this rule.
    Provokes {
        /// Who would strike.
        who: Vec<String>,
        /// The rule.
        rule: &'static str,
    },
    /// It ends the turn with these actions left ("standard", "move").
    EndsEarly(Vec<&'static str>),
}

/// An action waiting for the player's word: the commands a confirmation sends, and why it asks.
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    /// Whose turn it was declared in.
    pub creature: Entity,
    /// The commands, in order.
    pub commands: Vec<Command>,
    /// Why it waits.
    pub why: Why,
}

/// The action declared and not yet confirmed, if any.
#[derive(Resource, Default, Debug, Clone)]
pub struct Declared(pub Option<Declaration>);

/// Sends `commands` for the creature whose turn it is, or holds them for a confirmation when `why` says
/// they provoke or end the turn early and the player wants to be asked. The same commands declared again
/// (the second click on the same square) go. Returns whether they went.
pub fn submit(world: &mut World, commands: Vec<Command>, why: Option<Why>) -> bool {
    forget_stale(world);
    let at_once = world.get_resource::<super::settings::Settings>().is_some_and(|s| s.act_at_once);
    let again = world.get_resource_or_init::<Declared>().0.as_ref().is_some_and(|d| d.commands == commands);
    match (why, human_turn(world)) {
        (Some(why), Some(creature)) if !at_once && !again => {
            world.get_resource_or_init::<Declared>().0 = Some(Declaration { creature, commands, why });
            false
        }
        _ => {
            world.get_resource_or_init::<Declared>().0 = None;
            world.resource_mut::<Pending>().0.extend(commands);
            true
        }
    }
}

/// Confirms the action declared: its commands go. Whether there was one.
pub fn confirm(world: &mut World) -> bool {
    forget_stale(world);
    let Some(declaration) = world.get_resource_or_init::<Declared>().0.take() else { return false };
    world.resource_mut::<Pending>().0.extend(declaration.commands);
    true
}

/// Takes back the action declared. Whether there was one.
pub fn take_back(world: &mut World) -> bool {
    forget_stale(world);
    world.get_resource_or_init::<Declared>().0.take().is_some()
}

/// Why a move, tumble or charge (the first of `commands`) waits: the foes its path provokes, as the
/// previews of the hovered square show them (004:64-71).
pub fn why_moving(world: &World, commands: &[Command]) -> Option<Why> {
    let previews = world.resource::<Previews>();
    let provoking = match commands.first()? {
        Command::Move { .. } | Command::Tumble { .. } => &previews.path.as_ref()?.as_ref().ok()?.provocations,
        Command::Charge { .. } => &previews.lane_provocations,
        _ => return None,
    };
    let mut who: Vec<Entity> = provoking.iter().flat_map(|p| p.from.iter().copied()).collect();
    // A charge that ends in an unarmed trip, or a disarm or sunder without its feat, provokes its foe there
    // too (004:484, 004:492, 004:500): the plan the preview made at the lane's end says so.
    if let Command::Charge { finish, .. } = commands.first()? {
        use crate::rules::turns::moving::ChargeFinish;
        let ok = |p: Option<bool>| p.unwrap_or(false);
        let ends_provoking = match finish {
            ChargeFinish::Trip => ok(previews.trip.as_ref().and_then(|t| t.as_ref().ok()).map(|t| t.plan.provokes)),
            ChargeFinish::Disarm => ok(previews.disarm.as_ref().and_then(|d| d.as_ref().ok()).map(|d| d.provokes)),
            ChargeFinish::Sunder { .. } => {
                ok(previews.sunder.as_ref().and_then(|s| s.as_ref().ok()).map(|s| s.provokes))
            }
            _ => false,
        };
        // A foe flat-footed or unable to act strikes no one (004:53).
        let reacts = |foe: &Entity| {
            world
                .get::<crate::rules::core::creature::Conditions>(*foe)
                .is_some_and(|c| c.can_act() && !c.has(crate::rules::core::creature::Condition::FlatFooted))
        };
        who.extend(previews.hovered.filter(|foe| ends_provoking && reacts(foe)));
    }
    who.sort();
    who.dedup();
    let who: Vec<String> = who.into_iter().map(|e| display_name(world, e)).collect();
    (!who.is_empty()).then_some(Why::Provokes { who, rule: "004:64-71" })
}

/// Why a click's action waits: a move's or a charge's path ([`why_moving`]), or an attack or special attack
/// that provokes where the creature stands, from the foes its preview names: an unarmed trip, disarm or
/// grab from the foe it aims at (004:484, 004:492, 004:581), a sunder's blow (004:500), a bull rush's
/// entry into the foe's space (004:447), an overrun's leaving its square (004:64-65), a shot, a throw or a
/// coup de grâce from every foe that threatens it (004:90, 004:426), an unarmed blow on an armed foe
/// (004:168), first aid (004:107), a spell not cast defensively (004:196).
pub fn why_acting(world: &World, commands: &[Command]) -> Option<Why> {
    if let Some(why) = why_moving(world, commands) {
        return Some(why);
    }
    let previews = world.resource::<Previews>();
    let here = &previews.strikers_here;
    let foe = previews.hovered;
    let the_foe = |provokes: bool| -> Vec<Entity> {
        if provokes { here.iter().copied().filter(|e| Some(*e) == foe).collect() } else { Vec::new() }
    };
    let (who, rule): (Vec<Entity>, &'static str) = match commands.first()? {
        Command::Trip { .. } => (the_foe(previews.trip.as_ref()?.as_ref().ok()?.plan.provokes), "004:484"),
        Command::Disarm { .. } => (the_foe(previews.disarm.as_ref()?.as_ref().ok()?.provokes), "004:492"),
        Command::Sunder { .. } => (the_foe(previews.sunder.as_ref()?.as_ref().ok()?.provokes), "004:500"),
        Command::Grapple { action: crate::rules::special::grapple::GrappleMove::Move, .. } => {
            (previews.grapple.as_ref()?.as_ref().ok()?.strikers.clone(), "004:65, 004:602")
        }
        Command::Grapple { target: Some(_), .. } => {
            let grapple = previews.grapple.as_ref()?.as_ref().ok()?;
            let mut who = the_foe(grapple.target_strikes);
            who.extend(grapple.strikers.iter().copied());
            (who, "004:581, 004:586")
        }
        Command::BullRush { .. } => (previews.bull_rush.as_ref()?.as_ref().ok()?.plan.provokers.clone(), "004:447"),
        // The foe passed among them: the square next to it is left for its space (004:65, docs/rulings.md).
        Command::Overrun { .. } => (here.clone(), "004:64-65"),
        Command::Throw { .. } => (here.clone(), "004:90"),
        Command::CoupDeGrace { .. } => (here.clone(), "004:426"),
        Command::FirstAid { .. } => (here.clone(), "004:107"),
        Command::Attack { .. } => {
            let weapon = &previews.attack.as_ref()?.as_ref().ok()?.plan.weapon;
            if crate::rules::core::creature::provokes_as_a_shot(weapon).is_some() {
                (here.clone(), "004:90")
            } else if let Some(me) = previews.active
                && crate::rules::special::aid::unarmed_provokes(world, me, weapon)
            {
                // An unarmed creature's blow provokes its foe, when that foe threatens it (004:168).
                (the_foe(true), "004:168")
            } else {
                (Vec::new(), "")
            }
        }
        Command::Aid { .. } => (the_foe(previews.aid.as_ref()?.as_ref().ok()?.foe_strikes), "004:168"),
        Command::Cast { defensively: false, .. } => {
            let cast = previews.cast.as_ref()?.as_ref().ok()?;
            let who: Vec<String> = cast.provokes_from.clone();
            return (!who.is_empty()).then_some(Why::Provokes { who, rule: "004:196" });
        }
        _ => return None,
    };
    let who: Vec<String> = who.into_iter().map(|e| display_name(world, e)).collect();
    (!who.is_empty()).then_some(Why::Provokes { who, rule })
}

/// Why an action that provokes where its doer stands waits, by `rule`: the foes that would strike
/// (004:66), if any.
pub fn why_in_place(world: &World, rule: &'static str) -> Option<Why> {
    let previews = world.resource::<Previews>();
    let who: Vec<String> = previews.strikers_here.iter().map(|e| display_name(world, *e)).collect();
    (!who.is_empty()).then_some(Why::Provokes { who, rule })
}

/// Why ending `creature`'s turn now waits: the standard action it has not taken (004:73-86). A move action
/// left alone is not asked about: a creature that struck and stood is the common turn.
pub fn why_ending(world: &World, creature: Entity) -> Option<Why> {
    let budget = world.get::<ActionBudget>(creature)?;
    let conditions = world.get::<crate::rules::core::creature::Conditions>(creature)?;
    if !conditions.can_act() {
        return None;
    }
    let left: Vec<&'static str> = [(ActionKind::Standard, "standard")]
        .into_iter()
        .filter(|(kind, _)| budget.check(*kind).is_ok())
        .map(|(_, name)| name)
        .collect();
    (!left.is_empty()).then_some(Why::EndsEarly(left))
}

/// The declaration in the player's words, for the top of the board.
pub fn words(declaration: &Declaration) -> String {
    use crate::locale::tr;
    use crate::tr;
    let what = match &declaration.why {
        Why::Provokes { who, rule } => tr!("declared-provokes", who = who.join(", "), rule = *rule),
        Why::EndsEarly(left) => {
            let left: Vec<String> = left
                .iter()
                .map(|l| match *l {
                    "standard" => tr("declared-left-standard"),
                    _ => tr("declared-left-move"),
                })
                .collect();
            tr!("declared-ends-early", left = left.join(", "))
        }
    };
    tr!("declared-confirm", what = what)
}

/// The declaration waiting now: one made in another creature's turn is gone with that turn.
pub fn current(world: &World) -> Option<&Declaration> {
    let now = human_turn(world);
    world.get_resource::<Declared>()?.0.as_ref().filter(|d| Some(d.creature) == now)
}

/// Forgets a declaration made in a turn that has passed.
fn forget_stale(world: &mut World) {
    if current(world).is_none() {
        world.get_resource_or_init::<Declared>().0 = None;
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Declared>();
}
