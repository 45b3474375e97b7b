//! The action bar and the keys: each action a player can choose, whether it may be taken now (or the rule
//! that forbids it), and what choosing it does.

use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

use crate::rules::command::Command;
use crate::rules::core::creature::*;
use crate::rules::core::geometry::Square;
use crate::rules::core::refusal::Refusal;
use crate::rules::movement::MovementAction;
use crate::rules::special::grapple::GrappleMove;
use crate::rules::special::turning::TurnKind;
use crate::rules::turns::FullAttackUnderway;
use crate::rules::turns::TurnOrder;

use super::previews::*;
use super::state::*;
use super::turn::*;

/// One entry of the action bar.
#[derive(Clone, Debug)]
pub struct BarAction {
    /// The key.
    pub key: KeyCode,
    /// The id of its name in the interface's languages (`assets/locales`).
    pub name: &'static str,
    /// The key, as the label shows it.
    pub keys: &'static str,
    /// What it does.
    pub kind: BarKind,
}

impl BarAction {
    /// The label the bar shows: the action's name in the interface's language and its key.
    pub fn label(&self) -> String {
        format!("{} [{}]", crate::locale::tr(self.name), self.keys)
    }
}

/// What an action-bar entry does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// Choose a click mode.
    Mode(Mode),
    /// Toggle fighting defensively.
    Defensively,
    /// A bull rush does not follow its push (004:449).
    Stay,
    /// Pick up a weapon lying on or next to its squares (004:128).
    PickUp,
    /// A grapple move with no foe to click: break a pin, escape, let go (004:600-614).
    GrappleNow(crate::rules::special::grapple::GrappleMove),
    /// Total defence now.
    TotalDefense,
    /// Stand up.
    StandUp,
    /// Drink a healing potion.
    Potion,
    /// Delay.
    Delay,
    /// A creature of the player's that delayed acts when this turn ends (004:629-631).
    ActNow,
    /// Drop prone, a free action (004:255).
    DropProne,
    /// End the turn.
    EndTurn,
    /// Show the foes' threatened squares.
    Threats,
    /// Cast mode, and the next spell each time.
    Cast,
    /// Get on an ally's back, or off one's mount.
    Ride,
    /// The next speed a flier in the air may declare (004:686-709).
    Speed,
    /// Hide from the pursuers after the flight (004:816-817).
    Hide,
    /// A passenger takes the reins of its mount (004:822).
    Reins,
    /// Take off (004:657-668).
    TakeOff,
    /// Land (004:669-670).
    Land,
}

