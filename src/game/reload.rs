//! Hot reload of levels and creature templates: with the `dev` feature or `estoc play --watch`, the level
//! file and the files under `assets/` that the rules read are checked twice a second. When one changes,
//! the battle starts again from the new files; when they no longer load, the battle on screen stays and
//! the error is shown with its file, line and column. Images reload through Bevy's asset watcher (the
//! `dev` feature).

use std::path::PathBuf;
use std::time::SystemTime;

use bevy::prelude::*;

use super::LaunchOptions;
use super::state::Notice;
use super::state::Restart;
use crate::data::{Content, load_level};
use crate::encounter::ActiveEncounter;

/// Seconds between two looks at the files.
const POLL_SECONDS: f32 = 0.5;

/// The files watched and when each was last changed.
#[derive(Resource, Default)]
struct Watched {
    stamps: Vec<(PathBuf, Option<SystemTime>)>,
    since: f32,
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Watched>();
    app.add_systems(Update, poll.run_if(|o: Res<LaunchOptions>| o.watch).in_set(super::ViewSystems::Reload));
}

fn watched_files(level: &std::path::Path) -> Vec<PathBuf> {
    let assets = crate::data::assets_dir();
    let mut files = vec![level.to_path_buf()];
    for dir in [assets.clone(), assets.join("creatures")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                .collect();
            found.sort();
            files.extend(found);
        }
    }
    files
}

fn stamps(files: &[PathBuf]) -> Vec<(PathBuf, Option<SystemTime>)> {
    files.iter().map(|f| (f.clone(), std::fs::metadata(f).and_then(|m| m.modified()).ok())).collect()
}

pub(super) fn poll(world: &mut World) {
    let delta = world.resource::<Time>().delta_secs();
    let level = world.resource::<LaunchOptions>().level.clone();
    {
        let mut watched = world.resource_mut::<Watched>();
        watched.since += delta;
        if watched.since < POLL_SECONDS {
            return;
        }
        watched.since = 0.0;
    }
    let now = stamps(&watched_files(&level));
    let mut watched = world.resource_mut::<Watched>();
    if watched.stamps.is_empty() || watched.stamps.iter().map(|(p, _)| p).ne(now.iter().map(|(p, _)| p)) {
        watched.stamps = now;
        return;
    }
    if watched.stamps == now {
        return;
    }
    watched.stamps = now;
    reload(world);
}

/// Loads the level named in [`LaunchOptions`] and the assets again. If they load, the battle starts again
/// from them; if not, the battle stays as it is and [`Notice`] holds the error with its file, line and
/// column. Returns whether it reloaded.
pub fn reload(world: &mut World) -> bool {
    let level = world.resource::<LaunchOptions>().level.clone();
    let loaded = Content::load(&crate::data::assets_dir())
        .map_err(|problems| problems.to_string())
        .and_then(|content| load_level(&level, &content).map_err(|problems| problems.to_string()));
    match loaded {
        Ok(encounter) => {
            let name = encounter.name.clone();
            world.insert_resource(ActiveEncounter(encounter));
            world.insert_resource(Restart { replay: Vec::new() });
            world.insert_resource(Notice(Some((false, crate::tr!("notice-reloaded", level = name)))));
            true
        }
        Err(problems) => {
            world.insert_resource(Notice(Some((true, crate::tr!("notice-reload-failed", problems = problems)))));
            false
        }
    }
}
