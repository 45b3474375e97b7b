//! What the game's mouse play rests on, run headless: the previews agree with what the rules then do,
//! the AI plays whole battles without a refused action and deterministically, a battle's actions replay
//! to the same event log (how saves load), and damaged saves and scripts are refused with their place.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use estoc::data::{Content, Encounter, load_level};
use estoc::encounter::{begin, headless_app, spawn_encounter};
use estoc::preview::{attack_preview, move_options, path_preview};
use estoc::rules::attack::{AttackRequest, chance_to_hit};
use estoc::rules::command::{Command, perform};
use estoc::rules::core::creature::Position;
use estoc::rules::core::creature::Roster;
use estoc::rules::core::facts::{EventLog, Fact};
use estoc::rules::core::geometry::Square;
use estoc::rules::movement::MovementAction;

fn level(name: &str) -> Encounter {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    load_level(&Path::new(env!("CARGO_MANIFEST_DIR")).join("levels").join(name), &content).unwrap()
}

fn level_at(path: &str) -> Encounter {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    load_level(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path), &content).unwrap()
}

fn started(encounter: &Encounter, seed: u64) -> App {
    let mut app = headless_app();
    spawn_encounter(app.world_mut(), encounter, seed, &[]);
    begin(app.world_mut(), &encounter.name, seed);
    app.update();
    app
}

fn entity(app: &App, id: &str) -> Entity {
    app.world().resource::<Roster>().get(id).unwrap()
}

fn facts_since(app: &App, from: usize) -> Vec<Fact> {
    app.world().resource::<EventLog>().0[from..].to_vec()
}

/// Carries out `step` and returns the facts it gave.
fn play(app: &mut App, step: &Command) -> Vec<Fact> {
    let from = app.world().resource::<EventLog>().0.len();
    let _ = perform(app.world_mut(), step);
    app.update();
    facts_since(app, from)
}

/// The disarm yard (tests/scenarios/levels/disarm.ron, seed 5) with its overlays, both sides played by people.
fn disarm_yard_played_by_people() -> App {
    played_by_people("tests/scenarios/levels/disarm.ron", 5, "beasts")
}

/// The level at `path` begun with `seed` and its overlays, `faction` played by a person as well.
fn played_by_people(path: &str, seed: u64, faction: &str) -> App {
    let mut app = with_overlays(path, seed);
    let controllers = &mut app.world_mut().resource_mut::<estoc::game::state::Controllers>().0;
    controllers.insert(faction.into(), estoc::data::level::Control::Human);
    app.update();
    app
}

/// The level at `path` begun with `seed` and its overlays, each side played as the level says (the
/// overlays drawn at the next update).
fn with_overlays(path: &str, seed: u64) -> App {
    let encounter = level_at(path);
    let mut app = started(&encounter, seed);
    estoc::game::overlays_headless(&mut app, &encounter);
    app
}

/// Ends the turns of whoever plays before `who`, every faction played by a person, until its turn.
fn pass_turns_until(app: &mut App, who: Entity) {
    for _ in 0..16 {
        let now = estoc::game::turn::human_turn(app.world()).expect("a person's turn");
        if now == who {
            return;
        }
        let id = app.world().get::<estoc::rules::core::creature::CreatureId>(now).unwrap().clone();
        play(app, &Command::EndTurn { creature: id });
    }
    panic!("no turn for {who:?}");
}

#[test]
fn the_chance_to_hit_counts_natural_ones_and_twenties_and_concealment() {
    assert_eq!(chance_to_hit(5, 15, 0), 0.55, "11 to 20 hit");
    assert_eq!(chance_to_hit(30, 15, 0), 0.95, "a natural 1 misses");
    assert_eq!(chance_to_hit(-10, 30, 0), 0.05, "a natural 20 hits");
    assert!((chance_to_hit(5, 15, 50) - 0.275).abs() < 1e-6, "then half of those miss in total concealment");
}

/// Every square the move preview offers the first creature is a move the rules carry out to that very
/// square, and every refused preview is refused by the rules too.
#[test]
fn the_move_preview_agrees_with_the_rules() {
    let encounter = level("skirmish.ron");
    let probe = started(&encounter, 3);
    let current = probe.world().resource::<estoc::rules::turns::TurnOrder>().current_entity().unwrap();
    let id = probe.world().get::<estoc::rules::core::creature::CreatureId>(current).unwrap().0.clone();
    let mut probe = probe;
    let options = move_options(probe.world_mut(), current);
    assert!(!options.squares.is_empty());
    let mut squares: Vec<(Square, MovementAction)> = options.squares.iter().map(|(s, (a, _))| (*s, *a)).collect();
    squares.sort_by_key(|(s, _)| (s.y, s.x));
    for (square, action) in squares.into_iter().step_by(3) {
        let mut app = started(&encounter, 3);
        let preview = path_preview(app.world_mut(), current, action, square, &[]).unwrap();
        let before = app.world().resource::<EventLog>().0.len();
        let _ = perform(
            app.world_mut(),
            &Command::Move { creature: id.clone().into(), to: square, action, path: Some(preview.squares.clone()) },
        );
        app.update();
        let facts = facts_since(&app, before);
        assert!(
            !facts.iter().any(|f| matches!(f, Fact::ActionRefused { .. })),
            "{action:?} to {square} previewed but refused: {facts:?}"
        );
        let provoked = facts.iter().filter(|f| matches!(f, Fact::OpportunityProvoked { .. })).count();
        let previewed: usize = preview.provocations.iter().map(|p| p.from.len()).sum();
        assert_eq!(provoked, previewed, "{action:?} to {square}: the preview names every attack of opportunity");
        if provoked == 0 {
            assert_eq!(app.world().get::<Position>(current).unwrap().0, square);
        }
    }
    // A square the preview does not offer is refused by the rules with a rule cited.
    let field = probe.world().resource::<estoc::rules::core::battlefield::Battlefield>().clone();
    let own = probe.world().get::<Position>(current).unwrap().0;
    let far = (0..field.height())
        .flat_map(|y| (0..field.width()).map(move |x| Square::new(x, y)))
        .find(|s| options.at(*s).is_none() && !field.terrain(*s).blocks() && field.contains(*s) && *s != own)
        .expect("a square out of reach");
    let mut app = started(&encounter, 3);
    assert!(path_preview(app.world_mut(), current, MovementAction::Move, far, &[]).is_err());
    let before = app.world().resource::<EventLog>().0.len();
    let _ = perform(
        app.world_mut(),
        &Command::Move { creature: id.into(), to: far, action: MovementAction::Move, path: None },
    );
    app.update();
    assert!(
        facts_since(&app, before).iter().any(|f| matches!(f, Fact::ActionRefused { rule, .. } if !rule.is_empty()))
    );
}

/// Waypoints bend the path: it passes them in order and costs what the rules say.
#[test]
fn waypoints_bend_the_path() {
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 3);
    let fighter = entity(&app, "fighter");
    let straight = path_preview(app.world_mut(), fighter, MovementAction::DoubleMove, Square::new(6, 4), &[]);
    let bent =
        path_preview(app.world_mut(), fighter, MovementAction::DoubleMove, Square::new(6, 4), &[Square::new(3, 7)]);
    let (straight, bent) = (straight.unwrap(), bent.unwrap());
    assert!(bent.squares.contains(&Square::new(3, 7)));
    assert!(!straight.squares.contains(&Square::new(3, 7)));
    assert!(bent.route.cost > straight.route.cost);
}

