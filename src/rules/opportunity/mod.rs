//! Attacks of opportunity (004:61-71): the squares a creature threatens, what provokes (leaving a
//! threatened square, entering a foe's square as a Tiny creature, a ranged attack in a threatened
//! square), how many a creature may make in a round, and their resolution in the middle of the action
//! that provoked them: a mover who drops stops where it dropped.

use bevy::prelude::*;
use serde::Serialize;

use crate::rules::attack::Damage;
use crate::rules::attack::disarming::{
    GearBlow, InPlace, WeaponDamage, gear_blow_in_place_of, roll_disarm, roll_sunder,
};
use crate::rules::attack::manoeuvre::{Falls, TripOutcome, roll_trip_check, trip_in_place_of};
use crate::rules::attack::{AttackPlan, AttackSituation, Combatant, CombatantItem, Cover, blind_of, plan_attack};
use crate::rules::core::battlefield::{Battlefield, HouseRules};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Diagonals, Footprint, Square};
use crate::rules::core::names::Action;
use crate::rules::core::reach::{melee_reaches_at_height, threatening_weapons};
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::movement::{MovementAction, Route};
use crate::rules::turns::MidAction;
use crate::rules::turns::moving::{MoveEnded, MovePhase, MoveStarting, Moving, PlanningMove};
use crate::rules::turns::ready::{Readied, ReadiedAction, Trigger, move_before};
use crate::rules::turns::{Provoking, TurnOrder};

/// Attacks of opportunity made since the creature's last turn began ("une seule par round", 004:68).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reactions {
    /// How many were made.
    pub used: u32,
    /// The round they last came back in.
    pub round: u32,
}

/// The foes that already struck at this creature for leaving their squares this turn (whoever's turn it
/// is): leaving several squares a foe threatens is one opportunity, over the two move actions of a turn too
/// (004:71).
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Provoked(pub Vec<Entity>);

/// How many attacks of opportunity a creature may make in a round: one (or the table's number, `base`),
/// and its Dexterity bonus more with Combat Reflexes (004:71).
pub fn reactions_per_round(base: u32, abilities: &Abilities, feats: &Feats) -> u32 {
    if feats.has(Feat::CombatReflexes) { base + ability_modifier(abilities.dex).max(0) as u32 } else { base }
}

/// A creature that could strike at a mover, as the provocation rules see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threat {
    /// The creature.
    pub entity: Entity,
    /// Its squares.
    pub footprint: Footprint,
    /// Its natural reach.
    pub reach: u32,
    /// Whether its threatening weapons are reach weapons (one entry per weapon it threatens with).
    pub weapon_reach: Vec<crate::rules::core::reach::WeaponReach>,
    /// The mover cannot see it (it is invisible, or the mover blind): a withdraw's first square is not safe
    /// from it (004:243).
    pub unseen: bool,
    /// Squares within its reach it does not threaten: a flier's blind spot (004:675-680).
    pub blind: Vec<Square>,
    /// It sits high on a Huge or larger mount: it threatens only the squares next to the mount, and only
    /// with a reach weapon (004:814).
    pub high: bool,
    /// How the table counts the diagonals its reach spans.
    pub diagonals: Diagonals,
    /// How far the mover is from it in height ([`crate::rules::core::altitude::vertical_steps`]): the
    /// height and the distance across make one distance (004:783).
    pub rise: u32,
    /// The scale of the squares and heights.
    pub scale: crate::rules::core::altitude::Scale,
}

impl Threat {
    /// Whether it threatens `square` (004:62-63): within reach of a weapon it threatens with.
    pub fn threatens(&self, square: Square) -> bool {
        if self.high {
            return self.weapon_reach.iter().any(|r| r.long()) && self.footprint.adjacent_to(Footprint::new(square, 1));
        }
        !self.blind.contains(&square)
            && self.weapon_reach.iter().any(|&reach_weapon| {
                let (own, theirs) = (self.footprint, Footprint::new(square, 1));
                melee_reaches_at_height(
                    (self.diagonals, self.scale),
                    self.reach,
                    reach_weapon,
                    (own, theirs),
                    self.rise,
                )
            })
    }
}

/// One moment of a move that provokes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provocation {
    /// Steps taken before the attacks fall (0: before the first step). A mover who drops stays where it is
    /// after that many steps.
    pub after_steps: usize,
    /// The square (north-west of the footprint) where the mover is when struck.
    pub square: Square,
    /// Who may strike, in the order given.
    pub from: Vec<Entity>,
    /// What provokes, with the rule.
    pub reason: &'static str,
}

/// Why leaving a square provokes.
pub const LEAVING: &str = "leaving a threatened square (004:64-65)";
/// Why a Tiny creature entering a foe's space provokes.
pub const ENTERING: &str = "entering a foe's space as a creature smaller than a square (000:80-82)";

/// Why a crawl provokes in a square it enters.
pub const CRAWLING: &str = "crawling in a threatened square (004:217)";

/// The attacks of opportunity a route provokes (004:64-65, 004:71): leaving a square a foe threatens
/// provokes it, once per foe for the whole movement of the turn (`already` struck earlier this turn); a
/// creature smaller than a square that enters a foe's space provokes it (000:80-82); a crawl provokes
/// every foe that threatens it « en tout point de son déplacement », the squares it enters too (004:217).
/// A withdraw's (004:243) squares it started on are not threatened by the foes it sees, however many steps
/// it takes to leave them. A 5-foot step provokes nothing (004:259) but a tiny creature's entering a foe's
/// space, which « s'expose forcément à l'attaque d'opportunité » (000:80-82), « automatiquement » (004:352).
pub fn provocations(
    start: Footprint,
    route: &Route,
    threats: &[Threat],
    (tiny, action): (bool, MovementAction),
    already: &[Entity],
    strikes_at: &dyn Fn(Entity, Footprint) -> bool,
) -> Vec<Provocation> {
    let first_square_free = action == MovementAction::Withdraw;
    let crawl = action == MovementAction::Crawl;
    let step_only = action == MovementAction::FiveFootStep;
    let mut struck: Vec<bool> = threats.iter().map(|t| already.contains(&t.entity)).collect();
    let mut out: Vec<Provocation> = Vec::new();
    let mut here = start;
    for (i, step) in route.steps.iter().enumerate() {
        let next = Footprint::rect(step.square, step.space.0, step.space.1);
        let left: Vec<Square> = here.squares().filter(|s| !next.contains(*s)).collect();
        let mut from = Vec::new();
        for (t, threat) in threats.iter().enumerate() {
            if struck[t] {
                continue;
            }
            // A withdraw's first squares are safe from the foes the mover sees (004:243).
            let safe = |s: &Square| first_square_free && !threat.unseen && start.contains(*s);
            // A foe that may not strike there (the mover in total concealment or behind cover from it,
            // 004:401, 004:414) has had no opportunity: it keeps it for a square further on.
            if !step_only && left.iter().any(|s| !safe(s) && threat.threatens(*s)) && strikes_at(threat.entity, here) {
                struck[t] = true;
                from.push(threat.entity);
            }
        }
        if !from.is_empty() {
            out.push(Provocation { after_steps: i, square: here.origin, from, reason: LEAVING });
        }
        let mut entering = Vec::new();
        for (t, threat) in threats.iter().enumerate() {
            if tiny
                && !struck[t]
                && threat.footprint.overlaps(next)
                && !threat.footprint.overlaps(here)
                && strikes_at(threat.entity, next)
            {
                struck[t] = true;
                entering.push(threat.entity);
            }
        }
        if !entering.is_empty() {
            out.push(Provocation { after_steps: i + 1, square: next.origin, from: entering, reason: ENTERING });
        }
        let mut crawling_in = Vec::new();
        for (t, threat) in threats.iter().enumerate() {
            if crawl && !struck[t] && next.squares().any(|s| threat.threatens(s)) && strikes_at(threat.entity, next) {
                struck[t] = true;
                crawling_in.push(threat.entity);
            }
        }
        if !crawling_in.is_empty() {
            out.push(Provocation { after_steps: i + 1, square: next.origin, from: crawling_in, reason: CRAWLING });
        }
        here = next;
    }
    out
}

