//! Casting spells in combat (004:190-200, 004:235-238): the action it takes, the attacks of opportunity
//! it provokes, casting defensively, the Concentration checks that keep a spell when the caster is hurt,
//! and spells that take a round or more to cast, during which the caster threatens nothing.
//!
//! The texts give the rules of casting, not the spells: the few spells the game knows are data, in
//! `assets/spells.ron`, with three kinds of effect (unerring missiles, a blast with a saving throw for
//! half, healing by touch).

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::rules::attack::Damage;
use crate::rules::attack::{Combatant, CombatantItem};
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::checks::roll_check;
use crate::rules::core::checks::{Save, roll_save};
use crate::rules::core::creature::*;
use crate::rules::core::dice::{Dice, DiceExpr};
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::names::Check;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::health::Healing;
use crate::rules::opportunity::{Opportunity, Reactions};
use crate::rules::turns::moving::{Pace, RiderAct};
use crate::rules::turns::{ActionBudget, ActionKind, TurnOrder};

/// How long a spell takes to cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CastingTime {
    /// One standard action: the spell takes effect at once (004:190, 004:195).
    Standard,
    /// A number of full rounds: a full-round action each round, and the spell takes effect just before the
    /// caster's turn that many rounds later (004:235-236).
    Rounds(u32),
}

/// How far a spell reaches.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum SpellRange {
    /// The caster or a creature it touches (004:198): itself or within its reach.
    Touch,
    /// Up to this many metres, with a line of effect.
    Metres(f32),
}

/// What a spell does to its target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum SpellEffect {
    /// Missiles that never miss: one at caster level 1 and one more for every two levels above, at most
    /// `max`, each dealing `dice`.
    Missiles {
        /// Damage of each missile.
        dice: DiceExpr,
        /// The most missiles.
        max: u32,
    },
    /// Damage, halved by a successful saving throw against 10 + spell level + the caster's ability modifier.
    Blast {
        /// Damage.
        dice: DiceExpr,
        /// The save.
        save: Save,
        /// Plus the caster level, counting for at most this much (an inflict spell); none if 0.
        #[serde(default)]
        max_level_bonus: u32,
        /// Negative energy (an inflict spell): it heals an undead in place of wounding it (the d20 standard;
        /// docs/rulings.md).
        #[serde(default)]
        negative: bool,
    },
    /// Healing: `dice` plus the caster level, the level counting for at most `max_level_bonus`; positive
    /// energy, it wounds an undead instead, a Will save for half (the d20 standard; docs/rulings.md).
    Heal {
        /// Healing dice.
        dice: DiceExpr,
        /// The cap on the caster-level bonus.
        max_level_bonus: u32,
    },
}

/// A spell of the catalogue `assets/spells.ron`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellDef {
    /// Spell level (0 to 9).
    pub level: u32,
    /// Casting time.
    pub casting: CastingTime,
    /// Range.
    pub range: SpellRange,
    /// Effect.
    pub effect: SpellEffect,
    /// It has a somatic component (gestures): none can be cast in a grapple (004:595). All the catalogue's
    /// do, as their d20 descriptions give them.
    #[serde(default = "somatic_by_default")]
    pub somatic: bool,
}

const fn somatic_by_default() -> bool {
    true
}

/// A spell a creature can cast, with the castings it has left.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnownSpell {
    /// Its name.
    pub name: String,
    /// Its definition.
    pub def: SpellDef,
    /// Castings left today.
    pub uses: u32,
}

/// A caster's magic: its level, the modifier of its casting ability, and its spells.
#[derive(Component, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spellcasting {
    /// Caster level.
    pub caster_level: u32,
    /// The modifier of the ability its spells' saving throws go by.
    pub ability_modifier: i32,
    /// The spells it knows.
    pub spells: Vec<KnownSpell>,
}

impl Spellcasting {
    /// The spells it can still cast, in its order.
    pub fn castable(&self) -> impl Iterator<Item = &KnownSpell> {
        self.spells.iter().filter(|s| s.uses > 0)
    }
}

/// A spell being cast over one round or more (004:235-238): the caster threatens nothing meanwhile.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct CastingUnderway {
    /// The spell.
    pub spell: KnownSpell,
    /// At whom.
    pub target: Entity,
    /// The round at the start of whose turn it takes effect.
    pub completes: u32,
    /// Begun by a creature restricted to one action with its standard action: the full-round action is
    /// completed with the standard action of its next turn, spent as the spell takes effect (004:86, 004:212).
    pub over_two_rounds: bool,
}

/// Set on a caster whose casting waits for a readied action set off by it (004:621): its hit points
/// then, so that the wound the readied action deals calls for a Concentration check.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct AwaitingCast {
    /// Hit points before the readied action, nonlethal and temporary ones too.
    pub hit_points: HitPoints,
}

/// A touch spell whose touch missed, or not yet delivered: the caster holds its charge, and may touch again
/// each round (004:200); casting another spell dissipates it.
#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_insert = charge_held, on_remove = charge_gone)]
pub struct HeldCharge {
    /// The spell held.
    pub spell: KnownSpell,
    /// The round it was cast in, when no touch was tried yet: the touch that round is the casting's own, no
    /// action more (« lors du round où il lance le sort … le déplacement peut s'effectuer avant
    /// l'incantation, après avoir touché le sujet, ou entre ces deux instants », 004:198).
    pub untried_in: Option<u32>,
}

/// The charge held arms its holder's bare hands (004:170-171): the core's mark, which the threat reads.
fn charge_held(mut world: bevy::ecs::world::DeferredWorld, context: bevy::ecs::lifecycle::HookContext) {
    world.commands().entity(context.entity).insert(HoldingCharge);
}

fn charge_gone(mut world: bevy::ecs::world::DeferredWorld, context: bevy::ecs::lifecycle::HookContext) {
    if let Ok(mut holder) = world.commands().get_entity(context.entity) {
        holder.try_remove::<HoldingCharge>();
    }
}

