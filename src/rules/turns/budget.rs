//! What a creature may still do this turn: a standard and a move action, two moves, or one full-round
//! action, plus free actions; a move may replace the standard; one 5-foot step only in a round with no
//! other movement (004:72-86, 004:253-262). Pure.

use bevy::prelude::*;
use serde::Serialize;

use crate::rules::core::creature::{Condition, Conditions};
use crate::rules::core::geometry::Square;
use crate::rules::core::refusal::Refusal;

/// The kinds of action of 004:72-86.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Action simple.
    Standard,
    /// Action de mouvement.
    Move,
    /// Action complexe.
    FullRound,
    /// Action libre.
    Free,
}

/// Movement already made this round, which rules out what may follow (004:259).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementMade {
    /// None yet.
    #[default]
    None,
    /// A 5-foot step: no other movement this round.
    FiveFootStep,
    /// Some other movement: no 5-foot step this round.
    Moved,
}

/// The actions left to a creature in its turn.
#[derive(bevy::prelude::Component, Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ActionBudget {
    /// The standard action is unused.
    pub standard: bool,
    /// The move action is unused.
    pub move_action: bool,
    /// Restricted to one standard or one move action (surprise round, disabled, staggered: 004:77).
    pub restricted: bool,
    /// Movement made so far.
    pub movement: MovementMade,
    /// The standard action was taken this turn (a move in its place, or a full-round action).
    pub took_standard: bool,
    /// The move action was taken this turn (or a full-round action).
    pub took_move: bool,
    /// An odd number of plain diagonals taken so far this turn (RULES-INDEX: one alternation a turn).
    pub odd_diagonal: bool,
    /// It rides a flier in the air: riding takes a move action, so no full-round action (004:807, 004:824).
    pub riding: bool,
    /// The squares of a move that goes on after an overrun's passage (004:535 « il continue son déplacement
    /// normalement »): a move may take them with no action more, until another action is spent.
    pub going_on: Option<u32>,
    /// Its move action went to a weapon drawn (or a shield strapped on or loosed) before the move it is
    /// combined with (004:219, 004:221): its next move (or crawl) takes no action more.
    pub move_with_draw: bool,
    /// The squares of movement it paid this turn following the foes it bull-rushed (004:449 « le personnage
    /// ne peut en aucun cas dépasser la distance de déplacement qui lui est allouée pour le round »): a move
    /// action later in the turn goes that much less far.
    pub followed: u32,
    /// Cowering (a rebuked undead, 004:565; a turned one cornered, 004:549): it takes no actions this turn
    /// (the cowering of 004:388, the d20 standard; docs/rulings.md).
    pub cowering: bool,
    /// Stunned: it takes no actions (the d20 standard; the texts give only its AC row, 004:397;
    /// docs/rulings.md).
    pub stunned: bool,
    /// Its turn is at its end (a flier landed once it had acted, 004:669): no action nor movement is left.
    pub closed: bool,
    /// A full attack is under way, its first blow struck and only that one (« Après sa première attaque »): the rest may be given up for a move action
    /// (004:232 « un personnage peut changer d'avis et décider d'effectuer une action de mouvement »). Kept
    /// by [`FullAttackUnderway`]'s hooks.
    pub full_attack_begun: bool,
    /// The rest of its full attack was just given up for a move action: the rules end the full attack.
    #[serde(skip)]
    pub full_attack_given_up: bool,
    /// It took a free action this turn (dropped prone, let something fall): it has acted, and may no longer
    /// delay (004:629).
    pub acted_freely: bool,
    /// The dice it threw this turn for the square a charge would end on, among equally near ones
    /// (000:63-65), at most one per foe (the last four kept): a charge declared again from the same place at
    /// the same foe keeps what its die said.
    pub charge_dice: [Option<ChargeDie>; 4],
    /// It got on or off a mount quickly this turn (a free action, 004:227), which is movement: no full-round
    /// action after it (004:81).
    pub got_on_or_off: bool,
}

/// A die thrown for a charge's end among equally near squares of attack (000:63-65).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ChargeDie {
    /// Where the charger stood.
    pub from: Square,
    /// Where the foe stood.
    pub toward: Square,
    /// The square the die picked.
    pub to: Square,
}

/// Why nothing is left of a closed turn.
fn closed() -> Refusal {
    Refusal::new("it landed at the end of its turn: nothing more this turn", "004:669")
}

