//! Scenarios: a level, a seed, optional forced dice, and a list of steps (commands by creature id, queries
//! and forced dice), run headless. The runner only turns the file into commands and expectations: the
//! commands go through [`crate::rules::command::perform`], as the game's and the AI's do. The output is the
//! event log as JSON lines, with query answers in place; a scenario may list the facts it expects, which
//! `estoc run --check` and the tests verify.

mod queries;

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use serde::de::{self, DeserializeSeed, EnumAccess, IntoDeserializer, VariantAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use queries::*;

use crate::data::diagnostics::{Diagnostic, Diagnostics, Source, read_file};
use crate::data::{Content, load_level};
use crate::encounter::{begin, headless_app, spawn_encounter};
use crate::rules::command::{Command, perform};
use crate::rules::core::facts::EventLog;

/// One step of a scenario: a command, a question about the state, or dice to force. In the file each is
/// written by its own name (`Move(creature: "fighter", to: (3, 4))`, `Reachable(creature: "fighter")`,
/// `ForceDice(dice: [20])`).
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A command, carried out as a player's would be.
    Act(Command),
    /// A question, answered in the log.
    Ask(Question),
    /// Queue more forced dice.
    ForceDice {
        /// The values, in order.
        dice: Vec<u32>,
    },
}

/// The names a query step may have; every other name is a command's (or `ForceDice`).
const QUERIES: [&str; 8] =
    ["Reachable", "PathCost", "ChargeLanes", "WhyNot", "Path", "Threatened", "Distance", "Sheet"];

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum("Step", &[], StepVisitor)
    }
}

/// Reads a step's name, then hands the rest to the command, the query or the forced dice it names.
struct StepVisitor;

impl<'de> Visitor<'de> for StepVisitor {
    type Value = Step;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a command, a query or ForceDice")
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Step, A::Error> {
        let (StepName(name), variant): (StepName, A::Variant) = data.variant()?;
        let named = Named { name: name.clone(), variant };
        if name == "ForceDice" {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            enum Dice {
                ForceDice { dice: Vec<u32> },
            }
            let Dice::ForceDice { dice } = Dice::deserialize(named)?;
            Ok(Step::ForceDice { dice })
        } else if QUERIES.contains(&name.as_str()) {
            Question::deserialize(named).map(Step::Ask)
        } else {
            Command::deserialize(named).map(Step::Act)
        }
    }
}

/// A step's name, read as the identifier it is.
struct StepName(String);

impl<'de> Deserialize<'de> for StepName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = StepName;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the name of a step")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<StepName, E> {
                Ok(StepName(name.to_string()))
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

/// An enum whose variant's name was already read: it gives it back to the visitor of the type it names.
struct Named<A> {
    name: String,
    variant: A,
}

impl<'de, A: VariantAccess<'de>> Deserializer<'de> for Named<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de, A: VariantAccess<'de>> EnumAccess<'de> for Named<A> {
    type Error = A::Error;
    type Variant = A;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, A), Self::Error> {
        let name: de::value::StringDeserializer<A::Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, self.variant))
    }
}

impl Serialize for Step {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Step::Act(command) => command.serialize(serializer),
            Step::Ask(question) => question.serialize(serializer),
            Step::ForceDice { dice } => {
                use serde::ser::SerializeStructVariant;
                let mut variant = serializer.serialize_struct_variant("Step", 0, "ForceDice", 1)?;
                variant.serialize_field("dice", dice)?;
                variant.end()
            }
        }
    }
}

/// A scenario file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDef {
    /// The level, relative to the scenario file or to the repository root.
    pub level: PathBuf,
    /// Seed of the dice.
    pub seed: u64,
    /// Dice results forced at the start, in order.
    #[serde(default)]
    pub dice: Vec<u32>,
    /// Steps in order.
    pub steps: Vec<Step>,
    /// Facts or answers expected, in order, as JSON objects matched on the keys they give.
    #[serde(default)]
    pub expect: Vec<String>,
    /// Facts that must not appear anywhere, as JSON objects matched the same way.
    #[serde(default)]
    pub forbid: Vec<String>,
    /// The table's switches against the texts, in place of the level's (`house_rules: (flanking: false)`).
    #[serde(default)]
    pub house_rules: Option<crate::rules::core::battlefield::HouseRules>,
}

