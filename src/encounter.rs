//! Spawning a checked encounter into the world, and the app that runs the rules without a window.
//! Start, restart, hot reload and the headless runner all come through [`spawn_encounter`].

use bevy::prelude::*;

use crate::data::Encounter;
use crate::rules::core::battlefield::Battlefield;
use crate::rules::core::creature::*;
use crate::rules::core::dice::Dice;
use crate::rules::core::kept::kept;
use crate::rules::turns::BeginEncounterIntent;

/// The encounter being played, kept for restarts and for the view.
#[derive(Resource, Clone, Debug)]
pub struct ActiveEncounter(pub Encounter);

impl ActiveEncounter {
    /// The colour of a faction as the level gives it, grey if it gives none.
    pub fn faction_rgb(&self, faction: &str) -> [u8; 3] {
        self.0.faction_rgb(faction)
    }
}

/// The template and display data of a creature, which the rules do not read.
#[derive(Component, Clone, Debug, Default)]
pub struct Portrait {
    /// Template file stem.
    pub template: String,
    /// Icon stem under `assets/icons/`.
    pub icon: String,
}

/// Each creature's name on the board: its template's (or its override's), numbered in the level's order
/// when several share it (Goblin 1, Goblin 2), so that two foes of one template are told apart.
pub fn display_names(encounter: &Encounter) -> Vec<String> {
    let count = |name: &str| encounter.creatures.iter().filter(|c| c.stats.name == name).count();
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    encounter
        .creatures
        .iter()
        .map(|c| {
            let name = c.stats.name.as_str();
            if count(name) < 2 {
                return name.to_string();
            }
            let n = seen.entry(name).or_insert(0);
            *n += 1;
            format!("{name} {n}")
        })
        .collect()
}

/// Replaces whatever fight the world holds by `encounter`: despawns the old creatures, sets the map,
/// spawns every creature whole, and resets the turn order and the event log. The dice are reseeded with
/// `seed` and `forced` dice.
pub fn spawn_encounter(world: &mut World, encounter: &Encounter, seed: u64, forced: &[u32]) {
    let mut old: Vec<Entity> = kept::<Entity, With<Creature>>(world).iter(world).collect();
    // The weapons left on the ground by the last fight.
    old.extend(kept::<Entity, With<crate::rules::attack::gear::GroundWeapon>>(world).iter(world));
    old.extend(kept::<Entity, With<crate::rules::attack::gear::GroundShield>>(world).iter(world));
    for entity in old {
        world.despawn(entity);
    }
    world.insert_resource(encounter.battlefield.clone());
    world.insert_resource(Dice::with_forced(seed, forced.iter().copied()));
    crate::rules::forget_fight(world);
    let mut roster = Roster::default();
    let names = display_names(encounter);
    for (spec, display) in encounter.creatures.iter().zip(names) {
        let s = &spec.stats;
        let entity = world
            .spawn((
                Creature,
                Name::new(display),
                spec.id.clone(),
                Faction(spec.faction.clone()),
                s.size,
                s.reach,
                Position(spec.at),
                Space::at_scale(encounter.battlefield.scale(), s.size),
                s.speed,
                s.speed_modifiers.clone(),
                s.hit_points,
                s.abilities,
                s.base_attack,
                s.saves,
            ))
            .insert((
                s.defense,
                s.encumbrance,
                s.armament.clone(),
                s.feats.clone(),
                s.skills.clone(),
                s.traits.clone(),
                s.items.clone(),
                s.level,
                Altitude(spec.altitude),
                Heading(spec.heading),
                Awareness(spec.aware_of.clone()),
                Portrait { template: spec.template.clone(), icon: s.icon.clone() },
                Conditions(starting_conditions(spec)),
            ))
            .id();
        let conditions = Conditions(starting_conditions(spec));
        world.entity_mut(entity).insert(crate::rules::turns::Fall::at_start(&conditions));
        if s.speed.fly.is_some() {
            // Aloft, it may begin hovering, or with the speed it flew at before the battle (004:708, 004:827).
            let flight = crate::rules::aerial::flying::Flight {
                hovering: spec.hovering,
                speed_m: spec.flying_m,
                since_maneuver: crate::rules::aerial::flying::SETTING_OFF_AFRESH,
                ..Default::default()
            };
            world.entity_mut(entity).insert(flight);
            if spec.hovering {
                world.entity_mut(entity).insert(crate::rules::core::creature::Hovering);
            }
        }
        if spec.lurking {
            world.entity_mut(entity).insert(crate::rules::core::creature::Lurking);
        }
        if let Some(magic) = &s.spellcasting {
            world.entity_mut(entity).insert(magic.clone());
        }
        if let Some(breath) = &s.breath {
            world.entity_mut(entity).insert(breath.clone());
        }
        if let Some(turning) = s.turning {
            world.entity_mut(entity).insert(turning);
        }
        if let Some(shield) = s.shield {
            world.entity_mut(entity).insert(shield);
        }
        if spec.military_saddle {
            world.entity_mut(entity).insert(crate::rules::core::creature::MilitarySaddle);
        }
        roster.0.insert(spec.id.clone(), entity);
    }
    // Riders sit on their mounts, in their space (004:475, 004:653-655, 004:813-814).
    for spec in &encounter.creatures {
        let Some((mount_id, passenger)) = &spec.rides else { continue };
        let (Some(&rider), Some(&mount)) = (roster.0.get(&spec.id), roster.0.get(mount_id)) else { continue };
        let Some(mount_size) = world.get::<Size>(mount).copied() else { continue };
        let high = crate::rules::core::reach::sits_high(mount_size, spec.stats.size);
        world.entity_mut(rider).insert((
            crate::rules::core::creature::Riding(mount),
            crate::rules::core::creature::Seat { passenger: *passenger, high },
            Space::at_scale(encounter.battlefield.scale(), mount_size),
        ));
    }
    world.insert_resource(roster);
    world.insert_resource(ActiveEncounter(encounter.clone()));
}