/// Whether a creature can make an attack of opportunity now: able to act, not flat-footed (004:54), not in
/// total defence nor cowering, with one left this round and a weapon it threatens with; and whether it will:
/// one whose player holds its attacks of opportunity makes none (004:68). A creature of reach 0 threatens its
/// own square only (000:155-156): it strikes one passing through it (« de la part de l'occupant », 002:80),
/// none beside it.
pub fn can_react(house: HouseRules, c: &CombatantItem, reactions: &Reactions) -> bool {
    c.opportunity_choice.copied() != Some(crate::rules::attack::manoeuvre::OpportunityChoice::Hold)
        && c.conditions.can_act()
        && !c.conditions.has(Condition::FlatFooted)
        && !c.conditions.has(Condition::Cowering)
        && !c.conditions.has(Condition::TotalDefense)
        && !c.conditions.threatens_nothing()
        && reactions.used
            < reactions_per_round(
                house.attacks_of_opportunity,
                &crate::rules::core::creature::abilities_in_play(c.abilities, c.conditions),
                c.feats,
            )
        && !threatening_weapons(&c.armament.0, c.armed_unarmed()).is_empty()
}

/// A creature's threat to `mover` at `altitude`: its squares, reach and the weapons it threatens with, the
/// mover's height from it (004:783), whether the mover sees it (004:243), counted as `field` counts.
pub fn threat_of(field: &Battlefield, c: &CombatantItem, (mover, altitude): (&CombatantItem, i32)) -> Threat {
    let armed = c.armed_unarmed();
    let scale = field.scale();
    Threat {
        entity: c.entity,
        footprint: c.space.at(c.position.0),
        reach: c.reach.0,
        weapon_reach: threatening_weapons(&c.armament.0, armed).iter().map(|w| w.reach_kind()).collect(),
        unseen: !crate::rules::attack::sees(field, mover, c),
        blind: blind_of(c),
        high: c.seat.is_some_and(|s| s.high),
        diagonals: field.diagonals(),
        rise: crate::rules::core::altitude::vertical_steps(scale, c.altitude.0, *c.size, altitude, *mover.size),
        scale,
    }
}

/// The foes of `mover` that could strike at it, as threats, in `order` (initiative order).
pub fn threats_to<'a>(
    field: &crate::rules::core::battlefield::Battlefield,
    mover: &CombatantItem,
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
    reactions: impl Fn(Entity) -> Reactions,
    order: &[Entity],
) -> Vec<Threat> {
    threats_at(field, (mover, mover.altitude.0), creatures, reactions, order)
}

/// [`threats_to`] with the mover at `altitude` (in 1.5 m steps): a flight leaves each square at its own
/// height (004:656, 004:783-784).
pub fn threats_at<'a>(
    field: &crate::rules::core::battlefield::Battlefield,
    (mover, altitude): (&CombatantItem, i32),
    creatures: impl Iterator<Item = CombatantItem<'a, 'a>>,
    reactions: impl Fn(Entity) -> Reactions,
    order: &[Entity],
) -> Vec<Threat> {
    let scale = field.scale();
    let mut found: Vec<(usize, Threat)> = creatures
        .filter(|c| {
            c.entity != mover.entity
                && c.faction != mover.faction
                && can_react(field.house_rules(), c, &reactions(c.entity))
        })
        // A foe far above or below reaches nobody (004:783-784).
        .filter(|c| {
            let rise =
                crate::rules::core::altitude::vertical_steps(scale, c.altitude.0, *c.size, altitude, *mover.size);
            let armed = c.armed_unarmed();
            threatening_weapons(&c.armament.0, armed)
                .iter()
                .any(|w| rise <= crate::rules::core::altitude::vertical_reach(c.reach.0, w.reach_kind()))
        })
        // A rider high on a Huge mount is out of reach of those without reach (004:814).
        .filter(|c| {
            let armed = c.armed_unarmed();
            !mover.seat.is_some_and(|s| s.high)
                || c.reach.0 >= 2
                || threatening_weapons(&c.armament.0, armed).iter().any(|w| w.reach_kind().long())
        })
        .map(|c| {
            let rank = order.iter().position(|e| *e == c.entity).unwrap_or(usize::MAX);
            (rank, threat_of(field, &c, (mover, altitude)))
        })
        .collect();
    found.sort_by_key(|(rank, t)| (*rank, t.entity));
    found.into_iter().map(|(_, t)| t).collect()
}

/// The squares the `threats` not yet struck this turn threaten, on a map `width` × `height`: what the
/// path search avoids to offer the path that provokes least among the cheapest.
pub fn danger_of(threats: &[Threat], already: &[Entity], width: i32, height: i32) -> crate::rules::movement::Danger {
    let mut squares = Vec::new();
    for threat in threats.iter().filter(|t| !already.contains(&t.entity)) {
        let far = threat.reach as i32 * 2 + 1;
        let f = threat.footprint;
        for y in (f.origin.y - far).max(0)..(f.origin.y + f.height + far).min(height) {
            for x in (f.origin.x - far).max(0)..(f.origin.x + f.width + far).min(width) {
                let square = Square::new(x, y);
                if threat.threatens(square) {
                    squares.push(square);
                }
            }
        }
    }
    crate::rules::movement::Danger::new(width, height, squares)
}

/// The chance in a d% that an attack of opportunity on a creature sharing another's space strikes that
/// other instead (004:447).
pub const SHARED_SPACE_STRAY: u32 = 25;

/// What the foes' attacks of opportunity did to a creature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Struck {
    /// Hit points it has left.
    pub hit_points: i32,
    /// Whether it dropped (below 0, or knocked out by nonlethal damage): its action stops.
    pub dropped: bool,
    /// Whether a foe tripped it in place of its blow (004:483, 004:489): a move stops there.
    pub tripped: bool,
    /// Whether any damage came to it, lethal, nonlethal or off its temporary hit points: « le moindre
    /// dégât » spoils a grab (004:581), « des dégâts » a disarm (004:492).
    pub wounded: bool,
}

impl Struck {
    /// Still up and on its feet, with `hit_points` left.
    pub fn standing(hit_points: i32) -> Self {
        Self { hit_points, dropped: false, tripped: false, wounded: false }
    }
}

/// How a creature stands exposed when it provokes.
#[derive(Clone, Copy, Debug)]
pub struct Exposure<'a> {
    /// Its squares at that moment.
    pub at: Footprint,
    /// What provoked, with the rule.
    pub why: &'a str,
    /// What it is doing at that moment (running, squeezing).
    pub mid_action: MidAction,
    /// The creature whose space it shares (a bull rush's target, 004:447): a striker other than it rolls
    /// its attack, then a d% whose 25 or less strikes that creature instead.
    pub shared_with: Option<Entity>,
}

/// Whether `attacker` may make an attack of opportunity on `target` standing on `at`: none against a
/// creature with total concealment (004:414), nor a defender with cover from it (004:401), a creature's soft
/// cover against a reach weapon's blow too (004:399, 004:404), the water's to a creature in it against a foe
/// out of it (004:634). The one predicate of the strike and of the plan of a move's provocations.
pub fn may_strike_at(
    field: &Battlefield,
    creatures: &Query<Combatant, With<Creature>>,
    attacker: &CombatantItem,
    target: &CombatantItem,
    (at, altitude): (Footprint, i32),
) -> bool {
    let miss_chance = crate::rules::attack::miss_chance_at(field, attacker, target, at, false);
    if miss_chance >= crate::rules::core::cover::TOTAL_CONCEALMENT {
        return false;
    }
    let own = attacker.space.at(attacker.position.0);
    let waters = crate::rules::attack::underwater::waters_at(field, (attacker, own), (target, at, altitude));
    // Soft cover only against a foe not adjacent, or from a square of a big creature that does not touch the
    // other's (004:405): the creatures between are looked for then only.
    let single = |f: Footprint| f.width == 1 && f.height == 1;
    let bystanders = if own.touches(at) && single(own) && single(at) {
        Vec::new()
    } else {
        crate::rules::attack::bystanders_at(field.scale(), creatures, (attacker, own), (target, at, altitude))
    };
    crate::rules::attack::cover_between(field, (own, attacker.altitude.0), (at, altitude), false, &bystanders)
        == Cover::None
        && crate::rules::attack::underwater::water_cover(&waters, true).is_none()
}

