//! Saving and loading a battle in progress. A save holds the level, the seed and every action taken;
//! loading starts the level again with that seed and replays the actions, which gives back the same
//! battle to the last die (the rules are deterministic). Saves are written atomically (a temporary file
//! renamed over the old one); a damaged save is refused with its file, line and column, and the battle
//! on screen is kept.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use super::LaunchOptions;
use super::state::{History, Restart, Seed};
use crate::data::diagnostics::{Diagnostic, Source, read_file};
use crate::rules::command::Command;

/// A saved battle: also a valid scenario for `estoc run` once given an `expect` list.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedBattle {
    /// The level file.
    pub level: PathBuf,
    /// The dice seed.
    pub seed: u64,
    /// Every action taken, in order.
    pub steps: Vec<Command>,
}

/// Where the battle is saved: `saves/battle.ron` in the game's folder.
pub fn save_path() -> PathBuf {
    crate::data::root().join("saves").join("battle.ron")
}

pub use crate::data::draft::write_atomically;

/// Saves the battle in progress.
pub fn save(world: &World) -> Result<PathBuf, String> {
    let battle = SavedBattle {
        level: world.resource::<LaunchOptions>().level.clone(),
        seed: world.resource::<Seed>().0,
        steps: world.resource::<History>().0.clone(),
    };
    let text = ron::ser::to_string_pretty(&battle, ron::ser::PrettyConfig::default())
        .map_err(|e| crate::tr!("notice-cannot-save", why = e.to_string()))?;
    let path = save_path();
    write_atomically(&path, &text)
        .map_err(|e| crate::tr!("notice-cannot-save-to", path = path.display().to_string(), why = e.to_string()))?;
    Ok(path)
}

/// Reads a save, or says where it is damaged.
pub fn read_save(path: &Path) -> Result<SavedBattle, String> {
    let text = read_file(path).map_err(|d| d.to_string())?;
    Source::new(path, &text).parse().map_err(|d: Diagnostic| d.to_string())
}

/// Loads the saved battle: the level again, then the actions replayed. On any error the battle on
/// screen stays as it is.
pub fn load(world: &mut World) -> Result<(), String> {
    let battle = read_save(&save_path())?;
    // A save names a level of the project, or the one being played (the player's own choice).
    let playing = world.resource::<super::LaunchOptions>().level.clone();
    let allowed = [crate::data::root(), playing.parent().map(Path::to_path_buf).unwrap_or_default()];
    let level = crate::data::diagnostics::confined(&battle.level, &allowed)?;
    super::switch_level_checked(world, &level)?;
    world.insert_resource(Seed(battle.seed));
    world.insert_resource(Restart { replay: battle.steps });
    Ok(())
}

/// Saves the battle and tells the player where, or what went wrong.
pub fn save_and_tell(world: &mut World) {
    let notice = match save(world) {
        Ok(path) => (false, crate::tr!("notice-saved", path = path.display().to_string())),
        Err(e) => (true, e),
    };
    world.insert_resource(super::state::Notice(Some(notice)));
}

/// Loads the saved battle, or tells the player why not (the battle on screen stays).
pub fn load_or_tell(world: &mut World) {
    if let Err(e) = load(world) {
        world.insert_resource(super::state::Notice(Some((true, e))));
    }
}
