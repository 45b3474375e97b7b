//! Grapple (Lutte, 004:576-618). The grapple check is base attack + Strength + the special size modifier
//! (004:576-577). Starting a grapple (004:579-587): the attempt provokes from its target, and a blow that
//! wounds spoils it (004:581; not with Improved Unarmed Strike, as the text says, nor with Improved Grapple
//! or a monster's Improved Grab); a melee touch attack grabs (004:582); an opposed grapple check holds
//! (004:583), dealing unarmed damage; a hold on a foe two sizes larger or more always fails (004:584); ties
//! go to the higher modifier, then a die (004:585). The grappler then moves into its foe's space, a free
//! move that provokes from the others, not from the foe (004:586); if it cannot, it lets go (004:587).
//! Joining a grapple needs no touch attack and provokes nothing from the target (004:615); up to four
//! grapple one foe, one size smaller counting half, one size larger double, two larger four times
//! (004:616-617).
//!
//! In the grapple (004:588-614): no threatened square, no Dex bonus against those outside it, no movement
//! (the attack and the movement chapters read `Condition::Grappling`); each of the following replaces one
//! of the creature's attacks, at that attack's base attack (004:579, 004:592; the first is the standard
//! action's, a second makes the turn a full attack): damage the foe with an unarmed strike's damage
//! (nonlethal, or lethal at -4, 004:597), pin it for a round (004:606), break free of a pin (004:614),
//! escape by beating every opponent's check or with Escape Artist as a standard action, ending on a square
//! next to the foe (004:600-601); the pinner lets go as a free action (004:612). Attacks with a light or
//! natural weapon at -4 go through the attack chapter ([`crate::rules::attack::in_a_grapple`]).

use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Ground, Side};
use crate::rules::attack::{AttackPlan, Combatant, CombatantItem, Damage, prepare_attack, provoke_as};
use crate::rules::core::checks::{Check, contest};
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::geometry::{Footprint, Square};
use crate::rules::core::kept::kept;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::size::Size;
use crate::rules::core::systems::{Rules, RulesSystems};
use crate::rules::turns::{ActionBudget, ActionKind, Provoking};

/// What a creature does in a grapple.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrappleMove {
    /// Start a grapple with the foe, or join the grapple it is in (004:579-587, 004:615).
    #[default]
    Grab,
    /// Deal an unarmed strike's damage, nonlethal (004:597); a monk's too, as it may choose (004:598).
    Damage,
    /// Deal it lethal, at -4 on the check (004:597); a monk's without the -4 (004:598).
    LethalDamage,
    /// Pin the foe for a round (004:606).
    Pin,
    /// Break free of a pin (004:614).
    BreakPin,
    /// Escape by beating every opponent's grapple check (004:600).
    Escape,
    /// Escape with Escape Artist, a standard action (004:600).
    EscapeArtist,
    /// Let go of the foe it pins, a free action (004:612).
    Release,
    /// Free an ally the foe pins: the ally stays in the grapple, pinned no more (004:607).
    FreeAlly,
    /// Turn the foe's light weapon against it: won, an attack with it at -4; the foe keeps it (004:608-609).
    TurnWeapon,
    /// Draw a light weapon it carries put away, the first in its gear: a move action won by a grapple check
    /// (004:599), not while it pins a foe (004:613).
    DrawLight,
    /// Move at half speed, taking everyone in the grapple along: a standard action, beating every one of
    /// them (004:602), +4 against a pinned foe when only the two grapple (004:603).
    Move,
}

impl GrappleMove {
    /// The action the log names.
    pub fn action(self) -> Action {
        match self {
            GrappleMove::Grab => Action::Grapple,
            GrappleMove::Damage | GrappleMove::LethalDamage => Action::GrappleDamage,
            GrappleMove::Pin => Action::Pin,
            GrappleMove::BreakPin => Action::BreakPin,
            GrappleMove::Escape | GrappleMove::EscapeArtist => Action::Escape,
            GrappleMove::Release => Action::Release,
            GrappleMove::FreeAlly => Action::FreeAlly,
            GrappleMove::TurnWeapon => Action::TurnWeapon,
            GrappleMove::DrawLight => Action::Draw,
            GrappleMove::Move => Action::GrappleMove,
        }
    }

    /// Whether it replaces one of the creature's attacks (004:579, 004:592): all but Escape Artist (a
    /// standard action, 004:600) and letting go (free, 004:612).
    pub fn is_an_attack(self) -> bool {
        !matches!(self, GrappleMove::EscapeArtist | GrappleMove::Release | GrappleMove::Move | GrappleMove::DrawLight)
    }

    /// Its kind of action when it is no attack: Escape Artist and a move are standard actions, drawing a
    /// light weapon a move action, letting go free (004:600, 004:602, 004:599, 004:612). One in place of an
    /// attack is a blow: a standard action's attack, or the next blow of a full attack under way, at its base
    /// attack, mixed with the weapon's blows and the other special attacks' (004:579, 004:592, 004:229).
    pub fn kind(self) -> ActionKind {
        match self {
            GrappleMove::Release => ActionKind::Free,
            GrappleMove::DrawLight => ActionKind::Move,
            _ => ActionKind::Standard,
        }
    }
}

/// The base attack of the attack a grab or a grapple move replaces, if its action is left: the next blow of
/// a full attack under way, or the standard action's at the full base attack (004:579, 004:592); a move that
/// is no attack, its own action's, at the full base attack.
fn blow_of(
    ground: &Ground<'_, '_, '_>,
    a: &CombatantItem,
    budget: &ActionBudget,
    action: GrappleMove,
) -> Result<i32, Refusal> {
    if !action.is_an_attack() {
        return budget.check(action.kind()).map(|()| a.base_attack.0);
    }
    match ground.blow {
        Some(bonus) => Ok(bonus),
        None => budget.check(ActionKind::Standard).map(|()| a.base_attack.0),
    }
}

/// Asks for a grapple move.
#[derive(Message, Clone, Debug)]
pub struct GrappleIntent {
    /// Who.
    pub attacker: Entity,
    /// The foe: for a break or an escape, its pinner or opponents if `None`.
    pub target: Option<Entity>,
    /// What.
    pub action: GrappleMove,
    /// Where the mover goes, for a move (the north-west square of its space).
    pub to: Option<crate::rules::core::geometry::Square>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_message::<GrappleIntent>();
    app.add_systems(
        Rules,
        (resolve_grapples, let_go_of_the_fallen)
            .chain()
            .in_set(RulesSystems::Act)
            .after(super::sunder::resolve_sunders),
    );
    // A grappler knocked out lets go as it falls, before the next command reads the grapple.
    app.add_systems(
        Rules,
        let_go_as_they_fall
            .in_set(RulesSystems::Consequences)
            .after(crate::rules::health::collapse)
            .before(crate::rules::health::apply_condition_changes),
    );
}

/// The special size modifier of a grapple check (004:577): +4 per size category above Medium, -4 per
/// category below.
pub fn special_size(size: Size) -> i32 {
    4 * Size::Medium.steps_to(size)
}

/// A creature's grapple check: base attack, Strength, the special size modifier (004:576-577), +4 with
/// Improved Grapple (our ruling).
pub fn grapple_side(c: &CombatantItem) -> Side {
    grapple_side_at(c, c.base_attack.0)
}