/// Everything an attack of opportunity needs to be rolled and recorded.
pub struct Opportunity<'a, 'qw, 'qs, 'fw, 'dw, 'lw> {
    /// The map, for cover.
    pub field: &'a crate::rules::core::battlefield::Battlefield,
    /// Every creature.
    pub creatures: &'a Query<'qw, 'qs, crate::rules::attack::Combatant, With<Creature>>,
    /// The dice.
    pub dice: &'a mut Dice,
    /// Facts.
    pub facts: &'a mut MessageWriter<'fw, Fact>,
    /// Damage for the health chapter.
    pub damage: &'a mut MessageWriter<'dw, Damage>,
    /// The tripped, laid down (a trip in place of the blow, 004:483).
    pub falls: &'a mut Falls<'lw>,
    /// Weapons lost or damaged by a disarm or a sunder in place of a blow (004:490, 004:499), to apply once
    /// the strikes of the moment are over: only a mover's, which [`strike_the_leaving`] applies.
    pub gear: Vec<GearBlow>,
    /// The damage of each blow that landed, in order: a caster makes a Concentration check for each
    /// (« DD 10 + nombre de points de dégâts encaissés », 004:196).
    pub wounds: Vec<i32>,
    /// The creatures sharing a space with the one struck whom a blow that strayed dropped (004:447).
    pub dropped_beside: Vec<Entity>,
}

impl Opportunity<'_, '_, '_, '_, '_, '_> {
    /// Resolves the attacks of opportunity of `from` against `mover` standing on `at`, at once and in order;
    /// stops when the mover drops. `hit_points` is what it had before; `used` counts each strike.
    pub fn strike(
        &mut self,
        mover: Entity,
        exposure: Exposure<'_>,
        from: &[Entity],
        hit_points: &mut HitPoints,
        mut used: impl FnMut(Entity),
    ) -> Struck {
        let Exposure { at, why, mid_action, shared_with } = exposure;
        let hp = hit_points;
        let before = *hp;
        let Ok(target) = self.creatures.get(mover) else { return Struck::standing(hp.current) };
        for &foe in from {
            let Ok(attacker) = self.creatures.get(foe) else { continue };
            if !may_strike_at(self.field, self.creatures, &attacker, &target, (at, target.altitude.0)) {
                continue;
            }
            // Concealment's miss chance.
            let miss_chance = crate::rules::attack::miss_chance_at(self.field, &attacker, &target, at, false);
            let own = attacker.space.at(attacker.position.0);
            let waters = crate::rules::attack::underwater::waters(self.field, (&attacker, own), (&target, at));
            // Flanking counts for attacks of opportunity too, against the mover where it stands (004:417).
            let flanking =
                crate::rules::attack::flanking_ally_at(self.field, &attacker, (&target, at), self.creatures.iter());
            let situation = AttackSituation {
                weapon: None,
                own: attacker.space.at(attacker.position.0),
                theirs: at,
                allies_near_target: false,
                charge: false,
                opportunity: true,
                mid_action: Some(mid_action),
                flanking_with: flanking.as_deref(),
                cover: &Cover::None,
                miss_chance,
                unseen: crate::rules::attack::attacker_unseen(self.field, (&attacker, own), (&target, at)),
                scale: self.field.scale(),
                house: self.field.house_rules(),
                waters,
                feint_spent: false,
            };
            let Ok(plan) = plan_attack(&attacker, &target, situation) else { continue };
            self.facts.write(Fact::OpportunityProvoked {
                creature: target.id.clone(),
                by: attacker.id.clone(),
                square: at.origin,
                reason: why.to_string(),
            });
            used(foe);
            // An attack as strenuous as the standard action's: a disabled striker pays it (004:274; our ruling).
            self.falls.strain.write(crate::rules::turns::Strain::opportunity(foe));
            let natural = match shared_with.filter(|o| *o != foe) {
                Some(other) => match self.strike_in_shared_space(&attacker, (&target, other), situation) {
                    Ok(()) => continue,
                    Err(natural) => Some(natural),
                },
                None => None,
            };
            // A trip in place of the blow, not in a space two share (our ruling, docs/rulings.md).
            let choice = attacker.opportunity_choice.copied().unwrap_or_default();
            let trip = shared_with
                .is_none()
                .then(|| trip_in_place_of(choice, (&attacker, &target), (&plan, situation), hp, mid_action.moving))
                .flatten();
            // Only a mover is tripped (trip_in_place_of): it stops where it fell (our ruling).
            if let Some(touch) = trip {
                if self.trip(&touch, &attacker, &target) == TripOutcome::Tripped {
                    return Struck { hit_points: hp.current, dropped: false, tripped: true, wounded: *hp != before };
                }
                continue;
            }
            // A disarm or a sunder in place of the blow, once a moment against the mover's weapon.
            let untouched = !self.gear.iter().any(|g| g.concerns(mover));
            let in_place = (shared_with.is_none() && untouched)
                .then(|| gear_blow_in_place_of(choice, (&attacker, &target), (&plan, situation), hp, mid_action.moving))
                .flatten();
            if let Some(in_place) = in_place {
                self.disarm_or_sunder(in_place, &attacker, &target);
                continue;
            }
            if self.land(&plan, &attacker, &target, natural, hp) {
                return Struck { hit_points: hp.current, dropped: true, tripped: false, wounded: true };
            }
        }
        Struck { wounded: *hp != before, ..Struck::standing(hp.current) }
    }

    /// A disarm or a sunder in place of an attack of opportunity: the opposed attack rolls (004:493, 004:501),
    /// the weapon lost or damaged kept for later.
    fn disarm_or_sunder(&mut self, in_place: InPlace, attacker: &CombatantItem, target: &CombatantItem) {
        let rolling = (&mut *self.dice, &mut *self.facts);
        match in_place {
            InPlace::Disarm(rolls) => {
                let why = "a disarm in place of an attack of opportunity: opposed attack rolls (004:490, 004:493)";
                if let Some(loss) = roll_disarm(rolling, (attacker, target), &rolls, why) {
                    self.gear.push(GearBlow::Lost(loss));
                }
            }
            InPlace::Sunder(rolls, hit_points) => {
                let why = "a sunder in place of an attack of opportunity: opposed attack rolls (004:499, 004:501)";
                if let Some(lost) = roll_sunder(rolling, (attacker, target), &rolls, why) {
                    let weapon = rolls.struck.clone();
                    self.gear.push(GearBlow::Damaged(WeaponDamage { holder: target.entity, weapon, hit_points, lost }));
                }
            }
        }
    }

    /// A trip in place of an attack of opportunity: its touch attack, then the opposed check (004:483-485).
    fn trip(&mut self, touch: &AttackPlan, attacker: &CombatantItem, target: &CombatantItem) -> TripOutcome {
        if !crate::rules::attack::roll_touch_attack(touch, attacker.id, target.id, self.dice, self.facts) {
            return TripOutcome::Resisted;
        }
        roll_trip_check(
            (self.dice, self.facts, self.falls),
            attacker,
            target,
            "a trip in place of an attack of opportunity (004:483, 004:489)",
        )
    }
}

impl Opportunity<'_, '_, '_, '_, '_, '_> {
    /// A readied attack of `readier` on `mover` standing on `at`, set off as it steps in (004:621): one
    /// attack, not an attack of opportunity. Returns `true` if the mover dropped.
    pub fn strike_readied(
        &mut self,
        readier: Entity,
        mover: Entity,
        at: Footprint,
        mid_action: MidAction,
        weapon: Option<&str>,
        hit_points: &mut HitPoints,
    ) -> bool {
        let (Ok(attacker), Ok(target)) = (self.creatures.get(readier), self.creatures.get(mover)) else {
            return false;
        };
        self.facts.write(Fact::ReadiedActionTriggered {
            creature: attacker.id.clone(),
            by: target.id.clone(),
            action: format!("attack {}", target.id),
        });
        let plan = match plan_readied(self.field, self.creatures, (&attacker, &target, at), mid_action, weapon) {
            Ok(plan) => plan,
            Err(refusal) => {
                self.facts.write(Fact::ActionRefused {
                    creature: attacker.id.clone(),
                    action: Action::ReadiedAttack,
                    reason: refusal.reason,
                    rule: refusal.rule,
                });
                return false;
            }
        };
        // A spear or the like readied against a charge deals double damage (004:461).
        let mut plan = plan;
        if mid_action.charging && plan.weapon.brace {
            plan.multipliers.push(crate::rules::core::creature::Modifier::new(2, "set against a charge (004:461)"));
        }
        let hp = hit_points;
        self.land(&plan, &attacker, &target, None, hp)
    }

