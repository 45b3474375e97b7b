//! Splash weapons (Armes à impact, 004:528-530). A flask is thrown with a ranged touch attack, with no
//! penalty for lack of proficiency; on a hit, its damage to the creature hit and the splash's to every
//! creature within 1.5 m (004:528). It may be aimed at a grid intersection instead, at AC 5: no direct hit,
//! the splash to the creatures of the four squares around it; an intersection a creature's space holds
//! (a Large one's middle) cannot be aimed at (004:529). A miss scatters it: 1d8 for the direction, 1 short
//! (back toward the thrower), 2 short and to the left, and so on clockwise, as many squares as the throw's
//! range increment; it bursts there, splashing every creature within 1.5 m (004:530).
//!
//! Our rulings (docs/rulings.md): the throw is a standard action that provokes as a ranged attack does
//! (004:90), thrown at most five increments (004:174); the flask is gone once thrown. Holy water harms
//! undead alone; alchemist's fire burns the creature hit for its dice again at the start of its next turn.

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;

use crate::rules::attack::{AttackRequest, Combatant, CombatantItem, Damage, prepare_attack, provoke_as};
use crate::rules::core::battlefield::{Battlefield, Terrain};
use crate::rules::core::creature::*;
use crate::rules::core::dice::{Dice, DiceExpr};
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Corner, Direction, Footprint};
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::core::water;
use crate::rules::turns::{ActionBudget, ActionKind, Provoking, TurnOrder};

/// Where a splash weapon is aimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aim {
    /// At a creature.
    Creature(Entity),
    /// At a grid intersection (004:529).
    Corner(Corner),
}

/// Asks to throw a splash weapon.
#[derive(Message, Clone, Debug)]
pub struct ThrowIntent {
    /// Who throws.
    pub thrower: Entity,
    /// At what.
    pub aim: Aim,
    /// Which flask: the first it carries if `None`.
    pub weapon: Option<String>,
}

/// Where a flask bursts, and whom it splashes: the creatures whose space is within `reach` squares of
/// `area` (a creature's space and 1.5 m around it, or the four squares around an intersection).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Burst {
    /// The space it bursts on.
    pub area: Footprint,
    /// How far the splash goes from it, in squares.
    pub reach: u32,
    /// The height it bursts at, in steps of 1.5 m: the creature hit's, the ground's for an intersection.
    pub altitude: i32,
    /// For an intersection, the thrower's space: the flask bursts on its side of a wall that runs through
    /// the intersection.
    pub thrown_from: Option<Footprint>,
}

impl Burst {
    /// Whether the splash reaches a creature standing on `space` at `altitude`: « distantes de 1,50 mètre »
    /// (004:528-529) counted in three dimensions as every distance is (004:783-784), diagonals as the table
    /// counts them; and not through a wall (our ruling: the splash is the flask's own, not an area that goes
    /// round corners, 004:401): a space beside the burst behind a wall edge or past a corner between wall
    /// squares, where a blow from the burst's space could not go (`melee_cover`), is spared.
    pub fn reaches(&self, field: &Battlefield, (space, altitude): (Footprint, i32)) -> bool {
        let scale = crate::rules::core::altitude::Scale::Normal;
        let apart = crate::rules::core::altitude::separation_m(
            scale,
            field.diagonals(),
            (self.area, self.altitude),
            (space, altitude),
        );
        let on_its_side = |s: crate::rules::core::geometry::Square| {
            self.thrown_from.is_none_or(|from| field.line_of_sight(from, Footprint::new(s, 1)))
        };
        apart <= self.reach as f32 * 1.5 + 1e-3
            && if space.overlaps(self.area) {
                space.squares().any(|s| self.area.contains(s) && on_its_side(s))
            } else {
                crate::rules::core::cover::melee_cover_beside(field, self.area, space)
                    != crate::rules::core::cover::Cover::Total
            }
    }