/// [`grapple_side`] with the base attack of one of its later attacks (004:579).
pub fn grapple_side_at(c: &CombatantItem, base_attack: i32) -> Side {
    let mut terms =
        vec![Modifier::new(base_attack, "base attack"), Modifier::new(ability_modifier(c.abilities.str), "Str")];
    let size = special_size(*c.size);
    if size != 0 {
        terms.push(Modifier::new(size, "special size (004:577)"));
    }
    if c.feats.has(Feat::ImprovedGrapple) {
        terms.push(Modifier::new(4, "Improved Grapple (our ruling)"));
    }
    Side { check: Check::Grapple, terms }
}

/// A grab checked and ready.
#[derive(Clone, Debug)]
pub struct GrabPlan {
    /// The melee touch attack that grabs (004:582); none when joining a grapple (004:615).
    pub touch: Option<AttackPlan>,
    /// The attempt provokes from the target (004:581).
    pub provokes: bool,
    /// The grappler's check.
    pub attacker: Side,
    /// The foe's.
    pub defender: Side,
    /// The space it would hold the foe from, inside the foe's or around it (004:586); `None`: it cannot
    /// enter and lets go (004:587).
    pub into: Option<Footprint>,
    /// It joins a grapple the foe is already in (004:615).
    pub joining: bool,
    /// The foe is two sizes larger or more: the attempt is made, and the hold always fails (004:584).
    pub hopeless: bool,
}

impl GrabPlan {
    /// The chance the hold is made: the touch attack lands (`touch_chance`), then the check is won.
    pub fn chance(&self, touch_chance: f32) -> f32 {
        if self.hopeless {
            return 0.0;
        }
        let touch = if self.touch.is_some() { touch_chance } else { 1.0 };
        touch * self.attacker.chance_against(&self.defender)
    }
}

/// The unarmed strike or natural weapon a creature grabs with.
fn grabbing_weapon(c: &CombatantItem) -> Result<Weapon, Refusal> {
    let weapons = &c.armament.0;
    weapons
        .iter()
        .find(|w| w.unarmed)
        .or_else(|| weapons.iter().find(|w| w.natural))
        .cloned()
        .ok_or_else(|| Refusal::new("it has neither hands nor natural weapons to grab with", "004:582"))
}

/// How many grapplers a creature counts for against a foe of `their_size`, in halves (004:617): one size
/// smaller or less a half, the same size one, one larger two, two or more larger four.
fn halves(size: Size, their_size: Size) -> i32 {
    match their_size.steps_to(size) {
        i32::MIN..=-1 => 1,
        0 => 2,
        1 => 4,
        _ => 8,
    }
}

/// Whether `attacker` may grab `target` now, and how: a foe two sizes larger or more it may try for, and
/// never hold (004:584); a foe within reach of its unarmed strike or natural weapon, its turn and standard action,
/// room in the grapple if it joins one (004:616-617).
pub fn plan_grab(
    ground: &Ground<'_, '_, '_>,
    (a, t): (&CombatantItem, &CombatantItem),
    budget: &ActionBudget,
) -> Result<GrabPlan, Refusal> {
    // Its own action on its own turn, unless a blow out of it (a readied one) carries the grab (004:73).
    if ground.blow.is_none() {
        ground.order.check_turn(a.entity)?;
    }
    let base_attack = blow_of(ground, a, budget, GrappleMove::Grab)?;
    if a.conditions.has(Condition::Grappling) {
        return Err(Refusal::new("grappling already, it cannot move into another's space", "004:586, 004:591"));
    }
    let joining = t.conditions.has(Condition::Grappling);
    if joining {
        let held: i32 = t
            .grapple
            .map(|g| {
                g.with.iter().filter_map(|e| ground.creatures.get(*e).ok()).map(|c| halves(*c.size, *t.size)).sum()
            })
            .unwrap_or(0);
        if held + halves(*a.size, *t.size) > 8 {
            return Err(Refusal::new("four already grapple it (counted by size)", "004:616-617"));
        }
    }
    let weapon = grabbing_weapon(a)?;
    let request = ground.replaced_attack(Some(&weapon.name));
    let mut touch = prepare_attack(ground.field, ground.order, ground.creatures, a, t, request, budget)?;
    crate::rules::attack::as_touch_attack(&mut touch);
    ground.at_blow(&mut touch.modifiers);
    let free = a.feats.has(Feat::ImprovedUnarmedStrike) || a.feats.has(Feat::ImprovedGrapple) || a.traits.improved_grab;
    Ok(GrabPlan {
        touch: (!joining).then_some(touch),
        provokes: !joining && !free,
        attacker: grapple_side_at(a, base_attack),
        defender: grapple_side(t),
        into: hold_space(ground, a, t),
        joining,
        hopeless: a.size.steps_to(*t.size) >= 2,
    })
}

/// The space `a` holds `t` from (004:586): one that lies inside the foe's space or holds it whole, where `a`
/// may stand but for the foe and those grappling it, reached from where it stands as a move goes; the nearest
/// to where `a` stands, then the northmost, westmost.
pub fn hold_space(ground: &Ground<'_, '_, '_>, a: &CombatantItem, t: &CombatantItem) -> Option<Footprint> {
    let theirs = t.space.at(t.position.0);
    let mine = a.space.at(a.position.0);
    let mut ignoring = t.grapple.map(|g| g.with.clone()).unwrap_or_default();
    ignoring.push(t.entity);
    let may_stand = crate::rules::attack::may_stand(ground.field, ground.creatures.iter(), a, &ignoring);
    let may_go = crate::rules::attack::may_go_into(ground.field, ground.creatures.iter(), a, &ignoring);
    let (w, h) = (mine.width, mine.height);
    let mut found: Vec<Footprint> = Vec::new();
    for dy in (1 - h.max(theirs.height))..=(h.max(theirs.height) - 1) {
        for dx in (1 - w.max(theirs.width))..=(w.max(theirs.width) - 1) {
            let f = mine.at(theirs.origin.offset(dx, dy));
            let nests = f.squares().all(|s| theirs.contains(s)) || theirs.squares().all(|s| f.contains(s));
            // Got to as a move goes, through no wall, pit or foe (000:61, 000:70-71, 000:106-107): a hold it
            // cannot enter is let go (004:587).
            if nests && may_go(f).is_ok() && may_stand(f).is_ok() {
                found.push(f);
            }
        }
    }
    found.into_iter().min_by_key(|f| (ground.field.diagonals().between(mine.origin, f.origin), f.origin.y, f.origin.x))
}

/// A move inside a grapple checked and ready: the mover's check and each opponent's.
#[derive(Clone, Debug)]
pub struct HoldPlan {
    /// What.
    pub action: GrappleMove,
    /// The mover's check (a grapple check, or Escape Artist).
    pub attacker: Side,
    /// The base attack of the attack it replaces (004:579): a foe's weapon turned strikes at it (004:609).
    pub base_attack: i32,
    /// The opponents it must beat, each with its grapple check: the foe, or every opponent for an escape
    /// (004:600, 004:618).
    pub opponents: Vec<(Entity, Side)>,
}

