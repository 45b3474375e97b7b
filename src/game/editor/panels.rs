//! The editor's panels: the tools on the left; on the right the encounter's odds, the problems, the
//! selected creature and the level; the file's commands on top; the questions that guard unsaved edits.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

use super::{Confirm, EDGES, EditRequest, Editor, EditorContent, Shape, TERRAINS, Tool};
use crate::data::draft::{Layer, LineOf};
use crate::data::level::{Control, FactionDef};
use crate::locale::tr;
use crate::rules::core::battlefield::HouseRules;
use crate::rules::core::creature::Condition;
use crate::rules::core::geometry::Direction;
use crate::tr;

/// Width of the tools panel, in logical pixels.
pub const LEFT: f32 = 250.0;
/// Width of the right panel.
pub const RIGHT: f32 = 370.0;

const GREY: egui::Color32 = egui::Color32::from_rgb(160, 160, 160);
const BAD: egui::Color32 = egui::Color32::from_rgb(255, 120, 110);
const GOOD: egui::Color32 = egui::Color32::from_rgb(140, 220, 140);

/// The conditions the inspector offers a creature at the start.
const CONDITIONS: [(Condition, &str); 6] = [
    (Condition::Prone, "editor-condition-prone"),
    (Condition::Helpless, "editor-condition-helpless"),
    (Condition::Unconscious, "editor-condition-unconscious"),
    (Condition::FlatFooted, "editor-condition-flat-footed"),
    (Condition::Invisible, "editor-condition-invisible"),
    (Condition::Entangled, "editor-condition-entangled"),
];

/// What the panels ask of the world, carried out after them.
enum Asked {
    Play,
    Open(EditRequest),
    Menu,
    Quit,
}

fn rgb(c: Option<[u8; 3]>) -> egui::Color32 {
    let [r, g, b] = c.unwrap_or([150, 150, 150]);
    egui::Color32::from_rgb(r, g, b)
}

pub(super) fn draw(
    mut contexts: EguiContexts,
    mut editor: ResMut<Editor>,
    content: Res<EditorContent>,
    mut commands: Commands,
    asset_server: Res<AssetServer>,
    mut icons: Local<std::collections::HashMap<String, egui::TextureId>>,
    mut settings: Option<ResMut<crate::game::settings::Settings>>,
) -> Result {
    // Each template's portrait, as its token shows it, for the palette.
    for (name, (_, template)) in &content.0.templates {
        if !icons.contains_key(name) {
            let icon = template.icon.clone().unwrap_or_else(|| "generic".into());
            let image = asset_server.load(format!("icons/{icon}.png"));
            icons.insert(name.clone(), contexts.add_image(bevy_egui::EguiTextureHandle::Strong(image)));
        }
    }
    let ctx = contexts.ctx_mut()?;
    let focused_before = ctx.memory(|m| m.focused());
    let mut asked = None;
    let mut root = egui::Ui::new(
        ctx.clone(),
        "editor".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    egui::Panel::top("editor_file").show(&mut root, |ui| file_bar(ui, &mut editor, &mut asked));
    egui::Panel::bottom("editor_keys").show(&mut root, |ui| {
        ui.label(egui::RichText::new(tr("editor-keys-help")).small().color(GREY));
    });
    egui::Panel::left("editor_tools").exact_size(LEFT).show(&mut root, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| tools(ui, &mut editor, &content.0, &icons));
    });
    egui::Panel::right("editor_info").exact_size(RIGHT).show(&mut root, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            odds(ui, &editor);
            ui.separator();
            problems(ui, &mut editor);
            ui.separator();
            inspector(ui, &mut editor, &content.0);
            ui.separator();
            // Read without marking the settings changed, written only when the player makes a new default.
            let default = settings.as_ref().map(|s| s.house_rules);
            if let Some(chosen) = level(ui, &mut editor, default)
                && let Some(settings) = settings.as_mut()
            {
                settings.house_rules = chosen;
            }
        });
    });
    questions(ctx, &mut editor, &mut asked);
    // Tab is the editor's (the next side), not egui's way to the next field: a field it focused lets go.
    if focused_before.is_none() && ctx.input(|i| i.key_pressed(egui::Key::Tab)) {
        ctx.memory_mut(|m| {
            if let Some(id) = m.focused() {
                m.surrender_focus(id);
            }
        });
    }
    match asked {
        Some(Asked::Play) => commands.queue(super::play_from_here),
        Some(Asked::Open(request)) => commands.queue(move |world: &mut World| {
            if let Err(problem) = super::open(world, &request) {
                world.resource_mut::<Editor>().status = Some((true, problem));
            }
        }),
        Some(Asked::Menu) => commands.queue(|world: &mut World| {
            world.resource_mut::<NextState<super::AppState>>().set(super::AppState::Menu);
        }),
        Some(Asked::Quit) => {
            commands.write_message(AppExit::Success);
        }
        None => {}
    }
    Ok(())
}

