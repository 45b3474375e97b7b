//! Initiative and the round: who acts when, and what each may still do in its turn (004:51-86).

mod budget;
pub mod lasting;
pub mod moving;
pub mod ready;

use bevy::prelude::*;

pub use budget::*;

use crate::rules::core::creature::{
    Abilities, Altitude, Awareness, Condition, Conditions, Creature, CreatureId, Faction, Feats, HitPoints, Skills,
    Speed, ability_modifier, flying, initiative_modifier, total,
};
use crate::rules::core::creature::{Riding, Seat};
use crate::rules::core::dice::Dice;
use crate::rules::core::facts::Fact;
use crate::rules::core::names::Action;
use crate::rules::core::refusal::Refusal;
use crate::rules::core::systems::{Rules, RulesSystems};

/// Asks the rules to begin the fight: roll initiative and start the first turn.
#[derive(Message, Clone, Debug)]
pub struct BeginEncounterIntent {
    /// The level's name, for the log.
    pub level: String,
    /// The dice seed, for the log.
    pub seed: u64,
}

/// The creature whose turn it is ends it.
#[derive(Message, Clone, Debug)]
pub struct EndTurnIntent {
    /// Who ends its turn.
    pub creature: Entity,
}

/// A count of the initiative order, higher first (004:74): spaced when the order is rolled; a creature that
/// moves in the order (a readied action, 004:622; a delay, 004:631) takes one between its new neighbours,
/// so an effect begun at a count ends at that count, whoever moved since.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Count(pub i64);

/// The space between two counts of the order as it is rolled: room for some forty moves between two
/// neighbours, each halving it.
const COUNT_SPACING: i64 = 1 << 40;

/// One place in the initiative order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitiativeEntry {
    /// The creature.
    pub entity: Entity,
    /// Its id.
    pub id: CreatureId,
    /// d20 + modifiers.
    pub total: i32,
    /// The modifier, which breaks ties first (004:52).
    pub modifier: i32,
    /// Unaware of every foe at the start: it does not act in the surprise round (004:56-60).
    pub surprised: bool,
    /// Delaying its action (004:629-631): it acts later when it chooses, or loses the action when its place
    /// in the order comes round again.
    pub delaying: bool,
    /// Its count in the order (004:74).
    pub count: Count,
}

/// The creature whose turn it is delays its action: it does nothing now and may act later (004:629).
#[derive(Message, Clone, Debug)]
pub struct DelayIntent {
    /// Who delays.
    pub creature: Entity,
}

/// A delaying creature acts as soon as the current turn ends, and keeps that place in the order (004:631).
#[derive(Message, Clone, Debug)]
pub struct ResumeIntent {
    /// Who resumes.
    pub creature: Entity,
}

/// The order of play, which holds for the whole fight (004:73), and whose turn it is.
#[derive(Resource, Clone, Debug, Default)]
pub struct TurnOrder {
    /// From first to last.
    pub entries: Vec<InitiativeEntry>,
    /// Index of the creature whose turn it is.
    pub current: Option<usize>,
    /// The round, from 1; 0 is the surprise round (004:59).
    pub round: u32,
    /// The fight is over.
    pub ended: bool,
    /// The last round in which a blow, a spell, a breath or a wound was exchanged (0 before any).
    pub last_exchange: u32,
    /// How many turns have begun in the fight: what tells a turn's start from its creature's place moving
    /// in the order (a readied action set off before it, 004:624).
    pub turns_begun: u64,
    /// The current turn is a delayed one resumed (004:629-631): nothing of a turn's start comes again.
    pub resumed: bool,
    /// The delaying creatures that asked to act, in the order they asked: the first when the current turn
    /// ends, the next when its turn ends, and so on (004:629-631).
    pub resuming: Vec<Entity>,
    /// The creatures acting in the current turn: the one whose place it is (or, when it cannot act, the
    /// first of its party that can), then its mount or its riders and passengers, who act together
    /// (004:653-655).
    pub acting: Vec<Entity>,
    /// Creatures that got on a mount: they give up their place when the current turn ends, and act on
    /// their rider's turns from then on (004:654-655).
    pub leaving: Vec<Entity>,
}

impl TurnOrder {
    /// The count of the turn now: where an effect begun now begins and ends (004:74).
    pub fn count_now(&self) -> Option<Count> {
        self.current.and_then(|i| self.entries.get(i)).map(|e| e.count)
    }

    /// Gives every place its count, from the first down, as the order is rolled.
    fn space_counts(&mut self) {
        let n = self.entries.len() as i64;
        for (i, entry) in self.entries.iter_mut().enumerate() {
            entry.count = Count((n - i as i64) * COUNT_SPACING);
        }
    }

    /// Gives the place at `index`, just taken by a creature that moved there, a count between its
    /// neighbours' (004:622, 004:631).
    pub fn recount(&mut self, index: usize) {
        let before = index.checked_sub(1).and_then(|i| self.entries.get(i)).map(|e| e.count.0);
        let after = self.entries.get(index + 1).map(|e| e.count.0);
        let count = match (before, after) {
            (Some(b), Some(a)) => a + (b - a) / 2,
            (Some(b), None) => b - COUNT_SPACING,
            (None, Some(a)) => a + COUNT_SPACING,
            (None, None) => COUNT_SPACING,
        };
        if let Some(entry) = self.entries.get_mut(index) {
            entry.count = Count(count);
        }
    }

