//! Flying in the fight (004:653-786, 004:825-852): taking off and landing, a flier's move as a flight
//! ([`super::route::fly`]) with its fly checks, the status it leaves, the stall and the free fall at the
//! end of the turn, the recovery at the start of the next, collisions and falls. Headless rules over the
//! creature components, which the game and the AI fly through.

use bevy::prelude::*;

use super::route::{Flier, FlightStep, Obstacle, fly};
use super::{AdvancedManeuver, Impact, collision_dice, fly_check_modifier, takeoff_is_free, takeoff_jump_dc};
use crate::rules::attack::AttackIntent;
use crate::rules::attack::Damage;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::roll_check;
use crate::rules::core::checks::{Save, roll_save};
use crate::rules::core::creature::*;
use crate::rules::core::creature::{Riders, Riding, Seat};
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::{Fact, refuse};
use crate::rules::core::geometry::{Direction, Footprint};
use crate::rules::core::kept::kept;
use crate::rules::core::names::Action;
use crate::rules::core::names::Check;
use crate::rules::core::names::SpeedStatus;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::health::falls::FallOutput;
use crate::rules::mounted::share_collision;
use crate::rules::movement::walls_in_the_way;
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// Altitude steps of `m` metres at normal scale.
fn steps_of(m: f32) -> i32 {
    (m / 1.5).round() as i32
}

/// The squares « flown since its last manoeuvre » of a flier setting off afresh, just recovered from a fall
/// (« elle décide de nouveau de son statut et de son cap », 004:763), just off the ground (004:671), or in
/// the air as the fight begins (our ruling: no manoeuvre of before the fight holds its first one): more
/// than any manoeuvre factor, so that nothing it did before holds its first manoeuvre.
pub const SETTING_OFF_AFRESH: u32 = 1_000;

/// A flier's state between its moves.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Flight {
    /// Squares flown since its last turn or slip (004:745).
    pub since_maneuver: u32,
    /// The status its flight gave it this turn, if it flew.
    pub flown: Option<SpeedStatus>,
    /// It took off this turn: it stays up without flying on (004:657).
    pub took_off: bool,
    /// In free fall: it must recover at the start of its turn (004:697, 004:763).
    pub falling: bool,
    /// It already fell this round (a failed recovery), so the end of its turn drops it no further.
    pub fell: bool,
    /// Metres it flew in its last flight, its speed until its next turn (collisions, 004:827); 0 when it
    /// hovered or did not fly.
    pub speed_m: f32,
    /// Its last flight was a hover: passing from flying to hovering, or back, costs a move action (004:708).
    pub hovering: bool,
    /// The altitude its flight this turn began at: a stall it does not land from crashes from there (004:670,
    /// 004:700).
    pub flight_from: i32,
    /// Its `since_maneuver` counts from a turn, a slip or a wingover: a climb or a dive waits for the factor
    /// too (004:745).
    pub after_turn: bool,
    /// It has just recovered from a fall (004:763) or taken off (004:671) and has not flown since: its
    /// flight may begin by choosing its heading anew.
    pub heading_free: bool,
    /// It recovered from a fall at the start of this turn: an advanced manoeuvre, two of the turn's
    /// manoeuvres spent (004:750, 004:763).
    pub recovered: bool,
}

/// Asks a flier to fly.
#[derive(Message, Clone, Debug)]
pub struct FlyIntent {
    /// The flier.
    pub creature: Entity,
    /// Its flight.
    pub steps: Vec<FlightStep>,
    /// Hover (good or perfect manoeuvrability, or the Hover feat).
    pub hover: bool,
    /// A dive attack on this creature at the end of the flight (004:753): a full-round action.
    pub dive_at: Option<Entity>,
    /// A charge at this creature (004:451-459, 004:693): the flight straight at it, a full-round action,
    /// its one melee attack at +2 at the end.
    pub charge_at: Option<Entity>,
    /// A flyby attack (004:755-757): this creature struck, with the standard action, after this many steps.
    pub flyby: Option<(Entity, usize)>,
    /// A deceleration (004:760-762): under half its speed yet slow rather than stalled, with a fly check.
    pub decelerate: bool,
    /// The flyby attack is a swoop (004:751-752): down 6 m before it, the claw for double damage, DC 20.
    pub swoop: bool,
    /// At chase scale, a collision with this flier, whose square the flight enters in its band: a fly check,
    /// DC 15; made, the flight ends there against it; failed, the flier misses it and flies on (004:759).
    pub ram: Option<Entity>,
    /// A Bluff against this pursuer just before the flight turns into a cloud or dives away (004:818):
    /// against its Sense Motive; won, the pursuer's fly checks to turn are at -5 until its next turn ends.
    pub bluff: Option<Entity>,
}

/// The end of a flight broken by a flyby attack: the flier goes on there once the attack is done.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct FlybyRemainder {
    /// The squares it leaves on its way there, for the attacks of opportunity they provoke (004:65).
    pub legs: Vec<Leg>,
    /// Where the flight ends.
    pub square: crate::rules::core::geometry::Square,
    /// At what height.
    pub altitude: i32,
    /// Facing.
    pub heading: Direction,
}

/// Asks a creature to take off, `extra_m` higher than its space with a Jump check (004:657-668).
#[derive(Message, Clone, Copy, Debug)]
pub struct TakeOffIntent {
    /// The flier.
    pub creature: Entity,
    /// Metres above its space to try for (0: its space).
    pub extra_m: f32,
}

/// Asks a flier to land (004:669-670).
#[derive(Message, Clone, Copy, Debug)]
pub struct LandIntent {
    /// The flier.
    pub creature: Entity,
}

/// The falls at the end and the start of turns.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FallSystems;

/// Flying, among the actions: after total defence, before the ground movement.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AerialSystems;

/// Flight.
pub fn plugin(app: &mut App) {
    app.add_message::<FlyIntent>().add_message::<TakeOffIntent>().add_message::<LandIntent>();
    app.configure_sets(
        Rules,
        AerialSystems
            .in_set(RulesSystems::Act)
            .after(crate::rules::attack::take_total_defense)
            .after(crate::rules::attack::hiding::hide_on_foot)
            .before(crate::rules::mounted::RidingSystems)
            .before(crate::rules::turns::moving::MovementSystems),
    );
    app.configure_sets(Rules, FallSystems.before(crate::rules::mounted::FallenRiderSystems));
    app.init_resource::<FlownLegs>();
    app.add_systems(
        Rules,
        (finish_flybys, take_off, fly_creatures, run_at_top_speed, strike_the_fliers, land)
            .chain()
            .in_set(AerialSystems),
    );
    app.add_systems(
        Rules,
        (end_of_turn_falls, start_of_turn_recovery)
            .chain()
            .in_set(RulesSystems::Turns)
            .in_set(FallSystems)
            .after(crate::rules::opportunity::refresh_reactions),
    );
}

/// A flight at top speed is the run action (004:694 « Action de course », 004:707 « a recours à l'action de
/// course »): the flier loses its Dex bonus to AC as a runner does (004:248) until its next turn.
fn run_at_top_speed(
    mut facts: MessageReader<Fact>,
    mut changes: MessageWriter<crate::rules::core::creature::ConditionChange>,
    fliers: Query<(Entity, &CreatureId, &Conditions)>,
) {
    for fact in facts.read() {
        if let Fact::Flew { creature, status: SpeedStatus::TopSpeed, .. } = fact
            && let Some((entity, ..)) =
                fliers.iter().find(|(_, id, conditions)| *id == creature && !conditions.has(Condition::Running))
        {
            changes.write(crate::rules::core::creature::ConditionChange {
                creature: entity,
                condition: Condition::Running,
                gained: true,
            });
        }
    }
}

/// What losing a pursuer asks of a flight (004:816-818): the skills, the mount ridden, a Bluff suffered,
/// a Hide made.
type Pursuit<'w, 's> = Query<
    'w,
    's,
    (
        &'static Skills,
        Option<&'static Riding>,
        Option<&'static crate::rules::core::creature::Misled>,
        Option<&'static crate::rules::core::creature::Hidden>,
    ),
>;

/// The other creatures, as a flight meets them.
type Others<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static Position,
        &'static Space,
        &'static Altitude,
        &'static Heading,
        &'static Size,
        Option<&'static Flight>,
        Option<&'static Riders>,
        (&'static Faction, &'static Conditions, &'static Traits),
    ),
    (With<Creature>, Without<Riding>),
>;

/// Another creature in the air or on the ground, as a flight meets it: where its body is, how fast it flew
/// (a collision's speed), and who rides it.
#[derive(Clone, Debug)]
struct Traffic {
    entity: Entity,
    id: String,
    footprint: Footprint,
    altitude: i32,
    heading: Direction,
    size: Size,
    /// Metres it flew this round: its speed for a collision.
    speed_m: f32,
    /// Those on its back, who share a collision (004:852).
    riders: Vec<Entity>,
    /// How a flight may pass through its space, as a move does (004:656, 000:66-75).
    passage: Passage,
}

/// How a mover may pass through another creature's space (« Passer sans s'arrêter », 000:66-75): a foe's it
/// may not; an ally's it may cross but not stop in, nor cross charging; a helpless creature's it crosses and
/// may stop in (one whose body is an obstacle even so doubles a walker's squares, 000:72-73, which a flight's
/// distance does not count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passage {
    /// A foe able to act.
    Blocks,
    /// An ally: crossed, but not charging, and not stopped in.
    Crossed,
    /// A helpless creature: crossed and stopped in.
    Open,
}

impl Passage {
    /// How a mover of `mover_faction` and `mover_size` may pass a creature of `faction` in `conditions`,
    /// with `traits`, of `size`, as a walker passes it (`StepWorld::enter_among`): never one that fills its
    /// space (000:89-90); an ally, or a foe three sizes apart or more, is crossed (000:86-88). A flier
    /// smaller than a square neither stops in another's square by its share of it (000:148-151) nor goes
    /// into a foe's (a walker does, provoking, 000:152-156): not yet.
    pub fn of(
        (mover_faction, mover_size): (&Faction, Size),
        ((faction, conditions, traits), size): ((&Faction, &Conditions, &Traits), Size),
    ) -> Self {
        // « Il est impossible de traverser l'espace d'une créature qui emplit totalement l'espace » (000:89-90).
        if traits.fills_space {
            Passage::Blocks
        } else if conditions.is_helpless() {
            Passage::Open
        } else if faction == mover_faction || mover_size.steps_to(size).abs() >= 3 {
            Passage::Crossed
        } else {
            Passage::Blocks
        }
    }
}

