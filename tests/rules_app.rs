//! The rules chapters in a headless app (MinimalPlugins and the rules, never the renderer): intents in,
//! components and facts out. Ambiguity detection is an error, so two rules systems touching the same
//! data without an order fail here.

use bevy::ecs::schedule::{LogLevel, ScheduleBuildSettings};
use bevy::prelude::*;

use estoc::data::{Content, load_level};
use estoc::encounter::{begin, headless_app, spawn_encounter};
use estoc::rules::core::creature::Roster;
use estoc::rules::core::creature::{Condition, Conditions, HitPoints, Position};
use estoc::rules::core::facts::{EventLog, Fact};
use estoc::rules::core::geometry::Square;
use estoc::rules::movement::MovementAction;
use estoc::rules::turns::moving::MoveIntent;
use estoc::rules::turns::{EndTurnIntent, TurnOrder};

fn app_on(level: &str, dice: &[u32]) -> App {
    app_under(level, dice, estoc::rules::core::battlefield::HouseRules::default())
}

/// [`app_on`] with the table's house rules set as a scenario sets them.
fn app_under(level: &str, dice: &[u32], house: estoc::rules::core::battlefield::HouseRules) -> App {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(level);
    let mut encounter = load_level(&path, &content).unwrap();
    encounter.battlefield.set_house_rules(house);
    let mut app = headless_app();
    app.edit_schedule(estoc::rules::Rules, |schedule| {
        schedule.set_build_settings(ScheduleBuildSettings { ambiguity_detection: LogLevel::Error, ..default() });
    });
    spawn_encounter(app.world_mut(), &encounter, 5, dice);
    begin(app.world_mut(), &encounter.name, 5);
    app.update();
    app
}

fn entity(app: &App, id: &str) -> Entity {
    app.world().resource::<Roster>().get(id).unwrap()
}

fn facts(app: &App) -> Vec<Fact> {
    app.world().resource::<EventLog>().0.clone()
}

#[test]
fn initiative_starts_the_first_turn_and_everyone_is_flat_footed_until_theirs() {
    let app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    let order = app.world().resource::<TurnOrder>();
    let fighter = entity(&app, "fighter");
    assert_eq!(order.current_entity(), Some(fighter));
    assert_eq!(order.round, 1);
    let archer = entity(&app, "archer");
    assert!(app.world().get::<Conditions>(archer).unwrap().has(Condition::FlatFooted));
    assert!(!app.world().get::<Conditions>(fighter).unwrap().has(Condition::FlatFooted));
}

#[test]
fn a_move_intent_moves_the_creature_and_a_refused_one_changes_nothing() {
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    let fighter = entity(&app, "fighter");
    let goblin = entity(&app, "goblin");
    app.world_mut().write_message(MoveIntent {
        creature: goblin,
        target: None,
        action: MovementAction::Move,
        to: Square::new(5, 2),
        path: None,
        readied: false,
        finish: Default::default(),
        tumble: false,
        weapon: None,
    });
    app.update();
    assert_eq!(app.world().get::<Position>(goblin).unwrap().0, Square::new(3, 2), "not its turn: nothing moved");
    app.world_mut().write_message(MoveIntent {
        creature: fighter,
        target: None,
        action: MovementAction::Move,
        to: Square::new(2, 5),
        path: None,
        readied: false,
        finish: Default::default(),
        tumble: false,
        weapon: None,
    });
    app.update();
    assert_eq!(app.world().get::<Position>(fighter).unwrap().0, Square::new(2, 5));
    let entered = facts(&app).iter().filter(|f| matches!(f, Fact::SquareEntered { .. })).count();
    assert_eq!(entered, 3);
    // A second move action, then nothing is left for a third.
    app.world_mut().write_message(MoveIntent {
        creature: fighter,
        target: None,
        action: MovementAction::Move,
        to: Square::new(2, 6),
        path: None,
        readied: false,
        finish: Default::default(),
        tumble: false,
        weapon: None,
    });
    app.world_mut().write_message(MoveIntent {
        creature: fighter,
        target: None,
        action: MovementAction::Move,
        to: Square::new(3, 6),
        path: None,
        readied: false,
        finish: Default::default(),
        tumble: false,
        weapon: None,
    });
    app.update();
    assert_eq!(app.world().get::<Position>(fighter).unwrap().0, Square::new(2, 6));
    assert!(matches!(facts(&app).last(), Some(Fact::ActionRefused { rule, .. }) if rule == "004:76"));
}

#[test]
fn turns_go_round_in_initiative_order() {
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    for id in ["fighter", "archer", "goblin"] {
        let e = entity(&app, id);
        assert_eq!(app.world().resource::<TurnOrder>().current_entity(), Some(e), "{id}'s turn");
        app.world_mut().write_message(EndTurnIntent { creature: e });
        app.update();
    }
    let order = app.world().resource::<TurnOrder>();
    assert_eq!(order.round, 2);
    assert_eq!(order.current_entity(), Some(entity(&app, "fighter")));
    let hp = app.world().get::<HitPoints>(entity(&app, "goblin")).unwrap();
    assert_eq!(hp.current, hp.max);
}