    /// The creature whose turn it is: the first of those acting together.
    pub fn current_entity(&self) -> Option<Entity> {
        let entry = self.place_holder()?;
        Some(self.acting.first().copied().unwrap_or(entry))
    }

    /// The creature whose place in the order it is (a rider, for a mount and its riders).
    pub fn place_holder(&self) -> Option<Entity> {
        self.current.and_then(|i| self.entries.get(i)).map(|e| e.entity)
    }

    /// Whether `entity` acts in the current turn (alone, or with its mount or riders).
    pub fn is_acting(&self, entity: Entity) -> bool {
        !self.ended
            && self.current.is_some()
            && (self.acting.contains(&entity) || self.current_entity() == Some(entity))
    }

    /// `entity` gives up its place when the current turn ends: it got on a mount and acts on its rider's
    /// turns from then on (004:654-655).
    pub fn leave(&mut self, entity: Entity) {
        if !self.leaving.contains(&entity) {
            self.leaving.push(entity);
        }
    }

    /// `entity`, off its mount or without a rider now, takes a place of its own: the initiative of the
    /// party it leaves, just before the current turn, so that it acts again from the next round.
    pub fn rejoin(&mut self, entity: Entity, id: CreatureId) {
        self.leaving.retain(|e| *e != entity);
        if self.entries.iter().any(|e| e.entity == entity) {
            return;
        }
        let Some(cur) = self.current else { return };
        let Some(like) = self.entries.get(cur).cloned() else { return };
        self.entries.insert(cur, InitiativeEntry { entity, id, delaying: false, ..like });
        self.recount(cur);
        self.current = Some(cur + 1);
    }

    /// The place `from` holds for its party passes to `to`, who now leads it (a passenger taking the reins,
    /// 004:822); `to` also comes first of those acting now.
    pub fn hand_over(&mut self, from: Entity, to: Entity, id: CreatureId) {
        if let Some(entry) = self.entries.iter_mut().find(|e| e.entity == from) {
            entry.entity = to;
            entry.id = id;
        }
        for resumer in self.resuming.iter_mut().filter(|r| **r == from) {
            *resumer = to;
        }
        if let Some(i) = self.acting.iter().position(|e| *e == to) {
            let first = self.acting.remove(i);
            self.acting.insert(0, first);
        }
    }

    /// The creatures in the order of play, first to last: the order attacks of opportunity fall in.
    pub fn initiative(&self) -> Vec<Entity> {
        self.entries.iter().map(|e| e.entity).collect()
    }

    /// Whether it is `entity`'s turn and the fight goes on; a refusal otherwise.
    pub fn check_turn(&self, entity: Entity) -> Result<(), Refusal> {
        if self.ended {
            return Err(Refusal::new("the fight is over", "004:72"));
        }
        if self.is_acting(entity) { Ok(()) } else { Err(Refusal::new("it is not this creature's turn", "004:73")) }
    }

    /// [`check_turn`](Self::check_turn), except for a readied action set off by its trigger: that one is
    /// taken out of turn (004:621-622), while the fight lasts.
    pub fn check_turn_unless_readied(&self, entity: Entity, readied: bool) -> Result<(), Refusal> {
        if !readied {
            return self.check_turn(entity);
        }
        if self.ended { Err(Refusal::new("the fight is over", "004:72")) } else { Ok(()) }
    }
}

/// The systems that end turns and start the next ones.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TurnSystems;

/// Initiative, turns and the action budget.
pub fn plugin(app: &mut App) {
    app.register_required_components::<Creature, ActionBudget>().register_required_components::<Creature, Fall>();
    app.add_systems(Rules, budget::give_up_full_attacks.in_set(RulesSystems::Consequences));
    app.add_message::<BeginEncounterIntent>()
        .add_message::<Strain>()
        .add_message::<EndTurnIntent>()
        .add_message::<DelayIntent>()
        .add_message::<ResumeIntent>()
        .init_resource::<TurnOrder>();
    app.add_plugins((moving::plugin, ready::plugin, lasting::plugin));
    app.add_systems(Rules, (notice_lurkers, roll_initiative).chain().in_set(RulesSystems::Setup));
    app.add_systems(
        Rules,
        (
            restrict_the_newly_disabled,
            ask_to_resume,
            delay_turn,
            end_turn,
            declare_victory,
            note_exchanges,
            declare_parting,
        )
            .chain()
            .in_set(RulesSystems::Turns)
            .in_set(TurnSystems),
    );
}