/// What flying needs of a creature.
type Fliers<'w, 's> = Query<
    'w,
    's,
    (
        &'static CreatureId,
        &'static mut Position,
        &'static mut Altitude,
        &'static mut Heading,
        &'static Space,
        &'static Speed,
        &'static Abilities,
        &'static Skills,
        &'static Conditions,
        &'static mut ActionBudget,
        Option<&'static mut Flight>,
        (
            &'static Armament,
            &'static Reach,
            &'static Feats,
            Has<Riding>,
            Option<&'static Riders>,
            &'static mut crate::rules::turns::moving::Exertion,
            &'static Size,
            (&'static Encumbrance, &'static Traits, &'static SpeedModifiers),
        ),
    ),
    With<Creature>,
>;

/// Those on a flier's back, as its flight needs them: who directs it, what each has left of its turn.
type OnItsBack<'w, 's> = Query<
    'w,
    's,
    (
        &'static CreatureId,
        &'static Seat,
        &'static Conditions,
        &'static ActionBudget,
        &'static Skills,
        &'static Feats,
        &'static Abilities,
    ),
>;

/// A directing rider's Ride, untrained its Dex modifier (`checks::skill`), with the Dex its conditions leave
/// it: what it checks in place of its flier's Dex when better (004:734, 004:811).
fn rider_ride(skills: &Skills, abilities: &Abilities, conditions: &Conditions) -> i32 {
    dex_skill(skills.ride, abilities, conditions)
}

/// A creature where it is, at its height: what a take-off may not rise into.
#[derive(Clone, Debug)]
pub struct Aloft {
    /// Who.
    pub id: CreatureId,
    /// Its space.
    pub space: Footprint,
    /// Its altitude in steps.
    pub height: i32,
    /// Its size.
    pub size: Size,
}

/// Who of `others` stands or flies where a creature of `size` at `height` in `at` would be: at normal scale
/// one whose body its own would overlap (no two creatures in one space at one height, 004:647-649, bodies
/// counting as for a flight, [`heights_overlap`]); at chase scale, where creatures share squares, a
/// Colossal one in its square and band, or any when it is Colossal itself (004:651). A take-off does not
/// rise into it.
pub fn taken_at(
    scale: crate::rules::core::altitude::Scale,
    others: &[Aloft],
    (at, height, size): (Footprint, i32, Size),
) -> Option<CreatureId> {
    others
        .iter()
        .find(|o| {
            o.space.overlaps(at)
                && match scale {
                    crate::rules::core::altitude::Scale::Normal => {
                        heights_overlap(scale, (height, size), (o.height, o.size))
                    }
                    crate::rules::core::altitude::Scale::Chase => {
                        o.height == height && !crate::rules::core::altitude::share_a_chase_square(size, o.size)
                    }
                }
        })
        .map(|o| o.id.clone())
}

/// The creatures other than `creature` and those riding, where they are: what [`taken_at`] is asked about.
pub fn aloft_but(world: &mut World, creature: Entity) -> Vec<Aloft> {
    let mut q = kept::<(Entity, &CreatureId, &Position, &Space, &Altitude, &Size, Has<Riding>), With<Creature>>(world);
    q.iter(world)
        .filter(|(e, .., rides)| *e != creature && !rides)
        .map(|(_, id, p, s, a, size, _)| Aloft { id: id.clone(), space: s.at(p.0), height: a.0, size: *size })
        .collect()
}

/// Takes off: a move action (free for a perfect flier) to an altitude equal to its space, or higher with
/// a Jump check (004:657-668), never into a space another creature holds at that height (004:647-649).
#[expect(clippy::too_many_lines, reason = "the take-off's checks in the text's order, then the rise and its Jump")]
fn take_off(
    mut commands: Commands,
    mut intents: MessageReader<TakeOffIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut queries: ParamSet<(Fliers<'_, '_>, OnItsBack<'_, '_>)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        // Those on its back ride a flier from now on: each spends a move action (004:807).
        let on_its_back: Vec<Entity> =
            queries.p0().get(intent.creature).ok().and_then(|c| c.11.4).map(|r| r.all().to_vec()).unwrap_or_default();
        let back = queries.p1();
        let (able_riders, riding_paid) = riders_to_pay(&on_its_back, &back);
        let me = queries.p0().get(intent.creature).map(|c| c.0.clone()).ok();
        let others: Vec<Aloft> = queries
            .p0()
            .iter()
            .filter(|c| Some(c.0) != me.as_ref() && !c.11.3)
            .map(|c| Aloft { id: c.0.clone(), space: c.4.at(c.1.0), height: c.2.0, size: *c.11.6 })
            .collect();
        let my_size = queries.p0().get(intent.creature).map_or(Size::Medium, |c| *c.11.6);
        let taken = |at: Footprint, height: i32| taken_at(field.scale(), &others, (at, height, my_size));
        let mut fliers = queries.p0();
        let Ok((
            id,
            position,
            mut altitude,
            _,
            space,
            speed,
            abilities,
            skills,
            conditions,
            mut budget,
            flight,
            (_, _, _, rides, _, _, _, (encumbrance, traits, modifiers)),
        )) = fliers.get_mut(intent.creature)
        else {
            continue;
        };
        if rides {
            refuse(
                &mut facts,
                id,
                Action::TakeOff,
                Refusal::new(format!("{id} rides: its mount flies, not it"), "004:807"),
            );
            continue;
        }
        let Some(wings) = speed.fly else {
            refuse(&mut facts, id, Action::TakeOff, Refusal::new(format!("{id} cannot fly"), "004:657"));
            continue;
        };
        let free = takeoff_is_free(wings.maneuverability);
        let checked =
            order
                .check_turn(intent.creature)
                .and_then(|()| crate::rules::core::creature::able_to_act(conditions))
                .and_then(|()| crate::rules::core::creature::on_its_feet(conditions))
                .and_then(|()| {
                    if altitude.0 > 0 { Err(Refusal::new("it is already in the air", "004:657")) } else { Ok(()) }
                })
                .and_then(|()| match taken(space.at(position.0), space.width.max(1)) {
                    Some(other) => Err(Refusal::new(format!("{other} flies in the space above it"), "004:647-649")),
                    None => Ok(()),
                })
                .and(riding_paid)
                // Rising into the air is movement: not in a round with a 5-foot step (004:259).
                .and_then(|()| budget.check_movement())
                .and_then(|()| if free { Ok(()) } else { budget.spend(ActionKind::Move) });
        if let Err(refusal) = checked {
            refuse(&mut facts, id, Action::TakeOff, refusal);
            continue;
        }
        let space_steps = space.width.max(1);
        let mut reached = space_steps;
        if intent.extra_m > 0.0 && field.scale() == crate::rules::core::altitude::Scale::Chase {
            refuse(
                &mut facts,
                id,
                Action::TakeOff,
                Refusal::new(
                    "at chase scale a take-off reaches the lowest band; it climbs from there",
                    "004:657, 004:788",
                ),
            );
        } else if intent.extra_m > 0.0 {
            match takeoff_jump_dc(intent.extra_m) {
                Some(dc) => {
                    let bonus =
                        super::takeoff_jump_bonus(skills, abilities, (speed, modifiers), (*encumbrance, traits));
                    let reason = format!("taking off {} m above its space (004:659-668)", intent.extra_m);
                    let total = crate::rules::core::checks::roll_check_total(
                        &mut dice,
                        &mut facts,
                        id,
                        Check::Jump,
                        reason,
                        bonus,
                        dc as i32,
                    );
                    // The table read by the result: the highest row its total reaches, up to the height it
                    // tried for (004:661-668); below DC 20's row, its space.
                    let extra = (0..=steps_of(intent.extra_m))
                        .rev()
                        .find(|s| takeoff_jump_dc(*s as f32 * 1.5).is_some_and(|dc| total >= dc as i32))
                        .unwrap_or(0);
                    let higher = reached + extra;
                    if extra > 0 && taken(space.at(position.0), higher).is_none() {
                        reached = higher;
                    }
                }
                None => refuse(
                    &mut facts,
                    id,
                    Action::TakeOff,
                    Refusal::new("no Jump takes off more than 9 m above its space; it rises to its space", "004:668"),
                ),
            }
        }
        altitude.0 = reached;
        budget.movement = crate::rules::turns::MovementMade::Moved;
        facts.write(Fact::TookOff { creature: id.clone(), altitude_m: field.scale().height_m(reached) });
        pay_for_riding(&mut commands, able_riders, None);
        match flight {
            Some(mut f) => {
                f.took_off = true;
                f.falling = false;
                f.heading_free = true;
                f.since_maneuver = SETTING_OFF_AFRESH;
                f.after_turn = false;
            }
            None => {
                let fresh =
                    Flight { took_off: true, heading_free: true, since_maneuver: SETTING_OFF_AFRESH, ..default() };
                commands.entity(intent.creature).insert(fresh);
            }
        }
    }
}

/// Those on a flier's back who can act, and whether each still has the move action riding it takes
/// (004:807).
fn riders_to_pay(on_its_back: &[Entity], back: &OnItsBack<'_, '_>) -> (Vec<Entity>, Result<(), Refusal>) {
    let able: Vec<Entity> = on_its_back.iter().copied().filter(|r| back.get(*r).is_ok_and(|b| b.2.can_act())).collect();
    let paid = able.iter().try_for_each(|r| {
        let Ok((rider, _, _, left, ..)) = back.get(*r) else { return Ok(()) };
        left.check(ActionKind::Move).map_err(|_| {
            Refusal::new(format!("{rider} has no move action left to ride it: riding a flier takes one"), "004:807")
        })
    });
    (able, paid)
}

/// Those on a flier's back spend a move action riding it, and take no full-round action this turn (004:807,
/// 004:824): checked before the flight, paid once it is flown. The rider that directs a flight beyond the
/// mount's speed (`faster`) spends its second move action too (see [`faster_than_its_speed`]).
fn pay_for_riding(commands: &mut Commands, riders: Vec<Entity>, faster: Option<Entity>) {
    if riders.is_empty() {
        return;
    }
    commands.queue(move |world: &mut World| {
        for rider in riders {
            if let Some(mut left) = world.get_mut::<ActionBudget>(rider) {
                let _ = left.spend(ActionKind::Move);
                if faster == Some(rider) {
                    let _ = left.spend(ActionKind::Move);
                }
                left.riding = true;
            }
        }
    });
}

/// Whether a flight at `status` goes beyond its mount's speed: « Lors de cette action, le cavalier fait
/// progresser la monture d'un nombre de cases maximal égal à sa vitesse de déplacement » (004:807, 004:810);
/// a fast flight or top speed takes the directing rider's second move action, its standard action (our
/// ruling, as the mount's own fast flight takes its two move actions, 004:693-694).
fn faster_than_its_speed(status: SpeedStatus) -> bool {
    matches!(status, SpeedStatus::Fast | SpeedStatus::TopSpeed)
}

/// What a flight writes as it goes: the dice it rolls and the facts, damage, attacks and components it
/// leaves.
struct FlightOutput<'a, 'c, 's, 'f, 'd> {
    commands: &'a mut Commands<'c, 's>,
    dice: &'a mut Dice,
    facts: &'a mut MessageWriter<'f, Fact>,
    damage: &'a mut MessageWriter<'d, Damage>,
    /// The attacks it makes on its way or at its end (a flyby, a dive), written once the attacks of
    /// opportunity of its way have not dropped it.
    attacks: &'a mut Vec<AttackIntent>,
}

/// The rider that directs a flier, if one can (004:806-812): its entity, its Ride (which may stand for the
/// fly check), whether it has Flyby Attack, whether its standard action is left, and whether it has two
/// move actions left (a flight beyond the mount's speed takes both, 004:807).
type Director = (Entity, Option<i32>, bool, bool, bool);

/// What a flight is checked against before it is flown.
struct FlightCheck<'a> {
    order: &'a TurnOrder,
    field: &'a Battlefield,
    intent: &'a FlyIntent,
    altitude: i32,
    conditions: &'a Conditions,
    riding_paid: Result<(), Refusal>,
    director: Option<Director>,
    state: Flight,
    wings: FlySpeed,
    budget: ActionBudget,
    bodies: &'a [Traffic],
    pursuit: &'a Pursuit<'a, 'a>,
    bluffed: Option<(Entity, Entity)>,
    /// The round it rests until, after a run it could not keep up (004:249), if it rests now.
    resting_until: Option<u32>,
    /// It has the Flyby Attack feat (004:756-757).
    flyby_feat: bool,
}