    /// An attack of opportunity on `mover` as it shares `other`'s space (004:447): the d20 first, then the
    /// d% that says whom it strikes (« on joue d'abord le jet d'attaque »). If 25 or less, the roll is
    /// judged against `other`; else nothing is struck yet and the d20 is returned, for the attack on the
    /// mover.
    fn strike_in_shared_space(
        &mut self,
        attacker: &CombatantItem,
        (mover, other): (&CombatantItem, Entity),
        situation: AttackSituation<'_>,
    ) -> Result<(), u32> {
        let natural = self.dice.d20();
        let roll = self.dice.d100();
        let Ok(instead) = self.creatures.get(other) else { return Err(natural) };
        let strays = roll <= SHARED_SPACE_STRAY;
        self.facts.write(Fact::StrayRolled {
            attacker: attacker.id.clone(),
            meant: mover.id.clone(),
            other: instead.id.clone(),
            chance: SHARED_SPACE_STRAY,
            roll,
            strays,
        });
        if !strays {
            return Err(natural);
        }
        // Struck where the two stand as one: in the mover's squares.
        if let Ok(plan) = plan_attack(attacker, &instead, situation) {
            let mut hp = *instead.hit_points;
            if self.land(&plan, attacker, &instead, Some(natural), &mut hp) {
                self.dropped_beside.push(other);
            }
        }
        Ok(())
    }

    /// Rolls a planned attack on the creature struck in the middle of its action (its d20 already thrown
    /// if `natural` is given), sends the damage and keeps `hp` in step; returns whether it dropped.
    fn land(
        &mut self,
        plan: &crate::rules::attack::AttackPlan,
        attacker: &CombatantItem,
        target: &CombatantItem,
        natural: Option<u32>,
        hp: &mut HitPoints,
    ) -> bool {
        let hit = crate::rules::attack::roll_planned_attack_from(
            natural,
            plan,
            (attacker.id, target.id),
            target.traits,
            self.dice,
            self.facts,
        );
        let undead = target.traits.undead;
        let mut slain = false;
        if let Some(hit) = hit {
            let before = *hp;
            // An undead takes no nonlethal damage (the health chapter's ruling).
            if hit.nonlethal && !undead {
                hp.nonlethal += hit.amount;
            } else if !hit.nonlethal {
                *hp = crate::rules::core::creature::absorb(*hp, hit.amount);
            }
            // The save against massive damage is made now, as the blow lands (« il meurt sur le coup »,
            // 004:272): a mover slain stops here; the wound then calls for no second save.
            let massive = self.field.house_rules().massive_damage
                && crate::rules::core::death::calls_for_massive_save(hit.amount, hit.nonlethal, undead, hp);
            if massive {
                slain = !crate::rules::core::checks::roll_save(
                    self.dice,
                    self.facts,
                    target.id,
                    crate::rules::core::checks::Save::Fortitude,
                    target.saves,
                    target.abilities,
                    "massive damage (004:272)",
                    crate::rules::core::death::MASSIVE_DAMAGE_DC,
                );
            }
            self.damage.write(Damage {
                target: target.entity,
                amount: hit.amount,
                nonlethal: hit.nonlethal,
                from_one_attack: !massive,
            });
            let wound = hp.damage_since(&before);
            if wound > 0 {
                self.wounds.push(wound);
            }
            if slain {
                self.falls.slain.write(crate::rules::attack::Slay { target: target.entity });
            }
        }
        slain || crate::rules::core::death::drops_at(hp, undead)
    }

    /// Lets the foes that threaten `who` where it stands strike at it for an action that provokes there
    /// (004:66): a ranged or unarmed attack, a coup de grâce. `only` limits the strikers (an unarmed attack
    /// provokes its target alone, 004:168). Writes `action_interrupted` and returns `true` if it dropped.
    pub fn provoke_in_place(
        &mut self,
        who: &CombatantItem,
        initiative: &[Entity],
        reactions: &mut Query<&mut Reactions>,
        only: Option<Entity>,
        action: Action,
        why: &str,
    ) -> bool {
        self.provoke_in_place_struck(who, initiative, reactions, only, action, why).dropped
    }

    /// [`Self::provoke_in_place`], telling the hit points left as well: a caster's wound calls for a
    /// Concentration check (004:196).
    pub fn provoke_in_place_struck(
        &mut self,
        who: &CombatantItem,
        initiative: &[Entity],
        reactions: &mut Query<&mut Reactions>,
        only: Option<Entity>,
        action: Action,
        why: &str,
    ) -> Struck {
        self.provoke_among(who, initiative, reactions, Strikers { only, ..default() }, action, why).0
    }

    /// [`Self::provoke_in_place_struck`], the strikers chosen by `strikers`; with the foes that struck.
    pub fn provoke_among(
        &mut self,
        who: &CombatantItem,
        initiative: &[Entity],
        reactions: &mut Query<&mut Reactions>,
        strikers: Strikers<'_>,
        action: Action,
        why: &str,
    ) -> (Struck, Vec<Entity>) {
        let own = strikers.at.unwrap_or(who.space.at(who.position.0));
        let squares: Vec<Square> = strikers.leaving.map_or_else(|| own.squares().collect(), <[Square]>::to_vec);
        let threats: Vec<Entity> = threatening_any_of(
            self.field,
            who,
            self.creatures,
            |e| reactions.get(e).copied().unwrap_or_default(),
            initiative,
            &squares,
        )
        .into_iter()
        .filter(|t| strikers.only.is_none_or(|o| o == *t) && !strikers.except.contains(t))
        .collect();
        if threats.is_empty() {
            return (Struck::standing(who.hit_points.current), threats);
        }
        let mut hp = *who.hit_points;
        let mid_action = strikers.mid_action.unwrap_or_else(|| MidAction::of(who.conditions));
        let exposure = Exposure { at: own, why, mid_action, shared_with: strikers.shared_with };
        let mut struck_by = Vec::new();
        let struck = self.strike(who.entity, exposure, &threats, &mut hp, |foe| {
            struck_by.push(foe);
            if let Ok(mut r) = reactions.get_mut(foe) {
                r.used += 1;
            }
        });
        if struck.dropped {
            self.facts.write(Fact::ActionInterrupted {
                creature: who.id.clone(),
                action,
                reason: "dropped by an attack of opportunity (004:70)".into(),
            });
        }
        (struck, struck_by)
    }
}

/// The attack `attacker` readied on `target` standing on `at` would make now, or the rule that refuses it:
/// what sets it off asks this first (004:621, the readier need not act), and the strike makes it.
pub fn plan_readied(
    field: &Battlefield,
    creatures: &Query<Combatant, With<Creature>>,
    (attacker, target, at): (&CombatantItem, &CombatantItem, Footprint),
    mid_action: MidAction,
    weapon: Option<&str>,
) -> Result<crate::rules::attack::AttackPlan, crate::rules::core::refusal::Refusal> {
    let own = attacker.space.at(attacker.position.0);
    let ranged = weapon.is_some_and(|name| {
        attacker.armament.0.iter().any(|w| w.name == name && crate::rules::core::creature::is_ranged(w))
    });
    let miss_chance = crate::rules::attack::miss_chance_at(field, attacker, target, at, ranged);
    let waters = crate::rules::attack::underwater::waters(field, (attacker, own), (target, at));
    // A readied bow or crossbow shoots as any ranged attack does, and a reach weapon's blow at a foe not
    // adjacent is covered as one: soft cover from the creatures between, and into melee when an ally of
    // the readier stands by its foe (004:180-182, 004:398-404).
    let bystanders = if ranged || !own.touches(at) {
        crate::rules::attack::bystanders_between(field.scale(), creatures, attacker, target)
    } else {
        Vec::new()
    };
    let cover = crate::rules::attack::underwater::with_water(
        crate::rules::attack::cover_between(
            field,
            (own, attacker.altitude.0),
            (at, target.altitude.0),
            ranged,
            &bystanders,
        ),
        crate::rules::attack::underwater::water_cover(&waters, !ranged),
    );
    let flanking = crate::rules::attack::flanking_ally_at(field, attacker, (target, at), creatures.iter());
    let situation = AttackSituation {
        weapon,
        own,
        theirs: at,
        allies_near_target: ranged
            && crate::rules::attack::shoots_into_melee(field, creatures, (attacker, own), (target, at)),
        charge: false,
        opportunity: weapon.is_none(),
        mid_action: Some(mid_action),
        flanking_with: flanking.as_deref(),
        cover: &cover,
        miss_chance,
        unseen: crate::rules::attack::attacker_unseen(field, (attacker, own), (target, at)),
        scale: field.scale(),
        house: field.house_rules(),
        waters,
        feint_spent: false,
    };
    plan_attack(attacker, target, situation)
}