/// The action bar, in order.
pub const BAR: &[BarAction] = &[
    BarAction {
        key: KeyCode::KeyM,
        name: "bar-move",
        keys: "M",
        kind: BarKind::Mode(Mode::Move(MovementAction::Move)),
    },
    BarAction { key: KeyCode::KeyA, name: "bar-attack", keys: "A", kind: BarKind::Mode(Mode::Attack) },
    BarAction { key: KeyCode::KeyF, name: "bar-full-attack", keys: "F", kind: BarKind::Mode(Mode::FullAttack) },
    BarAction { key: KeyCode::KeyC, name: "bar-charge", keys: "C", kind: BarKind::Mode(Mode::Charge) },
    BarAction { key: KeyCode::KeyR, name: "bar-run", keys: "R", kind: BarKind::Mode(Mode::Move(MovementAction::Run)) },
    BarAction {
        key: KeyCode::KeyW,
        name: "bar-withdraw",
        keys: "W",
        kind: BarKind::Mode(Mode::Move(MovementAction::Withdraw)),
    },
    BarAction {
        key: KeyCode::KeyS,
        name: "bar-five-foot-step",
        keys: "S",
        kind: BarKind::Mode(Mode::Move(MovementAction::FiveFootStep)),
    },
    BarAction {
        key: KeyCode::Comma,
        name: "bar-crawl",
        keys: ",",
        kind: BarKind::Mode(Mode::Move(MovementAction::Crawl)),
    },
    BarAction { key: KeyCode::KeyD, name: "bar-total-defence", keys: "D", kind: BarKind::TotalDefense },
    BarAction { key: KeyCode::KeyG, name: "bar-defensively", keys: "G", kind: BarKind::Defensively },
    BarAction { key: KeyCode::KeyU, name: "bar-stand-up", keys: "U", kind: BarKind::StandUp },
    BarAction { key: KeyCode::KeyP, name: "bar-potion", keys: "P", kind: BarKind::Potion },
    BarAction { key: KeyCode::KeyY, name: "bar-ready", keys: "Y", kind: BarKind::Mode(Mode::Ready) },
    BarAction { key: KeyCode::KeyK, name: "bar-cast", keys: "K", kind: BarKind::Cast },
    BarAction { key: KeyCode::KeyB, name: "bar-breathe", keys: "B", kind: BarKind::Mode(Mode::Breath) },
    BarAction { key: KeyCode::Semicolon, name: "bar-trip", keys: ";", kind: BarKind::Mode(Mode::Trip) },
    BarAction { key: KeyCode::Period, name: "bar-bull-rush", keys: ".", kind: BarKind::Mode(Mode::BullRush) },
    BarAction { key: KeyCode::Slash, name: "bar-rush-stay-put", keys: "/", kind: BarKind::Stay },
    BarAction {
        key: KeyCode::Backslash,
        name: "bar-turn-undead",
        keys: "\\",
        kind: BarKind::Mode(Mode::Turn(TurnKind::Turn)),
    },
    BarAction {
        key: KeyCode::Delete,
        name: "bar-dispel-turning",
        keys: "Del",
        kind: BarKind::Mode(Mode::Turn(TurnKind::Dispel)),
    },
    // Shift+\, read with the other Shift keys: F14 stands for no key of its own.
    BarAction { key: KeyCode::F14, name: "bar-release-undead", keys: "Shift+\\", kind: BarKind::Mode(Mode::Release) },
    BarAction {
        key: KeyCode::F2,
        name: "bar-bolster-undead",
        keys: "F2",
        kind: BarKind::Mode(Mode::Turn(TurnKind::Bolster)),
    },
    BarAction { key: KeyCode::Digit1, name: "bar-disarm", keys: "1", kind: BarKind::Mode(Mode::Disarm) },
    BarAction { key: KeyCode::F3, name: "bar-snatch-an-object", keys: "F3", kind: BarKind::Mode(Mode::Snatch) },
    BarAction { key: KeyCode::F4, name: "bar-sunder-a-shield", keys: "F4", kind: BarKind::Mode(Mode::SunderShield) },
    BarAction {
        key: KeyCode::F1,
        name: "bar-strike-a-carried-object",
        keys: "F1",
        kind: BarKind::Mode(Mode::SunderObject),
    },
    BarAction { key: KeyCode::F6, name: "bar-first-aid", keys: "F6", kind: BarKind::Mode(Mode::FirstAid) },
    BarAction { key: KeyCode::F7, name: "bar-delayed-acts-next", keys: "F7", kind: BarKind::ActNow },
    BarAction {
        key: KeyCode::F11,
        name: "bar-move-the-grapple",
        keys: "F11",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::Move)),
    },
    BarAction { key: KeyCode::F8, name: "bar-drop-prone", keys: "F8", kind: BarKind::DropProne },
    BarAction { key: KeyCode::F12, name: "bar-touch-held-spell", keys: "F12", kind: BarKind::Mode(Mode::Touch) },
    BarAction {
        key: KeyCode::F10,
        name: "bar-1-square-full-round",
        keys: "F10",
        kind: BarKind::Mode(Mode::Move(MovementAction::MinimumMovement)),
    },
    BarAction { key: KeyCode::Digit2, name: "bar-pick-up", keys: "2", kind: BarKind::PickUp },
    BarAction { key: KeyCode::Digit3, name: "bar-sunder", keys: "3", kind: BarKind::Mode(Mode::Sunder) },
    BarAction {
        key: KeyCode::Digit4,
        name: "bar-grapple",
        keys: "4",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::Grab)),
    },
    BarAction {
        key: KeyCode::Digit5,
        name: "bar-grapple-damage",
        keys: "5",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::Damage)),
    },
    BarAction {
        key: KeyCode::Digit6,
        name: "bar-grapple-lethal",
        keys: "6",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::LethalDamage)),
    },
    BarAction {
        key: KeyCode::Digit7,
        name: "bar-pin",
        keys: "7",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::Pin)),
    },
    BarAction { key: KeyCode::Digit8, name: "bar-escape", keys: "8", kind: BarKind::GrappleNow(GrappleMove::Escape) },
    BarAction {
        key: KeyCode::Digit9,
        name: "bar-escape-artist",
        keys: "9",
        kind: BarKind::GrappleNow(GrappleMove::EscapeArtist),
    },
    BarAction {
        key: KeyCode::Digit0,
        name: "bar-break-pin",
        keys: "0",
        kind: BarKind::GrappleNow(GrappleMove::BreakPin),
    },
    BarAction { key: KeyCode::Minus, name: "bar-let-go", keys: "-", kind: BarKind::GrappleNow(GrappleMove::Release) },
    // Shift+G, read with the other Shift keys: F13 stands for no key of its own.
    BarAction {
        key: KeyCode::F13,
        name: "bar-draw-light-weapon",
        keys: "Shift+G",
        kind: BarKind::GrappleNow(GrappleMove::DrawLight),
    },
    BarAction {
        key: KeyCode::End,
        name: "bar-free-an-ally",
        keys: "End",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::FreeAlly)),
    },
    BarAction {
        key: KeyCode::Insert,
        name: "bar-turn-its-weapon",
        keys: "Ins",
        kind: BarKind::Mode(Mode::Grapple(GrappleMove::TurnWeapon)),
    },
    BarAction { key: KeyCode::Equal, name: "bar-throw-a-flask", keys: "=", kind: BarKind::Mode(Mode::Throw) },
    BarAction { key: KeyCode::Quote, name: "bar-feint", keys: "'", kind: BarKind::Mode(Mode::Feint) },
    BarAction {
        key: KeyCode::BracketLeft,
        name: "bar-aid-2-attack",
        keys: "[",
        kind: BarKind::Mode(Mode::Aid(AidKind::Attack)),
    },
    BarAction {
        key: KeyCode::BracketRight,
        name: "bar-aid-2-ac",
        keys: "]",
        kind: BarKind::Mode(Mode::Aid(AidKind::Defense)),
    },
    BarAction { key: KeyCode::KeyN, name: "bar-mount-get-off", keys: "N", kind: BarKind::Ride },
    BarAction { key: KeyCode::KeyO, name: "bar-take-the-reins", keys: "O", kind: BarKind::Reins },
    BarAction { key: KeyCode::KeyV, name: "bar-declared-speed", keys: "V", kind: BarKind::Speed },
    BarAction { key: KeyCode::KeyH, name: "bar-flyby", keys: "H", kind: BarKind::Mode(Mode::Flyby) },
    BarAction { key: KeyCode::KeyX, name: "bar-collide", keys: "X", kind: BarKind::Mode(Mode::Ram) },
    BarAction { key: KeyCode::KeyJ, name: "bar-bluff", keys: "J", kind: BarKind::Mode(Mode::Bluff) },
    BarAction { key: KeyCode::KeyI, name: "bar-hide", keys: "I", kind: BarKind::Hide },
    BarAction { key: KeyCode::PageUp, name: "bar-take-off", keys: "PgUp", kind: BarKind::TakeOff },
    BarAction { key: KeyCode::PageDown, name: "bar-land", keys: "PgDn", kind: BarKind::Land },
    BarAction { key: KeyCode::Backquote, name: "bar-coup-de-grace", keys: "`", kind: BarKind::Mode(Mode::CoupDeGrace) },
    BarAction { key: KeyCode::Home, name: "bar-overrun", keys: "Home", kind: BarKind::Mode(Mode::Overrun) },
    BarAction { key: KeyCode::KeyL, name: "bar-delay", keys: "L", kind: BarKind::Delay },
    BarAction { key: KeyCode::KeyE, name: "bar-end-turn", keys: "E", kind: BarKind::EndTurn },
    BarAction { key: KeyCode::KeyT, name: "bar-threats", keys: "T", kind: BarKind::Threats },
];