/// Flies: the flight is checked, its fly checks rolled, then the flier is where it ends, with the status
/// its distance gives; a collision ends it against the creature it ran into.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
#[expect(
    clippy::too_many_lines,
    reason = "a flight in the order the text gives: the checks, the Bluff, the fly checks, the manoeuvres on the way, the end, the dive and the collision"
)]
pub(super) fn fly_creatures(
    mut commands: Commands,
    mut intents: MessageReader<FlyIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut queries: ParamSet<(
        Others<'_, '_>,
        Fliers<'_, '_>,
        OnItsBack<'_, '_>,
        Query<crate::rules::turns::moving::MoverView>,
    )>,
    saves: Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    pursuit: Pursuit,
    mut legs_flown: ResMut<FlownLegs>,
) {
    for intent in intents.read() {
        let (bodies, my_size, on_its_back) = traffic_around(&queries.p0(), intent.creature);
        // A charge needs its foe in sight as the turn begins (004:454), as on the ground: to its rider, if any.
        let charge_sight = intent.charge_at.map(|foe| {
            let views = queries.p3();
            match (views.get(intent.creature), views.get(foe)) {
                (Ok(me), Ok(foe)) => {
                    let rider = me.riders.and_then(|r| r.all().first()).and_then(|r| views.get(*r).ok());
                    crate::rules::turns::moving::sees_to_charge(&field, rider.as_ref().unwrap_or(&me), &foe)
                }
                _ => Ok(()),
            }
        });
        let back = queries.p2();
        let (able_riders, riding_paid) = riders_to_pay(&on_its_back, &back);
        let director = director_of(&on_its_back, &back);
        let mut fliers = queries.p1();
        let Ok((
            id,
            mut position,
            mut altitude,
            mut heading,
            space,
            speed,
            abilities,
            _,
            conditions,
            mut budget,
            flight,
            (armament, reach, feats, rides, _, mut exertion, _, (encumbrance, traits, _)),
        )) = fliers.get_mut(intent.creature)
        else {
            continue;
        };
        if rides {
            refuse(
                &mut facts,
                id,
                Action::Fly,
                Refusal::new(format!("{id} rides: its mount flies, not it"), "004:807"),
            );
            continue;
        }
        let state = flight.as_deref().copied().unwrap_or_default();
        // A Bluff's pursuer, and the flier it chases on: itself, or the mount it rides (004:816-818).
        let bluffed = intent.bluff.map(|p| (p, pursuit.get(p).ok().and_then(|q| q.1).map_or(p, |r| r.0)));
        let Some(wings) = crate::rules::core::creature::fly_speed(speed, *encumbrance, traits) else {
            refuse(&mut facts, id, Action::Fly, Refusal::new(format!("{id} cannot fly"), "004:655"));
            continue;
        };
        let flier = Flier {
            at: space.at(position.0),
            altitude: altitude.0,
            heading: heading.0,
            speed_m: wings.squares as f32 * 1.5,
            maneuverability: wings.maneuverability,
            hover_feat: feats.has(Feat::Hover),
            since_maneuver: state.since_maneuver,
            scale: field.scale(),
            diagonals: field.diagonals(),
            odd_diagonal: budget.odd_diagonal,
            attack_descent: intent.dive_at.is_some() || intent.swoop,
            heading_free: state.heading_free,
            after_turn: state.after_turn,
            decelerating: intent.decelerate,
            maneuvers_spent: if state.recovered { super::ADVANCED_MANEUVER_COST } else { 0 },
            check_bonus: crate::rules::mounted::fly_check_bonus(
                ability_modifier(abilities_in_play(abilities, conditions).dex),
                0,
                director.and_then(|d| d.1),
            )
            .0,
        };
        let obstacle =
            |from: Footprint, at: Footprint, alt: i32| obstacle_at(&field, &bodies, my_size, (from, at), alt);
        // The flight as planned, every check a success: its status and whether the rules allow it.
        let planned = fly(&flier, &intent.steps, intent.hover, |_, _| true, obstacle);
        let check = FlightCheck {
            order: &order,
            field: &field,
            intent,
            altitude: altitude.0,
            conditions,
            riding_paid,
            director,
            state,
            wings,
            budget: *budget,
            bodies: &bodies,
            pursuit: &pursuit,
            bluffed,
            resting_until: exertion.resting_until.filter(|until| order.round < *until),
            flyby_feat: feats.has(Feat::FlybyAttack),
        };
        let (plan, spent_budget) = match check_flight(&check, planned) {
            Ok(ok) => ok,
            Err(refusal) => {
                refuse(&mut facts, id, Action::Fly, refusal);
                continue;
            }
        };
        // It crosses an ally's space but does not stop in it (000:74-75).
        let ends_at = plan.waypoints.last().map(|w| (Footprint::rect(w.square, space.width, space.height), w.altitude));
        if let Some(ally) = ends_at.and_then(|end| stopped_in(field.scale(), &bodies, my_size, end)) {
            let who = &ally.id;
            refuse(&mut facts, id, Action::Fly, Refusal::new(format!("it cannot stop in {who}'s space"), "000:74-75"));
            continue;
        }
        // A charge flies straight at its foe and ends where it first threatens it (004:451-459, 004:693).
        if let Some(target) = intent.charge_at
            && let Err(refusal) = charge_sight.unwrap_or(Ok(())).and_then(|()| {
                check_flying_charge(
                    (&field, intent, conditions, (budget.restricted, director.is_some())),
                    (
                        space.at(position.0),
                        altitude.0,
                        my_size,
                        reach.0,
                        wings.maneuverability == Maneuverability::Perfect,
                    ),
                    (&plan, armament),
                    (bodies.iter().find(|b| b.entity == target), &bodies),
                )
            })
        {
            refuse(&mut facts, id, Action::Charge, refusal);
            continue;
        }
        // Top speed is the run action (004:694, 004:707): the run's Constitution check and rest (004:249).
        if plan.status == SpeedStatus::TopSpeed
            && let Err(refusal) = crate::rules::turns::moving::keep_running(
                &mut exertion,
                (order.round, abilities.con),
                id,
                (&mut *dice, &mut facts),
            )
        {
            refuse(&mut facts, id, Action::Fly, refusal);
            continue;
        }
        *budget = spent_budget;
        if let Some((rider, ..)) = director {
            pay_for_riding(&mut commands, able_riders.clone(), faster_than_its_speed(plan.status).then_some(rider));
        }
        // Now the real flight, with its fly checks (004:734-743), the rider's Ride standing for them when
        // better (004:734, 004:811).
        let (bonus, by) = crate::rules::mounted::fly_check_bonus(
            ability_modifier(abilities_in_play(abilities, conditions).dex),
            fly_check_modifier(wings.maneuverability, plan.row),
            director.and_then(|d| d.1),
        );
        let by = if director.is_some() { format!(", {by}") } else { String::new() };
        let mut attacks: Vec<AttackIntent> = Vec::new();
        let mut out = FlightOutput {
            commands: &mut commands,
            dice: &mut dice,
            facts: &mut facts,
            damage: &mut damage,
            attacks: &mut attacks,
        };
        // A Bluff just before the turn into the cloud or the dive (004:818): the rider bluffs for its mount.
        if let Some((pursuer, chasing)) = bluffed {
            let bluffer = director.map_or(intent.creature, |d| d.0);
            bluff_pursuer(&mut out, &saves, &pursuit, id, (bluffer, pursuer, chasing));
        }
        // A pursuer misled by a Bluff turns after its quarry at -5 (004:818).
        let misled = pursuit.get(intent.creature).ok().and_then(|p| p.2).map(|m| m.by.clone());
        let flown =
            fly_with_checks(&mut out, id, (&flier, &intent.steps, intent.hover), (bonus, &by), misled, obstacle);
        let mut flight_done = match flown {
            Ok(f) => f,
            Err(refusal) => {
                // A failed manoeuvre sent it where it cannot go: it stops where it is, against the wall, and
                // it did fly this turn.
                out.facts.write(Fact::ActionInterrupted {
                    creature: id.clone(),
                    action: Action::Fly,
                    reason: format!("{} ({})", refusal.reason, refusal.rule),
                });
                let after = Flight {
                    flown: Some(plan.status),
                    since_maneuver: 0,
                    heading_free: false,
                    after_turn: true,
                    ..state
                };
                match flight {
                    Some(mut f) => *f = after,
                    None => {
                        out.commands.entity(intent.creature).insert(after);
                    }
                }
                continue;
            }
        };
        // A failed manoeuvre that sends it on into an ally's space, where it may not stop (000:74-75), ends in
        // a collision with that ally (004:825), as the route meets a foe.
        crash_into_an_ally(&mut flight_done, &bodies, (field.scale(), my_size), space.at(position.0));
        if let Some(target) = intent.ram
            && let Some(foe) = bodies.iter().find(|b| b.entity == target)
        {
            ram(&mut out, id, foe, &mut flight_done, (bonus, &by));
        }
        // The diagonals' 1-2-1-2 count goes on into the turn's later movement (004:712).
        budget.odd_diagonal = flight_done.odd_diagonal;
        budget.movement = crate::rules::turns::MovementMade::Moved;
        let from = position.0;
        let altitude_before = altitude.0;
        // After a failed advanced manoeuvre « ne peut tenter de nouvelle manouvre avancée pour le tour »
        // (004:750): no deceleration, flyby or dive attack after it.
        let mut open = flight_done.checks.iter().all(|c| c.success);
        // What the failed manoeuvre closes is lost with the flight under way: an interruption, not a refusal.
        let closed = |reason: &str, out: &mut FlightOutput<'_, '_, '_, '_, '_>| {
            out.facts.write(Fact::ActionInterrupted {
                creature: id.clone(),
                action: Action::Fly,
                reason: format!("{reason} (004:750)"),
            });
        };
        // A deceleration: made (DC 15), the flier is slow, not stalled; failed, it stalls (004:760-762).
        let mut status = flight_done.status;
        if intent.decelerate && !open {
            closed("no deceleration after a failed advanced manoeuvre this turn", &mut out);
        } else if intent.decelerate {
            let dc = AdvancedManeuver::Deceleration.dc().unwrap_or(15);
            if roll_check(out.dice, out.facts, id, Check::Fly, format!("deceleration (004:760){by}"), bonus, dc) {
                status = SpeedStatus::Slow;
            } else {
                open = false;
            }
        }
        if !open && intent.flyby.is_some() {
            closed("no flyby attack after a failed advanced manoeuvre this turn", &mut out);
        }
        let broken_at = match intent.flyby.filter(|_| open) {
            Some(flyby) => {
                let striker = director.map_or(intent.creature, |d| d.0);
                let feat = (feats.has(Feat::FlybyAttack) || director.is_some()) && !intent.swoop;
                strike_on_the_way(
                    &mut out,
                    id,
                    intent,
                    (flyby, striker, feat),
                    &flight_done,
                    armament,
                    &mut budget,
                    (bonus, &by),
                )
            }
            None => None,
        };
        let scale = field.scale();
        // The squares it left on its way, for the attacks of opportunity they provoke (004:65, 004:656); at
        // chase scale nobody threatens (docs/rulings.md).
        // Broken by a flyby attack, the legs after it are flown once the attack is done.
        let mut legs = if scale == crate::rules::core::altitude::Scale::Normal {
            legs_of(space.at(from), altitude_before, &flight_done.waypoints, None)
        } else {
            Vec::new()
        };
        let rest = match broken_at {
            Some(stop) if !legs.is_empty() => {
                legs.split_off(legs_of(space.at(from), altitude_before, &flight_done.waypoints, Some(stop.step)).len())
            }
            _ => Vec::new(),
        };
        let placed = Placed { status, broken_at, rest, from, altitude_before, hovering: intent.hover, state };
        end_flight(
            &mut out,
            (intent.creature, id),
            (&mut position, &mut altitude, &mut heading),
            flight,
            &flight_done,
            placed,
            scale,
        );
        let square_m = scale.square_m();
        if !open && intent.dive_at.is_some() {
            closed("no dive attack after a failed advanced manoeuvre this turn", &mut out);
        }
        if let Some(target) = intent.dive_at.filter(|_| open)
            && flight_done.collision.is_none()
            && let Some(foe) = bodies.iter().find(|b| b.entity == target)
        {
            let striker = Striker {
                at: space.at(position.0),
                altitude: altitude.0,
                size: my_size,
                reach: reach.0,
                diagonals: field.diagonals(),
            };
            dive_attack(&mut out, id, intent.creature, foe, striker, armament, (scale, bonus, &by));
        }
        // A collision (004:825-852): both take the damage of the higher speed and the smaller size, times
        // the impact; the creature struck saves for half. Its speed is the round's, the distance declared
        // (004:686, 004:827 « qui se déplace à la vitesse de 45 mètres par round »), not the part flown
        // before the impact. Made once the attacks of opportunity of its way have not dropped it (004:70).
        let my_speed = flight_done.declared.max(flight_done.spent) as f32 * square_m;
        let me = (intent.creature, id.clone(), heading.0, my_size, on_its_back.clone());
        let mut impacts = Vec::new();
        if let Some((_, struck_id)) = &flight_done.collision
            && let Some(struck) = bodies.iter().find(|b| b.id == *struck_id)
        {
            impacts.push(Collision { me: me.clone(), my_speed, into: Some(struck.clone()) });
        }
        if let Some((step, struck)) = flight_done.wall {
            let step = step + 1;
            let reason = if struck {
                format!("step {step}: a failed manoeuvre sent it into the wall, which it strikes (004:750, 004:825)")
            } else {
                format!("step {step}: a failed manoeuvre sent it to the edge of the map, where it stops (004:750)")
            };
            out.facts.write(Fact::ActionInterrupted { creature: id.clone(), action: Action::Fly, reason });
        }
        if flight_done.wall.is_some_and(|(_, struck)| struck) {
            impacts.push(Collision { me, my_speed, into: None });
        }
        let charge = intent.charge_at.map(|target| crate::rules::turns::moving::ChargeEnded {
            charger: intent.creature,
            target,
            finish: crate::rules::turns::moving::ChargeFinish::Attack,
            weapon: None,
        });
        legs_flown.0.push(Flown { flier: intent.creature, legs, attacks, impacts, charge });
    }
}

/// What a flight leaves the flier with, besides where its route ends.
struct Placed {
    /// The status it flew at, a deceleration counted.
    status: SpeedStatus,
    /// Where it stopped to strike a flyby attack, if it did: it waits there until its attack is made.
    broken_at: Option<super::route::Waypoint>,
    /// The legs of its route after that stop.
    rest: Vec<Leg>,
    /// Where it started.
    from: crate::rules::core::geometry::Square,
    /// Its altitude before.
    altitude_before: i32,
    /// It hovered.
    hovering: bool,
    /// Its flight state before.
    state: Flight,
}

/// Puts the flier where its flight ends and writes the flight; a flier that struck a flyby attack on the
/// way waits where it struck, the rest of its route kept for after the attack; its flight state is the
/// status it flew at, its speed the metres it flew (004:827), none when it hovered.
fn end_flight(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    (entity, id): (Entity, &CreatureId),
    (position, altitude, heading): (&mut Position, &mut Altitude, &mut Heading),
    flight: Option<Mut<'_, Flight>>,
    flight_done: &super::route::Flight,
    placed: Placed,
    scale: crate::rules::core::altitude::Scale,
) {
    let Placed { status, broken_at, rest, from, altitude_before, hovering, state } = placed;
    if let Some(last) = flight_done.waypoints.last() {
        position.0 = last.square;
        altitude.0 = last.altitude;
        heading.0 = last.heading;
    }
    out.facts.write(Fact::Flew {
        creature: id.clone(),
        from,
        to: position.0,
        altitude_m: scale.height_m(altitude.0),
        climbed_m: scale.height_m(altitude.0) - scale.height_m(altitude_before),
        band: (scale == crate::rules::core::altitude::Scale::Chase).then_some(altitude.0),
        heading: heading.0,
        spent: flight_done.spent,
        status,
        maneuvers: flight_done.maneuvers,
    });
    if let (Some(stop), Some(last)) = (broken_at, flight_done.waypoints.last()) {
        out.commands.entity(entity).insert(FlybyRemainder {
            legs: rest,
            square: last.square,
            altitude: last.altitude,
            heading: last.heading,
        });
        position.0 = stop.square;
        altitude.0 = stop.altitude;
        heading.0 = stop.heading;
    }
    let square_m = scale.square_m();
    // Its speed for the round: the distance declared (004:686, 004:827), even when a collision cut it short.
    let speed_m =
        if status == SpeedStatus::Hover { 0.0 } else { flight_done.declared.max(flight_done.spent) as f32 * square_m };
    let after = Flight {
        since_maneuver: flight_done.since_maneuver,
        after_turn: flight_done.after_turn,
        flown: Some(status),
        speed_m,
        hovering,
        flight_from: altitude_before,
        heading_free: false,
        ..state
    };
    if hovering {
        out.commands.entity(entity).insert(crate::rules::core::creature::Hovering);
    } else {
        out.commands.entity(entity).remove::<crate::rules::core::creature::Hovering>();
    }
    match flight {
        Some(mut f) => *f = after,
        None => {
            out.commands.entity(entity).insert(after);
        }
    }
}

/// The other creatures as a flight meets them, by id; the flier's size, and those on its back.
fn traffic_around(others: &Others<'_, '_>, creature: Entity) -> (Vec<Traffic>, Size, Vec<Entity>) {
    let mine = others.get(creature).map(|o| o.9.0.clone()).unwrap_or_default();
    let my_size = others.get(creature).map(|o| *o.6).unwrap_or_default();
    let mut bodies: Vec<Traffic> = others
        .iter()
        .filter(|(e, ..)| *e != creature)
        .map(|(e, id, p, s, a, h, size, f, riders, theirs)| Traffic {
            entity: e,
            id: id.0.clone(),
            footprint: s.at(p.0),
            altitude: a.0,
            heading: h.0,
            size: *size,
            speed_m: f.map_or(0.0, |f| f.speed_m),
            riders: riders.map(|r| r.all().to_vec()).unwrap_or_default(),
            passage: Passage::of((&mine, my_size), (theirs, *size)),
        })
        .collect();
    bodies.sort_by(|a, b| a.id.cmp(&b.id));
    let on_its_back: Vec<Entity> =
        others.get(creature).ok().and_then(|o| o.8).map(|r| r.all().to_vec()).unwrap_or_default();
    (bodies, my_size, on_its_back)
}

/// The rider on a flier's back that directs it and can act, if any (004:806-812).
fn director_of(on_its_back: &[Entity], back: &OnItsBack<'_, '_>) -> Option<Director> {
    on_its_back.iter().copied().find(|r| back.get(*r).is_ok_and(|b| !b.1.passenger && b.2.can_act())).and_then(|r| {
        back.get(r).ok().map(|b| {
            let mut left = *b.3;
            let two_moves = left.spend(ActionKind::Move).is_ok() && left.spend(ActionKind::Move).is_ok();
            (r, Some(rider_ride(b.4, b.6, b.2)), b.5.has(Feat::FlybyAttack), b.3.standard, two_moves)
        })
    })
}

/// Checks a flight before it is flown, every fly check taken as made: the turn, a take-off first, the
/// riders' move actions, what a ridden flier may do, a free fall or a flight already flown, the status, a
/// flyby, a deceleration, a Bluff, a collision manoeuvre, a dive attack, and the actions it spends. The plan
/// and the budget left, or the rule that forbids it.
fn check_flight(
    check: &FlightCheck<'_>,
    planned: Result<super::route::Flight, Refusal>,
) -> Result<(super::route::Flight, ActionBudget), Refusal> {
    let FlightCheck { order, field, intent, altitude, conditions, riding_paid, director, state, wings, budget, .. } =
        check;
    order
        .check_turn(intent.creature)
        .and_then(|()| crate::rules::core::creature::able_to_act(conditions))
        // No flight in a round with a 5-foot step (004:259), a perfect flier's as any.
        .and_then(|()| budget.check_movement())
        .and_then(|()| if *altitude <= 0 { Err(Refusal::new("it must take off first", "004:657")) } else { Ok(()) })
        .and(riding_paid.clone())
        .and_then(|()| check_ridden(intent, *director))
        .and_then(|()| {
            if state.falling {
                Err(Refusal::new("in free fall, it flies again only after a recovery", "004:697, 004:763"))
            } else if state.flown.is_some() {
                Err(Refusal::new("it has flown this turn already", "004:686"))
            } else {
                Ok(())
            }
        })
        .and(planned)
        .and_then(|plan| {
            // 1.5 m or less is no flight but a free fall (004:690): a flier stays up by flying on.
            if plan.status == SpeedStatus::FreeFall && wings.maneuverability != Maneuverability::Perfect {
                return Err(Refusal::new("1.5 m or less is a free fall, not a flight", "004:690"));
            }
            Ok(plan)
        })
        .and_then(|plan| match check.resting_until {
            // Resting after a run, no faster than one move action (004:249).
            Some(until) if faster_than_its_speed(plan.status) => Err(Refusal::new(
                format!("after running it must rest until round {until}, flying no faster than its speed"),
                "004:249",
            )),
            _ => Ok(plan),
        })
        .and_then(|plan| {
            // Beyond the mount's speed the rider spends its second move action on it (004:807, 004:810).
            if let Some((_, _, _, _, two_moves)) = director
                && faster_than_its_speed(plan.status)
            {
                if !two_moves {
                    return Err(Refusal::new(
                        "beyond its mount's speed the rider spends its second move action on the flight, and it is spent",
                        "004:807, 004:810",
                    ));
                }
                if intent.flyby.is_some() {
                    return Err(Refusal::new(
                        "beyond its mount's speed the rider spends its standard action on the flight: no blow on the way",
                        "004:807, 004:810",
                    ));
                }
            }
            Ok(plan)
        })
        .and_then(|plan| {
            let Some((_, after)) = intent.flyby else { return Ok(plan) };
            if director.is_none() {
                // The flight's move action and the blow's standard action: a creature restricted to one
                // action has not both (004:77, 004:755).
                if budget.restricted {
                    return Err(Refusal::new(
                        "restricted to one action, it cannot fly and strike on the way",
                        "004:77, 004:755",
                    ));
                }
                budget.check(ActionKind::Standard)?;
                flyby_tried(check.flyby_feat, (wings.maneuverability, intent.hover), intent.swoop)?;
            }
            flyby_fits(&plan, &intent.steps, after, intent.swoop, wings.maneuverability, field.scale())?;
            Ok(plan)
        })
        .and_then(|plan| {
            if intent.decelerate {
                deceleration_fits(&plan, wings.maneuverability, field.scale())?;
            }
            Ok(plan)
        })
        .and_then(|plan| check_bluff(check, plan))
        .and_then(|plan| check_ram(check, plan))
        .and_then(|plan| check_dive(check, plan))
        .and_then(|plan| {
            // Each advanced manoeuvre fits alone; together they add up.
            let count = [intent.flyby.is_some(), intent.decelerate, intent.ram.is_some(), intent.dive_at.is_some()]
                .iter()
                .filter(|made| **made)
                .count() as u32;
            advanced_maneuvers_fit(&plan, count, wings.maneuverability, field.scale())?;
            Ok(plan)
        })
        .and_then(|plan| spend_for_flight(check, plan))
}