/// Which foes may strike at a creature that provokes where it stands.
#[derive(Clone, Copy, Debug, Default)]
pub struct Strikers<'a> {
    /// Only this one (an unarmed attack provokes its target alone, 004:168).
    pub only: Option<Entity>,
    /// Not these.
    pub except: &'a [Entity],
    /// The creature whose space it shares (004:447).
    pub shared_with: Option<Entity>,
    /// The squares it leaves, if it moves: only those who threaten one of them (004:65).
    pub leaving: Option<&'a [Square]>,
    /// Where it stands as they strike, if not in its own space.
    pub at: Option<Footprint>,
    /// What it is in the middle of, if not what its conditions show.
    pub mid_action: Option<MidAction>,
}

/// The foes that threaten `who` where it stands and could strike at it now, in initiative order (004:66).
pub fn threatening_in_place(
    field: &crate::rules::core::battlefield::Battlefield,
    who: &CombatantItem,
    creatures: &Query<crate::rules::attack::Combatant, With<Creature>>,
    reactions: impl Fn(Entity) -> Reactions,
    initiative: &[Entity],
) -> Vec<Entity> {
    let own: Vec<Square> = who.space.at(who.position.0).squares().collect();
    threatening_any_of(field, who, creatures, reactions, initiative, &own)
}

/// The foes that threaten one of `squares` of `who` and could strike at it now, in initiative order: those
/// a move out of them provokes (004:65).
pub fn threatening_any_of(
    field: &crate::rules::core::battlefield::Battlefield,
    who: &CombatantItem,
    creatures: &Query<crate::rules::attack::Combatant, With<Creature>>,
    reactions: impl Fn(Entity) -> Reactions,
    initiative: &[Entity],
    squares: &[Square],
) -> Vec<Entity> {
    threats_to(field, who, creatures.iter(), reactions, initiative)
        .into_iter()
        .filter(|t| squares.iter().any(|s| t.threatens(*s)))
        .map(|t| t.entity)
        .collect()
}

/// Attacks of opportunity.
pub fn plugin(app: &mut App) {
    app.register_required_components::<Creature, Reactions>().register_required_components::<Creature, Provoked>();
    app.init_resource::<MoveReactions>();
    app.add_observer(mark_danger)
        .add_observer(plan_provocations)
        .add_observer(strike_the_leaving)
        .add_observer(strike_the_entering)
        .add_observer(spend_readied_attacks)
        .add_observer(strike_the_provoker);
    app.add_systems(Rules, refresh_reactions.in_set(RulesSystems::Turns).after(crate::rules::attack::end_full_attacks));
}

/// Forgets the move underway (a new fight begins).
pub fn forget_moves(world: &mut World) {
    world.insert_resource(MoveReactions::default());
}

/// What the attacks of opportunity know of the move underway: the moments it provokes and who strikes then,
/// worked out when it starts (004:64-71), and the foes whose readied attacks it already set off.
#[derive(Resource, Default, Debug)]
pub struct MoveReactions {
    /// The moments the move provokes.
    provocations: Vec<Provocation>,
    /// The readiers that struck at the mover as it stepped in (004:621).
    fired: Vec<Entity>,
    /// Where the move goes, the footprint after each step.
    route: Vec<Footprint>,
    /// Foes that came to act again in the middle of the move (a turned undead its turner came near,
    /// 004:549): they strike as the mover leaves a square they threaten, as any foe (004:64-65).
    woke: Vec<Entity>,
    /// A tumbler's Tumble bonus and how many foes it tumbles past on this move (000:78-79): a foe that
    /// wakes in the middle of the move is tumbled past as one more, once.
    tumbling: Option<(i32, usize)>,
    /// The woken foes a tumbler has made its check against on this move: they strike no more (000:78-79).
    tumbled: Vec<Entity>,
}

impl MoveReactions {
    /// `foe` acts normally again from this moment of the move on.
    pub fn wake(&mut self, foe: Entity) {
        if !self.woke.contains(&foe) {
            self.woke.push(foe);
        }
    }

    /// A tumbler's checks past the foes that woke in the middle of its move (000:78-79), once a foe: made,
    /// that foe strikes no more on this move; the DC is 15 + 2 for each foe it tumbles past before (those
    /// its checks at the start of the move counted, then the woken ones). A mover not tumbling, nothing.
    fn tumble_past_woken(
        &mut self,
        provocation: &mut Provocation,
        mover: &CreatureId,
        combatants: &Query<Combatant, With<Creature>>,
        (dice, facts): (&mut Dice, &mut MessageWriter<Fact>),
    ) {
        use crate::rules::core::checks::{Check, roll_check};
        use crate::rules::movement::tumble_past_dc;
        let Some((bonus, passed)) = self.tumbling.as_mut() else { return };
        let tumbled = &mut self.tumbled;
        provocation.from.retain(|foe| {
            if tumbled.contains(foe) {
                return false;
            }
            let dc = tumble_past_dc(*passed);
            *passed += 1;
            let name = combatants.get(*foe).map(|c| c.id.0.clone()).unwrap_or_default();
            let reason = format!("tumbling past {name} (000:78-79)");
            let made = roll_check(dice, facts, mover, Check::Tumble, reason, *bonus, dc);
            if made {
                tumbled.push(*foe);
            }
            !made
        });
    }
}

/// The foes of `mover` that could strike at it now, in initiative order, with those it already provoked
/// this turn.
fn foes_around(
    mover: &CombatantItem,
    field: &Battlefield,
    order: &TurnOrder,
    combatants: &Query<Combatant, With<Creature>>,
    reactions: &Query<&mut Reactions>,
    provoked: &Query<&mut Provoked>,
) -> (Vec<Threat>, Vec<Entity>) {
    let threats = threats_to(
        field,
        mover,
        combatants.iter(),
        |e| reactions.get(e).copied().unwrap_or_default(),
        &order.initiative(),
    );
    let already = provoked.get(mover.entity).map(|p| p.0.clone()).unwrap_or_default();
    (threats, already)
}

/// Marks the squares the foes who could strike threaten, so that the move takes the path that provokes
/// least among the cheapest (004:64-71).
fn mark_danger(
    mut planning: On<PlanningMove>,
    field: Res<Battlefield>,
    order: Res<TurnOrder>,
    combatants: Query<Combatant, With<Creature>>,
    reactions: Query<&mut Reactions>,
    provoked: Query<&mut Provoked>,
) {
    let Ok(me) = combatants.get(planning.event().mover) else { return };
    let (threats, already) = foes_around(&me, &field, &order, &combatants, &reactions, &provoked);
    planning.event_mut().danger = Some(danger_of(&threats, &already, field.width(), field.height()));
}

/// Works out, when a move starts, the moments it provokes and who strikes then: none for a 5-foot step
/// (004:259), the first squares of a withdrawal safe from the foes it sees (004:243); a tumbler's checks
/// (000:78-79).
#[expect(clippy::too_many_arguments, reason = "an observer: one parameter per resource or message it touches")]
fn plan_provocations(
    mut starting: On<MoveStarting>,
    field: Res<Battlefield>,
    order: Res<TurnOrder>,
    combatants: Query<Combatant, With<Creature>>,
    reactions: Query<&mut Reactions>,
    provoked: Query<&mut Provoked>,
    mut plan: ResMut<MoveReactions>,
    (mut dice, mut facts): (ResMut<Dice>, MessageWriter<Fact>),
) {
    let MoveStarting { mover, action, start, route, tumble } = starting.event();
    let (mover, action, start, tumble) = (*mover, *action, *start, *tumble);
    plan.fired.clear();
    plan.woke.clear();
    plan.tumbling = None;
    plan.tumbled.clear();
    plan.route = route.steps.iter().map(|s| s.footprint()).collect();
    let mut strikers: Vec<Entity> = Vec::new();
    plan.provocations = match combatants.get(mover) {
        Ok(me) if action != MovementAction::FiveFootStep || me.size.is_smaller_than_a_square() => {
            let (threats, already) = foes_around(&me, &field, &order, &combatants, &reactions, &provoked);
            strikers = threats.iter().map(|t| t.entity).filter(|e| !already.contains(e)).collect();
            let tiny = me.size.is_smaller_than_a_square();
            let strikes_at = |foe: Entity, at: Footprint| {
                combatants.get(foe).is_ok_and(|a| may_strike_at(&field, &combatants, &a, &me, (at, me.altitude.0)))
            };
            provocations(start, route, &threats, (tiny, action), &already, &strikes_at)
        }
        _ => Vec::new(),
    };
    if let (Some(bonus), Ok(me)) = (tumble, combatants.get(mover)) {
        let foes: Vec<(Entity, CreatureId, Footprint)> = combatants
            .iter()
            .filter(|c| c.faction != me.faction && !c.conditions.is_helpless())
            .map(|c| (c.entity, c.id.clone(), c.space.at(c.position.0)))
            .collect();
        let mut route = starting.event().route.clone();
        let tumbler = Tumbler { id: me.id, bonus, start, strikers };
        let passed = roll_tumbles(&tumbler, (&mut route, &mut plan.provocations), &foes, (&mut dice, &mut facts));
        plan.tumbling = Some((bonus, passed));
        starting.event_mut().route = route;
    }
}

