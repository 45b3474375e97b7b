//! Breath weapons: a cone or a line of fire, frost or lightning breathed as a standard action, covering
//! everyone in it, each saving on Reflex for half, then a wait of some rounds before the next. The texts
//! name them where the blind spot and the altitude bands meet them (004:676, 004:788-797); their shape,
//! length, damage, DC and recharge are the creature's data, as the Monster Manual gives them (our ruling,
//! docs/rulings.md).

pub mod area;

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::rules::core::kept::kept;
pub use crate::rules::core::names::Action;
use crate::rules::core::names::BreathShape;
pub use area::{Area, covered};

use crate::rules::attack::Damage;
use crate::rules::attack::{Combatant, CombatantItem, Cover, ranged_cover};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::{Save, roll_save_with};
use crate::rules::core::creature::*;
use crate::rules::core::dice::{Dice, DiceExpr};
use crate::rules::core::facts::{Fact, refuse};
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::Strain;
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// A breath weapon as a creature's template writes it:
/// `breath: (shape: Cone, length_m: 12.0, damage: "6d10", dc: 19, recharge: "1d4")`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreathWeapon {
    /// Cone or line.
    pub shape: BreathShape,
    /// How far it reaches, in metres.
    pub length_m: f32,
    /// Its damage, thrown once for everyone it covers.
    pub damage: DiceExpr,
    /// The Reflex DC for half; when not given, 10 + half its level + its Con modifier (the Monster
    /// Manual's rule for breath weapons).
    #[serde(default)]
    pub dc: Option<i32>,
    /// Rounds it waits before it breathes again.
    #[serde(default = "one_d_four")]
    pub recharge: DiceExpr,
    /// It is fire (a red dragon's): the water shields a swimmer from it as from an attack from the land
    /// (004:634 « sauf s'ils ... relèvent du feu »); any other breath it does not.
    #[serde(default)]
    pub fire: bool,
}

impl BreathWeapon {
    /// The space it fills.
    pub fn area(&self) -> Area {
        Area { shape: self.shape, length_m: self.length_m }
    }
}

fn one_d_four() -> DiceExpr {
    DiceExpr::new(1, 4)
}

/// A creature's breath weapon, its DC worked out, and when it may breathe next.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Breath {
    /// The weapon.
    pub weapon: BreathWeapon,
    /// The Reflex DC.
    pub dc: i32,
    /// The first round it may breathe in (0: from the start).
    pub ready_round: u32,
}

impl Breath {
    /// Whether it may breathe in `round`, or the round it comes back in.
    pub fn ready(&self, round: u32) -> Result<(), Refusal> {
        if self.ready_round > round {
            return Err(Refusal::new(
                format!("its breath comes back in round {} (now {round})", self.ready_round),
                "docs/rulings.md",
            ));
        }
        Ok(())
    }

    /// The breath of a creature of `level` and Constitution `con`.
    pub fn new(weapon: BreathWeapon, level: u32, con: i32) -> Self {
        let dc = weapon.dc.unwrap_or(10 + level as i32 / 2 + ability_modifier(con));
        Breath { weapon, dc, ready_round: 0 }
    }
}

/// Asks a creature to breathe at a creature (foe, ally or bystander): the breath covers what its shape
/// covers from there.
#[derive(Message, Clone, Copy, Debug)]
pub struct BreathIntent {
    /// Who breathes.
    pub creature: Entity,
    /// At whom it aims.
    pub toward: Entity,
}

/// Breath weapons.
pub fn plugin(app: &mut App) {
    app.add_message::<BreathIntent>();
    app.add_systems(
        Rules,
        breathe
            .in_set(RulesSystems::Act)
            .after(crate::rules::magic::CastSystems)
            .before(crate::rules::attack::take_total_defense),
    );
}