impl HoldPlan {
    /// The chance it wins against every opponent, each rolling apart (the mover's one die against each:
    /// computed exactly over its d20).
    pub fn chance(&self) -> f32 {
        if self.action == GrappleMove::Release {
            return 1.0;
        }
        let mine = self.attacker.bonus();
        (1..=20)
            .map(|roll| {
                self.opponents
                    .iter()
                    .map(|(_, side)| {
                        let theirs = side.bonus();
                        (1..=20)
                            .map(|their| match (roll + mine).cmp(&(their + theirs)) {
                                std::cmp::Ordering::Greater => 1.0,
                                std::cmp::Ordering::Less => 0.0,
                                std::cmp::Ordering::Equal if mine > theirs => 1.0,
                                std::cmp::Ordering::Equal if mine < theirs => 0.0,
                                std::cmp::Ordering::Equal => 0.5,
                            })
                            .sum::<f32>()
                            / 20.0
                    })
                    .product::<f32>()
            })
            .sum::<f32>()
            / 20.0
    }
}

/// The foe a move in a grapple is aimed at when none is named: the pinner for a break (by a grapple check
/// or Escape Artist, 004:614), the first opponent otherwise.
pub fn default_foe(c: &CombatantItem, action: GrappleMove) -> Option<Entity> {
    let g = c.grapple?;
    match action {
        GrappleMove::BreakPin | GrappleMove::EscapeArtist if c.conditions.has(Condition::Pinned) => g.pinned_by,
        _ => g.with.first().copied(),
    }
}

/// Whether `who` may make `action` now against its default foe ([`default_foe`]): what the action bar asks.
pub fn move_now(world: &World, who: Entity, action: GrappleMove) -> Result<HoldPlan, Refusal> {
    let foe = crate::rules::core::kept::kept_ref::<Combatant, With<Creature>>(world)
        .and_then(|mut q| q.query(world).get(who).ok().and_then(|c| default_foe(&c, action)))
        .ok_or_else(|| Refusal::new("it is in no grapple", "004:592"))?;
    super::plan_on(world, (who, foe), Box::new(move |g, pair, budget| plan_hold(g, pair, budget, action)))
}

/// Whether `a` may make `action` in its grapple with `t` now, and with which checks.
pub fn plan_hold(
    ground: &Ground<'_, '_, '_>,
    (a, t): (&CombatantItem, &CombatantItem),
    budget: &ActionBudget,
    action: GrappleMove,
) -> Result<HoldPlan, Refusal> {
    ground.order.check_turn(a.entity)?;
    able_to_act(a.conditions)?;
    let base_attack = blow_of(ground, a, budget, action)?;
    let Some(grapple) = a.grapple.filter(|_| a.conditions.has(Condition::Grappling)) else {
        return Err(Refusal::new("it is in no grapple", "004:592"));
    };
    if !grapple.with.contains(&t.entity) {
        return Err(Refusal::new(format!("it does not grapple {}", t.id), "004:592"));
    }
    fleeing_in_a_grapple(a, action)?;
    let pinned = a.conditions.has(Condition::Pinned);
    let pinning = ground
        .creatures
        .iter()
        .find(|c| grapple.with.contains(&c.entity) && Grapple::pins(a.entity, c.grapple, c.conditions))
        .map(|c| c.entity);
    match action {
        GrappleMove::Grab => return Err(Refusal::new("it already grapples it", "004:592")),
        GrappleMove::BreakPin if !pinned => return Err(Refusal::new("it is not pinned", "004:614")),
        GrappleMove::BreakPin if grapple.pinned_by != Some(t.entity) => {
            return Err(Refusal::new(format!("{} does not pin it", t.id), "004:614"));
        }
        GrappleMove::BreakPin => {}
        // Pinned, Escape Artist breaks the pin, not the grapple (004:614).
        GrappleMove::EscapeArtist if pinned && grapple.pinned_by != Some(t.entity) => {
            return Err(Refusal::new(format!("{} does not pin it", t.id), "004:614"));
        }
        GrappleMove::EscapeArtist if pinned => {}
        _ if pinned => return Err(Refusal::new("pinned, it can only try to break free", "004:614")),
        GrappleMove::Pin if t.conditions.has(Condition::Pinned) => {
            return Err(Refusal::new("it is pinned already", "004:606"));
        }
        GrappleMove::Pin if pinning.is_some() => {
            return Err(Refusal::new("pinning one foe, it cannot pin another", "004:613"));
        }
        GrappleMove::Escape | GrappleMove::EscapeArtist if pinning.is_some() => {
            return Err(Refusal::new("pinning a foe, it lets go of it (a free action) rather than escape", "004:613"));
        }
        GrappleMove::Release if pinning != Some(t.entity) => {
            return Err(Refusal::new(format!("it does not pin {}", t.id), "004:612"));
        }
        // The pinner turns the weapon of the foe it pins, one of « les options précédentes » (004:610); it
        // uses no other weapon (004:613).
        GrappleMove::TurnWeapon if pinning.is_some_and(|p| p != t.entity) => {
            return Err(Refusal::new("pinning a foe, it can neither free an ally nor use a weapon", "004:613"));
        }
        GrappleMove::FreeAlly | GrappleMove::DrawLight if pinning.is_some() => {
            return Err(Refusal::new("pinning a foe, it can neither free an ally nor use a weapon", "004:613"));
        }
        GrappleMove::FreeAlly if pinned_ally(ground.creatures, a, t).is_none() => {
            return Err(Refusal::new(format!("{} pins none of its allies", t.id), "004:607"));
        }
        GrappleMove::TurnWeapon if light_weapon_of(t).is_none() => {
            return Err(Refusal::new(format!("{} holds no light weapon", t.id), "004:609"));
        }
        GrappleMove::DrawLight if light_weapon_to_draw(a).is_none() => {
            return Err(Refusal::new("it carries no light weapon put away", "004:599"));
        }
        GrappleMove::DrawLight if crate::rules::core::gear::hands_free(a.armament, a.shield) == 0 => {
            return Err(Refusal::new("its hands are full: no hand to draw a weapon", "004:599"));
        }
        _ => {}
    }
    let mut attacker = grapple_side_at(a, base_attack);
    match action {
        GrappleMove::LethalDamage if !a.traits.armed_unarmed => {
            attacker.terms.push(Modifier::new(-4, "lethal damage (004:597)"));
        }
        GrappleMove::EscapeArtist => {
            // Its Dex as it is: a pin's « Dex 0 » is the defender's against blows (004:394, 004:423), not
            // the wriggle that breaks it (004:614).
            let skill = crate::rules::core::checks::skill(a.skills.escape_artist, a.abilities.dex);
            attacker =
                Side { check: Check::EscapeArtist, terms: vec![Modifier::new(skill, "Escape Artist (004:600)")] };
        }
        _ => {}
    }
    let escaping = matches!(action, GrappleMove::Escape | GrappleMove::EscapeArtist) && !pinned;
    if action == GrappleMove::Move {
        // Every one in the grapple must be beaten (004:602); a pinned foe moved by its only grappler, +4
        // (004:603).
        let group = grapple_group(ground.creatures, a.entity);
        if group.len() == 2 && t.conditions.has(Condition::Pinned) {
            attacker.terms.push(Modifier::new(4, "moving a pinned foe (004:603)"));
        }
        let opponents = group
            .iter()
            .filter(|e| **e != a.entity)
            .filter_map(|e| ground.creatures.get(*e).ok())
            .map(|c| (c.entity, grapple_side(&c)))
            .collect();
        return Ok(HoldPlan { action, attacker, base_attack, opponents });
    }
    let opponents: Vec<(Entity, Side)> = if escaping {
        grapple
            .with
            .iter()
            .filter_map(|e| ground.creatures.get(*e).ok())
            .map(|c| (c.entity, grapple_side(&c)))
            .collect()
    } else {
        vec![(t.entity, grapple_side(t))]
    };
    Ok(HoldPlan { action, attacker, base_attack, opponents })
}