/// Asks to deliver a held charge with a touch (004:200): a standard action, a melee touch attack that
/// provokes nothing (004:199).
#[derive(Message, Clone, Copy, Debug)]
pub struct TouchIntent {
    /// The caster holding the charge.
    pub caster: Entity,
    /// Whom it touches.
    pub target: Entity,
}

/// Asks to cast a spell.
#[derive(Message, Clone, Debug)]
pub struct CastIntent {
    /// Who casts.
    pub caster: Entity,
    /// The spell, by name.
    pub spell: String,
    /// At whom (the caster itself for a spell on oneself).
    pub target: Entity,
    /// Cast defensively: no attack of opportunity, a Concentration check DC 15 + level (004:197).
    pub defensively: bool,
    /// A readied casting set off by its trigger: out of turn, its action already spent (004:621).
    pub readied: bool,
    /// A rider casting between two moves of its mount (004:480).
    pub between_moves: bool,
}

/// The Concentration DC to keep a spell after a wound: 10 + damage + spell level (004:196).
pub const fn wound_dc(damage: i32, level: u32) -> i32 {
    10 + damage + level as i32
}

/// The Concentration DC to cast defensively: 15 + spell level (004:197).
pub const fn defensive_dc(level: u32) -> i32 {
    15 + level as i32
}

/// The Concentration DC to cast in a grapple, or pinned: 20 + spell level (004:595).
pub const fn grappled_dc(level: u32) -> i32 {
    20 + level as i32
}

/// The Concentration check a rider casting needs when its mount went beyond its speed this round
/// (004:480): DC 10 + spell level during a double move, 15 + spell level once it ran twice its speed.
pub fn jolted(
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    caster: &CombatantItem,
    level: u32,
) -> Option<(i32, &'static str)> {
    let mount = caster.riding.and_then(|r| creatures.get(r.0).ok())?;
    match crate::rules::attack::mount_pace(order, &mount) {
        Pace::WithinSpeed => None,
        Pace::BeyondSpeed => Some((10 + level as i32, "casting on a mount in its double move (004:480)")),
        Pace::Ran => Some((15 + level as i32, "casting on a running mount (004:480)")),
    }
}

/// Whether `caster` may cast between two moves of its mount (004:480): it rides one on the ground that has
/// moved this round, within its speed (beyond it, the check of [`jolted`] stands for it).
pub fn between_moves(
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    caster: &CombatantItem,
) -> Result<(), Refusal> {
    let mount = caster
        .riding
        .and_then(|r| creatures.get(r.0).ok())
        .ok_or_else(|| Refusal::new("it rides no mount to cast between its moves", "004:480"))?;
    if mount.in_the_air() {
        return Err(Refusal::new(
            "its mount flies: the rider acts before or after the flight, not during it",
            "004:480, 004:812",
        ));
    }
    // Moved in this turn, as its rider bids (004:474): not in its own turn before its rider got on.
    let moved = crate::rules::attack::travel_this_turn(order, &mount).is_some_and(|t| t.in_round(order.round) > 0);
    match crate::rules::attack::mount_pace(order, &mount) {
        Pace::WithinSpeed if moved => Ok(()),
        Pace::WithinSpeed => {
            Err(Refusal::new("its mount has not moved yet this round: it casts before its move", "004:480"))
        }
        _ => Err(Refusal::new("its mount went beyond its speed: the check of a double move stands for it", "004:480")),
    }
}

/// The DC of a saving throw against a spell: 10 + spell level + the caster's ability modifier.
pub const fn save_dc(level: u32, ability_modifier: i32) -> i32 {
    10 + level as i32 + ability_modifier
}

/// Missiles at `caster_level`: one, and one more for every two levels above the first, at most `max`.
pub fn missiles(caster_level: u32, max: u32) -> u32 {
    (1 + caster_level.saturating_sub(1) / 2).min(max).max(1)
}

/// A creature's Concentration bonus: its skill total, or its Constitution modifier if it has no ranks.
pub fn concentration_bonus(skills: &Skills, abilities: &Abilities) -> i32 {
    skills.concentration.unwrap_or_else(|| ability_modifier(abilities.con))
}

/// Casting, among the actions: after the potions, before total defence.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CastSystems;

/// Spells in combat.
pub fn plugin(app: &mut App) {
    app.add_message::<CastIntent>();
    app.configure_sets(
        Rules,
        CastSystems
            .in_set(RulesSystems::Act)
            .after(crate::rules::health::use_item)
            .after(crate::rules::health::first_aid::give_first_aid)
            .before(crate::rules::attack::take_total_defense),
    );
    app.add_message::<TouchIntent>();
    app.add_systems(Rules, (cast, deliver_touch).chain().in_set(CastSystems));
    app.add_systems(
        Rules,
        discharge_on_a_blow
            .in_set(RulesSystems::Consequences)
            .before(crate::rules::turns::give_up_full_attacks)
            .before(crate::rules::health::HealthSystems),
    );
    // A spell's round comes before anything the caster might do in its turn.
    app.add_systems(
        Rules,
        complete_casting.in_set(RulesSystems::Act).before(crate::rules::turns::ready::ReadySystems).before(CastSystems),
    );
    app.add_systems(
        Rules,
        keep_concentration
            .in_set(RulesSystems::Consequences)
            .after(crate::rules::turns::give_up_full_attacks)
            .before(crate::rules::health::HealthSystems),
    );
}

/// What the casting systems write.
#[derive(bevy::ecs::system::SystemParam)]
pub struct CastOutput<'w> {
    facts: MessageWriter<'w, Fact>,
    damage: MessageWriter<'w, Damage>,
    healing: MessageWriter<'w, Healing>,
    falls: crate::rules::attack::manoeuvre::Falls<'w>,
}