fn force(app: &mut App, dice: &[u32]) {
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force(dice.iter().copied());
}

/// The attack chapter's plugin: an attack intent is rolled against the AC and its damage taken.
#[test]
fn the_attack_plugin_rolls_an_attack_and_its_damage_comes_off() {
    use estoc::rules::attack::AttackIntent;
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    let (fighter, goblin) = (entity(&app, "fighter"), entity(&app, "goblin"));
    let before = app.world().get::<HitPoints>(goblin).unwrap().current;
    force(&mut app, &[17, 3]);
    app.world_mut().write_message(AttackIntent::new(fighter, goblin, None));
    app.update();
    let dealt = facts(&app).iter().find_map(|f| match f {
        Fact::DamageDealt { total, .. } => Some(*total),
        _ => None,
    });
    assert_eq!(dealt, Some(3 + 3), "1d8 showing 3, +3 Str");
    assert_eq!(app.world().get::<HitPoints>(goblin).unwrap().current, before - 6);
}

/// The attacks-of-opportunity plugin: a foe leaving the fighter's reach is struck on the way.
#[test]
fn the_opportunity_plugin_strikes_a_foe_leaving_reach() {
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    for id in ["fighter", "archer"] {
        let e = entity(&app, id);
        app.world_mut().write_message(EndTurnIntent { creature: e });
        app.update();
    }
    let goblin = entity(&app, "goblin");
    force(&mut app, &[2]);
    app.world_mut().write_message(MoveIntent {
        creature: goblin,
        target: None,
        action: MovementAction::Move,
        to: Square::new(6, 2),
        path: None,
        readied: false,
        finish: Default::default(),
        tumble: false,
        weapon: None,
    });
    app.update();
    assert!(facts(&app).iter().any(|f| matches!(f, Fact::OpportunityProvoked { by, .. } if by.0 == "fighter")));
    assert!(
        facts(&app)
            .iter()
            .any(|f| matches!(f, Fact::AttackRolled { attacker, roll: 2, .. } if attacker.0 == "fighter"))
    );
}

/// The health plugin: damage to exactly 0 disables, more makes the creature dying (004:269-278).
#[test]
fn the_health_plugin_disables_at_zero_and_makes_dying_below() {
    use estoc::rules::attack::Damage;
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    let goblin = entity(&app, "goblin");
    let hp = app.world().get::<HitPoints>(goblin).unwrap().current;
    app.world_mut().write_message(Damage { target: goblin, amount: hp, nonlethal: false, from_one_attack: true });
    app.update();
    assert!(app.world().get::<Conditions>(goblin).unwrap().has(Condition::Disabled));
    app.world_mut().write_message(Damage { target: goblin, amount: 2, nonlethal: false, from_one_attack: true });
    app.update();
    let conditions = app.world().get::<Conditions>(goblin).unwrap();
    assert!(
        conditions.has(Condition::Dying)
            && conditions.has(Condition::Unconscious)
            && !conditions.has(Condition::Disabled)
    );
}

/// The magic plugin: a cast intent casts, and the missiles' damage comes off.
#[test]
fn the_magic_plugin_casts_a_spell() {
    use estoc::rules::magic::CastIntent;
    let mut app = app_on("tests/scenarios/levels/spells.ron", &[1, 2, 20, 10]);
    let (wizard, orc) = (entity(&app, "wizard"), entity(&app, "orc"));
    let orc_turn = app.world().resource::<TurnOrder>().current_entity();
    assert_eq!(orc_turn, Some(orc));
    app.world_mut().write_message(EndTurnIntent { creature: orc });
    app.update();
    force(&mut app, &[15, 2, 3]);
    app.world_mut().write_message(CastIntent {
        caster: wizard,
        spell: "magic missile".into(),
        target: orc,
        defensively: true,
        readied: false,
        between_moves: false,
    });
    app.update();
    let all = facts(&app);
    assert!(all.iter().any(|f| matches!(f, Fact::SpellTakesEffect { spell, .. } if spell == "magic missile")));
    assert_eq!(app.world().get::<HitPoints>(orc).unwrap().current, 6 - (3 + 4));
}

/// A failed save against massive damage kills whatever the hit points (004:272), and the death is written
/// as every death is: the hit points to -10, logged, then dead.
#[test]
fn massive_damage_that_kills_is_logged_004_272() {
    use estoc::rules::attack::Damage;
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    let fighter = entity(&app, "fighter");
    *app.world_mut().get_mut::<HitPoints>(fighter).unwrap() = HitPoints::full(200);
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([1]);
    let before = facts(&app).len();
    app.world_mut().write_message(Damage { target: fighter, amount: 60, nonlethal: false, from_one_attack: true });
    app.update();
    let new: Vec<Fact> = facts(&app)[before..].to_vec();
    let hp = |f: &Fact| match f {
        Fact::HitPointsChanged { before, after, .. } => Some((*before, *after)),
        _ => None,
    };
    let changes: Vec<(i32, i32)> = new.iter().filter_map(hp).collect();
    assert_eq!(changes, vec![(200, 140), (140, -10)], "{new:?}");
    let save = new.iter().position(|f| matches!(f, Fact::SaveRolled { dc: 15, success: false, .. }));
    let second = new.iter().position(|f| hp(f) == Some((140, -10)));
    let dead = new.iter().position(|f| matches!(f, Fact::ConditionGained { condition: Condition::Dead, .. }));
    assert!(save.is_some() && save < second && second < dead, "{new:?}");
    assert_eq!(app.world().get::<HitPoints>(fighter).unwrap().current, -10);
}