    /// The burst moved `squares` toward `direction`, as far as no wall stops it (our ruling): a wall edge or
    /// corner it would cross, or a wall square it would enter, holds it on this side; the map's edge does not.
    pub fn moved_short_of_walls(self, field: &Battlefield, direction: Direction, squares: u32) -> Burst {
        let mut at = self;
        for _ in 0..squares {
            let next = at.moved(direction, 1);
            // Off the map's edge nothing is a wall (the map's own edge holds nothing back).
            let off = next.area.squares().any(|s| !field.contains(s));
            let entered = next.area.squares().filter(|s| !at.area.contains(*s));
            let walled = !off
                && (crate::rules::movement::cost::walls_in_the_way(field, at.area, direction).is_err()
                    || entered.into_iter().any(|s| field.terrain(s).blocks()));
            if walled {
                break;
            }
            at = next;
        }
        at
    }

    /// The burst moved `squares` toward `direction`.
    pub fn moved(self, direction: Direction, squares: i32) -> Burst {
        let (dx, dy) = direction.delta();
        Burst { area: self.area.at(self.area.origin.offset(dx * squares, dy * squares)), ..self }
    }

    /// The squares the splash covers on the ground, walls aside.
    pub fn squares(&self, field: &Battlefield) -> Vec<crate::rules::core::geometry::Square> {
        let r = self.reach as i32;
        let grown = Footprint {
            origin: self.area.origin.offset(-r, -r),
            width: self.area.width + 2 * r,
            height: self.area.height + 2 * r,
        };
        grown.squares().filter(|s| self.reaches(field, (Footprint::new(*s, 1), self.altitude))).collect()
    }
}

/// A throw checked and ready.
#[derive(Clone, Debug)]
pub struct ThrowPlan {
    /// Where it is thrown from: where the thrower stands, or its mount's halfway point (004:479).
    pub from: Footprint,
    /// The flask.
    pub weapon: Weapon,
    /// The creature aimed at, if any.
    pub target: Option<Entity>,
    /// The attack roll's terms.
    pub modifiers: Vec<Modifier>,
    /// The AC it is rolled against: the target's touch AC, or 5 for an intersection (004:529).
    pub armor_class: i32,
    /// Its parts.
    pub armor_class_parts: Vec<Modifier>,
    /// A miss chance from concealment.
    pub miss_chance: u32,
    /// The range increment of the throw: the squares a miss scatters (004:530).
    pub increments: u32,
    /// Where it bursts on a hit.
    pub burst: Burst,
    /// Where a miss bursts, by the d8 (1 to 8, 004:530).
    pub scatter: Vec<Burst>,
    /// From the thrower toward the point aimed at: a miss's 1 is the opposite way.
    pub toward: Direction,
}