/// A turned undead flees and attacks no one (004:549): held, its flight is an escape, a pin broken or one
/// let go (our ruling).
fn fleeing_in_a_grapple(a: &CombatantItem, action: GrappleMove) -> Result<(), Refusal> {
    let flight = matches!(
        action,
        GrappleMove::Escape | GrappleMove::EscapeArtist | GrappleMove::BreakPin | GrappleMove::Release
    );
    if a.conditions.has(Condition::Turned) && !flight {
        return Err(Refusal::new("a turned undead flees: in a grapple it only tries to escape", "004:549"));
    }
    Ok(())
}

/// Everyone in `who`'s grapple, itself included: those it grapples, those they grapple, and so on, in id
/// order.
pub fn grapple_group(creatures: &Query<Combatant, With<Creature>>, who: Entity) -> Vec<Entity> {
    let mut group = vec![who];
    let mut i = 0;
    while i < group.len() {
        if let Ok(c) = creatures.get(group[i])
            && let Some(g) = c.grapple
        {
            for other in &g.with {
                if !group.contains(other) {
                    group.push(*other);
                }
            }
        }
        i += 1;
    }
    let mut ids: Vec<(String, Entity)> =
        group.iter().filter_map(|e| creatures.get(*e).ok().map(|c| (c.id.0.clone(), *e))).collect();
    ids.sort();
    ids.into_iter().map(|(_, e)| e).collect()
}

/// A grapple moved (004:602): where each member goes, and the squares its mover leaves on the way.
#[derive(Clone, Debug)]
pub struct GrappleShift {
    /// The members and their new spaces.
    pub members: Vec<(Entity, Footprint)>,
    /// The steps of the mover's path: the space it stands in, and the squares of it that it leaves by the
    /// step; the foes that threaten one may strike it there, as in any move (004:65).
    pub legs: Vec<(Footprint, Vec<crate::rules::core::geometry::Square>)>,
}

impl GrappleShift {
    /// Every square the mover leaves on its way.
    pub fn left(&self) -> Vec<crate::rules::core::geometry::Square> {
        let mut left = Vec::new();
        for square in self.legs.iter().flat_map(|(_, squares)| squares) {
            if !left.contains(square) {
                left.push(*square);
            }
        }
        left
    }
}

/// Where a grapple moved by `mover` to `to` puts each of its members (004:602): the mover at `to`, reached
/// within half its speed by a path the others in the grapple do not block, and every other member shifted as
/// much, each on a space it may stand on; with the squares the mover leaves on its way. Or why not.
pub fn grapple_destination(
    world: &mut World,
    mover: Entity,
    to: crate::rules::core::geometry::Square,
) -> Result<GrappleShift, Refusal> {
    let group: Vec<Entity> = {
        let mut q = kept::<Combatant, With<Creature>>(world);
        let creatures = q.query(world);
        grapple_group(&creatures, mover)
    };
    let footprints: Vec<Footprint> = group
        .iter()
        .filter_map(|e| world.get::<Space>(*e).zip(world.get::<Position>(*e)).map(|(s, p)| s.at(p.0)))
        .collect();
    let reached = crate::rules::turns::moving::with_move_query(world, mover, |query, _| {
        // Half its speed (004:602), through everyone but those it drags along.
        let half = crate::rules::movement::MoveQuery {
            field: query.field,
            occupants: query.occupants.iter().filter(|o| !footprints.contains(&o.footprint)).copied().collect(),
            mover: query.mover,
            start: query.start,
            speed: query.speed / 2,
            run_multiplier: query.run_multiplier,
            restricted: false,
            odd_diagonal: query.odd_diagonal,
            danger: None,
            prone: false,
            going_on: None,
            followed: 0,
            searched: Default::default(),
        };
        let map = half.reachable(crate::rules::movement::MovementAction::Move);
        let reaches = map.destinations().iter().any(|d| d.square == to);
        (half.start, map.route_to(to).filter(|_| reaches))
    });
    let Some((start, route)) = reached else { return Err(Refusal::new("no such creature", "data")) };
    let Some(route) = route else {
        return Err(Refusal::new(format!("{to} is beyond half its speed, or the way is blocked"), "004:602"));
    };
    // Each step leaves the squares of the space before it that the space after it does not cover.
    let spaces: Vec<Footprint> = std::iter::once(start).chain(route.steps.iter().map(|s| s.footprint())).collect();
    let legs = spaces
        .windows(2)
        .map(|pair| (pair[0], pair[0].squares().filter(|s| !pair[1].contains(*s)).collect()))
        .collect();
    let (dx, dy) = (to.x - start.origin.x, to.y - start.origin.y);
    let mut q = kept::<Combatant, With<Creature>>(world);
    let world: &World = world;
    let creatures = q.query(world);
    let field = world.resource::<crate::rules::core::battlefield::Battlefield>();
    let mut moved = Vec::new();
    for member in &group {
        let Ok(c) = creatures.get(*member) else { continue };
        let there = c.space.at(c.position.0.offset(dx, dy));
        crate::rules::attack::may_stand(field, creatures.iter(), &c, &group)(there)
            .map_err(|r| Refusal::new(format!("{} cannot stand there: {}", c.id, r.reason), "004:602"))?;
        moved.push((*member, there));
    }
    Ok(GrappleShift { members: moved, legs })
}

/// The ally of `a` that `t` pins, if any (004:607).
pub fn pinned_ally(
    creatures: &Query<Combatant, With<Creature>>,
    a: &CombatantItem,
    t: &CombatantItem,
) -> Option<Entity> {
    let mut allies: Vec<CombatantItem> = creatures
        .iter()
        .filter(|c| c.entity != a.entity && c.faction == a.faction && Grapple::pins(t.entity, c.grapple, c.conditions))
        .collect();
    allies.sort_by(|x, y| x.id.cmp(y.id));
    allies.first().map(|c| c.entity)
}

/// The light weapon a creature holds, that a grappler may turn against it (004:609): its first light melee
/// weapon made by hand, not a natural one nor an unarmed strike (our ruling: what it carries it holds).
pub fn light_weapon_of(t: &CombatantItem) -> Option<Weapon> {
    t.armament.ready().find(|w| is_light_manufactured(w)).cloned()
}

/// The name of the light weapon a grappler would draw (004:599): the first it carries put away.
pub fn light_weapon_to_draw(a: &CombatantItem) -> Option<String> {
    a.armament.0.iter().find(|w| w.stowed && is_light_manufactured(w)).map(|w| w.name.clone())
}

/// A light melee weapon made by hand: what a grapple lets one draw or turn (004:594, 004:599, 004:608).
pub fn is_light_manufactured(w: &Weapon) -> bool {
    w.handling == Handling::Light && !w.natural && !w.unarmed && w.delivery == Delivery::Melee
}

