//! The opponents' tactics: one step at a time, read from the same previews the player sees. A creature
//! strikes what it can (a full attack when it has not moved), otherwise closes in on the square that lets
//! it strike, preferring a flank and the path that provokes least; it charges when the charge is the only
//! way to strike this turn; an archer in melee steps back before it shoots; a badly hurt creature
//! withdraws. A flier flies by the aerial rules: a dive attack from above, a flyby attack with the feat,
//! the flights likeliest to make their fly checks, and it hides from its pursuers after its flight where
//! it can. Deterministic: ties go to the lower square and the first creature by id.

use bevy::prelude::*;

use crate::preview::{approach, attack_preview, charge_lanes, move_options};
use crate::rules::attack::manoeuvre::OpportunityChoice;
use crate::rules::attack::{AttackRequest, flanks};
use crate::rules::command::Command;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::{Diagonals, Footprint, Square};
use crate::rules::core::kept::kept;
use crate::rules::core::reach::melee_reaches;
use crate::rules::movement::MovementAction;
use crate::rules::special::turning::TurnKind;
use crate::rules::turns::moving::ChargeFinish;
use crate::rules::turns::{ActionBudget, ActionKind};

/// What the AI knows of one creature.
#[derive(Clone, Debug)]
struct Seen {
    entity: Entity,
    id: CreatureId,
    faction: String,
    footprint: Footprint,
    altitude: i32,
    size: Size,
    up: bool,
    hit_points: i32,
}

/// A creature's space, height and size: what reach and range are measured between (004:783-784).
type Placed = (Footprint, i32, Size);

impl Seen {
    /// Where it is.
    fn placed(&self) -> Placed {
        (self.footprint, self.altitude, self.size)
    }

    /// As if it stood on `at`, at its height.
    fn on(&self, at: Footprint) -> Placed {
        (at, self.altitude, self.size)
    }
}

fn census(world: &mut World) -> Vec<Seen> {
    let mut q = crate::rules::core::kept::kept::<
        (Entity, &CreatureId, &Faction, &Position, &Space, &Conditions, &HitPoints, &Altitude, &Size),
        With<Creature>,
    >(world);
    let mut all: Vec<Seen> = q
        .iter(world)
        .map(|(entity, id, faction, position, space, conditions, hp, altitude, size)| Seen {
            entity,
            id: id.clone(),
            faction: faction.0.clone(),
            footprint: space.at(position.0),
            altitude: altitude.0,
            size: *size,
            up: conditions.can_act(),
            hit_points: hp.current,
        })
        .collect();
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all
}

/// The best attack `me` can make now on a standing foe: the highest expected number of hits, then the
/// weakest foe. `full` asks for a full attack.
fn best_attack(
    world: &mut World,
    me: Entity,
    foes: &[Seen],
    full: bool,
    ranged: bool,
) -> Option<(CreatureId, Option<String>, f32)> {
    // A bare fist only with nothing better in hand, and not against an armed foe, whom it would provoke for
    // 1d3 nonlethal (004:168), unless it strikes as if armed (its own, 004:201: not a charge held).
    let armed = world.get::<Traits>(me).zip(world.get::<Feats>(me)).is_some_and(|(t, f)| armed_unarmed(t, f, false));
    let armament = world.get::<Armament>(me)?;
    let weapons: Vec<(String, bool)> =
        armament.ready().filter(|w| is_ranged(w) == ranged).map(|w| (w.name.clone(), w.unarmed)).collect();
    let bare_only = weapons.iter().all(|(_, unarmed)| *unarmed);
    let mut best: Option<(CreatureId, Option<String>, f32, i32)> = None;
    let standing: Vec<&Seen> = foes.iter().filter(|f| f.up).collect();
    let targets: Vec<Entity> = standing.iter().map(|f| f.entity).collect();
    // Out of reach, an attack is refused whatever its other terms: those are weighed only for the rest.
    let reaches: Vec<Vec<bool>> =
        weapons.iter().map(|(weapon, _)| crate::preview::weapon_reaches(world, me, &targets, weapon)).collect();
    for (i, foe) in standing.into_iter().enumerate() {
        let fist = armed || (bare_only && !threatens(world, foe.entity));
        for (w, (weapon, _)) in weapons.iter().enumerate().filter(|(_, (_, unarmed))| fist || !unarmed) {
            if !reaches[w][i] {
                continue;
            }
            let request = AttackRequest { weapon: Some(weapon), full, ..default() };
            // A full attack its two weapons cannot make at this foe (the main hand's lance does not reach
            // the foe beside it, 004:462) is made with the one.
            let single = AttackRequest { two_weapons: Some(false), ..request };
            let Ok(preview) = attack_preview(world, me, foe.entity, request)
                .or_else(|refused| if full { attack_preview(world, me, foe.entity, single) } else { Err(refused) })
            else {
                continue;
            };
            let expected: f32 = preview.chances.iter().sum();
            let better = match &best {
                None => true,
                Some((_, _, e, hp)) => expected > *e + 0.01 || ((expected - *e).abs() <= 0.01 && foe.hit_points < *hp),
            };
            if better && expected > 0.0 {
                best = Some((foe.id.clone(), Some(weapon.clone()), expected, foe.hit_points));
            }
        }
    }
    best.map(|(id, w, e, _)| (id, w, e))
}

/// Whether `me`'s full attack at `target` with `weapon` may strike with two weapons (004:462): both hands'
/// weapons planned against it.
fn with_both_hands(world: &mut World, me: Entity, target: &CreatureId, weapon: Option<&str>) -> bool {
    let Some(foe) = world.resource::<crate::rules::core::creature::Roster>().get(&target.0) else {
        return false;
    };
    let paired =
        world.get::<Armament>(me).is_some_and(|a| crate::rules::attack::could_fight_with_two_weapons(a, weapon));
    let request = AttackRequest { weapon, full: true, two_weapons: Some(true), ..default() };
    paired && attack_preview(world, me, foe, request).is_ok()
}

/// An aid another on the attack for an ally engaged with a foe in its reach (004:444), when its own best
/// blow hits one time in four or less, the distraction (against AC 10) three times in four or more, and
/// provokes no blow from the foe: the ally's +2 is worth more than its own blow.
fn aid_an_ally(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    world.get::<ActionBudget>(creature)?.check(ActionKind::Standard).ok()?;
    let (_, _, own) = best_attack(world, creature, foes, false, false)?;
    if own > 0.25 {
        return None;
    }
    foes.iter().filter(|f| f.up).find_map(|foe| {
        let aid = crate::preview::aid_preview(world, creature, foe.entity, None).ok()?;
        let ally = world.get::<CreatureId>(aid.ally)?.clone();
        (aid.chance >= 0.75 && !aid.foe_strikes).then(|| Command::Aid {
            creature: me.id.clone(),
            ally,
            foe: foe.id.clone(),
            kind: AidKind::Attack,
        })
    })
}

/// Whether `foe` threatens with some weapon (004:62, 004:170-171): an unarmed attack on it provokes it
/// (004:168).
fn threatens(world: &World, foe: Entity) -> bool {
    let (Some(armament), Some(traits), Some(feats)) =
        (world.get::<Armament>(foe), world.get::<Traits>(foe), world.get::<Feats>(foe))
    else {
        return false;
    };
    let holding = world.get::<crate::rules::core::creature::HoldingCharge>(foe).is_some();
    !crate::rules::core::reach::threatening_weapons(&armament.0, armed_unarmed(traits, feats, holding)).is_empty()
}

/// Whether from `at` the creature could strike `foe` with one of its weapons, ranged ones or melee ones.
fn could_strike(field: &Battlefield, armament: &Armament, reach: u32, at: Placed, foe: Placed, ranged: bool) -> bool {
    if ranged {
        armament.ready().filter(|w| is_ranged(w)).any(|w| {
            max_range_m(w).is_some_and(|range| range_to(field, at, foe) <= range && field.line_of_sight(at.0, foe.0))
        })
    } else {
        reaches_in_melee(field, armament, reach, at, foe) && line_of_effect(field, at.0, foe.0)
    }
}

/// The distance of a ranged attack from `at` to `foe`, heights counting (004:783-784), as the rules
/// measure it.
fn range_to(field: &Battlefield, at: Placed, foe: Placed) -> f32 {
    crate::rules::core::altitude::separation_m(field.scale(), field.diagonals(), (at.0, at.1), (foe.0, foe.1))
}

/// Whether from `at` one of its melee weapons reaches `foe` across and in height (004:62-63, 004:783),
/// walls aside: the rules' reach at height.
fn reaches_in_melee(field: &Battlefield, armament: &Armament, reach: u32, at: Placed, foe: Placed) -> bool {
    let rise = crate::rules::core::altitude::vertical_steps(field.scale(), at.1, at.2, foe.1, foe.2);
    let both = (field.diagonals(), field.scale());
    armament
        .ready()
        .filter(|w| !is_ranged(w))
        .any(|w| crate::rules::core::reach::melee_reaches_at_height(both, reach, w.reach_kind(), (at.0, foe.0), rise))
}

/// Whether a blow in melee from `at` has a line of effect to `foe` (no total cover, 004:406): the rules'
/// `controls` asks the same.
fn line_of_effect(field: &Battlefield, at: Footprint, foe: Footprint) -> bool {
    crate::rules::core::cover::melee_cover(field, at, foe) != crate::rules::core::cover::Cover::Total
}

/// The next step of `creature`'s turn, and of those who act with it: a rider, its mount and passengers
/// each do what they can, the rider first (004:653-655).
pub fn next_step(world: &mut World, creature: Entity) -> Command {
    let order = world.resource::<crate::rules::turns::TurnOrder>();
    let party: Vec<Entity> = if order.acting.contains(&creature) { order.acting.clone() } else { vec![creature] };
    for member in party {
        let step = member_step(world, member);
        if !matches!(step, Command::EndTurn { .. }) {
            return step;
        }
    }
    let id = world.get::<CreatureId>(creature).cloned().unwrap_or_default();
    Command::EndTurn { creature: id }
}

/// A charge on the first of `foes` a clear lane reaches, along its first lane (004:451-459), not one a die
/// may refuse (000:63-65). With a trip
/// weapon in hand it ends in a trip in place of the attack (004:457, 004:483), when the trip would lay the
/// foe down two times in five or more, provoking nothing, as [`trip_a_foe`] weighs it.
fn charge_first_of<'a>(
    world: &mut World,
    creature: Entity,
    me: &Seen,
    foes: impl IntoIterator<Item = &'a Seen>,
) -> Option<Command> {
    let trips = world.get::<Armament>(creature).is_some_and(|a| a.ready().any(|w| w.trip));
    foes.into_iter().find_map(|foe| {
        let trip = trips
            .then(|| crate::preview::charge_blow_preview(world, (creature, foe.entity), (ChargeFinish::Trip, None)))
            .flatten();
        if let Some((lanes, Ok(crate::rules::special::charge_end::ChargeBlow::Trip(plan)))) = trip
            && !crate::rules::movement::by_a_die(&lanes)
            && let Some(lane) = lanes.first()
        {
            let odds = crate::preview::TripPreview::of(*plan);
            if !odds.plan.provokes && odds.touch_chance * odds.check_chance >= TRIP_ODDS {
                return Some(Command::Charge {
                    creature: me.id.clone(),
                    target: foe.id.clone(),
                    to: Some(lane.to),
                    finish: ChargeFinish::Trip,
                    weapon: None,
                });
            }
        }
        // Not a charge a die may refuse, its nearest square's lane not clear (000:63-65).
        let lanes = charge_lanes(world, (creature, None), foe.entity).ok()?;
        let lane = lanes.first().filter(|_| !crate::rules::movement::by_a_die(&lanes))?;
        Some(Command::Charge {
            creature: me.id.clone(),
            target: foe.id.clone(),
            to: Some(lane.to),
            finish: ChargeFinish::Attack,
            weapon: None,
        })
    })
}

/// The chance of laying a foe down at which the AI trips rather than strikes.
const TRIP_ODDS: f32 = 0.4;