/// Massive damage is that of one attack (« une attaque si terrible », 004:272): 60 points from a fall call
/// for no save (our ruling).
#[test]
fn a_fall_of_sixty_points_is_no_massive_damage() {
    use estoc::rules::attack::Damage;
    let mut app = app_on("tests/scenarios/levels/duel.ron", &[5, 20, 1]);
    let fighter = entity(&app, "fighter");
    *app.world_mut().get_mut::<HitPoints>(fighter).unwrap() = HitPoints::full(200);
    let before = facts(&app).len();
    app.world_mut().write_message(Damage { target: fighter, amount: 60, nonlethal: false, from_one_attack: false });
    app.update();
    let new: Vec<Fact> = facts(&app)[before..].to_vec();
    assert!(!new.iter().any(|f| matches!(f, Fact::SaveRolled { .. })), "{new:?}");
    assert_eq!(app.world().get::<HitPoints>(fighter).unwrap().current, 140);
}

/// The AI in a grapple with its light weapon put away draws it by a grapple check (004:599), then stabs with
/// it at -4 (004:594), the same rules the player's bar uses.
#[test]
fn the_ai_draws_a_light_weapon_in_a_grapple_and_stabs_with_it() {
    use estoc::rules::command::{Command, perform};
    use estoc::rules::special::grapple::GrappleMove;
    let mut app = app_on("tests/scenarios/levels/grapple_draw.ron", &[2, 20]);
    let orc = entity(&app, "orc");
    let grab = Command::Grapple {
        creature: "orc".into(),
        target: Some("fighter".into()),
        action: GrappleMove::Grab,
        to: None,
    };
    force(&mut app, &[15, 18, 2]);
    perform(app.world_mut(), &grab).unwrap();
    perform(app.world_mut(), &Command::Drop { creature: "orc".into(), weapon: "falchion".into() }).unwrap();
    perform(app.world_mut(), &Command::EndTurn { creature: "orc".into() }).unwrap();
    perform(app.world_mut(), &Command::EndTurn { creature: "fighter".into() }).unwrap();
    let first = estoc::ai::next_step(app.world_mut(), orc);
    assert!(
        matches!(first, Command::Grapple { action: GrappleMove::DrawLight, .. }),
        "the orc draws its dagger first: {first:?}"
    );
    force(&mut app, &[19, 1]);
    perform(app.world_mut(), &first).unwrap();
    assert!(facts(&app).iter().any(|f| matches!(f, Fact::Drew { weapon, .. } if weapon == "dagger")));
    let second = estoc::ai::next_step(app.world_mut(), orc);
    assert!(
        matches!(&second, Command::Attack { weapon: Some(w), .. } if w == "dagger"),
        "then stabs with it: {second:?}"
    );
}

/// The AI's halberdier says first that its attacks of opportunity weigh each trip (004:483, 004:489); then,
/// weighing, it strikes an orc its guisarme would likely drop (a hit in four on 8 or better, 9 damage on
/// average against 6 hit points), and trips a hardier orc charging past it, whose move stops where it falls.
#[test]
fn the_ai_weighs_a_trip_in_place_of_its_attack_of_opportunity() {
    use estoc::rules::attack::manoeuvre::OpportunityChoice;
    use estoc::rules::command::{Command, perform};
    let charge = Command::Charge {
        creature: "orc".into(),
        target: "halberdier".into(),
        to: None,
        finish: estoc::rules::turns::moving::ChargeFinish::Attack,
        weapon: None,
    };
    for (orc_hit_points, trips, dice) in [(6, false, [12, 4, 4]), (30, true, [12, 15, 5])] {
        let mut app = app_on("tests/scenarios/levels/trip_charger.ron", &[20, 1]);
        let (halberdier, orc) = (entity(&app, "halberdier"), entity(&app, "orc"));
        let first = estoc::ai::next_step(app.world_mut(), halberdier);
        assert_eq!(
            first,
            Command::AttacksOfOpportunity { creature: "halberdier".into(), choice: OpportunityChoice::Weigh }
        );
        perform(app.world_mut(), &first).unwrap();
        assert_eq!(app.world().get::<OpportunityChoice>(halberdier), Some(&OpportunityChoice::Weigh));
        let second = estoc::ai::next_step(app.world_mut(), halberdier);
        assert!(!matches!(second, Command::AttacksOfOpportunity { .. }), "said once: {second:?}");
        perform(app.world_mut(), &Command::EndTurn { creature: "halberdier".into() }).unwrap();
        let mut hp = app.world_mut().get_mut::<HitPoints>(orc).unwrap();
        (hp.current, hp.max) = (orc_hit_points, orc_hit_points);
        force(&mut app, &dice);
        perform(app.world_mut(), &charge).unwrap();
        let log = facts(&app);
        let tripped =
            log.iter().any(|f| matches!(f, Fact::Opposed { creature, won: true, .. } if creature.0 == "halberdier"));
        let struck = log.iter().any(|f| matches!(f, Fact::DamageDealt { attacker, .. } if attacker.0 == "halberdier"));
        assert_eq!((tripped, struck), (trips, !trips), "orc with {orc_hit_points} hit points");
        // Struck down, it collapses prone (004:305): only a standing orc tells a trip from a blow.
        let conditions = app.world().get::<Conditions>(orc).unwrap();
        let (prone, knocked_out) = (conditions.has(Condition::Prone), conditions.has(Condition::Unconscious));
        assert_eq!(prone, trips || knocked_out);
        if trips {
            let at = app.world().get::<Position>(orc).unwrap().0;
            assert_eq!(at, Square::new(4, 1), "a tripped charger stops where it falls");
        }
    }
}