/// Sorts creatures by initiative: total, then modifier, then the tie-break dice, the first, then the one
/// rolled again among those it left level (004:51-54).
pub fn order_initiative(entries: &mut [(InitiativeEntry, Vec<u32>)]) {
    entries.sort_by(|(a, a_dice), (b, b_dice)| {
        (b.total, b.modifier, b_dice).cmp(&(a.total, a.modifier, a_dice)).then_with(|| a.id.cmp(&b.id))
    });
}

/// Times the tie-break die is rolled again among creatures it left level: far more than any fight needs
/// (each roll ties with one chance in 20), a bound so that no run of dice goes on for ever.
const TIE_REROLLS: usize = 32;

/// Rolls the tie-break dice of 004:52 (« jouez l'initiative à pile ou face »): a d20 for each creature level
/// with another on total and modifier, in id order, then again for those still level, until none is.
/// Each die is told to `rolled_die`.
fn break_ties(
    rolled: &mut [(InitiativeEntry, Vec<u32>)],
    dice: &mut Dice,
    mut rolled_die: impl FnMut(&CreatureId, u32),
) {
    for _ in 0..TIE_REROLLS {
        let level = |i: usize, j: usize, rolled: &[(InitiativeEntry, Vec<u32>)]| {
            let ((a, a_dice), (b, b_dice)) = (&rolled[i], &rolled[j]);
            i != j && a.total == b.total && a.modifier == b.modifier && a_dice == b_dice
        };
        let tied: Vec<usize> = (0..rolled.len()).filter(|&i| (0..rolled.len()).any(|j| level(i, j, rolled))).collect();
        if tied.is_empty() {
            return;
        }
        for i in tied {
            let roll = dice.d20();
            rolled[i].1.push(roll);
            rolled_die(&rolled[i].0.id, roll);
        }
    }
}

/// As the fight begins, each creature lying in wait hides (Hide, or Dex untrained) and each of its foes tries
/// to spot it (Spot, or Wis untrained): one that fails is not aware of it (004:56-58; the opposed Spot
/// against Hide is the d20 rule, docs/rulings.md). In id order, so the dice fall the same way every time.
fn notice_lurkers(
    mut begin: MessageReader<BeginEncounterIntent>,
    mut dice: ResMut<Dice>,
    lurkers: Query<(&CreatureId, &Faction, &Skills, &Abilities), With<crate::rules::core::creature::Lurking>>,
    mut watchers: Query<(&CreatureId, &Faction, &Skills, &Abilities, &mut Awareness)>,
    mut facts: MessageWriter<Fact>,
) {
    use crate::rules::core::checks::{Check, roll_check};
    let begun = begin.read().count() > 0;
    if !begun || lurkers.is_empty() {
        return;
    }
    let everyone: std::collections::BTreeSet<CreatureId> = watchers.iter().map(|w| w.0.clone()).collect();
    let mut hiding: Vec<_> = lurkers.iter().collect();
    hiding.sort_by(|a, b| a.0.cmp(b.0));
    for (lurker, side, skills, abilities) in hiding {
        let hide = skills.hide.unwrap_or(ability_modifier(abilities.dex));
        let roll = dice.d20();
        let total = roll as i32 + hide;
        facts.write(Fact::LyingInWait { creature: lurker.clone(), roll, total });
        let mut foes: Vec<_> = watchers.iter_mut().filter(|w| w.1 != side).collect();
        foes.sort_by(|a, b| a.0.cmp(b.0));
        for (watcher, _, skills, abilities, mut awareness) in foes {
            let spot = skills.spot.unwrap_or(ability_modifier(abilities.wis));
            let reason = format!("spotting {lurker} lying in wait (004:58)");
            if !roll_check(&mut dice, &mut facts, watcher, Check::Spot, reason, spot, total) {
                let mut known = awareness.0.clone().unwrap_or_else(|| everyone.clone());
                known.remove(lurker);
                awareness.0 = Some(known);
            }
        }
    }
}