/// Whether `creature` is a mount whose rider directs it now.
fn is_directed(world: &World, creature: Entity) -> bool {
    world.get::<crate::rules::core::creature::Riders>(creature).is_some_and(|riders| {
        riders.all().iter().any(|r| {
            crate::rules::mounted::directed_mount(world, *r) == Some(creature)
                && world.get::<Conditions>(*r).is_some_and(|c| c.can_act())
        })
    })
}

/// The next step of one creature of the party whose turn it is.
#[expect(clippy::too_many_lines, reason = "the AI's priorities in order, each a few lines")]
fn member_step(world: &mut World, creature: Entity) -> Command {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let all = census(world);
    let Some(me) = all.iter().find(|s| s.entity == creature).cloned() else {
        return Command::EndTurn { creature: CreatureId::default() };
    };
    let end = Command::EndTurn { creature: me.id.clone() };
    let foes: Vec<Seen> = all.iter().filter(|s| s.faction != me.faction && s.up).cloned().collect();
    let allies: Vec<Seen> =
        all.iter().filter(|s| s.faction == me.faction && s.up && s.entity != creature).cloned().collect();
    if foes.is_empty() || !me.up {
        return end;
    }
    let Some(budget) = world.get::<ActionBudget>(creature).copied() else { return end };
    // Cowering or stunned, it does nothing (004:565, docs/rulings.md).
    if budget.idle().is_some() {
        return end;
    }
    let armament = world.get::<Armament>(creature).cloned().unwrap_or_default();
    let reach = world.get::<Reach>(creature).map_or(1, |r| r.0);
    let hp = world.get::<HitPoints>(creature).copied().unwrap_or_default();
    let archer = armament.ready().next().is_some_and(is_ranged);
    let fresh = budget.check(ActionKind::FullRound).is_ok();
    let adjacent_foe = foes.iter().any(|f| f.footprint.touches(me.footprint));
    // A foe that would strike it for an action that provokes where it stands (004:66), reach weapons and
    // reach of big creatures counting: not only one next to it.
    let threatened =
        adjacent_foe || !crate::preview::strikers_in_place(world, creature).map(|s| s.is_empty()).unwrap_or(true);

    // A creature that can trip, disarm or sunder in place of its attacks of opportunity weighs each one
    // (004:483, 004:489, 004:490, 004:499).
    if crate::rules::attack::disarming::OpportunityOptions::of_creature(world, creature).any()
        && world.get::<OpportunityChoice>(creature).copied().unwrap_or_default() != OpportunityChoice::Weigh
    {
        return Command::AttacksOfOpportunity { creature: me.id.clone(), choice: OpportunityChoice::Weigh };
    }
    // A rider flies its mount first, with its move action (004:807, 004:812); a mount its rider directs
    // does nothing else (004:656); a rider or passenger does not walk.
    let riding = world.get::<crate::rules::core::creature::Riding>(creature).is_some();
    if let Some(mount) = crate::rules::mounted::directed_mount(world, creature)
        && budget.check(ActionKind::Move).is_ok()
        && let Some(seen) = all.iter().find(|s| s.entity == mount).cloned()
        && let Some(step) = fly_toward(world, mount, &seen, &foes)
    {
        return step;
    }
    if is_directed(world, creature) {
        // On the ground its rider charges it at the nearest foe a lane reaches, for the rider's blow at the
        // end (004:478, a lance's double damage, 004:460); otherwise it stands for its rider to fight.
        let grounded = !world
            .get::<Altitude>(creature)
            .zip(world.get::<Speed>(creature))
            .is_some_and(|(a, s)| crate::rules::core::creature::flying(s, a.0));
        if grounded && fresh {
            let mut near: Vec<&Seen> = foes.iter().collect();
            near.sort_by_key(|f| (f.footprint.distance_to(me.footprint, diagonals), f.id.clone()));
            if let Some(step) = charge_first_of(world, creature, &me, near) {
                return step;
            }
        }
        return end;
    }
    // A mount that carried a rider, with none now able to direct it, avoids the fight (004:482 « Si son
    // cavalier n'est plus là pour le diriger, le cheval évite les combats »): it draws away from its foes,
    // or stands, and strikes no one.
    if world.get::<crate::rules::mounted::Ridden>(creature).is_some() {
        let from: Vec<Entity> = foes.iter().map(|f| f.entity).collect();
        return flee(world, creature, &me, &from).unwrap_or(end);
    }
    // A rider off its mount (thrown, or got off) gets back on the riderless mount beside it, a move action
    // (004:226), before it fights on foot.
    if !riding && let Some(mount) = mount_again(world, creature, &budget) {
        return Command::Mount { creature: me.id.clone(), mount, fast: false };
    }
    // A turned undead flees its turner as fast as it can (004:549); held in a grapple it escapes first; with
    // nowhere farther to go it stays.
    let turners = crate::rules::special::turning::fled_from(world, creature);
    if !turners.is_empty() {
        if world.get::<Conditions>(creature).is_some_and(|c| c.has(Condition::Grappling)) {
            return in_a_grapple(world, creature, &me).unwrap_or(end);
        }
        return flee(world, creature, &me, &turners).unwrap_or(end);
    }
    // A cleric turns undead when its turning would reach two or more of them, or one that threatens it.
    if let Some(step) = channel_for_its_undead(world, creature, &me, &foes) {
        return step;
    }
    if let Some(step) = turn_undead(world, creature, &me, &foes) {
        return step;
    }
    // In a grapple it breaks a pin, escapes a stronger grappler, or damages a weaker one (004:588-614).
    if world.get::<Conditions>(creature).is_some_and(|c| c.has(Condition::Grappling)) {
        return in_a_grapple(world, creature, &me).unwrap_or(end);
    }
    // Lying prone it stands up first with its move action (004:225); with only its standard action left it
    // fights from the ground.
    let prone = world.get::<Conditions>(creature).is_some_and(|c| c.has(Condition::Prone));
    if prone && !riding && budget.check(ActionKind::Move).is_ok() {
        return Command::StandUp { creature: me.id.clone() };
    }
    // With hands, no melee weapon in them nor put away, a melee weapon within reach on the ground: it picks
    // it up (004:128); not a caster with spells of gestures left, which let it fall to cast (004:192).
    let unarmed =
        armament.0.iter().any(|w| w.unarmed) && !armament.0.iter().any(|w| !w.natural && !w.unarmed && !is_ranged(w));
    let gestures = gestures_left(world, creature);
    if unarmed
        && !gestures
        && budget.check(ActionKind::Move).is_ok()
        && let Some((_, lying)) =
            crate::rules::attack::gear::within_reach(world, creature).into_iter().find(|(_, g)| !is_ranged(&g.weapon))
    {
        return Command::PickUp { creature: me.id.clone(), weapon: Some(lying.weapon.name) };
    }
    // Empty-handed, it draws what it carries (004:218); in melee with only a bow or a flask in hand, it lets
    // it fall to draw a melee weapon (a shot there provokes, 004:90).
    if let Some(step) = arm_itself(world, creature, &me, (&armament, &foes), adjacent_foe && fresh) {
        return step;
    }
    if fresh
        && !adjacent_foe
        && let Some(step) = take_up_the_bow(world, creature, &me, (&armament, &foes))
    {
        return step;
    }
    // A crossbow in hand shot and no foe to strike it: it loads it (004:120, 004:137).
    if !threatened
        && let Some(crossbow) = armament.ready().find(|w| w.unloaded)
        && crate::rules::attack::gear::check_handle(
            world,
            creature,
            &crossbow.name,
            crate::rules::attack::gear::Handle::Load,
        )
        .is_ok()
    {
        return Command::Load { creature: me.id.clone(), weapon: crossbow.name.clone() };
    }
    // Its shield slung on its back, a hand free for it, and a foe next to it or no bow in hand: it straps it
    // on (004:127, 004:221).
    if world.get::<Shield>(creature).is_some_and(|s| !s.strapped)
        && (adjacent_foe || !armament.ready().any(is_ranged))
        && crate::rules::attack::gear::check_shield(world, creature, true).is_ok()
    {
        return Command::Shield { creature: me.id.clone(), ready: true };
    }
    // A dying friend within reach of its hands and no foe to strike it: first aid (004:283), which provokes.
    if !threatened && let Some(step) = first_aid(world, creature, &me, &all) {
        return step;
    }
    // A helpless foe within reach and no foe threatening it, a reach weapon's included: a coup de grâce,
    // which provokes (004:424-427, 004:66).
    if fresh
        && !adjacent_foe
        && let Some(step) = coup_de_grace(world, creature, &me, &all)
        && !crate::preview::danger_for(world, creature).is_some_and(|danger| danger.leaving(me.footprint))
    {
        return step;
    }
    // A flier on the ground that flies faster than it walks takes off (004:657).
    if !riding
        && !adjacent_foe
        && let Some(step) = take_off(world, creature, &me, budget)
    {
        return step;
    }
    // A breath weapon ready breathes where it covers the most foes, before a flier flies on with its move.
    if let Some(step) = breathe_at(world, creature, &me, &foes) {
        return step;
    }
    // A flier that must keep flying, low beside a foe on the ground, lands there to make its full attack
    // (004:669): at its turn's beginning it strikes at once, at its end next turn.
    if !riding
        && budget.untouched()
        && let Some(step) = land_by_a_foe(world, creature, &me, &foes)
    {
        return step;
    }
    // A flier with Flyby Attack strikes on the way and flies on out of reach (004:755-757).
    if !riding && let Some(step) = fly_by(world, creature, &me, &foes) {
        return step;
    }
    // A flier in the air flies by the aerial rules (004:671-786): toward the nearest foe, down or up to it.
    if !riding && let Some(step) = fly_toward(world, creature, &me, &foes) {
        return step;
    }
    // Badly hurt with a healing potion and a foe that would strike it for drinking: a 5-foot step out of
    // every foe's reach first (004:259), then the potion with its standard action (004:96).
    if hp.current * 3 <= hp.max
        && threatened
        && budget.check(ActionKind::Standard).is_ok()
        && world.get::<Items>(creature).is_some_and(|i| i.0.iter().any(|i| i.heal.is_some()))
        && let Some(danger) = crate::preview::danger_for(world, creature)
    {
        let options = move_options(world, creature);
        let safe = options
            .squares
            .iter()
            .filter(|(s, (a, _))| {
                *a == MovementAction::FiveFootStep && !danger.leaving(Footprint::new(**s, me.footprint.width))
            })
            .map(|(s, _)| *s)
            .min_by_key(|s| (s.y, s.x));
        if let Some(to) = safe {
            return Command::Move { creature: me.id.clone(), to, action: MovementAction::FiveFootStep, path: None };
        }
    }
    // Badly hurt and in melee (a reach weapon's too): withdraw as far from the foes as it can (004:243-247).
    if fresh && !riding && threatened && hp.current * 4 <= hp.max && hp.max > 0 {
        let options = move_options(world, creature);
        let withdraw_open = options.open.iter().any(|(a, r)| *a == MovementAction::Withdraw && r.is_ok());
        if withdraw_open {
            // The withdrawal's own squares: what its search reaches (no swimming without a swim speed, 004:245).
            let reach = crate::preview::with_move_query(world, creature, false, |query, _| {
                query.destinations(MovementAction::Withdraw).into_iter().map(|d| d.square).collect::<Vec<_>>()
            })
            .unwrap_or_default();
            let mut squares: Vec<(Square, u32)> = reach
                .into_iter()
                .map(|s| (s, nearest_foe(diagonals, &foes, Footprint::new(s, me.footprint.width))))
                .collect();
            squares.sort_by_key(|(s, d)| (std::cmp::Reverse(*d), s.y, s.x));
            if let Some((to, _)) = squares.first() {
                return Command::Move {
                    creature: me.id.clone(),
                    to: *to,
                    action: MovementAction::Withdraw,
                    path: None,
                };
            }
        }
    }
    // Badly hurt, out of reach of the foes: drink a healing potion (004:96), which provokes.
    if hp.current * 3 <= hp.max
        && !threatened
        && budget.check(ActionKind::Standard).is_ok()
        && let Some(potion) = world.get::<Items>(creature).and_then(|i| i.0.iter().find(|i| i.heal.is_some()))
    {
        return Command::UseItem { creature: me.id.clone(), item: potion.name.clone() };
    }
    // Holding the charge of a touch spell, it touches a foe within reach (004:200).
    if let Some(step) = touch_with_the_charge(world, creature, &me, &foes) {
        return step;
    }
    // A caster casts: healing on a badly hurt ally in reach (or itself), else its spells at a foe.
    if let Some(step) = cast_something(world, creature, &me, &foes, &allies, adjacent_foe) {
        return step;
    }
    // A caster that has cast stays back rather than walk up to the foes.
    let attack_spells = world
        .get::<crate::rules::magic::Spellcasting>(creature)
        .is_some_and(|m| m.castable().any(|s| !matches!(s.def.effect, crate::rules::magic::SpellEffect::Heal { .. })));
    if attack_spells && !adjacent_foe && budget.check(ActionKind::Standard).is_err() {
        return end;
    }
    // An archer in melee steps back before it shoots (a ranged attack there provokes, 004:90).
    if archer && !riding && adjacent_foe && budget.movement == crate::rules::turns::MovementMade::None {
        let options = move_options(world, creature);
        let step = options
            .squares
            .iter()
            .filter(|(_, (a, _))| *a == MovementAction::FiveFootStep)
            .map(|(s, _)| *s)
            .filter(|s| nearest_foe(diagonals, &foes, Footprint::new(*s, me.footprint.width)) > 1)
            .min_by_key(|s| (s.y, s.x));
        if let Some(to) = step {
            return Command::Move { creature: me.id.clone(), to, action: MovementAction::FiveFootStep, path: None };
        }
    }
    // With no foe in its melee reach, a flask thrown where it bursts on foes and on no ally (004:528-530).
    let in_reach = {
        let field = world.resource::<Battlefield>();
        foes.iter().any(|f| could_strike(field, &armament, reach, me.placed(), f.placed(), false))
    };
    if !in_reach && let Some(step) = throw_a_flask(world, creature, &me, &foes, &allies) {
        return step;
    }
    if !in_reach
        && fresh
        && let Some(step) = prepare_a_flask(world, creature, &me, &foes)
    {
        return step;
    }
    // Strike from here with its own kind of weapon: a full attack if the turn is whole, else one attack.
    let two_hands =
        world.get::<Feats>(creature).is_some_and(|f| crate::rules::attack::fights_with_two_weapons(&armament, f, None))
            && !archer;
    let attack = |target, weapon, (full, two_weapons), power| Command::Attack {
        creature: me.id.clone(),
        target,
        weapon,
        defensively: false,
        full,
        lethal: false,
        nonlethal: false,
        power,
        two_weapons,
        blows: None,
    };
    // A foe next to a pit is pushed into it when that is likely (004:446-449, docs/rulings.md).
    if let Some(step) = rush_into_a_pit(world, creature, &me, &foes) {
        return step;
    }
    // A trip weapon in hand lays a standing foe down when the trip is likely, provoking nothing (004:489).
    if let Some(step) = trip_a_foe(world, creature, &me, &foes) {
        return step;
    }
    // With Improved Disarm or Improved Sunder, it takes away or breaks the weapon of a foe in reach when
    // that is likely.
    if let Some(step) = disarm_or_sunder(world, creature, &me, &foes) {
        return step;
    }
    // A foe screening a caster or an archer is overrun on the way to it when the passage is likely (004:531-535).
    if let Some(step) = overrun_a_screen(world, creature, &me, &foes) {
        return step;
    }
    // Through, its move goes on (004:535) to a square from which it strikes a caster or an archer.
    if budget.going_on.is_some()
        && let Some(step) = on_to_a_far_striker(world, creature, &me, &foes, (&armament, reach))
    {
        return step;
    }
    // A grappler seizes a caster, or any foe if it grapples without provoking, when the hold is likely.
    if let Some(step) = grapple_a_foe(world, creature, &me, &foes) {
        return step;
    }
    // A full attack whose foe fell goes on at another in reach (004:229).
    let underway = world.get::<crate::rules::turns::FullAttackUnderway>(creature).is_some();
    // A sneak attacker with no sneak on a foe next to it feints it out of its Dex bonus (004:524-527).
    if !underway && let Some(step) = feint_a_foe(world, creature, &me, &foes) {
        return step;
    }
    // Its own blows all but hopeless, it distracts a foe for an ally engaged with it (004:444).
    if !underway
        && !archer
        && let Some(step) = aid_an_ally(world, creature, &me, &foes)
    {
        return step;
    }
    if (fresh || underway)
        && let Some((target, weapon, _)) = best_attack(world, creature, &foes, true, archer)
    {
        let power = power_for(world, creature, &foes, (&target, weapon.as_deref()), true);
        let both = two_hands && with_both_hands(world, creature, &target, weapon.as_deref());
        return attack(target, weapon, (true, both), power);
    }
    if budget.check(ActionKind::Standard).is_ok()
        && let Some((target, weapon, _)) = best_attack(world, creature, &foes, false, archer)
    {
        let power = power_for(world, creature, &foes, (&target, weapon.as_deref()), false);
        return attack(target, weapon, (false, false), power);
    }
    // Foes in its reach but no blow worth striking at them (bare hands against armed foes, 004:168), one
    // threatening it: total defence, +4 to its AC (004:211), rather than walk about.
    if in_reach && let Some(step) = total_defense(world, creature, &me, &budget) {
        return step;
    }
    if !riding && let Some(step) = land_by_a_foe(world, creature, &me, &foes) {
        return step;
    }
    // A flier that has flown (and struck) hides among the towers from its pursuers: it costs no action
    // (004:816-817, docs/rulings.md).
    if crate::rules::aerial::pursuit::hide_aloft_allowed(world, creature).is_ok() {
        return Command::Hide { creature: me.id.clone() };
    }
    if riding || (budget.check(ActionKind::Move).is_err() && budget.check(ActionKind::Standard).is_err()) {
        return hide_or(world, creature, end);
    }
    // Close in: the square within one move from which it could strike, flanking if it can, provoking least;
    // a tumbler weighs the tumble too (000:78-79).
    let closing = Closing { me: &me, foes: &foes, armament: &armament, reach, archer };
    let walk = close_in(world, creature, &closing, None);
    let tumble_bonus = world.get::<Skills>(creature).and_then(|s| s.tumble).filter(|b| *b >= 5);
    let tumble = tumble_bonus.and_then(|bonus| close_in(world, creature, &closing, Some(bonus)));
    let (best, tumbling) = match (walk, tumble) {
        (Some(w), Some(t)) if t.0 > w.0 => (Some(t), true),
        (None, Some(t)) => (Some(t), true),
        (w, _) => (w, false),
    };
    if let Some((score, to, action)) = best
        && score > 40
        && budget.check(ActionKind::Move).is_ok()
    {
        let creature = me.id.clone();
        return if tumbling {
            Command::Tumble { creature, to, action, path: None }
        } else {
            Command::Move { creature, to, action, path: None }
        };
    }
    let options = move_options(world, creature);
    let side = me.footprint.width;
    // Charge when it cannot strike otherwise this turn.
    if fresh
        && !archer
        && let Some(step) = charge_first_of(world, creature, &me, &foes)
    {
        return step;
    }
    // A thrown or shot weapon when nothing can be reached in melee this turn.
    if !archer
        && budget.check(ActionKind::Standard).is_ok()
        && let Some((target, weapon, _)) = best_attack(world, creature, &foes, false, true)
    {
        return attack(target, weapon, (false, false), 0);
    }
    // Otherwise walk toward the nearest foe, as far as the turn allows, provoking least.
    let walk = if fresh { MovementAction::DoubleMove } else { MovementAction::Move };
    if budget.check(ActionKind::Move).is_ok() {
        let here = nearest_foe(diagonals, &foes, me.footprint);
        let mut squares: Vec<(u32, u32, Square)> = options
            .squares
            .iter()
            .filter(|(_, (a, _))| {
                matches!(a, MovementAction::FiveFootStep | MovementAction::Move)
                    || (walk == MovementAction::DoubleMove && *a == MovementAction::DoubleMove)
            })
            .map(|(s, (_, cost))| (nearest_foe(diagonals, &foes, Footprint::new(*s, side)), *cost, *s))
            .filter(|(d, _, _)| *d < here)
            .collect();
        squares.sort_by_key(|(d, cost, s)| (*d, *cost, s.y, s.x));
        // Still far off after a double move: it runs (004:248-250), to a square out of every foe's reach
        // (three squares off or more: it strikes nothing this turn and loses its Dex bonus while it runs),
        // from which it charges or strikes next turn.
        if let Some(to) = run_toward(&options, (&foes, diagonals), squares.first().map(|(d, _, _)| *d), side)
            && fresh
            && !archer
            && !riding
        {
            return Command::Move { creature: me.id.clone(), to, action: MovementAction::Run, path: None };
        }
        // No square nearer as the crow flies (a wall between): the way round on foot to a square it could
        // strike from, as far along it as the turn allows.
        let may_walk = options.open.iter().any(|(a, open)| *a == walk && open.is_ok());
        let strikes_here = |world: &World| {
            let field = world.resource::<Battlefield>();
            foes.iter().any(|f| could_strike(field, &armament, reach, me.placed(), f.placed(), false))
        };
        if squares.is_empty()
            && may_walk
            && !strikes_here(world)
            && let Some(to) = way_round(world, creature, (&me, &foes, &armament, reach), walk)
        {
            return Command::Move { creature: me.id.clone(), to, action: walk, path: None };
        }
        if let Some((_, _, to)) = squares.first() {
            let action = options.at(*to).map(|(a, _)| a).unwrap_or(walk);
            let action = if action == MovementAction::FiveFootStep { MovementAction::Move } else { action };
            return Command::Move { creature: me.id.clone(), to: *to, action, path: None };
        }
    }
    // No blow to strike and nowhere better to go, a foe threatening it: total defence (004:211).
    if let Some(step) = total_defense(world, creature, &me, &budget) {
        return step;
    }
    hide_or(world, creature, end)
}