/// Carries out grapple intents one after the other.
pub(super) fn resolve_grapples(world: &mut World, mut intents: Local<MessageCursor<GrappleIntent>>) {
    let read: Vec<GrappleIntent> = intents.read(world.resource::<Messages<GrappleIntent>>()).cloned().collect();
    for intent in read {
        let target = intent.target.or_else(|| {
            let mut q = kept::<Combatant, With<Creature>>(world);
            q.get(world, intent.attacker).ok().and_then(|c| default_foe(&c, intent.action))
        });
        let Some(target) = target else {
            super::refuse_in(
                world,
                intent.attacker,
                intent.action.action(),
                Refusal::new("it is in no grapple", "004:592"),
            );
            continue;
        };
        // A move needs a place it may reach and every member may stand on (004:602).
        if intent.action == GrappleMove::Move {
            let Some(to) = intent.to else {
                super::refuse_in(
                    world,
                    intent.attacker,
                    Action::GrappleMove,
                    Refusal::new("move it where?", "004:602"),
                );
                continue;
            };
            if world.get::<Conditions>(intent.attacker).is_some_and(|c| c.has(Condition::Grappling))
                && let Err(refusal) = grapple_destination(world, intent.attacker, to)
            {
                super::refuse_in(world, intent.attacker, Action::GrappleMove, refusal);
                continue;
            }
        }
        if intent.action == GrappleMove::Grab {
            grab(world, intent.attacker, target);
        } else if let Ok(Some(plan)) =
            world.run_system_cached_with(prepare_hold, (intent.attacker, target, intent.action))
        {
            hold(world, intent.attacker, target, plan, intent.to);
        }
    }
}

/// Checks a grab and pays for it (one of its attacks, 004:579), or writes why not.
fn prepare_grab(In((attacker, target)): In<(Entity, Entity)>, mut planning: super::Planning) -> Option<GrabPlan> {
    planning.plan_and_pay_blow((attacker, target), (Action::Grapple, false), Box::new(plan_grab))
}

/// Checks a move in a grapple and pays for it, or writes why not: one in place of an attack as any blow is
/// paid (004:592), the others with their action.
fn prepare_hold(
    In((attacker, target, action)): In<(Entity, Entity, GrappleMove)>,
    mut planning: super::Planning,
) -> Option<HoldPlan> {
    if action.is_an_attack() {
        planning.plan_and_pay_blow(
            (attacker, target),
            (action.action(), false),
            Box::new(move |g, pair, budget| plan_hold(g, pair, budget, action)),
        )
    } else {
        planning.plan_and_pay(
            (attacker, target),
            (action.action(), action.kind()),
            Box::new(move |g, pair, budget| plan_hold(g, pair, budget, action)),
        )
    }
}

/// Starts or joins a grapple: the target's blow (a wound spoils it), the touch attack, the opposed check,
/// the damage, then into the foe's space past the others' blows (004:579-587).
fn grab(world: &mut World, attacker: Entity, target: Entity) {
    let Ok(Some(plan)) = world.run_system_cached_with(prepare_grab, (attacker, target)) else { return };
    if plan.provokes {
        let provoking = Provoking {
            only: Some(target),
            ..Provoking::new(attacker, Action::Grapple, "starting a grapple (004:581)")
        };
        let provoked = provoke_as(world, provoking);
        if provoked.dropped {
            return;
        }
        if provoked.wounded {
            interrupted(
                world,
                attacker,
                Action::Grapple,
                "the attack of opportunity wounded it: the grapple fails (004:581)",
            );
            return;
        }
    }
    let Ok(true) = world.run_system_cached_with(roll_grab, (attacker, target, plan.clone())) else { return };
    let Some(into) = plan.into else {
        interrupted(world, attacker, Action::Grapple, "it cannot enter its foe's space: it lets go (004:587)");
        return;
    };
    let grapplers = world.get::<Grapple>(target).map(|g| g.with.clone()).unwrap_or_default();
    // The move provokes as any move: from the foes that threaten a square it leaves (004:65, 004:586).
    let left = match (world.get::<Position>(attacker), world.get::<Space>(attacker)) {
        (Some(position), Some(space)) => space.at(position.0).squares().filter(|s| !into.contains(*s)).collect(),
        _ => Vec::new(),
    };
    let entering = Provoking {
        except: [vec![target], grapplers].concat(),
        leaving: Some(left),
        ..Provoking::new(attacker, Action::Grapple, "moving into its foe's space (004:586)")
    };
    if crate::rules::opportunity::provoke_by_moving(world, entering, false).dropped {
        return;
    }
    let Some(mut position) = world.get_mut::<Position>(attacker) else { return };
    let from = position.0;
    position.0 = into.origin;
    // Its own movement: a readier's reach it steps into strikes (004:621); dropped, it holds no one.
    let before = world.get::<Space>(attacker).map(|s| s.at(from));
    let dropped = before
        .is_some_and(|before| crate::rules::opportunity::step_entered(world, attacker, (into, (before, None)), false));
    crate::rules::opportunity::movement_over(world, attacker);
    if dropped {
        // Dropped on the way in, it holds no one and lies where it stood, not in its foe's space (004:649).
        if let Some(mut position) = world.get_mut::<Position>(attacker) {
            position.0 = from;
        }
        return;
    }
    let (Some(id), Some(foe)) = (world.get::<CreatureId>(attacker).cloned(), world.get::<CreatureId>(target).cloned())
    else {
        return;
    };
    world.write_message(Fact::Grappled { creature: id, target: foe, from, at: into.origin, joined: plan.joining });
    bind(world, attacker, target);
}