/// Casts: the turn, the action, the spell and its range; then the attacks of opportunity or the defensive
/// Concentration check; then the effect, at once or in a later round.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
#[expect(
    clippy::too_many_lines,
    reason = "casting in the order of 004:190-200: the checks, the attacks of opportunity, the Concentration, the effect"
)]
fn cast(
    mut commands: Commands,
    mut intents: MessageReader<CastIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut casters: Query<Caster>,
    mut reactions: Query<&mut Reactions>,
    mut dice: ResMut<Dice>,
    mut out: CastOutput,
) {
    for intent in intents.read() {
        let (Ok(caster), Ok(target)) = (creatures.get(intent.caster), creatures.get(intent.target)) else { continue };
        let Ok((mut magic, mut budget, skills, awaiting, held)) = casters.get_mut(intent.caster) else {
            out.facts.write(refused(
                caster.id,
                &intent.spell,
                Refusal::new(format!("{} casts no spells", caster.id), "data"),
            ));
            continue;
        };
        let awaiting = awaiting.copied();
        if awaiting.is_some() {
            commands.entity(intent.caster).remove::<AwaitingCast>();
        }
        let checked =
            check_cast(&order, &field, &caster, &target, &magic, (!intent.readied).then_some(&*budget), &intent.spell)
                .and_then(|i| {
                    if intent.between_moves { between_moves(&order, &creatures, &caster).map(|()| i) } else { Ok(i) }
                });
        let index = match checked {
            Ok(i) => i,
            Err(refusal) => {
                out.facts.write(refused(caster.id, &intent.spell, refusal));
                continue;
            }
        };
        // A new casting dissipates a charge held (004:200).
        if let Some(held) = held {
            out.facts.write(lost(caster.id, &held.spell.name, "a new casting dissipates the charge held (004:200)"));
            commands.entity(intent.caster).remove::<HeldCharge>();
        }
        let over_two_rounds = !intent.readied
            && magic.spells[index].def.casting == CastingTime::Rounds(1)
            && begins_over_two_rounds(&budget);
        let kind = match magic.spells[index].def.casting {
            CastingTime::Standard => ActionKind::Standard,
            CastingTime::Rounds(_) if over_two_rounds => ActionKind::Standard,
            CastingTime::Rounds(_) => ActionKind::FullRound,
        };
        let _ = budget.spend_unless_readied(kind, intent.readied);
        magic.spells[index].uses -= 1;
        let spell = magic.spells[index].clone();
        // A standard action costs a creature disabled once it is cast 1 hit point (004:274), a readied one too.
        if kind == ActionKind::Standard {
            out.falls.strain.write(crate::rules::turns::Strain::standard_action(intent.caster));
        }
        out.facts.write(Fact::CastingBegun {
            caster: caster.id.clone(),
            spell: spell.name.clone(),
            target: target.id.clone(),
            defensively: intent.defensively,
        });
        let bonus = concentration_bonus(skills, caster.abilities);
        let keeps = |dc: i32, reason: String, dice: &mut Dice, facts: &mut MessageWriter<Fact>| {
            roll_check(dice, facts, caster.id, Check::Concentration, reason, bonus, dc)
        };
        // A readied action set off by this casting struck first (004:621): its wound distracts.
        let wounded_before = awaiting.map_or(0, |a| caster.hit_points.damage_since(&a.hit_points));
        if wounded_before > 0
            && !keeps(
                wound_dc(wounded_before, spell.def.level),
                format!("wounded for {wounded_before} while casting (004:196)"),
                &mut dice,
                &mut out.facts,
            )
        {
            out.facts.write(lost(caster.id, &spell.name, "the wound broke the caster's concentration (004:193)"));
            continue;
        }
        if intent.defensively {
            if !keeps(defensive_dc(spell.def.level), "casting defensively (004:197)".into(), &mut dice, &mut out.facts)
            {
                out.facts.write(lost(
                    caster.id,
                    &spell.name,
                    "a failed Concentration check casting defensively (004:197)",
                ));
                continue;
            }
        } else {
            // Casting provokes from every foe that threatens the caster (004:196), at the start only (004:238).
            let initiative = order.initiative();
            let mut strike = Opportunity {
                field: &field,
                creatures: &creatures,
                dice: &mut dice,
                facts: &mut out.facts,
                damage: &mut out.damage,
                falls: &mut out.falls,
                gear: Vec::new(),
                wounds: Vec::new(),
                dropped_beside: Vec::new(),
            };
            let struck = strike.provoke_in_place_struck(
                &caster,
                &initiative,
                &mut reactions,
                None,
                Action::Casting,
                "casting a spell (004:103, 004:196)",
            );
            let wounds = std::mem::take(&mut strike.wounds);
            if struck.dropped {
                out.facts.write(lost(caster.id, &spell.name, "the caster dropped (004:70)"));
                continue;
            }
            // A check for each wound, its own damage in its DC (« DD 10 + nombre de points de dégâts
            // encaissés », 004:196); the first failed loses the spell.
            let broken = wounds.iter().any(|wound| {
                !keeps(
                    wound_dc(*wound, spell.def.level),
                    format!("wounded for {wound} by attacks of opportunity (004:196)"),
                    &mut dice,
                    &mut out.facts,
                )
            });
            if broken {
                out.facts.write(lost(caster.id, &spell.name, "the wound broke the caster's concentration (004:196)"));
                continue;
            }
        }
        // Cast on a mount that went beyond its speed this round: in the middle of its move, as we play a
        // rider's actions after its mount's (004:480).
        if let Some((dc, reason)) = jolted(&order, &creatures, &caster, spell.def.level)
            && !keeps(dc, reason.into(), &mut dice, &mut out.facts)
        {
            out.facts.write(lost(caster.id, &spell.name, "a failed Concentration check on a moving mount (004:480)"));
            continue;
        }
        // In a grapple, or pinned, a spell is kept by a Concentration check, DC 20 + its level (004:595).
        if caster.conditions.has(Condition::Grappling)
            && !keeps(grappled_dc(spell.def.level), "casting in a grapple (004:595)".into(), &mut dice, &mut out.facts)
        {
            out.facts.write(lost(caster.id, &spell.name, "a failed Concentration check in a grapple (004:595)"));
            continue;
        }
        // Cast between two moves of its mount (« s'il la fait avancer avant l'incantation, puis après »,
        // 004:480): a Concentration check, DC 10 + level, and the mount may move on after.
        if intent.between_moves
            && !keeps(
                10 + spell.def.level as i32,
                "casting between two moves of its mount (004:480)".into(),
                &mut dice,
                &mut out.facts,
            )
        {
            out.facts.write(lost(caster.id, &spell.name, "a failed Concentration check on a moving mount (004:480)"));
            continue;
        }
        // Its mount keeps to the pace the casting was judged at (004:480).
        if let Some(mount) = caster.riding.and_then(|r| creatures.get(r.0).ok())
            && !intent.readied
        {
            let act = if intent.between_moves { RiderAct::SpellBetweenMoves } else { RiderAct::Spell };
            crate::rules::attack::bind_the_mount(&mut commands, order.round, &mount, act);
        }
        // A touch spell on a creature out of its touch (beyond reach, behind a wall…): the charge is held
        // for a touch after a move (004:198-200).
        let touch_now = spell.def.range == SpellRange::Touch && spell.def.casting == CastingTime::Standard;
        let touch = (touch_now && caster.entity != target.entity)
            .then(|| touch_plan(&field, &order, &creatures, (&caster, &target), intent.readied));
        let Ok(touch) = touch.transpose() else {
            out.facts.write(Fact::ChargeHeld { caster: caster.id.clone(), spell: spell.name.clone() });
            commands.entity(intent.caster).insert(HeldCharge { spell, untried_in: Some(order.round) });
            continue;
        };
        // A touch spell on a foe: the touch attack now, as the casting's own (004:198-199); a miss holds
        // the charge (004:200).
        let foe = caster.faction != target.faction;
        let mut critical = false;
        if let Some(plan) = touch.filter(|_| foe) {
            let touched = touch_attack(plan, (&caster, &target), &mut dice, &mut out);
            let Some(crit) = touched else {
                out.facts.write(Fact::ChargeHeld { caster: caster.id.clone(), spell: spell.name.clone() });
                commands.entity(intent.caster).insert(HeldCharge { spell, untried_in: None });
                continue;
            };
            critical = crit;
        }
        match spell.def.casting {
            CastingTime::Standard => take_effect(&spell, (&caster, &target, critical), &magic, &mut dice, &mut out),
            CastingTime::Rounds(rounds) => {
                commands.entity(intent.caster).insert(CastingUnderway {
                    spell,
                    target: intent.target,
                    completes: order.round + rounds.max(1),
                    over_two_rounds,
                });
                out.falls.conditions.write(ConditionChange {
                    creature: intent.caster,
                    condition: Condition::Casting,
                    gained: true,
                });
            }
        }
    }
}