/// Why a cowering creature does nothing.
fn cowers() -> Refusal {
    Refusal::new("cowering, it takes no actions", "004:388, 004:565")
}

impl Default for ActionBudget {
    fn default() -> Self {
        ActionBudget {
            standard: false,
            move_action: false,
            restricted: false,
            movement: MovementMade::None,
            took_standard: false,
            took_move: false,
            odd_diagonal: false,
            riding: false,
            going_on: None,
            move_with_draw: false,
            followed: 0,
            cowering: false,
            stunned: false,
            closed: false,
            full_attack_begun: false,
            full_attack_given_up: false,
            acted_freely: false,
            charge_dice: [None; 4],
            got_on_or_off: false,
        }
    }
}

impl ActionBudget {
    /// A full turn: a standard and a move action.
    pub const fn fresh() -> Self {
        ActionBudget {
            standard: true,
            move_action: true,
            restricted: false,
            movement: MovementMade::None,
            took_standard: false,
            took_move: false,
            odd_diagonal: false,
            riding: false,
            going_on: None,
            move_with_draw: false,
            followed: 0,
            cowering: false,
            stunned: false,
            closed: false,
            full_attack_begun: false,
            full_attack_given_up: false,
            acted_freely: false,
            charge_dice: [None; 4],
            got_on_or_off: false,
        }
    }

    /// A restricted turn: one standard or one move action (004:77, 004:86).
    pub const fn restricted() -> Self {
        ActionBudget { restricted: true, ..Self::fresh() }
    }

    /// Restricted from now on, in the middle of a turn (a creature disabled or staggered by what befell it,
    /// 004:274, 004:304): one standard or one move action a round, so none left if it has taken one.
    pub fn restrict(&mut self) {
        if self.restricted {
            return;
        }
        if !self.standard || !self.move_action {
            self.standard = false;
            self.move_action = false;
        }
        self.restricted = true;
    }

    /// Why the creature takes no actions at all this turn, if it does not: cowering or stunned.
    pub fn idle(&self) -> Option<Refusal> {
        if self.cowering {
            Some(cowers())
        } else if self.stunned {
            Some(Refusal::new("stunned, it takes no actions", "docs/rulings.md"))
        } else {
            None
        }
    }

    /// Loses the standard and the move action of this turn, as if both were taken (a mount that would not
    /// be controlled, 004:473).
    pub fn lose_both_actions(&mut self) {
        self.standard = false;
        self.move_action = false;
        self.took_standard = true;
        self.took_move = true;
    }

    /// No longer restricted, in the middle of a turn: a disabled creature healed (004:275 « il retrouve
    /// instantanément tous ses moyens, comme s'il n'était jamais descendu à 0 »): the actions it has not
    /// taken come back.
    pub fn unrestrict(&mut self) {
        if !self.restricted {
            return;
        }
        self.restricted = false;
        if !self.closed {
            self.standard = !self.took_standard;
            self.move_action = !self.took_move;
        }
    }

    /// Whether nothing of the turn is spent yet: its beginning (004:669 « au début … de son tour de jeu »).
    pub fn untouched(&self) -> bool {
        self.standard && self.move_action && self.movement == MovementMade::None && self.going_on.is_none()
    }

    /// Ends the turn's actions: no action nor movement is left (a flier landing at the end of its turn,
    /// 004:669).
    pub fn close(&mut self) {
        self.standard = false;
        self.move_action = false;
        self.going_on = None;
        self.move_with_draw = false;
        self.closed = true;
    }

    /// Whether an action of `kind` can be taken now.
    pub fn check(&self, kind: ActionKind) -> Result<(), Refusal> {
        // Stunned or cowering, no action at all, free ones too (docs/rulings.md).
        if let Some(why) = self.idle() {
            return Err(why);
        }
        if self.closed && kind != ActionKind::Free {
            return Err(closed());
        }
        if self.restricted && kind != ActionKind::Free && !self.standard && !self.move_action {
            return Err(Refusal::new(
                "restricted to one standard or one move action this turn, already taken",
                "004:77",
            ));
        }
        match kind {
            ActionKind::Free => Ok(()),
            ActionKind::Standard if self.standard => Ok(()),
            ActionKind::Standard => Err(Refusal::new("the standard action of this turn is spent", "004:76")),
            ActionKind::Move if self.move_action || self.standard || self.full_attack_begun => Ok(()),
            ActionKind::Move => {
                Err(Refusal::new("no move action left this turn (a move can replace the standard action)", "004:76"))
            }
            ActionKind::FullRound if self.riding => {
                Err(Refusal::new("riding a flier takes a move action: no full-round action on its back", "004:824"))
            }
            ActionKind::FullRound if self.restricted => {
                Err(Refusal::new("a creature restricted to one action cannot take a full-round action", "004:86"))
            }
            ActionKind::FullRound if self.standard && self.move_action => Ok(()),
            ActionKind::FullRound => {
                Err(Refusal::new("a full-round action takes the whole turn, and part of it is spent", "004:81"))
            }
        }
    }

