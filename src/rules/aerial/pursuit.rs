//! Losing a pursuer (004:816-818): a flier hides among towers, cliffs or peaks (Hide, with +8 for the
//! Colossal cover they give, against each foe's Spot), or bluffs before it turns into a cloud or dives
//! away (Bluff against the pursuer's Sense Motive: -5 on the pursuer's fly checks to turn after it).
//! Our rulings on what the text leaves to the game master are in docs/rulings.md, "Losing a pursuer".

use std::collections::BTreeSet;

use bevy::prelude::*;

use crate::rules::attack::hiding::{HideIntent, hide_size_modifier};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{Ties, opposed, skill};
use crate::rules::core::creature::*;
use crate::rules::core::creature::{Riders, Riding};
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::{Fact, refuse};
use crate::rules::core::geometry::{Footprint, Square};
use crate::rules::core::names::Action;
use crate::rules::core::names::Check;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;
use crate::rules::core::systems::Rules;
use crate::rules::turns::TurnOrder;

/// The bonus of the dense surroundings a flier hides in: towers, a town, mountains, Colossal or larger
/// (004:817).
pub const DENSE_SURROUNDINGS_BONUS: i32 = 8;

/// Whether a wall (a tower, a cliff face, a peak) stands within one square of `at`: the dense
/// surroundings a flier may hide in (004:817; our ruling: nowhere else).
pub fn dense_around(field: &Battlefield, at: Footprint) -> bool {
    (at.origin.y - 1..=at.origin.y + at.height).any(|y| {
        (at.origin.x - 1..=at.origin.x + at.width).any(|x| {
            let s = Square::new(x, y);
            field.contains(s) && field.terrain(s).blocks()
        })
    })
}

/// Whether a flier at `altitude` may hide from its pursuers now (004:816-817): in the air, after its
/// flight this turn, once a turn, in dense surroundings.
pub fn may_hide(altitude: i32, flown: bool, hid_this_turn: bool, dense: bool) -> Result<(), Refusal> {
    if altitude <= 0 {
        return Err(Refusal::new("only a flier in the air loses a pursuer so", "004:816"));
    }
    if !flown {
        return Err(Refusal::new("it hides as it flies: after its flight this turn", "004:816-817"));
    }
    if hid_this_turn {
        return Err(Refusal::new("it has tried to hide this turn already", "004:816-817"));
    }
    if !dense {
        return Err(Refusal::new(
            "no tower, cliff or peak within a square: no dense surroundings to hide in",
            "004:817",
        ));
    }
    Ok(())
}

/// Whether `creature` may hide now: a flier in the air (or the rider of one) from its pursuers, as
/// [`may_hide`] reads the world; on the ground behind cover or concealment, as
/// [`crate::rules::attack::hiding::hide_allowed`] reads it. What the action bar asks.
pub fn hide_allowed(world: &World, creature: Entity) -> Result<(), Refusal> {
    let flier = world.get::<Riding>(creature).map_or(creature, |r| r.0);
    let rest = world.get::<super::flying::FlybyRemainder>(flier);
    let height = rest.map(|r| r.altitude).or_else(|| world.get::<Altitude>(flier).map(|a| a.0)).unwrap_or(0);
    if world.get::<Speed>(flier).is_some_and(|s| crate::rules::attack::hiding::flying(s, height)) {
        hide_aloft_allowed(world, creature)
    } else {
        crate::rules::attack::hiding::hide_allowed(world, creature)
    }
}

/// Whether `creature` (a flier, or the rider of one) may hide from its pursuers now, as [`may_hide`] reads
/// the world: what the AI's flier asks.
pub fn hide_aloft_allowed(world: &World, creature: Entity) -> Result<(), Refusal> {
    let flier = world.get::<Riding>(creature).map_or(creature, |r| r.0);
    // A flight broken by a flyby attack goes on to its end before the Hide is made: it hides there.
    let rest = world.get::<super::flying::FlybyRemainder>(flier);
    let square = rest.map(|r| r.square).or_else(|| world.get::<Position>(flier).map(|p| p.0));
    let at = world.get::<Space>(flier).zip(square).map(|(s, p)| s.at(p));
    let round = world.resource::<TurnOrder>().round;
    may_hide(
        rest.map(|r| r.altitude).or_else(|| world.get::<Altitude>(flier).map(|a| a.0)).unwrap_or(0),
        world.get::<super::flying::Flight>(flier).and_then(|f| f.flown).is_some(),
        world.get::<Hidden>(flier).is_some_and(|h| h.round == round),
        at.is_some_and(|at| dense_around(world.resource::<Battlefield>(), at)),
    )
}

pub fn plugin(app: &mut App) {
    app.add_systems(Rules, hide.in_set(super::flying::AerialSystems).after(super::flying::land));
    // After the frame's facts are all written: it only reads them.
    app.add_systems(Rules, lift_misleading.in_set(crate::rules::core::systems::RulesSystems::Record));
}

type Hiders<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static Faction,
        &'static Position,
        &'static Space,
        &'static Size,
        &'static Skills,
        &'static Abilities,
        &'static Conditions,
        Option<&'static Riding>,
        Option<&'static Riders>,
        Option<&'static super::flying::Flight>,
        Option<&'static Hidden>,
    ),