/// A ridden flier's own standard actions give way to its rider's: it flies, charges (the dive attack) or
/// runs, and the rider strikes before or after, or during with Flyby Attack (004:656, 004:812).
fn check_ridden(intent: &FlyIntent, director: Option<Director>) -> Result<(), Refusal> {
    match director {
        Some(_) if intent.swoop => {
            Err(Refusal::new("a ridden flier takes no standard action of its own: no swoop", "004:656"))
        }
        Some((_, _, feat, standard, _)) if intent.flyby.is_some() => {
            if !feat {
                Err(Refusal::new(
                    "the rider acts before or after its mount's move, not in the middle of it, without Flyby Attack",
                    "004:812",
                ))
            } else if !standard {
                Err(Refusal::new("the rider's standard action of this turn is spent", "004:76"))
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

/// A Bluff misleads a pursuer in the air, before a turn into a cloud or a dive (004:816-818).
fn check_bluff(check: &FlightCheck<'_>, plan: super::route::Flight) -> Result<super::route::Flight, Refusal> {
    let Some((_, chasing)) = check.bluffed else { return Ok(plan) };
    // The pursuer is a flier in the air, or rides one (004:816).
    match check.bodies.iter().find(|b| b.entity == chasing) {
        Some(b) if b.altitude > 0 => {}
        _ => return Err(Refusal::new("a Bluff misleads a pursuer in the air", "004:816-818")),
    }
    let cloud = plan.waypoints.last().is_some_and(|w| check.field.is_foggy(w.square));
    bluff_fits(&check.intent.steps, cloud, check.field.scale())?;
    Ok(plan)
}

/// The collision manoeuvre, a chase-scale one: into a flier the flight enters in its band (004:758).
fn check_ram(check: &FlightCheck<'_>, plan: super::route::Flight) -> Result<super::route::Flight, Refusal> {
    let Some(target) = check.intent.ram else { return Ok(plan) };
    // At normal scale entering the square is enough (004:758, 004:825).
    if check.field.scale() != crate::rules::core::altitude::Scale::Chase {
        return Err(Refusal::new(
            "at normal scale a flier collides by entering the other's space: no manoeuvre",
            "004:758",
        ));
    }
    let Some(foe) = check.bodies.iter().find(|b| b.entity == target) else {
        return Err(Refusal::new("no flier to collide with there", "004:758"));
    };
    let hidden = check.pursuit.get(target).ok().and_then(|p| p.3);
    crate::rules::core::creature::in_sight_of(hidden, check.intent.creature, &CreatureId(foe.id.clone()))?;
    if foe.altitude <= 0 {
        return Err(Refusal::new(format!("{} is not flying", foe.id), "004:758"));
    }
    let enters = plan.waypoints.iter().any(|w| foe.footprint.contains(w.square) && w.altitude == foe.altitude);
    if !enters {
        return Err(Refusal::new(format!("the flight does not enter {}'s square in its band", foe.id), "004:758"));
    }
    collision_fits(&plan, check.wings.maneuverability, check.field.scale())?;
    Ok(plan)
}

/// A dive attack (004:753): down at least 6 m toward the foe, at up to twice its speed, an advanced
/// manoeuvre (two of the round's manoeuvres).
fn check_dive(check: &FlightCheck<'_>, plan: super::route::Flight) -> Result<super::route::Flight, Refusal> {
    if check.intent.dive_at.is_none() {
        return Ok(plan);
    }
    let scale = check.field.scale();
    if dived(scale, &check.intent.steps) < scale.dive_attack_drop() {
        return Err(Refusal::new("a dive attack comes down 6 m at least", "004:753"));
    }
    if !matches!(plan.status, SpeedStatus::Slow | SpeedStatus::Fast) {
        return Err(Refusal::new("a dive attack flies at up to twice its speed", "004:753"));
    }
    room_for(&plan, check.wings.maneuverability, scale, "dive attack")?;
    Ok(plan)
}

/// The actions a flight spends by the status it gives (004:704-707): a dive attack the full round, a fast
/// flight two moves, top speed the full round; passing into or out of a hover a move more (004:708).
fn spend_for_flight(
    check: &FlightCheck<'_>,
    plan: super::route::Flight,
) -> Result<(super::route::Flight, ActionBudget), Refusal> {
    let (intent, wings) = (check.intent, check.wings);
    let kinds: &[ActionKind] = match plan.status {
        // Restricted to one action, it charges with its standard action (004:455).
        _ if intent.charge_at.is_some() && check.budget.restricted => &[ActionKind::Standard],
        _ if intent.dive_at.is_some() || intent.charge_at.is_some() => &[ActionKind::FullRound],
        SpeedStatus::Fast => &[ActionKind::Move, ActionKind::Move],
        SpeedStatus::TopSpeed => &[ActionKind::FullRound],
        SpeedStatus::FreeFall => &[],
        _ if wings.maneuverability == Maneuverability::Perfect && plan.spent <= 1 => &[],
        _ => &[ActionKind::Move],
    };
    let mut trial = check.budget;
    for kind in kinds {
        trial.spend(*kind)?;
    }
    // A perfect flier needs no hover (004:710).
    if intent.hover != check.state.hovering && wings.maneuverability != Maneuverability::Perfect {
        trial
            .spend(ActionKind::Move)
            .map_err(|_| Refusal::new("passing into or out of a hover takes a move action of its own", "004:708"))?;
    }
    Ok((plan, trial))
}

/// A Bluff against a pursuer, `bluffer`'s Bluff against `pursuer`'s Sense Motive (004:818): won, the
/// pursuer that chases (`chasing`, itself or its mount) is misled.
fn bluff_pursuer(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    saves: &Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
    pursuit: &Pursuit<'_, '_>,
    flier: &CreatureId,
    (bluffer, pursuer, chasing): (Entity, Entity, Entity),
) {
    let skill = |e: Entity, pick: fn(&Skills) -> Option<i32>, ability: fn(&Abilities) -> i32| {
        let total = pursuit.get(e).ok().and_then(|p| pick(p.0));
        crate::rules::core::checks::skill(total, saves.get(e).map_or(10, |s| ability(s.2)))
    };
    let name = |e: Entity| saves.get(e).map_or_else(|_| flier.clone(), |s| s.0.clone());
    let roll = out.dice.d20();
    let bluff = [Modifier::new(skill(bluffer, |s| s.bluff, |a| a.cha), "skill")];
    let sense_motive = [Modifier::new(skill(pursuer, |s| s.sense_motive, |a| a.wis), "skill")];
    let won = crate::rules::core::checks::opposed(
        out.dice,
        out.facts,
        (&name(bluffer), Check::Bluff, &bluff),
        (&name(pursuer), Check::SenseMotive, &sense_motive),
        (roll, crate::rules::core::checks::Ties::Lost),
        "a feint before turning away: -5 on the pursuer's fly checks to turn after it (004:818)",
    );
    if won {
        out.commands.entity(chasing).insert(crate::rules::core::creature::Misled { by: name(bluffer) });
    }
}

/// The flight flown, each advanced manoeuvre's fly check rolled (004:734-780), a misled pursuer's turns at
/// -5 (004:818), and each check written.
fn fly_with_checks(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    id: &CreatureId,
    (flier, steps, hover): (&Flier, &[FlightStep], bool),
    (bonus, by): (i32, &str),
    misled: Option<CreatureId>,
    obstacle: impl Fn(Footprint, Footprint, i32) -> Option<Obstacle>,
) -> Result<super::route::Flight, Refusal> {
    let mut rolls: Vec<(AdvancedManeuver, i32, u32, i32)> = Vec::new();
    let dice = &mut *out.dice;
    let flown = fly(
        flier,
        steps,
        hover,
        |maneuver, dc| {
            let roll = dice.d20();
            let turning = matches!(
                maneuver,
                AdvancedManeuver::TightTurn(_) | AdvancedManeuver::HardTurn | AdvancedManeuver::Wingover(_)
            );
            let penalty = if turning && misled.is_some() { crate::rules::core::creature::MISLED_PENALTY } else { 0 };
            rolls.push((maneuver, dc, roll, penalty));
            roll as i32 + bonus + penalty >= dc
        },
        obstacle,
    );
    for (maneuver, dc, roll, penalty) in &rolls {
        let total = *roll as i32 + bonus + penalty;
        let misled_by = match &misled {
            Some(by) if *penalty != 0 => format!(", misled by {by}'s Bluff {penalty} (004:818)"),
            _ => String::new(),
        };
        let success = total >= *dc;
        let failed = if success { String::new() } else { format!("; failed: {}", maneuver.on_failure()) };
        out.facts.write(Fact::CheckRolled {
            creature: id.clone(),
            check: Check::Fly,
            reason: format!("{} (004:750-780){by}{misled_by}{failed}", maneuver.name()),
            roll: *roll,
            total,
            dc: *dc,
            success,
        });
    }
    flown
}

/// The collision manoeuvre at chase scale (004:758): made, the flight ends in the foe's square, against it;
/// failed, the flier misses and flies on.
fn ram(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    id: &CreatureId,
    foe: &Traffic,
    flight: &mut super::route::Flight,
    (bonus, by): (i32, &str),
) {
    let Some(at) = flight.waypoints.iter().position(|w| foe.footprint.contains(w.square) && w.altitude == foe.altitude)
    else {
        return;
    };
    let dc = AdvancedManeuver::Collision.dc().unwrap_or(15);
    if roll_check(out.dice, out.facts, id, Check::Fly, format!("collision (004:758){by}"), bonus, dc) {
        flight.waypoints.truncate(at + 1);
        flight.collision = Some((flight.waypoints[at].step, foe.id.clone()));
    } else {
        out.facts.write(Fact::ActionInterrupted {
            creature: id.clone(),
            action: Action::Collision,
            reason: format!("the fly check failed: it misses {} and flies on (004:759)", foe.id),
        });
    }
}

/// A flyby attack or a swoop on the way: a fly check DC 20 unless it has the feat (004:755-756), a swoop
/// always; made, the striker (the flier, or its rider with its own feat, 004:812) strikes from where the
/// flier is after those steps, a swoop with the claws for double damage (004:751), and the flight goes on
/// afterwards; failed, its standard action is lost. The stop it strikes from, if it does.
#[expect(
    clippy::too_many_arguments,
    reason = "the flight's output, the intent, the striker, the flight, the flier's gear and budget, its check"
)]
fn strike_on_the_way(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    id: &CreatureId,
    intent: &FlyIntent,
    ((target, after), striker, feat): ((Entity, usize), Entity, bool),
    flight: &super::route::Flight,
    armament: &Armament,
    budget: &mut ActionBudget,
    (bonus, by): (i32, &str),
) -> Option<super::route::Waypoint> {
    let maneuver = if intent.swoop { AdvancedManeuver::Swoop } else { AdvancedManeuver::FlybyAttack };
    let reason = if intent.swoop { "swoop (004:751)" } else { "flyby attack (004:755)" };
    let made = feat
        || roll_check(out.dice, out.facts, id, Check::Fly, format!("{reason}{by}"), bonus, maneuver.dc().unwrap_or(20));
    let stop = flight.waypoints.iter().find(|w| w.step + 1 == after).copied();
    match stop {
        Some(stop) if made => {
            let claw = armament.0.iter().find(|w| w.natural && w.name.contains("claw"));
            // A tail chooses itself against a foe in the blind spot (004:676): no weapon named then.
            let tailed = crate::rules::core::sight::has_tail_attack(&armament.0);
            let weapon = match claw {
                _ if striker != intent.creature || (tailed && !intent.swoop) => None,
                Some(claw) if intent.swoop => Some(claw.name.clone()),
                _ => armament.ready().find(|w| !is_ranged(w)).map(|w| w.name.clone()),
            };
            out.attacks.push(AttackIntent { swoop: intent.swoop, ..AttackIntent::new(striker, target, weapon) });
            Some(stop)
        }
        _ => {
            if striker == intent.creature {
                let _ = budget.spend(ActionKind::Standard);
            }
            let reason = if made {
                "the flight never reached that step: the attack and the standard action are lost"
            } else {
                "the fly check failed: the attack and the standard action are lost (004:756)"
            };
            out.facts.write(Fact::ActionInterrupted {
                creature: id.clone(),
                action: Action::FlybyAttack,
                reason: reason.into(),
            });
            None
        }
    }
}

/// Where a flier strikes from at the end of its flight: its squares, height, size and natural reach, and
/// how the table counts the diagonals that reach spans.
#[derive(Clone, Copy)]
struct Striker {
    at: Footprint,
    altitude: i32,
    size: Size,
    reach: u32,
    diagonals: crate::rules::core::geometry::Diagonals,
}

/// Whether `striker` threatens the foe (its footprint, altitude and size) with a melee weapon of `kind`:
/// within reach across and in height as one distance (004:783), with a line of effect to it (no total
/// cover, 004:406). Where an aerial charge must end (004:453).
fn threatens_from(
    field: &Battlefield,
    striker: &Striker,
    kind: crate::rules::core::reach::WeaponReach,
    (foe, foe_altitude, foe_size): (Footprint, i32, Size),
) -> bool {
    let scale = field.scale();
    let rise =
        crate::rules::core::altitude::vertical_steps(scale, striker.altitude, striker.size, foe_altitude, foe_size);
    crate::rules::core::reach::melee_reaches_at_height(
        (striker.diagonals, scale),
        striker.reach,
        kind,
        (striker.at, foe),
        rise,
    ) && crate::rules::core::cover::melee_cover(field, striker.at, foe) != crate::rules::core::cover::Cover::Total
}

/// A flier's charge as [`charge_fits`] checks it, with what it strikes with: its first melee weapon ready
/// (004:457), from its reach (004:453); a charge is its own full-round action, with no other manoeuvre nor a
/// hover (004:451, 004:709), and no fatigued creature charges (003:71). A creature `restricted` to one action
/// charges at its speed only (004:455): a slow flight; a `ridden` one too, its rider's blow ending it with
/// the standard action a flight within the mount's speed leaves it (004:807, 004:812).
fn check_flying_charge(
    (field, intent, conditions, (restricted, ridden)): (&Battlefield, &FlyIntent, &Conditions, (bool, bool)),
    (start, altitude, size, reach, perfect): (Footprint, i32, Size, u32, bool),
    (plan, armament): (&super::route::Flight, &Armament),
    (foe, others): (Option<&Traffic>, &[Traffic]),
) -> Result<(), Refusal> {
    let Some(foe) = foe else { return Err(Refusal::new("a charge needs a target", "004:451")) };
    // No ally in its way: « à moins d'être en train de charger » (000:67-68); a helpless creature hinders no
    // charge (004:453), and a foe's space is a collision, which the flight itself finds.
    let crossed = plan.waypoints.iter().find_map(|w| {
        stopped_in(field.scale(), others, size, (Footprint::rect(w.square, start.width, start.height), w.altitude))
    });
    if let Some(ally) = crossed {
        let with = &ally.id;
        return Err(Refusal::new(format!("the charge's way is not clear: {with} is in it"), "004:453"));
    }
    if restricted && plan.status == SpeedStatus::Fast {
        return Err(Refusal::new("restricted to one action, it charges at its speed only", "004:455"));
    }
    if ridden && plan.status == SpeedStatus::Fast {
        return Err(Refusal::new(
            "ridden, it charges within its speed: its rider's blow ends the charge with the standard action left",
            "004:812",
        ));
    }
    if intent.dive_at.is_some() || intent.flyby.is_some() || intent.ram.is_some() || intent.decelerate || intent.hover {
        return Err(Refusal::new("a charge is a full-round action of its own: no other manoeuvre with it", "004:451"));
    }
    if conditions.has(Condition::Fatigued) {
        return Err(Refusal::new("fatigued, it can neither run nor charge", "003:71"));
    }
    let threatens = charge_threat(field, armament, (size, reach), foe)?;
    charge_fits(
        field,
        (start, altitude),
        (&intent.steps, plan),
        (foe.footprint, foe.altitude, foe.size),
        (size, perfect, &threatens),
    )
}

/// Whether a charger of `size` and natural `reach` would threaten `foe` from a footprint at a height with
/// the weapon its charge strikes with, its first melee weapon ready (004:457); none, no charge.
fn charge_threat<'a>(
    field: &'a Battlefield,
    armament: &Armament,
    (size, reach): (Size, u32),
    foe: &'a Traffic,
) -> Result<impl Fn(Footprint, i32) -> bool + 'a, Refusal> {
    let Some(weapon) = crate::rules::turns::moving::charge_weapon(armament, None) else {
        return Err(Refusal::new("a charge ends in a melee attack", "004:457"));
    };
    let kind = weapon.reach_kind();
    Ok(move |at: Footprint, height: i32| {
        let striker = Striker { at, altitude: height, size, reach, diagonals: field.diagonals() };
        threatens_from(field, &striker, kind, (foe.footprint, foe.altitude, foe.size))
    })
}