/// The file's commands and its state: menu, save, undo, redo, play; the path, unsaved edits, the status.
fn file_bar(ui: &mut egui::Ui, editor: &mut Editor, asked: &mut Option<Asked>) {
    ui.horizontal(|ui| {
        if ui.button(tr("editor-menu")).clicked() {
            if editor.dirty() {
                editor.confirm = Some(Confirm::Menu);
            } else {
                *asked = Some(Asked::Menu);
            }
        }
        if ui.button(tr("editor-save")).on_hover_text(tr("editor-ctrl-s")).clicked() {
            editor.save();
        }
        let (undo, redo) = editor.history.counts();
        if ui
            .add_enabled(undo > 0, egui::Button::new(tr!("editor-undo", count = undo)))
            .on_hover_text(tr("editor-ctrl-z"))
            .clicked()
        {
            editor.undo();
        }
        if ui
            .add_enabled(redo > 0, egui::Button::new(tr!("editor-redo", count = redo)))
            .on_hover_text(tr("editor-ctrl-y"))
            .clicked()
        {
            editor.redo();
        }
        let playable = editor.encounter.is_some();
        let play = ui.add_enabled(playable, egui::Button::new(tr("editor-play-from-here")));
        let play = if playable {
            play.on_hover_text(tr("editor-f5-play-this-level-now-escape"))
        } else {
            play.on_disabled_hover_text(tr("editor-fix-the-problems-listed-on-the"))
        };
        if play.clicked() {
            *asked = Some(Asked::Play);
        }
        ui.separator();
        let path = editor.path.display().to_string();
        let editing = if editor.dirty() {
            tr!("editor-editing-unsaved", path = path)
        } else {
            tr!("editor-editing", path = path)
        };
        ui.label(egui::RichText::new(editing).strong());
        if let Some((error, text)) = &editor.status {
            let first = text.lines().next().unwrap_or_default();
            ui.label(egui::RichText::new(first).color(if *error { BAD } else { GOOD }));
        }
    });
}