/// Whether a creature restricted to one action (a surprise round, disabled, staggered: 004:77) would begin a
/// full-round casting with its standard action, to complete it with the next (004:86, 004:212).
fn begins_over_two_rounds(budget: &ActionBudget) -> bool {
    budget.restricted && budget.check(ActionKind::Standard).is_ok()
}

/// Why the rules would refuse a casting as things stand, checked as [`cast`] checks it first and paying
/// nothing: a refused casting is no action, and sets off no readied action (004:621).
pub fn cast_refusal(
    In(intent): In<CastIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    casters: Query<(&Spellcasting, &ActionBudget)>,
) -> Option<Refusal> {
    let (Ok(caster), Ok(target)) = (creatures.get(intent.caster), creatures.get(intent.target)) else {
        return Some(Refusal::new("no such creature", "data"));
    };
    let Ok((magic, budget)) = casters.get(intent.caster) else {
        return Some(Refusal::new(format!("{} casts no spells", caster.id), "data"));
    };
    check_cast(&order, &field, &caster, &target, magic, (!intent.readied).then_some(budget), &intent.spell).err()
}

/// What a casting reads and spends of its caster: its magic, its budget, its skills, a readied action it
/// awaits, the charge it holds.
type Caster = (
    &'static mut Spellcasting,
    &'static mut ActionBudget,
    &'static Skills,
    Option<&'static AwaitingCast>,
    Option<&'static HeldCharge>,
);

/// A melee touch attack delivering a touch spell (004:198-199): `plan`, the attack of its unarmed hand
/// ([`touch_plan`]), against the target's touch AC, which drops armour, shield and natural armour; it provokes
/// nothing. `None` for a miss, else whether it is a critical hit (004:189, 004:199).
fn touch_attack(
    mut plan: crate::rules::attack::AttackPlan,
    (caster, target): (&crate::rules::attack::CombatantItem, &crate::rules::attack::CombatantItem),
    dice: &mut Dice,
    out: &mut CastOutput,
) -> Option<bool> {
    crate::rules::attack::as_touch_attack(&mut plan);
    crate::rules::attack::roll_touch_spell(&plan, (caster.id, target.id), target.traits, dice, &mut out.facts)
}