/// A tumbler as its checks see it.
struct Tumbler<'a> {
    id: &'a CreatureId,
    bonus: i32,
    start: Footprint,
    /// The foes that could strike it now (not flat-footed, an attack of opportunity left).
    strikers: Vec<Entity>,
}

/// A tumbler's checks, in the order it meets its foes (000:78-79; the d20 Tumble rule): past each foe whose
/// threatened squares it leaves, DC 15 (+2 per foe after the first), made, that foe does not strike; into a
/// foe's space, DC 25, failed, it stops before it and that foe strikes. Gives how many foes it tumbled past.
fn roll_tumbles(
    tumbler: &Tumbler<'_>,
    (route, provocations): (&mut Route, &mut Vec<Provocation>),
    foes: &[(Entity, CreatureId, Footprint)],
    (dice, facts): (&mut Dice, &mut MessageWriter<Fact>),
) -> usize {
    use crate::rules::core::checks::{Check, roll_check};
    use crate::rules::movement::{TUMBLE_THROUGH_DC, tumble_past_dc};
    // (step, through, foe): past a foe when it would strike, into its space as the step is taken.
    let mut meetings: Vec<(usize, bool, Entity)> = Vec::new();
    for provocation in provocations.iter() {
        for foe in &provocation.from {
            if !meetings.iter().any(|(_, through, e)| !through && e == foe) {
                meetings.push((provocation.after_steps, false, *foe));
            }
        }
    }
    for (i, step) in route.steps.iter().enumerate() {
        for (foe, _, space) in foes {
            if space.overlaps(step.footprint()) && !meetings.iter().any(|(_, through, e)| *through && e == foe) {
                meetings.push((i, true, *foe));
            }
        }
    }
    meetings.sort_by_key(|(step, through, _)| (*step, *through));
    let name =
        |foe: Entity| foes.iter().find(|(e, _, _)| *e == foe).map_or_else(String::new, |(_, id, _)| id.0.clone());
    let mut passed = 0;
    for (step, through, foe) in meetings {
        if !through {
            let dc = tumble_past_dc(passed);
            passed += 1;
            let reason = format!("tumbling past {} (000:78-79)", name(foe));
            if roll_check(dice, facts, tumbler.id, Check::Tumble, reason, tumbler.bonus, dc) {
                for provocation in provocations.iter_mut() {
                    provocation.from.retain(|e| *e != foe);
                }
            }
            continue;
        }
        let reason = format!("tumbling through {}'s space (000:78-79)", name(foe));
        if roll_check(dice, facts, tumbler.id, Check::Tumble, reason, tumbler.bonus, TUMBLE_THROUGH_DC) {
            continue;
        }
        // Failed: it stops before the foe's space, and that foe strikes if it can.
        route.steps.truncate(step);
        provocations.retain(|p| p.after_steps <= step);
        if !tumbler.strikers.contains(&foe) {
            break;
        }
        let square = if step == 0 { tumbler.start.origin } else { route.steps[step - 1].square };
        if !provocations.iter().any(|p| p.after_steps == step && p.from.contains(&foe)) {
            provocations.push(Provocation { after_steps: step, square, from: vec![foe], reason: TUMBLE_FAILED });
        }
        break;
    }
    provocations.retain(|p| !p.from.is_empty());
    passed
}

/// Why a failed tumble through a foe's space provokes.
pub const TUMBLE_FAILED: &str = "a failed tumble through its space (000:78-79)";

/// The foes a mover provokes at this moment of its move strike, in order, until it drops (004:64-70).
#[expect(clippy::too_many_arguments, reason = "an observer: one parameter per resource or message it touches")]
fn strike_the_leaving(
    mut moving: On<Moving>,
    (field, order): (Res<Battlefield>, Res<TurnOrder>),
    combatants: Query<Combatant, With<Creature>>,
    mut reactions: Query<&mut Reactions>,
    mut provoked: Query<&mut Provoked>,
    mut plan: ResMut<MoveReactions>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut falls: Falls,
    mut commands: Commands,
) {
    let moment = moving.event_mut();
    if moment.phase != MovePhase::Leaving {
        return;
    }
    // The weapons lost or struck this moment, over all its provocations: one weapon is lost once.
    let mut gear = Vec::new();
    let mut woke = woke_strikers(&field, &order, &combatants, (&reactions, &provoked), (&plan, moment));
    if let Some(provocation) = woke.as_mut() {
        let mover = combatants.get(moment.mover).map(|c| c.id.clone()).unwrap_or_default();
        plan.tumble_past_woken(provocation, &mover, &combatants, (&mut dice, &mut facts));
    }
    let woke = woke.filter(|p| !p.from.is_empty());
    let planned = plan.provocations.iter().filter(|p| p.after_steps == moment.steps).cloned();
    for provocation in planned.chain(woke) {
        if let Ok(mut provoked) = provoked.get_mut(moment.mover) {
            provoked.0.extend(provocation.from.iter().copied());
        }
        let before = gear.len();
        let mut strike = Opportunity {
            field: &field,
            creatures: &combatants,
            dice: &mut dice,
            facts: &mut facts,
            damage: &mut damage,
            falls: &mut falls,
            gear: std::mem::take(&mut gear),
            wounds: Vec::new(),
            dropped_beside: Vec::new(),
        };
        let exposure =
            Exposure { at: moment.at, why: provocation.reason, mid_action: moment.mid_action, shared_with: None };
        let struck = strike.strike(moment.mover, exposure, &provocation.from, &mut moment.hit_points, |foe| {
            if let Ok(mut r) = reactions.get_mut(foe) {
                r.used += 1;
            }
        });
        // The weapons lost or struck, before the mover's next step (the move flushes after each moment).
        gear = std::mem::take(&mut strike.gear);
        for blow in gear[before..].iter().cloned() {
            commands.queue(move |world: &mut World| blow.apply(world));
        }
        if struck.dropped || struck.tripped {
            moment.dropped = struck.dropped;
            moment.tripped = struck.tripped;
            return;
        }
    }
}

/// The foes that came to act again in the middle of the move and threaten a square the mover leaves at
/// this moment, able to strike and not struck yet this movement (004:64-65, 004:71): one provocation.
fn woke_strikers(
    field: &Battlefield,
    order: &TurnOrder,
    combatants: &Query<Combatant, With<Creature>>,
    (reactions, provoked): (&Query<&mut Reactions>, &Query<&mut Provoked>),
    (plan, moment): (&MoveReactions, &Moving),
) -> Option<Provocation> {
    if plan.woke.is_empty() {
        return None;
    }
    // At the end of the move it leaves nothing.
    let next = plan.route.get(moment.steps)?;
    let left: Vec<Square> = moment.at.squares().filter(|s| !next.contains(*s)).collect();
    let me = combatants.get(moment.mover).ok()?;
    let already = provoked.get(moment.mover).map(|p| p.0.clone()).unwrap_or_default();
    let reacting = |e: Entity| reactions.get(e).copied().unwrap_or_default();
    let from: Vec<Entity> = threats_at(field, (&me, me.altitude.0), combatants.iter(), reacting, &order.initiative())
        .into_iter()
        .filter(|t| plan.woke.contains(&t.entity) && !already.contains(&t.entity))
        .filter(|t| left.iter().any(|s| t.threatens(*s)))
        .filter(|t| {
            combatants
                .get(t.entity)
                .is_ok_and(|a| may_strike_at(field, combatants, &a, &me, (moment.at, me.altitude.0)))
        })
        .map(|t| t.entity)
        .collect();
    (!from.is_empty()).then_some(Provocation {
        after_steps: moment.steps,
        square: moment.at.origin,
        from,
        reason: LEAVING,
    })
}

