//! Hiding on the ground behind cover or concealment (004:403 « On peut utiliser un abri pour tenter un test de
//! Discrétion », 004:412 « On peut utiliser un camouflage pour tenter un test de Discrétion »): not behind a
//! creature's soft cover (004:404), +10 behind improved cover (004:407), +20 invisible and moving, +40
//! invisible and still (004:415). The texts name the check and leave the rest to the d20 standard: a Hide
//! check against the Spot check of each foe that could see it. Our rulings are in docs/rulings.md, "Hiding on
//! the ground". A flier in the air hides from its pursuers by the aerial chapter's rule (004:816-817); both
//! read the one [`HideIntent`] (this one among the actions just after total defence, the flier's after it), and both are found again here when they attack, cast or breathe.

use std::collections::BTreeSet;

use bevy::prelude::*;

use super::{Combatant, CombatantItem, miss_chance_from};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{Ties, opposed, skill};
use crate::rules::core::cover::{Cover, TOTAL_CONCEALMENT};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::{Fact, refuse};
use crate::rules::core::geometry::Footprint;
use crate::rules::core::names::{Action, Check};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::TurnOrder;

/// A creature's attempt to hide: on the ground behind cover or concealment (004:403, 004:412), or a flier in
/// the air losing its pursuers (004:816-817).
#[derive(Message, Clone, Copy, Debug)]
pub struct HideIntent {
    /// The creature hiding (a flier's rider hides the party).
    pub creature: Entity,
}

/// The Hide bonus behind improved cover (« Un abri supérieur confère également un bonus de +10 sur les tests
/// de Discrétion », 004:407).
pub const IMPROVED_COVER_BONUS: i32 = 10;

/// The Hide bonus of an invisible creature that moved this turn (004:415).
pub const INVISIBLE_MOVING_BONUS: i32 = 20;

/// The Hide bonus of an invisible creature that stayed still this turn (004:415).
pub const INVISIBLE_STILL_BONUS: i32 = 40;

/// The Hide penalty after moving more than half its speed this turn (the d20 standard; docs/rulings.md).
pub const HURRIED_PENALTY: i32 = -5;

/// The Hide modifier of a size: 4 a category, Small +4, Large -4, Colossal -16.
pub fn hide_size_modifier(size: Size) -> i32 {
    -4 * Size::Medium.steps_to(size)
}

/// It showed itself this turn, attacking, casting or breathing: it cannot hide again before its next turn.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Showed {
    /// The turn it showed itself in ([`TurnOrder::turns_begun`]).
    pub turn: u64,
}

/// What stands between a foe and a creature hiding from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// Neither cover nor concealment: the foe sees it, and it cannot hide from that foe.
    InPlainView,
    /// Cover (not a creature's soft cover, 004:404) or concealment (004:403, 004:412): a Hide check against
    /// the foe's Spot, with +10 behind improved cover (004:407).
    Screened {
        /// Improved cover (an arrow slit, the water).
        improved: bool,
    },
    /// No line of sight: the foe does not see it hide, and loses it with no check.
    OutOfSight,
}

/// What screens `hider` from `foe`: the cover and the concealment the foe's blow at it would find (the
/// attack's own [`super::cover_between`] and [`super::miss_chance_at`]), creatures between not counting
/// (« un abri mou de ce type ... ne permet pas de tenter un test de Discrétion », 004:404).
pub fn screen(field: &Battlefield, foe: &CombatantItem, hider: &CombatantItem) -> Screen {
    screen_from(field, (foe, foe.space.at(foe.position.0)), hider)
}

/// [`screen`] with `foe` standing on `own`: a foe passing by in its move.
pub fn screen_from(field: &Battlefield, (foe, own): (&CombatantItem, Footprint), hider: &CombatantItem) -> Screen {
    let theirs = hider.space.at(hider.position.0);
    if !field.line_of_sight(own, theirs) || foe.conditions.has(Condition::Blinded) {
        return Screen::OutOfSight;
    }
    let miss = miss_chance_from(field, (foe, own), hider, theirs, false);
    // The dark beyond its darkvision hides the creature from it wholly (004:414-415); an invisible one
    // still rolls, with its bonus (004:415).
    if miss >= TOTAL_CONCEALMENT && !hider.conditions.has(Condition::Invisible) {
        return Screen::OutOfSight;
    }
    let concealed = miss > 0;
    match super::cover_between(field, (own, foe.altitude.0), (theirs, hider.altitude.0), false, &[]) {
        Cover::Total => Screen::OutOfSight,
        Cover::Improved { .. } | Cover::Water => Screen::Screened { improved: true },
        Cover::Hard { .. } => Screen::Screened { improved: false },
        Cover::None | Cover::Soft { .. } if concealed => Screen::Screened { improved: false },
        Cover::None | Cover::Soft { .. } => Screen::InPlainView,
    }
}

