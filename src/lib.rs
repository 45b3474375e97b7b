//! Estoc: the d20 combat rules (3.5 / Pathfinder-1 family) played faithfully on a square grid.
//!
//! - [`rules`]: the rules chapters as Bevy plugins and pure functions, headless.
//! - [`data`]: templates, weapons and levels, parsed and validated with located errors.
//! - [`encounter`]: spawning a checked level and the headless app.
//! - [`scenario`]: scripted headless fights and queries, printing the event log.
//! - [`game`]: the window, the map and the tokens.
//! - [`cli`]: the `estoc` command line.

pub mod cli;
pub mod data;
pub mod encounter;
pub mod game;
pub mod rules;
pub mod scenario;