>;

/// A flier hides from its pursuers (004:816-817): after its flight this turn, once a turn, where a wall
/// stands within a square of it. It rolls Hide (+8, its size modifier; a rider rolls for its mount, with
/// the mount's size), and each foe with a line of sight to it and able to act rolls Spot against it: those
/// it beats lose sight of the flier and of all on its back.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource it reads")]
fn hide(
    mut intents: MessageReader<HideIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut commands: Commands,
    creatures: Hiders,
    heights: Query<&Altitude>,
    speeds: Query<&Speed>,
) {
    for intent in intents.read() {
        let Ok((_, id, faction, _, _, _, skills, abilities, conditions, riding, ..)) = creatures.get(intent.creature)
        else {
            continue;
        };
        // A rider hides its mount, and all on its back with it.
        let flier = riding.map_or(intent.creature, |r| r.0);
        let Ok((_, _, _, position, space, size, _, _, _, _, riders, flight, hidden)) = creatures.get(flier) else {
            continue;
        };
        // On the ground (or a ledge) it hides behind cover or concealment, by the attack chapter's rule
        // (004:403).
        let height = heights.get(flier).map_or(0, |a| a.0);
        if !speeds.get(flier).is_ok_and(|s| crate::rules::attack::hiding::flying(s, height)) {
            continue;
        }
        let at = space.at(position.0);
        let checked = order
            .check_turn(intent.creature)
            .and_then(|()| crate::rules::core::creature::able_to_act(conditions))
            .and_then(|()| {
                may_hide(
                    heights.get(flier).map_or(0, |a| a.0),
                    flight.and_then(|f| f.flown).is_some(),
                    hidden.is_some_and(|h| h.round == order.round),
                    dense_around(&field, at),
                )
            });
        if let Err(refusal) = checked {
            refuse(&mut facts, id, Action::Hide, refusal);
            continue;
        }
        let hide = [
            Modifier::new(crate::rules::core::creature::dex_skill(skills.hide, abilities, conditions), "skill"),
            Modifier::new(hide_size_modifier(*size), "size"),
            Modifier::new(DENSE_SURROUNDINGS_BONUS, "dense surroundings (004:817)"),
        ];
        let reason = format!(
            "losing its pursuers: +{DENSE_SURROUNDINGS_BONUS} dense surroundings, size {:+} (004:816-817)",
            hide_size_modifier(*size)
        );
        let roll = dice.d20();
        let mut party: Vec<Entity> = vec![flier];
        party.extend(riders.map(|r| r.all().to_vec()).unwrap_or_default());
        let mut pursuers: Vec<_> = creatures
            .iter()
            .filter(|c| c.2 != faction && c.8.can_act() && !party.contains(&c.0))
            .filter(|c| field.line_of_sight(c.4.at(c.3.0), at))
            .collect();
        pursuers.sort_by(|a, b| a.1.0.cmp(&b.1.0));
        let mut lost = BTreeSet::new();
        for (pursuer, their_id, _, _, _, _, their_skills, their_abilities, ..) in pursuers {
            let spot = [Modifier::new(skill(their_skills.spot, their_abilities.wis), "skill")];
            if opposed(
                &mut dice,
                &mut facts,
                (id, Check::Hide, &hide),
                (their_id, Check::Spot, &spot),
                (roll, Ties::Lost),
                &reason,
            ) {
                lost.insert(pursuer);
            }
        }
        for member in party {
            commands.entity(member).insert(Hidden { from: lost.clone(), round: order.round, at: None });
        }
    }
}

/// A misled pursuer's penalty lasts until its next turn ends (004:818).
fn lift_misleading(
    mut facts: MessageReader<Fact>,
    mut commands: Commands,
    misled: Query<(Entity, &CreatureId), With<Misled>>,
) {
    for fact in facts.read() {
        if let Fact::TurnEnded { creature } = fact
            && let Some((entity, _)) = misled.iter().find(|(_, id)| *id == creature)
        {
            commands.entity(entity).remove::<Misled>();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::battlefield::Terrain;

    #[test]
    fn a_wall_within_a_square_makes_dense_surroundings_004_817() {
        let mut field = Battlefield::open(10, 10);
        field.set_terrain(Square::new(5, 5), Terrain::Wall);
        assert!(dense_around(&field, Footprint::new(Square::new(4, 4), 1)), "diagonally next to the tower");
        assert!(dense_around(&field, Footprint::new(Square::new(3, 4), 2)), "a Large flier beside it");
        assert!(!dense_around(&field, Footprint::new(Square::new(3, 3), 1)), "two squares off: open sky");
    }

    #[test]
    fn hide_size_modifiers_go_by_four() {
        assert_eq!(hide_size_modifier(Size::Small), 4);
        assert_eq!(hide_size_modifier(Size::Medium), 0);
        assert_eq!(hide_size_modifier(Size::Large), -4);
        assert_eq!(hide_size_modifier(Size::Huge), -8);
        assert_eq!(hide_size_modifier(Size::Colossal), -16);
    }
}