/// Whether `hider`, or the flier it rides, is in the air: then it hides from its pursuers by the aerial
/// chapter's rule (004:816-817), not here.
pub fn aloft(creatures: &Query<Combatant, With<Creature>>, hider: &CombatantItem) -> bool {
    let mount = hider.riding.map_or(hider.entity, |r| r.0);
    creatures.get(mount).is_ok_and(|m| flying(m.speed, m.altitude.0))
}

pub use crate::rules::core::creature::flying;

/// Whether `hider` may hide on the ground now, and what screens it from each foe able to act (004:403,
/// 004:412): in its turn, on its own feet (a rider and its mount hide only in the air), once a turn, before
/// it attacks, casts or breathes (`showed`), and from at least one foe by cover or concealment.
pub fn may_hide_on_foot(
    (field, order): (&Battlefield, &TurnOrder),
    creatures: &Query<Combatant, With<Creature>>,
    hider: &CombatantItem,
    showed: bool,
) -> Result<Vec<(Entity, Screen)>, Refusal> {
    order.check_turn(hider.entity)?;
    able_to_act(hider.conditions)?;
    if hider.riding.is_some() || hider.riders.is_some_and(|r| !r.all().is_empty()) {
        return Err(Refusal::new("a rider and its mount hide only in the air, from a pursuer", "004:816-817"));
    }
    if hider.conditions.has(Condition::Grappling) {
        return Err(Refusal::new("in a grapple, it cannot hide from those holding it", "004:403, docs/rulings.md"));
    }
    if hider.hidden.is_some_and(|h| h.round == order.round) {
        return Err(Refusal::new("it has tried to hide this turn already", "004:403"));
    }
    if showed {
        return Err(Refusal::new("it showed itself this turn attacking: it hides before it attacks", "004:403"));
    }
    let mut foes: Vec<CombatantItem> =
        creatures.iter().filter(|c| c.faction != hider.faction && c.conditions.can_act()).collect();
    if foes.is_empty() {
        return Err(Refusal::new("no foe to hide from", "004:403"));
    }
    foes.sort_by(|a, b| a.id.0.cmp(&b.id.0));
    let screens: Vec<(Entity, Screen)> = foes.iter().map(|f| (f.entity, screen(field, f, hider))).collect();
    if screens.iter().all(|(_, s)| *s == Screen::InPlainView) {
        return Err(Refusal::new(
            "in plain view of every foe: no cover or concealment to hide behind",
            "004:403, 004:412",
        ));
    }
    Ok(screens)
}

/// The terms of `hider`'s Hide check, whoever it hides from: its skill (its Dex modifier without one), its
/// size, invisibility (004:415), and a hurried move's penalty.
pub fn hide_terms(order: &TurnOrder, hider: &CombatantItem) -> Vec<Modifier> {
    let mut terms = vec![
        Modifier::new(
            crate::rules::core::creature::dex_skill(hider.skills.hide, hider.abilities, hider.conditions),
            "skill",
        ),
        Modifier::new(hide_size_modifier(*hider.size), "size"),
    ];
    let moved = hider.travelled.filter(|t| t.round == order.round && t.distance > 0);
    if hider.conditions.has(Condition::Invisible) {
        terms.push(match moved {
            Some(_) => Modifier::new(INVISIBLE_MOVING_BONUS, "invisible, it moved (004:415)"),
            None => Modifier::new(INVISIBLE_STILL_BONUS, "invisible, it stayed still (004:415)"),
        });
    }
    if moved.is_some_and(|t| t.distance * 2 > t.speed) {
        terms.push(Modifier::new(HURRIED_PENALTY, "moved more than half its speed"));
    }
    terms
}