/// The conditions a creature starts with: the level's, and those its hit points bring (004:263-308).
fn starting_conditions(spec: &crate::data::level::CreatureSpec) -> std::collections::BTreeSet<Condition> {
    use crate::rules::health::{nonlethal_state, states_for};
    let hp = spec.stats.hit_points;
    let mut conditions: std::collections::BTreeSet<Condition> = spec.conditions.iter().copied().collect();
    conditions.extend(states_for(hp.total()).iter().copied());
    if conditions.contains(&Condition::Stable) {
        conditions.remove(&Condition::Dying);
    }
    conditions.extend(nonlethal_state(hp.total(), hp.nonlethal));
    conditions
}

/// Asks the rules to roll initiative and begin.
pub fn begin(world: &mut World, level: &str, seed: u64) {
    world.write_message(BeginEncounterIntent { level: level.to_string(), seed });
}

/// An app with the rules and nothing else: no window, no renderer. What `estoc run`, the simulator and
/// the tests use.
pub fn headless_app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(crate::rules::plugin);
    app.insert_resource(Battlefield::default()).insert_resource(Dice::seeded(0));
    app
}

/// Reads a creature's sheet from the world.
pub fn sheet_of(world: &mut World, entity: Entity) -> Option<Sheet> {
    let mut query = kept::<
        (
            &Size,
            &Reach,
            &Speed,
            &SpeedModifiers,
            &Encumbrance,
            &Traits,
            &HitPoints,
            &Abilities,
            &BaseAttack,
            &Saves,
            &Defense,
            &Armament,
            Option<&Shield>,
            &Feats,
            Option<&Conditions>,
        ),
        (),
    >(world);
    let (
        size,
        reach,
        speed,
        speed_modifiers,
        encumbrance,
        traits,
        hit_points,
        abilities,
        base_attack,
        saves,
        defense,
        armament,
        shield,
        feats,
        conditions,
    ) = query.get(world, entity).ok()?;
    // Its Dexterity as its conditions leave it: 0 helpless or pinned, -4 entangled (004:423, 004:394, 004:378),
    // on its AC, its Reflex save and its initiative as in play.
    let in_play = conditions.map_or(*abilities, |c| crate::rules::core::creature::abilities_in_play(abilities, c));
    let abilities = &in_play;
    Some(derive_sheet(SheetInput {
        size: *size,
        reach: *reach,
        speed,
        speed_modifiers,
        encumbrance: *encumbrance,
        traits,
        hit_points: *hit_points,
        abilities,
        base_attack: *base_attack,
        saves: *saves,
        defense,
        armament,
        shield,
        feats,
        fatigued: conditions.is_some_and(|c| c.has(Condition::Fatigued)),
    }))
}