/// Whether a flight is a charge at the foe (004:451-459; « Rapide ... charge », 004:693, 004:706): seen at
/// the start of the turn (004:454); straight on along its heading, climbing or diving but neither turning
/// nor slipping aside (« en ligne droite », 004:452), its heading chosen first only when it is free, or
/// turned first by a `perfect` flier, which heeds no heading (004:676); every step nearer the foe across
/// and in height (« toujours vers l'adversaire »); 3 m at least (004:452, a chase square's 9 m too); at up
/// to twice its speed, slow or fast (004:451, 004:693); through no creature (004:453: a collision, 004:825);
/// and ending on the first square of its way from which it threatens the foe, the nearest (004:453), never
/// from where it already does. `threatens` says whether the flier threatens the foe from a footprint at a
/// height. The full-round action is the caller's to spend.
pub fn charge_fits(
    field: &Battlefield,
    (start, altitude): (Footprint, i32),
    (steps, plan): (&[FlightStep], &super::route::Flight),
    (foe, foe_altitude, foe_size): (Footprint, i32, Size),
    (my_size, perfect, threatens): (Size, bool, &dyn Fn(Footprint, i32) -> bool),
) -> Result<(), Refusal> {
    if !field.line_of_sight(start, foe) {
        return Err(Refusal::new("no line of sight to the target at the start of the turn", "004:454"));
    }
    if threatens(start, altitude) {
        return Err(Refusal::new("the target is already within reach: a charge moves at least 2 squares", "004:452"));
    }
    let set_off =
        steps.iter().position(|s| matches!(s, FlightStep::Forward | FlightStep::Climb | FlightStep::Dive { .. }));
    let straight = steps.iter().enumerate().all(|(i, step)| match step {
        FlightStep::Forward | FlightStep::Climb | FlightStep::Dive { .. } => true,
        FlightStep::Face(_) => i == 0,
        FlightStep::Turn(_) => perfect && set_off.is_none_or(|first| i < first),
        _ => false,
    });
    if !straight {
        return Err(Refusal::new("a charge flies straight at its foe: no turn and no slip aside", "004:452"));
    }
    if !matches!(plan.status, SpeedStatus::Slow | SpeedStatus::Fast) {
        return Err(Refusal::new("a charge flies at up to twice its speed, slow or fast", "004:451, 004:693"));
    }
    if let Some((_, with)) = &plan.collision {
        return Err(Refusal::new(format!("the charge's way is not clear: {with} is in it"), "004:453"));
    }
    let scale = field.scale();
    let at = |w: &super::route::Waypoint| Footprint::rect(w.square, start.width, start.height);
    let gaps = |fp: Footprint, alt: i32| {
        let (dx, dy) = fp.gaps(foe);
        (dx, dy, crate::rules::core::altitude::vertical_steps(scale, alt, my_size, foe_altitude, foe_size))
    };
    let mut before = gaps(start, altitude);
    for w in &plan.waypoints {
        let now = gaps(at(w), w.altitude);
        let nearer = now.0 <= before.0 && now.1 <= before.1 && now.2 <= before.2 && now != before;
        if !nearer && at(w).origin != start.origin {
            let square = w.square;
            return Err(Refusal::new(format!("at {square} the charge no longer flies toward its foe"), "004:452"));
        }
        before = now;
    }
    let Some(last) = plan.waypoints.last() else {
        return Err(Refusal::new("a charge moves 3 m (2 squares) at least", "004:452"));
    };
    let (dx, dy) = (last.square.x - start.origin.x, last.square.y - start.origin.y);
    if (dx.abs().max(dy.abs()) as f32) * scale.square_m() < 3.0 {
        return Err(Refusal::new("a charge moves 3 m (2 squares) at least", "004:452"));
    }
    if let Some(sooner) = plan.waypoints[..plan.waypoints.len() - 1].iter().find(|w| threatens(at(w), w.altitude)) {
        let square = sooner.square;
        return Err(Refusal::new(
            format!("{square} is the nearest square of its way from which to attack: the charge ends there"),
            "004:453",
        ));
    }
    if !threatens(at(last), last.altitude) {
        return Err(Refusal::new("the charge does not end where it threatens its foe", "004:453"));
    }
    Ok(())
}

/// The dive attack's claw, if the flight ends where the flier threatens the foe and the fly check (DC 10)
/// succeeds (004:753-754).
fn dive_attack(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    id: &CreatureId,
    flier: Entity,
    foe: &Traffic,
    striker: Striker,
    armament: &Armament,
    (scale, bonus, by): (crate::rules::core::altitude::Scale, i32, &str),
) {
    let claw = armament
        .0
        .iter()
        .find(|w| w.natural && w.name.contains("claw"))
        .or_else(|| armament.ready().find(|w| !is_ranged(w)));
    let reaches = claw.is_some_and(|w| {
        let rise =
            crate::rules::core::altitude::vertical_steps(scale, striker.altitude, striker.size, foe.altitude, foe.size);
        let both = (striker.at, foe.footprint);
        crate::rules::core::reach::melee_reaches_at_height(
            (striker.diagonals, scale),
            striker.reach,
            w.reach_kind(),
            both,
            rise,
        )
    });
    let dc = AdvancedManeuver::DiveAttack.dc().unwrap_or(10);
    let made = roll_check(out.dice, out.facts, id, Check::Fly, format!("dive attack (004:753){by}"), bonus, dc);
    match claw {
        Some(claw) if reaches && made => {
            out.attacks
                .push(AttackIntent { dive: true, ..AttackIntent::new(flier, foe.entity, Some(claw.name.clone())) });
        }
        _ => {
            let why = if reaches {
                "the fly check failed: it reaches the foe but cannot strike (004:754)"
            } else {
                "it does not end where it threatens the foe (004:753)"
            };
            out.facts.write(Fact::ActionInterrupted {
                creature: id.clone(),
                action: Action::DiveAttack,
                reason: why.into(),
            });
        }
    }
}

/// The flier that ran into another: who it is, where it faced, its size, and those on its back.
struct Collider<'a> {
    entity: Entity,
    id: &'a CreatureId,
    heading: Direction,
    size: Size,
    riders: &'a [Entity],
}

/// A collision (004:825-852): both take the damage of the higher speed and the smaller size, times the
/// impact; the creature struck saves for half; the riders of each share it (004:852).
fn collide(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    saves: &Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
    mine: Collider<'_>,
    my_speed: f32,
    struck: &Traffic,
) {
    // The speed of each: the distance it flew this round (004:827); none when hovering or still.
    let their_speed = struck.speed_m;
    let impact = if their_speed > 0.0 { impact_of(mine.heading, struck.heading) } else { Impact::Stationary };
    let Some(dice_expr) = collision_dice(my_speed, their_speed, mine.size, struck.size) else {
        // Below Tiny the table gives no dice (004:843): the flight stops there, no one hurt, and the log
        // says so.
        let none = out.dice.throw(crate::rules::core::dice::DiceExpr { count: 0, sides: 2, bonus: 0 });
        out.facts.write(Fact::Collided {
            creature: mine.id.clone(),
            with: struck.id.clone(),
            dice: none,
            impact: format!("{impact:?}"),
            total: 0,
        });
        return;
    };
    let amount = take_the_impact(out, saves, &mine, (struck.id.clone(), dice_expr, impact));
    let mut theirs = amount;
    if let Ok((_, their_saves, their_abilities, their_conditions)) = saves.get(struck.entity) {
        let success = roll_save(
            out.dice,
            out.facts,
            &CreatureId(struck.id.clone()),
            Save::Reflex,
            their_saves,
            &abilities_in_play(their_abilities, their_conditions),
            "a collision, for half (004:826)",
            super::COLLISION_REFLEX_DC,
        );
        if success {
            theirs = (amount / 2).max(1);
        }
    }
    out.damage.write(Damage { target: struck.entity, amount: theirs, nonlethal: false, from_one_attack: true });
    share_collision(&struck.riders, theirs, saves, out.dice, out.facts, out.damage);
}

/// A flier a failed manoeuvre sent into a wall strikes it: a collision with an object (004:825), the
/// damage of its speed and of the smaller size (its own: no wall is smaller), x1 against an object
/// (004:847); its riders share it (004:852).
fn strike_a_wall(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    saves: &Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
    mine: Collider<'_>,
    my_speed: f32,
) {
    let Some(dice_expr) = collision_dice(my_speed, 0.0, mine.size, mine.size) else { return };
    take_the_impact(out, saves, &mine, ("wall".into(), dice_expr, Impact::Stationary));
}

/// The flier that collides takes the collision's damage, `dice` times the `impact` (004:826-850), and its
/// riders share it (004:852); the damage it took, which the creature struck takes too.
fn take_the_impact(
    out: &mut FlightOutput<'_, '_, '_, '_, '_>,
    saves: &Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
    mine: &Collider<'_>,
    (with, dice, impact): (String, crate::rules::core::dice::DiceExpr, Impact),
) -> i32 {
    let thrown = out.dice.throw(dice);
    let amount = (thrown.total * impact.halves() as i32 / 2).max(1);
    out.facts.write(Fact::Collided {
        creature: mine.id.clone(),
        with,
        dice: thrown,
        impact: format!("{impact:?}"),
        total: amount,
    });
    out.damage.write(Damage { target: mine.entity, amount, nonlethal: false, from_one_attack: false });
    share_collision(mine.riders, amount, saves, out.dice, out.facts, out.damage);
    amount
}

/// How far a flight's steps come down in all, in altitude steps (a dive 1, a wingover 6 m or a band, a
/// climb back up 1): « chutant d'au moins 6 mètres » (004:753), « doit descendre de 6 mètres » (004:751)
/// read the height lost, not the dives flown.
fn dived(scale: crate::rules::core::altitude::Scale, steps: &[FlightStep]) -> i32 {
    steps
        .iter()
        .map(|s| match s {
            FlightStep::Dive { .. } => 1,
            FlightStep::Climb => -1,
            FlightStep::Wingover { .. } => scale.wingover_drop(),
            _ => 0,
        })
        .sum()
}

