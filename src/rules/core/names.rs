//! The names the event log and the refusals give to what happened: statuses and shapes the facts carry.
//! Each chapter gives them their rules (`impl` blocks beside its rules); the log only names them, so the
//! core that every chapter shares does not depend on any chapter.

use serde::{Deserialize, Serialize};

/// The status a flier's declared speed gives it for the turn (004:681-710).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeedStatus {
    /// 1.5 m or less: it drops 180 m this round (004:690, 004:696).
    FreeFall,
    /// Under half its speed: one move and one standard action; 45 m down at the end of the turn (004:691,
    /// 004:700-701).
    Stall,
    /// Half to its full speed: one move and one standard action (004:692, 004:704).
    Slow,
    /// More than its speed, up to twice: two moves, or a dive attack or a charge (004:693, 004:706).
    Fast,
    /// More than twice: a run, nothing else (004:694, 004:707).
    TopSpeed,
    /// A quarter of its speed at most, 9 m at most: perfect or good manoeuvrability or the Hover feat
    /// (004:695, 004:708-709).
    Hover,
}

/// The shape of a breath weapon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BreathShape {
    /// A quarter circle widening from the breather, as long as its length (our ruling: what lies within 45°
    /// of the line from the breather's centre to the creature aimed at).
    Cone,
    /// A line 1.5 m wide from the breather, as long as its length.
    Line,
}

impl BreathShape {
    /// Its name in the log.
    pub fn name(self) -> &'static str {
        match self {
            BreathShape::Cone => "cone",
            BreathShape::Line => "line",
        }
    }
}