/// A foe who readied an attack for a creature stepping into its reach strikes as it steps in (004:621),
/// and takes its place in the order just before it (004:622).
#[expect(clippy::too_many_arguments, reason = "an observer: one parameter per resource or message it touches")]
fn strike_the_entering(
    mut moving: On<Moving>,
    field: Res<Battlefield>,
    combatants: Query<Combatant, With<Creature>>,
    readiers: Query<(Entity, &Readied)>,
    mut order: ResMut<TurnOrder>,
    mut plan: ResMut<MoveReactions>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut falls: Falls,
) {
    let moment = moving.event_mut();
    if moment.phase != MovePhase::Entered {
        return;
    }
    let Ok(mover) = combatants.get(moment.mover) else { return };
    let (here, before) = (moment.at, moment.before);
    // Its riders step in with it, in its space (004:474): an attack readied at one of them strikes it.
    let riders: Vec<Entity> = mover.riders.map(|r| r.all().to_vec()).unwrap_or_default();
    let setting_off: Vec<(Entity, Option<String>, Entity)> = readiers
        .iter()
        .filter(|(e, r)| r.trigger == Trigger::EntersThreatened && !plan.fired.contains(e) && *e != moment.mover)
        .filter_map(|(e, r)| combatants.get(e).ok().map(|c| (c, r)))
        .filter(|(c, _)| c.faction != mover.faction && c.conditions.takes_actions())
        .filter(|(c, _)| {
            // Across and in height (004:783): a flier far above threatens nothing on the ground.
            let threat = threat_of(&field, c, (&mover, mover.altitude.0));
            let then = threat_of(&field, c, (&mover, moment.before_altitude.unwrap_or(mover.altitude.0)));
            here.squares().any(|s| threat.threatens(s)) && !before.squares().any(|s| then.threatens(s))
        })
        .map(|(c, r)| {
            let (weapon, named) = match &r.action {
                ReadiedAction::Attack { weapon, target } => (weapon.clone(), target.clone()),
                _ => (None, None),
            };
            let rider = riders
                .iter()
                .copied()
                .find(|e| named.as_ref().is_some_and(|n| combatants.get(*e).is_ok_and(|rider| rider.id == n)));
            (c, weapon, rider.unwrap_or(moment.mover))
        })
        // « il peut accomplir son action ... (sans toutefois y être obligé) » (004:621): an attack the rules
        // would refuse now (total cover, out of reach) is not set off; it waits for a later trigger, its
        // place in the order kept, as the trigger « acts » holds it.
        .filter(|(c, weapon, struck)| {
            let mid_action = MidAction { moving: false, ..moment.mid_action };
            combatants.get(*struck).is_ok_and(|target| {
                plan_readied(&field, &combatants, (c, &target, here), mid_action, weapon.as_deref()).is_ok()
            })
        })
        .map(|(c, weapon, struck)| (c.entity, weapon, struck))
        .collect();
    for (readier, weapon, struck) in setting_off {
        plan.fired.push(readier);
        move_before(&mut order, readier, moment.mover);
        let mut strike = Opportunity {
            field: &field,
            creatures: &combatants,
            dice: &mut dice,
            facts: &mut facts,
            damage: &mut damage,
            falls: &mut falls,
            gear: Vec::new(),
            wounds: Vec::new(),
            dropped_beside: Vec::new(),
        };
        // A readied attack is no attack of opportunity: no Mobility against it (the d20 feat; our ruling).
        let mid_action = MidAction { moving: false, ..moment.mid_action };
        let down = if struck == moment.mover {
            strike.strike_readied(readier, moment.mover, here, mid_action, weapon.as_deref(), &mut moment.hit_points)
        } else {
            // The rider named, charging with its mount if it charges (004:478); its fall stops no move.
            let mut hit_points = combatants.get(struck).map(|c| *c.hit_points).unwrap_or_default();
            strike.strike_readied(readier, struck, here, mid_action, weapon.as_deref(), &mut hit_points);
            false
        };
        // The readied attack is a standard action: one disabled since it readied it pays (004:274).
        strike.falls.strain.write(crate::rules::turns::Strain::standard_action(readier));
        facts.write(Fact::InitiativeOrdered { order: order.entries.iter().map(|e| e.id.clone()).collect() });
        if down {
            moment.dropped = true;
            return;
        }
    }
}

/// A creature provoking by its own movement outside a move (an overrun's passage, a bull rush's follow, a
/// grab's step into its foe's space, a flight's leg), as a move provokes (004:64-71): the foes it already
/// provoked by moving this turn strike no more (one opportunity for the turn's movement, 004:68, 004:71),
/// and it is moving, charging if `charging` (Mobility's +4, 004:457's -2, a set spear's x2, 004:461). The
/// foes that struck are kept for the rest of its movement.
pub fn provoke_by_moving(world: &mut World, provoking: Provoking, charging: bool) -> Provoking {
    let mover = provoking.who;
    let already = world.get::<Provoked>(mover).map(|p| p.0.clone()).unwrap_or_default();
    let mid_action = Some(moving_now(world, mover, charging));
    let provoking = Provoking { except: [provoking.except.clone(), already].concat(), mid_action, ..provoking };
    let provoked = crate::rules::attack::provoke_as(world, provoking);
    if let Some(mut them) = world.get_mut::<Provoked>(mover) {
        them.0.extend(provoked.struck_by.iter().copied());
    }
    provoked
}

/// A creature steps by its own movement into `at` from `before`, outside a move (a flight, an overrun's
/// passage, a bull rush's follow, a grab's step): a foe who readied an attack for a creature stepping into
/// its reach strikes now (004:621), as at a walker's step, the moment known as the mover's (`charging`: a set
/// spear's x2, 004:461). Whether a blow dropped it there.
pub fn step_entered(
    world: &mut World,
    mover: Entity,
    (at, (before, before_altitude)): (Footprint, (Footprint, Option<i32>)),
    charging: bool,
) -> bool {
    let mut moment = crate::rules::turns::moving::Moving {
        mover,
        phase: crate::rules::turns::moving::MovePhase::Entered,
        steps: 0,
        at,
        before,
        before_altitude,
        mid_action: moving_now(world, mover, charging),
        hit_points: world.get::<HitPoints>(mover).copied().unwrap_or_default(),
        dropped: false,
        tripped: false,
    };
    world.trigger_ref(&mut moment);
    world.flush();
    moment.dropped || moment.tripped
}

/// What `mover` is in the middle of as it moves by its own movement outside a move: moving, charging if
/// `charging` or its conditions say so, and what else its conditions show.
fn moving_now(world: &World, mover: Entity, charging: bool) -> MidAction {
    let conditions = world.get::<Conditions>(mover).cloned().unwrap_or_default();
    MidAction { moving: true, charging: charging || conditions.has(Condition::Charging), ..MidAction::of(&conditions) }
}

/// The movement outside a move is over: the readied attacks it set off are spent (004:621).
pub fn movement_over(world: &mut World, mover: Entity) {
    world.trigger(crate::rules::turns::moving::MoveEnded { mover });
    world.flush();
}

/// The readied attacks a move set off are spent once it ends (004:621).
fn spend_readied_attacks(_ended: On<MoveEnded>, mut commands: Commands, mut plan: ResMut<MoveReactions>) {
    for readier in plan.fired.drain(..) {
        commands.entity(readier).remove::<Readied>();
    }
}