/// The palette: terrains and how they are laid, layers, edges, creatures.
fn tools(
    ui: &mut egui::Ui,
    editor: &mut Editor,
    content: &crate::data::Content,
    icons: &std::collections::HashMap<String, egui::TextureId>,
) {
    ui.heading(tr("editor-terrain"));
    let (look, shape) = match editor.tool {
        Tool::Terrain(look, shape) => (Some(look), shape),
        _ => (None, Shape::Brush),
    };
    for (i, (c, name)) in TERRAINS.iter().enumerate() {
        let key = (i + 1) % 10;
        if ui.selectable_label(look == Some(*c), format!("{key}  {c}  {}", tr(name))).clicked() {
            editor.tool = Tool::Terrain(*c, shape);
        }
    }
    ui.horizontal(|ui| {
        for (s, name) in [
            (Shape::Brush, tr("editor-brush")),
            (Shape::Rectangle, tr("editor-rectangle")),
            (Shape::Fill, tr("editor-fill")),
        ] {
            if ui.selectable_label(look.is_some() && shape == s, name).clicked() {
                editor.tool = Tool::Terrain(look.unwrap_or('.'), s);
            }
        }
    });
    ui.separator();
    ui.heading(tr("editor-layers-l"));
    let (layer, on) = match editor.tool {
        Tool::Layer(layer, on) => (Some(layer), on),
        _ => (None, true),
    };
    ui.horizontal_wrapped(|ui| {
        for l in Layer::ALL {
            let name = tr(match l {
                Layer::Darkness => "editor-layer-darkness",
                Layer::Fog => "editor-layer-fog",
                Layer::Difficult => "editor-layer-difficult",
                Layer::Obstacles => "editor-layer-obstacles",
            });
            if ui.selectable_label(layer == Some(l), name).clicked() {
                editor.tool = Tool::Layer(l, on);
            }
        }
    });
    ui.horizontal(|ui| {
        for (value, name) in [(true, tr("editor-lay")), (false, tr("editor-lift"))] {
            if ui.selectable_label(layer.is_some() && on == value, name).clicked() {
                editor.tool = Tool::Layer(layer.unwrap_or(Layer::Darkness), value);
            }
        }
    });
    ui.separator();
    ui.heading(tr("editor-edges-e"));
    ui.label(egui::RichText::new(tr("editor-click-near-a-side-of-a")).small().color(GREY));
    ui.horizontal_wrapped(|ui| {
        for (feature, name) in EDGES {
            if ui.selectable_label(editor.tool == Tool::Edge(feature), tr(name)).clicked() {
                editor.tool = Tool::Edge(feature);
            }
        }
    });
    ui.separator();
    ui.heading(tr("editor-creatures-c"));
    ui.horizontal_wrapped(|ui| {
        ui.label(tr("editor-side-tab"));
        for (i, faction) in editor.draft.def.factions.clone().iter().enumerate() {
            let text = egui::RichText::new(&faction.name).color(rgb(faction.colour));
            if ui.selectable_label(editor.faction == i, text).clicked() {
                editor.faction = i;
                editor.tool = Tool::Creatures;
            }
        }
    });
    for (name, (_, template)) in &content.templates {
        let chosen = editor.tool == Tool::Creatures && editor.template == *name;
        let label = format!("{} · {}", template.name, super::super::size_words(template.size));
        let response = ui
            .horizontal(|ui| {
                if let Some(id) = icons.get(name) {
                    ui.add(egui::Image::new((*id, egui::vec2(18.0, 18.0))));
                }
                ui.selectable_label(chosen, label)
            })
            .inner;
        let response = response.on_hover_ui(|ui| {
            let text = match content.stats(template, &Default::default()) {
                Ok(stats) => crate::rules::core::creature::format_sheet(&stats.name, &stats.sheet()),
                Err(problems) => problems.into_iter().map(|(_, m)| m).collect::<Vec<_>>().join("\n"),
            };
            ui.label(egui::RichText::new(text).monospace().small());
        });
        if response.clicked() {
            editor.template = name.clone();
            editor.tool = Tool::Creatures;
        }
    }
}

/// The encounter's odds, played in the background: each side's win rate with its 95% interval, how long
/// battles last, who usually survives.
fn odds(ui: &mut egui::Ui, editor: &Editor) {
    ui.heading(tr("editor-who-wins"));
    if editor.encounter.is_none() {
        ui.label(egui::RichText::new(tr("editor-fix-the-problems-below-to-see")).color(GREY));
        return;
    }
    let Some((_, run)) = editor.odds.as_ref().filter(|(g, _)| *g == editor.generation) else {
        ui.label(egui::RichText::new(tr("editor-the-odds-follow-once-the-edits")).color(GREY));
        return;
    };
    let progress = run.progress();
    let tally = &progress.tally;
    let share = tally.battles as f32 / progress.planned.max(1) as f32;
    let bar = egui::ProgressBar::new(share).text(tr!(
        "editor-odds-progress",
        done = tally.battles,
        planned = progress.planned
    ));
    ui.add(bar);
    if let Some(error) = &progress.error {
        ui.label(egui::RichText::new(error).color(BAD));
    }
    if tally.battles == 0 {
        return;
    }
    let mut sides: Vec<(Option<String>, egui::Color32)> =
        editor.draft.def.factions.iter().map(|f| (Some(f.name.clone()), rgb(f.colour))).collect();
    sides.push((None, GREY));
    for (side, colour) in sides {
        let (rate, (low, high)) = tally.win_rate(side.as_deref());
        if side.is_none() && rate == 0.0 {
            continue;
        }
        let name = side.clone().unwrap_or_else(|| tr("editor-no-winner"));
        ui.horizontal(|ui| {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(120.0, 14.0), egui::Sense::hover());
            let painter = ui.painter();
            painter.rect_filled(rect, 2.0, egui::Color32::from_gray(40));
            let x = |p: f64| rect.left() + rect.width() * p as f32;
            painter.rect_filled(egui::Rect::from_x_y_ranges(rect.left()..=x(rate), rect.y_range()), 2.0, colour);
            // The 95% interval as a white whisker across the bar.
            let y = rect.center().y;
            painter.line_segment([egui::pos2(x(low), y), egui::pos2(x(high), y)], (2.0, egui::Color32::WHITE));
            ui.label(
                egui::RichText::new(format!("{name} {:.0}% ({:.0}-{:.0}%)", rate * 100.0, low * 100.0, high * 100.0))
                    .color(colour),
            );
        });
    }
    ui.label(tr!(
        "editor-median-rounds",
        rounds = crate::locale::decimal((tally.median_rounds() * 10.0).round() as f32 / 10.0)
    ));
    let lengths = tally.lengths();
    let most = lengths.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
    let longest = lengths.last().map_or(1, |(r, _)| *r).max(1);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(RIGHT - 30.0, 48.0), egui::Sense::hover());
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(30));
    let step = rect.width() / (longest as f32 + 1.0);
    for (rounds, n) in &lengths {
        let h = rect.height() * *n as f32 / most as f32;
        let x = rect.left() + step * *rounds as f32;
        let bar = egui::Rect::from_min_max(egui::pos2(x, rect.bottom() - h), egui::pos2(x + step * 0.8, rect.bottom()));
        painter.rect_filled(bar, 0.0, egui::Color32::from_rgb(120, 160, 220));
    }
    ui.label(egui::RichText::new(tr!("editor-rounds-chart", longest = longest)).small().color(GREY));
    let mut survivors: Vec<(&String, &u64)> = tally.survived.iter().collect();
    survivors.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    let list: Vec<String> = survivors
        .iter()
        .take(8)
        .map(|(id, n)| format!("{id} {:.0}%", **n as f64 * 100.0 / tally.battles as f64))
        .collect();
    ui.label(egui::RichText::new(tr!("editor-alive", list = list.join(", "))).small());
}