/// Whether `creature` may hide on the ground now, as [`may_hide_on_foot`] reads the world: what the action
/// bar and the AI ask.
pub fn hide_allowed(world: &World, creature: Entity) -> Result<(), Refusal> {
    let Some(mut state) = crate::rules::core::kept::kept_ref::<Combatant, With<Creature>>(world) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let creatures = state.query(world);
    let hider = creatures.get(creature).map_err(|_| Refusal::new("no such creature", "data"))?;
    let order = world.resource::<TurnOrder>();
    let showed = world.get::<Showed>(creature).is_some_and(|s| s.turn == order.turns_begun);
    may_hide_on_foot((world.resource::<Battlefield>(), order), &creatures, &hider, showed).map(|_| ())
}

pub fn plugin(app: &mut App) {
    app.add_message::<HideIntent>();
    // After the frame's facts are all written and its moves made: they only read them.
    app.add_systems(Rules, (reveal, keep_hidden).chain().in_set(RulesSystems::Record));
}

/// A creature hides on the ground (004:403, 004:412): one Hide check, against the Spot of each foe it has
/// cover or concealment from (+10 behind improved cover against that foe, 004:407); each foe it beats loses
/// sight of it, and so does each foe with no line of sight to it. A flier in the air is the aerial chapter's.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource it reads")]
pub fn hide_on_foot(
    mut intents: MessageReader<HideIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut commands: Commands,
    creatures: Query<Combatant, With<Creature>>,
    showed: Query<&Showed>,
) {
    for intent in intents.read() {
        let Ok(hider) = creatures.get(intent.creature) else { continue };
        if aloft(&creatures, &hider) {
            continue;
        }
        let shown = showed.get(hider.entity).is_ok_and(|s| s.turn == order.turns_begun);
        let screens = match may_hide_on_foot((&field, &order), &creatures, &hider, shown) {
            Ok(screens) => screens,
            Err(refusal) => {
                refuse(&mut facts, hider.id, Action::Hide, refusal);
                continue;
            }
        };
        let terms = hide_terms(&order, &hider);
        let roll = dice.d20();
        let mut lost = BTreeSet::new();
        for (foe, screen) in screens {
            let Ok(seer) = creatures.get(foe) else { continue };
            let improved = match screen {
                Screen::InPlainView => continue,
                Screen::OutOfSight => {
                    lost.insert(foe);
                    continue;
                }
                Screen::Screened { improved } => improved,
            };
            let mut ours = terms.clone();
            if improved {
                ours.push(Modifier::new(IMPROVED_COVER_BONUS, "improved cover (004:407)"));
            }
            let spot = [Modifier::new(skill(seer.skills.spot, seer.abilities.wis), "skill")];
            if opposed(
                &mut dice,
                &mut facts,
                (hider.id, Check::Hide, &ours),
                (seer.id, Check::Spot, &spot),
                (roll, Ties::Lost),
                "hiding behind cover or concealment (004:403, 004:412)",
            ) {
                lost.insert(foe);
            }
        }
        commands.entity(hider.entity).insert(Hidden { from: lost, round: order.round, at: Some(hider.position.0) });
    }
}

/// `who` shows itself now, in the middle of its action (the first blow of a full attack from hiding): every
/// foe finds it, and it cannot hide again this turn.
pub fn show(world: &mut World, who: Entity) {
    let turn = world.resource::<TurnOrder>().turns_begun;
    let Ok(mut entity) = world.get_entity_mut(who) else { return };
    entity.insert(Showed { turn });
    match entity.get::<Hidden>().cloned() {
        Some(hidden) if hidden.at.is_some() => {
            entity.insert(Hidden { from: BTreeSet::new(), ..hidden });
        }
        Some(_) => {
            entity.remove::<Hidden>();
        }
        None => {}
    }
}

/// The creatures, with their mounts and riders.
type Parties<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static CreatureId, Option<&'static Riding>, Option<&'static Riders>, Option<&'static Hidden>),
>;