/// An evil priest of level 4 commanding three skeletons (3 Hit Dice of its 4) sees a zombie of 2 Hit Dice
/// come within 18 m, which its level overwhelms (4 = twice 2, 004:564) but which would not fit under its command.
/// One skeleton has gone off behind, farther than the zombie: the AI releases it (004:566), then rebukes,
/// nearest first (004:542): the zombie is commanded, the skeleton, now a foe, only rebuked. A skeleton
/// nearer than the zombie is not released: the rebuke would take it back first.
#[test]
fn the_ai_releases_a_weak_undead_to_command_a_stronger_one() {
    use estoc::rules::command::{Command, perform};
    use estoc::rules::core::names::TurnOutcome;
    let mut app = app_on("tests/scenarios/levels/command_release.ron", &[20, 4, 3, 2, 1]);
    let priest = entity(&app, "priest");
    app.world_mut().get_mut::<estoc::rules::special::turning::Turning>(priest).unwrap().level = 4;
    let turn = Command::TurnUndead { creature: "priest".into(), kind: estoc::rules::special::turning::TurnKind::Turn };
    force(&mut app, &[15, 6, 6]);
    perform(app.world_mut(), &turn).unwrap();
    let walk = |creature: &str, x, y| Command::Move {
        creature: creature.into(),
        to: Square::new(x, y),
        action: MovementAction::Move,
        path: None,
    };
    perform(app.world_mut(), &Command::EndTurn { creature: "priest".into() }).unwrap();
    perform(app.world_mut(), &walk("skeleton-1", 0, 0)).unwrap();
    for id in ["skeleton-1", "skeleton-2", "skeleton-3"] {
        perform(app.world_mut(), &Command::EndTurn { creature: id.into() }).unwrap();
    }
    perform(app.world_mut(), &walk("zombie", 13, 4)).unwrap();
    perform(app.world_mut(), &Command::EndTurn { creature: "zombie".into() }).unwrap();
    let step = estoc::ai::next_step(app.world_mut(), priest);
    assert_eq!(step, Command::Release { creature: "priest".into(), undead: "skeleton-1".into() });
    perform(app.world_mut(), &step).unwrap();
    force(&mut app, &[15, 6, 6]);
    let next = estoc::ai::next_step(app.world_mut(), priest);
    assert_eq!(next, turn, "then it rebukes");
    perform(app.world_mut(), &next).unwrap();
    let commanded = |undead: &str| {
        facts(&app).iter().any(
            |f| matches!(f, Fact::UndeadTurned { undead: u, outcome: TurnOutcome::Commanded, .. } if u.0 == undead),
        )
    };
    assert!(commanded("zombie"), "the zombie fits once the skeleton is released");
    let at = app.world().get::<Position>(entity(&app, "skeleton-1")).unwrap().0;
    assert_eq!(at, Square::new(0, 0), "the skeleton went off behind");
}