/// Every problem of the draft; clicking one selects what it is about.
fn problems(ui: &mut egui::Ui, editor: &mut Editor) {
    ui.heading(tr!("editor-problems", count = editor.problems.len()));
    if editor.problems.is_empty() {
        ui.label(egui::RichText::new(tr("editor-none-the-level-can-be-played")).color(GOOD));
        return;
    }
    for problem in editor.problems.clone() {
        let response =
            ui.add(egui::Label::new(egui::RichText::new(&problem.message).color(BAD)).sense(egui::Sense::click()));
        if response.on_hover_text(tr("editor-click-to-select-what-it-is")).clicked() {
            match problem.of {
                LineOf::Creature(i) => {
                    editor.selected = Some(i);
                    editor.tool = Tool::Creatures;
                }
                LineOf::Edge(i) => {
                    if let Some(edge) = editor.draft.def.edges.get(i) {
                        editor.tool = Tool::Edge(Some(edge.feature));
                        editor.hover = Some((edge.at, edge.side));
                    }
                }
                LineOf::Row(_) | LineOf::Level => {}
            }
        }
    }
}

/// The selected creature's placement, each field an edit.
fn inspector(ui: &mut egui::Ui, editor: &mut Editor, content: &crate::data::Content) {
    ui.heading(tr("editor-selected-creature"));
    let Some(i) = editor.selected.filter(|i| *i < editor.draft.def.creatures.len()) else {
        ui.label(egui::RichText::new(tr("editor-none-click-a-creature-with-the")).color(GREY));
        return;
    };
    let mut p = editor.draft.def.creatures[i].clone();
    let before = p.clone();
    fields(ui, &mut p, &before.id, &editor.draft, content);
    ui.checkbox(&mut p.lurking, tr("editor-lying-in-wait"));
    // A flier aloft may begin hovering (004:708) or with the speed it flew at before the battle (004:827).
    let aloft = (p.altitude_m > 0.0 || p.band.is_some_and(|b| b > 0)) && p.rides.is_none();
    if aloft {
        ui.checkbox(&mut p.hovering, tr("editor-hovering"));
        if !p.hovering {
            ui.horizontal(|ui| {
                ui.add(egui::DragValue::new(&mut p.flying_m).speed(0.5).range(0.0..=300.0));
                ui.label(tr("editor-flying-m"));
            });
            p.flying_m = (p.flying_m / 1.5).round() * 1.5;
        }
    }
    if !aloft || p.hovering {
        p.flying_m = 0.0;
    }
    p.hovering &= aloft;
    // A rider directs its mount or sits behind as a passenger (004:655); a military saddle goes on the mount
    // itself (004:482).
    if p.rides.is_some() {
        ui.checkbox(&mut p.passenger, tr("editor-passenger"));
    } else {
        p.passenger = false;
        let ridden = editor.draft.def.creatures.iter().any(|c| c.rides.as_ref() == Some(&p.id));
        if ridden || p.military_saddle {
            ui.checkbox(&mut p.military_saddle, tr("editor-military-saddle"));
        }
    }
    for (condition, name) in CONDITIONS {
        let mut on = p.conditions.contains(&condition);
        if ui.checkbox(&mut on, tr(name)).changed() {
            if on {
                p.conditions.push(condition);
            } else {
                p.conditions.retain(|c| *c != condition);
            }
        }
    }
    // A rider stands where its mount is: it keeps no square of its own; set down, it takes the mount's.
    if p.rides.is_some() != before.rides.is_some() {
        let mount_at = editor.draft.placed_at(&before);
        p.at = if p.rides.is_some() { None } else { mount_at };
    }
    if p != before {
        let old_id = before.id.clone();
        editor.edit(|d| {
            if p.id != old_id {
                for other in &mut d.def.creatures {
                    if other.rides.as_ref() == Some(&old_id) {
                        other.rides = Some(p.id.clone());
                    }
                    for known in other.aware_of.iter_mut().flatten() {
                        if *known == old_id {
                            *known = p.id.clone();
                        }
                    }
                }
            }
            d.def.creatures[i] = p;
            true
        });
    }
    if ui.button(tr("editor-remove-this-creature-delete")).clicked() {
        editor.edit(|d| d.remove(i));
        editor.selected = None;
    }
}

