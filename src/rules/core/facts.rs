//! Facts: what happened, in the past tense, in the order it happened. Every rules system writes
//! [`Fact`] messages; [`record_facts`] appends them to the [`EventLog`] that the combat log, the
//! headless runner and the tests read. One JSON object per fact, tagged by `fact`.

use bevy::prelude::*;
use serde::Serialize;

use crate::rules::core::creature::{Condition, CreatureId, Modifier};
use crate::rules::core::dice::Thrown;
use crate::rules::core::geometry::Square;
use crate::rules::core::names::{Action, Check, Save};

/// One thing that happened in the fight.
#[derive(Message, Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum Fact {
    /// The encounter was set up.
    EncounterStarted {
        /// The level's name.
        level: String,
        /// The dice seed.
        seed: u64,
    },
    /// A creature rolled initiative (004:51-54).
    InitiativeRolled {
        /// Who.
        creature: CreatureId,
        /// The d20.
        roll: u32,
        /// Named modifiers.
        modifiers: Vec<Modifier>,
        /// Roll plus modifiers.
        total: i32,
    },
    /// A creature level with another on initiative and modifier rolled a tie-break die (004:52), again if
    /// it left them level.
    InitiativeTieRolled {
        /// Who.
        creature: CreatureId,
        /// The d20.
        roll: u32,
    },
    /// A charger's nearest squares of attack were equally near and not all of them had a clear lane: a die
    /// picked the one its charge must end on (000:63-65, 004:453).
    ChargeSquareRolled {
        /// The charger.
        creature: CreatureId,
        /// The equally near squares, in the die's order.
        squares: Vec<Square>,
        /// The die, with as many faces as squares.
        roll: u32,
        /// The square it picked.
        to: Square,
    },
    /// A creature's place in the order came while it could not act (dying, unconscious, helpless): what
    /// lasts until its next turn ends all the same (its stances, the aid it gave: 004:444, 004:457).
    TurnPassed {
        /// The round.
        round: u32,
        /// Who.
        creature: CreatureId,
    },
    /// The order of play was settled: ties go to the higher modifier, then a die (004:52).
    InitiativeOrdered {
        /// Creatures from first to last.
        order: Vec<CreatureId>,
    },
    /// The surprise round began: only the creatures aware of their foes act, one action each (004:59).
    SurpriseRoundStarted {
        /// Those caught unaware, who do not act in it and stay flat-footed.
        surprised: Vec<CreatureId>,
    },
    /// A new round began.
    RoundStarted {
        /// Round number from 1.
        round: u32,
    },
    /// A creature's turn began.
    TurnStarted {
        /// The round.
        round: u32,
        /// Whose turn.
        creature: CreatureId,
    },
    /// A creature delayed its action (004:629).
    TurnDelayed {
        /// Who.
        creature: CreatureId,
    },
    /// A delaying creature acts: its one turn of the round goes on at its new place (004:629-631), nothing of
    /// a turn's start coming again (its attacks of opportunity, a Swim check, 004:68, 004:643).
    TurnResumed {
        /// The round.
        round: u32,
        /// Who.
        creature: CreatureId,
    },
    /// A delaying creature's place came round again: the delayed action is lost (004:631).
    DelayLapsed {
        /// Who.
        creature: CreatureId,
    },
    /// A creature's turn ended.
    TurnEnded {
        /// Whose turn.
        creature: CreatureId,
    },
    /// A move began.
    MoveStarted {
        /// Who moves.
        creature: CreatureId,
        /// The movement action (`move`, `double_move`, `run`, …).
        action: Action,
        /// Starting square.
        from: Square,
        /// Squares of movement the action allows.
        allowance: u32,
    },
    /// One square entered during a move, with what it cost.
    SquareEntered {
        /// Who moves.
        creature: CreatureId,
        /// The square (north-west square of the footprint).
        square: Square,
        /// Squares of movement this step cost.
        cost: u32,
        /// Squares spent so far in this move.
        spent: u32,
        /// Metres spent so far.
        spent_m: f32,
        /// Whether the step was hampered.
        hampered: bool,
        /// The space taken, `[width, height]`: narrower than the size's while squeezing.
        space: (i32, i32),
    },
    /// A move ended.
    CreatureMoved {
        /// Who moved.
        creature: CreatureId,
        /// From where.
        from: Square,
        /// To where.
        to: Square,
        /// Squares spent.
        cost: u32,
    },
    /// A creature's action gave a foe an attack of opportunity (004:61-71).
    OpportunityProvoked {
        /// Who provoked.
        creature: CreatureId,
        /// Who strikes.
        by: CreatureId,
        /// Where the provoker stands (north-west square).
        square: Square,
        /// What provoked, with the rule.
        reason: String,
    },
    /// A move or an action stopped before its end.
    MoveInterrupted {
        /// Who.
        creature: CreatureId,
        /// Where it stays.
        at: Square,
        /// Why, with the rule.
        reason: String,
    },
    /// An action stopped before it was carried out (its action is spent).
    ActionInterrupted {
        /// Who.
        creature: CreatureId,
        /// What it was doing.
        action: Action,
        /// Why, with the rule.
        reason: String,
    },
    /// An action was refused; nothing changed.
    ActionRefused {
        /// Who tried.
        creature: CreatureId,
        /// What was tried.
        action: Action,
        /// Why not.
        reason: String,
        /// The rule that forbids it, `file:line`.
        rule: String,
    },
    /// An attack roll (004:3-8).
    AttackRolled {
        /// The attacker.
        attacker: CreatureId,
        /// The target.
        target: CreatureId,
        /// The weapon.
        weapon: String,
        /// The natural d20.
        roll: u32,
        /// Every modifier with its source.
        modifiers: Vec<Modifier>,
        /// Roll plus modifiers.
        total: i32,
        /// The Armor Class aimed at.
        armor_class: i32,
        /// How the AC was made up.
        armor_class_parts: Vec<Modifier>,
        /// Whether it hit.
        hit: bool,
        /// Whether the roll threatens a critical.
        threat: bool,
    },
    /// A coup de grâce was delivered: it hits and is a critical (004:424).
    CoupDeGraceDelivered {
        /// Who struck.
        attacker: CreatureId,
        /// The helpless foe.
        target: CreatureId,
        /// The weapon.
        weapon: String,
    },
    /// The miss chance of concealment, rolled after a hit (004:411).
    ConcealmentRolled {
        /// Who attacked.
        attacker: CreatureId,
        /// The concealed target.
        target: CreatureId,
        /// The miss chance in percent (20 or 50).
        chance: u32,
        /// The d100.
        roll: u32,
        /// Whether the hit became a miss.
        missed: bool,
    },
    /// The roll to confirm a critical threat (004:186-189).
    CriticalConfirmationRolled {
        /// The attacker.
        attacker: CreatureId,
        /// The natural d20.
        roll: u32,
        /// Roll plus the same modifiers.
        total: i32,
        /// Whether the critical is confirmed.
        confirmed: bool,
    },
    /// Damage rolled and dealt.
    DamageDealt {
        /// Who dealt it.
        attacker: CreatureId,
        /// Who took it.
        target: CreatureId,
        /// The dice, each die shown (several throws on a critical).
        dice: Vec<Thrown>,
        /// Modifiers added to each throw.
        modifiers: Vec<Modifier>,
        /// The multiplier applied (1 without a critical): several add, each from the base damage (004:27).
        multiplier: u32,
        /// What multiplied it, when anything did ("critical x3", "set against a charge x2").
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        multiplied_by: Vec<String>,
        /// Damage dealt (at least 1, 004:23).
        total: i32,
        /// Whether it was nonlethal.
        nonlethal: bool,
    },
    /// A blow that hits and deals no damage, and why (a whip against armour).
    NoDamage {
        /// Who struck.
        attacker: CreatureId,
        /// Who was struck.
        target: CreatureId,
        /// Why it deals nothing.
        reason: String,
    },
    /// A saving throw (004:44-50).
    SaveRolled {
        /// Who saves.
        creature: CreatureId,
        /// Fortitude, reflex or will.
        save: Save,
        /// Against what, with the rule.
        reason: String,
        /// The natural d20.
        roll: u32,
        /// Terms of the situation beside the save's own bonus (cover, 004:402); none written when empty.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        modifiers: Vec<Modifier>,
        /// Roll plus bonus.
        total: i32,
        /// The difficulty.
        dc: i32,
        /// Whether it succeeded (a natural 1 always fails, a 20 always succeeds).
        success: bool,
    },
    /// An ability or skill check.
    CheckRolled {
        /// Who checks.
        creature: CreatureId,
        /// The ability or skill.
        check: Check,
        /// Why, with the rule.
        reason: String,
        /// The natural d20.
        roll: u32,
        /// Roll plus bonus.
        total: i32,
        /// The difficulty.
        dc: i32,
        /// Whether it succeeded.
        success: bool,
    },
    /// An opposed check (Hide against Spot, Bluff against Sense Motive, 004:816-818): `creature` wins
    /// only by beating the other's total.
    Opposed {
        /// Who checks.
        creature: CreatureId,
        /// Its skill.
        check: Check,
        /// Its natural d20.
        roll: u32,
        /// Roll plus bonus.
        total: i32,
        /// Its bonus, term by term (ability, size, stability, a charge…).
        terms: Vec<Modifier>,
        /// Who opposes it.
        opponent: CreatureId,
        /// The opponent's skill.
        their_check: Check,
        /// The opponent's natural d20.
        their_roll: u32,
        /// Roll plus bonus.
        their_total: i32,
        /// The opponent's bonus, term by term.
        their_terms: Vec<Modifier>,
        /// The die that settled a tie of totals and of modifiers (1 or 2: odd, `creature` won), when one
        /// did (« on doit tirer le vainqueur au hasard », 004:585).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tie_die: Option<u32>,
        /// Whether `creature` won.
        won: bool,
        /// Why, with the rule.
        reason: String,
    },
    /// A dying creature's roll to become stable: 10 or less on 1d100 (004:281).
    StabilisationRolled {
        /// Who.
        creature: CreatureId,
        /// The d100.
        roll: u32,
        /// Whether it became stable.
        stable: bool,
    },
    /// Hit points lost to something other than an attack.
    HitPointsLost {
        /// Whose.
        creature: CreatureId,
        /// How many.
        amount: i32,
        /// Why, with the rule.
        reason: String,
    },
    /// Hit points changed.
    HitPointsChanged {
        /// Whose.
        creature: CreatureId,
        /// Before.
        before: i32,
        /// After.
        after: i32,
        /// Nonlethal damage now.
        nonlethal: i32,
    },
    /// A condition began.
    ConditionGained {
        /// Who.
        creature: CreatureId,
        /// Which.
        condition: Condition,
    },
    /// A condition ended.
    ConditionLost {
        /// Who.
        creature: CreatureId,
        /// Which.
        condition: Condition,
    },
    /// The sides part: rounds in a row passed with no attack, spell, breath or wound (our ruling,
    /// docs/rulings.md); the fight ends with no winner.
    Parted {
        /// The quiet rounds.
        rounds: u32,
    },
    /// The fight is over: one faction alone can still act.
    EncounterEnded {
        /// The winning faction, if any is left.
        winner: Option<String>,
    },
    /// A creature readied an action (004:620-621).
    ActionReadied {
        /// Who.
        creature: CreatureId,
        /// The action set aside.
        action: String,
        /// What sets it off.
        trigger: String,
    },
    /// A readied action was set off and is taken now, just before its trigger (004:621-622).
    ReadiedActionTriggered {
        /// The readier.
        creature: CreatureId,
        /// The creature that set it off.
        by: CreatureId,
        /// The action.
        action: String,
    },
    /// A readied action was not set off before the readier's next turn and is lost (004:624).
    ReadyLapsed {
        /// The readier.
        creature: CreatureId,
    },
    /// A full-round action begun with a standard action, to be finished next round (004:86, 004:212).
    FullRoundActionBegun {
        /// Who.
        creature: CreatureId,
        /// The action.
        action: Action,
    },
    /// A condition imposed for some rounds: it ends just before this initiative count in `ends_round`
    /// (004:74).
    EffectBegun {
        /// On whom.
        creature: CreatureId,
        /// The condition.
        condition: Condition,
        /// For how many rounds.
        rounds: u32,
        /// The round it ends in.
        ends_round: u32,
    },
    /// The rest of a full attack given up for a move action (004:232).
    FullAttackGivenUp {
        /// Who.
        creature: CreatureId,
    },
    /// A creature used an item (the action on that line of the table of actions).
    ItemUsed {
        /// Who.
        creature: CreatureId,
        /// The item.
        item: String,
        /// The line of the table of actions (004:87-163).
        action_line: u32,
    },
    /// Hit points given back (004:284-296).
    Healed {
        /// Who.
        creature: CreatureId,
        /// What healed it.
        source: String,
        /// The dice.
        dice: Thrown,
        /// Hit points.
        amount: i32,
    },
    /// A creature began casting a spell (004:190-197): the moment a readied "starts casting" waits for.
    CastingBegun {
        /// Who casts.
        caster: CreatureId,
        /// The spell.
        spell: String,
        /// At whom.
        target: CreatureId,
        /// Cast defensively (004:197).
        defensively: bool,
    },
    /// A spell of several rounds takes the caster's whole turn again (004:236).
    CastingContinues {
        /// Who casts.
        caster: CreatureId,
        /// The spell.
        spell: String,
    },
    /// A spell takes effect.
    SpellTakesEffect {
        /// Who cast it.
        caster: CreatureId,
        /// The spell.
        spell: String,
        /// On whom.
        target: CreatureId,
    },
    /// A creature breathed its breath weapon: who it covered, the damage they save against, and the round
    /// it may breathe again.
    Breathed {
        /// Who.
        creature: CreatureId,
        /// Cone or line.
        shape: crate::rules::core::names::BreathShape,
        /// At whom it aimed.
        toward: CreatureId,
        /// Everyone it covered, the aim first.
        covered: Vec<CreatureId>,
        /// The damage, thrown once for all (each saves for half).
        dice: crate::rules::core::dice::Thrown,
        /// The Reflex DC.
        dc: i32,
        /// The round from which it may breathe again.
        ready_in_round: u32,
    },
    /// A flier took off (004:657-668).
    TookOff {
        /// Who.
        creature: CreatureId,
        /// Its altitude now.
        altitude_m: f32,
    },
    /// A flier landed (004:669-670).
    Landed {
        /// Who.
        creature: CreatureId,
    },
    /// A flier flew (004:671-786).
    Flew {
        /// Who.
        creature: CreatureId,
        /// From (north-west square).
        from: crate::rules::core::geometry::Square,
        /// To.
        to: crate::rules::core::geometry::Square,
        /// Its altitude now (at chase scale, the height our ruling gives its band).
        altitude_m: f32,
        /// Metres climbed (negative: dived).
        climbed_m: f32,
        /// Its altitude band now, at chase scale (004:788).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        band: Option<i32>,
        /// Its heading now.
        heading: crate::rules::core::geometry::Direction,
        /// Squares of movement spent: the declared speed.
        spent: u32,
        /// The status that gave.
        status: crate::rules::core::names::SpeedStatus,
        /// Manoeuvres used.
        maneuvers: u32,
    },
    /// A flier goes on with its flight after its flyby attack (004:755).
    FlybyResumed {
        /// Who.
        creature: CreatureId,
        /// Where it struck from.
        from: crate::rules::core::geometry::Square,
        /// Where its flight ends.
        to: crate::rules::core::geometry::Square,
    },
    /// A flier ran into a creature (004:825-852): the damage both take, before the save of the one struck.
    Collided {
        /// The flier.
        creature: CreatureId,
        /// What it hit.
        with: String,
        /// The dice.
        dice: crate::rules::core::dice::Thrown,
        /// The angle of impact.
        impact: String,
        /// Damage after the impact's multiplier.
        total: i32,
    },
    /// A flier fell (a stall, a free fall).
    Fell {
        /// Who.
        creature: CreatureId,
        /// Metres fallen.
        metres: f32,
        /// Its altitude now.
        altitude_m: f32,
        /// Why, with the rule.
        reason: String,
    },
    /// A feint landed (004:524): the target keeps no Dex bonus against the feinter's next melee attack.
    Feinted {
        /// Who feinted.
        feinter: CreatureId,
        /// Whom.
        target: CreatureId,
    },
    /// An attack of opportunity on a creature sharing another's space: the d% that says which it strikes
    /// (004:447).
    StrayRolled {
        /// Who attacks.
        attacker: CreatureId,
        /// The creature it struck at.
        meant: CreatureId,
        /// The one whose space it shares.
        other: CreatureId,
        /// The chance in percent that the other is struck.
        chance: u32,
        /// The d100.
        roll: u32,
        /// Whether the other is struck.
        strays: bool,
    },
    /// A turning check (004:544): 1d20 + Cha modifier, and the most Hit Dice it affects by the table.
    TurningChecked {
        /// Who turns.
        creature: CreatureId,
        /// The d20.
        roll: u32,
        /// The Charisma modifier.
        bonus: i32,
        /// Roll plus bonus.
        total: i32,
        /// The most Hit Dice affected (004:552-563).
        max_hit_dice: i32,
    },
    /// Turning damage (004:546): 2d6 + level + Cha modifier, the Hit Dice affected.
    TurningDamage {
        /// Who turns.
        creature: CreatureId,
        /// The two d6.
        faces: Vec<u32>,
        /// Level + Charisma modifier.
        bonus: i32,
        /// The Hit Dice affected.
        total: i32,
    },
    /// An undead turned, destroyed, rebuked or commanded (004:549-551, 004:564-566).
    UndeadTurned {
        /// Who turned it.
        creature: CreatureId,
        /// The undead.
        undead: CreatureId,
        /// What became of it.
        outcome: crate::rules::core::names::TurnOutcome,
    },
    /// A creature lost its weapon to a disarm (004:494): at its feet, or in the disarmer's hand.
    Disarmed {
        /// Who lost it.
        creature: CreatureId,
        /// Who took it.
        by: CreatureId,
        /// The weapon.
        weapon: String,
        /// Taken into the disarmer's hand (an unarmed disarm) rather than fallen.
        taken: bool,
        /// The square it fell on.
        at: Square,
    },
    /// A sunder's blow on a weapon (004:502): its damage, the weapon's hardness, the hit points it loses.
    WeaponStruck {
        /// Who struck.
        attacker: CreatureId,
        /// Whose weapon.
        creature: CreatureId,
        /// The weapon.
        weapon: String,
        /// The damage dice as they fell.
        faces: Vec<u32>,
        /// The damage.
        damage: i32,
        /// The weapon's hardness (004:505-523).
        hardness: u32,
        /// Hit points lost past the hardness.
        lost: u32,
    },
    /// A weapon's hit points after a sunder, and whether it broke or was destroyed.
    WeaponDamaged {
        /// Whose weapon.
        creature: CreatureId,
        /// The weapon.
        weapon: String,
        /// Hit points left.
        left: u32,
        /// Broken or destroyed, with the rule.
        state: Option<String>,
    },
    /// A creature lies in wait as the fight begins: its Hide, which each foe's Spot must reach (004:56-58).
    LyingInWait {
        /// Who.
        creature: CreatureId,
        /// The natural d20.
        roll: u32,
        /// Roll plus its Hide.
        total: i32,
    },
    /// A creature drew a weapon it had put away (004:218-219): a move action, or free with its move.
    Drew {
        /// Who.
        creature: CreatureId,
        /// The weapon.
        weapon: String,
        /// Drawn as a free action with a move (004:219).
        free: bool,
    },
    /// A poison weakened an ability (004:28).
    AbilityDamaged {
        /// Whose.
        creature: CreatureId,
        /// Which ability.
        ability: crate::rules::core::creature::Ability,
        /// The poison's dice as they fell.
        faces: Vec<u32>,
        /// The points taken (no lower than 0).
        amount: i32,
        /// The score now.
        score: i32,
        /// Whose poison.
        by: CreatureId,
    },
    /// Rest gave back weakened ability points (004:297).
    AbilityRestored {
        /// Whose.
        creature: CreatureId,
        /// Which ability.
        ability: crate::rules::core::creature::Ability,
        /// The points.
        amount: i32,
    },
    /// A creature prepared a splash weapon to throw, in hand (004:144).
    Prepared {
        /// Who.
        creature: CreatureId,
        /// The flask.
        weapon: String,
    },
    /// A creature loaded its crossbow (004:120, 004:137).
    Loaded {
        /// Who.
        creature: CreatureId,
        /// The crossbow.
        weapon: String,
        /// The table's line: 120 a move action, 137 a full-round one.
        line: u32,
    },
    /// A creature strapped its shield on (004:127, 004:221).
    ShieldReadied {
        /// Who.
        creature: CreatureId,
        /// The shield.
        shield: String,
        /// As a free action with a move (004:221).
        free: bool,
    },
    /// A creature loosed its shield, which fell on its square (004:127, 004:221).
    ShieldLoosed {
        /// Who.
        creature: CreatureId,
        /// The shield.
        shield: String,
        /// The square it fell on.
        at: Square,
        /// As a free action with a move (004:221).
        free: bool,
    },
    /// A creature put away a weapon it held (004:129, 004:218).
    PutAway {
        /// Who.
        creature: CreatureId,
        /// The weapon.
        weapon: String,
    },
    /// A weapon left a creature's hand for the ground: dropped (004:149, 004:254) or thrown (our ruling: it
    /// lies where it struck).
    Dropped {
        /// Whose it was.
        creature: CreatureId,
        /// The weapon.
        weapon: String,
        /// The square it lies on.
        at: Square,
        /// Thrown at a foe rather than let fall.
        thrown: bool,
    },
    /// A creature picked up a weapon from the ground (004:128).
    PickedUp {
        /// Who.
        creature: CreatureId,
        /// The weapon.
        weapon: String,
        /// The square it lay on.
        at: Square,
    },
    /// A hold made: the grappler moved into its foe's space, both grappling (004:582-587, 004:614).
    Grappled {
        /// The grappler.
        creature: CreatureId,
        /// Its foe.
        target: CreatureId,
        /// Its square before.
        from: Square,
        /// Its square now, in or around the foe's space.
        at: Square,
        /// It joined a grapple the foe was already in (004:614).
        joined: bool,
    },
    /// A splash weapon thrown at an intersection, against AC 5 (004:529).
    IntersectionAimed {
        /// The thrower.
        creature: CreatureId,
        /// The flask.
        weapon: String,
        /// The d20.
        roll: u32,
        /// Its terms.
        modifiers: Vec<crate::rules::core::creature::Modifier>,
        /// The total.
        total: i32,
        /// Whether it lands where aimed.
        hit: bool,
    },
    /// A splash weapon that missed scatters (004:530).
    SplashScattered {
        /// The thrower.
        creature: CreatureId,
        /// The flask.
        weapon: String,
        /// The d8 of the direction: 1 short, then clockwise.
        d8: u32,
        /// How many squares: the throw's range increment.
        squares: u32,
        /// Where it bursts (the north-west square of the space it bursts on).
        at: Square,
    },
    /// The water puts out the fire a creature burned with (004:635).
    FireDoused {
        /// Who burned.
        creature: CreatureId,
    },
    /// An overrun meets its foe, who blocks or avoids it (004:533).
    OverrunMet {
        /// The mover.
        creature: CreatureId,
        /// The foe.
        target: CreatureId,
        /// It blocks (else it avoids, and the mover goes through).
        blocks: bool,
    },
    /// Two creatures grapple each other no more.
    GrappleEnded {
        /// One.
        creature: CreatureId,
        /// The other.
        with: CreatureId,
        /// Why, with the rule.
        reason: String,
    },
    /// A creature moved by another's push, or pushing, or pushed back (a bull rush, 004:449-450).
    Pushed {
        /// Who moved.
        creature: CreatureId,
        /// Its square before.
        from: Square,
        /// Its square after.
        to: Square,
        /// Why, with the rule.
        reason: String,
    },
    /// An aid another landed (004:444): the ally's bonus against the foe, until the aider's next turn.
    AidGiven {
        /// Who aided.
        aider: CreatureId,
        /// Whom.
        ally: CreatureId,
        /// Against whom.
        foe: CreatureId,
        /// +2 on the ally's next attack, or +2 to its AC against the foe's next attack.
        kind: crate::rules::core::creature::AidKind,
    },
    /// A creature come down where it may not stand (on another creature, say) is placed on the nearest
    /// legal space (000:126-129).
    Displaced {
        /// Who.
        creature: CreatureId,
        /// Where it came down.
        from: Square,
        /// Where it is placed.
        to: Square,
        /// Why, with the rule.
        reason: String,
    },
    /// A rider or passenger took its share of its mount's collision (004:851-852).
    CollisionShared {
        /// Who.
        creature: CreatureId,
        /// Damage.
        total: i32,
    },
    /// A creature got on a mount (004:226, 004:654-655).
    Mounted {
        /// Who.
        creature: CreatureId,
        /// Onto whom.
        mount: CreatureId,
        /// A passenger rather than the rider.
        passenger: bool,
    },
    /// A passenger took the reins of its mount (004:822): into the free rider's seat, or changing places
    /// with the rider, who becomes a passenger.
    ReinsTaken {
        /// Who now rides and directs the mount.
        creature: CreatureId,
        /// The mount.
        mount: CreatureId,
        /// The rider it changed places with, if there was one.
        from: Option<CreatureId>,
        /// What it took: "5-foot step" or "move".
        action: String,
    },
    /// A creature got off its mount (004:226).
    Dismounted {
        /// Who.
        creature: CreatureId,
        /// Off whom.
        mount: CreatureId,
        /// Where it stands (north-west square).
        to: Square,
    },
    /// A rider knocked out on its mount stays in the saddle or slides off, 50% each (004:482).
    SaddleKept {
        /// Who.
        creature: CreatureId,
        /// On whom.
        mount: CreatureId,
        /// The d100 rolled.
        roll: u32,
        /// What keeps the seat: that or less, 50, or 75 in a military saddle.
        percent: u32,
        /// Whether it stays on.
        kept: bool,
        /// Where it lies if it fell (north-west square).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<Square>,
    },
    /// Falling damage on reaching the ground (RULES-INDEX: 1d6 per full 3 m, at most 20d6).
    FallingDamage {
        /// Who.
        creature: CreatureId,
        /// The dice.
        dice: crate::rules::core::dice::Thrown,
        /// Damage.
        total: i32,
    },
    /// Everyone rested once the fight was over (004:284-296).
    Rested {
        /// How long.
        hours: u32,
        /// In bed all day.
        bed_rest: bool,
    },
    /// A stabilised creature's roll to come to, each hour, or to begin recovering, each day (004:287-291).
    RecoveryRolled {
        /// Who.
        creature: CreatureId,
        /// The hour of rest.
        hour: u32,
        /// "wake" or "recover".
        check: String,
        /// The d100 (10 or less succeeds).
        roll: u32,
        /// Whether it did.
        success: bool,
    },
    /// Hit points or nonlethal damage healed by rest (004:293-294, 004:307).
    RestHealed {
        /// Who.
        creature: CreatureId,
        /// The hour of rest.
        hour: u32,
        /// How much.
        amount: i32,
        /// Nonlethal damage faded rather than hit points regained.
        nonlethal: bool,
        /// How, with the rule.
        reason: String,
    },
    /// A full-round action begun over two rounds and not finished the next round is lost (004:212).
    FullRoundActionLost {
        /// Who.
        creature: CreatureId,
        /// Which action.
        action: Action,
    },
    /// A spell lost before it took effect (004:193, 004:237).
    SpellLost {
        /// Who cast it.
        caster: CreatureId,
        /// The spell.
        spell: String,
        /// Why.
        reason: String,
    },
    /// A touch spell not delivered: its caster holds the charge (004:200).
    ChargeHeld {
        /// Who holds it.
        caster: CreatureId,
        /// The spell.
        spell: String,
    },
}