/// A landing (004:669) for a flier in the air that neither hovers nor flies perfectly, so gets one blow a
/// round aloft, with several blows to its full attack: low enough to land as a free action, beside a foe
/// standing on the ground, on ground it may stand on.
fn land_by_a_foe(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let speed = *world.get::<Speed>(creature)?;
    let altitude = world.get::<Altitude>(creature)?.0;
    let wings = speed.fly?;
    let hovers = world.get::<Feats>(creature).is_some_and(|f| f.has(Feat::Hover));
    if !crate::rules::core::creature::flying(&speed, altitude)
        || wings.maneuverability == Maneuverability::Perfect
        || hovers
    {
        return None;
    }
    let natural = world.get::<Armament>(creature)?.ready().filter(|w| w.natural).count();
    let base = world.get::<BaseAttack>(creature)?.0;
    if natural < 2 && crate::rules::attack::iterative_bonuses(base).len() < 2 {
        return None;
    }
    // At chase scale, fights are the fliers' (a 9 m square is no place to land beside a foe).
    if world.resource::<Battlefield>().scale() == crate::rules::core::altitude::Scale::Chase {
        return None;
    }
    // On the ground itself, not a rider carried aloft.
    let on_the_ground = |f: &&Seen| world.get::<Altitude>(f.entity).is_some_and(|a| a.0 == 0);
    foes.iter().filter(|f| f.up).filter(on_the_ground).find(|f| f.footprint.touches(me.footprint))?;
    crate::rules::aerial::flying::may_land(world, creature).ok()?;
    Some(Command::Land { creature: me.id.clone() })
}