/// The attack preview refuses what the rules refuse, with the same rule, and accepts what they accept.
#[test]
fn the_attack_preview_agrees_with_the_rules() {
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 3);
    let order: Vec<Entity> = app.world().resource::<estoc::rules::turns::TurnOrder>().initiative();
    let current = app.world().resource::<estoc::rules::turns::TurnOrder>().current_entity().unwrap();
    let id = app.world().get::<estoc::rules::core::creature::CreatureId>(current).unwrap().0.clone();
    for target in order.into_iter().filter(|e| *e != current) {
        let target_id = app.world().get::<estoc::rules::core::creature::CreatureId>(target).unwrap().0.clone();
        for weapon in ["longsword", "javelin", "longbow", "morningstar", "javelin"] {
            let request = AttackRequest { weapon: Some(weapon), ..default() };
            let preview = attack_preview(app.world_mut(), current, target, request);
            let mut trial = started(&encounter, 3);
            let before = trial.world().resource::<EventLog>().0.len();
            let _ = perform(
                trial.world_mut(),
                &Command::Attack {
                    creature: id.clone().into(),
                    target: target_id.clone().into(),
                    weapon: Some(weapon.into()),
                    defensively: false,
                    full: false,
                    lethal: false,
                    nonlethal: false,
                    power: 0,
                    two_weapons: false,
                    blows: None,
                },
            );
            trial.update();
            let facts = facts_since(&trial, before);
            let refused = facts.iter().find_map(|f| match f {
                Fact::ActionRefused { rule, .. } => Some(rule.clone()),
                _ => None,
            });
            match preview {
                // An ally is never offered as a target on the map.
                Err(r) if r.rule.starts_with("our ruling") => {}
                Err(r) => assert_eq!(refused, Some(r.rule), "{id} on {target_id} with the {weapon}"),
                Ok(p) => {
                    assert_eq!(refused, None, "{id} on {target_id} with the {weapon}: {facts:?}");
                    let rolled = facts.iter().find_map(|f| match f {
                        Fact::AttackRolled { total, roll, armor_class, .. } => {
                            Some((*total - *roll as i32, *armor_class))
                        }
                        _ => None,
                    });
                    assert_eq!(
                        rolled,
                        Some((p.bonuses[0], p.plan.armor_class)),
                        "{id} on {target_id} with the {weapon}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_ai_plays_whole_battles_without_a_refused_action() {
    let levels = [
        "skirmish.ron",
        "crossroads.ron",
        "corridors.ron",
        "watchtower.ron",
        "roost.ron",
        "skyway.ron",
        "wyrmfire.ron",
    ];
    for name in levels {
        let encounter = level(name);
        for seed in 1..=6 {
            let outcome = estoc::simulate::battle(&encounter, seed);
            let refused: Vec<&Fact> =
                outcome.log.0.iter().filter(|f| matches!(f, Fact::ActionRefused { .. })).collect();
            assert!(refused.is_empty(), "{name} seed {seed}: {refused:?}");
            assert!(
                outcome.log.0.iter().any(|f| matches!(f, Fact::AttackRolled { .. })),
                "{name} seed {seed}: no fight"
            );
            // A side left standing, both fallen at once, or the sides parted: the rules ended it; else the
            // simulator's round limit did.
            let ended = outcome.log.0.iter().any(|f| matches!(f, Fact::EncounterEnded { .. }));
            assert!(
                ended || outcome.rounds > estoc::simulate::ROUND_LIMIT,
                "{name} seed {seed}: stopped without an end in round {}",
                outcome.rounds
            );
        }
    }
}

/// A fighter with a lance and an off-hand short sword beside a foe: its two weapons cannot both strike that
/// foe (the lance does not reach it, 004:462), so the AI makes its full attack with the sword alone instead
/// of asking the refused two-weapon attack again and again (a slip an audit saw: it never struck).
#[test]
fn the_ai_strikes_with_one_weapon_where_both_cannot() {
    let encounter = level_at("tests/scenarios/levels/lance_and_sword.ron");
    for seed in 1..=3 {
        let outcome = estoc::simulate::battle(&encounter, seed);
        let refused: Vec<&Fact> = outcome.log.0.iter().filter(|f| matches!(f, Fact::ActionRefused { .. })).collect();
        assert!(refused.is_empty(), "seed {seed}: {refused:?}");
        assert!(
            outcome.log.0.iter().any(|f| matches!(f, Fact::AttackRolled { attacker, weapon, .. }
                if attacker.0 == "fighter" && weapon == "short sword")),
            "seed {seed}: the fighter never struck"
        );
    }
}

/// The AI's dragons breathe, each breath covering foes, and wait for it to come back before the next.
#[test]
fn the_ai_breathes_where_it_covers_foes() {
    let encounter = level("wyrmfire.ron");
    let outcome = estoc::simulate::battle(&encounter, 2);
    let breaths: Vec<(&str, u32)> = outcome
        .log
        .0
        .iter()
        .filter_map(|f| match f {
            Fact::Breathed { creature, covered, ready_in_round, .. } => {
                assert!(covered.iter().any(|c| !["red", "blue"].contains(&c.0.as_str())), "{f:?}");
                Some((creature.0.as_str(), *ready_in_round))
            }
            _ => None,
        })
        .collect();
    assert!(breaths.iter().any(|(c, _)| *c == "red") && breaths.iter().any(|(c, _)| *c == "blue"), "{breaths:?}");
    // Rounds in which each breathed: never before its breath came back.
    let mut round = 0;
    let mut ready: std::collections::HashMap<&str, u32> = Default::default();
    for fact in &outcome.log.0 {
        match fact {
            Fact::RoundStarted { round: r } => round = *r,
            Fact::Breathed { creature, ready_in_round, .. } => {
                assert!(ready.get(creature.0.as_str()).is_none_or(|r| *r <= round), "{} too soon", creature.0);
                ready.insert(creature.0.as_str(), *ready_in_round);
            }
            _ => {}
        }
    }
}

/// On "Brawl in the tavern yard" the AI's halberdier trips with its guisarme, a trip weapon that provokes
/// nothing (004:489), and the AI's cleric turns the crypt's undead (004:538-546), in their own battles.
#[test]
fn the_ai_trips_with_a_trip_weapon_and_turns_undead() {
    let tripped = (1..=4).any(|seed| {
        let outcome = estoc::simulate::battle(&level("brawl.ron"), seed);
        outcome.log.0.iter().any(|f| {
            matches!(f, Fact::Opposed { creature, reason, .. } if creature.0 == "halberdier" && reason.contains("a trip"))
        })
    });
    assert!(tripped, "the halberdier never tripped");
    let outcome = estoc::simulate::battle(&level("crypt.ron"), 1);
    assert!(outcome.log.0.iter().any(|f| matches!(f, Fact::UndeadTurned { .. })), "the cleric never turned");
}

/// The level issue 4 asks for: on "Ruined crossroads", archers shoot, the low wall covers, the goblin
/// spearman strikes from 3 m with its longspear, and flanking gives its +2, all in the AI's own battles.
#[test]
fn on_the_crossroads_archers_a_low_wall_a_reach_weapon_and_flanking_all_matter() {
    let encounter = level("crossroads.ron");
    let (mut shots, mut low_wall, mut reach, mut flanking) = (0, 0, 0, 0);
    for seed in 1..=8 {
        let outcome = estoc::simulate::battle(&encounter, seed);
        for fact in &outcome.log.0 {
            if let Fact::AttackRolled { weapon, modifiers, armor_class_parts, .. } = fact {
                shots += usize::from(weapon.contains("bow"));
                low_wall += usize::from(armor_class_parts.iter().any(|m| m.source.starts_with("cover: low wall")));
                reach += usize::from(weapon == "longspear");
                flanking += usize::from(modifiers.iter().any(|m| m.source.starts_with("flanking")));
            }
        }
    }
    assert!(shots > 0 && low_wall > 0 && reach > 0 && flanking > 0, "{shots} {low_wall} {reach} {flanking}");
}

/// The flight preview of a flier in the air is what the rules then fly: every square offered (a sample) is
/// where the flight ends.
#[test]
fn the_flight_preview_agrees_with_the_rules() {
    let encounter = level("roost.ron");
    let mut probe = started(&encounter, 3);
    let goblin = entity(&probe, "goblin-1");
    let _ = perform(probe.world_mut(), &Command::EndTurn { creature: "goblin-1".into() });
    probe.update();
    let griffon = entity(&probe, "griffon");
    assert_eq!(probe.world().resource::<estoc::rules::turns::TurnOrder>().current_entity(), Some(griffon));
    assert_ne!(goblin, griffon);
    let flights = estoc::rules::aerial::flying::plan_flights(probe.world_mut(), griffon, &[], None).unwrap();
    assert!(flights.len() > 50, "{} squares", flights.len());
    let mut squares: Vec<Square> = flights.keys().copied().collect();
    squares.sort_by_key(|s| (s.y, s.x));
    for square in squares.into_iter().step_by(25) {
        let mut app = started(&encounter, 3);
        let _ = perform(app.world_mut(), &Command::EndTurn { creature: "goblin-1".into() });
        app.update();
        let from = app.world().resource::<EventLog>().0.len();
        let steps = flights[&square].steps.clone();
        let _ = perform(app.world_mut(), &Command::flight("griffon".into(), steps, None));
        app.update();
        let facts = facts_since(&app, from);
        let landed_at = facts.iter().find_map(|f| match f {
            Fact::Flew { to, .. } => Some(*to),
            _ => None,
        });
        // The planner counts on every fly check made (004:750): a failed one turns the flight elsewhere.
        let checks: Vec<bool> = facts
            .iter()
            .filter_map(|f| match f {
                Fact::CheckRolled { success, .. } => Some(*success),
                _ => None,
            })
            .collect();
        assert_eq!(checks.len(), flights[&square].flight.checks.len(), "{facts:?}");
        if checks.iter().all(|made| *made) {
            assert_eq!(landed_at, Some(square), "{facts:?}");
        } else {
            assert_ne!(landed_at, Some(square), "{facts:?}");
        }
    }
}

/// The attacks of opportunity the flight preview names are those the rules' flight then provokes, leg by
/// leg at each leg's height (004:64-65, 004:656, 004:783): griffons flying past an ogre's 3 m reach, every
/// third flight offered.
#[test]
fn the_flight_previews_attacks_of_opportunity_are_the_flights() {
    let encounter = level_at("tests/scenarios/levels/flying_past_an_ogre.ron");
    // Initiative in id order: a_ogre 20, b_griffon 10, c_griffon 5, d_ogre 19; the ogres act first.
    let ready = || {
        let mut app = headless_app();
        spawn_encounter(app.world_mut(), &encounter, 1, &[]);
        app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([20, 10, 5, 19]);
        begin(app.world_mut(), &encounter.name, 1);
        app.update();
        for ogre in ["a_ogre", "d_ogre"] {
            let _ = play(&mut app, &Command::EndTurn { creature: ogre.into() });
        }
        app
    };
    let mut probe = ready();
    let griffon = entity(&probe, "b_griffon");
    let flights = estoc::rules::aerial::flying::plan_flights(probe.world_mut(), griffon, &[], None).unwrap();
    let mut squares: Vec<Square> = flights.keys().copied().collect();
    squares.sort_by_key(|s| (s.y, s.x));
    let mut provoking = 0;
    for square in squares.into_iter().step_by(3) {
        let mut app = ready();
        let flight = &flights[&square];
        let foreseen: Vec<Entity> = estoc::preview::flight_provocations(app.world_mut(), griffon, &flight.flight)
            .into_iter()
            .flat_map(|p| p.from)
            .collect();
        // Every blow misses, every fly check is made: the flight goes all the way.
        app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([1; 8]);
        let facts = play(&mut app, &Command::flight("b_griffon".into(), flight.steps.clone(), None));
        let struck: Vec<Entity> = facts
            .iter()
            .filter_map(|f| match f {
                Fact::OpportunityProvoked { by, .. } => Some(entity(&app, &by.0)),
                _ => None,
            })
            .collect();
        if facts.iter().any(|f| matches!(f, Fact::CheckRolled { success: false, .. })) {
            continue;
        }
        assert_eq!(foreseen, struck, "to {square:?}: {facts:?}");
        provoking += usize::from(!struck.is_empty());
    }
    assert!(provoking > 0, "no flight of the sample provoked");
}

/// A perfect flier in reach of its foe stays where it is and makes its full attack, as a flier moving
/// 1.5 m or less may (004:710), rather than flying a few squares for one blow.
#[test]
fn the_ais_perfect_flier_stays_and_makes_its_full_attack() {
    let encounter = level_at("tests/scenarios/levels/perfect_griffon_and_ogre.ron");
    let outcome = estoc::simulate::battle(&encounter, 1);
    // The first three rounds, the ogre still beside it.
    let early: Vec<&Fact> =
        outcome.log.0.iter().take_while(|f| !matches!(f, Fact::TurnStarted { round: 4, .. })).collect();
    let claws = early
        .iter()
        .filter(
            |f| matches!(f, Fact::AttackRolled { attacker, weapon, .. } if attacker.0 == "griffon" && weapon == "claw"),
        )
        .count();
    assert!(claws >= 6, "the griffon's full attacks bring its two claws each round: {claws}");
    assert!(!early.iter().any(|f| matches!(f, Fact::Flew { creature, .. } if creature.0 == "griffon")));
}

/// The AI's rogue, too far to strike, walks on in the fog and hides there (004:412), and its foe has lost it.
#[test]
fn the_ais_rogue_hides_in_the_fog_when_it_cannot_strike() {
    let encounter = level_at("tests/scenarios/levels/fog_lane.ron");
    let outcome = estoc::simulate::battle(&encounter, 1);
    let first: Vec<&Fact> =
        outcome.log.0.iter().take_while(|f| !matches!(f, Fact::TurnStarted { round: 2, .. })).collect();
    let hid = first.iter().any(|f| {
        matches!(f, Fact::Opposed { creature, check, opponent, won: true, .. }
            if creature.0 == "rogue" && opponent.0 == "fighter" && check.to_string() == "hide")
    });
    assert!(hid, "the rogue hides from the fighter in its first turn and beats its Spot");
}

/// The AI's casters cast: the wizard's missiles, the druid's lightning.
#[test]
fn the_ai_casts_its_spells() {
    let encounter = level("watchtower.ron");
    let outcome = estoc::simulate::battle(&encounter, 1);
    let cast: Vec<&Fact> = outcome.log.0.iter().filter(|f| matches!(f, Fact::CastingBegun { .. })).collect();
    assert!(cast.iter().any(|f| matches!(f, Fact::CastingBegun { caster, .. } if caster.0 == "wizard")));
    assert!(cast.iter().any(|f| matches!(f, Fact::CastingBegun { caster, .. } if caster.0 == "druid")));
}

/// The cast preview on every creature of the map is what the rules then do: a spell it offers is cast,
/// a spell it refuses is refused.
#[test]
fn the_cast_preview_agrees_with_the_rules() {
    let encounter = level("watchtower.ron");
    // Seed 6: the wizard acts first.
    let probe = started(&encounter, 6);
    let wizard = entity(&probe, "wizard");
    assert_eq!(probe.world().resource::<estoc::rules::turns::TurnOrder>().current_entity(), Some(wizard));
    let ids: Vec<String> = encounter.creatures.iter().map(|c| c.id.0.clone()).collect();
    let (mut offered, mut refused) = (0, 0);
    for target in &ids {
        let mut app = started(&encounter, 6);
        let aim = entity(&app, target);
        let preview = estoc::preview::cast_preview(app.world_mut(), wizard, aim, "magic missile");
        let from = app.world().resource::<EventLog>().0.len();
        let step = Command::Cast {
            creature: "wizard".into(),
            spell: "magic missile".into(),
            target: Some(target.clone().into()),
            defensively: false,
            between_moves: false,
        };
        let _ = perform(app.world_mut(), &step);
        app.update();
        let facts = facts_since(&app, from);
        let begun = facts.iter().any(|f| matches!(f, Fact::CastingBegun { .. }));
        let was_refused = facts.iter().any(|f| matches!(f, Fact::ActionRefused { .. }));
        match preview {
            Ok(_) => {
                offered += 1;
                assert!(begun && !was_refused, "{target}: offered, then {facts:?}");
            }
            Err(r) => {
                refused += 1;
                assert!(was_refused && !begun, "{target}: refused ({r}), then {facts:?}");
            }
        }
    }
    assert!(offered > 0 && refused > 0, "both kinds: {offered} offered, {refused} refused");
}

/// Saves load by replaying the actions: the same level, seed and actions give the same event log.
#[test]
fn a_battle_replays_to_the_same_log() {
    let encounter = level("crossroads.ron");
    let outcome = estoc::simulate::battle(&encounter, 11);
    assert_eq!(outcome.log.to_json_lines(), estoc::simulate::battle(&encounter, 11).log.to_json_lines());
    let mut app = started(&encounter, 11);
    for step in &outcome.steps {
        let _ = perform(app.world_mut(), step);
        app.update();
    }
    assert_eq!(app.world().resource::<EventLog>().to_json_lines(), outcome.log.to_json_lines());
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("test-scratch");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_save_round_trips_and_a_damaged_one_is_refused_with_its_place() {
    use estoc::game::save::{SavedBattle, read_save, write_atomically};
    let encounter = level("skirmish.ron");
    let outcome = estoc::simulate::battle(&encounter, 5);
    let saved = SavedBattle { level: PathBuf::from("levels/skirmish.ron"), seed: 5, steps: outcome.steps.clone() };
    let path = scratch("battle.ron");
    let text = ron::ser::to_string_pretty(&saved, ron::ser::PrettyConfig::default()).unwrap();
    write_atomically(&path, &text).unwrap();
    let back = read_save(&path).unwrap();
    assert_eq!(back.steps, outcome.steps);
    assert_eq!(back.seed, 5);
    let damaged = scratch("damaged.ron");
    std::fs::write(&damaged, "(\n    level: \"levels/skirmish.ron\",\n    seed: five,\n    steps: [],\n)\n").unwrap();
    let error = read_save(&damaged).unwrap_err();
    assert!(error.contains("damaged.ron:3:"), "{error}");
}

#[test]
fn a_script_with_an_unknown_step_is_refused_with_its_place() {
    use estoc::game::script::{key_code, load_script};
    let path = scratch("bad-script.ron");
    std::fs::write(&path, "(\n    steps: [\n        Wait(3),\n        Jump((1, 2)),\n    ],\n)\n").unwrap();
    let error = load_script(&path).unwrap_err();
    assert!(error.contains("bad-script.ron:4:"), "{error}");
    let good = load_script(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/skirmish.ron")).unwrap();
    assert!(good.steps.len() >= 8);
    assert_eq!(key_code("E"), Some(KeyCode::KeyE));
    assert_eq!(key_code("Enter"), Some(KeyCode::Enter));
    assert_eq!(key_code("Hyper"), None);
    assert_eq!(key_code("1"), Some(KeyCode::Digit1), "the disarm's key");
}

/// Magical healing stabilises a dying creature still below 0, and brings it back up above 0 (004:284-285);
/// never above the maximum (004:292).
#[test]
fn healing_stabilises_then_wakes_a_dying_creature() {
    use estoc::rules::attack::Damage;
    use estoc::rules::core::creature::{Condition, Conditions, HitPoints};
    use estoc::rules::health::Healing;
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 3);
    let goblin = entity(&app, "goblin-1");
    let state = |app: &App| {
        let hp = *app.world().get::<HitPoints>(goblin).unwrap();
        let c = app.world().get::<Conditions>(goblin).unwrap().clone();
        (hp.current, c.has(Condition::Dying), c.has(Condition::Stable), c.has(Condition::Unconscious))
    };
    app.world_mut().write_message(Damage { target: goblin, amount: 8, nonlethal: false, from_one_attack: true });
    app.update();
    assert_eq!(state(&app), (-3, true, false, true));
    app.world_mut().write_message(Healing { target: goblin, amount: 2 });
    app.update();
    assert_eq!(state(&app), (-1, false, true, true), "stable and unconscious below 0");
    app.world_mut().write_message(Healing { target: goblin, amount: 50 });
    app.update();
    assert_eq!(state(&app), (5, false, false, false), "up to its maximum, awake");
}

/// The full attack given up after its first blow strikes no more (tests/scenarios/attack_full_given_up.ron):
/// one dagger blow in all, the one of the second round's finished full attack.
#[test]
fn a_full_attack_given_up_strikes_no_more() {
    let content = Content::load(&estoc::data::assets_dir()).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/attack_full_given_up.ron");
    let scenario = estoc::scenario::load_scenario(&path).unwrap();
    let output = estoc::scenario::run_scenario(&path, &scenario, &content, None).unwrap();
    let daggers = output.lines.iter().filter(|l| l.contains("\"attack_rolled\"") && l.contains("\"dagger\"")).count();
    assert_eq!(daggers, 1, "{}", output.lines.join("\n"));
    assert!(output.unmet(&scenario.expect).is_empty(), "{:?}", output.unmet(&scenario.expect));
}

/// Hot reload: a level edited into something that no longer loads keeps the battle as it was and shows the
/// error with its file, line and column; edited back, the battle starts again from the new file.
#[test]
fn a_broken_level_on_reload_keeps_the_last_good_one() {
    use estoc::encounter::ActiveEncounter;
    use estoc::game::LaunchOptions;
    use estoc::game::reload::reload;
    use estoc::game::state::Notice;
    use estoc::game::state::Restart;
    let original = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("levels/skirmish.ron")).unwrap();
    let path = scratch("reloaded-level.ron");
    std::fs::write(&path, &original).unwrap();
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 1);
    let world = app.world_mut();
    world.insert_resource(LaunchOptions { level: path.clone(), seed: 1, watch: true });
    world.insert_resource(Notice::default());
    // Broken: a terrain character that does not exist, line 10, column 18.
    std::fs::write(&path, original.replacen("\"#...::.....#\"", "\"#...::..?..#\"", 1)).unwrap();
    assert!(!reload(world));
    let notice = world.resource::<Notice>().0.clone().expect("the error is shown");
    assert!(notice.0, "shown as an error");
    assert!(notice.1.contains("reloaded-level.ron:10:18: error: unknown terrain"), "{}", notice.1);
    assert_eq!(world.resource::<ActiveEncounter>().0.name, "Skirmish at the ford", "the last good level stays");
    assert!(!world.contains_resource::<Restart>(), "the battle is not restarted");
    // Fixed and renamed: the battle starts again from the new file.
    std::fs::write(&path, original.replace("Skirmish at the ford", "Skirmish at the mill")).unwrap();
    assert!(reload(world));
    assert_eq!(world.resource::<ActiveEncounter>().0.name, "Skirmish at the mill");
    assert!(world.contains_resource::<Restart>());
}

/// The overlays follow the previews without a window: the active creature's reachable squares are shaded,
/// the hovered path drawn with a marker per step, and the hovered foe outlined; nothing is redrawn while
/// nothing changes. A foe out of reach shows the walk within reach and the blow from its end; the click
/// makes both, and the rules roll the blow with the bonus the preview showed.
#[test]
fn the_overlays_follow_the_cursor() {
    use estoc::game::overlay::Overlay;
    use estoc::game::state::{Approach, Hover, Pending, Previews};
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 1);
    estoc::game::overlays_headless(&mut app, &encounter);
    // Seed 1: goblin-1 (played by the computer) has the turn; no preview for it.
    app.update();
    assert!(app.world().resource::<Previews>().active.is_none());
    let goblin = entity(&app, "goblin-1");
    let id = "goblin-1".to_string();
    let _ = perform(app.world_mut(), &Command::EndTurn { creature: id.into() });
    app.update();
    app.update();
    let fighter = entity(&app, "fighter");
    assert_eq!(app.world().resource::<Previews>().active, Some(fighter));
    let count = |app: &mut App| app.world_mut().query_filtered::<(), With<Overlay>>().iter(app.world()).count();
    let shaded = count(&mut app);
    assert!(shaded > 30, "the reachable squares are shaded: {shaded} overlays");
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(5, 4));
    app.update();
    let with_path = count(&mut app);
    assert!(with_path > shaded, "the path adds markers: {with_path} against {shaded}");
    let generation = app.world().resource::<Previews>().generation;
    app.update();
    assert_eq!(app.world().resource::<Previews>().generation, generation, "nothing changed, nothing redone");
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(7, 4));
    app.update();
    let previews = app.world().resource::<Previews>();
    assert_eq!(previews.hovered, Some(goblin));
    // The fighter at (2,4), the goblin at (7,4): out of reach, within a move and a blow.
    let Some(Approach::MoveThenAttack { to, .. }) = previews.approach.clone() else {
        panic!("a walk then a blow: {:?}", previews.approach)
    };
    let path = previews.path.clone().expect("the walk previewed").expect("a legal walk");
    assert_eq!(path.squares.last(), Some(&to));
    let blow = previews.attack.clone().expect("the blow previewed").expect("a blow from there");
    estoc::game::clicks::click(app.world_mut(), Square::new(7, 4));
    let steps: Vec<Command> = app.world_mut().resource_mut::<Pending>().0.drain(..).collect();
    assert!(
        matches!(&steps[..], [Command::Move { to: t, .. }, Command::Attack { target, .. }] if *t == to && target.0 == "goblin-1"),
        "{steps:?}"
    );
    let from = app.world().resource::<EventLog>().0.len();
    for step in &steps {
        let _ = perform(app.world_mut(), step);
        app.update();
    }
    let facts = facts_since(&app, from);
    let rolled = facts.iter().find_map(|f| match f {
        Fact::AttackRolled { attacker, target, roll, total, .. }
            if attacker.0 == "fighter" && target.0 == "goblin-1" =>
        {
            Some(total - *roll as i32)
        }
        _ => None,
    });
    assert_eq!(rolled, Some(blow.bonuses[0]), "{facts:?}");
}

/// A flier in the air clicking a foe: out of reach of a slow flight at its height, the click charges it,
/// diving on its way (004:451-459); after diving 6 m first (Z four times), the click makes a dive attack,
/// and the rules carry it out.
#[test]
fn a_flier_dives_on_the_foe_it_clicks() {
    use estoc::game::previews::flier_strike;
    use estoc::game::state::Choice;
    let encounter = level_at("tests/scenarios/levels/stoop.ron");
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    let ogre = Square::new(12, 3);
    // Seed 2: the ogre (played by the computer) first; its turn passes.
    let _ = perform(app.world_mut(), &Command::EndTurn { creature: "ogre".into() });
    app.update();
    let griffon = entity(&app, "griffon");
    assert_eq!(estoc::game::turn::human_turn(app.world()), Some(griffon));
    let charge = flier_strike(app.world_mut(), ogre).expect("a charge");
    assert!(
        matches!(&charge[..], [Command::Fly { charge_at: Some(t), dive_at: None, .. }] if t == "ogre"),
        "{charge:?}"
    );
    app.world_mut().resource_mut::<Choice>().climb = -4;
    let steps = flier_strike(app.world_mut(), ogre).expect("a dive attack");
    assert!(matches!(&steps[..], [Command::Fly { dive_at: Some(t), .. }] if t == "ogre"), "{steps:?}");
    let from = app.world().resource::<EventLog>().0.len();
    let _ = perform(app.world_mut(), &steps[0]);
    app.update();
    let facts = facts_since(&app, from);
    assert!(
        facts.iter().any(
            |f| matches!(f, Fact::AttackRolled { attacker, weapon, .. } if attacker.0 == "griffon" && weapon == "claw")
        ),
        "{facts:?}"
    );
}