/// The level's house rules, and the player's default kept in the settings: new levels start with it.
/// Returns the house rules made the new default, if the player made them so.
fn house_rules(ui: &mut egui::Ui, house: &mut HouseRules, default: Option<HouseRules>) -> Option<HouseRules> {
    ui.label(tr("editor-house-rules-the-texts-by-default"));
    ui.checkbox(&mut house.flanking, tr("editor-flanking-2-004-417"));
    ui.checkbox(&mut house.massive_damage, tr("editor-massive-damage-50-from-one-attack"));
    ui.checkbox(&mut house.confirm_criticals, tr("editor-threats-confirmed-by-a-second-roll"));
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(&mut house.attacks_of_opportunity).range(0..=10));
        ui.label(tr("editor-attacks-of-opportunity-a-round"));
    });
    ui.horizontal(|ui| {
        use crate::rules::core::geometry::Diagonals;
        ui.label(tr("editor-diagonals"));
        ui.selectable_value(&mut house.diagonals, Diagonals::Alternating, tr("editor-diagonals-1-2-1-2-000-59-61"));
        ui.selectable_value(&mut house.diagonals, Diagonals::Single, tr("editor-every-diagonal-one-square"));
    });
    // The player's default, kept in the settings: new levels start with it.
    let default = default?;
    let differ = default != *house;
    let mut chosen = None;
    // Wrapped: the two buttons are wider than the panel together, and a row that overflows it draws past it.
    ui.horizontal_wrapped(|ui| {
        if ui.add_enabled(differ, egui::Button::new(tr("editor-use-my-default-house-rules"))).clicked() {
            *house = default;
        }
        if ui.add_enabled(differ, egui::Button::new(tr("editor-make-these-my-default"))).clicked() {
            chosen = Some(*house);
        }
    });
    chosen
}