/// The foes that threaten a creature doing something that provokes where it stands strike first (004:66).
#[expect(clippy::too_many_arguments, reason = "an observer: one parameter per resource or message it touches")]
fn strike_the_provoker(
    mut provoking: On<Provoking>,
    field: Res<Battlefield>,
    order: Res<TurnOrder>,
    combatants: Query<Combatant, With<Creature>>,
    mut reactions: Query<&mut Reactions>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut falls: Falls,
) {
    let event = provoking.event_mut();
    let Ok(who) = combatants.get(event.who) else { return };
    let mut strike = Opportunity {
        field: &field,
        creatures: &combatants,
        dice: &mut dice,
        facts: &mut facts,
        damage: &mut damage,
        falls: &mut falls,
        gear: Vec::new(),
        wounds: Vec::new(),
        dropped_beside: Vec::new(),
    };
    let initiative = order.initiative();
    let strikers = Strikers {
        only: event.only,
        except: &event.except,
        shared_with: event.shared_with,
        leaving: event.leaving.as_deref(),
        at: event.at,
        mid_action: event.mid_action,
    };
    let (struck, struck_by) =
        strike.provoke_among(&who, &initiative, &mut reactions, strikers, event.action.clone(), &event.why);
    event.dropped = struck.dropped;
    event.shared_dropped = event.shared_with.is_some_and(|other| strike.dropped_beside.contains(&other));
    event.wounded = struck.wounded;
    event.struck_by = struck_by;
}

/// A creature's attacks of opportunity come back when its turn begins (004:68), and when it first acts in
/// a round before its turn there: a delayed turn resumed in the next round, a readied action set off in it
/// (its place in the order moves there, its round begins there, 004:624, 004:631). A delayed turn resumed
/// in its own round brings nothing back. A movement is one occasion within one turn: the foes a creature
/// provoked by moving may strike again at its next movement in any later turn, its own or (a readied move)
/// another's (004:71 « à deux occasions différentes »).
pub fn refresh_reactions(
    mut facts: MessageReader<Fact>,
    order: Res<TurnOrder>,
    mut creatures: Query<(&CreatureId, &mut Reactions, &mut Provoked)>,
) {
    for fact in facts.read() {
        let (creature, round, turn) = match fact {
            Fact::TurnStarted { creature, round } | Fact::TurnResumed { creature, round } => (creature, *round, true),
            Fact::ReadiedActionTriggered { creature, .. } => (creature, order.round, false),
            _ => continue,
        };
        let fresh = matches!(fact, Fact::TurnStarted { .. });
        for (id, mut reactions, mut provoked) in &mut creatures {
            if id == creature && (fresh || round > reactions.round) {
                reactions.used = 0;
                reactions.round = round;
            }
            // A turn, its own or resumed, is another occasion for the movements in it (004:71).
            if turn {
                provoked.0.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::movement::PathStep;

    fn route(squares: &[(i32, i32)]) -> Route {
        route_of(squares, (1, 1))
    }

    fn route_of(squares: &[(i32, i32)], space: (i32, i32)) -> Route {
        let steps = squares
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| PathStep {
                square: Square::new(x, y),
                cost: 1,
                spent: i as u32 + 1,
                hampered: false,
                space,
                can_stop: true,
            })
            .collect();
        Route { steps, cost: squares.len() as u32, hampered: 0, odd_diagonal_after: false }
    }

    /// [`provocations`] of a route past one foe who may strike wherever it threatens.
    fn past_one_foe(
        start: Footprint,
        route: &Route,
        foe: &Threat,
        how: (bool, MovementAction),
        already: &[Entity],
    ) -> Vec<Provocation> {
        provocations(start, route, std::slice::from_ref(foe), how, already, &|_, _| true)
    }

    fn goblin_at(x: i32, y: i32, entity: u32) -> Threat {
        Threat {
            entity: Entity::from_raw_u32(entity).unwrap(),
            footprint: Footprint::new(Square::new(x, y), 1),
            reach: 1,
            weapon_reach: vec![crate::rules::core::reach::WeaponReach::Natural],
            unseen: false,
            blind: Vec::new(),
            high: false,
            diagonals: Diagonals::Alternating,
            rise: 0,
            scale: crate::rules::core::altitude::Scale::Normal,
        }
    }

    #[test]
    fn leaving_a_threatened_square_provokes_once_per_foe() {
        // The mover walks east past a goblin at (2,1): it leaves (1,0), (2,0) and (3,0), all threatened.
        let start = Footprint::new(Square::new(0, 0), 1);
        let path = route(&[(1, 0), (2, 0), (3, 0), (4, 0), (5, 0)]);
        let goblin = goblin_at(2, 1, 7);
        let provoked = past_one_foe(start, &path, &goblin, (false, MovementAction::Move), &[]);
        assert_eq!(provoked.len(), 1, "one opportunity for the whole move (004:71)");
        assert_eq!(provoked[0].after_steps, 1, "struck when leaving (1,0), the first threatened square");
        assert_eq!(provoked[0].square, Square::new(1, 0));
        // Entering a threatened square provokes nothing (004:65): stopping beside the goblin is safe.
        let approach = route(&[(1, 0)]);
        assert!(past_one_foe(start, &approach, &goblin, (false, MovementAction::Move), &[]).is_empty());
    }

    #[test]
    fn a_withdraw_does_not_provoke_for_its_first_square() {
        let start = Footprint::new(Square::new(1, 0), 1);
        let goblin = goblin_at(2, 1, 7);
        let path = route(&[(0, 0), (0, 1)]);
        assert_eq!(past_one_foe(start, &path, &goblin, (false, MovementAction::Move), &[]).len(), 1);
        assert!(past_one_foe(start, &path, &goblin, (false, MovementAction::Withdraw), &[]).is_empty(), "004:243");
        // But a second threatened square on the way does.
        let along = route(&[(1, 1), (1, 2)]);
        let provoked = past_one_foe(start, &along, &goblin, (false, MovementAction::Withdraw), &[]);
        assert_eq!(provoked.len(), 1);
        assert_eq!(provoked[0].square, Square::new(1, 1));
    }

    #[test]
    fn a_foe_struck_earlier_in_the_turn_does_not_strike_again() {
        let start = Footprint::new(Square::new(0, 0), 1);
        let path = route(&[(1, 0), (2, 0), (3, 0)]);
        let goblin = goblin_at(2, 1, 7);
        assert!(past_one_foe(start, &path, &goblin, (false, MovementAction::Move), &[goblin.entity]).is_empty());
    }

    #[test]
    fn a_large_withdrawer_leaves_all_its_starting_squares_freely() {
        // The ogre (2x2 at (0,0)) withdraws west in two steps; a goblin at (2,0) threatens (1,0) and (1,1),
        // which it leaves on the second step: still its starting squares (004:243).
        let start = Footprint::new(Square::new(0, 0), 2);
        let path = route_of(&[(-1, 0), (-2, 0)], (2, 2));
        let goblin = goblin_at(2, 0, 7);
        assert!(past_one_foe(start, &path, &goblin, (false, MovementAction::Withdraw), &[]).is_empty());
        assert_eq!(past_one_foe(start, &path, &goblin, (false, MovementAction::Move), &[]).len(), 1);
    }

    #[test]
    fn reach_weapons_threaten_the_ring_not_adjacent_squares() {
        let pikeman =
            Threat { weapon_reach: vec![crate::rules::core::reach::WeaponReach::Doubled], ..goblin_at(5, 5, 3) };
        assert!(!pikeman.threatens(Square::new(6, 5)));
        assert!(pikeman.threatens(Square::new(7, 5)));
        assert!(pikeman.threatens(Square::new(7, 7)));
    }

    #[test]
    fn a_tiny_creature_entering_a_foes_square_provokes_it() {
        // A pikeman does not threaten the squares beside it, but a rat that enters its space provokes it.
        let start = Footprint::new(Square::new(0, 0), 1);
        let goblin =
            Threat { weapon_reach: vec![crate::rules::core::reach::WeaponReach::Doubled], ..goblin_at(1, 0, 9) };
        let provoked = past_one_foe(start, &route(&[(1, 0)]), &goblin, (true, MovementAction::Move), &[]);
        assert_eq!(provoked.len(), 1);
        assert_eq!(provoked[0].after_steps, 1);
    }

    #[test]
    fn combat_reflexes_gives_one_plus_dex() {
        let dex16 = Abilities { dex: 16, ..Abilities::default() };
        let reflexes = Feats([Feat::CombatReflexes].into_iter().collect(), Default::default());
        assert_eq!(reactions_per_round(1, &dex16, &Feats::default()), 1);
        assert_eq!(reactions_per_round(1, &dex16, &reflexes), 4);
        assert_eq!(reactions_per_round(1, &Abilities { dex: 6, ..Abilities::default() }, &reflexes), 1);
        // A table that allows two a round (a house rule): two, and the Dexterity bonus more with the feat.
        assert_eq!(reactions_per_round(2, &dex16, &Feats::default()), 2);
        assert_eq!(reactions_per_round(2, &dex16, &reflexes), 5);
    }
}