/// A bull rush into a pit (004:446-449; our ruling in docs/rulings.md). The fighter's orc stands two squares
/// from the well: the push reaches it only on a win by 5 (Str +3 against +3). The guard's orc has the well
/// behind it: any win drops it in, and the AI, seeing it, rushes. At the bottom the orc is out of the fight:
/// no attack reaches it, and it takes no turn.
#[test]
fn a_foe_pushed_into_a_pit_is_out_of_the_fight() {
    use estoc::rules::command::{Command, perform};
    use estoc::rules::core::checks::contest_chance;
    let mut app = app_on("tests/scenarios/levels/bull_rush_pit.ron", &[20, 19, 1, 2]);
    let (fighter, guard, orc, orc_2) =
        (entity(&app, "fighter"), entity(&app, "guard"), entity(&app, "orc"), entity(&app, "orc-2"));
    let far = estoc::preview::bull_rush_preview(app.world_mut(), fighter, orc, false).unwrap();
    let way: Vec<Square> = far.plan.pushes.iter().map(|f| f.origin).collect();
    assert_eq!(way, [Square::new(5, 2), Square::new(6, 2)]);
    assert!(far.plan.into_pit);
    assert_eq!(far.plan.pit_chance(), Some(contest_chance(3 - 5, 3)));
    let staying = estoc::preview::bull_rush_preview(app.world_mut(), fighter, orc, true).unwrap();
    assert_eq!(staying.plan.pit_chance(), None, "not following, it pushes 1.5 m: to the lip only");
    // Having walked 5 of its 6 squares, it follows one step only: the push ends at the lip, not in the well.
    let travelled = estoc::rules::turns::moving::Travelled { round: 1, squares: 5, distance: 5, speed: 6, moves: 1 };
    app.world_mut().entity_mut(fighter).insert(travelled);
    let tired = estoc::preview::bull_rush_preview(app.world_mut(), fighter, orc, false).unwrap();
    assert!(!tired.plan.into_pit && tired.plan.pit_chance().is_none(), "{:?}", tired.plan.pushes);
    assert_eq!(tired.plan.pushes.len(), 1);
    app.world_mut().entity_mut(fighter).insert(estoc::rules::turns::moving::Travelled::default());
    perform(app.world_mut(), &Command::EndTurn { creature: "fighter".into() }).unwrap();
    let near = estoc::preview::bull_rush_preview(app.world_mut(), guard, orc_2, false).unwrap();
    assert_eq!(near.plan.pit_chance(), Some(near.chance), "the well is its first 1.5 m");
    let step = estoc::ai::next_step(app.world_mut(), guard);
    assert_eq!(step, Command::BullRush { creature: "guard".into(), target: "orc-2".into(), stay: false });
    force(&mut app, &[15, 2, 1, 2]);
    perform(app.world_mut(), &step).unwrap();
    let conditions = app.world().get::<Conditions>(orc_2).unwrap();
    assert!(conditions.has(Condition::InPit) && conditions.has(Condition::Prone));
    assert_eq!(app.world().get::<HitPoints>(orc_2).unwrap().current, 6 - 3, "2d6 for 6 m");
    // Not its turn: a readied attack, which skips the turn check.
    let request = estoc::rules::attack::AttackRequest { readied: true, ..Default::default() };
    let refused = estoc::preview::attack_preview(app.world_mut(), fighter, orc_2, request);
    assert_eq!(refused.err().map(|r| r.rule), Some("docs/rulings.md".into()));
    perform(app.world_mut(), &Command::EndTurn { creature: "guard".into() }).unwrap();
    let next = app.world().resource::<TurnOrder>().current_entity();
    assert_eq!(next, Some(orc), "the orc in the well takes no turn");
}

/// The AI's disarmer (Improved Disarm, a greatsword: +9 against the falchion's +8, 004:493) weighs its
/// attacks of opportunity (004:490): an orc the blow would likely drop is struck; a hardier one loses its
/// falchion, at the square it leaves, and walks on without it.
#[test]
fn the_ai_weighs_a_disarm_in_place_of_its_attack_of_opportunity() {
    use estoc::rules::attack::manoeuvre::OpportunityChoice;
    use estoc::rules::command::{Command, perform};
    for (orc_hit_points, disarms, dice) in [(3, false, [15, 8]), (30, true, [18, 2])] {
        let mut app = app_on("tests/scenarios/levels/gear_by_opportunity.ron", &[1, 20, 1]);
        let (disarmer, orc) = (entity(&app, "disarmer"), entity(&app, "orc"));
        app.world_mut().resource_mut::<estoc::rules::core::facts::EventLog>().0.clear();
        let first = estoc::ai::next_step(app.world_mut(), disarmer);
        assert_eq!(
            first,
            Command::AttacksOfOpportunity { creature: "disarmer".into(), choice: OpportunityChoice::Weigh }
        );
        perform(app.world_mut(), &first).unwrap();
        perform(app.world_mut(), &Command::EndTurn { creature: "disarmer".into() }).unwrap();
        perform(app.world_mut(), &Command::EndTurn { creature: "breaker".into() }).unwrap();
        let mut hp = app.world_mut().get_mut::<HitPoints>(orc).unwrap();
        (hp.current, hp.max) = (orc_hit_points, orc_hit_points);
        force(&mut app, &dice);
        // The breaker stands aside; the orc walks east past the disarmer.
        let breaker = entity(&app, "breaker");
        app.world_mut().get_mut::<Position>(breaker).unwrap().0 = Square::new(0, 4);
        let path = (2..=7).map(|x| Square::new(x, 2)).collect();
        let walk = Command::Move {
            creature: "orc".into(),
            to: Square::new(7, 2),
            action: MovementAction::Move,
            path: Some(path),
        };
        perform(app.world_mut(), &walk).unwrap();
        let log = facts(&app);
        let disarmed = log.iter().any(|f| matches!(f, Fact::Disarmed { by, .. } if by.0 == "disarmer"));
        let struck = log.iter().any(|f| matches!(f, Fact::AttackRolled { attacker, .. } if attacker.0 == "disarmer"));
        assert_eq!((disarmed, struck), (disarms, !disarms), "orc with {orc_hit_points} hit points: {log:?}");
        let holds = app
            .world()
            .get::<estoc::rules::core::creature::Armament>(orc)
            .unwrap()
            .0
            .iter()
            .any(|w| w.name == "falchion");
        assert_eq!(holds, !disarms);
    }
}