/// The keys of the weapon selector and its toggles (`src/game/weapons.rs`), beside the bar's.
pub const SELECTOR_KEYS: &[&str] = &[
    "Shift+1", "Shift+2", "Shift+3", "Shift+4", "Shift+5", "Shift+6", "Shift+7", "Shift+8", "Shift+9", "Shift+P",
    "Shift+D", "Shift+L", "Shift+A", "Shift+N", "Shift+T", "Shift+S", "Shift+W", "Shift+O",
];

/// The rows of the table of actions in combat (004:89-163) the game offers, each with the key a player
/// presses for it: a key of the action bar ([`BAR`]'s labels) or of the weapon selector ([`SELECTOR_KEYS`]).
/// The rows not here are explained in docs/rulings.md, "The rows of the action table not offered"; a test
/// walks the table and fails on a row that is in neither.
pub const TABLE_KEYS: &[(u32, &str)] = &[
    (89, "A"),        // melee attack, with the weapon chosen
    (90, "A"),        // ranged attack: a bow, crossbow or thrown weapon chosen with Shift+digit
    (91, "A"),        // unarmed attack: the unarmed strike chosen with Shift+digit
    (94, "["),        // aid another: +2 on an ally's attack; "]" +2 to its AC
    (96, "P"),        // drink a potion
    (97, "."),        // bull rush
    (99, "3"),        // sunder a weapon
    (100, "F1"),      // sunder an object carried
    (101, "8"),       // escape a grapple; "9" by Escape Artist
    (102, "'"),       // feint
    (103, "K"),       // cast a spell
    (106, "Y"),       // ready
    (107, "F6"),      // first aid to a dying friend
    (108, "Home"),    // overrun
    (109, "\\"),      // turn or rebuke undead
    (111, "D"),       // total defence
    (114, "B"),       // a supernatural ability: the breath weapon
    (115, "I"),       // a skill of one action: Hide from pursuers; "J" Bluff in the air
    (118, "M"),       // move
    (120, "Shift+L"), // load a light or hand crossbow
    (121, "Shift+1"), // draw a weapon: choose one put away
    (124, "N"),       // mount or dismount
    (127, "Shift+S"), // ready or loose a shield
    (128, "2"),       // pick up an item
    (129, "Shift+P"), // sheathe a weapon
    (130, "U"),       // stand up
    (133, "F"),       // full attack
    (136, "C"),       // charge
    (137, "Shift+L"), // load a heavy crossbow
    (138, "R"),       // run
    (139, "`"),       // coup de grâce
    (142, "W"),       // withdraw
    (144, "Shift+L"), // prepare a splash weapon to throw
    (149, "Shift+D"), // drop an item
    (152, "F8"),      // drop to the floor
    (156, "S"),       // 5-foot step
    (157, "L"),       // delay
    (160, ";"),       // trip
    (161, "1"),       // disarm
    (162, "4"),       // grapple
    (163, "Shift+A"), // use a feat: Power Attack; "H" Flyby Attack
];

/// Whether taking off or landing could apply: the rules check the rest on the click (004:657-670).
/// How far above its space the take-off button rises: as many 1.5 m as `Q` has asked before it, with a
/// Jump check (004:659-668); none at chase scale, where a take-off reaches the lowest band (004:788).
pub fn takeoff_extra_m(world: &World) -> f32 {
    match world.resource::<crate::rules::core::battlefield::Battlefield>().scale() {
        crate::rules::core::altitude::Scale::Normal => world.resource::<Choice>().climb.max(0) as f32 * 1.5,
        crate::rules::core::altitude::Scale::Chase => 0.0,
    }
}

/// The take-off button's words: how high it rises and, above its space, the Jump check's DC and chance.
pub fn takeoff_hint(world: &World, me: Entity) -> String {
    let extra = takeoff_extra_m(world);
    if extra <= 0.0 {
        return crate::locale::tr("bar-take-off-hover");
    }
    let (Some(skills), Some(abilities), Some(speed)) =
        (world.get::<Skills>(me), world.get::<Abilities>(me), world.get::<Speed>(me))
    else {
        return crate::locale::tr("bar-take-off-hover");
    };
    match crate::rules::aerial::takeoff_jump_dc(extra) {
        Some(dc) => {
            let modifiers = world.get::<SpeedModifiers>(me).cloned().unwrap_or_default();
            let encumbrance = world.get::<Encumbrance>(me).copied().unwrap_or_default();
            let traits = world.get::<Traits>(me).cloned().unwrap_or_default();
            let bonus = crate::rules::aerial::takeoff_jump_bonus(
                skills,
                abilities,
                (speed, &modifiers),
                (encumbrance, &traits),
            );
            let chance = crate::rules::core::checks::check_chance(bonus, dc as i32);
            crate::tr!(
                "bar-take-off-higher-hover",
                m = extra.to_string(),
                dc = dc.to_string(),
                bonus = format!("{bonus:+}"),
                chance = format!("{:.0}", chance * 100.0)
            )
        }
        None => crate::locale::tr("bar-take-off-too-high-hover"),
    }
}