/// Rolls initiative for every creature, in the order of their ids so the dice fall the same way every
/// time; ties are broken by the modifier, then by a die (004:51-54). Everyone is flat-footed until its
/// first turn (004:53).
fn roll_initiative(
    mut begin: MessageReader<BeginEncounterIntent>,
    mut order: ResMut<TurnOrder>,
    mut dice: ResMut<Dice>,
    mut creatures: TurnCreatures<'_, '_>,
    sides: Query<(&CreatureId, &Faction, &Awareness)>,
    riding: Query<(Entity, &Riding, Option<&Seat>)>,
    mut facts: MessageWriter<Fact>,
) {
    let Some(intent) = begin.read().last() else { return };
    facts.write(Fact::EncounterStarted { level: intent.level.clone(), seed: intent.seed });
    let parties = Parties::from_query(&riding);
    let mut sorted: Vec<_> = creatures.iter_mut().collect();
    sorted.sort_by(|a, b| a.1.cmp(b.1));
    let mut rolled = Vec::new();
    for (entity, id, abilities, feats, mut conditions, mut budget, ..) in sorted {
        if !conditions.has(Condition::Dead) && conditions.0.insert(Condition::FlatFooted) {
            facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::FlatFooted });
        }
        *budget = ActionBudget::default();
        // A mount and the passengers of a rider roll no initiative: they act on the rider's (004:653, 004:655).
        if !parties.leads(entity) {
            continue;
        }
        // Initiative is a Dexterity check (004:51), with the Dex its conditions leave it (004:378).
        let modifiers =
            initiative_modifier(&crate::rules::core::creature::abilities_in_play(abilities, &conditions), feats);
        let modifier = total(&modifiers);
        let roll = dice.d20();
        let sum = roll as i32 + modifier;
        facts.write(Fact::InitiativeRolled { creature: id.clone(), roll, modifiers, total: sum });
        let surprised = is_surprised(id, &sides);
        let entry = InitiativeEntry {
            entity,
            id: id.clone(),
            total: sum,
            modifier,
            surprised,
            delaying: false,
            count: Count::default(),
        };
        rolled.push((entry, Vec::new()));
    }
    // Dice only for creatures still tied after the modifier, in id order.
    break_ties(&mut rolled, &mut dice, |creature, roll| {
        facts.write(Fact::InitiativeTieRolled { creature: creature.clone(), roll });
    });
    order_initiative(&mut rolled);
    order.entries = rolled.into_iter().map(|(entry, _)| entry).collect();
    order.space_counts();
    order.current = None;
    order.ended = false;
    facts.write(Fact::InitiativeOrdered { order: order.entries.iter().map(|e| e.id.clone()).collect() });
    // A surprise round when some, but not all, are aware of their foes (004:59).
    let surprised: Vec<CreatureId> = order.entries.iter().filter(|e| e.surprised).map(|e| e.id.clone()).collect();
    if !surprised.is_empty() && surprised.len() < order.entries.len() {
        order.round = 0;
        facts.write(Fact::SurpriseRoundStarted { surprised });
    } else {
        for entry in &mut order.entries {
            entry.surprised = false;
        }
        order.round = 1;
        facts.write(Fact::RoundStarted { round: 1 });
    }
    advance(&mut order, None, &mut creatures, &parties, &mut dice, &mut facts);
}

/// The creatures as the turn systems see them.
type TurnCreatures<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CreatureId,
        &'static Abilities,
        &'static Feats,
        &'static mut Conditions,
        &'static mut ActionBudget,
        &'static mut HitPoints,
        &'static Fall,
        &'static Altitude,
        &'static Speed,
    ),
    With<Creature>,
>;

/// Who rides what, read once for a turn's bookkeeping.
struct Parties {
    /// Each rider or passenger and its mount, with whether it is a passenger.
    riding: Vec<(Entity, Entity, bool)>,
}

impl Parties {
    fn from_query(riding: &Query<(Entity, &Riding, Option<&Seat>)>) -> Self {
        let mut riding: Vec<(Entity, Entity, bool)> =
            riding.iter().map(|(e, r, seat)| (e, r.0, seat.is_some_and(|s| s.passenger))).collect();
        riding.sort();
        Parties { riding }
    }

    /// Whether `entity` has a place of its own in the order: not a passenger, nor a mount with a rider.
    fn leads(&self, entity: Entity) -> bool {
        match self.riding.iter().find(|(e, ..)| *e == entity) {
            Some((_, _, passenger)) => !passenger,
            None => !self.riding.iter().any(|(_, mount, passenger)| *mount == entity && !passenger),
        }
    }

    /// The party whose place `entity` holds: itself, then its mount and the others on it, or its riders.
    fn of(&self, entity: Entity) -> Vec<Entity> {
        let mount = self.riding.iter().find(|(e, ..)| *e == entity).map_or(entity, |(_, m, _)| *m);
        let mut party = vec![entity];
        if mount != entity {
            party.push(mount);
        }
        // The rider first, then the passengers.
        let mut on: Vec<&(Entity, Entity, bool)> =
            self.riding.iter().filter(|(e, m, _)| *m == mount && *e != entity).collect();
        on.sort_by_key(|(_, _, passenger)| *passenger);
        party.extend(on.into_iter().map(|(e, ..)| *e));
        party
    }

    /// The mount `entity` rides, if any.
    fn mount_of(&self, entity: Entity) -> Option<Entity> {
        self.riding.iter().find(|(e, ..)| *e == entity).map(|(_, m, _)| *m)
    }
}

/// The round in which a creature fell dying, if it is dying: its first roll to stabilise comes the round
/// after (004:281).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fall(pub Option<u32>);

impl Fall {
    /// The fall of a creature placed on the map: one placed dying and not stable fell before the fight,
    /// « round 0 », and rolls from the first round (004:281).
    pub fn at_start(conditions: &Conditions) -> Fall {
        let bleeding = conditions.has(Condition::Dying) && !conditions.has(Condition::Stable);
        Fall(bleeding.then_some(0))
    }
}

/// Whether a creature is surprised: it knows of none of its foes at the start (004:56). A creature with no
/// foe in the fight is not surprised.
fn is_surprised(id: &CreatureId, sides: &Query<(&CreatureId, &Faction, &Awareness)>) -> bool {
    let Some((_, faction, awareness)) = sides.iter().find(|(other, _, _)| *other == id) else { return false };
    let mut foes = sides.iter().filter(|(_, f, _)| *f != faction).peekable();
    foes.peek().is_some() && !foes.any(|(foe, _, _)| awareness.knows(foe))
}