/// The touch attack (unless joining), the opposed check, and on a hold the unarmed damage (004:582-583):
/// whether the hold is made.
fn roll_grab(
    In((attacker, target, plan)): In<(Entity, Entity, GrabPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
) -> bool {
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else { return false };
    if let Some(touch) = &plan.touch
        && !crate::rules::attack::roll_touch_attack(touch, a.id, t.id, &mut dice, &mut facts)
    {
        return false;
    }
    // « échouent systématiquement » (004:584): the attempt made, its attack of opportunity and its touch
    // attack, the hold fails.
    if plan.hopeless {
        facts.write(Fact::ActionInterrupted {
            creature: a.id.clone(),
            action: Action::Grapple,
            reason: "a hold on a foe two sizes larger or more always fails (004:584)".into(),
        });
        return false;
    }
    let held = contest(
        &mut dice,
        &mut facts,
        (a.id, Check::Grapple, &plan.attacker.terms),
        (t.id, Check::Grapple, &plan.defender.terms),
        if plan.joining { "joining a grapple (004:615)" } else { "the hold: opposed grapple checks (004:583)" },
    );
    if held {
        unarmed_damage_to(&a, &t, a.traits.armed_unarmed, &mut dice, &mut facts, &mut damage);
    }
    held
}

/// An unarmed strike's damage from `a` to `t` (004:583, 004:597): its unarmed strike's dice, else the
/// size's (004:172), plus Strength; nonlethal unless `lethal`.
fn unarmed_damage_to(
    a: &CombatantItem,
    t: &CombatantItem,
    lethal: bool,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
    damage: &mut MessageWriter<Damage>,
) {
    let expr = a.armament.0.iter().find(|w| w.unarmed).map_or_else(|| unarmed_damage(*a.size), |w| w.damage);
    let thrown = dice.throw(expr);
    let modifiers = vec![Modifier::new(ability_modifier(a.abilities.str), "Str")];
    let total = (thrown.total + modifiers[0].value).max(1);
    facts.write(Fact::DamageDealt {
        attacker: a.id.clone(),
        target: t.id.clone(),
        dice: vec![thrown],
        modifiers,
        multiplier: 1,
        multiplied_by: Vec::new(),
        total,
        nonlethal: !lethal,
    });
    damage.write(Damage { target: t.entity, amount: total, nonlethal: !lethal, from_one_attack: true });
}

/// A move inside the grapple: the opposed checks, then its effect.
fn hold(
    world: &mut World,
    attacker: Entity,
    target: Entity,
    plan: HoldPlan,
    to: Option<crate::rules::core::geometry::Square>,
) {
    if plan.action == GrappleMove::Release {
        let outside = stepping_out(world, attacker, target);
        let freed = part(world, attacker, target, "lets go of the foe it pins (004:612)");
        step_out(world, outside, "out of the grapple (004:612)");
        settle(world, freed, "out of the grapple (our ruling)");
        return;
    }
    let Ok(won) = world.run_system_cached_with(roll_hold, (attacker, plan.clone())) else { return };
    if !won {
        return;
    }
    match plan.action {
        GrappleMove::Damage | GrappleMove::LethalDamage => {
            let lethal = plan.action == GrappleMove::LethalDamage;
            let _ = world.run_system_cached_with(deal_grapple_damage, (attacker, target, lethal));
        }
        GrappleMove::Pin => {
            if let Some(mut g) = world.get_mut::<Grapple>(target) {
                g.pinned_by = Some(attacker);
            }
            world.write_message(crate::rules::turns::lasting::ImposeIntent {
                creature: target,
                condition: Condition::Pinned,
                rounds: 1,
            });
        }
        GrappleMove::BreakPin => unpin(world, attacker),
        GrappleMove::FreeAlly => {
            let ally = world.run_system_cached_with(ally_pinned_by, (attacker, target)).ok().flatten();
            if let Some(ally) = ally {
                unpin(world, ally);
            }
        }
        GrappleMove::Move => {
            let Some(to) = to else { return };
            let Ok(shift) = grapple_destination(world, attacker, to) else { return };
            // It provokes as any move, step by step, from the foes that threaten a square it leaves on its way
            // (004:65), each foe once (004:68); those it drags along are moved, and provoke nothing (our
            // ruling). Dropped on the way, the grapple stays where it began (our ruling).
            let mut except: Vec<Entity> = shift.members.iter().map(|(e, _)| *e).collect();
            for (at, left) in shift.legs.iter().filter(|(_, left)| !left.is_empty()) {
                let leaving = Provoking {
                    except: except.clone(),
                    leaving: Some(left.clone()),
                    at: Some(*at),
                    ..Provoking::new(attacker, Action::GrappleMove, "moving its grapple (004:602)")
                };
                let provoked = provoke_as(world, leaving);
                if provoked.dropped {
                    return;
                }
                except.extend(provoked.struck_by);
            }
            for (member, there) in shift.members {
                let Some(id) = world.get::<CreatureId>(member).cloned() else { continue };
                let Some(mut position) = world.get_mut::<Position>(member) else { continue };
                let from = position.0;
                position.0 = there.origin;
                world.write_message(Fact::Pushed {
                    creature: id,
                    from,
                    to: there.origin,
                    reason: "moved with the grapple (004:602)".into(),
                });
            }
        }
        GrappleMove::DrawLight => {
            if let Some(weapon) = weapon_to_draw(world, attacker) {
                crate::rules::attack::gear::draw_in_a_grapple(world, attacker, &weapon);
            }
        }
        GrappleMove::TurnWeapon => {
            let _ = world.run_system_cached_with(strike_with_their_weapon, (attacker, target, plan.base_attack));
        }
        GrappleMove::EscapeArtist if world.get::<Conditions>(attacker).is_some_and(|c| c.has(Condition::Pinned)) => {
            unpin(world, attacker);
        }
        GrappleMove::Escape | GrappleMove::EscapeArtist => {
            let opponents: Vec<Entity> = plan.opponents.iter().map(|(e, _)| *e).collect();
            escape(world, attacker, &opponents, to);
        }
        GrappleMove::Grab | GrappleMove::Release => {}
    }
}

/// An escape won (004:600-601): out of the grapple with every opponent, then « en se déplaçant sur n'importe
/// quelle case adjacente à son adversaire » to the square `wanted` when it may stand there and get there,
/// else to the nearest square next to its first opponent where it may, those it leaves in its space
/// stepping out.
/// The step out is movement: the squares it leaves provoke from the foes outside the grapple it left, as its
/// step in did (004:65, 004:586); dropped, it goes nowhere. No 5-foot step after it (004:259).
fn escape(world: &mut World, attacker: Entity, opponents: &[Entity], wanted: Option<Square>) {
    let mut freed = Vec::new();
    for other in opponents {
        freed.extend(part(world, attacker, *other, "escapes the grapple (004:600)"));
    }
    freed.retain(|e| *e != attacker);
    // Out of the grapple before it steps out: the blows its step draws find it grappling no more (004:590).
    if world.get::<Grapple>(attacker).is_none()
        && let Some(mut conditions) = world.get_mut::<Conditions>(attacker)
        && conditions.0.remove(&Condition::Grappling)
        && let Some(id) = world.get::<CreatureId>(attacker).cloned()
    {
        world.write_message(Fact::ConditionLost { creature: id, condition: Condition::Grappling });
    }
    if let Some(first) = opponents.first() {
        let footprint =
            |world: &World, e: Entity| world.get::<Space>(e).zip(world.get::<Position>(e)).map(|(s, p)| s.at(p.0));
        let beside = footprint(world, *first);
        let here = footprint(world, attacker);
        let there = world.run_system_cached_with(space_beside, (attacker, beside, wanted)).ok().flatten();
        let dropped = match (here, there) {
            (Some(here), Some(there)) if here != there => {
                let leaving = Provoking {
                    except: opponents.to_vec(),
                    leaving: Some(here.squares().filter(|s| !there.contains(*s)).collect()),
                    ..Provoking::new(attacker, Action::Grapple, "escaping, stepping out of the grapple (004:601)")
                };
                crate::rules::opportunity::provoke_by_moving(world, leaving, false).dropped
            }
            _ => false,
        };
        if dropped {
            crate::rules::opportunity::movement_over(world, attacker);
        } else {
            if let Some(there) = there {
                put(world, attacker, there, "escaping, to a square next to its foe (004:601)");
            }
            if let Some(mut budget) = world.get_mut::<crate::rules::turns::ActionBudget>(attacker) {
                budget.movement = crate::rules::turns::MovementMade::Moved;
            }
        }
    }
    freed.reverse();
    settle(world, freed, "out of the grapple (our ruling)");
}

/// The name of the light weapon `who` would draw in its grapple.
pub fn weapon_to_draw(world: &mut World, who: Entity) -> Option<String> {
    world.run_system_cached_with(light_to_draw, who).ok().flatten()
}

fn light_to_draw(In(who): In<Entity>, creatures: Query<Combatant, With<Creature>>) -> Option<String> {
    creatures.get(who).ok().and_then(|c| light_weapon_to_draw(&c))
}

/// The opposed checks of a move in a grapple: the mover's one d20 against each opponent's (004:600, 004:618),
/// ties to the higher modifier, then a die (004:585). Whether it beat them all.
fn roll_hold(
    In((attacker, plan)): In<(Entity, HoldPlan)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) -> bool {
    let Ok(a) = creatures.get(attacker) else { return false };
    let roll = dice.d20();
    let reason = match plan.action {
        GrappleMove::Damage | GrappleMove::LethalDamage => "damaging a grappled foe (004:597)",
        GrappleMove::Pin => "pinning (004:606)",
        GrappleMove::FreeAlly => "freeing a pinned ally (004:607)",
        GrappleMove::TurnWeapon => "turning the foe's weapon against it (004:609)",
        GrappleMove::DrawLight => "drawing a light weapon (004:599)",
        GrappleMove::Move => "moving the grapple: beating every one in it (004:602)",
        GrappleMove::BreakPin => "breaking free of a pin (004:614)",
        GrappleMove::EscapeArtist if a.conditions.has(Condition::Pinned) => {
            "breaking free of a pin with Escape Artist (004:614)"
        }
        _ => "escaping the grapple: beating every opponent (004:600)",
    };
    let mut won = true;
    for (e, side) in &plan.opponents {
        let Ok(o) = creatures.get(*e) else { continue };
        won &= crate::rules::core::checks::opposed(
            &mut dice,
            &mut facts,
            (a.id, plan.attacker.check, &plan.attacker.terms),
            (o.id, side.check, &side.terms),
            (roll, crate::rules::core::checks::Ties::ByModifierThenDie),
            reason,
        );
    }
    won
}

/// The ally of `attacker` that `target` pins.
fn ally_pinned_by(
    In((attacker, target)): In<(Entity, Entity)>,
    creatures: Query<Combatant, With<Creature>>,
) -> Option<Entity> {
    let (a, t) = (creatures.get(attacker).ok()?, creatures.get(target).ok()?);
    pinned_ally(&creatures, &a, &t)
}

/// The attack with the foe's own light weapon, at -4, at the base attack of the grapple attack it replaces
/// (004:579, 004:609): rolled, and its damage dealt; the foe keeps the weapon.
fn strike_with_their_weapon(
    In((attacker, target, base_attack)): In<(Entity, Entity, i32)>,
    creatures: Query<Combatant, With<Creature>>,
    field: Res<crate::rules::core::battlefield::Battlefield>,
    mut dice: ResMut<Dice>,
    mut out: (MessageWriter<Fact>, MessageWriter<Damage>),
) {
    let (facts, damage) = (&mut out.0, &mut out.1);
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else { return };
    let Some(weapon) = light_weapon_of(&t) else { return };
    let (own, theirs) = (a.space.at(a.position.0), t.space.at(t.position.0));
    let cover = crate::rules::attack::melee_cover(&field, own, theirs);
    let situation = crate::rules::attack::AttackSituation {
        weapon: None,
        own,
        theirs,
        allies_near_target: false,
        charge: false,
        opportunity: false,
        mid_action: None,
        flanking_with: None,
        cover: &cover,
        miss_chance: 0,
        unseen: crate::rules::attack::attacker_unseen(&field, (&a, own), (&t, theirs)),
        scale: field.scale(),
        house: field.house_rules(),
        waters: crate::rules::attack::underwater::waters(&field, (&a, own), (&t, theirs)),
        feint_spent: false,
    };
    let mut plan = match crate::rules::attack::plan_attack_with(&a, &t, weapon, situation) {
        Ok(plan) => plan,
        Err(refusal) => {
            crate::rules::core::facts::refuse(facts, a.id, Action::TurnWeapon, refusal);
            return;
        }
    };
    if let Some(term) = crate::rules::attack::base_attack_term(&mut plan.modifiers) {
        term.value = base_attack;
    }
    if let Some(hit) = crate::rules::attack::roll_planned_attack(&plan, a.id, t.id, t.traits, &mut dice, facts) {
        damage.write(Damage { target, amount: hit.amount, nonlethal: hit.nonlethal, from_one_attack: true });
    }
}

fn deal_grapple_damage(
    In((attacker, target, lethal)): In<(Entity, Entity, bool)>,
    creatures: Query<Combatant, With<Creature>>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
    mut damage: MessageWriter<Damage>,
) {
    let (Ok(a), Ok(t)) = (creatures.get(attacker), creatures.get(target)) else { return };
    // A monk's lethal damage takes no -4, and it may deal nonlethal damage as it chooses (004:598): the damage
    // is what the grappler chose.
    unarmed_damage_to(&a, &t, lethal, &mut dice, &mut facts, &mut damage);
}

/// Writes that `who`'s action stopped, and why.
fn interrupted(world: &mut World, who: Entity, action: Action, why: &str) {
    let Some(id) = world.get::<CreatureId>(who).cloned() else { return };
    world.write_message(Fact::ActionInterrupted { creature: id, action, reason: why.into() });
}

/// `a` and `b` grapple each other: each names the other, and is grappling.
fn bind(world: &mut World, a: Entity, b: Entity) {
    for (me, other, entered) in [(a, b, true), (b, a, false)] {
        let mut entity = world.entity_mut(me);
        match entity.get_mut::<Grapple>() {
            Some(mut g) => {
                if !g.with.contains(&other) {
                    g.with.push(other);
                }
                g.entered |= entered;
            }
            None => {
                entity.insert(Grapple { with: vec![other], pinned_by: None, entered });
            }
        }
        world.write_message(ConditionChange { creature: me, condition: Condition::Grappling, gained: true });
    }
}

/// `a` and `b` grapple each other no more; one left with no opponent is out of the grapple, unpinned. The
/// ones it frees that had entered another's space, last first.
fn part(world: &mut World, a: Entity, b: Entity, why: &str) -> Vec<Entity> {
    let mut freed = Vec::new();
    for (me, other) in [(b, a), (a, b)] {
        let Some(mut g) = world.get_mut::<Grapple>(me) else { continue };
        g.with.retain(|e| *e != other);
        let pinned_by_other = g.pinned_by == Some(other);
        let free = g.with.is_empty();
        if pinned_by_other {
            unpin(world, me);
        }
        if free {
            if world.get::<Grapple>(me).is_some_and(|g| g.entered) {
                freed.push(me);
            }
            world.entity_mut(me).remove::<Grapple>();
            world.write_message(ConditionChange { creature: me, condition: Condition::Grappling, gained: false });
        }
    }
    if let (Some(id), Some(other)) = (world.get::<CreatureId>(a).cloned(), world.get::<CreatureId>(b).cloned()) {
        world.write_message(Fact::GrappleEnded { creature: id, with: other, reason: why.into() });
    }
    freed
}

/// Each of `freed`, out of the grapple, that shares a space with anyone steps out to the nearest space it
/// may stand on (our ruling, after 000:126-129).
fn settle(world: &mut World, freed: Vec<Entity>, why: &str) {
    for who in freed {
        step_out(world, Some((who, None)), why);
    }
}

/// `who` is pinned no more.
fn unpin(world: &mut World, who: Entity) {
    if let Some(mut g) = world.get_mut::<Grapple>(who) {
        g.pinned_by = None;
    }
    if let Some(mut lasting) = world.get_mut::<crate::rules::turns::lasting::Lasting>(who) {
        lasting.0.retain(|e| e.condition != Condition::Pinned);
    }
    world.write_message(ConditionChange { creature: who, condition: Condition::Pinned, gained: false });
}

/// Of `a` and `b` parting, the one that steps out of the space they share, and the space it steps beside:
/// the one that entered the other's space (004:586), else `b`.
fn stepping_out(world: &World, a: Entity, b: Entity) -> Option<(Entity, Option<Footprint>)> {
    let footprint = |e: Entity| world.get::<Space>(e).zip(world.get::<Position>(e)).map(|(s, p)| s.at(p.0));
    let (fa, fb) = (footprint(a)?, footprint(b)?);
    if !fa.overlaps(fb) {
        return None;
    }
    let entered = |e: Entity| world.get::<Grapple>(e).is_some_and(|g| g.entered);
    if entered(a) || !entered(b) { Some((a, Some(fb))) } else { Some((b, Some(fa))) }
}

/// Moves `who` out to the nearest space where it may stand, next to `beside` if given, if it shares a space
/// with anyone; it stays where it is if there is none.
fn step_out(world: &mut World, out: Option<(Entity, Option<Footprint>)>, why: &str) {
    let Some((who, beside)) = out else { return };
    let Ok(Some(to)) = world.run_system_cached_with(space_beside, (who, beside, None)) else { return };
    put(world, who, to, why);
}

/// Puts `who` on `to`, a push told with `why` when it moves.
fn put(world: &mut World, who: Entity, to: Footprint, why: &str) {
    let Some(mut position) = world.get_mut::<Position>(who) else { return };
    let from = position.0;
    if from == to.origin {
        return;
    }
    position.0 = to.origin;
    let Some(id) = world.get::<CreatureId>(who).cloned() else { return };
    world.write_message(Fact::Pushed { creature: id, from, to: to.origin, reason: why.into() });
}

/// The space nearest to `who` where it may stand, next to `beside` if given: its own if it may stand there
/// (shared with no one) and it is next to `beside`.
/// The square a creature of the grapple steps to: the `wanted` one if it may stand there beside `beside`
/// and get there, else its own if it may stand there, else the nearest such one it may get to.
fn space_beside(
    In((who, beside, wanted)): In<(Entity, Option<Footprint>, Option<Square>)>,
    field: Res<crate::rules::core::battlefield::Battlefield>,
    creatures: Query<Combatant, With<Creature>>,
) -> Option<Footprint> {
    let me = creatures.get(who).ok()?;
    let may_stand = crate::rules::attack::may_stand(&field, creatures.iter(), &me, &[]);
    let mine = me.space.at(me.position.0);
    // Got to as a move goes: through no wall, pit or foe (000:61, 000:106-107), but out of the space it
    // shares with those it was grappling.
    let sharing: Vec<Entity> = creatures
        .iter()
        .filter(|c| c.entity != who && c.space.at(c.position.0).overlaps(mine))
        .map(|c| c.entity)
        .collect();
    let may_go = crate::rules::attack::may_go_into(&field, creatures.iter(), &me, &sharing);
    let next_to = |f: Footprint| beside.is_none_or(|b| f.adjacent_to(b));
    if let Some(f) = wanted.map(|to| mine.at(to))
        && next_to(f)
        && may_stand(f).is_ok()
        && (f == mine || may_go(f).is_ok())
    {
        return Some(f);
    }
    if next_to(mine) && may_stand(mine).is_ok() {
        return Some(mine);
    }
    let around = beside.unwrap_or(mine);
    let reach = mine.width.max(mine.height) + around.width.max(around.height) + 8;
    let mut found: Vec<Footprint> = Vec::new();
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            let f = mine.at(around.origin.offset(dx, dy));
            if next_to(f) && may_stand(f).is_ok() && may_go(f).is_ok() {
                found.push(f);
            }
        }
    }
    found.into_iter().min_by_key(|f| (field.diagonals().between(mine.origin, f.origin), f.origin.y, f.origin.x))
}

