//! Data files: creature templates and weapons under `assets/`, levels under `levels/`, scenarios. Raw
//! definitions are parsed from RON and validated into checked values, with every problem located.

pub mod content;
pub mod diagnostics;
pub mod draft;
pub mod level;
pub mod tiled;
pub mod tiled_json;

use std::path::PathBuf;

pub use content::Content;
pub use diagnostics::{Diagnostic, Diagnostics};
pub use level::{Encounter, load_level};

/// The folder holding `assets/` and `levels/`: the current directory if it has them, else the crate's
/// own folder (so `cargo run` and the tests work from anywhere in the repository).
pub fn root() -> PathBuf {
    // Absolute, so that the asset server (which reads relative paths from the executable's folder) finds
    // the same files as the level loader.
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if here.join("assets").is_dir() && here.join("levels").is_dir() {
        here
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }
}

/// The `assets/` folder.
pub fn assets_dir() -> PathBuf {
    root().join("assets")
}

/// The `levels/` folder.
pub fn levels_dir() -> PathBuf {
    root().join("levels")
}