/// What stands in the way of a flier of `size` stepping from `from` to `at` at `alt`: a wall or the map's
/// edge, a wall edge crossed or a wall corner cut on the way (walls stand full height: the step's own
/// predicate, [`walls_in_the_way`], as a walker's), or the first of `bodies` whose space it would enter at
/// an overlapping height (a body rises as high as [`crate::rules::core::altitude::Scale::body_height`]),
/// as [`meeting`] judges it.
fn obstacle_at(
    field: &Battlefield,
    bodies: &[Traffic],
    size: Size,
    (from, at): (Footprint, Footprint),
    alt: i32,
) -> Option<Obstacle> {
    if at.squares().any(|s| !field.contains(s)) {
        return Some(Obstacle::Edge(Refusal::new("a wall or the edge of the map", "000:60")));
    }
    if at.squares().any(|s| field.terrain(s).blocks()) {
        return Some(Obstacle::Wall(Refusal::new("a wall or the edge of the map", "000:60")));
    }
    let (dx, dy) = (at.origin.x - from.origin.x, at.origin.y - from.origin.y);
    if let Some(direction) = crate::rules::core::geometry::Direction::from_delta(dx, dy)
        && let Err(blocked) = walls_in_the_way(field, from, direction)
    {
        return Some(Obstacle::Wall(Refusal::new(blocked.to_string(), blocked.rule())));
    }
    let scale = field.scale();
    // An ally's space or a helpless creature's is crossed, as a move crosses it (004:656, 000:66-73); at chase
    // scale no one shares a square with a Colossal creature, ally or not (004:651).
    let colossal = |b: &Traffic| {
        scale == crate::rules::core::altitude::Scale::Chase
            && !crate::rules::core::altitude::share_a_chase_square(size, b.size)
    };
    bodies
        .iter()
        .filter(|b| b.passage == Passage::Blocks || colossal(b))
        .find(|b| b.footprint.overlaps(at) && heights_overlap(scale, (alt, size), (b.altitude, b.size)))
        .and_then(|b| meeting(scale, size, b))
}

/// Whether two bodies, each at its altitude and of its size, overlap in height (each rises
/// [`crate::rules::core::altitude::Scale::body_height`]).
pub fn heights_overlap(
    scale: crate::rules::core::altitude::Scale,
    (alt, size): (i32, Size),
    (other_alt, other_size): (i32, Size),
) -> bool {
    alt < other_alt + scale.body_height(other_size) && other_alt < alt + scale.body_height(size)
}

/// What a flier meets in a square another creature holds: at normal scale, a collision (004:825); at chase
/// scale nothing, for a square holds many, but for a Colossal creature, which holds one alone (004:651).
fn meeting(scale: crate::rules::core::altitude::Scale, mine: Size, other: &Traffic) -> Option<Obstacle> {
    match scale {
        crate::rules::core::altitude::Scale::Normal => Some(Obstacle::Creature(other.id.clone())),
        crate::rules::core::altitude::Scale::Chase
            if !crate::rules::core::altitude::share_a_chase_square(mine, other.size) =>
        {
            Some(Obstacle::Edge(Refusal::new(
                format!("{} and a Colossal creature cannot share a chase square", other.id),
                "004:651",
            )))
        }
        crate::rules::core::altitude::Scale::Chase => None,
    }
}

/// Whether a flier of `maneuverability`, hovering or not, with the Flyby Attack feat or not (`feat`), may try
/// a flyby attack of its own: with the feat, made without a check (004:756); without it, only a perfect flier
/// tries it (« Les créatures dotées d'une manoeuvrabilité parfaite peuvent tenter … si elles ne possèdent
/// pas le don », 004:757), a hovering one among them (« bénéficie d'une manœuvrabilité parfaite », 004:709).
/// A swoop is an advanced manoeuvre of its own, open to any (004:751).
pub fn flyby_tried(feat: bool, (maneuverability, hover): (Maneuverability, bool), swoop: bool) -> Result<(), Refusal> {
    if swoop || feat || hover || maneuverability == Maneuverability::Perfect {
        return Ok(());
    }
    Err(Refusal::new("without the Flyby Attack feat, only a perfect flier tries a flyby attack", "004:757"))
}

/// Whether `plan`, the flight of `steps`, allows a flyby attack after `after` of its steps (004:755-757):
/// one move action of flight, the attack after a step of it, two of the round's manoeuvres left, and for a
/// swoop 6 m down before the attack (004:751). The standard action it takes is the caller's to check.
pub fn flyby_fits(
    plan: &super::route::Flight,
    steps: &[FlightStep],
    after: usize,
    swoop: bool,
    maneuverability: Maneuverability,
    scale: crate::rules::core::altitude::Scale,
) -> Result<(), Refusal> {
    if !matches!(plan.status, SpeedStatus::Slow | SpeedStatus::Stall | SpeedStatus::Hover) {
        return Err(Refusal::new("a flyby attack comes within one move action of flight", "004:755"));
    }
    if after == 0 || after > steps.len() {
        return Err(Refusal::new("the flyby attack falls after one of the flight's steps", "004:755"));
    }
    if swoop && dived(scale, &steps[..after]) < scale.dive_attack_drop() {
        return Err(Refusal::new("a swoop comes down 6 m at least before it strikes", "004:751"));
    }
    room_for(plan, maneuverability, scale, "flyby attack")
}

/// Whether a flight of `steps` allows a Bluff against a pursuer (004:818): it turns into a cloud
/// (a turn, and it ends in fog), or it dives away, 6 m or a band at least (our ruling on "a ravine").
pub fn bluff_fits(
    steps: &[FlightStep],
    ends_in_cloud: bool,
    scale: crate::rules::core::altitude::Scale,
) -> Result<(), Refusal> {
    let turns = steps.iter().any(|s| {
        matches!(
            s,
            FlightStep::Turn(_) | FlightStep::HardTurn(_) | FlightStep::TightTurn { .. } | FlightStep::Wingover { .. }
        )
    });
    if (turns && ends_in_cloud) || dived(scale, steps) >= scale.dive_attack_drop() {
        return Ok(());
    }
    Err(Refusal::new(
        "a Bluff comes just before a turn into a cloud or a dive away (6 m, a band at chase scale)",
        "004:818",
    ))
}

/// Whether `plan`, planned as a deceleration (`Flier::decelerating`), can be flown so (004:760): under half its
/// speed, with two of the slow row's manoeuvres left (« son statut reste lent »).
pub fn deceleration_fits(
    plan: &super::route::Flight,
    maneuverability: Maneuverability,
    scale: crate::rules::core::altitude::Scale,
) -> Result<(), Refusal> {
    if plan.status != SpeedStatus::Stall {
        return Err(Refusal::new("a deceleration is a flight under half its speed", "004:759"));
    }
    room_for(plan, maneuverability, scale, "deceleration")
}

/// Whether `plan` leaves room for the collision manoeuvre (004:758), two of the round's manoeuvres.
pub fn collision_fits(
    plan: &super::route::Flight,
    maneuverability: Maneuverability,
    scale: crate::rules::core::altitude::Scale,
) -> Result<(), Refusal> {
    room_for(plan, maneuverability, scale, "collision")
}

/// An advanced manoeuvre made besides a flight takes two of the round's manoeuvres (004:715), those of the
/// flight's row (the slow row for a deceleration, 004:760).
fn room_for(
    plan: &super::route::Flight,
    maneuverability: Maneuverability,
    scale: crate::rules::core::altitude::Scale,
    what: &str,
) -> Result<(), Refusal> {
    advanced_maneuvers_fit(plan, 1, maneuverability, scale)
        .map_err(|_| Refusal::new(format!("no manoeuvres left for the {what} this round"), "004:716-732"))
}

/// Whether `count` advanced manoeuvres made besides the flight of `plan` (a flyby attack, a deceleration,
/// a collision, a dive attack: two of the round's manoeuvres each, 004:715) fit with the flight's own in
/// its row of the table (004:716-732): they add up.
pub fn advanced_maneuvers_fit(
    plan: &super::route::Flight,
    count: u32,
    maneuverability: Maneuverability,
    scale: crate::rules::core::altitude::Scale,
) -> Result<(), Refusal> {
    let limit = super::maneuvers_a_round(plan.row, maneuverability, scale);
    let wanted = plan.maneuvers + count * super::ADVANCED_MANEUVER_COST;
    if wanted > limit {
        return Err(Refusal::new(
            format!("{wanted} manoeuvres, {count} advanced ones among them, where the round allows {limit}"),
            "004:715-732",
        ));
    }
    Ok(())
}

/// The angle at which a flier heading `mine` strikes a flier heading `theirs` (004:840-843).
pub fn impact_of(mine: Direction, theirs: Direction) -> Impact {
    match mine.turns_between(theirs) {
        4 | 3 => Impact::HeadOn,
        2 => Impact::Side,
        _ => Impact::Behind,
    }
}

/// A flight broken by a flyby attack goes on to its end once the attack is done, and the Cleave it gave, made
/// « dès que » it applies (004:234), from where the flier struck; the squares it leaves on the way provoke
/// as the first part's did (004:65, 004:656).
fn finish_flybys(
    mut commands: Commands,
    mut fliers: Query<(Entity, &CreatureId, &mut Position, &mut Altitude, &mut Heading, &FlybyRemainder)>,
    mut cleaves: MessageReader<crate::rules::attack::AttackIntent>,
    mut facts: MessageWriter<Fact>,
    mut legs_flown: ResMut<FlownLegs>,
) {
    let cleaving: Vec<Entity> = cleaves.read().filter(|i| i.cleave).map(|i| i.attacker).collect();
    for (entity, id, mut position, mut altitude, mut heading, rest) in &mut fliers {
        if cleaving.contains(&entity) {
            continue;
        }
        let from = position.0;
        position.0 = rest.square;
        altitude.0 = rest.altitude;
        heading.0 = rest.heading;
        commands.entity(entity).remove::<FlybyRemainder>();
        facts.write(Fact::FlybyResumed { creature: id.clone(), from, to: rest.square });
        legs_flown.0.push(Flown {
            flier: entity,
            legs: rest.legs.clone(),
            attacks: Vec::new(),
            impacts: Vec::new(),
            charge: None,
        });
    }
}

/// Where a flight leaves squares on its way: the flier's squares and height as it leaves them, and the
/// squares left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leg {
    /// Its squares as it leaves.
    pub at: Footprint,
    /// Its altitude then, in 1.5 m steps.
    pub altitude: i32,
    /// The squares it leaves.
    pub left: Vec<crate::rules::core::geometry::Square>,
}

/// A flight flown in this run of the rules: its legs, for the attacks of opportunity they provoke, and the
/// attacks it makes (a flyby, a dive), which wait for them.
#[derive(Debug)]
pub struct Flown {
    flier: Entity,
    legs: Vec<Leg>,
    attacks: Vec<AttackIntent>,
    /// The collisions its flight comes to, made if it is not dropped on its way.
    impacts: Vec<Collision>,
    /// The charge it flew, ended as any charge is once it arrives (004:457).
    charge: Option<crate::rules::turns::moving::ChargeEnded>,
}

/// A collision a flight comes to (004:825-852): the flier (its entity, id, heading, size and riders), its
/// speed, and the creature it runs into, or a wall when `None`.
#[derive(Clone, Debug)]
pub struct Collision {
    me: (Entity, CreatureId, Direction, Size, Vec<Entity>),
    my_speed: f32,
    into: Option<Traffic>,
}

/// Makes a collision its flight came to, the flier not dropped on its way (004:70, 004:825).
fn make_impact(
    In(impact): In<Collision>,
    mut commands: Commands,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    saves: Query<(&CreatureId, &Saves, &Abilities, &Conditions)>,
) {
    let mut attacks = Vec::new();
    let mut out = FlightOutput {
        commands: &mut commands,
        dice: &mut dice,
        facts: &mut facts,
        damage: &mut damage,
        attacks: &mut attacks,
    };
    let (entity, id, heading, size, riders) = &impact.me;
    let mine = Collider { entity: *entity, id, heading: *heading, size: *size, riders };
    match &impact.into {
        Some(struck) => collide(&mut out, &saves, mine, impact.my_speed, struck),
        None => strike_a_wall(&mut out, &saves, mine, impact.my_speed),
    }
}

/// The flights flown in this run of the rules.
#[derive(Resource, Default, Debug)]
pub struct FlownLegs(Vec<Flown>);

/// The legs of a flight from `start` at `altitude` through its `waypoints`, up to the step it stopped at
/// (`stop`, a flyby attack's) if it did, a square at a time: a step of several squares leaves each in turn.
/// A climb or a dive changes the height it leaves the next square at.
pub fn legs_of(start: Footprint, altitude: i32, waypoints: &[super::route::Waypoint], stop: Option<usize>) -> Vec<Leg> {
    let mut legs = Vec::new();
    let (mut here, mut height) = (start, altitude);
    for waypoint in waypoints.iter().take_while(|w| stop.is_none_or(|s| w.step <= s)) {
        let next = Footprint::rect(waypoint.square, start.width, start.height);
        while here.origin != next.origin {
            let (dx, dy) = ((next.origin.x - here.origin.x).signum(), (next.origin.y - here.origin.y).signum());
            let on = Footprint::rect(here.origin.offset(dx, dy), here.width, here.height);
            let left = here.squares().filter(|s| !on.contains(*s)).collect();
            legs.push(Leg { at: here, altitude: height, left });
            here = on;
        }
        height = waypoint.altitude;
    }
    legs
}

/// The attacks of opportunity the flights provoke (004:64-65; 004:656 « une créature volante et son
/// cavalier se déplacent de la même façon que lors d'un combat classique »), leg by leg in order: a foe that
/// threatens a square the flier leaves, at the height it leaves it, may strike, once for the turn's
/// movement (004:68). A flier dropped by one stops where it was struck, at that height (and falls as any
/// flier that cannot fly).
pub(super) fn strike_the_fliers(world: &mut World) {
    let flown = std::mem::take(&mut world.resource_mut::<FlownLegs>().0);
    for Flown { flier, legs, attacks, impacts, charge } in flown {
        let place = |world: &mut World, at: crate::rules::core::geometry::Square, height: i32| {
            if let Some(mut position) = world.get_mut::<Position>(flier) {
                position.0 = at;
            }
            if let Some(mut altitude) = world.get_mut::<Altitude>(flier) {
                altitude.0 = height;
            }
        };
        let (Some(end), Some(end_height)) =
            (world.get::<Position>(flier).map(|p| p.0), world.get::<Altitude>(flier).map(|a| a.0))
        else {
            continue;
        };
        let mut dropped = false;
        let width = legs.first().map_or((1, 1), |l| (l.at.width, l.at.height));
        let ends_at = (Footprint::rect(end, width.0, width.1), end_height);
        let entered: Vec<(Footprint, i32)> =
            legs.iter().skip(1).map(|l| (l.at, l.altitude)).chain(std::iter::once(ends_at)).collect();
        for (leg, (next, height)) in legs.into_iter().zip(entered) {
            place(world, leg.at.origin, leg.altitude);
            // Once for the turn's movement (004:68, 004:71): the foes it provoked on foot or earlier in its
            // flight strike no more.
            let leaving = crate::rules::turns::Provoking {
                leaving: Some(leg.left),
                at: Some(leg.at),
                ..crate::rules::turns::Provoking::new(flier, Action::Fly, crate::rules::opportunity::LEAVING)
            };
            dropped = crate::rules::opportunity::provoke_by_moving(world, leaving, charge.is_some()).dropped;
            if dropped {
                break;
            }
            // In the next square, at its height: a foe who readied an attack for a creature stepping into its
            // reach strikes now (004:621), as at a walker's step.
            place(world, next.origin, height);
            dropped = crate::rules::opportunity::step_entered(
                world,
                flier,
                (next, (leg.at, Some(leg.altitude))),
                charge.is_some(),
            );
            if dropped {
                break;
            }
        }
        crate::rules::opportunity::movement_over(world, flier);
        // Dropped, the attack's own interruption is written (004:70): it stays where it was struck, and makes
        // none of the attacks its flight was to end in.
        if dropped {
            world.entity_mut(flier).remove::<FlybyRemainder>();
        } else {
            place(world, end, end_height);
            for impact in impacts {
                let _ = world.run_system_cached_with(make_impact, impact);
            }
            for attack in attacks {
                world.write_message(attack);
            }
            if let Some(charge) = charge {
                // Its rider's blow at the foe ends a ridden flier's charge (004:478, 004:656).
                let order = world.resource::<TurnOrder>();
                let (round, turn) = (order.round, order.turns_begun);
                world.entity_mut(flier).insert(crate::rules::turns::moving::LastMove {
                    round,
                    turn,
                    action: crate::rules::movement::MovementAction::Charge,
                    charged: Some(charge.target),
                });
                crate::rules::turns::moving::charge_arrives(world, charge);
            }
        }
    }
}