/// The AI gets a rider back on the mount it rode (004:226): the knight, off its warhorse beside it, mounts it
/// again with its move action at its next turn, and the rules carry it out.
#[test]
fn the_ai_gets_a_rider_back_on_its_mount() {
    let mut app = played_by_people("tests/scenarios/levels/mounted_charge.ron", 1, "orcs");
    let knight = entity(&app, "knight");
    pass_turns_until(&mut app, knight);
    let off = play(&mut app, &Command::Dismount { creature: "knight".into(), to: Square::new(1, 1), fast: false });
    assert!(off.iter().any(|f| matches!(f, Fact::Dismounted { .. })), "{off:?}");
    play(&mut app, &Command::EndTurn { creature: "knight".into() });
    pass_turns_until(&mut app, knight);
    let step = estoc::ai::next_step(app.world_mut(), knight);
    assert!(matches!(&step, Command::Mount { mount, .. } if mount == "horse"), "{step:?}");
    let on = play(&mut app, &step);
    assert!(on.iter().any(|f| matches!(f, Fact::Mounted { creature, .. } if creature.0 == "knight")), "{on:?}");
}

/// In ready mode a click on the readier itself readies its attack for the first foe that starts casting
/// (004:621): the wizard's spell then comes after the orc's blow, struck at the caster.
#[test]
fn a_click_on_itself_readies_against_a_casting() {
    use estoc::game::state::{Choice, Mode};
    use estoc::rules::turns::ready::Trigger;
    let mut app = played_by_people("tests/scenarios/levels/spells.ron", 5, "raiders");
    let orc = entity(&app, "orc");
    pass_turns_until(&mut app, orc);
    app.world_mut().resource_mut::<Choice>().mode = Mode::Ready;
    let step = estoc::game::clicks::click_step(app.world_mut(), Square::new(3, 1)).expect("a readied attack");
    assert!(matches!(&step, Command::Ready { trigger: Trigger::StartsCasting, .. }), "{step:?}");
    play(&mut app, &step);
    let wizard = entity(&app, "wizard");
    pass_turns_until(&mut app, wizard);
    let cast = Command::Cast {
        creature: "wizard".into(),
        spell: "magic missile".into(),
        target: Some("orc".into()),
        defensively: false,
        between_moves: false,
    };
    let facts = play(&mut app, &cast);
    let at = |pick: &dyn Fn(&Fact) -> bool| facts.iter().position(pick);
    let struck = at(
        &|f| matches!(f, Fact::AttackRolled { attacker, target, .. } if attacker.0 == "orc" && target.0 == "wizard"),
    );
    let cast_at = at(&|f| matches!(f, Fact::CastingBegun { caster, .. } if caster.0 == "wizard"));
    assert!(struck.is_some() && cast_at.is_some() && struck < cast_at, "{facts:?}");
}

/// A flier in the air clicking a foe that no slow flight reaches charges it (004:451-459, 004:693): the
/// griffon 3 m up flies straight at the ogre 25 squares off, fast, and its bite comes at the bonus the
/// window showed before the click, the charge's +2 in it.
#[test]
fn a_flier_charges_the_foe_it_clicks() {
    use estoc::game::previews::flier_strike;
    let encounter = level_at("tests/scenarios/levels/long_stoop.ron");
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    let griffon = entity(&app, "griffon");
    if estoc::game::turn::human_turn(app.world()) != Some(griffon) {
        let _ = perform(app.world_mut(), &Command::EndTurn { creature: "ogre".into() });
        app.update();
    }
    assert_eq!(estoc::game::turn::human_turn(app.world()), Some(griffon));
    let ogre = entity(&app, "ogre");
    let (_, shown) = estoc::preview::flying_charge_preview(app.world_mut(), griffon, ogre).expect("a charge");
    assert!(shown.plan.modifiers.iter().any(|m| m.source.contains("charge") && m.value == 2), "{:?}", shown.plan);
    let steps = flier_strike(app.world_mut(), Square::new(25, 3)).expect("a charge");
    assert!(matches!(&steps[..], [Command::Fly { charge_at: Some(t), .. }] if t == "ogre"), "{steps:?}");
    let from = app.world().resource::<EventLog>().0.len();
    let _ = perform(app.world_mut(), &steps[0]);
    app.update();
    let facts = facts_since(&app, from);
    let rolled = facts.iter().find_map(|f| match f {
        Fact::AttackRolled { attacker, weapon, roll, total, .. } if attacker.0 == "griffon" && weapon == "bite" => {
            Some(total - *roll as i32)
        }
        _ => None,
    });
    assert_eq!(rolled, Some(shown.bonuses[0]), "{facts:?}");
    assert!(facts.iter().any(|f| matches!(f, Fact::Flew { creature, status: estoc::rules::core::names::SpeedStatus::Fast, .. } if creature.0 == "griffon")), "{facts:?}");
}

/// The AI's flier high above a foe dives on it (004:753), with the fly check and the claw.
/// The AI's young red dragon, which has Flyby Attack, strikes on its way and flies on (004:755-757): the
/// attack rolled in the middle of its flight, and the flight going on from there.
#[test]
fn the_ai_flies_by_with_flyby_attack() {
    let encounter = level("roost.ron");
    let flown_by = (1..=6).any(|seed| {
        let log = estoc::simulate::battle(&encounter, seed).log.0;
        log.iter().enumerate().any(|(i, f)| {
            matches!(f, Fact::FlybyResumed { creature, from, to } if creature.0 == "dragon" && from != to)
                && log[..i]
                    .iter()
                    .rev()
                    .take(8)
                    .any(|f| matches!(f, Fact::AttackRolled { attacker, .. } if attacker.0 == "dragon"))
        })
    });
    assert!(flown_by, "no flyby attack by the dragon in six battles");
}

/// The AI's fliers, once they have flown and struck, hide from their pursuers where a wall is near
/// (004:816-817): the Hide rolled against the foes' Spot.
#[test]
fn the_ai_hides_its_fliers_after_their_flight() {
    let encounter = level("roost.ron");
    let hid = (1..=4).any(|seed| {
        let log = estoc::simulate::battle(&encounter, seed).log.0;
        log.iter()
            .any(|f| matches!(f, Fact::Opposed { creature, check, .. } if creature.0 == "dragon" && *check == estoc::rules::core::checks::Check::Hide))
    });
    assert!(hid, "the dragon never hid in four battles");
}

/// Lying prone, an AI creature stands up with its move action before anything else (004:225); it never
/// walks prone (004:217).
#[test]
fn a_prone_ai_creature_stands_up_first() {
    use estoc::rules::core::creature::Condition;
    let encounter = level_at("tests/scenarios/levels/lying.ron");
    let log = estoc::simulate::battle(&encounter, 4).log.0;
    let fighter = |c: &estoc::rules::core::creature::CreatureId| c.0 == "fighter";
    let stood = log
        .iter()
        .position(|f| matches!(f, Fact::ConditionLost { creature, condition: Condition::Prone } if fighter(creature)));
    let acted = log.iter().position(|f| match f {
        Fact::MoveStarted { creature, .. } => fighter(creature),
        Fact::AttackRolled { attacker, .. } => fighter(attacker),
        _ => false,
    });
    assert!(stood.is_some() && acted.is_some() && stood < acted, "stood up at {stood:?}, acted at {acted:?}");
    assert!(!log.iter().any(|f| matches!(f, Fact::ActionRefused { .. })));
}

/// Every battle ends, a winner standing or the sides parted after ten quiet rounds (our ruling), well
/// before the simulator's round limit.
#[test]
fn every_battle_ends_before_the_round_limit() {
    for name in ["roost.ron", "skirmish.ron"] {
        let encounter = level(name);
        for seed in 28..34 {
            let outcome = estoc::simulate::battle(&encounter, seed);
            assert!(
                outcome.log.0.iter().any(|f| matches!(f, Fact::EncounterEnded { .. })),
                "{name} seed {seed} did not end in {} rounds",
                outcome.rounds
            );
        }
    }
}

#[test]
fn the_ai_dives_on_a_foe_below() {
    let encounter = level_at("tests/scenarios/levels/stoop.ron");
    let outcome = estoc::simulate::battle(&encounter, 1);
    assert!(outcome.log.0.iter().any(
        |f| matches!(f, Fact::CheckRolled { creature, reason, .. } if creature.0 == "griffon" && reason.starts_with("dive attack"))
    ));
    assert!(!outcome.log.0.iter().any(|f| matches!(f, Fact::ActionRefused { .. })));
}

/// The threat overlay counts heights: the griffon 6 m up is threatened by none of the foes, the goblins on
/// the ground and the dragon 15 m up alike (004:783-784).
#[test]
fn the_threat_overlay_counts_heights() {
    let encounter = level("roost.ron");
    let mut app = started(&encounter, 3);
    let griffon = entity(&app, "griffon");
    let fighter = entity(&app, "fighter");
    assert!(estoc::game::previews::foes_threatened(app.world_mut(), griffon).is_empty());
    assert!(
        !estoc::game::previews::foes_threatened(app.world_mut(), fighter).is_empty(),
        "the goblins threaten the ground"
    );
}

/// At chase scale nobody walks and the fliers' flights count 9 m squares: the archer on the ground has no
/// move to offer, and a griffon's flight preview reaches no further than twice its 2 chase squares
/// (24 m / 9), and further with a one-band dive (every square half a square).
#[test]
fn at_chase_scale_the_previews_walk_nobody_and_fly_chase_squares() {
    let encounter = level("skyway.ron");
    let mut app = started(&encounter, 2);
    let archer = entity(&app, "archer");
    let options = estoc::preview::move_options(app.world_mut(), archer);
    assert!(options.squares.is_empty());
    let refused = estoc::preview::path_preview(
        app.world_mut(),
        archer,
        estoc::rules::movement::MovementAction::Move,
        Square::new(7, 10),
        &[],
    )
    .expect_err("nobody walks at chase scale");
    assert!(refused.rule.contains("004:650"), "{refused:?}");
    let griffon = entity(&app, "griffon-1");
    let flights = estoc::rules::aerial::flying::plan_flights(app.world_mut(), griffon, &[], None).unwrap();
    let furthest = flights.keys().map(|s| s.x).max().unwrap();
    assert_eq!(furthest, 8, "from x 4: 4 squares ahead at most");
    let diving = estoc::rules::aerial::flying::plan_flights(
        app.world_mut(),
        griffon,
        &[estoc::rules::aerial::route::FlightStep::Dive { far: false }],
        None,
    )
    .unwrap();
    // Diving, it would reach x 12, but the peak at x 10-11 of its row stops it at 9, and no flight cuts the
    // peak's corner to the row below, as no step does (« On ne peut pas franchir un coin en diagonale »,
    // 000:61).
    assert_eq!(diving.keys().map(|s| s.x).max().unwrap(), 9, "a dive reaches further");
    assert!(!diving.contains_key(&Square::new(10, 7)), "the peak");
    assert!(!diving.contains_key(&Square::new(10, 8)), "round the peak's corner");
    assert!(diving.values().all(|p| p.flight.waypoints.last().unwrap().altitude == 1), "one band down");
}

/// A rider's turn with the mouse (004:653, 004:806-812): the party of rider and griffon acts together; the
/// flights the preview offers are the griffon's, a click on one flies the griffon with the rider's move
/// action and carries the rider along, and a click on the foe then shoots with the rider.
#[test]
fn a_rider_flies_its_griffon_and_shoots_with_the_mouse() {
    use estoc::game::clicks::click_step;
    use estoc::game::state::Previews;
    use estoc::game::turn::human_turn;
    use estoc::rules::turns::{ActionBudget, ActionKind, TurnOrder};
    let encounter = level("skyway.ron");
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    // Seed 2: the dragon (the computer's) first; its turn passes and it drops 3 bands.
    let _ = perform(app.world_mut(), &Command::EndTurn { creature: "dragon".into() });
    app.update();
    app.update();
    let (rider, griffon) = (entity(&app, "rider-2"), entity(&app, "griffon-2"));
    assert_eq!(human_turn(app.world()), Some(rider));
    assert_eq!(app.world().resource::<TurnOrder>().acting, vec![rider, griffon]);
    let flights = app.world().resource::<Previews>().flights.clone().expect("the griffon's flights");
    let mine = estoc::rules::aerial::flying::plan_flights(app.world_mut(), griffon, &[], None).unwrap();
    assert_eq!(flights.keys().collect::<std::collections::BTreeSet<_>>(), mine.keys().collect());
    let to = *flights
        .iter()
        // Within its speed (slow), so that the rider keeps her standard action (004:807).
        .filter(|(s, p)| {
            s.x > 4 && p.flight.checks.is_empty() && p.flight.status == estoc::rules::core::names::SpeedStatus::Slow
        })
        .min_by_key(|(s, _)| (s.x, s.y))
        .unwrap()
        .0;
    let step = click_step(app.world_mut(), to).expect("a flight");
    assert!(matches!(&step, Command::Fly { creature, .. } if creature == "griffon-2"), "{step:?}");
    let from = app.world().resource::<EventLog>().0.len();
    let _ = perform(app.world_mut(), &step);
    app.update();
    let facts = facts_since(&app, from);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Flew { creature, to: t, .. } if creature.0 == "griffon-2" && *t == to)),
        "{facts:?}"
    );
    assert_eq!(app.world().get::<Position>(rider).unwrap().0, to, "the rider goes where her griffon goes");
    let budget = *app.world().get::<ActionBudget>(rider).unwrap();
    assert!(budget.riding && !budget.move_action, "riding took her move action: {budget:?}");
    assert!(budget.check(ActionKind::Standard).is_ok());
    let dragon_at = app.world().get::<Position>(entity(&app, "dragon")).unwrap().0;
    let shot = click_step(app.world_mut(), dragon_at).expect("a shot");
    assert!(
        matches!(&shot, Command::Attack { creature, target, full: false, .. } if creature == "rider-2" && target == "dragon"),
        "{shot:?}"
    );
}

/// The declared speed from the keyboard (V, 004:686): the griffon declares a fast flight, the preview
/// offers only fast flights and the rules fly the one clicked as fast; the giant wasp declares a hover and
/// stays where it is by a click on itself (004:708).
#[test]
fn a_flier_declares_its_speed_and_hovers_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::clicks::click_step;
    use estoc::game::state::{Choice, Controllers, Previews};
    use estoc::game::turn::human_turn;
    use estoc::rules::core::names::SpeedStatus;
    let encounter = level_at("tests/scenarios/levels/stoop.ron");
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    let _ = perform(app.world_mut(), &Command::EndTurn { creature: "ogre".into() });
    app.update();
    assert_eq!(human_turn(app.world()), Some(entity(&app, "griffon")));
    // An average flier: undeclared, a stall, a deceleration, slow, fast.
    for _ in 0..4 {
        use_bar(app.world_mut(), BarKind::Speed);
    }
    assert_eq!(app.world().resource::<Choice>().speed, Some(SpeedStatus::Fast));
    app.update();
    let flights = app.world().resource::<Previews>().flights.clone().expect("the griffon's flights");
    assert!(!flights.is_empty() && flights.values().all(|p| p.flight.status == SpeedStatus::Fast));
    assert!(flights.get(&Square::new(8, 3)).is_none_or(|p| p.flight.maneuvers > 0), "8 squares ahead would be slow");
    let to = *flights.keys().max_by_key(|s| (s.x, -s.y)).unwrap();
    let step = click_step(app.world_mut(), to).expect("a flight");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Flew { to: t, status: SpeedStatus::Fast, .. } if *t == to)),
        "{facts:?}"
    );

    // The wasp, played by a person here: a good flier may hover.
    let encounter = level_at("tests/scenarios/levels/hive.ron");
    let mut app = started(&encounter, 5);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("vermin".into(), Control::Human);
    app.update();
    let wasp = entity(&app, "wasp");
    pass_turns_until(&mut app, wasp);
    use_bar(app.world_mut(), BarKind::Speed);
    assert_eq!(app.world().resource::<Choice>().speed, Some(SpeedStatus::Hover));
    app.update();
    let here = app.world().get::<Position>(wasp).unwrap().0;
    let flights = app.world().resource::<Previews>().flights.clone().expect("the wasp's flights");
    assert!(flights.values().all(|p| p.flight.status == SpeedStatus::Hover && p.flight.spent <= 3));
    let step = click_step(app.world_mut(), here).expect("a hover where it is");
    assert!(matches!(&step, Command::Fly { hover: true, steps, .. } if steps.is_empty()), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Flew { to, status: SpeedStatus::Hover, .. } if *to == here)),
        "{facts:?}"
    );
}

/// Breathing with the mouse: in breath mode (B) the preview names whom a breath at the hovered creature
/// would cover, the same the rules then cover; a line into the blind spot is refused in the preview as by
/// the rules (004:676).
#[test]
fn a_dragon_breathes_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::clicks::click_step;
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/breath.ron");
    // Seed 8: the red first, the blue last, still in the air.
    let mut app = started(&encounter, 8);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("dragons".into(), Control::Human);
    app.update();
    let red = entity(&app, "red");
    pass_turns_until(&mut app, red);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Breath));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(15, 5));
    app.update();
    let covered = app.world().resource::<Previews>().breath.clone().expect("a breath preview").expect("in reach");
    assert_eq!(covered, vec![entity(&app, "fighter"), entity(&app, "squire")]);
    let step = click_step(app.world_mut(), Square::new(15, 5)).expect("a breath");
    assert!(
        matches!(&step, Command::Breathe { creature, toward } if creature == "red" && toward == "fighter"),
        "{step:?}"
    );
    let facts = play(&mut app, &step);
    let names: Vec<String> = covered
        .iter()
        .map(|e| app.world().get::<estoc::rules::core::creature::CreatureId>(*e).unwrap().0.clone())
        .collect();
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Breathed { covered, .. }
            if covered.iter().map(|c| c.0.clone()).collect::<Vec<_>>() == names)),
        "{facts:?}"
    );
    // The blue's line at the scout behind it: refused in the preview, for the rule that refuses it.
    let blue = entity(&app, "blue");
    pass_turns_until(&mut app, blue);
    // The click above went straight to the rules: the mode is still the breath's.
    assert_eq!(app.world().resource::<estoc::game::state::Choice>().mode, Mode::Breath);
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(8, 12));
    app.update();
    let refused = app.world().resource::<Previews>().breath.clone().expect("a breath preview").unwrap_err();
    assert_eq!(refused.rule, "004:676");
}