/// Reads and parses a scenario file.
pub fn load_scenario(path: &Path) -> Result<ScenarioDef, Diagnostics> {
    let text = read_file(path).map_err(|d| Diagnostics(vec![d]))?;
    Source::new(path, &text).parse().map_err(|d: Diagnostic| Diagnostics(vec![d]))
}

/// Where a scenario's level file is: beside the scenario, else under the project's folder; refused (with
/// the scenario's place) when it leads outside both (an absolute path, `..`, a link elsewhere).
pub fn level_path(scenario_path: &Path, level: &Path) -> Result<PathBuf, Diagnostics> {
    // A scenario named without a folder ("duel.ron") lies in the current one.
    let folder = match scenario_path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let beside = folder.join(level);
    let named = if beside.exists() { beside } else { crate::data::root().join(level) };
    crate::data::diagnostics::confined(&named, &[folder, crate::data::root()]).map_err(|message| {
        let text = crate::data::diagnostics::read_file(scenario_path).unwrap_or_default();
        let source = Source::new(scenario_path, &text);
        Diagnostics(vec![source.error(source.locate("level:", None), message)])
    })
}

/// The fields of a command that name a creature by its id.
const ID_FIELDS: [&str; 8] = ["creature", "target", "ally", "foe", "mount", "toward", "acts", "from"];

/// The fields of a command that name a square, or a list of squares.
const SQUARE_FIELDS: [&str; 2] = ["to", "path"];

