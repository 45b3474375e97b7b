//! Estoc: the d20 combat rules (3.5 / Pathfinder-1 family) played faithfully on a square grid.
//!
//! - [`rules`]: the rules chapters as Bevy plugins and pure functions, headless.
//! - [`data`]: templates, weapons and levels, parsed and validated with located errors.
//! - [`encounter`]: spawning a checked level and the headless app.
//! - [`scenario`]: scripted headless fights and queries, printing the event log.
//! - [`preview`]: what a creature could do before it acts: moves, paths, provocations, attacks and odds.
//! - [`ai`]: the opponents' tactics, for the game and the headless simulator.
//! - [`game`]: the window, the map, the tokens, the mouse and the panels.
//! - [`cli`]: the `estoc` command line.

pub mod ai;
pub mod cli;
pub mod data;
pub mod encounter;
pub mod game;
pub mod locale;
pub mod preview;
pub mod rules;
pub mod rules_text;
pub mod scenario;
pub mod simulate;
