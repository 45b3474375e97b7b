//! The opposed checks of the combat manoeuvres (004:446-489), shared by the special attacks and by the
//! attacks of opportunity: each side's terms (the ability, +4 per size category above Medium and -4 per
//! category below, the defender's stability, 004:448, 004:485), and the trip (004:483-489), which a creature
//! may make in place of any melee attack with its trip weapon (004:489), an attack of opportunity too.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::{AttackPlan, CombatantItem};
use crate::rules::core::checks::{Check, contest};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;

/// One side of an opposed check of the special attacks, with its terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// The ability it checks with.
    pub check: Check,
    /// Its terms: the ability, size, stability, a charge.
    pub terms: Vec<Modifier>,
}

impl Side {
    /// The bonus: the sum of its terms.
    pub fn bonus(&self) -> i32 {
        self.terms.iter().map(|m| m.value).sum()
    }

    /// The chance this side wins the contest against `other`, ties settled as contests settle them.
    pub fn chance_against(&self, other: &Side) -> f32 {
        crate::rules::core::checks::contest_chance(self.bonus(), other.bonus())
    }
}

/// The size term of a trip's or a bull rush's check: +4 per category above Medium, -4 per category below
/// (004:448, 004:485).
pub fn size_term(size: Size) -> i32 {
    4 * Size::Medium.steps_to(size)
}

/// A side checking `check` (Strength or Dexterity) with the size term, and +4 if `resisting` and stable,
/// having more than two legs or otherwise hard to move (004:448, 004:485).
pub fn strength_side(c: &CombatantItem, check: Check, resisting: bool) -> Side {
    let (value, name) = match check {
        Check::Dexterity => (ability_modifier(c.in_play().dex), "Dex"),
        _ => (ability_modifier(c.abilities.str), "Str"),
    };
    let mut terms = vec![Modifier::new(value, name)];
    let size = size_term(*c.size);
    if size != 0 {
        terms.push(Modifier::new(size, "size (004:448, 004:485)"));
    }
    if resisting && c.traits.stable {
        terms.push(Modifier::new(4, "stable (004:448, 004:485)"));
    }
    Side { check, terms }
}

/// The trip's attacker side: Strength, and size (004:485).
pub fn tripping_side(c: &CombatantItem) -> Side {
    strength_side(c, Check::Strength, false)
}

/// The side that resists a trip: the better of Strength and Dexterity, size, and +4 for more than two legs
/// or a stability of its own (004:485). A rider may check Ride instead (004:488), with the size term but
/// not its own legs' stability (our ruling): it takes the best of the three.
pub fn resisting_side(c: &CombatantItem) -> Side {
    let (str, dex) = (ability_modifier(c.abilities.str), ability_modifier(c.in_play().dex));
    let check = if dex > str { Check::Dexterity } else { Check::Strength };
    // In the saddle its legs do not hold it up: no stability of its own (our ruling).
    let on_foot = strength_side(c, check, c.seat.is_none());
    if c.seat.is_none() {
        return on_foot;
    }
    let ride = crate::rules::core::creature::dex_skill(c.skills.ride, c.abilities, c.conditions);
    let mut riding = Side { check: Check::Ride, terms: vec![Modifier::new(ride, "Ride (004:488)")] };
    let size = size_term(*c.size);
    if size != 0 {
        riding.terms.push(Modifier::new(size, "size (004:485)"));
    }
    if riding.bonus() > on_foot.bonus() { riding } else { on_foot }
}

/// Whether `target` can be tripped by `attacker` at all: at most one size larger (004:483), on its feet or
/// on a mount (004:487-488), and on the ground (our ruling: a flier in the air has nothing to trip on).
pub fn trippable(attacker: &CombatantItem, target: &CombatantItem) -> Result<(), Refusal> {
    let lying = target.conditions.has(Condition::Prone) && target.seat.is_none();
    let aloft = crate::rules::core::creature::flying(target.speed, target.altitude.0);
    trippable_as(*attacker.size, (*target.size, lying, aloft))
}

/// [`trippable`] from its parts: the attacker's size, and the target's size, whether it lies on the ground
/// (prone and riding nothing) and whether it is a flier in the air (a walker on a ledge stands on its feet).
fn trippable_as(attacker: Size, (size, lying, aloft): (Size, bool, bool)) -> Result<(), Refusal> {
    if attacker.steps_to(size) > 1 {
        return Err(Refusal::new("a foe more than one size larger cannot be tripped", "004:483"));
    }
    if lying {
        return Err(Refusal::new("it is already on the ground", "004:487"));
    }
    if aloft {
        return Err(Refusal::new("a creature in the air cannot be tripped (our ruling)", "004:483, docs/rulings.md"));
    }
    Ok(())
}