/// The flier clicked on `square` as a person would, the step the click asks for taken from the queue.
fn clicked(app: &mut App, square: Square) -> Option<Command> {
    estoc::game::clicks::click(app.world_mut(), square);
    app.world_mut().resource_mut::<estoc::game::state::Pending>().0.pop_front()
}

/// A click on an action that provokes where the creature stands: the first click declares it when a foe
/// would strike (the declaration's words given back, the rule among them) and a second carries it out; when
/// none would, the first carries it out.
fn clicked_past_the_question(app: &mut App, square: Square) -> (Option<String>, Option<Command>) {
    if let Some(step) = clicked(app, square) {
        return (None, Some(step));
    }
    let asked = estoc::game::declare::current(app.world()).map(|d| format!("{:?}", d.why));
    (asked, clicked(app, square))
}

/// A swoop with the mouse (004:751, 004:755): in flyby mode (H) after 6 m of dives (Z four times), hovering
/// the ogre shows the flight that strikes it; a click on it chooses the attack, the preview then offers only
/// flights that go on from there with the flyby's two manoeuvres left, and a click on one of them flies it,
/// the fly check DC 20 rolled and the claw struck on the way.
#[test]
fn a_flier_swoops_on_a_foe_on_its_way_with_the_mouse() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Choice, Hover, Mode, Previews};
    use estoc::game::turn::human_turn;
    let encounter = level_at("tests/scenarios/levels/stoop.ron");
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    play(&mut app, &Command::EndTurn { creature: "ogre".into() });
    let (griffon, ogre) = (entity(&app, "griffon"), entity(&app, "ogre"));
    assert_eq!(human_turn(app.world()), Some(griffon));
    use_bar(app.world_mut(), BarKind::Mode(Mode::Flyby));
    app.world_mut().resource_mut::<Choice>().climb = -4;
    let ogre_at = Square::new(12, 3);
    app.world_mut().resource_mut::<Hover>().square = Some(ogre_at);
    app.update();
    let strike = app.world().resource::<Previews>().manoeuvre.clone().expect("a flight shown").expect("a swoop");
    assert!(strike.flight.spent <= 16, "a slow flight: {:?}", strike.flight);
    assert_eq!(clicked(&mut app, ogre_at), None, "the first click chooses the attack");
    let point = app.world().resource::<Choice>().flyby.clone().expect("the flyby chosen");
    assert!(point.swoop && point.target == ogre && point.planned == strike);
    app.update();
    let flights = app.world().resource::<Previews>().flights.clone().unwrap();
    let beyond: Vec<&Square> = flights.keys().filter(|s| s.x > 13).collect();
    assert!(!beyond.is_empty(), "the flight goes on past the ogre");
    assert!(flights.values().all(|p| p.steps.starts_with(&point.planned.steps)));
    let to = **beyond.iter().max_by_key(|s| (s.x, -s.y)).unwrap();
    let step = clicked(&mut app, to).expect("the flight");
    let after = point.planned.steps.len();
    assert!(
        matches!(&step, Command::Fly { flyby: Some((t, n)), swoop: true, .. } if t == "ogre" && *n == after),
        "{step:?}"
    );
    assert_eq!(app.world().resource::<Choice>().flyby, None, "spent with the flight");
    let facts = play(&mut app, &step);
    let made = facts
        .iter()
        .find_map(|f| match f {
            Fact::CheckRolled { creature, reason, success, dc, .. } if creature.0 == "griffon" => {
                assert!(reason.starts_with("swoop"), "{reason}");
                assert_eq!(*dc, 20);
                Some(*success)
            }
            _ => None,
        })
        .expect("the swoop's fly check");
    let clawed = facts.iter().any(
        |f| matches!(f, Fact::AttackRolled { attacker, weapon, .. } if attacker.0 == "griffon" && weapon == "claw"),
    );
    assert_eq!(clawed, made, "the claw strikes when the check is made: {facts:?}");
}

/// A deceleration with the mouse (004:759): the declared speed (V) past the stall is a deceleration; the
/// preview offers only stalls with two of the slow row's manoeuvres left (004:760), and the click flies one
/// as a deceleration, the fly check DC 15 rolled.
#[test]
fn a_flier_decelerates_with_the_mouse() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Choice, Previews};
    use estoc::rules::core::names::SpeedStatus;
    let encounter = level_at("tests/scenarios/levels/stoop.ron");
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    play(&mut app, &Command::EndTurn { creature: "ogre".into() });
    use_bar(app.world_mut(), BarKind::Speed);
    use_bar(app.world_mut(), BarKind::Speed);
    let choice = app.world().resource::<Choice>().clone();
    assert_eq!((choice.speed, choice.decelerate), (Some(SpeedStatus::Stall), true));
    app.update();
    let flights = app.world().resource::<Previews>().flights.clone().unwrap();
    assert!(!flights.is_empty() && flights.values().all(|p| p.flight.status == SpeedStatus::Stall));
    // Read on the slow row (004:760): turns besides the deceleration's two manoeuvres, beyond the stall
    // row's two of an average flier.
    assert!(flights.values().any(|p| p.flight.maneuvers >= 1), "no deceleration with a turn offered");
    let to = *flights.keys().max_by_key(|s| (s.x, -s.y)).unwrap();
    let step = clicked(&mut app, to).expect("the flight");
    assert!(matches!(&step, Command::Fly { decelerate: true, .. }), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::CheckRolled { creature, reason, dc: 15, .. }
            if creature.0 == "griffon" && reason.starts_with("deceleration"))),
        "{facts:?}"
    );
}

/// Collisions with the mouse (X, 004:758, 004:825): at chase scale a click on the dragon sharing a square
/// in the griffon's band flies the collision manoeuvre into it, the fly check DC 15 rolled, and on a flier
/// in another band the preview says why there is none; at normal scale, at the top speed declared, a click on
/// the far dragon flies into its space, and the rules make the collision there.
#[test]
fn a_flier_rams_another_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/chase.ron");
    // Seed 1: the griffon first, the dragon still in its band (a flier that does not fly falls).
    let mut app = started(&encounter, 1);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("dragons".into(), Control::Human);
    app.update();
    let griffon = entity(&app, "griffon");
    pass_turns_until(&mut app, griffon);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Ram));
    let square = Square::new(7, 5);
    *app.world_mut().resource_mut::<Hover>() =
        Hover { square: Some(square), token: Some(entity(&app, "high")), corner: None };
    app.update();
    let refused = app.world().resource::<Previews>().manoeuvre.clone().unwrap().expect_err("band 5 is out of reach");
    assert_eq!(refused.rule, "004:758");
    *app.world_mut().resource_mut::<Hover>() =
        Hover { square: Some(square), token: Some(entity(&app, "dragon")), corner: None };
    app.update();
    let shown = app.world().resource::<Previews>().manoeuvre.clone();
    assert!(matches!(shown, Some(Ok(_))), "{shown:?}");
    let step = clicked(&mut app, square).expect("the collision");
    assert!(matches!(&step, Command::Fly { ram: Some(t), .. } if t == "dragon"), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::CheckRolled { creature, reason, dc: 15, .. }
            if creature.0 == "griffon" && reason.starts_with("collision"))),
        "{facts:?}"
    );

    let encounter = level_at("tests/scenarios/levels/collision.ron");
    // Seed 2: the griffon first.
    let mut app = started(&encounter, 2);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("dragons".into(), Control::Human);
    app.update();
    let griffon = entity(&app, "griffon");
    pass_turns_until(&mut app, griffon);
    let dragon_at = Square::new(38, 5);
    *app.world_mut().resource_mut::<Hover>() =
        Hover { square: Some(dragon_at), token: Some(entity(&app, "dragon")), corner: None };
    use_bar(app.world_mut(), BarKind::Mode(Mode::Ram));
    app.update();
    assert!(app.world().resource::<Previews>().manoeuvre.clone().unwrap().is_err(), "too far at a fast flight");
    // Undeclared, a stall, a deceleration, slow, fast, top speed.
    for _ in 0..5 {
        use_bar(app.world_mut(), BarKind::Speed);
    }
    app.update();
    let flight = app.world().resource::<Previews>().manoeuvre.clone().unwrap().expect("a flight into it");
    assert_eq!(flight.flight.status, estoc::rules::core::names::SpeedStatus::TopSpeed);
    let step = clicked(&mut app, dragon_at).expect("the flight");
    assert!(matches!(&step, Command::Fly { ram: None, .. }), "at normal scale no manoeuvre: {step:?}");
    let facts = play(&mut app, &step);
    assert!(
        facts
            .iter()
            .any(|f| matches!(f, Fact::Collided { creature, with, .. } if creature.0 == "griffon" && with == "dragon")),
        "{facts:?}"
    );
}

/// The pursuit level started at the griffon's first turn: the first seed that gives it.
fn griffon_first_in_pursuit() -> (App, Encounter) {
    let encounter = level_at("tests/scenarios/levels/pursuit.ron");
    for seed in 0..32 {
        let mut app = started(&encounter, seed);
        estoc::game::overlays_headless(&mut app, &encounter);
        app.update();
        if estoc::game::turn::human_turn(app.world()) == Some(entity(&app, "griffon")) {
            return (app, encounter);
        }
    }
    panic!("no seed puts the griffon first");
}

/// Hiding from the keyboard (I, 004:816-817): refused before the flight, with the rule; after a flight to
/// the tower the button opens, and the Hide is rolled against the dragon's Spot; a dragon that lost the
/// griffon cannot attack it.
#[test]
fn a_flier_hides_by_the_tower_with_the_keyboard() {
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::clicks::click_step;
    use estoc::game::state::Pending;
    let (mut app, _) = griffon_first_in_pursuit();
    let refused = bar_state(app.world(), BarKind::Hide).expect_err("not flown yet");
    assert_eq!(refused.rule, "004:816-817");
    let step = click_step(app.world_mut(), Square::new(13, 9)).expect("a flight to the tower");
    play(&mut app, &step);
    assert!(bar_state(app.world(), BarKind::Hide).is_ok());
    use_bar(app.world_mut(), BarKind::Hide);
    let step = app.world_mut().resource_mut::<Pending>().0.pop_front().expect("the hide");
    let facts = play(&mut app, &step);
    let won = facts
        .iter()
        .find_map(|f| match f {
            Fact::Opposed { creature, check, opponent, won, .. }
                if creature.0 == "griffon" && *check == estoc::rules::core::checks::Check::Hide =>
            {
                assert_eq!(opponent.0, "dragon");
                Some(*won)
            }
            _ => None,
        })
        .expect("the Hide against the dragon's Spot");
    play(&mut app, &Command::EndTurn { creature: "griffon".into() });
    let (griffon, dragon) = (entity(&app, "griffon"), entity(&app, "dragon"));
    let attack = attack_preview(app.world_mut(), dragon, griffon, AttackRequest::default());
    if won {
        assert_eq!(attack.expect_err("lost sight").rule, "004:816-817");
    } else {
        assert!(attack.is_err_and(|r| r.rule != "004:816-817"), "still seen, only out of reach");
    }
}

/// Bluffing with the mouse (J, 004:818): the dragon clicked first, the board then offers only the flights
/// that turn into the cloud bank or dive away, and the flight clicked carries the Bluff against the
/// dragon's Sense Motive.
#[test]
fn a_flier_bluffs_its_pursuer_with_the_mouse() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Choice, Hover, Mode, Previews};
    let (mut app, _) = griffon_first_in_pursuit();
    let dragon = entity(&app, "dragon");
    use_bar(app.world_mut(), BarKind::Mode(Mode::Bluff));
    let at = app.world().get::<Position>(dragon).unwrap().0;
    *app.world_mut().resource_mut::<Hover>() = Hover { square: Some(at), token: Some(dragon), corner: None };
    assert_eq!(clicked(&mut app, at), None, "the first click names the pursuer");
    assert_eq!(app.world().resource::<Choice>().bluff, Some(dragon));
    app.update();
    let flights = app.world().resource::<Previews>().flights.clone().unwrap();
    assert!(!flights.is_empty());
    let field = app.world().resource::<estoc::rules::core::battlefield::Battlefield>().clone();
    let height = app.world().get::<estoc::rules::core::creature::Altitude>(entity(&app, "griffon")).unwrap().0;
    for planned in flights.values() {
        // Into the cloud, or 6 m down by dives or a wingover.
        let end = planned.flight.waypoints.last().unwrap();
        assert!(field.is_foggy(end.square) || end.altitude <= height - 4, "{:?}", planned.steps);
    }
    let to = *flights.keys().max_by_key(|s| (s.x, s.y)).unwrap();
    let step = clicked(&mut app, to).expect("the flight");
    assert!(matches!(&step, Command::Fly { bluff: Some(p), .. } if p == "dragon"), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Opposed { creature, check, opponent, .. }
            if creature.0 == "griffon" && *check == estoc::rules::core::checks::Check::Bluff && opponent.0 == "dragon")),
        "{facts:?}"
    );
}

/// Coming about with the mouse (004:774-780): a square behind the griffon is offered by a wingover, with
/// its fly check, and the flight clicked ends 6 m lower, turned about when the check is made, flying on
/// elsewhere and as low when it fails.
#[test]
fn a_flier_comes_about_by_a_wingover_with_the_mouse() {
    use estoc::rules::aerial::AdvancedManeuver;
    use estoc::rules::aerial::route::FlightStep;
    use estoc::rules::core::creature::{Altitude, Heading};
    use estoc::rules::core::geometry::Direction;
    let (mut app, encounter) = griffon_first_in_pursuit();
    let griffon = entity(&app, "griffon");
    // It has just turned (as after a turn in its last flight): no simple turn before a square's flight, so
    // the squares behind it are a wingover's (004:745, 004:774).
    app.world_mut().get_mut::<estoc::rules::aerial::flying::Flight>(griffon).unwrap().since_maneuver = 0;
    app.world_mut().resource_mut::<estoc::game::state::Previews>().forget();
    app.update();
    let at = app.world().get::<Position>(griffon).unwrap().0;
    let height = app.world().get::<Altitude>(griffon).unwrap().0;
    assert_eq!(app.world().get::<Heading>(griffon).unwrap().0, Direction::East);
    let flights = app.world().resource::<estoc::game::state::Previews>().flights.clone().unwrap();
    let wingover = |s: &FlightStep| matches!(s, FlightStep::Wingover { .. });
    // The nearest square behind it that a wingover reaches, away from the dragon (a click there would be
    // on it).
    let dragon = entity(&app, "dragon");
    let space = app.world().get::<estoc::rules::core::creature::Space>(dragon).unwrap();
    let dragon_at = space.at(app.world().get::<Position>(dragon).unwrap().0);
    let (target, planned) = flights
        .iter()
        .filter(|(s, p)| s.x < at.x && !dragon_at.contains(**s) && p.steps.iter().any(wingover))
        .min_by_key(|(s, _)| ((s.x - at.x).abs().max((s.y - at.y).abs()), s.y, s.x))
        .expect("a wingover behind the griffon");
    let target = *target;
    assert!(planned.flight.checks.iter().any(|c| matches!(c.maneuver, AdvancedManeuver::Wingover(_))));
    let end = *planned.flight.waypoints.last().unwrap();
    assert_eq!(end.altitude, height - 4, "6 m lower");
    // The same click, the checks made and failed: the seeds that put the griffon first.
    let (mut made, mut failed) = (false, false);
    for seed in 0..64 {
        let mut app = started(&encounter, seed);
        estoc::game::overlays_headless(&mut app, &encounter);
        app.update();
        if estoc::game::turn::human_turn(app.world()) != Some(griffon) {
            continue;
        }
        app.world_mut().get_mut::<estoc::rules::aerial::flying::Flight>(griffon).unwrap().since_maneuver = 0;
        app.world_mut().resource_mut::<estoc::game::state::Previews>().forget();
        app.update();
        let step = clicked(&mut app, target).expect("the flight");
        let facts = play(&mut app, &step);
        let checks: Vec<(bool, String)> = facts
            .iter()
            .filter_map(|f| match f {
                Fact::CheckRolled { creature, check, success, reason, .. }
                    if creature.0 == "griffon" && *check == estoc::rules::core::checks::Check::Fly =>
                {
                    Some((*success, reason.clone()))
                }
                _ => None,
            })
            .collect();
        // An advanced manoeuvre failed before it: no wingover (004:749).
        let Some(wingover_check) = checks.iter().find(|(_, r)| r.starts_with("wingover of")) else { continue };
        let now = app.world().get::<Position>(griffon).unwrap().0;
        assert_eq!(app.world().get::<Altitude>(griffon).unwrap().0, height - 4, "6 m lower either way");
        if checks.iter().all(|(made, _)| *made) {
            assert_eq!(now, target);
            assert_eq!(app.world().get::<Heading>(griffon).unwrap().0, end.heading);
            made = true;
        } else if !wingover_check.0 {
            assert_ne!(now, target);
            assert!(wingover_check.1.contains("failed: the heading stays"), "{}", wingover_check.1);
            failed = true;
        }
        if made && failed {
            break;
        }
    }
    assert!(made && failed, "made {made}, failed {failed}");
}