/// The terms of the situation on `victim`'s Reflex save against `breather`'s breath: cover between them,
/// the breath's origin on the other side (004:402, 004:407); the game's preview shows the same.
pub fn reflex_terms(
    field: &Battlefield,
    (breather, fire): (&CombatantItem, bool),
    victim: &CombatantItem,
) -> (Vec<Modifier>, bool) {
    let from = breather.space.at(breather.position.0);
    let cover = crate::rules::core::cover::ranged_cover_at(
        field,
        ((from, breather.altitude.0), (victim.space.at(victim.position.0), victim.altitude.0)),
        &[],
    );
    // A swimmer or a wader up to its chest has improved cover against a foe on the land, +4 on Reflex, from
    // a magical effect that is fire (004:634); the better of the two covers counts.
    let water = fire.then(|| {
        let (attacker, target) = (
            crate::rules::attack::underwater::swimmer_of(breather),
            crate::rules::attack::underwater::swimmer_of(victim),
        );
        let own = (attacker, from, breather.altitude.0);
        crate::rules::attack::underwater::water_cover_at(
            field,
            own,
            (target, victim.space.at(victim.position.0), victim.altitude.0),
            false,
        )
    });
    let cover = crate::rules::attack::underwater::with_water(cover, water.flatten());
    let mut terms: Vec<Modifier> = cover.reflex_bonus().into_iter().collect();
    let evasion = cover.improved_evasion();
    if evasion {
        terms.push(Modifier::new(0, "improved cover: nothing on a save, half on a failure (004:407)"));
    }
    (terms, evasion)
}

/// The damage a Reflex save for half leaves of `full`: half (at least 1) on a save, all on a failure; with
/// improved evasion, which improved cover gives (004:407), none on a save and half on a failure.
pub fn reflex_damage(full: i32, saved: bool, improved_evasion: bool) -> i32 {
    match (saved, improved_evasion) {
        (true, true) => 0,
        (true, false) | (false, true) => (full / 2).max(1),
        (false, false) => full,
    }
}

/// Whether `breather` may breathe at `toward` now, and whom the breath would cover, the aim first and the
/// others by id; `all` is every creature.
pub fn check_breath(
    order: &TurnOrder,
    field: &Battlefield,
    breather: &CombatantItem,
    breath: &Breath,
    budget: &ActionBudget,
    all: &[CombatantItem],
    toward: Entity,
) -> Result<Vec<Entity>, Refusal> {
    order.check_turn(breather.entity)?;
    crate::rules::core::creature::able_to_act(breather.conditions)?;
    // Pinned it only breaks free; grappling, it has the grapple's options alone, no breath among them
    // (004:592-596, 004:614).
    crate::rules::core::creature::not_pinned(breather.conditions)?;
    crate::rules::core::creature::out_of_grapple(breather.conditions, "breath weapon")?;
    breath.ready(order.round)?;
    // A flier in the air directed by its rider flies as it is bid and does nothing else (004:656).
    let directed = breather.riders.is_some_and(|riders| {
        riders
            .all()
            .iter()
            .any(|r| all.iter().any(|c| c.entity == *r && crate::rules::core::creature::directs(c.seat, c.conditions)))
    });
    if directed && breather.in_the_air() {
        return Err(Refusal::new(
            format!("{} is ridden in the air: it flies as its rider bids, and breathes not", breather.id),
            "004:656",
        ));
    }
    budget.check(ActionKind::Standard)?;
    let others: Vec<&CombatantItem> =
        all.iter().filter(|c| c.entity != breather.entity && !c.conditions.has(Condition::Dead)).collect();
    let aim = others
        .iter()
        .position(|c| c.entity == toward)
        .ok_or_else(|| Refusal::new("nobody there to aim at", "docs/rulings.md"))?;
    crate::rules::core::creature::in_sight_of(others[aim].hidden, breather.entity, others[aim].id)?;
    let bodies: Vec<Body> = others.iter().map(|c| crate::rules::attack::body_of(c)).collect();
    let own = crate::rules::attack::body_of(breather);
    let blind = crate::rules::attack::unseen_of(breather);
    let open = |at| ranged_cover(field, own.footprint, at, &[]) != Cover::Total;
    let caught = covered((field.scale(), field.diagonals()), breath.weapon.area(), &own, &bodies, aim, &blind, open)?;
    let mut entities: Vec<&CombatantItem> = caught.into_iter().map(|i| others[i]).collect();
    entities[1..].sort_by(|a, b| a.id.0.cmp(&b.id.0));
    Ok(entities.into_iter().map(|c| c.entity).collect())
}

/// Whom `breather` would cover breathing at `toward` now, or why it may not: for the game's preview and
/// the AI.
pub fn breath_preview(world: &mut World, breather: Entity, toward: Entity) -> Result<Vec<Entity>, Refusal> {
    let mut q = kept::<Combatant, With<Creature>>(world);
    let all: Vec<CombatantItem> = q.iter(world).collect();
    let me = all.iter().find(|c| c.entity == breather).ok_or_else(|| Refusal::new("no such creature", "data"))?;
    let breath = world.get::<Breath>(breather).ok_or_else(|| Refusal::new("it has no breath weapon", "data"))?;
    let budget = world.get::<ActionBudget>(breather).copied().unwrap_or_default();
    check_breath(world.resource::<TurnOrder>(), world.resource::<Battlefield>(), me, breath, &budget, &all, toward)
}