/// A rider tripped off its mount (004:488): the chapter of mounted combat sets it on the ground, prone.
#[derive(Message, Clone, Copy, Debug)]
pub struct PulledDown {
    /// The rider.
    pub rider: Entity,
}

/// Where the tripped fall: prone, and a rider pulled off its mount first (004:487-488); and who a blow in
/// the middle of an action slays outright (a failed save against massive damage, 004:272).
#[derive(SystemParam)]
pub struct Falls<'w> {
    /// Conditions gained.
    pub conditions: MessageWriter<'w, ConditionChange>,
    /// Riders pulled down, for the mounted chapter.
    pub pulled: MessageWriter<'w, PulledDown>,
    /// Creatures slain on the spot, for the health chapter.
    pub slain: MessageWriter<'w, super::Slay>,
    /// What a strike costs a disabled striker (004:274), for the health chapter.
    pub strain: MessageWriter<'w, crate::rules::turns::Strain>,
}

impl Falls<'_> {
    /// Lays `who` down: a rider is pulled to the ground (004:488), then it lies prone (004:487).
    pub fn lay_down(&mut self, who: &CombatantItem) {
        if who.seat.is_some() {
            self.pulled.write(PulledDown { rider: who.entity });
        }
        self.conditions.write(ConditionChange { creature: who.entity, condition: Condition::Prone, gained: true });
    }
}

/// How a trip's opposed check ended (004:485).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TripOutcome {
    /// The defender lies prone.
    Tripped,
    /// The defender won, and tripped the attacker back.
    TrippedBack,
    /// Neither fell.
    Resisted,
}

/// Rolls a trip's opposed check once its touch attack has touched (004:485): the attacker's Strength
/// against the defender's better side; a defender who wins may at once try to trip back, and the AI and the
/// player's defender always do. Writes the facts and lays the fallen down; `why` names the trip in the log.
pub fn roll_trip_check(
    (dice, facts, falls): (&mut Dice, &mut MessageWriter<Fact>, &mut Falls),
    attacker: &CombatantItem,
    target: &CombatantItem,
    why: &str,
) -> TripOutcome {
    let (ours, theirs) = (tripping_side(attacker), resisting_side(target));
    if contest(dice, facts, (attacker.id, ours.check, &ours.terms), (target.id, theirs.check, &theirs.terms), why) {
        falls.lay_down(target);
        return TripOutcome::Tripped;
    }
    // Tripping back is a trip: the attacker must be one the defender may trip (004:483), by a defender
    // that can act (a helpless one tries nothing, 004:278).
    if trippable(target, attacker).is_err() || !target.conditions.can_act() {
        return TripOutcome::Resisted;
    }
    let (back, resisting) = (tripping_side(target), resisting_side(attacker));
    let tripped_back = contest(
        dice,
        facts,
        (target.id, back.check, &back.terms),
        (attacker.id, resisting.check, &resisting.terms),
        "tripping back (004:485)",
    );
    if tripped_back {
        falls.lay_down(attacker);
        return TripOutcome::TrippedBack;
    }
    TripOutcome::Resisted
}

/// What a creature's attacks of opportunity do. The game resolves them in the middle of the foe's action,
/// so the player says beforehand (our ruling, docs/rulings.md): strike, trip, disarm or sunder where it can,
/// or weigh it each time as the AI does.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpportunityChoice {
    /// Strike for damage.
    #[default]
    Strike,
    /// Trip in place of the blow wherever a trip is allowed (004:483, 004:489).
    Trip,
    /// Disarm in place of the blow wherever a disarm is allowed (004:490).
    Disarm,
    /// Sunder the foe's weapon in place of the blow wherever a sunder is allowed (004:499).
    Sunder,
    /// Trip a foe on the move when the trip is likely and the blow would not drop it, else disarm or sunder
    /// it when that is likely; strike otherwise.
    Weigh,
    /// Make none: « Porter une attaque d'opportunité n'est pas obligatoire » (004:68). The creature keeps
    /// its attacks of opportunity and strikes no one by them.
    Hold,
}

impl OpportunityChoice {
    /// The choices in the order the bar's switch goes through them.
    pub const ALL: [Self; 6] = [Self::Strike, Self::Trip, Self::Disarm, Self::Sunder, Self::Weigh, Self::Hold];
}

/// The chance a trip planned as `touch` lays the foe down: the touch attack lands, then the check is won.
pub fn trip_chance(touch: &AttackPlan, attacker: &CombatantItem, target: &CombatantItem) -> f32 {
    touch.chance() * tripping_side(attacker).chance_against(&resisting_side(target))
}