/// Readying any standard, move or free action with the mouse (004:620-622): in ready mode (Y) the bar's
/// cast (K), total defence (D) and move (M) choose the action, and a click on a creature readies it for when
/// that creature acts; a spell of a round cannot be readied (004:621), and the rules say so.
#[test]
fn any_action_is_readied_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Mode};
    use estoc::rules::turns::ready::{ReadiedAction, Trigger};
    let encounter = level_at("tests/scenarios/levels/spells.ron");
    let mut app = started(&encounter, 5);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("raiders".into(), Control::Human);
    app.update();
    let readied = |facts: &[Fact], what: &str| {
        facts.iter().any(|f| matches!(f, Fact::ActionReadied { action, .. } if action == what))
    };
    // The wizard readies magic missile for the goblin acting: the spell goes at the goblin.
    let wizard = entity(&app, "wizard");
    pass_turns_until(&mut app, wizard);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Ready));
    use_bar(app.world_mut(), BarKind::Cast);
    let step = clicked(&mut app, Square::new(4, 3)).expect("a readied spell");
    assert!(
        matches!(&step, Command::Ready { action: ReadiedAction::Cast { spell, target: Some(t) }, trigger: Trigger::Acts(by), .. }
            if spell == "magic missile" && t == "goblin" && by == "goblin"),
        "{step:?}"
    );
    let facts = play(&mut app, &step);
    assert!(readied(&facts, "cast magic missile on goblin"), "{facts:?}");
    // The druid's first spell takes a round: refused for 004:621. Then total defence for the orc acting.
    let druid = entity(&app, "druid");
    pass_turns_until(&mut app, druid);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Ready));
    use_bar(app.world_mut(), BarKind::Cast);
    let step = clicked(&mut app, Square::new(3, 1)).expect("a readied spell");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::ActionRefused { rule, .. } if rule == "004:621")),
        "{step:?} {facts:?}"
    );
    // The click sent the step: ready mode again, and total defence.
    use_bar(app.world_mut(), BarKind::Mode(Mode::Ready));
    use_bar(app.world_mut(), BarKind::TotalDefense);
    let step = clicked(&mut app, Square::new(3, 1)).expect("a readied total defence");
    let facts = play(&mut app, &step);
    assert!(readied(&facts, "total defence"), "{facts:?}");
    // The goblin readies a move: its square first, then the creature whose action sets it off.
    let goblin = entity(&app, "goblin");
    pass_turns_until(&mut app, goblin);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Ready));
    use_bar(app.world_mut(), BarKind::Mode(Mode::Move(MovementAction::Move)));
    assert_eq!(clicked(&mut app, Square::new(6, 4)), None);
    let step = clicked(&mut app, Square::new(2, 4)).expect("a readied move");
    let facts = play(&mut app, &step);
    assert!(readied(&facts, "move to (6,4)"), "{step:?} {facts:?}");
}

/// A trip with the mouse (004:483-489): in trip mode (`;`) the hovered foe shows the touch attack against its
/// touch AC (no armour or shield, 004:199) and the opposed check with their terms, and a click trips it.
/// The orc, its turn passed: touch AC 10 (Dex +0); the halberdier's touch attack +6 (base +2, Str +3,
/// Weapon Focus +1) lands on 4 or more, 85%; Strength +3 against the orc's better of Str and Dex, +3: even.
#[test]
fn a_foe_is_tripped_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/trip.ron");
    let mut app = started(&encounter, 6);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("beasts".into(), Control::Human);
    app.update();
    // Everyone before the halberdier ends its turn: the orc has acted, no longer flat-footed.
    let halberdier = entity(&app, "halberdier");
    let orc = entity(&app, "orc");
    pass_turns_until(&mut app, orc);
    play(&mut app, &Command::EndTurn { creature: "orc".into() });
    pass_turns_until(&mut app, halberdier);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Trip));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 1));
    app.update();
    let trip = app.world().resource::<Previews>().trip.clone().expect("a trip preview").expect("a trip");
    assert_eq!(trip.plan.touch.armor_class, 10, "{:?}", trip.plan.touch.armor_class_parts);
    assert!((trip.touch_chance - 0.85).abs() < 1e-6);
    assert!((trip.check_chance - 0.5).abs() < 1e-6);
    assert!(!trip.plan.provokes, "a trip weapon provokes nothing (004:489)");
    let step = clicked(&mut app, Square::new(3, 1)).expect("a trip");
    assert!(matches!(&step, Command::Trip { creature, target, .. } if creature == "halberdier" && target == "orc"));
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::AttackRolled { weapon, armor_class: 10, .. } if weapon == "halberd")),
        "{facts:?}"
    );
}

/// A bull rush with the mouse (004:446-450): in bull rush mode (`.`) the hovered orc shows the check, Strength
/// +3 against +3, an even chance; the way the push would go, stopped by the wall after two squares, the
/// fighter following; with `/` it stays, and the push is one square. The ogre, not next to the fighter, is
/// rushed at the end of a charge at +2 (004:458). A click on the orc rushes it.
#[test]
fn a_foe_is_bull_rushed_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/bull_rush.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("beasts".into(), Control::Human);
    app.update();
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Mode(Mode::BullRush));
    let hover = |app: &mut App, square: Square| {
        app.world_mut().resource_mut::<Hover>().square = Some(square);
        app.update();
        app.world().resource::<Previews>().bull_rush.clone().expect("a bull rush preview")
    };
    let rush = hover(&mut app, Square::new(4, 2)).expect("a bull rush");
    assert!((rush.chance - 0.5).abs() < 1e-6, "Str +3 against Str +3 (004:448)");
    assert_eq!(rush.charge_to, None);
    let origins = |f: &[estoc::rules::core::geometry::Footprint]| f.iter().map(|f| f.origin).collect::<Vec<_>>();
    assert_eq!(origins(&rush.plan.pushes), vec![Square::new(5, 2), Square::new(6, 2)], "the wall at (7, 2)");
    assert_eq!(origins(&rush.plan.follows), vec![Square::new(4, 2), Square::new(5, 2)]);
    use_bar(app.world_mut(), BarKind::Stay);
    app.world_mut().resource_mut::<Hover>().square = None;
    app.update();
    let stay = hover(&mut app, Square::new(4, 2)).expect("a bull rush");
    assert_eq!(origins(&stay.plan.pushes), vec![Square::new(5, 2)]);
    assert!(stay.plan.follows.is_empty());
    use_bar(app.world_mut(), BarKind::Stay);
    app.world_mut().resource_mut::<Hover>().square = None;
    app.update();
    let ogre = hover(&mut app, Square::new(2, 6)).expect("a charging bull rush");
    assert!(ogre.charge_to.is_some());
    assert!(ogre.plan.attacker.terms.iter().any(|m| m.value == 2 && m.source.contains("004:458")));
    assert_eq!(ogre.plan.defender.bonus(), 5 + 4, "the ogre's Str +5 and Large +4 (004:448)");
    let step = clicked(&mut app, Square::new(4, 2)).expect("a bull rush");
    assert!(
        matches!(&step, Command::BullRush { creature, target, stay: false } if creature == "fighter" && target == "orc")
    );
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Opposed { reason, .. } if reason.contains("bull rush"))),
        "{facts:?}"
    );
}

/// Turning undead with the mouse (004:538-575): in turn mode (`\\`) the panel's plan lists the undead within
/// 18 m with a line of effect, nearest first, each with the chance the check reaches it: a skeleton (1 HD)
/// on 2 or more, 95%; the zombie (2 HD) on 5 or more, 80%; the ghoul (2 HD, turn resistance +2) on 11 or
/// more, 50%. The skeleton behind the wall and the one beyond 18 m are not there. A click turns.
#[test]
fn undead_are_turned_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/turning.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("dead".into(), Control::Human);
    app.update();
    let cleric = entity(&app, "cleric");
    pass_turns_until(&mut app, cleric);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Turn(estoc::rules::special::turning::TurnKind::Turn)));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(15, 6));
    app.update();
    let plan = app.world().resource::<Previews>().turning.clone().expect("a turning preview").expect("a turning");
    let chance = |id: &str| {
        let u = plan.undead.iter().find(|u| u.id.0 == id).unwrap_or_else(|| panic!("{id} in reach"));
        plan.chance_for(u.against_check)
    };
    assert!((chance("skeleton-1") - 0.95).abs() < 1e-6);
    assert!((chance("zombie") - 0.80).abs() < 1e-6);
    assert!((chance("ghoul") - 0.50).abs() < 1e-6);
    assert!(plan.undead.iter().all(|u| u.id.0 != "hidden" && u.id.0 != "far"), "{:?}", plan.undead);
    assert_eq!(plan.uses_left, 4, "3 + Cha 14's +2, one spent by this turning (004:541)");
    let step = clicked(&mut app, Square::new(15, 6)).expect("a turning");
    assert!(matches!(&step, Command::TurnUndead { creature, .. } if creature == "cleric"));
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::TurningChecked { .. })), "{facts:?}");
}

/// A disarm with the mouse (004:490-498): in disarm mode (`1`) the hovered orc shows the opposed attack
/// rolls, the fighter's longsword +6 against the orc's falchion +4 and +4 two-handed (004:493), that it
/// provokes and that the orc may disarm back. A click disarms; won, the falchion lies at the orc's feet,
/// and on the orc's turn the pick-up (`2`) is open to it and takes the falchion back into its hand.
#[test]
fn a_foe_is_disarmed_with_the_mouse_and_picks_its_weapon_up() {
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::state::{Hover, Mode, Previews};
    use estoc::rules::attack::gear::GroundWeapon;
    use estoc::rules::core::creature::{Armament, Condition};
    let mut app = disarm_yard_played_by_people();
    let (fighter, orc) = (entity(&app, "fighter"), entity(&app, "orc"));
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Disarm));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 2));
    app.update();
    let plan = app.world().resource::<Previews>().disarm.clone().expect("a disarm preview").expect("a disarm");
    assert_eq!((plan.attacker.bonus(), plan.defender.bonus()), (6, 8), "{plan:?}");
    assert_eq!(plan.item.name, "falchion");
    assert!(plan.provokes && plan.counter);
    let (asked, step) = clicked_past_the_question(&mut app, Square::new(3, 2));
    let step = step.expect("a disarm");
    // It provokes where it stands: the first click only declared it, naming who would strike (004:66).
    assert_eq!(asked.as_deref(), Some(r#"Provokes { who: ["Orc"], rule: "004:492" }"#));
    assert!(matches!(&step, Command::Disarm { creature, target, .. } if creature == "fighter" && target == "orc"));
    // The orc's attack of opportunity misses (if it may make one), the fighter rolls 20 against 1.
    let flat_footed =
        app.world().get::<estoc::rules::core::creature::Conditions>(orc).unwrap().has(Condition::FlatFooted);
    let dice: &[u32] = if flat_footed { &[20, 1] } else { &[1, 20, 1] };
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force(dice.iter().copied());
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::Disarmed { weapon, taken: false, .. } if weapon == "falchion")),
        "{facts:?}"
    );
    let lying: Vec<GroundWeapon> = {
        let world = app.world_mut();
        world.query::<&GroundWeapon>().iter(world).cloned().collect()
    };
    assert_eq!(lying.len(), 1);
    assert_eq!(lying[0].at, Square::new(3, 2));
    pass_turns_until(&mut app, orc);
    assert_eq!(bar_state(app.world(), BarKind::PickUp), Ok(()));
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([1]);
    // Picking up provokes (004:128) from the fighter beside it: the press declares it, a second one goes.
    use_bar(app.world_mut(), BarKind::PickUp);
    assert!(app.world().resource::<estoc::game::state::Pending>().0.is_empty(), "declared, not yet sent");
    let declared = app.world().resource::<estoc::game::declare::Declared>().0.clone().expect("declared");
    assert!(
        matches!(&declared.why, estoc::game::declare::Why::Provokes { who, rule } if who.len() == 1 && *rule == "004:128"),
        "{declared:?}"
    );
    use_bar(app.world_mut(), BarKind::PickUp);
    let step = app.world_mut().resource_mut::<estoc::game::state::Pending>().0.pop_front().expect("the bar's step");
    assert!(matches!(&step, Command::PickUp { creature, .. } if creature == "orc"));
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::PickedUp { .. })), "{facts:?}");
    assert_eq!(app.world().get::<Armament>(orc).unwrap().0[0].name, "falchion");
}

/// A sunder with the mouse (004:499-523): in sunder mode (`3`) the hovered orc shows its falchion struck, a
/// two-handed blade of hardness 10 and 10 hit points (004:505-523), the rolls +6 against +8 (004:501), and
/// that it provokes; a click sunders.
#[test]
fn a_weapon_is_sundered_with_the_mouse() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Hover, Mode, Previews};
    let mut app = disarm_yard_played_by_people();
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Sunder));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 2));
    app.update();
    let plan = app.world().resource::<Previews>().sunder.clone().expect("a sunder preview").expect("a sunder");
    assert_eq!(plan.item.name, "falchion");
    assert_eq!(plan.toughness, (10, 10));
    assert_eq!((plan.attacker.bonus(), plan.defender.bonus()), (6, 8));
    assert!(plan.provokes);
    let (asked, step) = clicked_past_the_question(&mut app, Square::new(3, 2));
    let step = step.expect("a sunder");
    // It provokes where it stands: the first click only declared it, naming who would strike (004:66).
    assert_eq!(asked.as_deref(), Some(r#"Provokes { who: ["Orc"], rule: "004:500" }"#));
    assert!(matches!(&step, Command::Sunder { creature, target, .. } if creature == "fighter" && target == "orc"));
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::Opposed { reason, .. } if reason.contains("sunder"))), "{facts:?}");
}

/// Aid another with the mouse (004:444): in aid mode (`]` for +2 AC) the hovered orc shows the ally the aid
/// would help, the hero engaged with it, and the attack against AC 10: the squire's +6 lands on 4 or more,
/// 85%. A click aids, and the hero holds its bonus.
#[test]
fn an_ally_is_aided_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    use estoc::rules::core::creature::{AidKind, Aided};
    let encounter = level_at("tests/scenarios/levels/aid.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("orcs".into(), Control::Human);
    app.update();
    let squire = entity(&app, "squire");
    let hero = entity(&app, "hero");
    pass_turns_until(&mut app, squire);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Aid(AidKind::Defense)));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 2));
    app.update();
    let aid = app.world().resource::<Previews>().aid.clone().expect("an aid preview").expect("an aid");
    assert_eq!(aid.ally, hero);
    assert_eq!(aid.plan.armor_class, 10);
    assert!((aid.chance - 0.85).abs() < 1e-6, "{}", aid.chance);
    let step = clicked(&mut app, Square::new(3, 2)).expect("an aid");
    assert!(
        matches!(&step, Command::Aid { creature, ally, foe, kind: AidKind::Defense }
            if creature == "squire" && ally == "hero" && foe == "orc"),
        "{step:?}"
    );
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([10]);
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::AidGiven { .. })), "{facts:?}");
    assert_eq!(app.world().get::<Aided>(hero).map(|a| a.0.len()), Some(1));
}

/// A feint with the mouse (004:524-525): in feint mode (`'`) the hovered wolf shows the brawler's Bluff
/// with the -8 against an animal mind (Int 2) and the wolf's Sense Motive plus its base attack, and the
/// chance; a click feints.
#[test]
fn a_foe_is_feinted_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    use estoc::rules::special::feint::sum;
    let encounter = level_at("tests/scenarios/levels/trip.ron");
    let mut app = started(&encounter, 6);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("beasts".into(), Control::Human);
    app.update();
    let brawler = entity(&app, "brawler");
    pass_turns_until(&mut app, brawler);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Feint));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 4));
    app.update();
    let feint = app.world().resource::<Previews>().feint.clone().expect("a feint preview").expect("a feint");
    assert_eq!(sum(&feint.plan.bluff), -1 - 8, "{:?}", feint.plan.bluff);
    assert_eq!(sum(&feint.plan.sense_motive), 1 + 1, "{:?}", feint.plan.sense_motive);
    // -9 beats +2 only when its die is 12 or more above the other's: 36 of 400 pairs.
    assert!((feint.chance - 36.0 / 400.0).abs() < 1e-6, "{}", feint.chance);
    let step = clicked(&mut app, Square::new(3, 4)).expect("a feint");
    assert!(matches!(&step, Command::Feint { creature, target } if creature == "brawler" && target == "wolf"));
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::Opposed { reason, .. } if reason.contains("004:524"))), "{facts:?}");
}