/// Each creature a breath would cover, with its chance to save for half and the terms of the situation on
/// its save (cover, 004:402): what the game shows before the breath.
pub fn breath_saves(world: &mut World, breather: Entity, covered: &[Entity]) -> Vec<(Entity, f32, Vec<Modifier>)> {
    use crate::rules::core::checks::{save_bonus, save_chance};
    let mut state = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let q = state.query(world);
    let (Ok(me), Some(breath)) = (q.get(breather), world.get::<Breath>(breather)) else { return Vec::new() };
    let field = world.resource::<Battlefield>();
    covered
        .iter()
        .filter_map(|e| q.get(*e).ok())
        .map(|victim| {
            let (terms, _) = reflex_terms(field, (&me, breath.weapon.fire), &victim);
            let bonus = save_bonus(Save::Reflex, victim.saves, &abilities_in_play(victim.abilities, victim.conditions))
                + terms.iter().map(|m| m.value).sum::<i32>();
            (victim.entity, save_chance(bonus, breath.dc), terms)
        })
        .collect()
}

/// Breathes: the turn, the standard action, the breath's readiness and reach; then one throw of its dice,
/// and each creature covered saves on Reflex for half.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
fn breathe(
    mut intents: MessageReader<BreathIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut breathers: Query<(&mut Breath, &mut ActionBudget)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
    mut strain: MessageWriter<Strain>,
) {
    for intent in intents.read() {
        let Ok(me) = creatures.get(intent.creature) else { continue };
        let Ok((mut breath, mut budget)) = breathers.get_mut(intent.creature) else {
            refuse(&mut facts, me.id, Action::Breathe, Refusal::new(format!("{} has no breath weapon", me.id), "data"));
            continue;
        };
        let all: Vec<CombatantItem> = creatures.iter().collect();
        let caught = match check_breath(&order, &field, &me, &breath, &budget, &all, intent.toward) {
            Ok(caught) => caught,
            Err(refusal) => {
                refuse(&mut facts, me.id, Action::Breathe, refusal);
                continue;
            }
        };
        let _ = budget.spend(ActionKind::Standard);
        // A standard action costs a creature disabled once it is done 1 hit point (004:274).
        strain.write(Strain::standard_action(intent.creature));
        let thrown = dice.throw(breath.weapon.damage);
        let wait = dice.throw(breath.weapon.recharge).total.max(1) as u32;
        breath.ready_round = order.round + wait;
        let victims: Vec<CombatantItem> = caught.iter().filter_map(|e| creatures.get(*e).ok()).collect();
        facts.write(Fact::Breathed {
            creature: me.id.clone(),
            shape: breath.weapon.shape,
            toward: victims[0].id.clone(),
            covered: victims.iter().map(|v| v.id.clone()).collect(),
            dice: thrown.clone(),
            dc: breath.dc,
            ready_in_round: breath.ready_round,
        });
        let full = thrown.total.max(1);
        for victim in &victims {
            let reason = format!("{}'s breath, for half", me.id);
            let (terms, evasion) = reflex_terms(&field, (&me, breath.weapon.fire), victim);
            let saved = roll_save_with(
                &mut dice,
                &mut facts,
                victim.id,
                Save::Reflex,
                (victim.saves, &abilities_in_play(victim.abilities, victim.conditions)),
                reason,
                breath.dc,
                terms,
            );
            let amount = reflex_damage(full, saved, evasion);
            let modifiers = match (saved, evasion) {
                (true, true) => vec![Modifier::new(-full, "none: saved in improved cover (004:407)")],
                (false, true) => vec![Modifier::new(-(full - amount), "halved: improved cover (004:407)")],
                (true, false) => vec![Modifier::new(-(full - amount), "halved by the save")],
                (false, false) => Vec::new(),
            };
            facts.write(Fact::DamageDealt {
                attacker: me.id.clone(),
                target: victim.id.clone(),
                dice: vec![thrown.clone()],
                modifiers,
                multiplier: 1,
                multiplied_by: Vec::new(),
                total: amount,
                nonlethal: false,
            });
            damage.write(Damage { target: victim.entity, amount, nonlethal: false, from_one_attack: true });
        }
    }
}