    /// Whether a full-round action may be taken: both actions left ([`check`](Self::check)), and no movement
    /// made this turn but a 5-foot step: « Le personnage ne peut pas se déplacer autrement qu'en exécutant un
    /// pas de placement » (004:81, 004:230), getting on or off a mount quickly being movement.
    pub fn check_full_round(&self) -> Result<(), Refusal> {
        self.check(ActionKind::FullRound)?;
        if self.got_on_or_off {
            return Err(Refusal::new(
                "it has moved this round: a full-round action allows no movement but a 5-foot step",
                "004:81",
            ));
        }
        Ok(())
    }

    /// The die thrown this turn for a charge from `from` at a foe standing at `toward`, if it picked one of
    /// the `nearest` squares of attack (000:63-65).
    pub fn kept_charge_die(&self, from: Square, toward: Square, nearest: &[Square]) -> Option<ChargeDie> {
        self.charge_dice
            .iter()
            .flatten()
            .copied()
            .find(|d| d.from == from && d.toward == toward && nearest.contains(&d.to))
    }

    /// Keeps the die thrown for a charge for the rest of the turn, in place of an older one for the same
    /// charge, else of the oldest.
    pub fn keep_charge_die(&mut self, die: ChargeDie) {
        let same = |d: &Option<ChargeDie>| d.is_some_and(|d| d.from == die.from && d.toward == die.toward);
        let at = self.charge_dice.iter().position(same).or_else(|| self.charge_dice.iter().position(Option::is_none));
        match at {
            Some(i) => self.charge_dice[i] = Some(die),
            None => {
                self.charge_dice.rotate_left(1);
                self.charge_dice[3] = Some(die);
            }
        }
    }

    /// A full-round action that a creature restricted to one action takes with that action in its place, at
    /// its speed only (a withdraw, a charge: 004:247, 004:456).
    pub fn check_full_round_or_one_action(&self) -> Result<(), Refusal> {
        if self.restricted { self.check(ActionKind::Standard) } else { self.check_full_round() }
    }

    /// [`check`](Self::check) an action of `kind`, a full-round one by [`check_full_round`](Self::check_full_round).
    pub fn check_kind(&self, kind: ActionKind) -> Result<(), Refusal> {
        if kind == ActionKind::FullRound { self.check_full_round() } else { self.check(kind) }
    }

    /// [`spend`](Self::spend), except for a readied action set off by its trigger: it was paid for with the
    /// standard action that readied it (004:620).
    pub fn spend_unless_readied(&mut self, kind: ActionKind, readied: bool) -> Result<(), Refusal> {
        if readied { Ok(()) } else { self.spend(kind) }
    }

    /// Spends an action of `kind` (checked first). A move uses the move action, or else the standard one.
    pub fn spend(&mut self, kind: ActionKind) -> Result<(), Refusal> {
        self.check(kind)?;
        match kind {
            ActionKind::Free => self.acted_freely = true,
            ActionKind::Standard => {
                self.standard = false;
                self.took_standard = true;
            }
            ActionKind::Move if self.move_action => {
                self.move_action = false;
                self.took_move = true;
            }
            ActionKind::Move if self.standard => {
                self.standard = false;
                self.took_standard = true;
            }
            // The rest of the full attack under way, given up for this move action (004:232).
            ActionKind::Move => {
                self.full_attack_begun = false;
                self.full_attack_given_up = true;
            }
            ActionKind::FullRound => {
                self.standard = false;
                self.move_action = false;
                self.took_standard = true;
                self.took_move = true;
            }
        }
        if self.restricted && kind != ActionKind::Free {
            self.standard = false;
            self.move_action = false;
        }
        if kind != ActionKind::Free {
            self.going_on = None;
        }
        Ok(())
    }