/// A grapple with the mouse (004:576-618): in grapple mode (`4`) the hovered ogre shows the touch attack,
/// the checks +5 against +12 (base attack + Str + the special size modifier, 004:576-577) and the attack of
/// opportunity the grab provokes; a click grabs it, and the fighter, holding, stands inside the ogre's space
/// (004:586). The next turn a click on its own square finds the ogre (they share it), the damage mode shows
/// the check, and the bar's Escape (`8`) gets it out to a square next to the ogre (004:600-601).
#[test]
fn a_foe_is_grappled_and_escaped_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    use estoc::rules::core::creature::{Condition, Conditions, Position, Space};
    use estoc::rules::special::grapple::GrappleMove;
    let encounter = level_at("tests/scenarios/levels/grappling.ron");
    let mut app = started(&encounter, 5);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("brutes".into(), Control::Human);
    app.update();
    let (fighter, ogre) = (entity(&app, "fighter"), entity(&app, "ogre"));
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Grapple(GrappleMove::Grab)));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(4, 3));
    app.update();
    let preview = app.world().resource::<Previews>().grapple.clone().expect("a grapple preview").expect("a grab");
    let grab = preview.grab.clone().expect("a grab's plan");
    assert_eq!((grab.attacker.bonus(), grab.defender.bonus()), (5, 12), "{grab:?}");
    assert!(grab.provokes && grab.touch.is_some() && !grab.joining && grab.into.is_some());
    let (asked, step) = clicked_past_the_question(&mut app, Square::new(4, 3));
    let step = step.expect("a grab");
    // It provokes where it stands: the first click only declared it, naming who would strike (004:66).
    assert_eq!(asked.as_deref(), Some(r#"Provokes { who: ["Ogre"], rule: "004:581, 004:586" }"#));
    assert!(matches!(&step, Command::Grapple { creature, target: Some(t), action: GrappleMove::Grab, .. }
        if creature == "fighter" && t == "ogre"));
    let flat_footed = app.world().get::<Conditions>(ogre).unwrap().has(Condition::FlatFooted);
    // The ogre's attack of opportunity misses (if it may make one), the touch attack lands, the checks 20
    // against 1, the damage die 1.
    let dice: &[u32] = if flat_footed { &[20, 20, 1, 1] } else { &[1, 20, 20, 1, 1] };
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force(dice.iter().copied());
    let facts = play(&mut app, &step);
    assert_eq!(app.world().resource::<estoc::rules::core::dice::Dice>().forced_left(), 0);
    assert!(facts.iter().any(|f| matches!(f, Fact::Grappled { .. })), "{facts:?}");
    let footprint = |app: &App, e| {
        let world = app.world();
        world.get::<Space>(e).unwrap().at(world.get::<Position>(e).unwrap().0)
    };
    assert!(footprint(&app, ogre).contains(footprint(&app, fighter).origin), "inside the ogre's space");
    assert!(app.world().get::<Conditions>(fighter).unwrap().has(Condition::Grappling));
    assert!(app.world().get::<Conditions>(ogre).unwrap().has(Condition::Grappling));
    assert!(bar_state(app.world(), BarKind::GrappleNow(GrappleMove::Escape)).is_err(), "the standard action is spent");
    let id = app.world().get::<estoc::rules::core::creature::CreatureId>(fighter).unwrap().clone();
    play(&mut app, &Command::EndTurn { creature: id });
    pass_turns_until(&mut app, fighter);
    // Its own square, shared with the ogre: the hover finds the ogre.
    use_bar(app.world_mut(), BarKind::Mode(Mode::Grapple(GrappleMove::Damage)));
    app.world_mut().resource_mut::<Hover>().square = Some(footprint(&app, fighter).origin);
    app.update();
    assert_eq!(app.world().resource::<Previews>().hovered, Some(ogre));
    let damage = app.world().resource::<Previews>().grapple.clone().expect("a preview").expect("a damage");
    let hold = damage.hold.expect("a hold's plan");
    assert_eq!(hold.opponents.len(), 1);
    assert!((damage.chance - estoc::rules::core::checks::contest_chance(5, 12)).abs() < 1e-6);
    assert_eq!(bar_state(app.world(), BarKind::GrappleNow(GrappleMove::Escape)), Ok(()));
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([20, 1]);
    use_bar(app.world_mut(), BarKind::GrappleNow(GrappleMove::Escape));
    let step = app.world_mut().resource_mut::<estoc::game::state::Pending>().0.pop_front().expect("the bar's step");
    assert!(matches!(&step, Command::Grapple { target: None, action: GrappleMove::Escape, .. }));
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::GrappleEnded { .. })), "{facts:?}");
    assert!(!app.world().get::<Conditions>(fighter).unwrap().has(Condition::Grappling));
    assert!(footprint(&app, fighter).adjacent_to(footprint(&app, ogre)), "next to the ogre");
}

/// Drawing a light weapon in a grapple from the bar (`Shift+G`, 004:599): greyed while the falchion fills the
/// orc's hands, open once it is dropped, and the step it sends draws the dagger.
#[test]
fn a_light_weapon_is_drawn_in_a_grapple_from_the_bar() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::state::Controllers;
    use estoc::rules::core::creature::Armament;
    use estoc::rules::special::grapple::GrappleMove;
    let encounter = level_at("tests/scenarios/levels/grapple_draw.ron");
    let mut app = started(&encounter, 5);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("brutes".into(), Control::Human);
    app.update();
    let orc = entity(&app, "orc");
    pass_turns_until(&mut app, orc);
    let draw = BarKind::GrappleNow(GrappleMove::DrawLight);
    assert!(bar_state(app.world(), draw).is_err(), "in no grapple yet");
    let grab = Command::Grapple {
        creature: "orc".into(),
        target: Some("fighter".into()),
        action: GrappleMove::Grab,
        to: None,
    };
    let flat_footed = app
        .world()
        .get::<estoc::rules::core::creature::Conditions>(entity(&app, "fighter"))
        .unwrap()
        .has(estoc::rules::core::creature::Condition::FlatFooted);
    let dice: &[u32] = if flat_footed { &[20, 20, 1, 1] } else { &[1, 20, 20, 1, 1] };
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force(dice.iter().copied());
    let facts = play(&mut app, &grab);
    assert!(facts.iter().any(|f| matches!(f, Fact::Grappled { .. })), "{facts:?}");
    let full = bar_state(app.world(), draw).expect_err("the falchion fills both hands");
    assert_eq!(full.rule, "004:599");
    play(&mut app, &Command::Drop { creature: "orc".into(), weapon: "falchion".into() });
    assert_eq!(bar_state(app.world(), draw), Ok(()));
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([20, 1]);
    use_bar(app.world_mut(), draw);
    let step = app.world_mut().resource_mut::<estoc::game::state::Pending>().0.pop_front().expect("the bar's step");
    assert!(matches!(&step, Command::Grapple { target: None, action: GrappleMove::DrawLight, .. }), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::Drew { weapon, .. } if weapon == "dagger")), "{facts:?}");
    let armament = app.world().get::<Armament>(orc).unwrap();
    assert!(armament.ready().any(|w| w.name == "dagger"), "the dagger in hand");
}

/// A splash weapon with the mouse (004:528-530): in throw mode (`=`) the hovered thug is refused while the
/// flask is not prepared (004:144); the weapon's button prepares it, a full-round action; next turn the
/// hovered thug shows the ranged touch attack and the burst that splashes its neighbour; an empty square
/// offers the intersection nearest the cursor, at AC 5; a click there throws the flask at it, and the flask
/// is gone.
#[test]
fn a_flask_is_thrown_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    use estoc::rules::core::creature::Armament;
    use estoc::rules::core::geometry::Corner;
    let encounter = level_at("tests/scenarios/levels/splash.ron");
    let mut app = started(&encounter, 1);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("thugs".into(), Control::Human);
    app.update();
    let (alchemist, thug_1, thug_2) = (entity(&app, "alchemist"), entity(&app, "thug-1"), entity(&app, "thug-2"));
    pass_turns_until(&mut app, alchemist);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Throw));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(5, 4));
    app.update();
    let unready = app.world().resource::<Previews>().throw.clone().expect("a throw preview").expect_err("unprepared");
    assert_eq!(unready.rule, "004:144");
    let row = estoc::game::weapons::weapon_rows(app.world_mut()).into_iter().find(|r| r.name == "acid flask");
    assert!(row.and_then(|r| r.prepare).is_some_and(|p| p.is_ok()), "the flask's button prepares it");
    estoc::game::weapons::handle(app.world_mut(), "acid flask", estoc::rules::attack::gear::Handle::Prepare);
    let step = app.world_mut().resource_mut::<estoc::game::state::Pending>().0.pop_front().expect("the preparing");
    assert!(matches!(&step, Command::Prepare { .. }), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::Prepared { .. })), "{facts:?}");
    play(&mut app, &Command::EndTurn { creature: "alchemist".into() });
    pass_turns_until(&mut app, alchemist);
    // Still in throw mode.
    assert_eq!(app.world().resource::<estoc::game::state::Choice>().mode, Mode::Throw);
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(5, 4));
    app.update();
    let plan = app.world().resource::<Previews>().throw.clone().expect("a throw preview");
    let plan = plan.unwrap_or_else(|refusal| panic!("{refusal:?}"));
    assert_eq!(plan.target, Some(thug_1));
    assert_eq!(plan.weapon.name, "acid flask");
    let footprint = |e| {
        let world = app.world();
        let (space, position) =
            (world.get::<estoc::rules::core::creature::Space>(e).unwrap(), world.get::<Position>(e).unwrap());
        space.at(position.0)
    };
    assert!(
        plan.burst
            .reaches(app.world().resource::<estoc::rules::core::battlefield::Battlefield>(), (footprint(thug_2), 0)),
        "the splash reaches the thug beside it"
    );
    assert_eq!(plan.scatter.len(), 8);
    *app.world_mut().resource_mut::<Hover>() =
        Hover { square: Some(Square::new(6, 2)), token: None, corner: Some(Corner { x: 6, y: 3 }) };
    app.update();
    let plan = app.world().resource::<Previews>().throw.clone().expect("a throw preview").expect("a throw");
    assert_eq!((plan.target, plan.armor_class), (None, 5), "an intersection, AC 5 (004:529)");
    let step = clicked(&mut app, Square::new(6, 2)).expect("a throw");
    assert!(matches!(&step, Command::Throw { target: None, corner: Some((6, 3)), .. }), "{step:?}");
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([20]);
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::IntersectionAimed { hit: true, .. })), "{facts:?}");
    let flasks = app.world().get::<Armament>(alchemist).unwrap().0.iter().filter(|w| w.name == "acid flask").count();
    assert_eq!(flasks, 2, "one of the three flasks is gone");
}

/// A coup de grâce with the mouse (004:424-427): in coup de grâce mode (`` ` ``) the hovered sleeping goblin
/// is offered one with the fighter's longsword, a standing goblin is refused (not helpless), and a click on
/// the sleeper delivers it.
#[test]
fn a_coup_de_grace_is_delivered_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/camp.ron");
    let mut app = started(&encounter, 71);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("goblins".into(), Control::Human);
    app.update();
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    assert_eq!(bar_state(app.world(), BarKind::Mode(Mode::CoupDeGrace)), Ok(()));
    use_bar(app.world_mut(), BarKind::Mode(Mode::CoupDeGrace));
    let sleeper_at = app.world().get::<Position>(entity(&app, "sleeper")).unwrap().0;
    app.world_mut().resource_mut::<Hover>().square = Some(sleeper_at);
    app.update();
    let weapon = app.world().resource::<Previews>().coup_de_grace.clone().expect("a preview").expect("a coup");
    assert_eq!(weapon.name, "longsword");
    let standing = app.world().get::<Position>(entity(&app, "prone-goblin")).unwrap().0;
    app.world_mut().resource_mut::<Hover>().square = Some(standing);
    app.update();
    let refused = app.world().resource::<Previews>().coup_de_grace.clone().expect("a preview");
    assert_eq!(refused.map(|w| w.name).map_err(|r| r.rule), Err("004:424".to_string()));
    let (asked, step) = clicked_past_the_question(&mut app, sleeper_at);
    let step = step.expect("a coup de grâce");
    // It provokes where it stands: the first click only declared it, naming who would strike (004:66).
    assert_eq!(asked.as_deref(), Some(r#"Provokes { who: ["Goblin 1"], rule: "004:426" }"#));
    assert!(
        matches!(&step, Command::CoupDeGrace { creature, target, .. } if creature == "fighter" && target == "sleeper")
    );
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::CoupDeGraceDelivered { .. })), "{facts:?}");
}

/// An overrun with the mouse (004:531-537): in overrun mode (Home) the hovered goblin is shown stepping
/// aside (its block would fail more often than not) and the square beyond it; leaving its square for the
/// goblin's space provokes the goblin (004:65), so the first click declares it, naming the goblin, and the
/// second takes the fighter through its space.
#[test]
fn a_foe_is_overrun_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/grappling.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("brutes".into(), Control::Human);
    app.update();
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Overrun));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(2, 3));
    app.update();
    let plan = app.world().resource::<Previews>().overrun.clone().expect("an overrun preview").expect("an overrun");
    assert!(!plan.blocks, "the goblin steps aside");
    assert_eq!(plan.beyond.origin, Square::new(1, 3));
    let (asked, step) = clicked_past_the_question(&mut app, Square::new(2, 3));
    assert!(asked.as_deref().is_some_and(|a| a.contains("Goblin")), "{asked:?}");
    let step = step.expect("an overrun");
    assert!(matches!(&step, Command::Overrun { creature, target } if creature == "fighter" && target == "goblin"));
    play(&mut app, &step);
    assert_eq!(app.world().get::<Position>(fighter).unwrap().0, Square::new(1, 3));
}

/// The AI's brawler, with Improved Disarm, takes the goblin's morningstar away when the disarm is likely and
/// provokes nothing (004:490-494), and never wastes a turn on a javelin, in its own battles.
#[test]
fn the_ai_disarms_with_improved_disarm() {
    let encounter = level_at("tests/scenarios/levels/disarm.ron");
    let disarms: Vec<String> = (1..=3)
        .flat_map(|seed| estoc::simulate::battle(&encounter, seed).log.0)
        .filter_map(|f| match f {
            Fact::Disarmed { by, weapon, .. } if by.0 == "monk" => Some(weapon),
            _ => None,
        })
        .collect();
    assert!(disarms.iter().any(|w| w == "morningstar"), "{disarms:?}");
    assert!(disarms.iter().all(|w| w != "javelin"), "{disarms:?}");
}

/// A foe out of reach in overrun mode is charged and overrun at +2 (004:533-534): the click charges along a
/// clear lane to a square next to it.
#[test]
fn a_far_foe_is_charged_and_overrun_with_the_mouse() {
    use estoc::data::level::Control;
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Controllers, Mode};
    use estoc::rules::turns::moving::ChargeFinish;
    let encounter = level_at("tests/scenarios/levels/charge_overrun.ron");
    let mut app = started(&encounter, 1);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut().resource_mut::<Controllers>().0.insert("dwarves".into(), Control::Human);
    app.update();
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Overrun));
    let step = clicked(&mut app, Square::new(5, 2)).expect("a charge");
    assert!(
        matches!(&step, Command::Charge { target, to: Some(to), finish: ChargeFinish::Overrun, .. }
            if target == "dwarf" && (to.x - 5).abs().max((to.y - 2).abs()) == 1),
        "{step:?}"
    );
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::OverrunMet { .. })), "{facts:?}");
}

/// In deep water the previews show what the underwater table does, as the rules then do it: a floundering
/// swimmer may not move, one whose Swim check succeeded pays four for a square of water; a thrown weapon is
/// refused and a blade strikes at -2 for half damage (004:632-645).
#[test]
fn the_previews_show_the_water() {
    use estoc::rules::core::creature::{Condition, Conditions};
    use estoc::rules::core::dice::Dice;
    let encounter = level_at("tests/scenarios/levels/underwater.ron");
    let mut app = started(&encounter, 1);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    let (fighter, lizard) = (entity(&app, "fighter"), entity(&app, "lizard"));
    pass_turns_until(&mut app, fighter);
    // Round 1's check was thrown at random: the next comes at the fighter's next turn.
    let id = app.world().get::<estoc::rules::core::creature::CreatureId>(fighter).unwrap().clone();
    app.world_mut().resource_mut::<Dice>().force([2]);
    play(&mut app, &Command::EndTurn { creature: id.clone() });
    pass_turns_until(&mut app, fighter);
    assert_eq!(app.world().resource::<Dice>().forced_left(), 0);
    assert!(app.world().get::<Conditions>(fighter).unwrap().has(Condition::OffBalance), "2 + 3 fails DC 10");
    let options = move_options(app.world_mut(), fighter);
    assert!(options.squares.is_empty(), "a floundering creature makes no headway");
    assert!(options.open.iter().all(|(_, open)| open.is_err()));
    let walk = options.open.iter().find(|(a, _)| *a == MovementAction::Move).map(|(_, open)| open.clone());
    assert_eq!(walk.and_then(Result::err).map(|r| r.rule), Some("004:645".to_string()));
    let request = AttackRequest { weapon: Some("longsword"), ..default() };
    let preview = attack_preview(app.world_mut(), fighter, lizard, request).expect("a sword thrust");
    assert!(preview.plan.halved);
    assert!(preview.plan.modifiers.iter().any(|m| m.value == -2 && m.source.contains("floundering")));
    // The sword let fall and the javelin drawn (004:254, 004:218), a javelin cannot be thrown from the water.
    play(&mut app, &Command::Drop { creature: id.clone(), weapon: "longsword".into() });
    play(&mut app, &Command::Draw { creature: id.clone(), weapon: "javelin".into() });
    let thrown = AttackRequest { weapon: Some("javelin"), ..default() };
    let refused = attack_preview(app.world_mut(), fighter, lizard, thrown).expect_err("a javelin in the water");
    assert_eq!(refused.rule, "004:633");
    // The next check succeeds: a square of water costs four, the bank one.
    app.world_mut().resource_mut::<Dice>().force([15]);
    play(&mut app, &Command::EndTurn { creature: id });
    pass_turns_until(&mut app, fighter);
    assert!(!app.world().get::<Conditions>(fighter).unwrap().has(Condition::OffBalance));
    let options = move_options(app.world_mut(), fighter);
    assert_eq!(options.at(Square::new(3, 2)), Some((MovementAction::Move, 4)));
    assert_eq!(options.at(Square::new(2, 2)), Some((MovementAction::Move, 5)));
    let path = path_preview(app.world_mut(), fighter, MovementAction::Move, Square::new(1, 2), &[]).unwrap();
    assert_eq!(path.route.cost, 6);
}