fn flight_bar_state(world: &World, me: Entity, kind: BarKind, conditions: &Conditions) -> Result<(), Refusal> {
    let aloft = world
        .get::<Altitude>(me)
        .zip(world.get::<Speed>(me))
        .is_some_and(|(a, s)| crate::rules::core::creature::flying(s, a.0));
    match (kind, world.get::<Speed>(me).and_then(|s| s.fly)) {
        (BarKind::Land, _) if aloft => Ok(()),
        (BarKind::Land, _) => Err(Refusal::new("it is on the ground", "004:669")),
        (_, None) => Err(Refusal::new("it cannot fly", "004:657")),
        (_, Some(_)) if aloft => Err(Refusal::new("it is already in the air", "004:657")),
        _ => crate::rules::core::creature::on_its_feet(conditions),
    }
}

/// Whether an action-bar entry can be used now, or the rule that forbids it.
/// Whether a move in a grapple is open: one aimed at a foe clicked needs an attack left, the others a foe
/// the rules find now.
fn grapple_state(world: &World, me: Entity, action: GrappleMove) -> Result<(), Refusal> {
    if !world.get::<Conditions>(me).is_some_and(|c| c.has(Condition::Grappling)) {
        return Err(Refusal::new("it is in no grapple", "004:592"));
    }
    match action {
        GrappleMove::Damage
        | GrappleMove::LethalDamage
        | GrappleMove::Pin
        | GrappleMove::FreeAlly
        | GrappleMove::TurnWeapon => crate::rules::special::attack_left(world, me),
        _ => crate::rules::special::grapple::move_now(world, me, action).map(|_| ()),
    }
}

/// Whether a use of channelled energy is open: a turner, negative energy for a dispelling or a bolstering
/// (004:567-570), its standard action.
fn turn_state(world: &World, me: Entity, kind: TurnKind) -> Result<(), Refusal> {
    let budget = world.get::<crate::rules::turns::ActionBudget>(me).copied().unwrap_or_default();
    match world.get::<crate::rules::special::turning::Turning>(me) {
        None => Err(Refusal::new("cannot turn undead: clerics and paladins can", "004:538")),
        Some(turning) => crate::rules::special::turning::energy_allows(turning, kind)
            .and_then(|()| budget.check(crate::rules::turns::ActionKind::Standard)),
    }
}

/// Whether a release is open: a cleric commanding undead (004:566), on its turn; a free action.
fn release_state(world: &World, me: Entity) -> Result<(), Refusal> {
    let mut commanded = world.try_query::<&crate::rules::special::turning::CommandedBy>();
    if commanded.as_mut().is_some_and(|q| q.iter(world).any(|c| c.cleric == me)) {
        Ok(())
    } else {
        Err(Refusal::new("it commands no undead", "004:566"))
    }
}

/// Standing up is a move action for a creature lying prone (004:225); dropping prone a free action for one
/// standing (004:255).
fn posture_state(
    (world, me): (&World, Entity),
    kind: BarKind,
    conditions: &Conditions,
    budget: &crate::rules::turns::ActionBudget,
) -> Result<(), Refusal> {
    match (kind, conditions.has(Condition::Prone)) {
        (BarKind::StandUp, true) => budget.check(crate::rules::turns::ActionKind::Move),
        (BarKind::StandUp, false) => Err(Refusal::new("standing already", "004:225")),
        (_, true) => Err(Refusal::new("lying prone already", "004:255")),
        // Ground to lie on: the rule's own check (004:255).
        (_, false) => {
            let speed = world.get::<crate::rules::core::creature::Speed>(me).copied().unwrap_or_default();
            let altitude = world.get::<crate::rules::core::creature::Altitude>(me).map_or(0, |a| a.0);
            let riding = world.get::<crate::rules::core::creature::Riding>(me).is_some();
            crate::rules::attack::ground_under((&speed, altitude), riding)
        }
    }
}

/// Whether `me` may delay, the budgets of all who act in its turn asked (004:629, 004:474).
fn delay_state(world: &World, me: Entity) -> Result<(), Refusal> {
    let order = world.resource::<crate::rules::turns::TurnOrder>();
    let party = order.acting.iter().filter_map(|e| world.get::<crate::rules::turns::ActionBudget>(*e));
    crate::rules::turns::check_delay(order, me, party)
}

/// The creatures beside the one whose turn it is, within its reach on the board (height aside): the
/// foes a manoeuvre could take now, the allies it could tend.
#[derive(Default)]
pub struct Near {
    foes: Vec<Entity>,
    allies: Vec<Entity>,
}

impl Near {
    /// Who stands within `me`'s reach now.
    pub fn of(world: &World, me: Entity) -> Self {
        let mut near = Near::default();
        let (Some(faction), Some(position), Some(space)) =
            (world.get::<Faction>(me), world.get::<Position>(me), world.get::<Space>(me))
        else {
            return near;
        };
        let reach = world.get::<Reach>(me).map_or(1, |r| r.0.max(1));
        let diagonals = world.resource::<crate::rules::core::battlefield::Battlefield>().diagonals();
        let own = space.at(position.0);
        let Some(mut q) =
            world.try_query_filtered::<(Entity, &Faction, &Position, &Space, &Conditions), With<Creature>>()
        else {
            return near;
        };
        for (e, f, p, s, c) in q.iter(world) {
            if e == me || c.has(Condition::Dead) || own.distance_to(s.at(p.0), diagonals) > reach {
                continue;
            }
            if f == faction { near.allies.push(e) } else { near.foes.push(e) }
        }
        near
    }
}