/// Delivers held charges (004:200): a standard action, a melee touch attack on a creature within reach that
/// provokes nothing (004:199); a hit gives the spell its effect and spends the charge, a miss keeps it.
#[expect(clippy::too_many_arguments, reason = "a Bevy system: one parameter per resource or message it touches")]
fn deliver_touch(
    mut commands: Commands,
    mut intents: MessageReader<TouchIntent>,
    order: Res<TurnOrder>,
    field: Res<Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
    mut casters: Query<(&Spellcasting, &mut ActionBudget, Option<&HeldCharge>)>,
    mut dice: ResMut<Dice>,
    mut out: CastOutput,
) {
    for intent in intents.read() {
        let (Ok(caster), Ok(target)) = (creatures.get(intent.caster), creatures.get(intent.target)) else { continue };
        let Ok((magic, mut budget, held)) = casters.get_mut(intent.caster) else { continue };
        let checked = check_touch((&order, &field, &creatures), (&caster, &target), held, &budget);
        let (spell, plan) = match checked {
            Ok(checked) => checked,
            Err(refusal) => {
                crate::rules::core::facts::refuse(&mut out.facts, caster.id, Action::Touch, refusal);
                continue;
            }
        };
        // The casting's own touch, in its round, costs nothing more (004:198); a later one is a standard
        // action, which costs a caster disabled once it is done 1 hit point (004:274).
        if !casting_touch(&order, held) {
            let _ = budget.spend(ActionKind::Standard);
            out.falls.strain.write(crate::rules::turns::Strain::standard_action(intent.caster));
        }
        // Tried, a missed touch keeps the charge for a later round (004:200).
        commands.entity(intent.caster).insert(HeldCharge { spell: spell.clone(), untried_in: None });
        let friend = caster.faction == target.faction;
        // A friend is touched at will; a foe by a touch attack (004:198).
        let touched = if friend { Some(false) } else { touch_attack(plan, (&caster, &target), &mut dice, &mut out) };
        if let Some(critical) = touched {
            commands.entity(intent.caster).remove::<HeldCharge>();
            take_effect(&spell, (&caster, &target, critical), magic, &mut dice, &mut out);
        }
    }
}

/// An unarmed or natural blow that hits while its attacker holds a touch spell's charge delivers the spell as
/// well as its own damage (004:201), in the same pass of the rules as the blow; not a hit the miss chance of
/// concealment turned into a miss (004:411 « l'attaque rate »).
pub fn discharge_on_a_blow(world: &mut World, mut cursor: Local<bevy::ecs::message::MessageCursor<Fact>>) {
    let mut hits: Vec<(CreatureId, CreatureId, String)> = Vec::new();
    for fact in cursor.read(world.resource::<bevy::ecs::message::Messages<Fact>>()) {
        match fact {
            Fact::AttackRolled { attacker, target, weapon, hit: true, .. } => {
                hits.push((attacker.clone(), target.clone(), weapon.clone()));
            }
            Fact::ConcealmentRolled { attacker, target, missed: true, .. }
                if hits.last().is_some_and(|(a, t, _)| a == attacker && t == target) =>
            {
                hits.pop();
            }
            _ => {}
        }
    }
    for (attacker, target, weapon) in hits {
        let roster = world.resource::<Roster>();
        let (Some(a), Some(t)) = (roster.get(&attacker.0), roster.get(&target.0)) else { continue };
        let Some(held) = world.get::<HeldCharge>(a).cloned() else { continue };
        let bare = world
            .get::<Armament>(a)
            .and_then(|arms| arms.0.iter().find(|w| w.name == weapon))
            .is_some_and(|w| w.unarmed || w.natural);
        if !bare {
            continue;
        }
        world.entity_mut(a).remove::<HeldCharge>();
        let _ = world.run_system_cached_with(discharge, (a, t, held.spell));
    }
}

/// The held spell's effect on the creature a blow struck (004:201).
fn discharge(
    In((caster, target, spell)): In<(Entity, Entity, KnownSpell)>,
    creatures: Query<Combatant, With<Creature>>,
    casters: Query<&Spellcasting>,
    mut dice: ResMut<Dice>,
    mut out: CastOutput,
) {
    let (Ok(c), Ok(t), Ok(magic)) = (creatures.get(caster), creatures.get(target), casters.get(caster)) else {
        return;
    };
    take_effect(&spell, (&c, &t, false), magic, &mut dice, &mut out);
}

/// Whether the touch of `held` now is the casting's own: in the round the spell was cast, no touch tried yet
/// (004:198).
pub fn casting_touch(order: &TurnOrder, held: Option<&HeldCharge>) -> bool {
    held.and_then(|h| h.untried_in) == Some(order.round)
}

/// Whether `caster` may touch `target` with the charge it holds now: its turn, its standard action (none in
/// the casting's round, 004:198), a charge held, the target within its reach; the spell held and the touch's
/// plan.
pub fn check_touch(
    (order, field, creatures): (&TurnOrder, &Battlefield, &Query<Combatant, With<Creature>>),
    (caster, target): (&crate::rules::attack::CombatantItem, &crate::rules::attack::CombatantItem),
    held: Option<&HeldCharge>,
    budget: &ActionBudget,
) -> Result<(KnownSpell, crate::rules::attack::AttackPlan), Refusal> {
    order.check_turn(caster.entity)?;
    crate::rules::core::creature::able_to_act(caster.conditions)?;
    if !casting_touch(order, held) {
        budget.check(ActionKind::Standard)?;
    }
    let held = held.ok_or_else(|| Refusal::new("it holds no charge of a touch spell", "004:200"))?;
    let (own, theirs) = (caster.space.at(caster.position.0), target.space.at(target.position.0));
    if !crate::rules::core::reach::melee_reaches(
        field.diagonals(),
        caster.reach.0,
        crate::rules::core::reach::WeaponReach::Natural,
        own,
        theirs,
    ) {
        return Err(Refusal::new(format!("{} is out of reach for a touch", target.id), "004:198"));
    }
    // Whatever else a blow in melee asks (a line of effect, height, sight, the blind spot…): the touch is
    // one (004:198-199), a friend's as a foe's, and is refused for what would refuse it.
    let plan = touch_plan(field, order, creatures, (caster, target), false)?;
    Ok((held.spell.clone(), plan))
}