/// The AI overruns a foe screening a caster (004:531-535): the orc beside the goblin, the wizard beyond it.
/// The goblin, Small (-4), steps aside; the orc goes through to the square beyond and its move goes on to
/// the wizard, whom it then strikes with the standard action the avoided overrun left it (004:533).
#[test]
fn the_ai_overruns_a_foe_screening_a_caster() {
    use estoc::rules::command::{Command, perform};
    // Initiative in id order: dwarf 1, goblin 1, orc 20, wizard 1: the orc first.
    let mut app = app_on("tests/scenarios/levels/overrun_screen.ron", &[1, 1, 20, 1]);
    let orc = entity(&app, "orc");
    let first = estoc::ai::next_step(app.world_mut(), orc);
    assert_eq!(first, Command::Overrun { creature: "orc".into(), target: "goblin".into() });
    perform(app.world_mut(), &first).unwrap();
    assert_eq!(app.world().get::<Position>(orc).unwrap().0, Square::new(4, 2), "through the goblin's space");
    let second = estoc::ai::next_step(app.world_mut(), orc);
    let Command::Move { to, action: MovementAction::Move, .. } = second else { panic!("the move goes on: {second:?}") };
    assert!(to.x == 6 && (1..=3).contains(&to.y), "next to the wizard: {to:?}");
    perform(app.world_mut(), &second).unwrap();
    let third = estoc::ai::next_step(app.world_mut(), orc);
    assert!(matches!(&third, Command::Attack { target, .. } if target.0 == "wizard"), "{third:?}");
}

/// The AI weighs the attacks of opportunity an overrun's passage provokes (004:65): with a second goblin
/// beside it as well, leaving its square would let two foes strike, and the orc does not overrun.
#[test]
fn the_ai_overruns_no_screen_when_two_foes_would_strike() {
    use estoc::rules::command::{Command, perform};
    // Initiative in id order: dwarf 1, goblin 20, goblin2 19, orc 15, wizard 1: the goblins first, so that
    // they are no longer flat-footed (004:54) when the orc acts.
    let mut app = app_on("tests/scenarios/levels/overrun_screen_guarded.ron", &[1, 20, 19, 15, 1]);
    for goblin in ["goblin", "goblin2"] {
        perform(app.world_mut(), &Command::EndTurn { creature: goblin.into() }).unwrap();
    }
    let orc = entity(&app, "orc");
    let order = app.world().resource::<estoc::rules::turns::TurnOrder>();
    assert!(order.is_acting(orc), "{:?}", order.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>());
    let first = estoc::ai::next_step(app.world_mut(), orc);
    assert!(!matches!(first, Command::Overrun { .. }), "{first:?}");
}

/// The AI overruns a foe screening an archer as it does one screening a caster: the orc goes through the
/// goblin, on to the elf archer (its longbow in hand) and strikes it.
#[test]
fn the_ai_overruns_a_foe_screening_an_archer() {
    use estoc::rules::command::{Command, perform};
    // Initiative in id order: dwarf 1, goblin 1, orc 20, archer 1: the orc first.
    let mut app = app_on("tests/scenarios/levels/overrun_screen_archer.ron", &[1, 1, 20, 1]);
    let orc = entity(&app, "orc");
    let first = estoc::ai::next_step(app.world_mut(), orc);
    assert_eq!(first, Command::Overrun { creature: "orc".into(), target: "goblin".into() });
    perform(app.world_mut(), &first).unwrap();
    let second = estoc::ai::next_step(app.world_mut(), orc);
    let Command::Move { to, action: MovementAction::Move, .. } = second else { panic!("the move goes on: {second:?}") };
    assert!(to.x == 6 && (1..=3).contains(&to.y), "next to the archer: {to:?}");
    perform(app.world_mut(), &second).unwrap();
    let third = estoc::ai::next_step(app.world_mut(), orc);
    assert!(matches!(&third, Command::Attack { target, .. } if target.0 == "wizard"), "{third:?}");
}

/// The overrun's passage is counted against the speed the creature's moves have (004:531): an orc in medium
/// armour walks 6 m (4 squares, 000:11-12), so after 3 squares the 2 of the passage are too many; unarmoured,
/// its 9 m allow them.
#[test]
fn an_overrun_passage_counts_against_the_speed_in_armour() {
    use estoc::rules::core::creature::{ArmorCategory, Encumbrance};
    for (armour, allowed) in [(ArmorCategory::None, true), (ArmorCategory::Medium, false)] {
        let mut app = app_on("tests/scenarios/levels/overrun_screen.ron", &[1, 1, 20, 1]);
        let (orc, goblin) = (entity(&app, "orc"), entity(&app, "goblin"));
        app.world_mut().get_mut::<Encumbrance>(orc).unwrap().armor = armour;
        let walked = estoc::rules::turns::moving::Travelled { round: 1, squares: 3, distance: 3, speed: 6, moves: 1 };
        app.world_mut().entity_mut(orc).insert(walked);
        let plan = estoc::rules::special::overrun::overrun_in(app.world_mut(), orc, goblin);
        assert_eq!(plan.is_ok(), allowed, "{armour:?}: {plan:?}");
    }
}