/// Whether an action that applies by the rules is worth a button now, when the bar shows only what reads at
/// a glance: a manoeuvre needs a foe within reach (one with a shield, one carrying an object, a helpless
/// one, as it asks), first aid a dying ally beside it. The keys and the bar's "every action" still reach
/// them all, and the rules answer a click as ever.
pub fn worth_a_button(world: &World, near: &Near, kind: BarKind) -> bool {
    let conditions = |e: Entity| world.get::<Conditions>(e).cloned().unwrap_or_default();
    let foe_with = |has: &dyn Fn(Entity) -> bool| near.foes.iter().any(|e| has(*e));
    match kind {
        BarKind::Mode(
            Mode::Trip
            | Mode::Disarm
            | Mode::Sunder
            | Mode::Feint
            | Mode::Grapple(GrappleMove::Grab)
            | Mode::Aid(_)
            | Mode::BullRush,
        )
        | BarKind::Stay => near.foes.iter().any(|e| !conditions(*e).is_helpless()),
        // One square for a full round is for ground a move action cannot pay for (000:139-144, 004:252).
        BarKind::Mode(Mode::Move(MovementAction::MinimumMovement)) => {
            bar_state(world, BarKind::Mode(Mode::Move(MovementAction::Move))).is_err()
        }
        BarKind::Mode(Mode::SunderShield) => {
            foe_with(&|e| world.get::<crate::rules::core::creature::Shield>(e).is_some_and(|s| s.bonus > 0))
        }
        BarKind::Mode(Mode::Snatch | Mode::SunderObject) => foe_with(&|e| {
            let armament = world.get::<Armament>(e).cloned().unwrap_or_default();
            !crate::rules::special::disarm::carried_objects(world.get::<Items>(e), &armament).is_empty()
        }),
        BarKind::Mode(Mode::CoupDeGrace) => foe_with(&|e| conditions(e).is_helpless()),
        BarKind::Mode(Mode::FirstAid) => near.allies.iter().any(|e| conditions(*e).has(Condition::Dying)),
        _ => true,
    }
}

/// Whether a movement action is open now, as the previews found it; the minimum movement is a full-round
/// action (004:252), or one standard action a round for a creature restricted to one (004:86), whatever
/// squares the preview has.
fn movement_open(
    previews: &Previews,
    budget: &crate::rules::turns::ActionBudget,
    action: MovementAction,
) -> Result<(), Refusal> {
    let found = previews.options.open.iter().find(|(a, _)| *a == action);
    found.map_or(Ok(()), |(_, r)| r.clone().map(|_| ()))?;
    match action {
        MovementAction::MinimumMovement => budget.check_full_round_or_one_action(),
        _ => Ok(()),
    }
}

/// Whether a bar action applies now, or the rule that refuses it.
pub fn bar_state(world: &World, kind: BarKind) -> Result<(), Refusal> {
    use crate::rules::turns::{ActionBudget, ActionKind};
    if kind == BarKind::Threats {
        return Ok(());
    }
    let Some(me) = human_turn(world) else {
        // Between the AI's turns a delaying creature may act (004:629-631).
        let delayed = (kind == BarKind::ActNow).then(|| super::turn::delayed_of_the_player(world).map(|_| ()));
        return delayed.unwrap_or_else(|| Err(Refusal::new("not the turn of a creature you play", "004:73")));
    };
    let budget = world.get::<ActionBudget>(me).copied().unwrap_or_default();
    let conditions = world.get::<Conditions>(me).cloned().unwrap_or_default();
    let previews = world.resource::<Previews>();
    let open = |action: MovementAction| movement_open(previews, &budget, action);
    match kind {
        BarKind::Mode(Mode::Move(action)) => open(action),
        BarKind::Mode(Mode::Charge) => open(MovementAction::Charge),
        BarKind::Mode(Mode::Breath) => match world.get::<crate::rules::breath::Breath>(me) {
            None => Err(Refusal::new("has no breath weapon", "data")),
            Some(b) => b
                .ready(world.resource::<TurnOrder>().round)
                .and_then(|()| crate::rules::core::creature::not_pinned(&conditions))
                .and_then(|()| crate::rules::core::creature::out_of_grapple(&conditions, "breath weapon"))
                .and_then(|()| budget.check(ActionKind::Standard)),
        },
        // In place of an attack: the standard action's, or a blow of the full attack under way (004:483,
        // 004:490, 004:499, 004:579).
        BarKind::Mode(
            Mode::Trip
            | Mode::Disarm
            | Mode::Snatch
            | Mode::Sunder
            | Mode::SunderShield
            | Mode::SunderObject
            | Mode::Grapple(GrappleMove::Grab),
        ) => crate::rules::special::attack_left(world, me),
        // Pinned, it readies a spell or nothing (004:595, 004:614), as the rules ask.
        BarKind::Mode(Mode::Ready) if castable(world, me).is_empty() => {
            crate::rules::core::creature::not_pinned(&conditions).and_then(|()| budget.check(ActionKind::Standard))
        }
        BarKind::Mode(Mode::Feint) => budget.check(crate::rules::special::feint::feint_action_of(world, me)),
        BarKind::Mode(Mode::Throw)
            if !world.get::<Armament>(me).is_some_and(|a| a.0.iter().any(|w| w.splash.is_some())) =>
        {
            Err(Refusal::new("it carries no splash weapon", "004:528"))
        }
        BarKind::Mode(Mode::Attack | Mode::Ready | Mode::Aid(_) | Mode::FirstAid | Mode::Throw)
        | BarKind::TotalDefense
        | BarKind::Defensively => budget.check(ActionKind::Standard),
        BarKind::Mode(Mode::Grapple(action)) | BarKind::GrappleNow(action) => grapple_state(world, me, action),
        BarKind::PickUp => {
            let intent = crate::rules::attack::gear::PickUpIntent { creature: me, weapon: None };
            crate::rules::attack::gear::check_pick_up(world, &intent).map(|_| ())
        }
        BarKind::Mode(Mode::Turn(kind)) => turn_state(world, me, kind),
        BarKind::Mode(Mode::Release) => release_state(world, me),
        // Standing next to its foe, or charging to it (004:446, 004:458).
        BarKind::Mode(Mode::BullRush) | BarKind::Stay => {
            budget.check(ActionKind::Standard).or_else(|_| budget.check(ActionKind::FullRound))
        }
        BarKind::Mode(Mode::FullAttack) if world.get::<FullAttackUnderway>(me).is_some() => Ok(()),
        BarKind::Mode(Mode::FullAttack) => budget.check_full_round(),
        BarKind::Mode(Mode::Auto | Mode::Cast) | BarKind::EndTurn | BarKind::Threats => Ok(()),
        BarKind::Delay => delay_state(world, me),
        BarKind::StandUp | BarKind::DropProne => posture_state((world, me), kind, &conditions, &budget),
        BarKind::ActNow => super::turn::delayed_of_the_player(world).map(|_| ()),
        // The casting's own touch in its round costs no action more (004:198).
        BarKind::Mode(Mode::Touch) => match world.get::<crate::rules::magic::HeldCharge>(me) {
            held @ Some(_) if crate::rules::magic::casting_touch(world.resource::<TurnOrder>(), held) => Ok(()),
            Some(_) => budget.check(ActionKind::Standard),
            None => Err(Refusal::new("it holds no charge of a touch spell", "004:200")),
        },
        BarKind::Potion => match first_potion(world, me) {
            Some(_) => {
                crate::rules::core::creature::not_pinned(&conditions).and_then(|()| budget.check(ActionKind::Standard))
            }
            None => Err(Refusal::new("carries no healing potion", "004:96")),
        },
        // Getting on or off is movement (004:259); one gets on on its feet, out of a grapple (004:591), as
        // the rules ask.
        BarKind::Ride => {
            let riding = world.get::<crate::rules::core::creature::Riding>(me).is_some();
            if riding || mount_beside(world, me).is_some() {
                let afoot = if riding { Ok(()) } else { crate::rules::core::creature::on_its_feet(&conditions) };
                afoot.and_then(|()| budget.check(ActionKind::Move)).and_then(|()| budget.check_movement())
            } else {
                Err(Refusal::new("no ally larger than it next to it to get on", "004:226"))
            }
        }
        BarKind::Speed | BarKind::Mode(Mode::Ram | Mode::Bluff) => in_flight(world),
        BarKind::Hide => crate::rules::aerial::pursuit::hide_allowed(world, me),
        BarKind::Reins => crate::rules::mounted::reins_allowed(world, me).map(|_| ()),
        BarKind::TakeOff | BarKind::Land => flight_bar_state(world, me, kind, &conditions),
        BarKind::Mode(Mode::Overrun) => overrun_state(world, me, &budget),
        BarKind::Mode(Mode::CoupDeGrace) => budget
            .check_full_round()
            .or_else(|refusal| if budget.restricted { budget.check(ActionKind::Standard) } else { Err(refusal) }),
        BarKind::Mode(Mode::Flyby) => in_flight(world).and_then(|()| budget.check(ActionKind::Standard)),
        BarKind::Cast => {
            if castable(world, me).is_empty() {
                Err(Refusal::new("knows no spell it can still cast", "004:190"))
            } else {
                budget.check(ActionKind::Standard)
            }
        }
    }
}

