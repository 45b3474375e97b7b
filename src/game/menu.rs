//! The start menu's cards of the levels: each level's name, description, size, sides and a thumbnail of
//! its map, read from `levels/` when the menu opens.

use std::path::{Path, PathBuf};

use bevy_egui::egui;

use crate::data::level::Control;
use crate::data::{Content, Encounter, load_level};
use crate::locale::tr;
use crate::rules::core::battlefield::Terrain;
use crate::rules::core::geometry::Square;
use crate::tr;

/// What the menu shows of one level.
#[derive(Clone, Debug)]
pub struct LevelCard {
    /// The level file.
    pub path: PathBuf,
    /// Its name, or the file's when it does not load.
    pub title: String,
    /// Its description.
    pub description: String,
    /// Width and height in squares.
    pub size: (i32, i32),
    /// Each side: its name, how many creatures, who plays it, its colour.
    pub sides: Vec<(String, usize, Control, [u8; 3])>,
    /// Why it does not load, if it does not.
    pub problem: Option<String>,
    /// Its house rules: each departure from the texts, with the line it departs from.
    pub house_rules: Vec<String>,
    /// The map, a pixel a square, the creatures in their sides' colours.
    pub thumbnail: Option<egui::ColorImage>,
}

/// The colour of a terrain in the thumbnails.
fn terrain_rgb(terrain: Terrain) -> [u8; 3] {
    match terrain {
        Terrain::Floor => [150, 140, 122],
        Terrain::Difficult => [112, 90, 62],
        Terrain::Obstacle => [95, 82, 70],
        Terrain::LowWall => [120, 120, 128],
        Terrain::Wall => [48, 48, 56],
        Terrain::Pit => [10, 10, 12],
        Terrain::Water => [70, 120, 180],
        Terrain::DeepWater => [30, 60, 130],
    }
}

/// The cards of the levels in `paths`, in their order.
pub fn level_cards(paths: &[PathBuf]) -> Vec<LevelCard> {
    let content = Content::load(&crate::data::assets_dir());
    paths
        .iter()
        .map(|path| {
            let loaded = content
                .as_ref()
                .map_err(|e| e.to_string())
                .and_then(|c| load_level(path, c).map_err(|e| e.to_string()));
            match loaded {
                Ok(level) => card(path, &level),
                Err(problem) => LevelCard {
                    path: path.clone(),
                    title: path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
                    description: String::new(),
                    size: (0, 0),
                    sides: Vec::new(),
                    problem: Some(problem),
                    house_rules: Vec::new(),
                    thumbnail: None,
                },
            }
        })
        .collect()
}

/// The card of a level that loads.
fn card(path: &Path, level: &Encounter) -> LevelCard {
    let sides = level
        .factions
        .iter()
        .map(|f| {
            let count = level.creatures.iter().filter(|c| c.faction == f.name).count();
            (f.name.clone(), count, f.control, level.faction_rgb(&f.name))
        })
        .collect();
    LevelCard {
        path: path.to_path_buf(),
        title: level.name.clone(),
        description: level.description.clone(),
        size: (level.battlefield.width(), level.battlefield.height()),
        sides,
        problem: None,
        house_rules: level.battlefield.house_rules().departures(),
        thumbnail: Some(thumbnail(level)),
    }
}

/// A level's map, a pixel a square, each creature a pixel of its side's colour.
fn thumbnail(level: &Encounter) -> egui::ColorImage {
    let field = &level.battlefield;
    let (w, h) = (field.width(), field.height());
    let rgb = |[r, g, b]: [u8; 3]| egui::Color32::from_rgb(r, g, b);
    let mut pixels: Vec<egui::Color32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| Square::new(x, y)))
        .map(|s| rgb(terrain_rgb(field.terrain(s))))
        .collect();
    for creature in &level.creatures {
        let Square { x, y } = creature.at;
        if (0..w).contains(&x) && (0..h).contains(&y) {
            pixels[(y * w + x) as usize] = rgb(level.faction_rgb(&creature.faction));
        }
    }
    egui::ColorImage::new([w as usize, h as usize], pixels)
}

/// What a level card was clicked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardChoice {
    /// Play the level.
    Play,
    /// Open it in the editor.
    Edit,
}

/// The cards of the levels, each a button to play it and one to edit it; the level chosen.
pub fn show_cards(
    ui: &mut egui::Ui,
    cards: &[LevelCard],
    thumbnails: &mut std::collections::HashMap<PathBuf, egui::TextureHandle>,
) -> Option<(PathBuf, CardChoice)> {
    let mut chosen = None;
    egui::ScrollArea::vertical().max_height(ui.ctx().content_rect().height() * 0.6).show(ui, |ui| {
        for card in cards {
            ui.horizontal(|ui| {
                let texture = card.thumbnail.as_ref().map(|image| {
                    thumbnails
                        .entry(card.path.clone())
                        .or_insert_with(|| {
                            ui.ctx().load_texture(
                                card.path.to_string_lossy(),
                                image.clone(),
                                egui::TextureOptions::NEAREST,
                            )
                        })
                        .clone()
                });
                // The thumbnail fits a 96-pixel box, its squares whole pixels at least.
                let (w, h) = (card.size.0.max(1) as f32, card.size.1.max(1) as f32);
                let zoom = (96.0 / w.max(h)).max(1.0);
                match texture {
                    Some(texture) => {
                        ui.add(egui::Image::new((texture.id(), egui::vec2(w * zoom, h * zoom))));
                    }
                    None => {
                        ui.allocate_exact_size(egui::vec2(96.0, 60.0), egui::Sense::hover());
                    }
                }
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        if ui.button(egui::RichText::new(&card.title).strong()).clicked() {
                            chosen = Some((card.path.clone(), CardChoice::Play));
                        }
                        if ui.small_button(tr("card-edit")).on_hover_text(tr("card-edit-hover")).clicked() {
                            chosen = Some((card.path.clone(), CardChoice::Edit));
                        }
                    });
                    if let Some(problem) = &card.problem {
                        ui.label(egui::RichText::new(problem).small().color(egui::Color32::from_rgb(255, 120, 110)));
                        return;
                    }
                    ui.label(egui::RichText::new(&card.description).small());
                    if !card.house_rules.is_empty() {
                        let departures: Vec<String> =
                            card.house_rules.iter().map(|r| super::rules_words::term(r)).collect();
                        let rules = tr!("card-house-rules", rules = departures.join(", "));
                        ui.label(egui::RichText::new(rules).small().color(egui::Color32::from_rgb(230, 190, 110)));
                    }
                    ui.horizontal_wrapped(|ui| {
                        ui.label(
                            egui::RichText::new(tr!("card-size", width = card.size.0, height = card.size.1)).small(),
                        );
                        for (name, count, control, [r, g, b]) in &card.sides {
                            let who = match control {
                                Control::Human => tr("card-you"),
                                Control::Ai => tr("card-computer"),
                            };
                            ui.label(
                                egui::RichText::new(format!("{name}: {count} ({who})"))
                                    .small()
                                    .color(egui::Color32::from_rgb(*r, *g, *b)),
                            );
                        }
                    });
                });
            });
            ui.separator();
        }
    });
    chosen
}