/// The diagonal house rule (every diagonal one square, against 1-2-1-2, 000:59-61) as the game's previews
/// and the AI's searches see it: the move preview's cost and action, the attack preview's range increment
/// (004:174), the squares a foe's reach weapon threatens (004:63), the AI's view of a foe's reach. The same
/// level played under the house rule is tests/scenarios/house_single_diagonals.ron.
#[test]
fn diagonals_count_as_the_table_plays_them() {
    use estoc::rules::core::battlefield::HouseRules;
    use estoc::rules::core::geometry::Diagonals;
    for (diagonals, walk, range_penalty, threatened) in [
        (Diagonals::Alternating, (MovementAction::DoubleMove, 9), Some(-2), false),
        (Diagonals::Single, (MovementAction::Move, 6), None, true),
    ] {
        let house = HouseRules { diagonals, ..HouseRules::default() };
        let mut app = app_under("tests/scenarios/levels/diagonals.ron", &[20, 1, 5, 15], house);
        let (archer, goblin, fighter) = (entity(&app, "archer"), entity(&app, "goblin"), entity(&app, "fighter"));
        // Six diagonals north-east.
        let options = estoc::preview::move_options(app.world_mut(), archer);
        assert_eq!(options.at(Square::new(7, 16)), Some(walk), "{diagonals:?}");
        // Twenty diagonals to the goblin: 30 m or 45 m against the longbow's 30 m increment.
        let request = estoc::rules::attack::AttackRequest::default();
        let preview = estoc::preview::attack_preview(app.world_mut(), archer, goblin, request).unwrap();
        let range = preview.plan.modifiers.iter().find(|m| m.source.starts_with("range")).map(|m| m.value);
        assert_eq!(range, range_penalty, "{diagonals:?}");
        // The fighter four diagonals from the ogre's space: within its longspear's 4 squares only if each
        // diagonal is one.
        let squares = estoc::game::previews::foes_threatened(app.world_mut(), fighter);
        assert_eq!(squares.contains(&Square::new(15, 15)), threatened, "{diagonals:?}");
        assert!(!squares.contains(&Square::new(16, 16)), "five diagonals away: out of reach either way");
    }
}

/// A creature in a grapple casts a spell with no gestures only by a Concentration check, DC 20 + the spell's
/// level (004:595): the wizard the orc holds casts magic missile (its gestures taken off for the test: every
/// spell of the catalogue has some), and keeps it on a high roll, loses it on a low one.
#[test]
fn a_spell_cast_in_a_grapple_takes_a_concentration_check_004_595() {
    use estoc::rules::command::{Command, perform};
    use estoc::rules::core::checks::Check;
    use estoc::rules::magic::Spellcasting;
    use estoc::rules::special::grapple::GrappleMove;
    for (roll, kept) in [(20, true), (1, false)] {
        let mut app = app_on("tests/scenarios/levels/spells.ron", &[1, 2, 20, 10]);
        let wizard = entity(&app, "wizard");
        for spell in &mut app.world_mut().get_mut::<Spellcasting>(wizard).unwrap().spells {
            spell.def.somatic = false;
        }
        force(&mut app, &[19, 18, 2]);
        let grab = Command::Grapple {
            creature: "orc".into(),
            target: Some("wizard".into()),
            action: GrappleMove::Grab,
            to: None,
        };
        perform(app.world_mut(), &grab).unwrap();
        assert!(app.world().get::<Conditions>(wizard).unwrap().has(Condition::Grappling));
        perform(app.world_mut(), &Command::EndTurn { creature: "orc".into() }).unwrap();
        force(&mut app, &[roll]);
        let cast = Command::Cast {
            creature: "wizard".into(),
            spell: "magic missile".into(),
            target: Some("orc".into()),
            defensively: false,
            between_moves: false,
        };
        perform(app.world_mut(), &cast).unwrap();
        let all = facts(&app);
        let check = all.iter().find_map(|f| match f {
            Fact::CheckRolled { check: Check::Concentration, dc, success, reason, .. } => {
                Some((*dc, *success, reason.clone()))
            }
            _ => None,
        });
        assert_eq!(check.as_ref().map(|c| (c.0, c.1)), Some((21, kept)), "{check:?}");
        let cast = all.iter().any(|f| matches!(f, Fact::SpellTakesEffect { .. }));
        assert_eq!(cast, kept, "{all:#?}");
    }
}