/// Where a run takes a walker far from its foes (its best double move leaves it `walked` squares from the
/// nearest, more than three), when the run gets nearer: the square nearest a foe that stays three squares
/// or more from every foe, the cheapest of those.
fn run_toward(
    options: &crate::preview::MoveOptions,
    (foes, diagonals): (&[Seen], Diagonals),
    walked: Option<u32>,
    side: i32,
) -> Option<Square> {
    const OUT_OF_REACH: u32 = 3;
    let walked = walked?;
    let runs = options.open.iter().any(|(a, open)| *a == MovementAction::Run && open.is_ok());
    if !runs || walked <= OUT_OF_REACH {
        return None;
    }
    options
        .squares
        .iter()
        .filter(|(_, (a, _))| *a == MovementAction::Run)
        .map(|(s, (_, cost))| (nearest_foe(diagonals, foes, Footprint::new(*s, side)), *cost, *s))
        .filter(|(d, _, _)| *d >= OUT_OF_REACH && *d < walked)
        .min_by_key(|(d, cost, s)| (*d, *cost, s.y, s.x))
        .map(|(_, _, s)| s)
}

/// Total defence, +4 to its AC for a round (004:211), for a creature on foot with its standard action left
/// that stands where a foe threatens it.
fn total_defense(world: &mut World, creature: Entity, me: &Seen, budget: &ActionBudget) -> Option<Command> {
    let riding = world.get::<crate::rules::core::creature::Riding>(creature).is_some();
    // Disabled, a standard action would cost it a hit point and leave it dying (004:274).
    let disabled = world.get::<Conditions>(creature).is_some_and(|c| c.has(Condition::Disabled));
    (budget.check(ActionKind::Standard).is_ok()
        && !riding
        && !disabled
        && crate::preview::danger_for(world, creature).is_some_and(|danger| danger.leaving(me.footprint)))
    .then(|| Command::TotalDefense { creature: me.id.clone() })
}

/// Its turn spent with no blow struck, a creature trained to hide (a Hide skill) hides behind the cover or
/// concealment it stands in, if any (004:403, 004:412): it costs no action. Otherwise, `end`.
fn hide_or(world: &World, creature: Entity, end: Command) -> Command {
    let trained = world.get::<Skills>(creature).is_some_and(|s| s.hide.is_some());
    match end {
        Command::EndTurn { creature: id }
            if trained && crate::rules::attack::hiding::hide_allowed(world, creature).is_ok() =>
        {
            Command::Hide { creature: id }
        }
        end => end,
    }
}

/// The furthest square `walk` reaches, and it may stop on, along the cheapest way on foot to the nearest
/// square from which it could strike a foe, when that square lies beyond this turn (within two turns).
fn way_round(
    world: &mut World,
    creature: Entity,
    (me, foes, armament, reach): (&Seen, &[Seen], &Armament, u32),
    walk: MovementAction,
) -> Option<Square> {
    crate::rules::turns::moving::with_move_query(world, creature, |query, _| {
        let field = query.field;
        let allowance = query.allowance(walk);
        // Two turns of walking: round a wall of a level, not the whole map.
        let far = crate::rules::movement::reachable(
            &query.world(),
            &query.mover,
            query.start,
            allowance.saturating_mul(2),
            query.rules(walk),
        );
        let side = query.start.width;
        let goal = far
            .destinations()
            .into_iter()
            .filter(|d| {
                let at = Footprint::new(d.square, side);
                foes.iter().any(|f| could_strike(field, armament, reach, me.on(at), f.placed(), false))
            })
            .min_by_key(|d| (d.cost, d.square.y, d.square.x))?;
        // Within this turn already: the straight approach's own search finds it.
        if goal.cost <= allowance {
            return None;
        }
        let route = far.route_to(goal.square)?;
        route.steps.iter().rfind(|s| s.spent <= allowance && s.can_stop).map(|s| s.square)
    })
    .flatten()
}

/// How much Power Attack a creature with the feat trades on this melee attack: all its base attack bonus
/// when its first blow still hits 70% of the time or more, else half of it on the same terms, else none.
fn power_for(
    world: &mut World,
    creature: Entity,
    foes: &[Seen],
    (target, weapon): (&CreatureId, Option<&str>),
    full: bool,
) -> u32 {
    if !world.get::<Feats>(creature).is_some_and(|f| f.has(Feat::PowerAttack)) {
        return 0;
    }
    let Some(foe) = foes.iter().find(|f| &f.id == target).map(|f| f.entity) else { return 0 };
    let most = world.get::<BaseAttack>(creature).map_or(0, |b| b.0.max(0) as u32);
    for power in [most, most / 2] {
        if power == 0 {
            continue;
        }
        let request = AttackRequest { weapon, full, power, ..default() };
        if attack_preview(world, creature, foe, request).is_ok_and(|p| p.chances.first().is_some_and(|c| *c >= 0.7)) {
            return power;
        }
    }
    0
}

/// What closing in on the foes weighs.
struct Closing<'a> {
    me: &'a Seen,
    foes: &'a [Seen],
    armament: &'a Armament,
    reach: u32,
    archer: bool,
}