impl ThrowPlan {
    /// The chance to hit.
    pub fn chance(&self) -> f32 {
        let bonus: i32 = self.modifiers.iter().map(|m| m.value).sum();
        crate::rules::attack::chance_to_hit(bonus, self.armor_class, self.miss_chance)
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<ThrowIntent>();
    app.add_systems(
        Rules,
        (resolve_throws, burn).chain().in_set(RulesSystems::Act).after(super::grapple::let_go_of_the_fallen),
    );
}

/// The flask `thrower` throws: the one asked for, else the first splash weapon it holds; it must be in hand
/// (a flask put away is drawn first, 004:218) and prepared (004:144).
pub fn flask(thrower: &CombatantItem, asked: Option<&str>) -> Result<Weapon, Refusal> {
    let weapons = &thrower.armament.0;
    let splash: Vec<&Weapon> = match asked {
        Some(name) => {
            let named: Vec<&Weapon> = weapons.iter().filter(|w| w.name == name).collect();
            if named.is_empty() {
                return Err(Refusal::new(format!("{} carries no {name}", thrower.id), "data"));
            }
            if named.iter().all(|w| w.splash.is_none()) {
                return Err(Refusal::new(format!("the {name} is no splash weapon"), "004:528"));
            }
            named
        }
        None => weapons.iter().filter(|w| w.splash.is_some()).collect(),
    };
    if let Some(ready) = splash.iter().find(|w| w.splash.is_some() && !w.stowed && w.prepared) {
        return Ok((*ready).clone());
    }
    match (splash.iter().find(|w| w.splash.is_some() && !w.stowed), splash.first()) {
        (Some(held), _) => Err(not_prepared(&held.name)),
        (None, Some(first)) => Err(crate::rules::core::gear::put_away(first).unwrap_err()),
        (None, None) => Err(Refusal::new(format!("{} carries no splash weapon", thrower.id), "004:528")),
    }
}

/// Why a flask in hand is not thrown yet.
fn not_prepared(name: &str) -> Refusal {
    Refusal::new(
        format!("the {name} is not prepared: preparing a splash weapon to throw is a full-round action"),
        "004:144",
    )
}

/// Where a miss bursts for each d8 (004:530): 1 short, 2 short and to the left, and so on clockwise, each
/// `squares` squares from where it was aimed, or short of the wall in the way.
pub fn scatter_bursts(field: &Battlefield, burst: Burst, toward: Direction, squares: u32) -> Vec<Burst> {
    let short = toward.turned(4);
    // Landed away from where it was aimed, it splashes all about it: the thrower's side counts only where
    // it was aimed.
    let landed = Burst { thrown_from: None, ..burst };
    (0..8).map(|k| landed.moved_short_of_walls(field, short.turned(k), squares)).collect()
}

/// How far a flask flies from the thrower on `own` at its height to `at` at its: in three dimensions, as any
/// ranged attack's range (004:174, 004:783-784), which its range increments and its scatter count (004:530).
fn thrown_m(field: &Battlefield, own: (Footprint, i32), at: (Footprint, i32)) -> f32 {
    crate::rules::core::altitude::separation_m(field.scale(), field.diagonals(), own, at)
}

/// Whether `thrower` may throw `weapon` at `aim` now, and how.
pub fn plan_throw(
    ground: &super::Ground<'_, '_, '_>,
    thrower: &CombatantItem,
    aim: Aim,
    weapon: Option<&str>,
    budget: &ActionBudget,
) -> Result<ThrowPlan, Refusal> {
    out_of_grapple(thrower.conditions, "throw of a splash weapon")?;
    // The turn and its standard action first, then the flask in hand.
    ground.order.check_turn(thrower.entity)?;
    able_to_act(thrower.conditions)?;
    budget.check(ActionKind::Standard)?;
    let weapon = flask(thrower, weapon)?;
    let increment_m = match weapon.delivery {
        Delivery::Thrown { increment_m } | Delivery::Projectile { increment_m } => increment_m,
        Delivery::Melee => return Err(Refusal::new("a splash weapon is thrown", "004:528")),
    };
    let own = crate::rules::attack::attacks_from(ground.order, ground.creatures, thrower, true);
    let (target, target_at, reach, modifiers, armor_class, armor_class_parts, miss_chance) = match aim {
        Aim::Creature(entity) => {
            let target = ground.creatures.get(entity).map_err(|_| Refusal::new("no such creature", "data"))?;
            let request = AttackRequest { weapon: Some(&weapon.name), splash: true, ..default() };
            let mut plan =
                prepare_attack(ground.field, ground.order, ground.creatures, thrower, &target, request, budget)?;
            crate::rules::attack::as_touch_attack(&mut plan);
            let area = target.space.at(target.position.0);
            let at = (area, target.altitude.0);
            (Some(entity), at, 1, plan.modifiers, plan.armor_class, plan.armor_class_parts, plan.miss_chance)
        }
        Aim::Corner(corner) => {
            let area = Footprint::new(crate::rules::core::geometry::Square::new(corner.x - 1, corner.y - 1), 2);
            // A creature on the ground holds it; a flier above does not (004:529).
            let on_the_ground = |c: &CombatantItem| c.altitude.0 == 0;
            if ground
                .creatures
                .iter()
                .filter(on_the_ground)
                .any(|c| area.squares().all(|s| c.space.at(c.position.0).contains(s)))
            {
                return Err(Refusal::new("a creature's space holds that intersection: aim at the creature", "004:529"));
            }
            if area.squares().all(|s| ground.field.terrain(s) == Terrain::DeepWater) {
                return Err(Refusal::new(water::THROWN_IN_WATER, "004:633"));
            }
            // A ranged attack (004:529) needs a line to where it lands: to one of the four squares about
            // the intersection that is not a wall (« On ne peut attaquer [...] un abri total », 004:406).
            let field = ground.field;
            let seen = |s: crate::rules::core::geometry::Square| {
                !field.terrain(s).blocks() && field.line_of_sight(own, Footprint::new(s, 1))
            };
            if !area.squares().any(seen) {
                return Err(Refusal::new("no line of effect to that intersection: a wall is in the way", "004:406"));
            }
            crate::rules::attack::attacker_refusal(thrower, &weapon)?;
            let mut modifiers =
                attack_bonus(*thrower.base_attack, thrower.abilities, *thrower.size, thrower.feats, &weapon);
            // The thrower's own state counts as for any ranged attack (« une attaque à distance », 004:529):
            // its rows of the table, its stance, the water it throws from (004:633).
            crate::rules::attack::attacker_rows(thrower, &mut modifiers);
            crate::rules::attack::stance_rows(thrower, &weapon, &mut modifiers)?;
            let waters = crate::rules::attack::underwater::waters_of_the_thrower(ground.field, (thrower, own));
            crate::rules::attack::underwater::water_terms(&waters, &weapon, &mut modifiers)?;
            // A rider's throw after its mount's double move or run, as any ranged attack (004:479).
            if let Some(mount) = thrower.riding.and_then(|r| ground.creatures.get(r.0).ok())
                && !mount.in_the_air()
            {
                modifiers.extend(crate::rules::attack::mount_pace_penalty(ground.order, &mount));
            }
            let distance = thrown_m(ground.field, (own, thrower.altitude.0), (area, 0));
            modifiers.extend(crate::rules::attack::point_blank_shot(thrower, distance));
            match crate::rules::attack::roll::range_penalty(&weapon, distance) {
                None => return Err(Refusal::new("beyond five range increments", "004:174")),
                Some(0) => {}
                Some(p) => modifiers.push(Modifier::new(p, format!("range {distance} m (004:8, 004:174)"))),
            }
            (None, (area, 0), 0, modifiers, 5, vec![Modifier::new(5, "an intersection (004:529)")], 0)
        }
    };
    let ((area, altitude), distance) = (target_at, thrown_m(ground.field, (own, thrower.altitude.0), target_at));
    let increments = ((distance / increment_m).ceil() as u32).max(1);
    let thrown_from = matches!(aim, Aim::Corner(_)).then_some(own);
    let burst = Burst { area, reach, altitude, thrown_from };
    let toward = super::bull_rush::away(own, area);
    Ok(ThrowPlan {
        from: own,
        weapon,
        target,
        modifiers,
        armor_class,
        armor_class_parts,
        miss_chance,
        increments,
        burst,
        scatter: scatter_bursts(ground.field, burst, toward, increments),
        toward,
    })
}

/// Carries out throws: checked and paid, the blows it provokes, then the attack, the burst and the splash.
fn resolve_throws(world: &mut World, mut intents: Local<MessageCursor<ThrowIntent>>) {
    let read: Vec<ThrowIntent> = intents.read(world.resource::<Messages<ThrowIntent>>()).cloned().collect();
    for intent in read {
        let Ok(Some(plan)) = world.run_system_cached_with(prepare_throw, intent.clone()) else { continue };
        // The flask leaves its hand.
        if let Some(mut armament) = world.get_mut::<Armament>(intent.thrower)
            && let Some(i) = armament.0.iter().position(|w| w.name == plan.weapon.name && !w.stowed && w.prepared)
        {
            armament.0.remove(i);
        }
        let provoking = Provoking {
            at: Some(plan.from),
            ..Provoking::new(intent.thrower, Action::Throw, "a ranged attack in a threatened square (004:90)")
        };
        if provoke_as(world, provoking).dropped {
            continue;
        }
        let _ = world.run_system_cached_with(roll_throw, (intent.thrower, plan));
    }
}

/// Checks a throw and pays its standard action, or writes why not.
fn prepare_throw(In(intent): In<ThrowIntent>, mut planning: super::Planning) -> Option<ThrowPlan> {
    let weapon = intent.weapon.as_deref();
    planning.plan_and_pay(
        (intent.thrower, aimed_at(intent.thrower, intent.aim)),
        (Action::Throw, ActionKind::Standard),
        Box::new(move |g, (me, _), budget| plan_throw(g, me, intent.aim, weapon, budget)),
    )
}

/// The creature a throw's plan is made against: the one aimed at, else the thrower itself (an intersection).
pub fn aimed_at(thrower: Entity, aim: Aim) -> Entity {
    match aim {
        Aim::Creature(target) => target,
        Aim::Corner(_) => thrower,
    }
}

/// The attack roll, then the burst: on the creature hit, or where a miss scatters; the damage.
fn roll_throw(
    In((thrower, plan)): In<(Entity, ThrowPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut commands: Commands,
    (order, field): (Res<TurnOrder>, Res<Battlefield>),
) {
    let Ok(me) = creatures.get(thrower) else { return };
    let splash =
        plan.weapon.splash.clone().unwrap_or(Splash { damage: DiceExpr::new(0, 0), undead_only: false, burns: None });
    let target = plan.target.and_then(|e| creatures.get(e).ok());
    let hit = match &target {
        Some(t) => {
            let touch = crate::rules::attack::AttackPlan {
                weapon: plan.weapon.clone(),
                modifiers: plan.modifiers.clone(),
                armor_class: plan.armor_class,
                armor_class_parts: plan.armor_class_parts.clone(),
                damage_modifiers: Vec::new(),
                miss_chance: plan.miss_chance,
                lethal: true,
                nonlethal: false,
                multipliers: Vec::new(),
                halved: false,
                extra_dice: Vec::new(),
                confirm_criticals: true,
                harmless: None,
            };
            crate::rules::attack::roll_touch_attack(&touch, me.id, t.id, &mut dice, &mut facts)
        }
        None => {
            let roll = dice.d20();
            let bonus: i32 = plan.modifiers.iter().map(|m| m.value).sum();
            let judged = crate::rules::attack::roll::judge_attack(roll, bonus, plan.armor_class, 21);
            facts.write(Fact::IntersectionAimed {
                creature: me.id.clone(),
                weapon: plan.weapon.name.clone(),
                roll,
                modifiers: plan.modifiers.clone(),
                total: roll as i32 + bonus,
                hit: judged.hit,
            });
            judged.hit
        }
    };
    let burst = if hit {
        plan.burst
    } else {
        let d8 = dice.roll(8);
        let burst = plan.scatter[d8 as usize - 1];
        facts.write(Fact::SplashScattered {
            creature: me.id.clone(),
            weapon: plan.weapon.name.clone(),
            d8,
            squares: plan.increments,
            at: burst.area.origin,
        });
        burst
    };
    let harmed = |c: &CombatantItem| !splash.undead_only || c.traits.undead;
    if hit
        && let Some(t) = &target
        && harmed(t)
    {
        let mut out = (&mut dice, &mut facts, &mut damage);
        harm(&mut out, me.id, (t.id, t.entity), plan.weapon.damage, ("a direct hit (004:528)", true));
        if let Some(burns) = splash.burns {
            commands.entity(t.entity).insert(Burning {
                dice: burns,
                by: me.id.clone(),
                lit: (order.current_entity(), order.round),
            });
        }
    }
    let mut splashed: Vec<CombatantItem> = creatures
        .iter()
        .filter(|c| Some(c.entity) != plan.target.filter(|_| hit))
        .filter(|c| !c.conditions.has(Condition::Dead) && !c.conditions.has(Condition::InPit))
        .filter(|c| burst.reaches(&field, (c.space.at(c.position.0), c.altitude.0)) && harmed(c))
        // The water shields a creature in it from the splash: thrown, it is ineffective there (004:633); a
        // rider sits above it (docs/rulings.md).
        .filter(|c| {
            let swimmer = crate::rules::attack::underwater::swimmer_of(c);
            water::row_at(&field, c.space.at(c.position.0), c.altitude.0, swimmer).is_none()
        })
        .collect();
    splashed.sort_by_key(|c| c.id.clone());
    for c in splashed {
        let mut out = (&mut dice, &mut facts, &mut damage);
        harm(&mut out, me.id, (c.id, c.entity), splash.damage, ("splash (004:528)", false));
    }
}

/// Where a flask's damage goes: the dice, the facts, the damage dealt.
type Harming<'a, 'w, 'f, 'd> =
    (&'a mut ResMut<'w, Dice>, &'a mut MessageWriter<'f, Fact>, &'a mut MessageWriter<'d, Damage>);

/// A flask's `dice` of lethal damage from `by` to a creature, `why` it is dealt, and whether it is one
/// foe's attack (the direct hit) for the massive damage rule: rolled, told and dealt.
fn harm(
    (dice, facts, damage): &mut Harming<'_, '_, '_, '_>,
    by: &CreatureId,
    (id, entity): (&CreatureId, Entity),
    expr: DiceExpr,
    (why, from_one_attack): (&str, bool),
) {
    let thrown = dice.throw(expr);
    let total = thrown.total.max(1);
    facts.write(Fact::DamageDealt {
        attacker: by.clone(),
        target: id.clone(),
        dice: vec![thrown],
        modifiers: Vec::new(),
        multiplier: 1,
        multiplied_by: vec![why.into()],
        total,
        nonlethal: false,
    });
    damage.write(Damage { target: entity, amount: total, nonlethal: false, from_one_attack });
}

/// Burning from alchemist's fire: its dice again at the start of the creature's next turn.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Burning {
    /// The dice.
    pub dice: DiceExpr,
    /// Who threw it.
    pub by: CreatureId,
    /// The turn it was set alight in: whose, and the round.
    pub lit: (Option<Entity>, u32),
}

/// Where a burning creature stands, as the water asks it.
type Placed = (&'static Position, &'static Space, &'static Size, &'static Altitude);

/// Burns each burning creature at the start of its next turn, once; the water puts the fire out first
/// (004:635), a rider's only when it is in the water itself (never in the saddle, our ruling).
pub(super) fn burn(
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    burning: Query<(Entity, &CreatureId, &Burning, Placed, Has<crate::rules::core::creature::Riding>)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut commands: Commands,
) {
    let now = order.current_entity();
    for (entity, id, fire, (position, space, size, altitude), riding) in &burning {
        if !riding && water::in_the_water(&field, space.at(position.0), *size, altitude.0) {
            facts.write(Fact::FireDoused { creature: id.clone() });
            commands.entity(entity).remove::<Burning>();
            continue;
        }
        // At the start of its next turn: not again in a delayed turn resumed (004:630).
        if now != Some(entity) || fire.lit == (now, order.round) || order.resumed {
            continue;
        }
        let mut out = (&mut dice, &mut facts, &mut damage);
        harm(&mut out, &fire.by, (id, entity), fire.dice, ("alchemist's fire burning on", false));
        commands.entity(entity).remove::<Burning>();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::core::geometry::Square;

    #[test]
    fn a_miss_scatters_short_then_clockwise_004_530() {
        // Thrown eastward: 1 is short (west, back toward the thrower), 2 short and to the left (north-west),
        // then clockwise; two range increments, two squares.
        let burst = Burst { area: Footprint::new(Square::new(5, 5), 1), reach: 1, altitude: 0, thrown_from: None };
        let toward = super::super::bull_rush::away(Footprint::new(Square::new(0, 5), 1), burst.area);
        assert_eq!(toward, Direction::East);
        let field = Battlefield::open(12, 12);
        let landed: Vec<Square> = scatter_bursts(&field, burst, toward, 2).iter().map(|b| b.area.origin).collect();
        assert_eq!(
            landed,
            [(3, 5), (3, 3), (5, 3), (7, 3), (7, 5), (7, 7), (5, 7), (3, 7)].map(|(x, y)| Square::new(x, y))
        );
        // Thrown southward, 1 is north.
        let south = super::super::bull_rush::away(Footprint::new(Square::new(5, 0), 1), burst.area);
        assert_eq!(scatter_bursts(&field, burst, south, 1)[0].area.origin, Square::new(5, 4));
        // A wall square two squares short holds the burst one square short; a wall edge east of the aimed
        // square holds the long ones where they were aimed.
        let mut walled = Battlefield::open(12, 12);
        walled.set_terrain(Square::new(3, 5), Terrain::Wall);
        let e = crate::rules::core::geometry::Edge { square: Square::new(5, 5), east: true };
        walled.set_edge(e, crate::rules::core::battlefield::EdgeFeature::Wall);
        let landed: Vec<Square> = scatter_bursts(&walled, burst, toward, 2).iter().map(|b| b.area.origin).collect();
        assert_eq!(landed[0], Square::new(4, 5), "short, stopped by the wall square");
        assert_eq!(landed[4], Square::new(5, 5), "long, stopped by the wall edge");
        // The map's edge holds nothing back, on a diagonal either.
        let corner = Burst { area: Footprint::new(Square::new(1, 1), 1), ..burst };
        let off = corner.moved_short_of_walls(&field, Direction::NorthWest, 3);
        assert_eq!(off.area.origin, Square::new(-2, -2));
    }

    #[test]
    fn the_splash_reaches_1_5_m_around_or_the_four_squares_of_an_intersection() {
        let field = Battlefield::open(12, 12);
        let on_creature =
            Burst { area: Footprint::new(Square::new(5, 5), 1), reach: 1, altitude: 0, thrown_from: None };
        assert!(on_creature.reaches(&field, (Footprint::new(Square::new(6, 6), 1), 0)));
        assert!(!on_creature.reaches(&field, (Footprint::new(Square::new(7, 5), 1), 0)));
        assert_eq!(on_creature.squares(&field).len(), 9);
        let on_corner = Burst { area: Footprint::new(Square::new(5, 5), 2), reach: 0, altitude: 0, thrown_from: None };
        assert!(on_corner.reaches(&field, (Footprint::new(Square::new(6, 6), 1), 0)));
        assert!(!on_corner.reaches(&field, (Footprint::new(Square::new(7, 6), 1), 0)));
        assert_eq!(on_corner.squares(&field).len(), 4);
    }

    #[test]
    fn the_splash_goes_through_no_wall() {
        use crate::rules::core::battlefield::EdgeFeature;
        use crate::rules::core::geometry::Edge;
        let mut field = Battlefield::open(12, 12);
        // A wall edge east of (5,5).
        field.set_edge(Edge { square: Square::new(5, 5), east: true }, EdgeFeature::Wall);
        let on_creature =
            Burst { area: Footprint::new(Square::new(5, 5), 1), reach: 1, altitude: 0, thrown_from: None };
        assert!(!on_creature.reaches(&field, (Footprint::new(Square::new(6, 5), 1), 0)), "behind the wall edge");
        assert!(on_creature.reaches(&field, (Footprint::new(Square::new(5, 6), 1), 0)), "below, in the open");
        assert!(!on_creature.squares(&field).contains(&Square::new(6, 5)));
    }
}