/// A turned undead flees (004:549): the ghoul that holds the fighter, turned, tries to escape rather than
/// hurt its foe or stay cornered in the grapple.
#[test]
fn the_ai_s_turned_grappler_escapes() {
    use estoc::rules::command::{Command, perform};
    use estoc::rules::special::grapple::GrappleMove;
    let mut app = app_on("tests/scenarios/levels/grapple_yard.ron", &[1, 2, 20, 19]);
    let ghoul = entity(&app, "ghoul");
    force(&mut app, &[15, 15, 1, 2]);
    let grab = Command::Grapple {
        creature: "ghoul".into(),
        target: Some("fighter".into()),
        action: GrappleMove::Grab,
        to: None,
    };
    perform(app.world_mut(), &grab).unwrap();
    for id in ["ghoul", "orc", "fighter"] {
        perform(app.world_mut(), &Command::EndTurn { creature: id.into() }).unwrap();
    }
    force(&mut app, &[12, 6, 6]);
    perform(app.world_mut(), &Command::TurnUndead { creature: "cleric".into(), kind: Default::default() }).unwrap();
    perform(app.world_mut(), &Command::EndTurn { creature: "cleric".into() }).unwrap();
    let conditions = app.world().get::<Conditions>(ghoul).unwrap();
    assert!(conditions.has(Condition::Turned) && conditions.has(Condition::Grappling));
    assert!(!conditions.has(Condition::Cowering));
    let step = estoc::ai::next_step(app.world_mut(), ghoul);
    assert!(
        matches!(step, Command::Grapple { action: GrappleMove::Escape | GrappleMove::EscapeArtist, .. }),
        "the turned ghoul escapes: {step:?}"
    );
}

/// « Si son cavalier n'est plus là pour le diriger, le cheval évite les combats » (004:482): the orc knocked
/// out on its warhorse (or fallen off it), the horse beside the fighter strikes no one and draws away.
#[test]
fn the_ai_s_riderless_horse_avoids_the_fight() {
    let mut app = app_on("tests/scenarios/levels/riderless_horse.ron", &[1, 20]);
    let (horse, orc) = (entity(&app, "horse"), entity(&app, "orc"));
    app.world_mut().write_message(estoc::rules::attack::Damage {
        target: orc,
        amount: 12,
        nonlethal: false,
        from_one_attack: true,
    });
    app.update();
    assert!(!app.world().get::<Conditions>(orc).unwrap().can_act());
    let step = estoc::ai::next_step(app.world_mut(), horse);
    assert!(
        matches!(step, estoc::rules::command::Command::Move { .. }),
        "the horse draws away from the fighter, striking no one: {step:?}"
    );
}

/// The AI weighs a flank by the rule's own predicate (004:417-420): a stunned ally threatens nothing and
/// flanks no one, so the goblin takes the cheaper square beside the fighter, not the one opposite its ally.
#[test]
fn the_ai_seeks_no_flank_beside_a_stunned_ally() {
    let mut app = app_on("tests/scenarios/levels/flank_beside_a_stunned_ally.ron", &[20, 1, 2]);
    let goblin = entity(&app, "g");
    let step = estoc::ai::next_step(app.world_mut(), goblin);
    assert!(
        matches!(step, estoc::rules::command::Command::Move { to, .. } if to == Square::new(4, 4)),
        "the goblin takes the cheaper square: {step:?}"
    );
}

/// The AI weighs an attack's cover and other terms only where `weapon_reaches` says the weapon reaches:
/// everywhere it says no, the rules refuse the attack. Every creature, foe and weapon of the levels with
/// fliers, riders, reach weapons and bows (the request readied, so that no turn or action stands first).
#[test]
fn an_attack_the_ai_leaves_unweighed_is_one_the_rules_refuse() {
    let (mut out_of_reach, mut allowed) = (0, 0);
    for level in ["levels/battlefield.ron", "levels/roost.ron", "levels/horse_fair.ron", "levels/skyway.ron"] {
        let mut app = app_on(level, &[]);
        let world = app.world_mut();
        let creatures: Vec<(Entity, String, Vec<String>)> = world
            .query::<(Entity, &estoc::rules::core::creature::Faction, &estoc::rules::core::creature::Armament)>()
            .iter(world)
            .map(|(e, f, a)| (e, f.0.clone(), a.0.iter().map(|w| w.name.clone()).collect()))
            .collect();
        for (me, side, weapons) in &creatures {
            let foes: Vec<Entity> = creatures.iter().filter(|(_, s, _)| s != side).map(|(e, ..)| *e).collect();
            for weapon in weapons {
                let reaches = estoc::preview::weapon_reaches(world, *me, &foes, weapon);
                for (foe, reaches) in foes.iter().zip(reaches) {
                    let request =
                        estoc::rules::attack::AttackRequest { weapon: Some(weapon), readied: true, ..default() };
                    let preview = estoc::preview::attack_preview(world, *me, *foe, request);
                    if !reaches {
                        out_of_reach += 1;
                        assert!(preview.is_err(), "{level}: {weapon} of {me} on {foe} is out of reach, yet allowed");
                    }
                    allowed += usize::from(preview.is_ok());
                }
            }
        }
    }
    assert!(out_of_reach > 100 && allowed > 10, "{out_of_reach} out of reach, {allowed} allowed");
}