/// The bar's posture and timing actions, as the player takes them: dropping prone (a free action, 004:255),
/// moving one square as a full-round action whatever the cost (000:139-144), and a creature that delayed
/// stepping in when the current turn ends (004:629-631).
#[test]
fn the_bar_drops_prone_moves_one_square_and_steps_a_delayed_creature_in() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Hover, Mode, Pending};
    use estoc::rules::core::creature::{Condition, Conditions, CreatureId};
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("goblins".into(), estoc::data::level::Control::Human);
    app.update();
    let (fighter, archer) = (entity(&app, "fighter"), entity(&app, "archer"));
    let pending = |app: &mut App| app.world_mut().resource_mut::<Pending>().0.pop_front();
    // The first of the two to act delays; the other, on its turn, has it step in after its own.
    pass_turns_until(&mut app, fighter);
    use_bar(app.world_mut(), BarKind::Delay);
    let delay = pending(&mut app).expect("a delay");
    play(&mut app, &delay);
    pass_turns_until(&mut app, archer);
    use_bar(app.world_mut(), BarKind::ActNow);
    let resume = pending(&mut app).expect("the delayed fighter steps in");
    assert!(matches!(&resume, Command::Resume { creature } if creature == "fighter"), "{resume:?}");
    play(&mut app, &resume);
    let archer_id = app.world().get::<CreatureId>(archer).unwrap().clone();
    let facts = play(&mut app, &Command::EndTurn { creature: archer_id });
    assert!(facts.iter().any(|f| matches!(f, Fact::TurnResumed { creature, .. } if creature == "fighter")));
    // The fighter drops prone, then crawls a square as a full-round action.
    use_bar(app.world_mut(), BarKind::DropProne);
    let drop = pending(&mut app).expect("drop prone");
    play(&mut app, &drop);
    assert!(app.world().get::<Conditions>(fighter).unwrap().has(Condition::Prone));
    use_bar(app.world_mut(), BarKind::Mode(Mode::Move(MovementAction::MinimumMovement)));
    let from = app.world().get::<Position>(fighter).unwrap().0;
    let to = Square::new(from.x, from.y - 1);
    app.world_mut().resource_mut::<Hover>().square = Some(to);
    app.update();
    let step = clicked(&mut app, to).expect("a one-square move");
    assert!(matches!(&step, Command::Move { action: MovementAction::MinimumMovement, .. }), "{step:?}");
    play(&mut app, &step);
    assert_eq!(app.world().get::<Position>(fighter).unwrap().0, to);
}

/// The weapon selector, as the player uses it (004:218-219, 004:254): the archer holds its longbow in both
/// hands, its short sword put away and not drawable with the hands full; it lets the bow fall (a free
/// action, the bow then lies on its square), draws the sword with a move action, and its click on a foe
/// attacks with the sword.
#[test]
fn the_weapon_selector_drops_the_bow_draws_the_sword_and_attacks_with_it() {
    use estoc::game::state::Pending;
    use estoc::game::weapons::{choose, handle, weapon_rows};
    use estoc::rules::attack::gear::{GroundWeapon, Handle};
    use estoc::rules::core::creature::{Armament, Position};
    use estoc::rules::turns::ActionKind;
    let encounter = level("skirmish.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("goblins".into(), estoc::data::level::Control::Human);
    app.update();
    let archer = entity(&app, "archer");
    let pending = |app: &mut App| app.world_mut().resource_mut::<Pending>().0.pop_front();
    pass_turns_until(&mut app, archer);
    let rows = weapon_rows(app.world_mut());
    let bow = rows.iter().find(|r| r.name == "longbow").expect("the bow");
    assert!(bow.in_hand && bow.chosen && bow.drop.as_ref().is_some_and(Result::is_ok), "{bow:?}");
    let sword = rows.iter().find(|r| r.name == "short sword").expect("the sword");
    assert!(!sword.in_hand);
    let refused = sword.draw.as_ref().unwrap().as_ref().unwrap_err();
    assert!(refused.reason.contains("hands are full (longbow)"), "{refused}");
    // The bow falls: a free action, and it lies on the archer's square.
    handle(app.world_mut(), "longbow", Handle::Drop);
    let drop = pending(&mut app).expect("a drop");
    play(&mut app, &drop);
    let at = app.world().get::<Position>(archer).unwrap().0;
    let mut lying = app.world_mut().query::<&GroundWeapon>();
    assert!(lying.iter(app.world()).any(|g| g.weapon.name == "longbow" && g.at == at));
    // The sword is drawn with a move action, the preview said so before the click.
    let rows = weapon_rows(app.world_mut());
    let sword = rows.iter().find(|r| r.name == "short sword").unwrap();
    let draw = sword.draw.as_ref().unwrap().as_ref().expect("a hand is free");
    assert_eq!(draw.cost.kind, ActionKind::Move);
    choose(app.world_mut(), sword.key);
    let step = pending(&mut app).expect("a draw");
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::Drew { weapon, free: false, .. } if weapon == "short sword")));
    assert!(app.world().get::<Armament>(archer).unwrap().ready().any(|w| w.name == "short sword"));
    let rows = weapon_rows(app.world_mut());
    assert!(rows.iter().any(|r| r.name == "short sword" && r.chosen && r.in_hand));
    assert_eq!(app.world().resource::<estoc::game::state::Choice>().weapon.as_deref(), Some("short sword"));
}

/// Blows of the other kind of damage from the mouse (004:302): with the switch on (`Shift+N`), the preview of
/// the fighter's longsword on the ogre carries the -4, and the click attacks to subdue.
#[test]
fn the_other_damage_switch_previews_and_strikes_to_subdue() {
    use estoc::game::state::{Choice, Hover, Previews};
    let encounter = level_at("tests/scenarios/levels/subdue.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("brutes".into(), estoc::data::level::Control::Human);
    app.update();
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    app.world_mut().resource_mut::<Choice>().other_damage = true;
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(4, 2));
    app.update();
    let previews = app.world().resource::<Previews>();
    let attack = previews.attack.as_ref().expect("a preview").as_ref().expect("the ogre in reach");
    assert!(attack.plan.nonlethal);
    assert!(attack.plan.modifiers.iter().any(|m| m.value == -4 && m.source.contains("004:302")));
    let step = clicked(&mut app, Square::new(4, 2)).expect("an attack");
    assert!(matches!(&step, Command::Attack { nonlethal: true, .. }), "{step:?}");
}

/// Two weapons or one from the bar (`Shift+W`, 004:462, 004:471): the novice's quarterstaff is a double
/// weapon, but without Two-Weapon Fighting its full attack strikes with one head; the switch adds the other
/// head's blow at -4/-8 to the preview and to the click's full attack.
#[test]
fn the_two_weapons_switch_adds_the_other_heads_blow() {
    use estoc::game::state::{Choice, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/double_weapon.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.update();
    let novice = entity(&app, "novice");
    pass_turns_until(&mut app, novice);
    app.world_mut().resource_mut::<Choice>().mode = Mode::FullAttack;
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 3));
    app.update();
    let blows = |app: &App| {
        let previews = app.world().resource::<Previews>();
        previews.attack.as_ref().expect("a preview").as_ref().expect("the orc in reach").chances.len()
    };
    assert_eq!(blows(&app), 1, "one head without the feat");
    let step = clicked(&mut app, Square::new(3, 3)).expect("an attack");
    assert!(matches!(&step, Command::Attack { full: true, two_weapons: false, .. }), "{step:?}");
    estoc::game::weapons::switch_two_weapons(app.world_mut());
    assert_eq!(app.world().resource::<Choice>().two_weapons, Some(true));
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 2));
    app.update();
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(3, 3));
    app.update();
    assert_eq!(blows(&app), 2, "both heads");
    let step = clicked(&mut app, Square::new(3, 3)).expect("an attack");
    assert!(matches!(&step, Command::Attack { full: true, two_weapons: true, .. }), "{step:?}");
}

/// The breath's preview gives each creature covered its chance to save, cover's +2 included (004:402): DC 19,
/// Reflex +1, 15% in the open (18 or better), 25% behind the low wall (16 or better); the rules roll the same
/// (scenario `breath_cover`).
#[test]
fn the_breath_preview_counts_cover_on_the_saves() {
    use estoc::game::state::{Choice, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/breath_cover.ron");
    let mut app = started(&encounter, 4);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("dragons".into(), estoc::data::level::Control::Human);
    app.update();
    let (red, open, hidden) = (entity(&app, "red"), entity(&app, "open"), entity(&app, "hidden"));
    pass_turns_until(&mut app, red);
    app.world_mut().resource_mut::<Choice>().mode = Mode::Breath;
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(7, 4));
    app.update();
    let saves = app.world().resource::<Previews>().breath_saves.clone();
    let of = |e: Entity| saves.iter().find(|(v, _, _)| *v == e).cloned().expect("covered");
    let (_, in_the_open, no_terms) = of(open);
    let (_, behind, terms) = of(hidden);
    assert!(no_terms.is_empty());
    assert!((in_the_open - 0.15).abs() < 1e-6, "{in_the_open}");
    assert!((behind - 0.25).abs() < 1e-6, "{behind}");
    assert!(terms.iter().any(|m| m.value == 2 && m.source.contains("004:402")), "{terms:?}");
}

/// Tumbling from the mouse (000:78-79): with the switch on (`Shift+T`) the rogue's reachable squares are at
/// half speed and pass through the goblin's space, the square beyond it reached by a move costing 4 (two
/// squares, each counting double); the click sends a tumble.
#[test]
fn the_tumble_switch_previews_half_speed_through_a_foe_and_clicks_a_tumble() {
    use estoc::game::state::{Choice, Hover};
    use estoc::preview::move_options_as;
    let encounter = level_at("tests/scenarios/levels/tumble.ron");
    let mut app = started(&encounter, 5);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("goblins".into(), estoc::data::level::Control::Human);
    app.update();
    let rogue = entity(&app, "rogue");
    pass_turns_until(&mut app, rogue);
    let walking = move_options_as(app.world_mut(), rogue, false);
    let tumbling = move_options_as(app.world_mut(), rogue, true);
    let beyond = Square::new(5, 3);
    assert_eq!(tumbling.at(beyond), Some((MovementAction::Move, 4)));
    assert_ne!(walking.at(beyond).map(|(_, cost)| cost), Some(4), "walking goes around the goblin");
    assert!(tumbling.at(Square::new(4, 3)).is_none(), "no stopping in the goblin's space");
    app.world_mut().resource_mut::<Choice>().tumble = true;
    app.world_mut().resource_mut::<Hover>().square = Some(beyond);
    app.update();
    let step = clicked(&mut app, beyond).expect("a tumble");
    assert!(matches!(&step, Command::Tumble { action: MovementAction::Move, .. }), "{step:?}");
    // The fighter is not trained in Tumble: the rules refuse its tumble.
    let facts =
        play(&mut app, &Command::EndTurn { creature: estoc::rules::core::creature::CreatureId("rogue".into()) });
    assert!(!facts.is_empty());
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    let refused =
        estoc::preview::path_preview_as(app.world_mut(), fighter, (MovementAction::Move, true), Square::new(7, 3), &[])
            .expect_err("untrained");
    assert_eq!(refused.rule, "000:78-79");
}

/// The bar's switch says what the attacks of opportunity of a creature with a trip weapon do (`Shift+O`,
/// 004:483, 004:489): strike, trip, weigh, hold (004:68), and round again; the rules carry the choice.
#[test]
fn the_opportunity_switch_cycles_strike_trip_and_weigh() {
    use estoc::rules::attack::manoeuvre::OpportunityChoice;
    let encounter = level_at("tests/scenarios/levels/trip_charger.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("beasts".into(), estoc::data::level::Control::Human);
    app.update();
    let halberdier = entity(&app, "halberdier");
    pass_turns_until(&mut app, halberdier);
    let now = |app: &App| estoc::game::weapons::opportunity_choice_now(app.world());
    assert_eq!(now(&app), Some(OpportunityChoice::Strike), "strike by default");
    for expected in
        [OpportunityChoice::Trip, OpportunityChoice::Weigh, OpportunityChoice::Hold, OpportunityChoice::Strike]
    {
        estoc::game::weapons::switch_opportunity_choice(app.world_mut());
        let step = app.world_mut().resource_mut::<estoc::game::state::Pending>().0.pop_front().expect("a step");
        assert!(matches!(step, Command::AttacksOfOpportunity { choice, .. } if choice == expected), "{step:?}");
        play(&mut app, &step);
        assert_eq!(now(&app), Some(expected));
        assert_eq!(app.world().get::<OpportunityChoice>(halberdier).copied(), Some(expected));
    }
}

/// Releasing a commanded undead from the bar (`Shift+\`, 004:566): the bar entry is open once the priest
/// commands undead, hovering one shows the Hit Dice it frees, and a click releases it.
#[test]
fn an_undead_commanded_is_released_from_the_bar() {
    use estoc::game::actions::{BarKind, bar_state};
    use estoc::game::state::{Choice, Hover, Mode, Previews};
    let encounter = level_at("tests/scenarios/levels/command_release.ron");
    let mut app = started(&encounter, 3);
    estoc::game::overlays_headless(&mut app, &encounter);
    app.world_mut()
        .resource_mut::<estoc::game::state::Controllers>()
        .0
        .insert("dead".into(), estoc::data::level::Control::Human);
    app.update();
    let priest = entity(&app, "priest");
    pass_turns_until(&mut app, priest);
    assert!(bar_state(app.world(), BarKind::Mode(Mode::Release)).is_err(), "no undead commanded yet");
    let rebuke =
        Command::TurnUndead { creature: "priest".into(), kind: estoc::rules::special::turning::TurnKind::Turn };
    app.world_mut().resource_mut::<estoc::rules::core::dice::Dice>().force([15, 6, 6]);
    play(&mut app, &rebuke);
    assert!(bar_state(app.world(), BarKind::Mode(Mode::Release)).is_ok());
    app.world_mut().resource_mut::<Choice>().mode = Mode::Release;
    app.world_mut().resource_mut::<Hover>().square = Some(Square::new(4, 4));
    app.update();
    let plan = app.world().resource::<Previews>().release.clone().expect("a preview").expect("commanded");
    assert_eq!((plan.hit_dice, plan.commanded_hit_dice, plan.level), (1, 3, 3));
    let step = clicked(&mut app, Square::new(4, 4)).expect("a release");
    assert_eq!(step, Command::Release { creature: "priest".into(), undead: "skeleton-2".into() });
    let facts = play(&mut app, &step);
    assert!(
        facts
            .iter()
            .any(|f| matches!(f, Fact::UndeadTurned { outcome: estoc::rules::core::names::TurnOutcome::Released, .. }))
    );
}

/// An action declared before it is carried out (issue 21): a move whose path provokes waits for a second
/// click on the same square, Escape takes it back with nothing done; a move that provokes nothing goes at
/// once; ending the turn with actions left waits for a second Enter; the player's setting acts at once.
#[test]
fn a_provoking_move_and_an_early_end_of_turn_wait_for_the_players_word() {
    use estoc::game::declare::{Declared, Why};
    use estoc::game::state::{Hover, Pending};
    let mut app = disarm_yard_played_by_people();
    let (fighter, orc) = (entity(&app, "fighter"), entity(&app, "orc"));
    // The orc acts first so that it is not flat-footed and may strike (004:53).
    pass_turns_until(&mut app, orc);
    pass_turns_until(&mut app, fighter);
    let declared = |app: &App| app.world().resource::<Declared>().0.clone();
    let pending = |app: &App| app.world().resource::<Pending>().0.len();
    // Away from the orc at (3, 2): leaving its reach provokes (004:64-71).
    let away = Square::new(0, 2);
    app.world_mut().resource_mut::<Hover>().square = Some(away);
    app.update();
    estoc::game::clicks::click(app.world_mut(), away);
    assert_eq!(pending(&app), 0, "declared, not yet sent");
    let held = declared(&app).expect("a declaration");
    assert!(matches!(&held.why, Why::Provokes { who, .. } if who.len() == 1), "{held:?}");
    // Escape takes it back: nothing was done.
    assert!(estoc::game::declare::take_back(app.world_mut()));
    assert!(declared(&app).is_none() && pending(&app) == 0);
    assert_eq!(app.world().get::<Position>(fighter).unwrap().0, Square::new(2, 2));
    // Declared again, then the second click on the same square sends it.
    estoc::game::clicks::click(app.world_mut(), away);
    assert!(declared(&app).is_some());
    estoc::game::clicks::click(app.world_mut(), away);
    assert!(declared(&app).is_none());
    let step = app.world_mut().resource_mut::<Pending>().0.pop_front().expect("the move");
    assert!(matches!(&step, Command::Move { to, .. } if *to == away), "{step:?}");
    play(&mut app, &step);
    assert_eq!(app.world().get::<Position>(fighter).unwrap().0, away);
    // A step that provokes nothing goes at once.
    let near = Square::new(0, 3);
    app.world_mut().resource_mut::<Hover>().square = Some(near);
    app.update();
    estoc::game::clicks::click(app.world_mut(), near);
    assert!(declared(&app).is_none() && pending(&app) == 1, "a 5-foot step away from every foe");
    app.world_mut().resource_mut::<Pending>().0.clear();
    // Ending the turn with its standard action left asks first; the second press ends it.
    estoc::game::actions::use_bar(app.world_mut(), estoc::game::actions::BarKind::EndTurn);
    let held = declared(&app).expect("an early end declared");
    assert!(matches!(&held.why, Why::EndsEarly(left) if left.contains(&"standard")), "{held:?}");
    assert!(estoc::game::declare::confirm(app.world_mut()));
    assert!(matches!(app.world().resource::<Pending>().0.front(), Some(Command::EndTurn { .. })));
    app.world_mut().resource_mut::<Pending>().0.clear();
    // The player who wants no question acts at once.
    let settings = estoc::game::settings::Settings { act_at_once: true, ..Default::default() };
    app.world_mut().insert_resource(settings);
    estoc::game::actions::use_bar(app.world_mut(), estoc::game::actions::BarKind::EndTurn);
    assert!(declared(&app).is_none() && pending(&app) == 1);
}

/// Taking off higher with the keyboard (004:659-668): `Q` twice on the ground aims 3 m above the griffon's
/// space, the take-off button says the Jump's DC and chance, and its press takes off with that Jump.
#[test]
fn a_flier_takes_off_higher_with_a_jump_from_the_bar() {
    use estoc::game::actions::{BarKind, takeoff_hint, use_bar};
    use estoc::game::state::{Choice, Pending};
    let mut app = played_by_people("tests/scenarios/levels/sky.ron", 4, "dragons");
    let grounded = entity(&app, "grounded");
    pass_turns_until(&mut app, grounded);
    assert!(takeoff_hint(app.world(), grounded).contains("004:657"), "at first it rises to its space");
    // What `Q` does: one more 1.5 m climb asked each press.
    app.world_mut().resource_mut::<Choice>().climb = 2;
    let hint = takeoff_hint(app.world(), grounded);
    assert!(hint.contains("DC 40"), "{hint}");
    use_bar(app.world_mut(), BarKind::TakeOff);
    let step = app.world_mut().resource_mut::<Pending>().0.pop_front().expect("the take-off");
    assert!(matches!(step, Command::TakeOff { ref creature, extra_m } if creature == "grounded" && extra_m == 3.0));
    let facts = play(&mut app, &step);
    let jump = facts.iter().find_map(|f| match f {
        Fact::CheckRolled { creature, check: estoc::rules::core::checks::Check::Jump, dc, .. }
            if creature.0 == "grounded" =>
        {
            Some(*dc)
        }
        _ => None,
    });
    assert_eq!(jump, Some(40), "the Jump of the table's row for 3 m above its space");
    assert!(facts.iter().any(|f| matches!(f, Fact::TookOff { creature, .. } if creature.0 == "grounded")));
}

/// Of two creatures delaying, the one selected steps in (004:629-631): the act-now button is not bound to
/// the first in the order.
#[test]
fn the_delayed_creature_selected_steps_in() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Pending, Selected};
    let mut app = played_by_people("levels/skirmish.ron", 3, "goblins");
    let pending = |app: &mut App| app.world_mut().resource_mut::<Pending>().0.pop_front();
    let mut delayed = Vec::new();
    for _ in 0..2 {
        let now = estoc::game::turn::human_turn(app.world()).expect("a person's turn");
        delayed.push(app.world().get::<estoc::rules::core::creature::CreatureId>(now).unwrap().clone());
        use_bar(app.world_mut(), BarKind::Delay);
        let delay = pending(&mut app).expect("a delay");
        play(&mut app, &delay);
    }
    // The second to delay, selected, is the one that steps in.
    let second = entity(&app, &delayed[1].0);
    app.world_mut().insert_resource(Selected(Some(second)));
    use_bar(app.world_mut(), BarKind::ActNow);
    let resume = pending(&mut app).expect("a delayed creature steps in");
    assert!(matches!(&resume, Command::Resume { creature } if *creature == delayed[1]), "{resume:?}");
    // With nothing selected, the first of them in the order.
    let first = app
        .world()
        .resource::<estoc::rules::turns::TurnOrder>()
        .entries
        .iter()
        .find(|e| e.delaying)
        .unwrap()
        .id
        .clone();
    app.world_mut().insert_resource(Selected(None));
    use_bar(app.world_mut(), BarKind::ActNow);
    let resume = pending(&mut app).expect("a delayed creature steps in");
    assert!(matches!(&resume, Command::Resume { creature } if *creature == first), "{resume:?}");
}