/// Begins a creature's turn: flat-footed ends at its first turn (004:53) and this round's stances at its
/// next; it gets its actions: one in the surprise round (004:59) or when disabled or staggered (004:77,
/// 004:274), else a standard and a move action.
fn begin_turn(
    round: u32,
    id: &CreatureId,
    conditions: &mut Conditions,
    budget: &mut ActionBudget,
    riding_a_flier: bool,
    facts: &mut MessageWriter<Fact>,
) {
    facts.write(Fact::TurnStarted { round, creature: id.clone() });
    for condition in std::iter::once(Condition::FlatFooted).chain(STANCES) {
        if conditions.0.remove(&condition) {
            facts.write(Fact::ConditionLost { creature: id.clone(), condition });
        }
    }
    *budget = turn_budget(round, conditions, riding_a_flier);
}

/// The stances that last until the creature's next turn: running, total defence, fighting defensively,
/// charging (004:211, 004:184, 004:457).
const STANCES: [Condition; 4] =
    [Condition::Running, Condition::TotalDefense, Condition::FightingDefensively, Condition::Charging];

/// A creature's place in the order comes while it cannot act: what lasts « jusqu'à son prochain tour » ends
/// all the same (its stances here, the aid it gave in its chapter), as its turn would have ended it.
fn pass_turn(round: u32, id: &CreatureId, conditions: &mut Conditions, facts: &mut MessageWriter<Fact>) {
    facts.write(Fact::TurnPassed { round, creature: id.clone() });
    for condition in STANCES {
        if conditions.0.remove(&condition) {
            facts.write(Fact::ConditionLost { creature: id.clone(), condition });
        }
    }
}

/// The actions a creature has as its turn in `round` begins: one only in the surprise round, disabled or
/// staggered (004:59, 004:77, 004:274), else a standard and a move action.
pub fn turn_budget(round: u32, conditions: &Conditions, riding_a_flier: bool) -> ActionBudget {
    let mut budget = if round == 0 || conditions.has(Condition::Disabled) || conditions.has(Condition::Staggered) {
        ActionBudget::restricted()
    } else {
        ActionBudget::fresh()
    };
    budget.cowering = conditions.has(Condition::Cowering);
    budget.stunned = conditions.has(Condition::Stunned);
    budget.riding = riding_a_flier;
    budget
}

/// Whether a creature rolls to stabilise on its turn in `round`: dying, not stable, and fallen in an earlier
/// round (004:281).
pub fn rolls_to_stabilise(conditions: &Conditions, fall: Fall, round: u32) -> bool {
    conditions.has(Condition::Dying)
        && !conditions.has(Condition::Stable)
        && !conditions.has(Condition::Dead)
        && fall.0.is_some_and(|fell| fell < round)
}

/// Chance in a hundred that a dying creature becomes stable on its turn (004:281).
pub const STABILISE_CHANCE: u32 = 10;

/// Moves the turn on from `after` (the start of the order when `None`): the party whose place comes next
/// begins its turn, every one of it that can act (a rider, its mount and passengers act together,
/// 004:653-655); a dying creature keeps its place (004:55) and on its turn rolls 1d100, becoming stable on
/// 10 or less and losing 1 hit point otherwise, from the round after its fall (004:281); a party none of
/// which can act is passed. Creatures that got on a mount give up their places first.
fn advance(
    order: &mut TurnOrder,
    after: Option<usize>,
    creatures: &mut TurnCreatures<'_, '_>,
    parties: &Parties,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) {
    order.acting.clear();
    // Those that got on a mount leave the order; `after` counts the places kept up to it.
    let mut after = after;
    if !order.leaving.is_empty() {
        let leaving = std::mem::take(&mut order.leaving);
        let kept_to = after.map(|i| order.entries[..=i].iter().filter(|e| !leaving.contains(&e.entity)).count());
        order.entries.retain(|e| !leaving.contains(&e.entity));
        after = kept_to.and_then(|k| k.checked_sub(1));
        facts.write(Fact::InitiativeOrdered { order: order.entries.iter().map(|e| e.id.clone()).collect() });
    }
    let n = order.entries.len();
    if n == 0 {
        // No one left to act (a level is refused without creatures; nothing removed may leave none either).
        order.current = None;
        order.ended = true;
        return;
    }
    // A delaying creature that asked to act takes its turn now, and this place from now on (004:631); the
    // others that asked after it wait for its turn to end.
    while !order.resuming.is_empty() {
        let resumer = order.resuming.remove(0);
        let Some(from) = order.entries.iter().position(|e| e.entity == resumer && e.delaying) else { continue };
        let mut entry = order.entries.remove(from);
        entry.delaying = false;
        let at = match after {
            Some(current) if from <= current => current,
            Some(current) => current + 1,
            None => 0,
        };
        order.entries.insert(at.min(order.entries.len()), entry);
        order.recount(at.min(order.entries.len() - 1));
        facts.write(Fact::InitiativeOrdered { order: order.entries.iter().map(|e| e.id.clone()).collect() });
        if start_party(order, (at, true), creatures, parties, dice, facts) {
            return;
        }
        // It could not act after all: the next who asked comes after its place.
        after = Some(at.min(order.entries.len() - 1));
    }
    let mut pos = after.map_or(0, |i| i + 1);
    for _ in 0..=2 * n {
        if pos >= n {
            pos = 0;
            order.round += 1;
            facts.write(Fact::RoundStarted { round: order.round });
        }
        // A creature still delaying when its place comes round again has lost that action (004:631).
        if order.entries[pos].delaying {
            order.entries[pos].delaying = false;
            facts.write(Fact::DelayLapsed { creature: order.entries[pos].id.clone() });
        }
        if start_party(order, (pos, false), creatures, parties, dice, facts) {
            return;
        }
        pos += 1;
    }
    order.current = None;
}

