//! Overland movement (003): paces, distances by the round, minute, hour and day, terrain and road
//! multipliers, mounts and vehicles, hustle and forced march, pursuit and escape. Pure tables and
//! functions; `estoc travel` answers "how far, how long, at what cost" with them.

pub mod march;
pub mod travel;