/// [`let_go_of_the_fallen`] as the blow's consequences are applied: the grapple is over before the next
/// command reads it.
fn let_go_as_they_fall(world: &mut World) {
    let_go_of_the_fallen(world);
}

/// A grappler that falls helpless, or dies, holds no one (our ruling): its grapple ends, and the one that
/// entered the other's space steps out of it. Two grapplers no longer in one space, one of them pushed out
/// of it (a bull rush), grapple no more: « doit entrer dans l'espace occupé par son adversaire … Si le
/// personnage ne peut pénétrer dans l'espace de son adversaire, il ne peut poursuivre la lutte et doit
/// lâcher immédiatement sa cible » (004:586-587).
pub(super) fn let_go_of_the_fallen(world: &mut World) {
    let mut q = kept::<(Entity, &Grapple, &Space, &Position), ()>(world);
    let spaces: Vec<(Entity, Footprint, Vec<Entity>)> =
        q.iter(world).map(|(e, g, s, p)| (e, s.at(p.0), g.with.clone())).collect();
    let space_of = |e: Entity| spaces.iter().find(|(o, ..)| *o == e).map(|(_, f, _)| *f);
    let apart: Vec<(Entity, Entity)> = spaces
        .iter()
        .flat_map(|(e, f, with)| with.iter().map(move |o| (*e, *f, *o)))
        .filter(|(e, f, o)| e < o && space_of(*o).is_some_and(|g| !g.overlaps(*f)))
        .map(|(e, _, o)| (e, o))
        .collect();
    for (a, b) in apart {
        part(world, a, b, "no longer in one space, the grapple is let go (004:587)");
    }
    let mut q = kept::<(Entity, &Grapple, &Conditions), ()>(world);
    let fallen: Vec<(Entity, Vec<Entity>)> =
        q.iter(world).filter(|(_, _, c)| c.is_helpless()).map(|(e, g, _)| (e, g.with.clone())).collect();
    for (down, others) in fallen {
        for other in others {
            let freed = part(world, down, other, "a helpless creature holds no one (our ruling)");
            settle(world, freed.into_iter().filter(|e| *e == other).collect(), "out of the grapple (our ruling)");
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_special_size_modifier_004_577() {
        let table = [
            (Size::Colossal, 16),
            (Size::Gargantuan, 12),
            (Size::Huge, 8),
            (Size::Large, 4),
            (Size::Medium, 0),
            (Size::Small, -4),
            (Size::Tiny, -8),
            (Size::Diminutive, -12),
            (Size::Fine, -16),
        ];
        for (size, modifier) in table {
            assert_eq!(special_size(size), modifier, "{size:?}");
        }
    }

    #[test]
    fn grapplers_count_by_size_004_617() {
        // Against a Medium foe: a Small one counts half, a Medium one, a Large one double, a Huge one four
        // times; four Medium fill it (8 halves), as one Huge does.
        assert_eq!(halves(Size::Small, Size::Medium), 1);
        assert_eq!(halves(Size::Tiny, Size::Medium), 1);
        assert_eq!(halves(Size::Medium, Size::Medium), 2);
        assert_eq!(halves(Size::Large, Size::Medium), 4);
        assert_eq!(halves(Size::Huge, Size::Medium), 8);
        assert_eq!(halves(Size::Gargantuan, Size::Medium), 8);
    }

    #[test]
    fn a_move_in_a_grapple_beats_each_opponent_with_one_die() {
        let side = |bonus| Side { check: Check::Grapple, terms: vec![Modifier::new(bonus, "test")] };
        let against = |opponents: Vec<i32>| HoldPlan {
            action: GrappleMove::Escape,
            attacker: side(0),
            base_attack: 0,
            opponents: opponents.into_iter().map(|b| (Entity::PLACEHOLDER, side(b))).collect(),
        };
        let one = against(vec![0]).chance();
        assert!((one - crate::rules::core::checks::contest_chance(0, 0)).abs() < 1e-6);
        assert!((against(vec![12]).chance() - crate::rules::core::checks::contest_chance(0, 12)).abs() < 1e-6);
        // Two opponents: harder than one, easier than two independent contests (the mover's die is one).
        let two = against(vec![0, 0]).chance();
        assert!(two < one && two > one * one, "{two}");
    }
}