/// The plan of a touch at `target`: a melee attack with the caster's hand, paid with the action that
/// delivers it, as [`crate::rules::attack::prepare_attack`] checks it.
fn touch_plan(
    field: &Battlefield,
    order: &TurnOrder,
    creatures: &Query<Combatant, With<Creature>>,
    (caster, target): (&crate::rules::attack::CombatantItem, &crate::rules::attack::CombatantItem),
    readied: bool,
) -> Result<crate::rules::attack::AttackPlan, Refusal> {
    let hand = caster.armament.0.iter().find(|w| w.unarmed).map(|w| w.name.clone());
    let request =
        crate::rules::attack::AttackRequest { weapon: hand.as_deref(), paid: true, readied, ..Default::default() };
    crate::rules::attack::prepare_attack(field, order, creatures, caster, target, request, &ActionBudget::default())
}

/// Whether a creature with `magic` may ready the casting of `spell`: it knows it, and casting it takes one
/// standard action; a spell of a round or more is a full-round action, which cannot be readied (004:621).
pub fn check_readiable(magic: Option<&Spellcasting>, spell: &str) -> Result<(), Refusal> {
    let known = magic
        .and_then(|m| m.spells.iter().find(|s| s.name == spell))
        .ok_or_else(|| Refusal::new(format!("it does not know {spell}"), "data"))?;
    match known.def.casting {
        CastingTime::Standard => Ok(()),
        CastingTime::Rounds(_) => Err(Refusal::new(
            format!("casting {spell} is a full-round action: only a standard, move or free action can be readied"),
            "004:621",
        )),
    }
}

/// Whether `caster` may cast `spell` at `target` now, paying from `budget` (none for a readied casting set
/// off by its trigger, paid when readied, 004:620-621); the spell's index in its list.
pub fn check_cast(
    order: &TurnOrder,
    field: &Battlefield,
    caster: &crate::rules::attack::CombatantItem,
    target: &crate::rules::attack::CombatantItem,
    magic: &Spellcasting,
    budget: Option<&ActionBudget>,
    spell: &str,
) -> Result<usize, Refusal> {
    order.check_turn_unless_readied(caster.entity, budget.is_none())?;
    crate::rules::core::creature::able_to_act(caster.conditions)?;
    crate::rules::core::creature::within_the_fight(target.conditions)?;
    if caster.conditions.has(Condition::Casting) {
        return Err(Refusal::new("it is already casting a spell", "004:237"));
    }
    let index = magic
        .spells
        .iter()
        .position(|s| s.name == spell)
        .ok_or_else(|| Refusal::new(format!("{} does not know {spell}", caster.id), "data"))?;
    let known = &magic.spells[index];
    if known.uses == 0 {
        return Err(Refusal::new(format!("no casting of {spell} left today"), "data"));
    }
    // In a grapple, only a spell of one action with no gestures (004:595).
    if caster.conditions.has(Condition::Grappling) && (known.def.somatic || known.def.casting != CastingTime::Standard)
    {
        return Err(Refusal::new(
            "in a grapple only a spell of one action with no somatic component can be cast",
            "004:595",
        ));
    }
    match (known.def.casting, budget) {
        (CastingTime::Standard, None) => {}
        (CastingTime::Standard, Some(budget)) => budget.check(ActionKind::Standard)?,
        (CastingTime::Rounds(_), None) => {
            return Err(Refusal::new("a spell of a round or more cannot be readied", "004:621"));
        }
        // Restricted to one action, it begins a spell of one round with its standard action and completes it
        // with the next (« commencer une action complexe et finir une action complexe », 004:86, 004:212).
        (CastingTime::Rounds(1), Some(budget)) if begins_over_two_rounds(budget) => {}
        (CastingTime::Rounds(_), Some(budget)) => budget.check_full_round().map_err(|r| {
            Refusal::new(format!("a spell of a round or more takes a full-round action: {}", r.reason), "004:235")
        })?,
    }
    let own = caster.space.at(caster.position.0);
    let theirs = target.space.at(target.position.0);
    let scale = field.scale();
    let rise = crate::rules::core::altitude::vertical_steps(
        scale,
        caster.altitude.0,
        *caster.size,
        target.altitude.0,
        *target.size,
    );
    match known.def.range {
        SpellRange::Touch => {
            crate::rules::core::altitude::band_allows(
                scale,
                caster.altitude.0,
                target.altitude.0,
                crate::rules::core::altitude::Reaching::CloseSpell,
            )?;
            // « le déplacement peut s'effectuer avant l'incantation, après avoir touché le sujet, ou entre ces
            // deux instants » (004:198): a spell of one action cast out of reach holds its charge for a touch
            // after a move (004:199-200); one of a round or more is cast at a creature in reach.
            if caster.entity != target.entity
                && known.def.casting != CastingTime::Standard
                && !crate::rules::core::reach::melee_reaches_at_height(
                    (field.diagonals(), scale),
                    caster.reach.0,
                    crate::rules::core::reach::WeaponReach::Natural,
                    (own, theirs),
                    rise,
                )
            {
                return Err(Refusal::new(format!("{} is out of reach for a touch", target.id), "004:198"));
            }
        }
        SpellRange::Metres(range) => {
            // Heights count (004:783-784); at chase scale the bands do (004:790-804).
            let reaching = crate::rules::core::altitude::Reaching::spell(range);
            crate::rules::core::altitude::band_allows(scale, caster.altitude.0, target.altitude.0, reaching)?;
            let metres = crate::rules::core::altitude::separation_m(
                scale,
                field.diagonals(),
                (own, caster.altitude.0),
                (theirs, target.altitude.0),
            );
            if metres > range {
                return Err(Refusal::new(
                    format!("{} is {metres} m away, beyond the spell's {range} m", target.id),
                    "data",
                ));
            }
        }
    }
    crate::rules::core::creature::in_sight_of(target.hidden, caster.entity, target.id)?;
    if caster.entity != target.entity {
        // No line of sight into a flier's blind spot (004:676); a line of effect as cover draws it (004:406).
        let blind = crate::rules::attack::unseen_of(caster);
        if !blind.is_empty() && theirs.squares().all(|s| blind.contains(&s)) {
            return Err(Refusal::new(format!("{} is in its blind spot, behind it", target.id), "004:675-677"));
        }
        if crate::rules::attack::ranged_cover(field, own, theirs, &[]) == crate::rules::attack::Cover::Total {
            return Err(Refusal::new(format!("no line of effect to {}", target.id), "004:406"));
        }
        crate::rules::attack::mount_between((caster, own), (target, theirs))?;
    }
    // Last, all else allowing it: gestures need a hand free (« il faut au moins pouvoir bouger librement
    // une main … ni lorsqu'on a les mains prises », 004:192).
    if known.def.somatic && !crate::rules::core::gear::hand_free_for_gestures(caster.armament, caster.shield) {
        return Err(Refusal::new(
            "its hands are full: a spell with gestures needs one free (drop or put away what it holds)",
            "004:192",
        ));
    }
    Ok(index)
}