/// A charge goes along the lane the player marks (004:453): a right click on the square of one of the
/// lanes the rules allow, then a click on the foe in charge mode, charges to that square, not the first.
#[test]
fn a_charge_goes_along_the_lane_marked() {
    use estoc::game::actions::{BarKind, use_bar};
    use estoc::game::state::{Choice, Hover, Mode};
    let mut app = played_by_people("levels/skirmish.ron", 3, "goblins");
    let fighter = entity(&app, "fighter");
    pass_turns_until(&mut app, fighter);
    let foes: Vec<Entity> = ["goblin-1", "goblin-2"].iter().map(|id| entity(&app, id)).collect();
    let (foe, lanes) = foes
        .iter()
        .find_map(|&foe| {
            let lanes = estoc::preview::charge_lanes(app.world_mut(), (fighter, None), foe).ok()?;
            (lanes.len() >= 2).then_some((foe, lanes))
        })
        .expect("a foe with two lanes or more");
    let (first, other) = (lanes[0].to, lanes[lanes.len() - 1].to);
    assert_ne!(first, other);
    use_bar(app.world_mut(), BarKind::Mode(Mode::Charge));
    app.world_mut().resource_mut::<Choice>().waypoints.push(other);
    let at = app.world().get::<Position>(foe).unwrap().0;
    app.world_mut().resource_mut::<Hover>().square = Some(at);
    app.update();
    let step = clicked(&mut app, at).expect("a charge");
    assert!(matches!(step, Command::Charge { to: Some(to), .. } if to == other), "{step:?}");
}

/// The AI's sneak attackers feint a foe they cannot flank (004:524-527): the rogue for its next turn's blow,
/// the one with Improved Feint with its move action before this turn's; the blow after the feint is a sneak
/// attack.
#[test]
fn the_ais_rogues_feint_for_a_sneak_attack() {
    let encounter = level_at("tests/scenarios/levels/feint_ai.ron");
    let logs: Vec<Vec<Fact>> = (1..=6).map(|seed| estoc::simulate::battle(&encounter, seed).log.0).collect();
    for rogue in ["rogue", "feinter"] {
        let struck_after_a_feint = logs.iter().any(|log| {
            let feinted = log.iter().position(|f| matches!(f, Fact::Feinted { feinter, .. } if feinter.0 == rogue));
            feinted.is_some_and(|at| {
                log[at..].iter().any(|f| {
                    matches!(f, Fact::AttackRolled { attacker, armor_class_parts, .. }
                        if attacker.0 == rogue && armor_class_parts.iter().any(|m| m.source.contains("feinted")))
                })
            })
        });
        assert!(struck_after_a_feint, "{rogue} never struck a foe it had feinted");
    }
}

/// A creature a person plays that delays may act right after any other's turn (004:629-631): when the
/// AI's goblin has done and would end its turn, the end waits for the person; F7 (act now) brings the
/// delaying fighter's turn next, before the archer's and the goblin's next.
#[test]
fn a_delaying_player_acts_after_the_ais_turn() {
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::state::Pending;
    use estoc::game::turn::{DelayChoice, human_turn, play_ai};
    let mut app = with_overlays("tests/scenarios/levels/duel.ron", 3);
    app.update();
    let (fighter, goblin) = (entity(&app, "fighter"), entity(&app, "goblin"));
    let mut delayed = false;
    let mut held = None;
    for _ in 0..200 {
        if let Some(me) = human_turn(app.world()) {
            let id = app.world().get::<estoc::rules::core::creature::CreatureId>(me).unwrap().clone();
            let step = if me == fighter && !delayed {
                delayed = true;
                Command::Delay { creature: id }
            } else {
                Command::EndTurn { creature: id }
            };
            play(&mut app, &step);
            continue;
        }
        if let Some(step) = app.world_mut().resource_mut::<Pending>().0.pop_front() {
            play(&mut app, &step);
            continue;
        }
        held = app.world().resource::<DelayChoice>().held.clone();
        if held.is_some() {
            break;
        }
        app.world_mut().run_system_cached(play_ai).unwrap();
    }
    assert!(delayed, "the fighter delayed");
    let (step, ended) = held.expect("the goblin's end of turn waits for the person");
    assert_eq!(ended, goblin);
    assert!(matches!(step, Command::EndTurn { ref creature } if creature == "goblin"), "{step:?}");
    assert!(bar_state(app.world(), BarKind::ActNow).is_ok(), "act now is open between the AI's turns");
    use_bar(app.world_mut(), BarKind::ActNow);
    let steps: Vec<Command> = app.world_mut().resource_mut::<Pending>().0.drain(..).collect();
    assert!(matches!(&steps[0], Command::Resume { creature } if creature == "fighter"), "{steps:?}");
    let mut facts = Vec::new();
    for step in &steps {
        facts.extend(play(&mut app, step));
    }
    let next = facts.iter().find_map(|f| match f {
        Fact::TurnStarted { creature, .. } | Fact::TurnResumed { creature, .. } => Some(creature.0.clone()),
        _ => None,
    });
    assert_eq!(next.as_deref(), Some("fighter"), "{facts:?}");
    assert_eq!(human_turn(app.world()), Some(fighter));
}

/// A player's rogue with Improved Feint feints with its move action (004:527): after its blow, with only the
/// move action left, the feint key is open on the action bar and the click feints.
#[test]
fn a_player_feints_with_the_move_action_left_with_improved_feint() {
    use estoc::game::actions::{BarKind, bar_state, use_bar};
    use estoc::game::state::{Hover, Mode};
    let mut app = played_by_people("tests/scenarios/levels/feint_ai.ron", 1, "rogues");
    let controllers = &mut app.world_mut().resource_mut::<estoc::game::state::Controllers>().0;
    controllers.insert("orcs".into(), estoc::data::level::Control::Human);
    app.update();
    let feinter = entity(&app, "feinter");
    pass_turns_until(&mut app, feinter);
    play(&mut app, &Command::attack("feinter".into(), "brute".into(), None));
    assert!(bar_state(app.world(), BarKind::Mode(Mode::Feint)).is_ok(), "the feint is a move action");
    use_bar(app.world_mut(), BarKind::Mode(Mode::Feint));
    let at = Square::new(9, 5);
    app.world_mut().resource_mut::<Hover>().square = Some(at);
    app.update();
    let step = clicked(&mut app, at).expect("a feint");
    assert!(matches!(&step, Command::Feint { creature, target } if creature == "feinter" && target == "brute"));
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::Feinted { feinter, .. } if feinter == "feinter")), "{facts:?}");
    assert!(bar_state(app.world(), BarKind::Mode(Mode::Feint)).is_err(), "both actions are spent");
}

/// A badly hurt AI creature within a foe's reach (the ogre's 3 m, not only next to it) does not drink its
/// potion there, which provokes (004:96): it takes a 5-foot step out of every reach first (004:259), then
/// drinks, struck by no one (brawl, seed 5: the brawler at 2 hit points beside the ogre's reach).
#[test]
fn the_ai_steps_out_of_reach_before_drinking() {
    let encounter = level("brawl.ron");
    let log = estoc::simulate::battle(&encounter, 5).log.0;
    let drink = log
        .iter()
        .position(|f| matches!(f, Fact::ItemUsed { creature, .. } if creature.0 == "brawler"))
        .expect("the brawler drinks");
    let turn = log[..drink]
        .iter()
        .rposition(|f| matches!(f, Fact::TurnStarted { creature, .. } if creature.0 == "brawler"))
        .expect("its turn");
    let stepped = log[turn..drink].iter().any(|f| {
        matches!(f, Fact::MoveStarted { creature, action, .. }
            if creature.0 == "brawler" && *action == estoc::rules::core::names::Action::FiveFootStep)
    });
    assert!(stepped, "a 5-foot step before the potion: {:?}", &log[turn..=drink]);
    let struck = log[turn..drink + 3].iter().any(|f| matches!(f, Fact::OpportunityProvoked { .. }));
    assert!(!struck, "{:?}", &log[turn..drink + 3]);
}

/// An AI creature with no blow worth striking (bare hands against an armed foe, 004:168) and a foe
/// threatening it takes total defence, +4 to its AC (004:211), and the orc's next blow aims at it.
#[test]
fn the_ai_takes_total_defence_with_no_blow_to_strike() {
    let mut app = played_by_people("tests/scenarios/levels/total_defence_ai.ron", 1, "orcs");
    let villager = entity(&app, "villager");
    pass_turns_until(&mut app, villager);
    let step = estoc::ai::next_step(app.world_mut(), villager);
    assert!(matches!(&step, Command::TotalDefense { creature } if creature == "villager"), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(facts.iter().any(|f| matches!(f, Fact::ConditionGained { .. })), "{facts:?}");
    play(&mut app, &Command::EndTurn { creature: "villager".into() });
    let orc = entity(&app, "orc");
    pass_turns_until(&mut app, orc);
    let blow = play(&mut app, &Command::attack("orc".into(), "villager".into(), None));
    let parts = blow.iter().find_map(|f| match f {
        Fact::AttackRolled { armor_class_parts, .. } => Some(armor_class_parts.clone()),
        _ => None,
    });
    assert!(parts.is_some_and(|p| p.iter().any(|m| m.value == 4 && m.source.contains("004:211"))), "{blow:?}");
}

/// Far from its foes, beyond a double move, the AI runs (004:248-250), and stops out of their reach, three
/// squares off or more, to charge or strike next turn; near enough, it walks.
#[test]
fn the_ai_runs_to_a_far_foe_and_stops_out_of_its_reach() {
    let mut app = played_by_people("tests/scenarios/levels/long_field.ron", 1, "orcs");
    let orc = entity(&app, "orc");
    pass_turns_until(&mut app, orc);
    let step = estoc::ai::next_step(app.world_mut(), orc);
    assert!(matches!(&step, Command::Move { action: MovementAction::Run, .. }), "{step:?}");
    let facts = play(&mut app, &step);
    assert!(
        facts.iter().any(|f| matches!(f, Fact::CreatureMoved { creature, .. } if creature.0 == "orc")),
        "{facts:?}"
    );
    let at = app.world().get::<Position>(orc).unwrap().0;
    let fighter = app.world().get::<Position>(entity(&app, "fighter")).unwrap().0;
    let apart = (fighter.x - at.x).abs().max((fighter.y - at.y).abs());
    assert!((3..=14).contains(&apart), "{at:?}, {apart} squares from the fighter");
}

/// A flier that must keep flying (no hover, not perfect) gets one blow a round aloft: low beside a foe on
/// the ground, the AI lands it (004:669) and it makes its full attack there, as the griffon of the roost does.
#[test]
fn the_ai_lands_a_flier_beside_a_foe_for_its_full_attack() {
    let mut app = played_by_people("tests/scenarios/levels/griffon_low_beside_a_villager.ron", 1, "beasts");
    let griffon = entity(&app, "griffon");
    pass_turns_until(&mut app, griffon);
    let step = estoc::ai::next_step(app.world_mut(), griffon);
    assert!(matches!(&step, Command::Land { creature } if creature == "griffon"), "{step:?}");
    let mut log = play(&mut app, &step);
    assert!(log.iter().any(|f| matches!(f, Fact::Landed { creature } if creature.0 == "griffon")), "{log:?}");
    for _ in 0..4 {
        let step = estoc::ai::next_step(app.world_mut(), griffon);
        log.extend(play(&mut app, &step));
    }
    let full = log.iter().any(|f| {
        matches!(f, Fact::AttackRolled { attacker, modifiers, .. }
            if attacker.0 == "griffon" && modifiers.iter().any(|m| m.source.contains("of the full attack")))
    });
    assert!(full, "no full attack after the landing");
}

/// A coup de grâce provokes (004:426): the AI delivers none while a foe threatens it, an ogre whose reach
/// covers it from two squares off too, though no foe up stands next to it; the ogre gone, it does.
#[test]
fn the_ai_delivers_no_coup_de_grace_under_a_reach_threat() {
    let mut app = played_by_people("tests/scenarios/levels/sleeper_under_an_ogres_reach.ron", 1, "dwarves");
    let dwarf = entity(&app, "dwarf");
    // The ogre's first turn over, it is flat-footed no more and may strike (004:53).
    pass_turns_until(&mut app, dwarf);
    play(&mut app, &Command::EndTurn { creature: "dwarf".into() });
    pass_turns_until(&mut app, dwarf);
    let step = estoc::ai::next_step(app.world_mut(), dwarf);
    assert!(!matches!(&step, Command::CoupDeGrace { .. }), "{step:?}");
    let ogre = entity(&app, "ogre");
    app.world_mut().entity_mut(ogre).insert(Position(Square::new(8, 7)));
    let step = estoc::ai::next_step(app.world_mut(), dwarf);
    assert!(matches!(&step, Command::CoupDeGrace { target, .. } if target == "sleeper"), "{step:?}");
}