/// Every fact of the fight so far, in order.
#[derive(Resource, Clone, Debug, Default)]
pub struct EventLog(pub Vec<Fact>);

impl EventLog {
    /// The log as JSON lines.
    pub fn to_json_lines(&self) -> String {
        self.0.iter().map(|fact| serde_json::to_string(fact).expect("facts serialise") + "\n").collect()
    }
}

/// The creatures whose turns the facts not yet read began.
pub fn turns_started(facts: &mut MessageReader<Fact>) -> Vec<CreatureId> {
    facts
        .read()
        .filter_map(|f| match f {
            Fact::TurnStarted { creature, .. } => Some(creature.clone()),
            _ => None,
        })
        .collect()
}

/// The creatures whose place in the order came, to act ([`Fact::TurnStarted`]) or not able to
/// ([`Fact::TurnPassed`]), in the facts not read yet.
pub fn places_come(facts: &mut MessageReader<Fact>) -> Vec<CreatureId> {
    facts
        .read()
        .filter_map(|f| match f {
            Fact::TurnStarted { creature, .. } | Fact::TurnPassed { creature, .. } => Some(creature.clone()),
            _ => None,
        })
        .collect()
}

/// Writes that `id` was refused `action`, with the rule that forbids it.
pub fn refuse(
    facts: &mut MessageWriter<Fact>,
    id: &CreatureId,
    action: Action,
    refusal: crate::rules::core::refusal::Refusal,
) {
    facts.write(Fact::ActionRefused { creature: id.clone(), action, reason: refusal.reason, rule: refusal.rule });
}

/// Appends this update's facts to the log.
pub fn record_facts(mut facts: MessageReader<Fact>, mut log: ResMut<EventLog>) {
    log.0.extend(facts.read().cloned());
}

// The log's line for each fact, in the player's language, is the window's: `src/game/log.rs`.

/// Modifiers as a player reads them: "+5 base attack, +3 Str, -1 size".
pub fn describe_modifiers(modifiers: &[Modifier]) -> String {
    let parts: Vec<String> = modifiers
        .iter()
        .filter(|m| m.value != 0 || !m.source.is_empty())
        .map(|m| if m.value == 0 { m.source.clone() } else { format!("{:+} {}", m.value, m.source) })
        .collect();
    parts.join(", ")
}