    /// Whether two move actions are still available (a double move).
    pub fn check_double_move(&self) -> Result<(), Refusal> {
        if let Some(why) = self.idle() {
            return Err(why);
        }
        if self.closed {
            return Err(closed());
        }
        if self.restricted {
            return Err(Refusal::new("a creature restricted to one action has a single move action", "004:77"));
        }
        if self.standard && self.move_action {
            Ok(())
        } else {
            Err(Refusal::new("a double move needs both actions of the turn", "000:17-18"))
        }
    }

    /// Whether a 5-foot step is still possible: one per round, and only in a round with no other
    /// movement (004:259).
    pub fn check_five_foot_step(&self) -> Result<(), Refusal> {
        if let Some(why) = self.idle() {
            return Err(why);
        }
        if self.closed {
            return Err(closed());
        }
        match self.movement {
            MovementMade::None => Ok(()),
            MovementMade::FiveFootStep => Err(Refusal::new("only one 5-foot step a round", "004:259")),
            MovementMade::Moved => Err(Refusal::new("no 5-foot step in a round with other movement", "004:259")),
        }
    }

    /// Whether other movement is still possible (not after a 5-foot step, 004:259).
    pub fn check_movement(&self) -> Result<(), Refusal> {
        if self.closed {
            return Err(closed());
        }
        if self.movement == MovementMade::FiveFootStep {
            Err(Refusal::new("no other movement in a round with a 5-foot step", "004:259"))
        } else {
            Ok(())
        }
    }
}

/// A strenuous action done: it costs 1 hit point to a creature disabled once it is done (004:274 « lui
/// fait perdre 1 point de vie dès qu'il l'a accomplie »). Written for every standard action (and every
/// other strenuous one); the health chapter weighs it after the action's wounds and healing, so a creature
/// dropped to 0 by the opportunity its own action provoked pays, one dropped below 0 or healed by it does
/// not.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct Strain {
    /// Who strains.
    pub creature: Entity,
    /// What it did, with the rule.
    pub reason: String,
}

impl Strain {
    /// `creature` has done a standard action (004:274).
    pub fn standard_action(creature: Entity) -> Self {
        Strain { creature, reason: "a standard action while disabled (004:274)".into() }
    }

    /// `creature` has completed a full-round action begun before it was disabled, a strenuous action (004:274).
    pub fn completed(creature: Entity) -> Self {
        Strain { creature, reason: "an action completed while disabled (004:274)".into() }
    }

    /// `creature` has made an attack of opportunity, a strenuous action (004:274).
    pub fn opportunity(creature: Entity) -> Self {
        Strain { creature, reason: "an attack of opportunity while disabled (004:274)".into() }
    }
}

/// A full-round action begun with a standard action by a restricted creature, to be finished with another
/// the next round (004:86, 004:212); lost if not finished then.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct FullRoundBegun {
    /// Which action.
    pub action: BegunAction,
    /// The round it was begun in.
    pub round: u32,
}

/// The full-round actions a restricted creature may take over two rounds (not a full attack, a charge, a
/// run or a withdrawal, 004:212).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BegunAction {
    /// A coup de grâce on this helpless foe (004:424).
    CoupDeGrace {
        /// The foe.
        target: Entity,
    },
    /// The minimum movement to this square (000:139-144).
    MinimumMovement {
        /// Where to.
        to: crate::rules::core::geometry::Square,
    },
    /// Loading this heavy crossbow (004:137).
    Load {
        /// The crossbow's name.
        weapon: String,
    },
    /// Preparing this splash weapon to throw (004:144).
    Prepare {
        /// The flask's name.
        weapon: String,
    },
}

/// Whether a creature takes the full-round action `action` over two rounds now (004:86 « on peut
/// l'effectuer en deux rounds avec deux actions simples », 004:212): `Some(true)` to finish it with this
/// round's standard action, begun the round before (« l'achever au round suivant avec une autre action
/// simple », restricted still or not); `Some(false)` to begin it, restricted to one action, with this
/// round's standard action; `None` when it is paid whole (or refused), or no standard action is left.
pub fn over_two_rounds(
    budget: &ActionBudget,
    begun: Option<&FullRoundBegun>,
    action: &BegunAction,
    round: u32,
) -> Option<bool> {
    if budget.check(ActionKind::Standard).is_err() {
        return None;
    }
    if begun.is_some_and(|b| b.action == *action && b.round + 1 == round) {
        return Some(true);
    }
    budget.restricted.then_some(false)
}