/// The best square within one move from which it could strike, with its score: cheap, flanking, provoking
/// least (each foe that would strike counts against it; tumbling, by the chance the DC 15 check fails).
fn close_in(
    world: &mut World,
    creature: Entity,
    c: &Closing<'_>,
    tumble: Option<i32>,
) -> Option<(i32, Square, MovementAction)> {
    let field = world.resource::<Battlefield>().clone();
    let side = c.me.footprint.width;
    let mut candidates: Vec<(i32, Square, MovementAction)> = Vec::new();
    // The squares of a 5-foot step or a move, each with the first shaded action that reaches it: a double
    // move or a run comes after them, so only a crawl may take a square first. The best eight are weighed
    // by their paths' attacks of opportunity.
    let among = [MovementAction::FiveFootStep, MovementAction::Crawl, MovementAction::Move];
    // The allies able to flank each foe with it, by the rule's own predicate (004:417-420): wherever it
    // stands, only the squares opposite them remain to weigh.
    let flankers: Vec<(Entity, Vec<Footprint>)> = {
        let mut q = kept::<crate::rules::attack::Combatant, With<Creature>>(world);
        let all = q.query(world);
        match all.get(creature) {
            Ok(me) => c
                .foes
                .iter()
                .filter_map(|f| all.get(f.entity).ok().map(|t| (f, t)))
                .map(|(f, t)| {
                    let able = crate::rules::attack::able_flankers(&field, &me, (&t, f.footprint), all.iter());
                    (f.entity, able.iter().map(|a| a.space.at(a.position.0)).collect())
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    };
    let choose = |options: &crate::preview::MoveOptions| {
        for (square, (action, cost)) in &options.squares {
            if !matches!(action, MovementAction::FiveFootStep | MovementAction::Move) {
                continue;
            }
            let at = Footprint::new(*square, side);
            // Walls aside first, cheap; the line of effect for the best only, below.
            let reaches = |f: &&Seen| {
                if c.archer {
                    could_strike(&field, c.armament, c.reach, c.me.on(at), f.placed(), true)
                } else {
                    reaches_in_melee(&field, c.armament, c.reach, c.me.on(at), f.placed())
                }
            };
            let Some(foe) = c.foes.iter().find(reaches) else { continue };
            let mut score = 100 - *cost as i32;
            let beside = flankers.iter().find(|(e, _)| *e == foe.entity).map_or(&[][..], |(_, f)| f.as_slice());
            if beside.iter().any(|a| flanks(at, *a, foe.footprint)) {
                score += 20;
            }
            if c.archer {
                score += 3 * nearest_foe(field.diagonals(), c.foes, at).min(6) as i32;
            }
            candidates.push((score, *square, *action));
        }
        candidates.sort_by_key(|(score, s, _)| (std::cmp::Reverse(*score), s.y, s.x));
        // The best eight from which a blow has a line of effect to some foe it reaches.
        if !c.archer {
            let strikes = |square: Square| {
                let at = Footprint::new(square, side);
                c.foes.iter().any(|f| could_strike(&field, c.armament, c.reach, c.me.on(at), f.placed(), false))
            };
            let mut kept = Vec::new();
            for candidate in candidates.drain(..) {
                if kept.len() == 8 {
                    break;
                }
                if strikes(candidate.1) {
                    kept.push(candidate);
                }
            }
            candidates = kept;
        }
        candidates.truncate(8);
        candidates.iter().map(|(_, square, action)| (*square, *action)).collect()
    };
    let paths = approach(world, creature, tumble.is_some(), &among, choose);
    // Tumbling, a foe strikes only when the check fails: 30 points a blow weighed by that chance.
    let per_blow = match tumble {
        Some(bonus) => {
            let fails = (1..=20).filter(|roll| roll + bonus < crate::rules::movement::tumble_past_dc(0)).count();
            (30 * fails as i32) / 20
        }
        None => 30,
    };
    let mut best: Option<(i32, Square, MovementAction)> = None;
    for ((score, square, action), (_, path)) in candidates.into_iter().zip(paths) {
        let Ok(path) = path else { continue };
        let score = score - per_blow * path.provocations.iter().map(|p| p.from.len() as i32).sum::<i32>();
        if best.is_none_or(|(b, _, _)| score > b) {
            best = Some((score, square, action));
        }
    }
    best
}

/// The spell a caster casts now, if any: healing on the most hurt of itself and its allies at half their
/// hit points or less; else an attack spell on the weakest foe it can reach with one. Beside a foe it casts
/// defensively when the Concentration check is more likely than not, and begins no spell of a round there
/// (it would threaten nothing and be struck).
fn cast_something(
    world: &mut World,
    creature: Entity,
    me: &Seen,
    foes: &[Seen],
    allies: &[Seen],
    adjacent_foe: bool,
) -> Option<Command> {
    use crate::preview::{CastPreview, cast_preview};
    use crate::rules::magic::{CastingTime, SpellEffect, Spellcasting};
    let spells: Vec<(String, SpellEffect, CastingTime, bool)> = world
        .get::<Spellcasting>(creature)?
        .castable()
        .map(|s| (s.name.clone(), s.def.effect, s.def.casting, s.def.range == crate::rules::magic::SpellRange::Touch))
        .collect();
    // A touch spell at a creature in reach only: cast beyond it, its charge would be held for a touch the AI
    // does not walk up to make (004:198-200).
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let reach = world.get::<Reach>(creature).map_or(1, |r| r.0);
    let touches = |s: &Seen| {
        s.entity == creature
            || melee_reaches(
                diagonals,
                reach,
                crate::rules::core::reach::WeaponReach::Natural,
                me.footprint,
                s.footprint,
            )
    };
    let cast = |target: &Seen, spell: &str, defensively: bool| Command::Cast {
        between_moves: false,
        creature: me.id.clone(),
        spell: spell.to_string(),
        target: Some(target.id.clone()),
        defensively,
    };
    let hurt = |s: &Seen, world: &World| {
        world.get::<HitPoints>(s.entity).is_some_and(|hp| hp.current * 2 <= hp.max && hp.current < hp.max)
    };
    for (spell, effect, casting, touch) in &spells {
        if adjacent_foe && matches!(casting, CastingTime::Rounds(_)) {
            continue;
        }
        // Positive energy heals the living and wounds the undead, negative energy the other way round.
        let positive = matches!(effect, SpellEffect::Heal { .. });
        let negative = matches!(effect, SpellEffect::Blast { negative: true, .. });
        let undead = |s: &Seen| world.get::<Traits>(s.entity).is_some_and(|t| t.undead);
        let heals = |s: &Seen| (positive && !undead(s)) || (negative && undead(s));
        let mut targets: Vec<&Seen> = std::iter::once(me)
            .chain(allies.iter())
            .filter(|s| heals(s) && hurt(s, world))
            .chain(foes.iter().filter(|s| if positive { undead(s) } else { !heals(s) }))
            .filter(|s| !*touch || touches(s))
            .collect();
        targets.sort_by_key(|s| (s.hit_points, s.id.clone()));
        for target in targets {
            let preview = match cast_preview(world, creature, target.entity, spell) {
                Ok(preview) => preview,
                // Its hands full, the spell's gestures need one free (004:192): what it holds in one hand
                // falls first (a free action, 004:254), then it casts.
                Err(refused) if refused.rule == "004:192" => match one_hand_to_free(world, creature) {
                    Some(weapon) => return Some(Command::Drop { creature: me.id.clone(), weapon }),
                    None => continue,
                },
                Err(_) => continue,
            };
            if preview.provokes_from.is_empty() {
                return Some(cast(target, spell, false));
            }
            if CastPreview::chance(preview.concentration, preview.defensive_dc) >= 0.5 {
                return Some(cast(target, spell, true));
            }
        }
    }
    None
}

/// Whether `creature` has spells with gestures left to cast, for which it keeps a hand free (004:192).
fn gestures_left(world: &World, creature: Entity) -> bool {
    world.get::<crate::rules::magic::Spellcasting>(creature).is_some_and(|m| m.castable().any(|s| s.def.somatic))
}

/// The weapon `creature` holds whose fall frees a hand: one held in one hand (a light or one-handed one,
/// beside its shield), else the one it holds in two.
fn one_hand_to_free(world: &World, creature: Entity) -> Option<String> {
    let armament = world.get::<Armament>(creature)?;
    let held: Vec<&Weapon> = armament.ready().filter(|w| !w.natural && !w.unarmed).collect();
    held.iter().find(|w| w.handling != Handling::TwoHanded).or_else(|| held.first()).map(|w| w.name.clone())
}

/// The mount `creature` rode in this fight, riderless beside it, if it may get back on now as the rules ask
/// (004:226, 004:475, 004:654): on its feet with its move action and movement left, the mount able to act,
/// at its height.
fn mount_again(world: &World, creature: Entity, budget: &ActionBudget) -> Option<CreatureId> {
    let conditions = world.get::<Conditions>(creature)?;
    let rode = world.get::<crate::rules::mounted::Rode>(creature)?.0;
    if !conditions.can_act()
        || crate::rules::core::creature::on_its_feet(conditions).is_err()
        || budget.check(ActionKind::Move).is_err()
        || budget.check_movement().is_err()
    {
        return None;
    }
    let roster = world.get_resource::<crate::rules::core::creature::Roster>()?;
    let mount =
        crate::rules::mounted::mount_beside(world, creature, roster.0.values().copied().filter(|e| *e == rode))?;
    let free = world.get::<Riders>(mount).is_none_or(|r| r.all().is_empty());
    let able = world.get::<Conditions>(mount).is_some_and(Conditions::can_act);
    let level = world.get::<Altitude>(mount).map(|a| a.0) == world.get::<Altitude>(creature).map(|a| a.0);
    (world.get::<crate::rules::mounted::Ridden>(mount).is_some() && free && able && level)
        .then(|| world.get::<CreatureId>(mount).cloned())
        .flatten()
}

/// A flight toward the nearest foe for a flier in the air that has not flown this turn: down (or up) to its
/// height first, then the flight ending nearest to it, beside it if it can, slow rather than fast (a slow
/// flight leaves the standard action to strike), never a stall if another flight will do, and never one
/// whose fly checks fail more often than not if another will do.
fn fly_toward(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::aerial::route::FlightStep;
    use crate::rules::core::names::SpeedStatus;
    let altitude = world.get::<Altitude>(creature)?.0;
    if altitude <= 0 || world.get::<Speed>(creature)?.fly.is_none() {
        return None;
    }
    let foe = foes.iter().min_by_key(|f| (f.footprint.distance_to(me.footprint, diagonals), f.id.clone()))?;
    let scale = world.resource::<crate::rules::core::battlefield::Battlefield>().scale();
    let side = me.footprint.width;
    let foe_top = world.get::<Altitude>(foe.entity).map_or(0, |a| a.0)
        + world.get::<Size>(foe.entity).map_or(1, |s| scale.body_height(*s));
    let strike = crate::preview::FlightStrike::of(world, creature, creature, foe.entity)?;
    let budget = world.get::<ActionBudget>(creature).copied().unwrap_or_default();
    // A perfect flier within reach of a foe stays where it is and makes its full attack: moving 1.5 m or
    // less, it keeps its full-round action (004:710), and it does not fall for not flying.
    let perfect = world.get::<Speed>(creature)?.fly.is_some_and(|w| w.maneuverability == Maneuverability::Perfect);
    if perfect
        && budget.check(ActionKind::FullRound).is_ok()
        && best_attack(world, creature, foes, true, false).is_some()
    {
        return None;
    }
    // High enough above it, with its whole turn: a dive attack, 6 m of dives to a flight that ends where it
    // threatens the foe, for the claw's double damage (004:753).
    let drop = altitude - foe_top;
    let least = scale.dive_attack_drop();
    if (least..=2 * least).contains(&drop) && budget.check(ActionKind::FullRound).is_ok() {
        let dives = vec![FlightStep::Dive { far: false }; drop as usize];
        let maneuverability = world.get::<Speed>(creature).and_then(|s| s.fly).map(|w| w.maneuverability)?;
        let room = |status: SpeedStatus, used: u32| {
            let limit = crate::rules::aerial::maneuvers_a_round(status, maneuverability, scale);
            used.saturating_add(crate::rules::aerial::ADVANCED_MANEUVER_COST) <= limit
        };
        if let Some(options) = crate::rules::aerial::flying::plan_attack_flights(world, creature, &dives, None) {
            let mut fitting: Vec<_> = options
                .iter()
                .filter(|(at, p)| {
                    matches!(p.flight.status, SpeedStatus::Slow | SpeedStatus::Fast)
                        && room(p.flight.status, p.flight.maneuvers)
                        && strike.reaches(**at, p)
                })
                .collect();
            fitting.sort_by_key(|(at, p)| (odds(p), p.flight.maneuvers, p.flight.spent, at.y, at.x));
            // Of the likeliest few, the one whose way provokes least (004:64-65, 004:656).
            let best = fitting
                .into_iter()
                .take(6)
                .enumerate()
                .map(|(rank, (_, p))| (strikers_on(world, creature, p), rank, p))
                .min_by_key(|(provoked, rank, _)| (*provoked, *rank));
            if let Some((_, _, planned)) = best {
                return Some(Command::flight(me.id.clone(), planned.steps.clone(), Some(foe.id.clone())));
            }
        }
    }
    // At chase scale a flight climbs or dives one band at most (004:749).
    let most = if scale == crate::rules::core::altitude::Scale::Chase { 1 } else { 3 };
    let change = (altitude - foe_top).clamp(-most, most);
    let prefix: Vec<FlightStep> = if change > 0 {
        vec![FlightStep::Dive { far: false }; change as usize]
    } else {
        vec![FlightStep::Climb; (-change) as usize]
    };
    let mut options = crate::rules::aerial::flying::plan_flights(world, creature, &prefix, None)?;
    if options.is_empty() {
        options = crate::rules::aerial::flying::plan_flights(world, creature, &[], None)?;
    }
    let rank = |s: SpeedStatus| match s {
        SpeedStatus::Slow | SpeedStatus::Hover => 0,
        SpeedStatus::Fast => 1,
        _ => 2,
    };
    // Only the flights its actions left can pay for (004:689-695).
    let affordable = |status: SpeedStatus| match status {
        SpeedStatus::Fast => budget.check_double_move().is_ok(),
        SpeedStatus::TopSpeed => budget.check(ActionKind::FullRound).is_ok(),
        _ => budget.check(ActionKind::Move).is_ok(),
    };
    // The squares the foes who could still strike it threaten: a flight that leaves one provokes (004:656).
    let danger = crate::preview::danger_for(world, creature);
    let start = me.footprint;
    let best = options.iter().filter(|(_, p)| affordable(p.flight.status)).min_by_key(|(square, planned)| {
        let at = Footprint::new(**square, side);
        let d = at.distance_to(foe.footprint, diagonals);
        let strikes = strike.reaches(**square, planned);
        // A flight whose fly checks fail more often than not is a last resort.
        let unlikely = planned.chance < 0.5;
        // Each square it leaves under a foe's threat weighs as three squares farther from its foe.
        let risky = danger.as_ref().map_or(0, |danger| {
            let legs = crate::rules::aerial::flying::legs_of(start, altitude, &planned.flight.waypoints, None);
            legs.iter().filter(|leg| danger.leaving(leg.at)).count() as u32
        });
        (
            rank(planned.flight.status),
            unlikely,
            !strikes,
            d + 3 * risky,
            odds(planned),
            planned.flight.spent,
            square.y,
            square.x,
        )
    })?;
    // No slow flight brings it where it strikes: it charges if it can, straight at the foe, up to twice its
    // speed, its blow at +2 (004:451-459, 004:693).
    let strikes_after = rank(best.1.flight.status) == 0 && strike.reaches(*best.0, best.1);
    if !strikes_after && let Some(charge) = charge_from_the_air(world, creature, me, foe) {
        return Some(charge);
    }
    Some(Command::flight(me.id.clone(), best.1.steps.clone(), None))
}

/// A flier's charge at `foe` (004:451-459, 004:693), when no slow flight strikes it; a ridden flier's within
/// its speed, as the rules ask.
fn charge_from_the_air(world: &mut World, creature: Entity, me: &Seen, foe: &Seen) -> Option<Command> {
    let (steps, _) = crate::rules::aerial::flying::plan_charge(world, creature, foe.entity).ok()?;
    Some(Command::flying_charge(me.id.clone(), steps, foe.id.clone()))
}

/// A flyby attack by a flier with the Flyby Attack feat, which makes it without a fly check (004:755-757):
/// the flight without fly checks to where it strikes the nearest foe it can reach (slow, or short of it when
/// the flight on makes it slow; the cheapest), the attack on the way with its standard action, and on,
/// slow and without checks, to the end farthest from every foe, out of their reach rather than beside them
/// for their full attacks. `None` without the feat, its move
/// and standard actions, or such a flight.
/// How many foes would strike at `creature` flying `planned` from where it is (004:64-65, 004:656).
fn strikers_on(world: &mut World, creature: Entity, planned: &crate::rules::aerial::planner::PlannedFlight) -> usize {
    crate::preview::flight_provocations(world, creature, &planned.flight).iter().map(|p| p.from.len()).sum()
}

fn fly_by(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::aerial::flying::{flyby_fits, plan_flights};
    use crate::rules::core::creature::Hidden;
    use crate::rules::core::names::SpeedStatus;
    if !world.get::<Feats>(creature)?.has(Feat::FlybyAttack) || world.get::<Altitude>(creature)?.0 <= 0 {
        return None;
    }
    let maneuverability = world.get::<Speed>(creature)?.fly?.maneuverability;
    let budget = world.get::<ActionBudget>(creature).copied()?;
    // The flight's move action and the blow's standard action, both (a restricted creature has one).
    // The flight takes its move action, the blow its standard one: both left (a take-off spent the move).
    if budget.restricted || budget.check(ActionKind::Standard).is_err() || !budget.move_action {
        return None;
    }
    let scale = world.resource::<Battlefield>().scale();
    let side = me.footprint.width;
    let options = plan_flights(world, creature, &[], None)?;
    let mut near: Vec<&Seen> =
        foes.iter().filter(|f| !world.get::<Hidden>(f.entity).is_some_and(|h| h.from.contains(&creature))).collect();
    near.sort_by_key(|f| (f.footprint.distance_to(me.footprint, diagonals), f.id.clone()));
    for foe in near {
        let Some(blow) = crate::preview::FlightStrike::of(world, creature, creature, foe.entity) else { continue };
        // The flight to the strike may be short of a slow flight (a stall) when the flight on makes it
        // slow; a failed check on the way would leave it out of reach: none before the strike.
        let mut strikes: Vec<(&Square, &crate::rules::aerial::planner::PlannedFlight)> = options
            .iter()
            .filter(|(at, p)| {
                matches!(p.flight.status, SpeedStatus::Slow | SpeedStatus::Stall)
                    && p.flight.checks.is_empty()
                    && blow.reaches(**at, p)
                    && flyby_fits(&p.flight, &p.steps, p.steps.len(), false, maneuverability, scale).is_ok()
            })
            .collect();
        strikes.sort_by_key(|(at, p)| (p.flight.status != SpeedStatus::Slow, p.flight.spent, at.y, at.x));
        // Of the cheapest few, the one whose way provokes least (004:64-65, 004:656).
        let mut strikes: Vec<_> = strikes.into_iter().take(6).map(|s| (strikers_on(world, creature, s.1), s)).collect();
        strikes.sort_by_key(|(provoked, _)| *provoked);
        for (_, (_, strike)) in strikes.into_iter().take(3) {
            let after = strike.steps.len();
            let slow = strike.flight.status == SpeedStatus::Slow;
            // On, slow and without checks (a failed one could end it against a wall, the attack lost), to
            // the end farthest from the foes.
            let on = plan_flights(world, creature, &strike.steps, None).unwrap_or_default();
            // The way on provokes as any flight (004:64-65): the fewest foes striking, then the farthest end.
            let ways: Vec<_> = on
                .iter()
                .filter(|(_, p)| {
                    p.flight.status == SpeedStatus::Slow
                        && p.flight.checks.is_empty()
                        && flyby_fits(&p.flight, &p.steps, after, false, maneuverability, scale).is_ok()
                })
                .map(|(at, p)| (nearest_foe(diagonals, foes, Footprint::new(*at, side)), at, p))
                .collect();
            let away = ways
                .into_iter()
                .map(|(far, at, p)| (strikers_on(world, creature, p), far, at, p))
                .max_by_key(|(provoked, far, at, p)| {
                    (std::cmp::Reverse(*provoked), *far, std::cmp::Reverse((p.flight.spent, at.y, at.x)))
                })
                .map(|(_, far, at, p)| (far, at, p));
            let steps = match away {
                Some((far, _, p)) if !slow || far > nearest_foe(diagonals, foes, strike_end(strike, side)) => {
                    p.steps.clone()
                }
                _ if slow => strike.steps.clone(),
                _ => continue,
            };
            let mut step = Command::flight(me.id.clone(), steps, None);
            if let Command::Fly { flyby, .. } = &mut step {
                *flyby = Some((foe.id.clone(), after));
            }
            return Some(step);
        }
    }
    None
}

/// Where a flight ends, as a footprint `side` squares wide.
fn strike_end(planned: &crate::rules::aerial::planner::PlannedFlight, side: i32) -> Footprint {
    let at = planned.flight.waypoints.last().map_or(Square::new(0, 0), |w| w.square);
    Footprint::new(at, side)
}

/// The likelier a flight's fly checks all succeed, the smaller (in hundredths of a failure).
fn odds(planned: &crate::rules::aerial::planner::PlannedFlight) -> u32 {
    100 - (planned.chance * 100.0).round() as u32
}

/// A breath at the foe that makes it cover the most foes, each ally it would cover counting two against:
/// none unless that comes to one foe at least, or when its breath is not back or its standard action spent.
fn breathe_at(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let breath = world.get::<crate::rules::breath::Breath>(creature)?;
    let round = world.resource::<crate::rules::turns::TurnOrder>().round;
    let budget = world.get::<ActionBudget>(creature)?;
    if breath.ready(round).is_err() || budget.check(ActionKind::Standard).is_err() {
        return None;
    }
    let mut best: Option<(i32, &Seen)> = None;
    for foe in foes {
        let Ok(covered) = crate::rules::breath::breath_preview(world, creature, foe.entity) else { continue };
        let score: i32 = covered
            .iter()
            .map(|e| if world.get::<Faction>(*e).is_some_and(|f| f.0 == me.faction) { -2 } else { 1 })
            .sum();
        if score >= 1 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, foe));
        }
    }
    best.map(|(_, foe)| Command::Breathe { creature: me.id.clone(), toward: foe.id.clone() })
}