fn refused(caster: &CreatureId, spell: &str, refusal: Refusal) -> Fact {
    Fact::ActionRefused {
        creature: caster.clone(),
        action: Action::Cast(spell.to_string()),
        reason: refusal.reason,
        rule: refusal.rule,
    }
}

fn lost(caster: &CreatureId, spell: &str, reason: &str) -> Fact {
    Fact::SpellLost { caster: caster.clone(), spell: spell.into(), reason: reason.into() }
}

/// The spell's effect on its target.
/// A touch spell's `critical` hit (004:189, 004:199) doubles its damage: its dice thrown twice, its bonus
/// counted twice (004:27).
fn take_effect(
    spell: &KnownSpell,
    (caster, target, critical): (&crate::rules::attack::CombatantItem, &crate::rules::attack::CombatantItem, bool),
    magic: &Spellcasting,
    dice: &mut Dice,
    out: &mut CastOutput,
) {
    out.facts.write(Fact::SpellTakesEffect {
        caster: caster.id.clone(),
        spell: spell.name.clone(),
        target: target.id.clone(),
    });
    // Positive energy wounds the undead and negative energy heals them (004:538 for turning; the d20
    // standard for spells, docs/rulings.md).
    let effect = match spell.def.effect {
        SpellEffect::Heal { dice, max_level_bonus } if target.traits.undead => {
            SpellEffect::Blast { dice, save: Save::Will, max_level_bonus, negative: false }
        }
        SpellEffect::Blast { dice, max_level_bonus, negative: true, .. } if target.traits.undead => {
            SpellEffect::Heal { dice, max_level_bonus }
        }
        other => other,
    };
    match effect {
        SpellEffect::Missiles { dice: each, max } => {
            let thrown: Vec<_> = (0..missiles(magic.caster_level, max)).map(|_| dice.throw(each)).collect();
            let total = thrown.iter().map(|t| t.total).sum::<i32>().max(1);
            out.facts.write(Fact::DamageDealt {
                attacker: caster.id.clone(),
                target: target.id.clone(),
                dice: thrown,
                modifiers: Vec::new(),
                multiplier: 1,
                multiplied_by: Vec::new(),
                total,
                nonlethal: false,
            });
            out.damage.write(Damage { target: target.entity, amount: total, nonlethal: false, from_one_attack: true });
        }
        SpellEffect::Blast { dice: expr, save, max_level_bonus, .. } => {
            let multiplier = if critical { 2 } else { 1 };
            let level_bonus = magic.caster_level.min(max_level_bonus) as i32;
            let dc = save_dc(spell.def.level, magic.ability_modifier);
            // The save, then the damage: the dice in the order the log gives them.
            let success = roll_save(
                dice,
                &mut out.facts,
                target.id,
                save,
                target.saves,
                &crate::rules::core::creature::abilities_in_play(target.abilities, target.conditions),
                format!("{} for half", spell.name),
                dc,
            );
            let throws: Vec<_> = (0..multiplier).map(|_| dice.throw(expr)).collect();
            let full = (throws.iter().map(|t| t.total).sum::<i32>() + level_bonus * multiplier as i32).max(1);
            let amount = if success { (full / 2).max(1) } else { full };
            let mut modifiers = Vec::new();
            if level_bonus != 0 {
                modifiers.push(Modifier::new(level_bonus, "caster level"));
            }
            if success {
                modifiers.push(Modifier::new(-(full - amount), "halved by the save"));
            }
            out.facts.write(Fact::DamageDealt {
                attacker: caster.id.clone(),
                target: target.id.clone(),
                dice: throws,
                modifiers,
                multiplier,
                multiplied_by: if critical { vec!["critical x2 (004:189, 004:199)".into()] } else { Vec::new() },
                total: amount,
                nonlethal: false,
            });
            out.damage.write(Damage { target: target.entity, amount, nonlethal: false, from_one_attack: true });
        }
        SpellEffect::Heal { dice: expr, max_level_bonus } => {
            let thrown = dice.throw(expr);
            let amount = (thrown.total + magic.caster_level.min(max_level_bonus) as i32).max(1);
            out.facts.write(Fact::Healed {
                creature: target.id.clone(),
                source: spell.name.clone(),
                dice: thrown,
                amount,
            });
            out.healing.write(Healing { target: target.entity, amount });
        }
    }
}