/// Checks every step against the level before anything runs: each creature a command names is one of the
/// level's, each square it names is on the map. Every problem is located in the scenario file (the first
/// place after `steps:` where the id or the square is written).
pub fn check_steps(path: &Path, scenario: &ScenarioDef, encounter: &crate::data::Encounter) -> Result<(), Diagnostics> {
    let text = read_file(path).unwrap_or_default();
    let source = Source::new(path, &text);
    let steps_at = source.find_from(0, "steps:").unwrap_or(0);
    let at = |needle: &str| source.position(source.find_from(steps_at, needle).unwrap_or(steps_at));
    let known: std::collections::BTreeSet<&str> = encounter.creatures.iter().map(|c| c.id.0.as_str()).collect();
    let field = &encounter.battlefield;
    let mut problems = Vec::new();
    for step in &scenario.steps {
        let Step::Act(command) = step else { continue };
        let Ok(value) = serde_json::to_value(command) else { continue };
        let (mut ids, mut squares) = (Vec::new(), Vec::new());
        collect_names(&value, &mut ids, &mut squares);
        for id in ids.into_iter().filter(|id| !known.contains(id.as_str())) {
            problems.push(source.error(at(&format!("\"{id}\"")), format!("no creature {id:?} in the level")));
        }
        for (x, y) in squares {
            let inside = i32::try_from(x)
                .ok()
                .zip(i32::try_from(y).ok())
                .is_some_and(|(x, y)| field.contains(crate::rules::core::geometry::Square::new(x, y)));
            if !inside {
                problems.push(source.error(
                    at(&format!("({x}, {y})")),
                    format!("the square ({x}, {y}) is off the {}x{} map", field.width(), field.height()),
                ));
            }
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(Diagnostics(problems)) }
}

/// The creature ids and the squares a command's fields name, nested ones included.
fn collect_names(value: &serde_json::Value, ids: &mut Vec<String>, squares: &mut Vec<(i64, i64)>) {
    use serde_json::Value;
    let square = |v: &Value| match v {
        Value::Array(xy) if xy.len() == 2 => xy[0].as_i64().zip(xy[1].as_i64()),
        Value::Object(o) => o.get("x").and_then(Value::as_i64).zip(o.get("y").and_then(Value::as_i64)),
        _ => None,
    };
    match value {
        Value::Object(fields) => {
            for (key, v) in fields {
                match v {
                    Value::String(id) if ID_FIELDS.contains(&key.as_str()) => ids.push(id.clone()),
                    _ if SQUARE_FIELDS.contains(&key.as_str()) => match v {
                        Value::Array(list) if list.iter().all(|s| square(s).is_some()) && square(v).is_none() => {
                            squares.extend(list.iter().filter_map(square));
                        }
                        _ => squares.extend(square(v)),
                    },
                    _ => collect_names(v, ids, squares),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_names(v, ids, squares)),
        _ => {}
    }
}

/// The output of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOutput {
    /// Facts and answers, one JSON object per line, in order.
    pub lines: Vec<String>,
}

impl RunOutput {
    /// The expectations not met, in order: each is matched against the lines after the previous match.
    pub fn unmet(&self, expect: &[String]) -> Vec<String> {
        let parsed: Vec<serde_json::Value> = self.lines.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let mut at = 0;
        let mut unmet = Vec::new();
        for wanted in expect {
            let Ok(want) = serde_json::from_str::<serde_json::Value>(wanted) else {
                unmet.push(format!("not a JSON object: {wanted}"));
                continue;
            };
            match parsed[at..].iter().position(|line| json_contains(line, &want)) {
                Some(found) => at += found + 1,
                None => unmet.push(wanted.clone()),
            }
        }
        unmet
    }
}

impl RunOutput {
    /// The forbidden facts that appear, each with the first line that matched it.
    pub fn present(&self, forbid: &[String]) -> Vec<String> {
        forbid
            .iter()
            .filter_map(|unwanted| {
                let Ok(want) = serde_json::from_str::<serde_json::Value>(unwanted) else {
                    return Some(format!("not a JSON object: {unwanted}"));
                };
                self.lines
                    .iter()
                    .find(|line| serde_json::from_str(line).is_ok_and(|v| json_contains(&v, &want)))
                    .map(|line| format!("{unwanted} matched {line}"))
            })
            .collect()
    }
}

/// Whether `have` holds everything `want` gives: objects by key, arrays element by element.
pub fn json_contains(have: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => {
            w.iter().all(|(k, wv)| h.get(k).is_some_and(|hv| json_contains(hv, wv)))
        }
        (Value::Array(h), Value::Array(w)) => h.len() == w.len() && h.iter().zip(w).all(|(a, b)| json_contains(a, b)),
        (Value::Number(h), Value::Number(w)) => h.as_f64() == w.as_f64(),
        _ => have == want,
    }
}

/// Runs a scenario with its own seed or `seed_override`.
pub fn run_scenario(
    path: &Path,
    scenario: &ScenarioDef,
    content: &Content,
    seed_override: Option<u64>,
) -> Result<RunOutput, Diagnostics> {
    let level_file = level_path(path, &scenario.level)?;
    let mut encounter = load_level(&level_file, content)?;
    if let Some(house) = scenario.house_rules {
        encounter.battlefield.set_house_rules(house);
    }
    check_steps(path, scenario, &encounter)?;
    let seed = seed_override.unwrap_or(scenario.seed);
    let mut app = headless_app();
    spawn_encounter(app.world_mut(), &encounter, seed, &scenario.dice);
    begin(app.world_mut(), &encounter.name, seed);
    app.update();
    let mut output = RunOutput::default();
    let mut logged = 0;
    let mut flush = |world: &World, output: &mut RunOutput| {
        let log = world.resource::<EventLog>();
        for fact in &log.0[logged..] {
            output.lines.push(serde_json::to_string(fact).expect("facts serialise"));
        }
        logged = log.0.len();
    };
    flush(app.world(), &mut output);
    for step in &scenario.steps {
        let world = app.world_mut();
        match step {
            Step::Act(command) => {
                if let Err(unknown) = perform(world, command) {
                    let answer = Answer::UnknownCreature { creature: unknown.0.0 };
                    output.lines.push(serde_json::to_string(&answer).expect("answers serialise"));
                }
            }
            Step::Ask(question) => {
                let answer = answer(world, question);
                output.lines.push(serde_json::to_string(&answer).expect("answers serialise"));
            }
            Step::ForceDice { dice } => {
                world.resource_mut::<crate::rules::core::dice::Dice>().force(dice.iter().copied());
                // The rules run after every step that is not a question, as the game runs them every frame:
                // what the last turn left for them (a fall's damage) is settled now.
                crate::rules::core::systems::run_rules(world);
            }
        }
        flush(app.world(), &mut output);
    }
    Ok(output)
}