/// Squares to the nearest standing foe.
/// Empty-handed (beside its shield), the first weapon it carries put away that its hands can take, drawn;
/// holding only ranged weapons with its whole turn before it and a foe next to it, they fall, for a melee
/// weapon put away.
fn arm_itself(
    world: &World,
    creature: Entity,
    me: &Seen,
    (armament, foes): (&Armament, &[Seen]),
    in_melee: bool,
) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::attack::gear::{Handle, check_handle};
    use crate::rules::core::gear::{HANDS, hands_for, hands_free, shield_hands};
    let manufactured = |w: &&Weapon| !w.natural && !w.unarmed;
    let held: Vec<&Weapon> = armament.ready().filter(manufactured).collect();
    let shield = world.get::<Shield>(creature);
    let room = HANDS.saturating_sub(shield_hands(shield));
    let stowed_melee = armament.0.iter().any(|w| w.stowed && !is_ranged(w) && hands_for(w) <= room);
    if in_melee && !held.is_empty() && held.iter().all(|w| is_ranged(w)) && stowed_melee {
        return Some(Command::Drop { creature: me.id.clone(), weapon: held[0].name.clone() });
    }
    // Holding only reach weapons (a knight's lance) with a foe next to it and none where they strike: they
    // fall, for a weapon put away that strikes next to it (004:63: a reach weapon not within its reach).
    let reach = world.get::<Reach>(creature).map_or(1, |r| r.0);
    let reach_only = !held.is_empty() && held.iter().all(|w| w.reach && !is_ranged(w));
    let stowed_close = armament.0.iter().any(|w| w.stowed && !is_ranged(w) && !w.reach && hands_for(w) <= room);
    let none_at_reach = !foes.iter().any(|f| {
        melee_reaches(diagonals, reach, crate::rules::core::reach::WeaponReach::Doubled, me.footprint, f.footprint)
    });
    if in_melee && reach_only && stowed_close && none_at_reach {
        return Some(Command::Drop { creature: me.id.clone(), weapon: held[0].name.clone() });
    }
    if !held.is_empty() {
        return None;
    }
    // A caster with spells of gestures left keeps a hand free for them (004:192).
    let gestures = gestures_left(world, creature);
    let free = hands_free(armament, shield);
    let fits = |w: &&Weapon| w.stowed && hands_for(w) <= free && (!gestures || hands_for(w).min(1) < free);
    // Beside a foe a melee weapon; else one that would strike a foe from here; else the first.
    let adjacent = foes.iter().any(|f| f.footprint.touches(me.footprint));
    let field = world.resource::<Battlefield>();
    let strikes_from_here = |w: &&Weapon| {
        max_range_m(w).is_some_and(|range| foes.iter().any(|f| range_to(field, me.placed(), f.placed()) <= range))
    };
    let weapon = armament
        .0
        .iter()
        .filter(fits)
        .find(|w| if adjacent { !is_ranged(w) } else { strikes_from_here(w) })
        .or_else(|| armament.0.iter().find(fits))?;
    check_handle(world, creature, &weapon.name, Handle::Draw).ok()?;
    Some(Command::Draw { creature: me.id.clone(), weapon: weapon.name.clone() })
}

/// With no foe it could reach in melee this turn, a melee weapon in hand and a bow put away that would
/// strike a foe from here, it puts the melee weapon away (a move action, 004:129), to draw the bow with the
/// next; not when a foe threatens it.
fn take_up_the_bow(
    world: &mut World,
    creature: Entity,
    me: &Seen,
    (armament, foes): (&Armament, &[Seen]),
) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::core::gear::{HANDS, hands_for, shield_hands};
    let held: Vec<&Weapon> = armament.ready().filter(|w| !w.natural && !w.unarmed).collect();
    let [sword] = held.as_slice() else { return None };
    if is_ranged(sword) {
        return None;
    }
    let room = HANDS.saturating_sub(shield_hands(world.get::<Shield>(creature)));
    let field = world.resource::<Battlefield>();
    let bow = armament.0.iter().find(|w| {
        w.stowed
            && matches!(w.delivery, Delivery::Projectile { .. })
            && hands_for(w) <= room
            && foes.iter().any(|f| {
                max_range_m(w).is_some_and(|range| range_to(field, me.placed(), f.placed()) <= range)
                    && field.line_of_sight(me.footprint, f.footprint)
            })
    })?;
    let _ = bow;
    // Out of melee this turn: no foe within a move and its reach.
    let options = move_options(world, creature);
    let reach = world.get::<Reach>(creature).map_or(1, |r| r.0);
    let closes = options.squares.iter().any(|(square, (action, _))| {
        matches!(action, MovementAction::Move | MovementAction::FiveFootStep | MovementAction::DoubleMove)
            && foes.iter().any(|f| {
                melee_reaches(
                    diagonals,
                    reach,
                    sword.reach_kind(),
                    Footprint::new(*square, me.footprint.width),
                    f.footprint,
                )
            })
    });
    if closes {
        return None;
    }
    Some(Command::PutAway { creature: me.id.clone(), weapon: sword.name.clone() })
}

/// A bull rush that pushes an adjacent foe into a pit two times in five or more, when entering its space
/// provokes no one but that foe (004:446-449): a foe at the bottom of a pit is out of the fight (our ruling,
/// docs/rulings.md).
fn rush_into_a_pit(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    if !world.resource::<Battlefield>().has_pit() {
        return None;
    }
    let mut near: Vec<&Seen> = foes.iter().filter(|f| f.footprint.adjacent_to(me.footprint)).collect();
    near.sort_by_key(|f| f.id.clone());
    near.into_iter().find_map(|foe| {
        let rush = crate::preview::bull_rush_preview(world, creature, foe.entity, false).ok()?;
        let others = rush.plan.provokers.iter().any(|e| *e != foe.entity);
        (rush.charge_to.is_none() && !others && rush.plan.pit_chance()? >= 0.4).then(|| Command::BullRush {
            creature: me.id.clone(),
            target: foe.id.clone(),
            stay: false,
        })
    })
}

/// An overrun of a foe next to it that screens a caster or an archer (004:531-535): the space beyond it
/// nearer such a foe than where it stands, the passage likely (the foe stepping aside, or the block won one
/// time in two or more), and worth the attacks of opportunity the squares it leaves provoke (004:65): one
/// at most, and none once it has lost half its hit points. Through, its move goes on toward it (004:535).
fn overrun_a_screen(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let hurt = world.get::<HitPoints>(creature).is_some_and(|hp| hp.current * 2 < hp.max);
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let casters: Vec<Placed> = foes.iter().filter(|f| strikes_from_afar(world, f.entity)).map(Seen::placed).collect();
    if casters.is_empty() {
        return None;
    }
    let mut screens: Vec<&Seen> =
        foes.iter().filter(|f| f.footprint.adjacent_to(me.footprint) && !strikes_from_afar(world, f.entity)).collect();
    screens.sort_by_key(|f| f.id.clone());
    screens.into_iter().find_map(|screen| {
        let plan = crate::rules::special::overrun::overrun_in(world, creature, screen.entity).ok()?;
        let left: Vec<Square> = plan.left.iter().flat_map(|f| f.squares()).collect();
        let strikers = crate::preview::strikers_leaving(world, creature, &left).ok()?;
        if strikers.len() > 1 || (hurt && !strikers.is_empty()) {
            return None;
        }
        let nearer =
            casters.iter().any(|c| plan.beyond.distance_to(c.0, diagonals) < me.footprint.distance_to(c.0, diagonals));
        (nearer && plan.chance() >= 0.5)
            .then(|| Command::Overrun { creature: me.id.clone(), target: screen.id.clone() })
    })
}

/// Whether a foe casts spells or shoots (a ranged weapon in hand): what an overrun screens it from.
fn strikes_from_afar(world: &World, e: Entity) -> bool {
    world.get::<crate::rules::magic::Spellcasting>(e).is_some_and(|m| m.castable().next().is_some())
        || world.get::<Armament>(e).is_some_and(|a| a.ready().next().is_some_and(is_ranged))
}

/// The move going on after an overrun (004:535), to the nearest square from which it strikes a foe who
/// casts or shoots, if the rest of its movement gets it there.
fn on_to_a_far_striker(
    world: &mut World,
    creature: Entity,
    me: &Seen,
    foes: &[Seen],
    (armament, reach): (&Armament, u32),
) -> Option<Command> {
    let casters: Vec<Placed> = foes.iter().filter(|f| strikes_from_afar(world, f.entity)).map(Seen::placed).collect();
    let field = world.resource::<Battlefield>().clone();
    let options = move_options(world, creature);
    let side = me.footprint.width;
    let strikes = |s: Square| {
        casters.iter().any(|c| could_strike(&field, armament, reach, me.on(Footprint::new(s, side)), *c, false))
    };
    let (to, _) = options
        .squares
        .iter()
        .filter(|(s, (a, _))| *a == MovementAction::Move && strikes(**s))
        .min_by_key(|(s, (_, cost))| (*cost, s.y, s.x))?;
    Some(Command::Move { creature: me.id.clone(), to: *to, action: MovementAction::Move, path: None })
}