/// Lands: a free action when it is no higher than its space; from higher, after slowing to a stall this
/// turn, with its other move action (004:669-670). At the beginning of its turn or at its end: landed once
/// it has acted, it acts no more this turn.
pub(super) fn land(
    mut intents: MessageReader<LandIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut creatures: ParamSet<(Fliers<'_, '_>, Query<crate::rules::turns::moving::MoverView>)>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let checked = landing((&order, &field), &mut creatures, intent.creature);
        let mut fliers = creatures.p0();
        let Ok((id, _, mut altitude, _, _, _, _, _, _, mut budget, flight, _)) = fliers.get_mut(intent.creature) else {
            continue;
        };
        let checked = checked.and_then(|spends| if spends { budget.spend(ActionKind::Move) } else { Ok(()) });
        // A landing is an action of its turn, free or not: no delay after it (004:629, 004:669).
        if checked.is_ok() {
            budget.acted_freely = true;
        }
        match checked {
            Ok(()) => {
                altitude.0 = 0;
                if let Some(mut f) = flight {
                    f.falling = false;
                }
                // « au début ou à la fin de son tour de jeu » (004:669): landed once it has acted, its turn
                // is at its end.
                if !budget.untouched() {
                    budget.close();
                }
                facts.write(Fact::Landed { creature: id.clone() });
            }
            Err(refusal) => refuse(&mut facts, id, Action::Land, refusal),
        }
    }
}

/// Whether `creature` may land now, and whether the landing spends a move action: a free action when it is
/// no higher than its space (004:669), its second move action after a stall (004:700); from higher, not.
fn landing(
    (order, field): (&TurnOrder, &Battlefield),
    creatures: &mut ParamSet<(Fliers<'_, '_>, Query<crate::rules::turns::moving::MoverView>)>,
    creature: Entity,
) -> Result<bool, Refusal> {
    let room = room_to_land(field, &creatures.p1(), creature);
    let fliers = creatures.p0();
    let Ok((_, _, altitude, _, space, speed, _, _, conditions, budget, flight, _)) = fliers.get(creature) else {
        return Err(Refusal::new("no such creature", "data"));
    };
    let aloft = crate::rules::core::creature::flying(speed, altitude.0);
    let low = low_enough_to_land(altitude.0, space);
    let stalled = flight.is_some_and(|f| f.flown == Some(SpeedStatus::Stall));
    order.check_turn(creature)?;
    crate::rules::core::creature::able_to_act(conditions)?;
    // A walker on a ledge stands on it: only a flier in the air lands (004:669).
    if !aloft {
        return Err(Refusal::new("it is on the ground", "004:669"));
    }
    room?;
    match (low, stalled) {
        (true, false) => Ok(false),
        // « Elles peuvent alors utiliser leur seconde action de mouvement pour atterrir en toute sécurité si
        // leur altitude est inférieure ou égale à leur espace occupé » (004:700).
        (true, true) => budget.check(ActionKind::Move).map(|()| true),
        (false, true) => Err(Refusal::new(
            format!(
                "at {}, higher than its space: a stalled flier lands only from no higher than its space",
                field.scale().altitude_label(altitude.0)
            ),
            "004:700",
        )),
        (false, false) => Err(Refusal::new(
            format!(
                "at {}, higher than its space: it must slow to a stall first, then land with its other move action",
                field.scale().altitude_label(altitude.0)
            ),
            "004:670",
        )),
    }
}

/// Whether `creature` may land now (004:669-670, 004:700): what the AI and the window ask before the rules.
pub fn may_land(world: &mut World, creature: Entity) -> Result<(), Refusal> {
    world
        .run_system_cached_with(may_land_now, creature)
        .unwrap_or_else(|_| Err(Refusal::new("no such creature", "data")))
}

fn may_land_now(
    In(creature): In<Entity>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    mut creatures: ParamSet<(Fliers<'_, '_>, Query<crate::rules::turns::moving::MoverView>)>,
) -> Result<(), Refusal> {
    landing((&order, &field), &mut creatures, creature).map(|_| ())
}

/// Whether a flier at `altitude` is no higher than its space: it lands as a free action (004:669), or from a
/// stall with its second move action (004:700).
fn low_enough_to_land(altitude: i32, space: &Space) -> bool {
    altitude <= space.width.max(1)
}

/// Whether the ground under a flier is a space it may stand on, as a move's end must be (000:126-129): no
/// wall, pit or obstacle, no creature it may not share a space with.
fn room_to_land(
    field: &Battlefield,
    creatures: &Query<crate::rules::turns::moving::MoverView>,
    flier: Entity,
) -> Result<(), Refusal> {
    use crate::rules::movement::{Medium, Mover, StepWorld, legal_space, mover_of, occupants_for};
    use crate::rules::turns::moving::{bodies, body_of};
    let Ok(c) = creatures.get(flier) else { return Ok(()) };
    let grounded = crate::rules::core::creature::Body { altitude: 0, ..body_of(&c) };
    let all = crate::rules::turns::moving::unshared_bodies(field.scale(), bodies(creatures.iter()), *c.size);
    let occupants = occupants_for(&all, &grounded);
    let mover = Mover { medium: Medium::Land, ..mover_of(*c.size, c.speed, 0, c.traits, c.skills) };
    legal_space(&StepWorld { field, occupants: &occupants }, &mover, grounded.footprint)
        .map_err(|r| Refusal::new(format!("no room to land: {}", r.reason), r.rule))
}

/// At the end of a flier's turn (004:696-701): a stall drops it 45 m and it starts its next turn in free
/// fall; a flier that did not fly at all (not perfect, not just taken off) falls 180 m. Reaching the
/// ground, it takes falling damage and lies prone.
fn end_of_turn_falls(
    mut io: ParamSet<(MessageReader<Fact>, FallOutput)>,
    mut fliers: Query<(Entity, &CreatureId, &mut Altitude, &Speed, &mut Flight, &Conditions, &Space)>,
    mut dice: ResMut<Dice>,
    field: Res<Battlefield>,
) {
    let scale = field.scale();
    let mut ended: Vec<CreatureId> = Vec::new();
    let mut knocked_out: Vec<CreatureId> = Vec::new();
    for fact in io.p0().read() {
        match fact {
            Fact::TurnEnded { creature } => ended.push(creature.clone()),
            Fact::ConditionGained {
                creature,
                condition: Condition::Unconscious | Condition::Dying | Condition::Dead | Condition::Helpless,
            } => knocked_out.push(creature.clone()),
            _ => {}
        }
    }
    let mut out = io.p1();
    for (entity, id, mut altitude, speed, mut flight, conditions, space) in &mut fliers {
        // A flier that can no longer act drops at once (004:696).
        if knocked_out.contains(id) && altitude.0 > 0 && !conditions.can_act() {
            flight.falling = true;
            fall(
                entity,
                id,
                &mut altitude,
                (scale, scale.free_fall_steps()),
                "unable to fly: it falls (004:696)",
                &mut flight,
                &mut dice,
                &mut out,
            );
            continue;
        }
        if !ended.contains(id) {
            continue;
        }
        let perfect = speed.fly.is_some_and(|w| w.maneuverability == Maneuverability::Perfect);
        let stalled = flight.flown == Some(SpeedStatus::Stall);
        let drop = if altitude.0 <= 0 || flight.fell {
            None
        } else if stalled
            && scale == crate::rules::core::altitude::Scale::Normal
            && low_enough_to_land(altitude.0, space)
        {
            // Low enough to land and not landed with its second move action, it crashes, hurt as from the
            // height its move began at (004:670, 004:700).
            crash(entity, id, &mut altitude, &mut flight, &mut dice, &mut out, scale);
            None
        } else if stalled {
            flight.falling = true;
            Some((scale.stall_drop_steps(), "a stall: 45 m (a band) down at the end of the turn (004:701, 004:703)"))
        } else if flight.flown.is_none() && !flight.took_off && !perfect && conditions.can_act() {
            flight.falling = true;
            Some((scale.free_fall_steps(), "not flying: a free fall of 180 m (3 bands) (004:696, 004:699)"))
        } else if flight.flown.is_none() && !perfect && !conditions.can_act() {
            flight.falling = true;
            Some((scale.free_fall_steps(), "unable to fly: a free fall of 180 m (3 bands) (004:696, 004:699)"))
        } else {
            None
        };
        if let Some((steps, why)) = drop {
            fall(entity, id, &mut altitude, (scale, steps), why, &mut flight, &mut dice, &mut out);
        }
        flight.flown = None;
        flight.took_off = false;
        flight.fell = false;
    }
}

/// A stall that could have landed and did not: « elle s'écrase, subissant alors les dégâts de chute
/// correspondant à son altitude au début de son déplacement » (004:700; 004:670).
fn crash(
    entity: Entity,
    id: &CreatureId,
    altitude: &mut Altitude,
    flight: &mut Flight,
    dice: &mut Dice,
    out: &mut FallOutput,
    scale: crate::rules::core::altitude::Scale,
) {
    let fallen_m = scale.height_m(altitude.0);
    let from_m = scale.height_m(flight.flight_from.max(altitude.0));
    altitude.0 = 0;
    flight.falling = false;
    out.facts.write(Fact::Fell {
        creature: id.clone(),
        metres: fallen_m,
        altitude_m: 0.0,
        reason: format!(
            "a stall low enough to land, not landed: it crashes, hurt as from {from_m} m, where its move began (004:700)"
        ),
    });
    out.hit_the_ground(entity, id, from_m, dice);
}

#[expect(clippy::too_many_arguments, reason = "the fall's inputs and its outputs")]
fn fall(
    entity: Entity,
    id: &CreatureId,
    altitude: &mut Altitude,
    (scale, steps): (crate::rules::core::altitude::Scale, i32),
    why: &str,
    flight: &mut Flight,
    dice: &mut Dice,
    out: &mut FallOutput,
) {
    let from_m = scale.height_m(altitude.0);
    altitude.0 = (altitude.0 - steps).max(0);
    let fallen_m = from_m - scale.height_m(altitude.0);
    out.facts.write(Fact::Fell {
        creature: id.clone(),
        metres: fallen_m,
        altitude_m: scale.height_m(altitude.0),
        reason: why.into(),
    });
    if altitude.0 == 0 {
        flight.falling = false;
        out.hit_the_ground(entity, id, fallen_m, dice);
    }
}

/// At the start of its turn, a flier in free fall tries to recover, a fly check DC 5 (004:763); failing,
/// it falls 180 m at once and stays in free fall.
fn start_of_turn_recovery(
    mut io: ParamSet<(MessageReader<Fact>, FallOutput)>,
    mut fliers: Query<(Entity, &CreatureId, &mut Altitude, &Speed, &Abilities, &mut Flight)>,
    riders: Query<(&crate::rules::core::creature::Riding, &Seat, &Skills, &Conditions, &Abilities)>,
    mut dice: ResMut<Dice>,
    field: Res<Battlefield>,
) {
    let scale = field.scale();
    let started = crate::rules::core::facts::turns_started(&mut io.p0());
    let mut out = io.p1();
    for (entity, id, mut altitude, speed, abilities, mut flight) in &mut fliers {
        if !started.contains(id) {
            continue;
        }
        // A new turn: last round's speed is spent, and the manoeuvres of last turn's recovery.
        flight.speed_m = 0.0;
        flight.recovered = false;
        if !flight.falling || altitude.0 <= 0 {
            continue;
        }
        let Some(wings) = speed.fly else { continue };
        let dc = AdvancedManeuver::Recovery.dc().unwrap_or(5);
        // The rider who directs it rolls its Ride in place of the flier's Dex, when better (004:734, 004:811).
        let ride = riders
            .iter()
            .find(|(riding, seat, _, conditions, _)| riding.0 == entity && !seat.passenger && conditions.can_act())
            .map(|(_, _, skills, conditions, abilities)| rider_ride(skills, abilities, conditions));
        let table = fly_check_modifier(wings.maneuverability, SpeedStatus::FreeFall);
        let bonus = crate::rules::mounted::fly_check_bonus(ability_modifier(abilities.dex), table, ride).0;
        if roll_check(&mut dice, &mut out.facts, id, Check::Fly, "recovery from a free fall (004:763)", bonus, dc) {
            flight.falling = false;
            flight.heading_free = true;
            flight.since_maneuver = SETTING_OFF_AFRESH;
            flight.after_turn = false;
            flight.recovered = true;
        } else {
            flight.fell = true;
            fall(
                entity,
                id,
                &mut altitude,
                (scale, scale.free_fall_steps()),
                "no recovery: the free fall goes on (004:764)",
                &mut flight,
                &mut dice,
                &mut out,
            );
        }
    }
}

/// The flights `creature` could fly now, each ending on a square (the planner of [`super::planner::flights`]
/// over the real field and creatures), after `prefix`'s climbs and dives, at the speed it `declared` (any
/// but a hover or top speed when `None`); `None` when it cannot fly.
pub fn plan_flights(
    world: &mut World,
    creature: Entity,
    prefix: &[FlightStep],
    declared: Option<SpeedStatus>,
) -> Option<std::collections::HashMap<crate::rules::core::geometry::Square, super::planner::PlannedFlight>> {
    plan_flights_through(world, creature, prefix, declared, None)
}