/// The level's own fields: name, description, size, scale, sides.
/// Returns the house rules made the player's new default, if they were.
fn level(ui: &mut egui::Ui, editor: &mut Editor, default: Option<HouseRules>) -> Option<HouseRules> {
    ui.heading(tr("editor-level"));
    let mut def = editor.draft.def.clone();
    let before = def.clone();
    ui.label(tr("editor-name"));
    ui.text_edit_singleline(&mut def.name);
    ui.label(tr("editor-description-shown-in-the-menu"));
    ui.add(egui::TextEdit::multiline(&mut def.description).desired_rows(2));
    ui.horizontal(|ui| {
        ui.label(tr("editor-scale"));
        use crate::rules::core::altitude::Scale;
        ui.selectable_value(&mut def.scale, Scale::Normal, tr("editor-normal-1-5-m"));
        ui.selectable_value(&mut def.scale, Scale::Chase, tr("editor-chase-9-m-004-650"));
    });
    ui.horizontal(|ui| {
        ui.label(tr("editor-pit-depth"));
        let most = crate::data::level::MAX_PIT_DEPTH;
        ui.add(egui::DragValue::new(&mut def.pit_depth).range(0.5..=most).speed(0.5).suffix(" m"));
    });
    let chosen = house_rules(ui, &mut def.house_rules, default);
    ui.label(tr("editor-sides"));
    let used: Vec<String> = def.creatures.iter().map(|c| c.faction.clone()).collect();
    let mut remove = None;
    for (i, faction) in def.factions.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            let mut colour = faction.colour.unwrap_or([150, 150, 150]);
            if ui.color_edit_button_srgb(&mut colour).changed() {
                faction.colour = Some(colour);
            }
            ui.add(egui::TextEdit::singleline(&mut faction.name).desired_width(90.0));
            for (control, name) in [(Control::Human, tr("editor-person")), (Control::Ai, tr("editor-computer"))] {
                ui.selectable_value(&mut faction.control, control, name);
            }
            let empty = !used.contains(&faction.name);
            if ui
                .add_enabled(empty, egui::Button::new(tr("editor-x")))
                .on_disabled_hover_text(tr("editor-a-side-with-creatures-stays"))
                .clicked()
            {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        def.factions.remove(i);
    }
    if ui.button(tr("editor-add-a-side")).clicked() {
        let name = (1..).map(|n| format!("side-{n}")).find(|n| def.factions.iter().all(|f| &f.name != n));
        def.factions.push(FactionDef {
            name: name.unwrap_or_default(),
            control: Control::Ai,
            colour: Some([90, 170, 90]),
        });
    }
    // Renaming a side renames it on its creatures.
    for (old, new) in before.factions.iter().zip(&def.factions) {
        if old.name != new.name && before.factions.len() == def.factions.len() {
            for creature in &mut def.creatures {
                if creature.faction == old.name {
                    creature.faction = new.name.clone();
                }
            }
        }
    }
    if def != before {
        editor.edit(|d| {
            d.def = def;
            true
        });
    }
    ui.separator();
    let (width, height) = editor.draft.size();
    let id = ui.id().with("new size");
    let mut size = ui.data(|d| d.get_temp::<(i32, i32)>(id)).unwrap_or((width, height));
    ui.horizontal(|ui| {
        ui.label(tr("editor-size"));
        ui.add(egui::DragValue::new(&mut size.0).range(1..=crate::data::level::MAX_MAP_SIDE));
        ui.label(tr("editor-x"));
        ui.add(egui::DragValue::new(&mut size.1).range(1..=crate::data::level::MAX_MAP_SIDE));
        if ui.add_enabled(size != (width, height), egui::Button::new(tr("editor-resize"))).clicked() {
            let mut result = Ok(false);
            editor.edit(|d| {
                result = d.resize(size.0, size.1);
                matches!(result, Ok(true))
            });
            if let Err(e) = result {
                editor.status = Some((true, e));
            }
        }
    });
    ui.data_mut(|d| d.insert_temp(id, size));
    chosen
}

/// The questions that guard unsaved edits, and the offer to reload a file changed on disk.
fn questions(ctx: &egui::Context, editor: &mut Editor, asked: &mut Option<Asked>) {
    if let Some(confirm) = editor.confirm.clone() {
        let (what, go) = match &confirm {
            Confirm::Quit => (tr("editor-before-quit"), Asked::Quit),
            Confirm::Open(request) => (tr("editor-before-open"), Asked::Open(request.clone())),
            Confirm::Menu => (tr("editor-before-menu"), Asked::Menu),
        };
        egui::Window::new(tr("editor-unsaved-changes"))
            .collapsible(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(tr!("editor-unsaved-question", path = editor.path.display().to_string(), what = what.clone()));
                ui.horizontal(|ui| {
                    if ui.button(tr("editor-save")).clicked() && editor.save() {
                        editor.confirm = None;
                        *asked = Some(go);
                    } else if ui.button(tr("editor-do-not-save")).clicked() {
                        editor.confirm = None;
                        // What was being edited is kept in the undo history of no editor: say so plainly.
                        *asked = Some(match confirm {
                            Confirm::Quit => Asked::Quit,
                            Confirm::Open(request) => Asked::Open(request),
                            Confirm::Menu => Asked::Menu,
                        });
                    } else if ui.button(tr("editor-cancel")).clicked() {
                        editor.confirm = None;
                    }
                });
            });
        return;
    }
    if editor.disk_changed {
        egui::Window::new(tr("editor-changed-on-disk-2"))
            .collapsible(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(tr!("editor-changed-on-disk", path = editor.path.display().to_string()));
                ui.horizontal(|ui| {
                    if ui
                        .button(tr("editor-reload-it"))
                        .on_hover_text(tr("editor-ctrl-z-brings-your-version-back"))
                        .clicked()
                    {
                        editor.reload();
                    }
                    if ui.button(tr("editor-keep-mine")).clicked() {
                        editor.disk_changed = false;
                    }
                });
            });
    }
}