impl BegunAction {
    /// The action as the log names it.
    pub fn action(&self) -> crate::rules::core::names::Action {
        match self {
            BegunAction::CoupDeGrace { .. } => crate::rules::core::names::Action::CoupDeGrace,
            BegunAction::MinimumMovement { .. } => crate::rules::core::names::Action::MinimumMovement,
            BegunAction::Load { .. } => crate::rules::core::names::Action::Load,
            BegunAction::Prepare { .. } => crate::rules::core::names::Action::PrepareSplash,
        }
    }
}

/// A full attack begun and not finished: the next blow to strike, at whichever foe the attacker chooses as it
/// goes (« il peut décider au fur et à mesure, en fonction du résultat des précédentes », 004:229). While it
/// lasts its creature's budget knows the rest may be given up for a move action (004:232).
#[derive(Component, Clone, Debug, PartialEq, Eq)]
#[component(on_insert = full_attack_begun, on_remove = full_attack_over)]
pub struct FullAttackUnderway {
    /// Blows already struck.
    pub struck: usize,
    /// With two weapons.
    pub two_weapons: bool,
    /// With two weapons, the off hand's blow first (« il choisit laquelle frappe en premier », 004:231).
    pub off_first: bool,
}

/// Only its first blow struck, the rest of a full attack may be given up for a move action: « Après sa
/// première attaque » (004:232), not after the second.
fn full_attack_begun(mut world: bevy::ecs::world::DeferredWorld, context: bevy::ecs::lifecycle::HookContext) {
    let first = world.get::<FullAttackUnderway>(context.entity).is_some_and(|u| u.struck <= 1);
    if let Some(mut budget) = world.get_mut::<ActionBudget>(context.entity) {
        budget.full_attack_begun = first;
    }
}

fn full_attack_over(mut world: bevy::ecs::world::DeferredWorld, context: bevy::ecs::lifecycle::HookContext) {
    if let Some(mut budget) = world.get_mut::<ActionBudget>(context.entity) {
        budget.full_attack_begun = false;
    }
}

/// Ends the full attacks whose rest was given up for a move action other than movement (004:232): drawing a
/// weapon, loading a crossbow… (movement gives it up as the move begins, `turns::moving`).
pub fn give_up_full_attacks(
    mut commands: Commands,
    mut budgets: Query<(Entity, &crate::rules::core::creature::CreatureId, &mut ActionBudget, Has<FullAttackUnderway>)>,
    mut facts: MessageWriter<crate::rules::core::facts::Fact>,
) {
    for (entity, id, mut budget, underway) in &mut budgets {
        if !budget.full_attack_given_up {
            continue;
        }
        budget.full_attack_given_up = false;
        if underway {
            facts.write(crate::rules::core::facts::Fact::FullAttackGivenUp { creature: id.clone() });
            commands.entity(entity).remove::<FullAttackUnderway>();
        }
    }
}

/// A creature's state in the middle of its action, which its conditions may not show yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MidAction {
    /// Running: no Dex to AC without the Run feat (004:248).
    pub running: bool,
    /// Squeezed: -4 AC (000:113-114).
    pub squeezed: bool,
    /// Squeezed narrower than half with Escape Artist: -4 AC, no Dex (000:121-123).
    pub tight: bool,
    /// In the middle of a charge: -2 AC (004:457), and a spear set against it deals double (004:461).
    pub charging: bool,
    /// Moving out of or within a threatened area by its own movement: Mobility's +4 against the attacks of
    /// opportunity it provokes (the d20 feat; our ruling, docs/rulings.md).
    pub moving: bool,
}

impl MidAction {
    /// The state its conditions show.
    pub fn of(conditions: &Conditions) -> Self {
        MidAction {
            running: conditions.has(Condition::Running),
            squeezed: conditions.has(Condition::Squeezed),
            tight: conditions.has(Condition::SqueezedTight),
            charging: conditions.has(Condition::Charging),
            moving: false,
        }
    }
}