/// A trip with a trip weapon it holds on the nearest foe it would lay down two times in five or more, provoking
/// nothing (004:483-489): a prone foe fights at -4 and is struck at +4 in melee (004:392).
fn trip_a_foe(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    if !world.get::<Armament>(creature).is_some_and(|a| a.0.iter().any(|w| w.trip)) {
        return None;
    }
    let mut near: Vec<&Seen> = foes.iter().collect();
    near.sort_by_key(|f| (f.footprint.distance_to(me.footprint, diagonals), f.id.clone()));
    near.into_iter().find_map(|foe| {
        let trip = crate::preview::trip_preview(world, creature, foe.entity).ok()?;
        (!trip.plan.provokes && trip.touch_chance * trip.check_chance >= TRIP_ODDS).then(|| Command::Trip {
            creature: me.id.clone(),
            target: foe.id.clone(),
            weapon: None,
        })
    })
}

/// A feint (004:524-527) by a creature with Bluff, on the foe in its melee reach it would strike, whom its
/// blow would not sneak attack now but would once denied its Dex bonus (no concealment, not immune to
/// criticals), when the feint is won three times in five or more and the blow it buys is its only one:
/// with Improved Feint a move action before this turn's attack; without, its standard action, for next
/// turn's first blow, not on a foe nearly down (one blow now may end it).
fn feint_a_foe(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let sneaker = world.get::<Traits>(creature)?.sneak_attack.is_some();
    let bluffs = world.get::<Skills>(creature)?.bluff.is_some();
    if !sneaker || !bluffs {
        return None;
    }
    let budget = *world.get::<ActionBudget>(creature)?;
    let improved = world.get::<Feats>(creature)?.has(Feat::ImprovedFeint);
    let (target, weapon, _) = best_attack(world, creature, foes, false, false)?;
    let foe = foes.iter().find(|f| f.id == target)?;
    let feint = crate::preview::feint_preview(world, creature, foe.entity).ok()?;
    let request = AttackRequest { weapon: weapon.as_deref(), full: true, ..default() };
    let blow = attack_preview(world, creature, foe.entity, request).ok()?;
    let immune = world.get::<Traits>(foe.entity).is_some_and(|t| t.immune_to_criticals);
    if feint.chance < FEINT_ODDS || blow.plan.sneaks() || blow.plan.miss_chance > 0 || immune || blow.chances.len() > 1
    {
        return None;
    }
    let now = improved && budget.check(ActionKind::Standard).is_ok();
    let next_turn = !improved && foe.hit_points as f32 > blow.plan.mean_damage();
    (now || next_turn).then(|| Command::Feint { creature: me.id.clone(), target })
}

/// The least chance of a won feint the AI feints for.
const FEINT_ODDS: f32 = 0.6;

/// A disarm (with Improved Disarm) or a sunder (with Improved Sunder), provoking nothing, on the nearest foe
/// in reach that holds a weapon (a melee one, for a disarm), when it would be won three times in five or more: a disarmed foe fights
/// unarmed or stoops for its weapon (004:494), a sundered one strikes with a broken weapon (004:502).
fn disarm_or_sunder(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let feats = world.get::<Feats>(creature)?.clone();
    let (disarms, sunders) = (feats.has(Feat::ImprovedDisarm), feats.has(Feat::ImprovedSunder));
    if !disarms && !sunders {
        return None;
    }
    let mut near: Vec<&Seen> = foes.iter().collect();
    near.sort_by_key(|f| (f.footprint.distance_to(me.footprint, diagonals), f.id.clone()));
    near.into_iter().find_map(|foe| {
        let (creature_id, target) = (me.id.clone(), foe.id.clone());
        if disarms
            && let Ok(plan) = crate::preview::disarm_preview(world, creature, foe.entity, None)
            && !plan.provokes
            && !is_ranged(&plan.item)
            && plan.chance() >= 0.6
        {
            return Some(Command::Disarm { creature: creature_id, target, weapon: None, object: None });
        }
        if sunders
            && let Ok(plan) = crate::preview::sunder_preview(world, creature, foe.entity, (None, false))
            && !plan.provokes
            && plan.chance() >= 0.6
        {
            return Some(Command::Sunder { creature: creature_id, target, weapon: None, shield: false, object: None });
        }
        None
    })
}

/// A splash weapon thrown at the foe it would hit one time in two or more whose burst splashes no ally,
/// the one that catches the most foes; holy water at undead alone.
fn throw_a_flask(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen], allies: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::special::splash::Aim;
    let flasks: Vec<Weapon> =
        world.get::<Armament>(creature)?.0.iter().filter(|w| w.splash.is_some()).cloned().collect();
    let mut best: Option<(usize, u32, CreatureId, String)> = None;
    for flask in &flasks {
        let undead_only = flask.splash.as_ref().is_some_and(|s| s.undead_only);
        for foe in foes {
            let undead = world.get::<Traits>(foe.entity).is_some_and(|t| t.undead);
            if undead_only && !undead {
                continue;
            }
            let Ok(plan) = crate::preview::throw_preview(world, creature, Aim::Creature(foe.entity), Some(&flask.name))
            else {
                continue;
            };
            let height = |s: &Seen| world.get::<Altitude>(s.entity).map_or(0, |a| a.0);
            let field = world.resource::<Battlefield>();
            if plan.chance() < 0.5 || allies.iter().any(|a| plan.burst.reaches(field, (a.footprint, height(a)))) {
                continue;
            }
            let caught = foes.iter().filter(|f| plan.burst.reaches(field, (f.footprint, height(f)))).count();
            let distance = foe.footprint.distance_to(me.footprint, diagonals);
            if best.as_ref().is_none_or(|(c, d, ..)| caught > *c || caught == *c && distance < *d) {
                best = Some((caught, distance, foe.id.clone(), flask.name.clone()));
            }
        }
    }
    let (_, _, target, weapon) = best?;
    Some(Command::Throw { creature: me.id.clone(), target: Some(target), corner: None, weapon: Some(weapon) })
}

/// With its whole turn, no flask ready in hand and no foe threatening it, a flask prepared to throw (a
/// full-round action that provokes, 004:144) when a foe it could harm is within five range increments and
/// in sight.
fn prepare_a_flask(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let armament = world.get::<Armament>(creature)?.clone();
    if armament.ready().any(|w| w.splash.is_some() && w.prepared) {
        return None;
    }
    if !crate::preview::strikers_in_place(world, creature).ok()?.is_empty() {
        return None;
    }
    let field = world.resource::<Battlefield>();
    let flask = armament.0.iter().find(|w| {
        let undead_only = w.splash.as_ref().is_some_and(|s| s.undead_only);
        w.splash.is_some()
            && !w.prepared
            && foes.iter().any(|f| {
                (!undead_only || world.get::<Traits>(f.entity).is_some_and(|t| t.undead))
                    && max_range_m(w).is_some_and(|range| range_to(field, me.placed(), f.placed()) <= range)
                    && field.line_of_sight(me.footprint, f.footprint)
            })
    })?;
    let name = flask.name.clone();
    crate::rules::attack::gear::check_handle(world, creature, &name, crate::rules::attack::gear::Handle::Prepare)
        .ok()?;
    Some(Command::Prepare { creature: me.id.clone(), weapon: name })
}

/// A coup de grâce on a helpless foe it can deliver one to now, the nearest first: one that would wake or
/// be healed (knocked out, stable), not one already bleeding to death.
fn coup_de_grace(world: &mut World, creature: Entity, me: &Seen, all: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let mut helpless: Vec<&Seen> = all
        .iter()
        .filter(|s| s.faction != me.faction && !s.up)
        .filter(|s| {
            world.get::<Conditions>(s.entity).is_some_and(|c| {
                let bleeding = c.has(Condition::Dying) && !c.has(Condition::Stable);
                c.is_helpless() && !c.has(Condition::Dead) && !bleeding
            })
        })
        .collect();
    helpless.sort_by_key(|s| (s.footprint.distance_to(me.footprint, diagonals), s.id.clone()));
    helpless.into_iter().find_map(|foe| {
        crate::preview::coup_de_grace_preview(world, creature, foe.entity, None).ok().map(|_| Command::CoupDeGrace {
            creature: me.id.clone(),
            target: foe.id.clone(),
            weapon: None,
            // To kill: lethal even with its fists (004:173).
            lethal: true,
        })
    })
}

/// A take-off for a flier standing on its feet on the ground whose fly speed is greater than its land
/// speed, with the move action it takes (or none for a perfect flier), and no one on its back.
fn take_off(world: &mut World, creature: Entity, me: &Seen, budget: ActionBudget) -> Option<Command> {
    let speed = *world.get::<Speed>(creature)?;
    let fly = speed.fly?;
    let grounded = world.get::<Altitude>(creature).is_some_and(|a| a.0 == 0);
    let standing = world.get::<Conditions>(creature).is_some_and(|c| c.can_act() && !c.has(Condition::Prone));
    let carried = world.get::<crate::rules::core::creature::Riders>(creature).is_some_and(|r| !r.all().is_empty());
    // Rising into the air is movement: not after a 5-foot step (004:259).
    let wanted = grounded
        && standing
        && !carried
        && fly.squares > speed.land
        && budget.check(ActionKind::Move).is_ok()
        && budget.check_movement().is_ok();
    // Not into a space another flies in (004:647-649).
    let height = world.get::<Space>(creature)?.width.max(1);
    let others = crate::rules::aerial::flying::aloft_but(world, creature);
    let size = *world.get::<Size>(creature)?;
    let scale = world.resource::<Battlefield>().scale();
    let free = crate::rules::aerial::flying::taken_at(scale, &others, (me.footprint, height, size)).is_none();
    (wanted && free).then(|| Command::TakeOff { creature: me.id.clone(), extra_m: 0.0 })
}

/// A grab, provoking nothing, on the nearest foe next to it the hold would be made on three times in five or
/// more: a caster (held, it casts no spell with gestures, 004:595), or any foe for a wrestler (Improved
/// Grapple or Improved Grab).
fn grapple_a_foe(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::special::grapple::GrappleMove;
    let wrestler = world.get::<Feats>(creature).is_some_and(|f| f.has(Feat::ImprovedGrapple))
        || world.get::<Traits>(creature).is_some_and(|t| t.improved_grab);
    let mut near: Vec<&Seen> = foes.iter().filter(|f| f.footprint.touches(me.footprint)).collect();
    near.sort_by_key(|f| (f.footprint.distance_to(me.footprint, diagonals), f.id.clone()));
    near.into_iter().find_map(|foe| {
        let caster = world.get::<crate::rules::magic::Spellcasting>(foe.entity).is_some();
        let grab = crate::preview::grapple_preview(world, creature, Some(foe.entity), GrappleMove::Grab).ok()?;
        let provokes = grab.grab.as_ref().is_some_and(|g| g.provokes);
        ((caster || wrestler) && !provokes && grab.chance >= 0.6).then(|| Command::Grapple {
            creature: me.id.clone(),
            target: Some(foe.id.clone()),
            action: GrappleMove::Grab,
            to: None,
        })
    })
}