/// Whether the creature whose turn it is flies and has its flight still to fly.
fn in_flight(world: &World) -> Result<(), Refusal> {
    if world.resource::<Previews>().flights.is_some() {
        Ok(())
    } else {
        Err(Refusal::new("not a flier in the air with its flight still to fly", "004:686"))
    }
}

/// The spells a creature can still cast, in its order.
pub fn castable(world: &World, creature: Entity) -> Vec<String> {
    world
        .get::<crate::rules::magic::Spellcasting>(creature)
        .map_or(Vec::new(), |m| m.castable().map(|s| s.name.clone()).collect())
}

/// The first healing item a creature carries.
pub fn first_potion(world: &World, creature: Entity) -> Option<String> {
    world.get::<Items>(creature)?.0.iter().find(|i| i.heal.is_some()).map(|i| i.name.clone())
}

/// Whether the overrun mode applies: during a move, one to take or the one that brought the creature next to
/// its foe (004:531), as the rules ask it.
fn overrun_state(world: &World, me: Entity, budget: &crate::rules::turns::ActionBudget) -> Result<(), Refusal> {
    use crate::rules::special::overrun::{MovedSoFar, during_a_move};
    let round = world.resource::<TurnOrder>().round;
    let moved = MovedSoFar::of(world.get::<crate::rules::turns::moving::Travelled>(me), round);
    during_a_move(budget, moved).map(|_| ())
}