/// An action that provokes attacks of opportunity where its doer stands (004:66, the table of actions
/// 004:87-163): a ranged or unarmed attack, a coup de grâce, standing up. The chapter of the attacks of
/// opportunity observes it: the foes that threaten the doer strike first, and set `dropped` if it falls,
/// in which case the action is not carried out.
#[derive(Event, Debug)]
pub struct Provoking {
    /// Who acts.
    pub who: Entity,
    /// Only this foe may strike (an unarmed attack provokes its target alone, 004:168).
    pub only: Option<Entity>,
    /// These foes may not (a bull rush's target with Improved Bull Rush, 004:447; those that already struck
    /// in the same push, 004:68).
    pub except: Vec<Entity>,
    /// The creature whose space the doer shares as it provokes: each striker but it hits it instead on 25%
    /// of the d% (a bull rush, 004:447).
    pub shared_with: Option<Entity>,
    /// The squares it leaves, for a move: only the foes that threaten one of them may strike (« Le fait de
    /// sortir d'une case contrôlée (mais pas d'y entrer) », 004:65); `None`, every foe threatening its space.
    pub leaving: Option<Vec<crate::rules::core::geometry::Square>>,
    /// Where it stands as they strike, if not where it is: a step along a move resolved at once (a grapple
    /// moved, 004:602).
    pub at: Option<crate::rules::core::geometry::Footprint>,
    /// What it is in the middle of, if not what its conditions show: a flight's leg is movement, a charge's
    /// too (Mobility, 004:457's -2 and a spear set against it).
    pub mid_action: Option<MidAction>,
    /// The action, as the log names it.
    pub action: crate::rules::core::names::Action,
    /// What provokes, with the rule.
    pub why: String,
    /// Dropped by a strike: the action stops.
    pub dropped: bool,
    /// The creature it shares its space with dropped by a blow that strayed to it (004:447).
    pub shared_dropped: bool,
    /// The foes that struck.
    pub struck_by: Vec<Entity>,
    /// Any damage came to it from them, nonlethal or off its temporary hit points too (a grab or a disarm
    /// fails then, 004:581, 004:492).
    pub wounded: bool,
}

impl Provoking {
    /// `who` provokes by `action` (`why`, with the rule) from every foe that threatens it.
    pub fn new(who: Entity, action: crate::rules::core::names::Action, why: impl Into<String>) -> Self {
        Provoking {
            who,
            only: None,
            except: Vec::new(),
            shared_with: None,
            leaving: None,
            at: None,
            mid_action: None,
            action,
            why: why.into(),
            dropped: false,
            shared_dropped: false,
            struck_by: Vec::new(),
            wounded: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_and_move_or_two_moves_or_one_full_round() {
        let mut b = ActionBudget::fresh();
        b.spend(ActionKind::Standard).unwrap();
        b.spend(ActionKind::Move).unwrap();
        assert!(b.check(ActionKind::Move).is_err());

        let mut b = ActionBudget::fresh();
        b.spend(ActionKind::Move).unwrap();
        b.spend(ActionKind::Move).unwrap();
        assert!(b.check(ActionKind::Standard).is_err(), "the second move used the standard action");

        let mut b = ActionBudget::fresh();
        b.spend(ActionKind::FullRound).unwrap();
        assert!(b.check(ActionKind::Move).is_err());
        assert!(b.check(ActionKind::Free).is_ok());

        let mut b = ActionBudget::fresh();
        b.spend(ActionKind::Move).unwrap();
        assert!(b.check(ActionKind::FullRound).is_err());
    }

    #[test]
    fn a_rider_on_a_flier_takes_no_full_round_action() {
        let mut b = ActionBudget { riding: true, ..ActionBudget::fresh() };
        assert_eq!(b.check(ActionKind::FullRound).unwrap_err().rule, "004:824");
        b.spend(ActionKind::Move).unwrap();
        assert!(b.check(ActionKind::Standard).is_ok(), "the standard action is left before or after the flight");
    }

    #[test]
    fn restricted_creatures_get_one_action() {
        let mut b = ActionBudget::restricted();
        assert!(b.check(ActionKind::FullRound).is_err());
        assert!(b.check_double_move().is_err());
        b.spend(ActionKind::Move).unwrap();
        assert!(b.check(ActionKind::Standard).is_err());
    }

    #[test]
    fn five_foot_step_excludes_other_movement() {
        let mut b = ActionBudget::fresh();
        b.movement = MovementMade::FiveFootStep;
        assert!(b.check_movement().is_err());
        assert!(b.check_five_foot_step().is_err());
        b.movement = MovementMade::Moved;
        assert!(b.check_five_foot_step().is_err());
        assert!(b.check_movement().is_ok());
    }
}