/// A creature that attacks (a coup de grâce, a flask at an intersection, a turning too), casts or breathes
/// shows itself (and cannot hide again this turn): a flier that
/// hid in the air is found again, with all on its back, and so when its next turn begins (our ruling on
/// 004:816-817); a creature that hid on the ground is found by every foe, and stays hidden into its next
/// turn otherwise.
fn reveal(mut facts: MessageReader<Fact>, order: Res<TurnOrder>, mut commands: Commands, creatures: Parties) {
    let mut shown: Vec<CreatureId> = Vec::new();
    let mut begun: Vec<CreatureId> = Vec::new();
    for fact in facts.read() {
        match fact {
            Fact::AttackRolled { attacker, .. } | Fact::CoupDeGraceDelivered { attacker, .. } => {
                shown.push(attacker.clone());
            }
            // A flask thrown at an intersection is a ranged attack (004:529); a turning « est considéré
            // comme une attaque » (004:539).
            Fact::IntersectionAimed { creature, .. } | Fact::TurningChecked { creature, .. } => {
                shown.push(creature.clone());
            }
            Fact::CastingBegun { caster, .. } => shown.push(caster.clone()),
            Fact::Breathed { creature, .. } => shown.push(creature.clone()),
            // A special attack (disarm, sunder, bull rush, overrun, grapple) shows it as a blow does; its
            // own Hide does not, nor a Bluff (a feint, a flier's diversion, 004:818).
            Fact::Opposed { creature, check, .. } if !matches!(check, Check::Hide | Check::Bluff) => {
                shown.push(creature.clone());
            }
            Fact::TurnStarted { creature, .. } => begun.push(creature.clone()),
            _ => {}
        }
    }
    if shown.is_empty() && begun.is_empty() {
        return;
    }
    // One of a party shown shows the mount and all on its back; a new turn begins for them all at once.
    let party = |id: &CreatureId| -> BTreeSet<Entity> {
        let mut found = BTreeSet::new();
        if let Some((entity, _, riding, ..)) = creatures.iter().find(|c| c.1 == id) {
            let mount = riding.map_or(entity, |r| r.0);
            found.insert(mount);
            found.extend(creatures.get(mount).ok().and_then(|m| m.3).map_or(&[][..], |r| r.all()));
        }
        found
    };
    for id in &shown {
        if let Some((entity, ..)) = creatures.iter().find(|c| c.1 == id) {
            commands.entity(entity).insert(Showed { turn: order.turns_begun });
        }
    }
    let showing: BTreeSet<Entity> = shown.iter().flat_map(party).collect();
    let beginning: BTreeSet<Entity> = begun.iter().flat_map(party).collect();
    for entity in showing.union(&beginning) {
        let Ok((.., Some(hidden))) = creatures.get(*entity) else { continue };
        match hidden.at {
            // Hidden on the ground: showing itself finds it (and it keeps the round it hid in), its own
            // turn does not.
            Some(_) if showing.contains(entity) && !hidden.from.is_empty() => {
                commands.entity(*entity).insert(Hidden { from: BTreeSet::new(), ..hidden.clone() });
            }
            Some(_) => {}
            None => {
                commands.entity(*entity).remove::<Hidden>();
            }
        }
    }
}

/// A creature hidden on the ground stays so while it stays in the square it hid in, from each foe it still has
/// cover or concealment from (our ruling on 004:403, 004:412): any step of its own shows it to all (a move out
/// and back too), a foe that comes to a clear view of it, where it stops or on its way, finds it.
fn keep_hidden(
    mut facts: MessageReader<Fact>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut commands: Commands,
) {
    let steps: Vec<(CreatureId, crate::rules::core::geometry::Square)> = facts
        .read()
        .filter_map(|f| match f {
            Fact::SquareEntered { creature, square, .. } => Some((creature.clone(), *square)),
            _ => None,
        })
        .collect();
    for hider in &creatures {
        let Some(hidden) = hider.hidden.filter(|h| !h.from.is_empty()) else { continue };
        let Some(at) = hidden.at else { continue };
        let stepped = steps.iter().any(|(id, _)| id == hider.id);
        let in_view = |foe: &CombatantItem| {
            screen(&field, foe, &hider) == Screen::InPlainView
                || steps
                    .iter()
                    .filter(|(id, _)| id == foe.id)
                    .any(|(_, square)| screen_from(&field, (foe, foe.space.at(*square)), &hider) == Screen::InPlainView)
        };
        let from: BTreeSet<Entity> = if hider.position.0 == at && !stepped {
            hidden.from.iter().copied().filter(|f| creatures.get(*f).is_ok_and(|foe| !in_view(&foe))).collect()
        } else {
            BTreeSet::new()
        };
        if from != hidden.from {
            commands.entity(hider.entity).insert(Hidden { from, ..hidden.clone() });
        }
    }
}