/// Carries out an action-bar entry for the active creature.
pub fn use_bar(world: &mut World, kind: BarKind) {
    if kind == BarKind::Threats {
        let mut choice = world.resource_mut::<Choice>();
        choice.show_threats = !choice.show_threats;
        return;
    }
    if kind == BarKind::ActNow
        && human_turn(world).is_none()
        && let Ok(delayed) = super::turn::delayed_of_the_player(world)
    {
        super::turn::act_now_between_turns(world, delayed);
        return;
    }
    let Some(me) = human_turn(world) else { return };
    let creature = id_of(world, me);
    if world.resource::<Choice>().mode == Mode::Ready && choose_readied(world, me, kind) {
        return;
    }
    let step = match kind {
        BarKind::Mode(mode) => {
            let mut choice = world.resource_mut::<Choice>();
            choice.mode = if choice.mode == mode { Mode::Auto } else { mode };
            choice.flyby = None;
            choice.bluff = None;
            choice.readying = None;
            return;
        }
        BarKind::Defensively => {
            let mut choice = world.resource_mut::<Choice>();
            choice.defensively = !choice.defensively;
            return;
        }
        BarKind::Stay => {
            let mut choice = world.resource_mut::<Choice>();
            choice.stay = !choice.stay;
            return;
        }
        BarKind::TotalDefense => Command::TotalDefense { creature },
        BarKind::PickUp => Command::PickUp { creature, weapon: None },
        BarKind::GrappleNow(action) => Command::Grapple { creature, target: None, action, to: None },
        BarKind::StandUp => Command::StandUp { creature },
        BarKind::Potion => match first_potion(world, me) {
            Some(item) => Command::UseItem { creature, item },
            None => return,
        },
        BarKind::Delay => Command::Delay { creature },
        BarKind::DropProne => Command::DropProne { creature },
        BarKind::ActNow => match super::turn::delayed_of_the_player(world) {
            Ok(delayed) => Command::Resume { creature: delayed },
            Err(_) => return,
        },
        BarKind::Hide => Command::Hide { creature },
        BarKind::Reins => Command::TakeReins { creature },
        BarKind::TakeOff => Command::TakeOff { creature, extra_m: takeoff_extra_m(world) },
        BarKind::Land => Command::Land { creature },
        BarKind::EndTurn => Command::EndTurn { creature },
        BarKind::Ride => match ride_step(world, me, false) {
            Some(step) => step,
            None => return,
        },
        BarKind::Threats => return,
        BarKind::Speed => {
            let speeds = declarable(world, flier_of(world, me));
            let mut choice = world.resource_mut::<Choice>();
            let now = (choice.speed, choice.decelerate);
            let next = speeds.iter().position(|s| *s == now).map_or(0, |i| (i + 1) % speeds.len());
            (choice.speed, choice.decelerate) = speeds[next];
            choice.flyby = None;
            return;
        }
        BarKind::Cast => {
            // Each press goes to the next spell, then back to no mode.
            let spells = castable(world, me);
            let mut choice = world.resource_mut::<Choice>();
            let next = match (&choice.mode, &choice.spell) {
                (Mode::Cast, Some(now)) => spells.iter().position(|s| s == now).and_then(|i| spells.get(i + 1)),
                _ => spells.first(),
            };
            match next {
                Some(spell) => {
                    choice.mode = Mode::Cast;
                    choice.spell = Some(spell.clone());
                }
                None => {
                    choice.mode = Mode::Auto;
                    choice.spell = None;
                }
            }
            return;
        }
    };
    // An action that provokes where it stands, or an end of turn with actions left, waits for a second press.
    let why = match kind {
        BarKind::EndTurn => super::declare::why_ending(world, me),
        kind => provokes_in_place(kind).and_then(|rule| super::declare::why_in_place(world, rule)),
    };
    if super::declare::submit(world, vec![step], why) {
        *world.resource_mut::<Choice>() = Choice { show_threats: world.resource::<Choice>().show_threats, ..default() };
    }
}

/// In ready mode, the bar's total defence, stand up, potion, cast and move choose the action to ready
/// instead of taking it (004:621); whether `kind` was one of them.
fn choose_readied(world: &mut World, me: Entity, kind: BarKind) -> bool {
    use crate::rules::turns::ready::ReadiedAction;
    let readying = match kind {
        BarKind::TotalDefense => Readying::Action(ReadiedAction::TotalDefense),
        BarKind::StandUp => Readying::Action(ReadiedAction::StandUp),
        BarKind::DropProne => Readying::Action(ReadiedAction::DropProne),
        BarKind::Potion => match first_potion(world, me) {
            Some(item) => Readying::Action(ReadiedAction::UseItem { item }),
            None => return false,
        },
        BarKind::Cast => {
            // Each press goes to the next spell, then back to an attack.
            let spells = castable(world, me);
            let now = match &world.resource::<Choice>().readying {
                Some(Readying::Action(ReadiedAction::Cast { spell, .. })) => Some(spell.clone()),
                _ => None,
            };
            let next = match now {
                Some(now) => spells.iter().position(|s| *s == now).and_then(|i| spells.get(i + 1)),
                None => spells.first(),
            };
            let mut choice = world.resource_mut::<Choice>();
            choice.readying =
                next.map(|spell| Readying::Action(ReadiedAction::Cast { spell: spell.clone(), target: None }));
            return true;
        }
        BarKind::Mode(Mode::Move(MovementAction::Move)) => Readying::MoveTo(None),
        _ => return false,
    };
    let mut choice = world.resource_mut::<Choice>();
    choice.readying = if choice.readying.as_ref() == Some(&readying) { None } else { Some(readying) };
    true
}

/// An action-bar entry's key pressed: the action if it applies, else why not, as its greyed button says.
fn press(world: &mut World, kind: BarKind, label: String) {
    match bar_state(world, kind) {
        Ok(()) => use_bar(world, kind),
        Err(refusal) => {
            let words = format!("{label}: {}", super::rules_words::refusal_full(&refusal));
            world.insert_resource(Notice(Some((false, words))));
        }
    }
}

/// The rule by which a bar action provokes where its doer stands, for those that do: drinking a potion
/// (004:96), standing up (004:225), picking up an item (004:128).
pub fn provokes_in_place(kind: BarKind) -> Option<&'static str> {
    match kind {
        BarKind::Potion => Some("004:96"),
        BarKind::StandUp => Some("004:225"),
        BarKind::PickUp => Some("004:128"),
        _ => None,
    }
}