/// Begins the turn of the party whose place is `pos`, if any of it can act; the dying among it roll to
/// stabilise. A delayed turn resumed (`resumed`) is the round's one turn going on: its actions, and nothing
/// else of a turn's start again (004:629-631). Whether the turn began.
fn start_party(
    order: &mut TurnOrder,
    (pos, resumed): (usize, bool),
    creatures: &mut TurnCreatures<'_, '_>,
    parties: &Parties,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) -> bool {
    let sits_out = order.round == 0 && order.entries[pos].surprised;
    let party = parties.of(order.entries[pos].entity);
    let aloft: Vec<bool> = party.iter().map(|e| creatures.get(*e).is_ok_and(|c| flying(c.9, c.8.0))).collect();
    let mut acting = Vec::new();
    for member in &party {
        let Ok((_, id, _, _, mut conditions, mut budget, mut hp, fall, ..)) = creatures.get_mut(*member) else {
            continue;
        };
        if conditions.can_act() && !sits_out {
            // A rider or passenger on a flier in the air spends a move action riding it (004:807, 004:824).
            let riding_a_flier =
                parties.mount_of(*member).and_then(|m| party.iter().position(|e| *e == m)).is_some_and(|m| aloft[m]);
            if acting.is_empty() {
                order.current = Some(pos);
            }
            acting.push(*member);
            if resumed {
                *budget = turn_budget(order.round, &conditions, riding_a_flier);
                facts.write(Fact::TurnResumed { round: order.round, creature: id.clone() });
            } else {
                begin_turn(order.round, id, &mut conditions, &mut budget, riding_a_flier, facts);
            }
        } else {
            if !sits_out && !conditions.has(Condition::Dead) {
                pass_turn(order.round, id, &mut conditions, facts);
            }
            if rolls_to_stabilise(&conditions, *fall, order.round) {
                roll_to_stabilise(id, &mut conditions, &mut hp, dice, facts);
            }
        }
    }
    order.acting = acting;
    if !order.acting.is_empty() {
        order.turns_begun += 1;
        order.resumed = resumed;
    }
    !order.acting.is_empty()
}

/// A dying creature's roll on its turn: stable on 10 or less in 1d100, else 1 hit point lost (004:281).
fn roll_to_stabilise(
    id: &CreatureId,
    conditions: &mut Conditions,
    hp: &mut HitPoints,
    dice: &mut Dice,
    facts: &mut MessageWriter<Fact>,
) {
    let roll = dice.d100();
    let stable = roll <= STABILISE_CHANCE;
    facts.write(Fact::StabilisationRolled { creature: id.clone(), roll, stable });
    if stable {
        conditions.0.insert(Condition::Stable);
        facts.write(Fact::ConditionGained { creature: id.clone(), condition: Condition::Stable });
        return;
    }
    let before = hp.current;
    hp.current -= 1;
    facts.write(Fact::HitPointsLost { creature: id.clone(), amount: 1, reason: "dying (004:279-281)".into() });
    facts.write(Fact::HitPointsChanged { creature: id.clone(), before, after: hp.current, nonlethal: hp.nonlethal });
    if hp.current <= -10 {
        crate::rules::core::death::kill(id, hp, conditions, facts);
    }
}