/// Its move in a grapple: pinned, it breaks free; an ally pinned by its foe, it frees it; stronger than its
/// foe, it damages it (lethally when the -4 still leaves it likely); weaker, it escapes, with Escape Artist if
/// that is better.
fn in_a_grapple(world: &mut World, creature: Entity, me: &Seen) -> Option<Command> {
    use crate::rules::special::grapple::GrappleMove;
    let try_move = |world: &mut World, action: GrappleMove| {
        crate::preview::grapple_preview(world, creature, None, action).ok().map(|p| (action, p.chance))
    };
    let command = |action: GrappleMove| Command::Grapple { creature: me.id.clone(), target: None, action, to: None };
    let conditions = world.get::<Conditions>(creature).cloned().unwrap_or_default();
    if conditions.has(Condition::Pinned) {
        return try_move(world, GrappleMove::BreakPin).map(|(a, _)| command(a));
    }
    // Turned, it flees (004:549): it lets go of a foe it pins, or escapes.
    if conditions.has(Condition::Turned)
        && let Some((action, _)) = try_move(world, GrappleMove::Release)
    {
        return Some(command(action));
    }
    // An ally pinned by a foe it grapples comes first (004:607).
    let foes = world.get::<Grapple>(creature).map(|g| g.with.clone()).unwrap_or_default();
    for foe in foes {
        let Ok(rescue) = crate::preview::grapple_preview(world, creature, Some(foe), GrappleMove::FreeAlly) else {
            continue;
        };
        if rescue.chance >= 0.3
            && let Some(id) = world.get::<CreatureId>(foe).cloned()
        {
            return Some(Command::Grapple {
                creature: me.id.clone(),
                target: Some(id),
                action: GrappleMove::FreeAlly,
                to: None,
            });
        }
    }
    if let Some(step) = a_light_weapon_in_the_grapple(world, creature, me) {
        return Some(step);
    }
    if let Some(damage) = try_move(world, GrappleMove::Damage)
        && damage.1 >= 0.5
    {
        let lethal = try_move(world, GrappleMove::LethalDamage).filter(|(_, chance)| *chance >= 0.5);
        let (action, _) = lethal.unwrap_or(damage);
        return Some(command(action));
    }
    let escape = try_move(world, GrappleMove::Escape);
    let artist = try_move(world, GrappleMove::EscapeArtist);
    let best = [escape, artist].into_iter().flatten().max_by(|a, b| a.1.total_cmp(&b.1));
    best.map(|(a, _)| command(a))
}

/// A light weapon in a grapple: held, it stabs the first foe it grapples for lethal damage when the attack at
/// -4 is likely enough (004:594); put away, it is drawn with the move action when the grapple check is not unlikely
/// won and the standard action is left to strike with it (004:599).
fn a_light_weapon_in_the_grapple(world: &mut World, creature: Entity, me: &Seen) -> Option<Command> {
    use crate::rules::special::grapple::GrappleMove;
    let foe = world.get::<Grapple>(creature).and_then(|g| g.with.first().copied())?;
    let foe_id = world.get::<CreatureId>(foe).cloned()?;
    let held = world.get::<Armament>(creature).and_then(|a| {
        a.ready().find(|w| crate::rules::special::grapple::is_light_manufactured(w)).map(|w| w.name.clone())
    });
    if let Some(weapon) = held {
        let request = crate::rules::attack::AttackRequest { weapon: Some(&weapon), ..default() };
        let likely =
            attack_preview(world, creature, foe, request).is_ok_and(|p| p.chances.first().is_some_and(|c| *c >= 0.4));
        return likely.then(|| Command::attack(me.id.clone(), foe_id, Some(weapon)));
    }
    // Drawn with the move action only if the standard action is left to stab with after it: a whole turn.
    let budget = world.get::<crate::rules::turns::ActionBudget>(creature).copied().unwrap_or_default();
    if budget.check(ActionKind::FullRound).is_err() {
        return None;
    }
    let draw = crate::preview::grapple_preview(world, creature, None, GrappleMove::DrawLight).ok()?;
    let stowed = crate::rules::special::grapple::weapon_to_draw(world, creature)?;
    // Worth it only if the weapon, once in hand, would likely strike: asked of the rules with it in hand.
    let gear = world.get::<Armament>(creature)?.clone();
    let mut in_hand = gear.clone();
    if let Some(weapon) = in_hand.0.iter_mut().find(|w| w.name == stowed && w.stowed) {
        weapon.stowed = false;
    }
    world.entity_mut(creature).insert(in_hand);
    let request = crate::rules::attack::AttackRequest { weapon: Some(&stowed), paid: true, ..default() };
    let strikes =
        attack_preview(world, creature, foe, request).is_ok_and(|p| p.chances.first().is_some_and(|c| *c >= 0.4));
    world.entity_mut(creature).insert(gear);
    (strikes && draw.chance >= 0.4).then(|| Command::Grapple {
        creature: me.id.clone(),
        target: None,
        action: GrappleMove::DrawLight,
        to: None,
    })
}

/// The move that takes `creature` farthest from the nearest of those it flees, `from`, among those the rules
/// let it make (farther from each, 004:549), if any takes it farther than it stands.
fn flee(world: &mut World, creature: Entity, me: &Seen, from: &[Entity]) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    let away: Vec<Footprint> = from
        .iter()
        .filter_map(|e| world.get::<Space>(*e).zip(world.get::<Position>(*e)).map(|(s, p)| s.at(p.0)))
        .collect();
    let nearest = |at: Footprint| away.iter().map(|a| a.distance_to(at, diagonals)).min().unwrap_or(0);
    // The move options keep only the squares the rules let it flee to (`turning::fleeing`).
    let options = move_options(world, creature);
    let mut squares: Vec<(Square, MovementAction, u32)> = options
        .squares
        .iter()
        .filter(|(s, _)| **s != me.footprint.origin)
        .map(|(s, (a, _))| (*s, *a, nearest(me.footprint.at(*s))))
        .filter(|(_, _, d)| *d > nearest(me.footprint))
        .collect();
    squares.sort_by_key(|(s, _, d)| (std::cmp::Reverse(*d), s.y, s.x));
    let (to, action, _) = squares.first()?;
    Some(Command::Move { creature: me.id.clone(), to: *to, action: *action, path: None })
}

/// An evil cleric's other uses of its turnings (004:567-570): freeing its undead from a good cleric's turning
/// when its check likely equals the one that turned them, else, with a good cleric among its foes, bolstering
/// its undead that are not bolstered yet.
fn channel_for_its_undead(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    use crate::rules::special::turning::{Bolstered, Energy, Turning, plan_turning};
    let turning = world.get::<Turning>(creature).copied()?;
    if turning.energy != Energy::Negative {
        return None;
    }
    let command = |kind| Command::TurnUndead { creature: me.id.clone(), kind };
    if let Ok(plan) = plan_turning(world, creature, TurnKind::Dispel) {
        let equals = |check: i32| (1..=20).filter(|d| d + plan.check_bonus >= check).count() >= 10;
        if plan.undead.iter().any(|u| u.turned_by_check.is_some_and(equals)) {
            return Some(command(TurnKind::Dispel));
        }
    }
    let good_cleric = foes.iter().any(|f| world.get::<Turning>(f.entity).is_some_and(|t| t.energy == Energy::Positive));
    if !good_cleric {
        return None;
    }
    let round = world.resource::<crate::rules::turns::TurnOrder>().round;
    let plan = plan_turning(world, creature, TurnKind::Bolster).ok()?;
    let bare = plan.undead.iter().any(|u| world.get::<Bolstered>(u.entity).is_none_or(|b| round >= b.until));
    bare.then(|| command(TurnKind::Bolster))
}

/// The touch that delivers a charge held (004:200): the weakest foe within reach the rules let it touch.
fn touch_with_the_charge(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    let held = world.get::<crate::rules::magic::HeldCharge>(creature).cloned()?;
    let mut q = kept::<crate::rules::attack::Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = q.query(world);
    let caster = creatures.get(creature).ok()?;
    let budget = world.get::<ActionBudget>(creature).copied().unwrap_or_default();
    let order = world.resource::<crate::rules::turns::TurnOrder>();
    let field = world.resource::<crate::rules::core::battlefield::Battlefield>();
    let mut reachable: Vec<&Seen> = foes
        .iter()
        .filter(|f| {
            creatures.get(f.entity).is_ok_and(|t| {
                crate::rules::magic::check_touch((order, field, &creatures), (&caster, &t), Some(&held), &budget)
                    .is_ok()
            })
        })
        .collect();
    reachable.sort_by_key(|s| (s.hit_points, s.id.clone()));
    reachable.first().map(|f| Command::Touch { creature: me.id.clone(), target: f.id.clone() })
}

/// First aid to a dying friend beside it that the rules allow now (004:283), the nearest by id.
fn first_aid(world: &mut World, creature: Entity, me: &Seen, all: &[Seen]) -> Option<Command> {
    let mut dying: Vec<&Seen> = all
        .iter()
        .filter(|s| s.faction == me.faction && s.entity != creature && s.footprint.touches(me.footprint))
        .filter(|s| {
            world.get::<Conditions>(s.entity).is_some_and(|c| c.has(Condition::Dying) && !c.has(Condition::Stable))
        })
        .collect();
    dying.sort_by(|a, b| a.id.cmp(&b.id));
    let patient = dying.into_iter().find(|s| crate::preview::first_aid_preview(world, creature, s.entity).is_ok())?;
    Some(Command::FirstAid { creature: me.id.clone(), target: patient.id.clone() })
}

/// Turning undead when it would reach two or more of them, or one next to the turner (004:538-546).
fn turn_undead(world: &mut World, creature: Entity, me: &Seen, foes: &[Seen]) -> Option<Command> {
    world.get::<crate::rules::special::turning::Turning>(creature)?;
    let plan = crate::rules::special::turning::plan_turning(world, creature, TurnKind::Turn).ok()?;
    if let Some(release) = release_for_a_stronger(world, (creature, me), &plan) {
        return Some(release);
    }
    let likely: Vec<_> = plan.undead.iter().filter(|u| plan.chance_for(u.against_check) >= 0.5).collect();
    let close = likely.iter().any(|u| foes.iter().any(|f| f.entity == u.entity && f.footprint.touches(me.footprint)));
    // A rebuker commands one it likely would, within its level (004:566): the step after a release too.
    let level = plan.turning.level;
    let commands_one = plan.turning.energy == crate::rules::special::turning::Energy::Negative
        && likely.iter().any(|u| u.overwhelmed_by(level) && plan.commanded_hit_dice + u.hit_dice <= level);
    (likely.len() >= 2 || close || commands_one)
        .then(|| Command::TurnUndead { creature: me.id.clone(), kind: TurnKind::Turn })
}

/// A rebuker at the end of its command releases its weakest undead when that makes room for a stronger one
/// in reach it would likely command (004:566): the strongest such, if releasing one of fewer Hit Dice, farther
/// off than it, lets it fit within the rebuker's level.
fn release_for_a_stronger(
    world: &mut World,
    (creature, me): (Entity, &Seen),
    plan: &crate::rules::special::turning::TurnPlan,
) -> Option<Command> {
    let diagonals = crate::rules::core::battlefield::diagonals_in(world);
    use crate::rules::special::turning::{CommandedBy, Energy};
    let level = plan.turning.level;
    if plan.turning.energy != Energy::Negative {
        return None;
    }
    let wanted = plan
        .undead
        .iter()
        .filter(|u| u.overwhelmed_by(level) && plan.commanded_hit_dice + u.hit_dice > level)
        .filter(|u| plan.chance_for(u.against_check) >= 0.5)
        .max_by_key(|u| (u.hit_dice, std::cmp::Reverse(u.distance)))?;
    // Released, an undead is a foe again: one nearer than the wanted would be taken back first (004:542).
    let mut commanded = kept::<(&CommandedBy, &CreatureId, &Conditions, &Position, &Space), ()>(world);
    let (_, weakest, ..) = commanded
        .iter(world)
        .filter(|(c, _, conditions, ..)| c.cleric == creature && !conditions.has(Condition::Dead))
        .filter(|(c, ..)| {
            c.hit_dice < wanted.hit_dice && plan.commanded_hit_dice - c.hit_dice + wanted.hit_dice <= level
        })
        .filter(|(.., position, space)| space.at(position.0).distance_to(me.footprint, diagonals) > wanted.distance)
        .min_by_key(|(c, id, ..)| (c.hit_dice, (*id).clone()))?;
    Some(Command::Release { creature: me.id.clone(), undead: weakest.clone() })
}

fn nearest_foe(diagonals: Diagonals, foes: &[Seen], at: Footprint) -> u32 {
    foes.iter().map(|f| f.footprint.distance_to(at, diagonals)).min().unwrap_or(u32::MAX)
}