/// A spell of a round or more takes effect just before the caster's turn in the round it completes
/// (004:235); before that, each of the caster's turns goes to the casting (004:236).
fn complete_casting(
    mut commands: Commands,
    mut facts: ParamSet<(MessageReader<Fact>, CastOutput)>,
    order: Res<TurnOrder>,
    creatures: Query<Combatant, With<Creature>>,
    underway: Query<(Entity, &CastingUnderway, &Spellcasting)>,
    mut budgets: Query<&mut ActionBudget>,
    mut dice: ResMut<Dice>,
) {
    // A caster that cannot act when its place comes loses the casting (004:237).
    let started = crate::rules::core::facts::places_come(&mut facts.p0());
    let mut out = facts.p1();
    for id in started {
        let Some((entity, casting, magic)) =
            underway.iter().find(|(e, ..)| creatures.get(*e).is_ok_and(|c| *c.id == id))
        else {
            continue;
        };
        let Ok(caster) = creatures.get(entity) else { continue };
        if order.round < casting.completes {
            // Another full round of casting (004:236): the whole turn goes to it.
            if let Ok(mut budget) = budgets.get_mut(entity) {
                *budget = ActionBudget::default();
            }
            out.facts.write(Fact::CastingContinues { caster: caster.id.clone(), spell: casting.spell.name.clone() });
            continue;
        }
        commands.entity(entity).remove::<CastingUnderway>();
        // Done before anything the caster does in this turn: it may cast again at once (« Celui-ci peut agir
        // normalement lors du second round », 004:235).
        let stop = ConditionChange { creature: entity, condition: Condition::Casting, gained: false };
        commands.queue(move |world: &mut World| crate::rules::health::change_at_once(world, stop));
        // Begun over two rounds: the standard action of this turn completes it (004:86).
        if casting.over_two_rounds
            && let Ok(mut budget) = budgets.get_mut(entity)
        {
            let _ = budget.spend(ActionKind::Standard);
        }
        match creatures.get(casting.target) {
            // Grappled since it began, it cannot make the gestures (every spell of the catalogue has them):
            // « s'il se laisse distraire entre le début et la fin de l'incantation, le sort est perdu » (004:192,
            // 004:237, 004:595).
            Ok(_) if caster.conditions.has(Condition::Grappling) => {
                out.facts.write(lost(
                    caster.id,
                    &casting.spell.name,
                    "grappled, it cannot make the spell's gestures (004:595)",
                ));
            }
            Ok(target) if caster.conditions.can_act() => {
                take_effect(&casting.spell, (&caster, &target, false), magic, &mut dice, &mut out);
                // A casting completed by one disabled since it began is among « d'autres actions fatigantes »
                // (004:274): it pays once it is done, unless the spell healed it.
                out.falls.strain.write(crate::rules::turns::Strain::completed(entity));
            }
            Ok(_) => {
                out.facts.write(lost(caster.id, &casting.spell.name, "the caster can no longer act (004:237)"));
            }
            Err(_) => {
                out.facts.write(lost(caster.id, &casting.spell.name, "its target is gone"));
            }
        }
    }
}

/// A caster wounded in the middle of a spell of a round or more must make a Concentration check, DC 10 +
/// damage + spell level, or lose the spell (004:193, 004:196, 004:237).
fn keep_concentration(
    mut commands: Commands,
    mut all_facts: ParamSet<(MessageReader<Fact>, MessageWriter<Fact>)>,
    casters: Query<(Entity, &CreatureId, &CastingUnderway, &Skills, &Abilities)>,
    mut dice: ResMut<Dice>,
    mut conditions: MessageWriter<ConditionChange>,
) {
    // The wounds of the attacks of opportunity a casting provokes are checked by the casting itself.
    let mut begun: Vec<CreatureId> = Vec::new();
    let mut wounds: Vec<(CreatureId, i32)> = Vec::new();
    let mut dropped: Vec<CreatureId> = Vec::new();
    for fact in all_facts.p0().read() {
        match fact {
            Fact::CastingBegun { caster, .. } => begun.push(caster.clone()),
            Fact::ConditionGained {
                creature,
                condition: Condition::Unconscious | Condition::Dying | Condition::Dead | Condition::Helpless,
            } => dropped.push(creature.clone()),
            Fact::DamageDealt { target, total, .. } if !begun.contains(target) => wounds.push((target.clone(), *total)),
            _ => {}
        }
    }
    let mut broken = Vec::new();
    let mut facts = all_facts.p1();
    // A caster that can no longer act loses the spell it was casting (004:237).
    for (entity, id, casting, ..) in &casters {
        if dropped.contains(id) {
            broken.push(entity);
            facts.write(lost(id, &casting.spell.name, "the caster can no longer act (004:237)"));
            commands.entity(entity).remove::<CastingUnderway>();
            conditions.write(ConditionChange { creature: entity, condition: Condition::Casting, gained: false });
        }
    }
    for (id, amount) in wounds {
        let Some((entity, id, casting, skills, abilities)) =
            casters.iter().find(|(e, i, ..)| **i == id && !broken.contains(e))
        else {
            continue;
        };
        let dc = wound_dc(amount, casting.spell.def.level);
        let reason = format!("wounded for {amount} in the middle of casting (004:237)");
        if !roll_check(
            &mut dice,
            &mut facts,
            id,
            Check::Concentration,
            reason,
            concentration_bonus(skills, abilities),
            dc,
        ) {
            broken.push(entity);
            facts.write(lost(id, &casting.spell.name, "the wound broke the caster's concentration (004:237)"));
            commands.entity(entity).remove::<CastingUnderway>();
            conditions.write(ConditionChange { creature: entity, condition: Condition::Casting, gained: false });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concentration_dcs_004_196_197() {
        assert_eq!(wound_dc(7, 1), 18);
        assert_eq!(defensive_dc(3), 18);
        assert_eq!(save_dc(3, 3), 16);
    }

    #[test]
    fn missiles_grow_every_two_levels() {
        assert_eq!(missiles(1, 5), 1);
        assert_eq!(missiles(2, 5), 1);
        assert_eq!(missiles(3, 5), 2);
        assert_eq!(missiles(9, 5), 5);
        assert_eq!(missiles(20, 5), 5);
    }
}