/// Keyboard shortcuts of the action bar; Escape clears the mode and waypoints, Backspace the last waypoint.
pub(super) fn keys(world: &mut World) {
    if world.get_resource::<EguiWantsInput>().is_some_and(|w| w.wants_any_keyboard_input())
        || world.get_resource::<super::turn::HandOver>().is_some_and(|h| h.to.is_some())
    {
        return;
    }
    let input = world.resource::<ButtonInput<KeyCode>>();
    let shift = input.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let pressed: Vec<KeyCode> = input.get_just_pressed().copied().collect();
    for key in pressed {
        // Shift and a digit chooses a weapon, Shift+P puts it away, Shift+D drops it (004:218); Shift+N
        // switches the blows to the other kind of damage (004:173, 004:302).
        if shift {
            use crate::rules::attack::gear::Handle;
            match key {
                KeyCode::KeyP => super::weapons::handle_chosen(world, Handle::PutAway),
                KeyCode::KeyD => super::weapons::handle_chosen(world, Handle::Drop),
                KeyCode::KeyL => super::weapons::handle_chosen(world, Handle::Load),
                KeyCode::KeyS => super::weapons::handle_shield(world),
                KeyCode::KeyN => {
                    let mut choice = world.resource_mut::<Choice>();
                    choice.other_damage = !choice.other_damage;
                }
                KeyCode::KeyT => {
                    let mut choice = world.resource_mut::<Choice>();
                    choice.tumble = !choice.tumble;
                }
                KeyCode::KeyA => super::weapons::next_power(world),
                // Getting on or off quickly, a free action on a Ride check DC 20 (004:227).
                KeyCode::KeyM => {
                    if let Some(me) = human_turn(world)
                        && let Some(step) = ride_step(world, me, true)
                    {
                        world.resource_mut::<super::state::Pending>().0.push_back(step);
                    }
                }
                KeyCode::KeyW => super::weapons::switch_two_weapons(world),
                KeyCode::KeyO => super::weapons::switch_opportunity_choice(world),
                KeyCode::KeyG => {
                    let draw = BarKind::GrappleNow(GrappleMove::DrawLight);
                    press(world, draw, crate::locale::tr("bar-draw-light-weapon"));
                }
                KeyCode::Backslash => {
                    press(world, BarKind::Mode(Mode::Release), crate::locale::tr("bar-release-undead"));
                }
                _ => {
                    if let Some(i) = super::input::DIGITS[..9].iter().position(|d| *d == key) {
                        super::weapons::choose(world, i + 1);
                    }
                }
            }
            continue;
        }
        if let Some(entry) = BAR.iter().find(|b| b.key == key) {
            press(world, entry.kind, entry.label());
            continue;
        }
        match key {
            KeyCode::Backspace => {
                world.resource_mut::<Choice>().waypoints.pop();
            }
            // Escape takes back an action declared first, else clears the mode and the waypoints.
            KeyCode::Escape if super::declare::take_back(world) => {}
            KeyCode::Escape => {
                let mut choice = world.resource_mut::<Choice>();
                choice.waypoints.clear();
                choice.readying = None;
                choice.flyby = None;
                choice.bluff = None;
                choice.mode = Mode::Auto;
            }
            KeyCode::KeyQ | KeyCode::KeyZ => {
                // At chase scale a flight climbs or dives one band at most (004:749).
                let most = match world.resource::<crate::rules::core::battlefield::Battlefield>().scale() {
                    crate::rules::core::altitude::Scale::Chase => 1,
                    crate::rules::core::altitude::Scale::Normal => i32::MAX,
                };
                let change = if key == KeyCode::KeyQ { 1 } else { -1 };
                let mut choice = world.resource_mut::<Choice>();
                choice.climb = (choice.climb + change).clamp(-most, most);
                choice.flyby = None;
            }
            KeyCode::Tab => {
                // The next of the party acting together (004:653-655).
                let order = world.resource::<TurnOrder>();
                let party = order.acting.clone();
                let turn = (order.round, order.place_holder());
                let now = human_turn(world);
                if let Some(i) = now.and_then(|n| party.iter().position(|e| *e == n)) {
                    let next = party[(i + 1) % party.len()];
                    world.insert_resource(Commanded { who: Some(next), turn });
                    world.insert_resource(Selected(Some(next)));
                }
            }
            KeyCode::F5 => super::save::save_and_tell(world),
            KeyCode::F9 => super::save::load_or_tell(world),
            // Enter confirms an action declared, else ends the turn (asked first when actions are left).
            KeyCode::Enter if super::declare::confirm(world) => {}
            KeyCode::Enter => {
                if let Some(me) = human_turn(world) {
                    let creature = id_of(world, me);
                    let why = super::declare::why_ending(world, me);
                    super::declare::submit(world, vec![Command::EndTurn { creature }], why);
                }
            }
            _ => {}
        }
    }
}

/// The step that gets `me` on an ally next to it, or off its mount onto the first free square beside it
/// (004:226): what `N` does; `fast`, on a Ride check DC 20 as a free action (004:227): what `Shift+M` does.
/// `None` when there is no mount to get on.
pub fn ride_step(world: &mut World, me: Entity, fast: bool) -> Option<Command> {
    let creature = id_of(world, me);
    if let Some(riding) = world.get::<crate::rules::core::creature::Riding>(me).copied() {
        let mount = riding.0;
        let (position, space) = (world.get::<Position>(mount)?.0, *world.get::<Space>(mount)?);
        let at = space.at(position);
        let mut around: Vec<Square> = (at.origin.y - 1..=at.origin.y + at.height)
            .flat_map(|y| (at.origin.x - 1..=at.origin.x + at.width).map(move |x| Square::new(x, y)))
            .filter(|s| !at.contains(*s))
            .filter(|s| {
                crate::rules::mounted::ground_to_stand_on(
                    world.resource::<crate::rules::core::battlefield::Battlefield>(),
                    *s,
                )
            })
            .collect();
        around.sort_by_key(|s| (s.y, s.x));
        let free = around.into_iter().find(|s| creature_at(world, *s).is_none())?;
        return Some(Command::Dismount { creature, to: free, fast });
    }
    let mount = mount_beside(world, me)?;
    Some(Command::Mount { creature, mount: id_of(world, mount), fast })
}

/// The ally `me` could get on now, if any ([`crate::rules::mounted::mount_beside`] over the roster).
fn mount_beside(world: &World, me: Entity) -> Option<Entity> {
    let roster = world.get_resource::<crate::rules::core::creature::Roster>()?;
    crate::rules::mounted::mount_beside(world, me, roster.0.values().copied())
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, keys.in_set(super::ViewSystems::Input).run_if(in_state(super::state::AppState::Battle)));
}