/// The weapon a creature would trip with in place of an attack of opportunity, among those it threatens
/// with (004:62): a trip weapon, else its unarmed strike with Improved Trip; neither provokes (004:486,
/// 004:489), and an unarmed trip without the feat is not offered there (our ruling: it would provoke from the
/// foe in the middle of its action).
pub fn opportunity_trip_weapon<'a>(armament: &'a Armament, feats: &Feats, traits: &Traits) -> Option<&'a Weapon> {
    let threatening = threatening_weapons_of(armament, feats, traits);
    let unarmed_trip = |w: &&&Weapon| w.unarmed && feats.has(Feat::ImprovedTrip);
    threatening.iter().find(|w| w.trip).or_else(|| threatening.iter().find(unarmed_trip)).copied()
}

/// The weapons a creature threatens with (004:62), its unarmed strike among them when it strikes as if armed
/// (a monk's, or with Improved Unarmed Strike): those its attacks of opportunity may be made with.
pub fn threatening_weapons_of<'a>(armament: &'a Armament, feats: &Feats, traits: &Traits) -> Vec<&'a Weapon> {
    let armed_unarmed = crate::rules::core::creature::armed_unarmed(traits, feats, false);
    crate::rules::core::reach::threatening_weapons(&armament.0, armed_unarmed)
}

/// The choice of a creature that may trip in place of its attacks of opportunity, if it may at all: it
/// could (a trip weapon in hand, or Improved Trip) and its choice is to trip or to weigh. What the previews
/// warn of.
pub fn trips_by_opportunity(world: &World, creature: Entity) -> Option<OpportunityChoice> {
    let choice = world.get::<OpportunityChoice>(creature).copied().unwrap_or_default();
    let (armament, feats) = (world.get::<Armament>(creature)?, world.get::<Feats>(creature)?);
    let traits = world.get::<Traits>(creature)?;
    (matches!(choice, OpportunityChoice::Trip | OpportunityChoice::Weigh)
        && opportunity_trip_weapon(armament, feats, traits).is_some())
    .then_some(choice)
}

/// Whether `tripper` would trip `mover` in place of an attack of opportunity: its choice says trip or weigh,
/// it could, and `mover` is one it may trip (004:483). What the move previews warn of.
pub fn may_trip_by_opportunity(world: &World, tripper: Entity, mover: Entity) -> bool {
    if trips_by_opportunity(world, tripper).is_none() {
        return false;
    }
    let (Some(by), Some(size), Some(conditions)) =
        (world.get::<Size>(tripper), world.get::<Size>(mover), world.get::<Conditions>(mover))
    else {
        return false;
    };
    let lying = conditions.has(Condition::Prone) && world.get::<Seat>(mover).is_none();
    let aloft = world
        .get::<Altitude>(mover)
        .zip(world.get::<Speed>(mover))
        .is_some_and(|(a, s)| crate::rules::core::creature::flying(s, a.0));
    trippable_as(*by, (*size, lying, aloft)).is_ok()
}

/// The touch attack of a trip a creature makes in place of its attack of opportunity, if it would: a trip
/// weapon it holds, or its unarmed strike with Improved Trip, neither of which provokes (004:486, 004:489),
/// threatening the foe (004:62), which can be tripped; and its choice says trip. `blow` is the attack of
/// opportunity as planned, `situation` where it is made; `moving` whether the foe is on the move.
pub fn trip_in_place_of(
    choice: OpportunityChoice,
    (attacker, target): (&CombatantItem, &CombatantItem),
    (blow, situation): (&AttackPlan, super::AttackSituation<'_>),
    hit_points: &HitPoints,
    moving: bool,
) -> Option<AttackPlan> {
    // Only a foe on the move of its own is tripped: one provoking in place, or carried by a bull rush, an
    // overrun or a grapple's move, is struck (our ruling, docs/rulings.md).
    let trips_or_weighs = matches!(choice, OpportunityChoice::Trip | OpportunityChoice::Weigh);
    if !trips_or_weighs || !moving || trippable(attacker, target).is_err() {
        return None;
    }
    let weapon = opportunity_trip_weapon(attacker.armament, attacker.feats, attacker.traits)?;
    let mut touch =
        super::plan_attack(attacker, target, super::AttackSituation { weapon: Some(&weapon.name), ..situation })
            .ok()?;
    super::as_touch_attack(&mut touch);
    let trips = choice == OpportunityChoice::Trip
        || trip_chance(&touch, attacker, target) >= 0.3 && !likely_drops(blow, hit_points);
    trips.then_some(touch)
}

/// Whether the blow drops its target more often than not: it hits at least half the time and its mean
/// damage takes the target below 0 (a rule of thumb for [`OpportunityChoice::Weigh`]).
pub fn likely_drops(blow: &AttackPlan, hit_points: &HitPoints) -> bool {
    blow.chance() >= 0.5 && blow.mean_damage() > hit_points.current as f32
}