/// A creature that becomes disabled or staggered in its own turn is restricted at once: one standard or
/// one move action a round (004:274, 004:304), none more if it has taken one. One healed out of both in its
/// own turn has its means back at once (004:275 « il retrouve instantanément tous ses moyens »), outside
/// the surprise round.
fn restrict_the_newly_disabled(
    mut facts: MessageReader<Fact>,
    order: Res<TurnOrder>,
    roster: Res<crate::rules::core::creature::Roster>,
    mut budgets: Query<(&mut ActionBudget, &Conditions)>,
) {
    for fact in facts.read() {
        // Stunned in its own turn, it takes no more actions in it (docs/rulings.md, the d20 standard).
        if let Fact::ConditionGained { creature, condition: Condition::Stunned } = fact
            && let Some(entity) = roster.0.get(creature).copied()
            && order.is_acting(entity)
            && let Ok((mut budget, _)) = budgets.get_mut(entity)
        {
            budget.stunned = true;
            continue;
        }
        let (creature, gained) = match fact {
            Fact::ConditionGained { creature, condition: Condition::Disabled | Condition::Staggered } => {
                (creature, true)
            }
            Fact::ConditionLost { creature, condition: Condition::Disabled | Condition::Staggered } => {
                (creature, false)
            }
            _ => continue,
        };
        let Some(entity) = roster.0.get(creature).copied() else { continue };
        let Ok((mut budget, conditions)) = budgets.get_mut(entity) else { continue };
        if !order.is_acting(entity) {
            continue;
        }
        if gained {
            budget.restrict();
        } else if order.round > 0
            && conditions.can_act()
            && !conditions.has(Condition::Disabled)
            && !conditions.has(Condition::Staggered)
        {
            budget.unrestrict();
        }
    }
}

/// Marks a delaying creature to act when the current turn ends.
fn ask_to_resume(
    mut intents: MessageReader<ResumeIntent>,
    mut order: ResMut<TurnOrder>,
    ids: Query<(&CreatureId, &Conditions)>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let (id, conditions) = ids.get(intent.creature).map(|(i, c)| (i.clone(), c.clone())).unwrap_or_default();
        // An unconscious or dying creature takes no special action to change its place (004:281).
        if !conditions.can_act() {
            facts.write(Fact::ActionRefused {
                creature: id,
                action: Action::Resume,
                reason: "a creature that cannot act does not change its place in the order".into(),
                rule: "004:281".into(),
            });
            continue;
        }
        if order.entries.iter().any(|e| e.entity == intent.creature && e.delaying) {
            if !order.resuming.contains(&intent.creature) {
                order.resuming.push(intent.creature);
            }
        } else {
            facts.write(Fact::ActionRefused {
                creature: id,
                action: Action::Resume,
                reason: "only a creature that delayed its action may act later".into(),
                rule: "004:629".into(),
            });
        }
    }
}

/// Whether `creature` may delay now (004:629-631): in its own turn, holding its place (a mount and its
/// passengers act on the rider's), before it or any of `party` (the budgets of all who act in this turn:
/// its mount moved is the rider's action, 004:474) has acted; what the rule and the bar ask.
pub fn check_delay<'a>(
    order: &TurnOrder,
    creature: Entity,
    mut party: impl Iterator<Item = &'a ActionBudget>,
) -> Result<(), Refusal> {
    order.check_turn(creature)?;
    if order.place_holder() != Some(creature) {
        return Err(Refusal::new("a mount and those on it act on the rider's turn: the rider delays", "004:653"));
    }
    let fresh = |b: &ActionBudget| b.standard && b.move_action && b.movement == MovementMade::None && !b.acted_freely;
    if party.all(fresh) { Ok(()) } else { Err(Refusal::new("a creature delays before it acts, not after", "004:629")) }
}

/// The creature whose turn it is delays: it must not have acted yet; its turn passes (004:629-631). A
/// rider delays for its mount and passengers, who act with it.
fn delay_turn(
    mut intents: MessageReader<DelayIntent>,
    mut order: ResMut<TurnOrder>,
    mut creatures: TurnCreatures<'_, '_>,
    riding: Query<(Entity, &Riding, Option<&Seat>)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let Ok((_, id, ..)) = creatures.get(intent.creature) else { continue };
        let id = id.clone();
        let party = order.acting.iter().filter_map(|e| creatures.get(*e).ok()).map(|c| c.5);
        if let Err(refusal) = check_delay(&order, intent.creature, party) {
            facts.write(Fact::ActionRefused {
                creature: id,
                action: Action::Delay,
                reason: refusal.reason,
                rule: refusal.rule,
            });
            continue;
        }
        for member in order.acting.clone() {
            if let Ok(mut c) = creatures.get_mut(member) {
                *c.5 = ActionBudget::default();
            }
        }
        let current = order.current;
        if let Some(i) = current {
            order.entries[i].delaying = true;
        }
        facts.write(Fact::TurnDelayed { creature: id });
        let parties = Parties::from_query(&riding);
        advance(&mut order, current, &mut creatures, &parties, &mut dice, &mut facts);
    }
}

/// Ends the current turn, of the creature and all who act with it, and starts the next able party's.
fn end_turn(
    mut intents: MessageReader<EndTurnIntent>,
    mut order: ResMut<TurnOrder>,
    mut creatures: TurnCreatures<'_, '_>,
    riding: Query<(Entity, &Riding, Option<&Seat>)>,
    mut dice: ResMut<Dice>,
    mut facts: MessageWriter<Fact>,
) {
    for intent in intents.read() {
        let id = creatures.get(intent.creature).map(|c| c.1.clone()).unwrap_or_default();
        if let Err(refusal) = order.check_turn(intent.creature) {
            facts.write(Fact::ActionRefused {
                creature: id,
                action: Action::EndTurn,
                reason: refusal.reason,
                rule: refusal.rule,
            });
            continue;
        }
        let mut party = order.acting.clone();
        if party.is_empty() {
            party.push(intent.creature);
        }
        for member in party {
            if let Ok(mut c) = creatures.get_mut(member) {
                facts.write(Fact::TurnEnded { creature: c.1.clone() });
                // Its movement of the turn stays on record until its next turn: a 5-foot step forbids a
                // readied move before then (004:259).
                *c.5 = ActionBudget { movement: c.5.movement, ..ActionBudget::default() };
            }
        }
        let current = order.current;
        let parties = Parties::from_query(&riding);
        advance(&mut order, current, &mut creatures, &parties, &mut dice, &mut facts);
    }
}