/// The selected creature's fields in a grid: id, name, template, side, facing, altitude, hit points, damage
/// taken, the mount it rides.
fn fields(
    ui: &mut egui::Ui,
    p: &mut crate::data::level::PlacementDef,
    own_id: &str,
    draft: &crate::data::draft::Draft,
    content: &crate::data::Content,
) {
    egui::Grid::new("inspector").num_columns(2).show(ui, |ui| {
        ui.label(tr("editor-id"));
        ui.text_edit_singleline(&mut p.id);
        ui.end_row();
        ui.label(tr("editor-name"));
        let mut name = p.overrides.name.clone().unwrap_or_default();
        ui.text_edit_singleline(&mut name).on_hover_text(tr("editor-empty-the-template-s-name"));
        p.overrides.name = (!name.trim().is_empty()).then_some(name);
        ui.end_row();
        ui.label(tr("editor-template"));
        egui::ComboBox::from_id_salt("template").selected_text(&p.template).show_ui(ui, |ui| {
            for name in content.templates.keys() {
                ui.selectable_value(&mut p.template, name.clone(), name);
            }
        });
        ui.end_row();
        ui.label(tr("editor-side"));
        egui::ComboBox::from_id_salt("faction").selected_text(&p.faction).show_ui(ui, |ui| {
            for faction in &draft.def.factions {
                ui.selectable_value(&mut p.faction, faction.name.clone(), &faction.name);
            }
        });
        ui.end_row();
        ui.label(tr("editor-facing"));
        let heading = p.heading.unwrap_or(Direction::North);
        egui::ComboBox::from_id_salt("heading").selected_text(format!("{heading:?}")).show_ui(ui, |ui| {
            for d in Direction::ALL {
                ui.selectable_value(&mut p.heading, Some(d), format!("{d:?}"));
            }
        });
        ui.end_row();
        if draft.def.scale.is_normal() {
            ui.label(tr("editor-altitude-m"));
            ui.add(egui::DragValue::new(&mut p.altitude_m).speed(0.1).range(0.0..=300.0));
            p.altitude_m = (p.altitude_m / 1.5).round() * 1.5;
        } else {
            ui.label(tr("editor-altitude-band"));
            let mut band = p.band.unwrap_or(0);
            ui.add(egui::DragValue::new(&mut band).range(0..=crate::rules::core::altitude::HIGHEST_BAND));
            p.band = (band > 0).then_some(band);
        }
        ui.end_row();
        ui.label(tr("editor-hit-points"));
        let mut own = p.overrides.hit_points.is_some();
        ui.horizontal(|ui| {
            ui.checkbox(&mut own, tr("editor-own")).on_hover_text(tr("editor-unticked-the-template-s"));
            let mut hp = p.overrides.hit_points.unwrap_or(1);
            if own {
                ui.add(egui::DragValue::new(&mut hp).range(1..=999));
            }
            p.overrides.hit_points = own.then_some(hp);
        });
        ui.end_row();
        ui.label(tr("editor-damage-taken"));
        ui.add(egui::DragValue::new(&mut p.damage).range(0..=999));
        ui.end_row();
        ui.label(tr("editor-rides"));
        let riding = p.rides.clone().unwrap_or_else(|| tr("editor-nothing"));
        egui::ComboBox::from_id_salt("rides").selected_text(riding).show_ui(ui, |ui| {
            ui.selectable_value(&mut p.rides, None, tr("editor-nothing"));
            for other in &draft.def.creatures {
                if other.id != own_id && other.rides.is_none() {
                    ui.selectable_value(&mut p.rides, Some(other.id.clone()), &other.id);
                }
            }
        });
        ui.end_row();
    });
}
