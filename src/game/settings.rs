//! The player's settings, kept between runs in the user's configuration folder
//! (`$ESTOC_CONFIG_DIR`, else `$XDG_CONFIG_HOME/estoc`, else `~/.config/estoc`): the interface's language
//! the zoom of each level and the house rules a new level starts with.
//! A scripted run neither reads nor writes them, so that it plays the same on every machine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bevy::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::diagnostics::{Diagnostic, Source, read_file};

/// The closest the camera zooms in: world units per screen pixel.
pub const MIN_SCALE: f32 = 0.2;

/// The farthest it zooms out.
pub const MAX_SCALE: f32 = 8.0;

/// What the player chose and the game remembers.
#[derive(Resource, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The interface's language.
    pub language: crate::locale::Language,
    /// The zoom of each level the player zoomed, by the level file's name: the camera's scale, world
    /// units per screen pixel.
    pub zoom: BTreeMap<String, f32>,
    /// The house rules a new level starts with (the texts' unless the player chose others).
    pub house_rules: crate::rules::core::battlefield::HouseRules,
    /// Carry out at once, without asking first, an action that provokes or ends the turn with actions left
    /// (by default the game asks: a second click or Enter confirms, Escape takes it back).
    pub act_at_once: bool,
}

/// Where the settings are kept, and whether they are kept at all.
#[derive(Resource, Clone, Debug, Default)]
pub struct SettingsFile(pub Option<PathBuf>);

/// The settings file of this user, if a folder for it is known.
pub fn default_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let folder = var("ESTOC_CONFIG_DIR")
        .or_else(|| var("XDG_CONFIG_HOME").map(|d| d.join("estoc")))
        .or_else(|| var("HOME").map(|d| d.join(".config").join("estoc")))?;
    Some(folder.join("settings.ron"))
}

/// Reads the settings; a missing file gives the defaults, a bad one the defaults and the reason.
pub fn load(path: &Path) -> Result<Settings, Diagnostic> {
    if !path.exists() {
        return Ok(Settings::default());
    }
    let text = read_file(path)?;
    let settings: Settings = Source::new(path, &text).parse()?;
    Ok(settings.sane())
}

impl Settings {
    /// The settings without values the game cannot use (a zoom that is not a finite positive number).
    fn sane(mut self) -> Settings {
        self.zoom.retain(|_, z| z.is_finite() && *z > 0.0);
        for z in self.zoom.values_mut() {
            *z = z.clamp(MIN_SCALE, MAX_SCALE);
        }
        self
    }

    /// The key of a level in the settings: its file's name.
    pub fn level_key(level: &Path) -> String {
        level.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// Writes the settings: to a temporary file beside, then renamed over the old one, so that a failed
/// write never leaves half a file.
pub fn save(path: &Path, settings: &Settings) -> Result<(), String> {
    let text = ron::ser::to_string_pretty(settings, ron::ser::PrettyConfig::default())
        .map_err(|e| format!("cannot write the settings: {e}"))?;
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    }
    let temporary = path.with_extension("ron.tmp");
    std::fs::write(&temporary, text).map_err(|e| format!("cannot write {}: {e}", temporary.display()))?;
    std::fs::rename(&temporary, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads the settings at the start (not for a scripted run), saying on the terminal why a bad file is
/// set aside.
pub(super) fn setup(app: &mut App, scripted: bool, language: Option<crate::locale::Language>) {
    let path = if scripted { None } else { default_path() };
    let settings = match path.as_deref().map(load) {
        Some(Ok(settings)) => settings,
        Some(Err(problem)) => {
            eprintln!("{problem} (the settings are set aside for the defaults)");
            Settings::default()
        }
        None => Settings::default(),
    };
    crate::locale::set_language(language.unwrap_or(settings.language));
    app.insert_resource(settings).insert_resource(SettingsFile(path));
}

/// Keeps the settings on disk when they change.
pub(super) fn keep(settings: Res<Settings>, file: Res<SettingsFile>) {
    if !settings.is_changed() || settings.is_added() {
        return;
    }
    if let Some(path) = &file.0
        && let Err(problem) = save(path, &settings)
    {
        eprintln!("{problem}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_their_file() {
        let folder = std::env::temp_dir().join(format!("estoc-settings-{}", std::process::id()));
        let path = folder.join("settings.ron");
        let mut settings = Settings::default();
        settings.zoom.insert("battlefield.ron".into(), 1.5);
        settings.language = crate::locale::Language::French;
        save(&path, &settings).expect("written");
        assert_eq!(load(&path).expect("read"), settings);
        std::fs::write(&path, "(zoom: {\"x.ron\": -3.0, \"y.ron\": 1e30})").expect("written");
        let sane = load(&path).expect("read");
        assert_eq!(sane.zoom.get("x.ron"), None);
        assert_eq!(sane.zoom.get("y.ron"), Some(&MAX_SCALE));
        std::fs::write(&path, "(zoom: 3)").expect("written");
        let problem = load(&path).expect_err("a bad file is refused");
        assert!(problem.to_string().contains("settings.ron:1:"), "{problem}");
        std::fs::remove_dir_all(&folder).ok();
    }

    #[test]
    fn a_missing_file_gives_the_defaults() {
        assert_eq!(load(Path::new("/nonexistent/estoc/settings.ron")).expect("defaults"), Settings::default());
    }
}