/// A flier's fly check bonus before the table's modifiers, for the planner: its Dex modifier, or the Ride of
/// the rider who directs it when better (004:734, 004:811), less the -5 of a pursuer misled by a Bluff
/// (every check the planner plans is a turn, 004:818).
fn planning_check_bonus(world: &World, creature: Entity) -> i32 {
    let conditions = world.get::<Conditions>(creature).cloned().unwrap_or_default();
    let dex = world.get::<Abilities>(creature).map_or(0, |a| ability_modifier(abilities_in_play(a, &conditions).dex));
    let ride = world.get::<Riders>(creature).and_then(|riders| {
        riders
            .all()
            .iter()
            .find(|r| {
                crate::rules::core::creature::directs(
                    world.get::<Seat>(**r),
                    world.get::<Conditions>(**r).unwrap_or(&Conditions::default()),
                )
            })
            .and_then(|r| {
                let (skills, abilities) = (world.get::<Skills>(*r)?, world.get::<Abilities>(*r)?);
                Some(rider_ride(skills, abilities, world.get::<Conditions>(*r).unwrap_or(&Conditions::default())))
            })
    });
    let misled = if world.get::<crate::rules::core::creature::Misled>(creature).is_some() {
        crate::rules::core::creature::MISLED_PENALTY
    } else {
        0
    };
    crate::rules::mounted::fly_check_bonus(dex, 0, ride).0 + misled
}

/// [`plan_flights`], with the flights that enter the space of `through` (the flier it means to run into,
/// 004:758, 004:825) not stopped there: the rules make the collision when the flight comes to it.
pub fn plan_flights_through(
    world: &mut World,
    creature: Entity,
    prefix: &[FlightStep],
    declared: Option<SpeedStatus>,
    through: Option<Entity>,
) -> Option<std::collections::HashMap<crate::rules::core::geometry::Square, super::planner::PlannedFlight>> {
    plan_flights_as(world, creature, (prefix, declared), through, (false, false))
}

/// [`plan_flights`] for a deceleration (004:760): flights under half its speed, read on the slow row.
pub fn plan_decelerations(
    world: &mut World,
    creature: Entity,
    prefix: &[FlightStep],
) -> Option<std::collections::HashMap<crate::rules::core::geometry::Square, super::planner::PlannedFlight>> {
    plan_flights_as(world, creature, (prefix, Some(SpeedStatus::Stall)), None, (false, true))
}

/// [`plan_flights`] for a dive attack or a swoop (004:751-753): the dives are that manoeuvre's descent, not
/// manoeuvres of their own ([`Flier::attack_descent`](super::route::Flier)).
pub fn plan_attack_flights(
    world: &mut World,
    creature: Entity,
    prefix: &[FlightStep],
    declared: Option<SpeedStatus>,
) -> Option<std::collections::HashMap<crate::rules::core::geometry::Square, super::planner::PlannedFlight>> {
    plan_flights_as(world, creature, (prefix, declared), None, (true, false))
}

fn plan_flights_as(
    world: &mut World,
    creature: Entity,
    (prefix, declared): (&[FlightStep], Option<SpeedStatus>),
    through: Option<Entity>,
    flags: (bool, bool),
) -> Option<std::collections::HashMap<crate::rules::core::geometry::Square, super::planner::PlannedFlight>> {
    // Resting after a run, it flies no faster than its speed (004:249): slow flights only.
    let round = world.resource::<TurnOrder>().round;
    let resting = world
        .get::<crate::rules::turns::moving::Exertion>(creature)
        .and_then(|e| e.resting_until)
        .is_some_and(|until| round < until);
    let declared = declared.or_else(|| resting.then_some(SpeedStatus::Slow));
    let (flier, bodies, my_size) = planning_flier(world, creature, through, flags)?;
    let field = world.resource::<Battlefield>();
    let obstacle = |from: Footprint, fp: Footprint, alt: i32| obstacle_at(field, &bodies, my_size, (from, fp), alt);
    let mut flights = super::planner::flights(&flier, prefix, declared, &obstacle);
    // Not one that stops in an ally's space (000:74-75).
    flights.retain(|_, planned| {
        planned.flight.waypoints.last().is_none_or(|end| {
            let at = Footprint::rect(end.square, flier.at.width, flier.at.height);
            stopped_in(field.scale(), &bodies, my_size, (at, end.altitude)).is_none()
        })
    });
    Some(flights)
}

/// Ends `flight` against the ally whose space its last squares hold, if it ended there: the flight stops
/// before the first of them, in a collision with that ally.
fn crash_into_an_ally(
    flight: &mut super::route::Flight,
    bodies: &[Traffic],
    (scale, size): (crate::rules::core::altitude::Scale, Size),
    start: Footprint,
) {
    let at = |w: &super::route::Waypoint| (Footprint::rect(w.square, start.width, start.height), w.altitude);
    let Some(ally) = flight.waypoints.last().and_then(|end| stopped_in(scale, bodies, size, at(end))) else { return };
    let inside = |w: &super::route::Waypoint| {
        let (fp, alt) = at(w);
        ally.footprint.overlaps(fp) && heights_overlap(scale, (alt, size), (ally.altitude, ally.size))
    };
    let first = flight.waypoints.iter().rposition(|w| !inside(w)).map_or(0, |i| i + 1);
    if first == 0 {
        return;
    }
    let step = flight.waypoints[first].step;
    flight.waypoints.truncate(first);
    flight.collision = Some((step, ally.id.clone()));
}

/// The ally in whose space, at its height, a flier of `size` would stop at `end`: a space it may cross but
/// not stop in (« Il est impossible de s'arrêter dans l'espace occupé par une créature qui n'est pas sans
/// défense », 000:74-75). At chase scale a square holds many (004:651).
fn stopped_in(
    scale: crate::rules::core::altitude::Scale,
    bodies: &[Traffic],
    size: Size,
    (at, altitude): (Footprint, i32),
) -> Option<&Traffic> {
    if scale == crate::rules::core::altitude::Scale::Chase {
        return None;
    }
    bodies
        .iter()
        .filter(|b| b.passage == Passage::Crossed)
        .find(|b| b.footprint.overlaps(at) && heights_overlap(scale, (altitude, size), (b.altitude, b.size)))
}

/// A flier in the air that has not flown this turn as the planner sees it, with the other creatures (but
/// `through`) and its size; `None` when it cannot fly now.
fn planning_flier(
    world: &mut World,
    creature: Entity,
    through: Option<Entity>,
    (attack_descent, decelerating): (bool, bool),
) -> Option<(Flier, Vec<Traffic>, Size)> {
    // Riders are where their mounts are: no obstacle of their own.
    let mut q = kept::<
        (
            Entity,
            &CreatureId,
            &Position,
            &Space,
            &Altitude,
            &Heading,
            &Size,
            Option<&Flight>,
            &Speed,
            (&Faction, &Conditions, &Traits),
        ),
        Without<Riding>,
    >(world);
    let (mine, my_size) = q.get(world, creature).map(|o| (o.9.0.clone(), *o.6)).ok()?;
    let all: Vec<_> = q
        .iter(world)
        .map(|(e, id, p, s, a, h, size, f, speed, theirs)| {
            let passage = Passage::of((&mine, my_size), (theirs, *size));
            (e, id.0.clone(), s.at(p.0), a.0, h.0, *size, f.copied(), *speed, passage)
        })
        .collect();
    let (_, _, at, altitude, heading, my_size, flight, speed, _) = all.iter().find(|c| c.0 == creature).cloned()?;
    let encumbrance = world.get::<Encumbrance>(creature).copied().unwrap_or_default();
    let traits = world.get::<Traits>(creature).cloned().unwrap_or_default();
    let wings = crate::rules::core::creature::fly_speed(&speed, encumbrance, &traits)?;
    if altitude <= 0 || flight.is_some_and(|f| f.falling || f.flown.is_some()) {
        return None;
    }
    let field = world.resource::<Battlefield>();
    let scale = field.scale();
    let flier = Flier {
        at,
        altitude,
        heading,
        speed_m: wings.squares as f32 * 1.5,
        maneuverability: wings.maneuverability,
        hover_feat: world.get::<Feats>(creature).is_some_and(|f| f.has(Feat::Hover)),
        since_maneuver: flight.map_or(0, |f| f.since_maneuver),
        scale,
        diagonals: field.diagonals(),
        check_bonus: planning_check_bonus(world, creature),
        odd_diagonal: world.get::<ActionBudget>(creature).is_some_and(|b| b.odd_diagonal),
        attack_descent,
        heading_free: flight.is_some_and(|f| f.heading_free),
        after_turn: flight.is_some_and(|f| f.after_turn),
        decelerating,
        maneuvers_spent: if flight.is_some_and(|f| f.recovered) { super::ADVANCED_MANEUVER_COST } else { 0 },
    };
    let bodies: Vec<Traffic> = all
        .into_iter()
        .filter(|c| c.0 != creature && Some(c.0) != through)
        .map(|(entity, id, footprint, altitude, heading, size, flight, _, passage)| Traffic {
            entity,
            id,
            footprint,
            altitude,
            heading,
            size,
            speed_m: flight.map_or(0.0, |f| f.speed_m),
            riders: Vec::new(),
            passage,
        })
        .collect();
    Some((flier, bodies, my_size))
}

/// The charge `creature`, a flier in the air, could fly at `foe` now (004:451-459, 004:693): straight on
/// along its heading (toward the foe when its heading is free), diving or climbing a step at a time toward
/// the foe's height while it can, forward otherwise, to the first square of its way from which it
/// threatens the foe; checked as the rules will check it ([`check_flying_charge`]). The steps and where
/// they end, or why there is no such charge.
pub fn plan_charge(
    world: &mut World,
    creature: Entity,
    foe: Entity,
) -> Result<(Vec<FlightStep>, super::route::Waypoint), Refusal> {
    let grounded = || Refusal::new("not a flier in the air with its flight still to fly", "004:686");
    let budget = world.get::<ActionBudget>(creature).copied().unwrap_or_default();
    budget.check_full_round_or_one_action()?;
    // Its foe in sight as the turn begins (004:454).
    crate::rules::turns::moving::charge_sight(world, creature, foe)?;
    let (flier, bodies, my_size) = planning_flier(world, creature, None, (false, false)).ok_or_else(grounded)?;
    let Some(target) = bodies.iter().find(|b| b.entity == foe).cloned() else {
        return Err(Refusal::new("a charge needs a target", "004:451"));
    };
    let conditions = world.get::<Conditions>(creature).cloned().unwrap_or_default();
    let armament = world.get::<Armament>(creature).cloned().unwrap_or_default();
    let reach = world.get::<Reach>(creature).map_or(1, |r| r.0);
    // A rider directs it (004:806-812): the same rider the fly checks take the Ride of.
    let restricted = world.get::<ActionBudget>(creature).is_some_and(|b| b.restricted);
    let ridden = world.get::<Riders>(creature).is_some_and(|riders| {
        riders.all().iter().any(|r| {
            crate::rules::core::creature::directs(
                world.get::<Seat>(*r),
                world.get::<Conditions>(*r).unwrap_or(&Conditions::default()),
            )
        })
    });
    let perfect = flier.maneuverability == Maneuverability::Perfect;
    let field = world.resource::<Battlefield>();
    let scale = field.scale();
    let obstacle = |from: Footprint, fp: Footprint, alt: i32| obstacle_at(field, &bodies, my_size, (from, fp), alt);
    let mut intent = FlyIntent {
        creature,
        steps: Vec::new(),
        hover: false,
        dive_at: None,
        charge_at: Some(foe),
        flyby: None,
        decelerate: false,
        swoop: false,
        ram: None,
        bluff: None,
    };
    let (dx, dy) = (target.footprint.origin.x - flier.at.origin.x, target.footprint.origin.y - flier.at.origin.y);
    let toward = Direction::from_delta(dx.signum(), dy.signum()).ok_or_else(|| {
        Refusal::new("the target is already within reach: a charge moves at least 2 squares", "004:452")
    })?;
    if flier.heading_free {
        intent.steps.push(FlightStep::Face(toward));
    } else if perfect {
        // A perfect flier heeds no heading (004:676): it turns to face its foe first.
        let turns = flier.heading.turns_between(toward) as usize;
        let side = if flier.heading.turned(turns as i32) == toward {
            super::route::Side::Right
        } else {
            super::route::Side::Left
        };
        intent.steps.extend(std::iter::repeat_n(FlightStep::Turn(side), turns));
    }
    let threatens = charge_threat(field, &armament, (my_size, reach), &target)?;
    let most = 2 * (flier.speed_m / scale.square_m()) as u32 + 2;
    let why = Refusal::new("the charge does not end where it threatens its foe", "004:453");
    let mut height = flier.altitude;
    for _ in 0..most {
        // Within a step of its height any weapon reaches it from beside it (1 + 0, 004:783).
        let apart = crate::rules::core::altitude::vertical_steps(scale, height, my_size, target.altitude, target.size);
        let toward_height = match apart {
            0 | 1 => None,
            _ if height > target.altitude => Some(FlightStep::Dive { far: false }),
            _ => Some(FlightStep::Climb),
        };
        // The step toward its height if the flight allows it, else straight on.
        let (step, plan) = toward_height
            .into_iter()
            .chain([FlightStep::Forward])
            .find_map(|step| {
                let mut trial = intent.steps.clone();
                trial.push(step);
                fly(&flier, &trial, false, |_, _| true, obstacle).ok().map(|plan| (step, plan))
            })
            .ok_or_else(|| why.clone())?;
        intent.steps.push(step);
        height = plan.waypoints.last().map_or(height, |w| w.altitude);
        // Short of where it threatens the foe, it flies on.
        if let Some(end) = plan.waypoints.last().copied()
            && threatens(Footprint::rect(end.square, flier.at.width, flier.at.height), end.altitude)
        {
            let start = (flier.at, flier.altitude, my_size, reach, perfect);
            return check_flying_charge(
                (field, &intent, &conditions, (restricted, ridden)),
                start,
                (&plan, &armament),
                (Some(&target), &bodies),
            )
            .map(|()| (intent.steps, end));
        }
    }
    Err(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::aerial::route::Waypoint;
    use crate::rules::core::geometry::Square;

    fn waypoint(x: i32, y: i32, altitude: i32, step: usize) -> Waypoint {
        Waypoint { square: Square::new(x, y), altitude, heading: Direction::East, spent: 0, step }
    }

    #[test]
    fn a_flight_leaves_each_square_in_turn_at_the_height_it_flies_004_65() {
        let start = Footprint::rect(Square::new(0, 0), 2, 2);
        // Ahead one square at 1.5 m, a climb to 3 m, then a step of two squares (a fast dive's).
        let way = [waypoint(1, 0, 1, 0), waypoint(2, 0, 2, 1), waypoint(4, 0, 2, 2)];
        let legs = legs_of(start, 1, &way, None);
        let froms: Vec<(i32, i32)> = legs.iter().map(|l| (l.at.origin.x, l.altitude)).collect();
        assert_eq!(froms, vec![(0, 1), (1, 1), (2, 2), (3, 2)]);
        // A Large flier leaves its back column: two squares each step.
        assert_eq!(legs[0].left, vec![Square::new(0, 0), Square::new(0, 1)]);
        // Stopped at the second step for a flyby attack: the legs end there.
        assert_eq!(legs_of(start, 1, &way, Some(1)).len(), 2);
    }
}