/// Ends the fight when the creatures still able to act (disabled ones can, 004:274) all belong to one
/// faction.
fn declare_victory(
    mut order: ResMut<TurnOrder>,
    creatures: Query<(&Faction, &Conditions), With<Creature>>,
    mut facts: MessageWriter<Fact>,
) {
    if order.ended || order.entries.is_empty() {
        return;
    }
    let mut standing: Vec<&str> = creatures.iter().filter(|(_, c)| c.can_act()).map(|(f, _)| f.0.as_str()).collect();
    standing.sort_unstable();
    standing.dedup();
    if standing.len() <= 1 {
        order.ended = true;
        facts.write(Fact::EncounterEnded { winner: standing.first().map(|s| s.to_string()) });
    }
}

/// Rounds in a row with no exchange after which the sides part: one minute (004:249's « une minute (10
/// rounds) »).
pub const QUIET_ROUNDS: u32 = 10;

/// Notes the round of every exchange between foes: an attack rolled, a spell taking effect, a breath,
/// damage dealt by one creature to another (a fall or strain is no exchange).
fn note_exchanges(mut order: ResMut<TurnOrder>, mut facts: MessageReader<Fact>) {
    let round = order.round;
    for fact in facts.read() {
        let exchange = matches!(
            fact,
            Fact::AttackRolled { .. }
                | Fact::SpellTakesEffect { .. }
                | Fact::Breathed { .. }
                | Fact::DamageDealt { .. }
        );
        if exchange {
            order.last_exchange = order.last_exchange.max(round);
        }
    }
}

/// Ends a fight nobody can win (our ruling, docs/rulings.md): when [`QUIET_ROUNDS`] rounds in a row have
/// passed with no exchange, the sides part and the fight ends with no winner.
fn declare_parting(mut order: ResMut<TurnOrder>, mut facts: MessageWriter<Fact>) {
    if order.ended || order.entries.is_empty() || order.round <= order.last_exchange + QUIET_ROUNDS {
        return;
    }
    order.ended = true;
    facts.write(Fact::Parted { rounds: QUIET_ROUNDS });
    facts.write(Fact::EncounterEnded { winner: None });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, total: i32, modifier: i32) -> InitiativeEntry {
        InitiativeEntry {
            entity: Entity::PLACEHOLDER,
            id: CreatureId(id.into()),
            total,
            modifier,
            surprised: false,
            delaying: false,
            count: Count::default(),
        }
    }

    #[test]
    fn a_dying_creature_rolls_from_the_round_after_its_fall() {
        let dying = Conditions([Condition::Dying, Condition::Unconscious].into_iter().collect());
        assert!(!rolls_to_stabilise(&dying, Fall(Some(3)), 3));
        assert!(rolls_to_stabilise(&dying, Fall(Some(3)), 4));
        let stable = Conditions([Condition::Dying, Condition::Stable].into_iter().collect());
        assert!(!rolls_to_stabilise(&stable, Fall(Some(3)), 5));
        assert!(!rolls_to_stabilise(&Conditions::default(), Fall(None), 5));
    }

    #[test]
    fn ties_go_to_the_higher_modifier_then_the_die() {
        let mut rolled = vec![
            (entry("a", 15, 1), vec![4]),
            (entry("b", 15, 3), vec![]),
            (entry("c", 18, 0), vec![]),
            (entry("d", 15, 1), vec![17]),
        ];
        order_initiative(&mut rolled);
        let ids: Vec<&str> = rolled.iter().map(|(e, _)| e.id.0.as_str()).collect();
        assert_eq!(ids, vec!["c", "b", "d", "a"]);
    }

    #[test]
    fn a_tie_die_that_ties_is_rolled_again_among_those_it_left_level() {
        // Three level on 15 and +1: dice 9, 9, 3 leave a and b level; rolled again, 2 and 11: b first.
        let mut dice = Dice::seeded(1);
        dice.force([9, 3, 9, 2, 11]);
        let mut rolled = vec![(entry("a", 15, 1), vec![]), (entry("c", 15, 1), vec![]), (entry("b", 15, 1), vec![])];
        break_ties(&mut rolled, &mut dice, |_, _| {});
        order_initiative(&mut rolled);
        let ids: Vec<&str> = rolled.iter().map(|(e, _)| e.id.0.as_str()).collect();
        assert_eq!(ids, vec!["b", "a", "c"]);
    }
}
