//! The rules at the cursor: a line of the cursor panel, of the log, a refusal or a button's hover that cites
//! the rules texts (`004:259`, `000:139-144`) shows, as the cursor rests on it, the cited lines in the texts'
//! own French words under the line itself, written in the player's language: the why, in the book's words.

use bevy_egui::egui;

use crate::locale::tr;
use crate::rules_text::{Citation, MAX_LINES, citations, lines_of};

/// The most citations one hover shows.
const MAX_CITATIONS: usize = 3;

/// How wide the rule's words are laid out, in points.
const WIDTH: f32 = 560.0;

/// `response` showing, on hover, `line` and the rules it cites; as it was if it cites none.
pub fn with_rules(response: egui::Response, line: &str) -> egui::Response {
    let cited = citations(line);
    if cited.is_empty() {
        return response;
    }
    response.on_hover_ui(|ui| rules_tooltip(ui, line, &cited))
}

/// A button's hover `text`, enabled or not, with the rules it cites.
pub fn hover(response: egui::Response, text: &str, enabled: bool) -> egui::Response {
    let cited = citations(text);
    match (enabled, cited.is_empty()) {
        (true, true) => response.on_hover_text(text),
        (false, true) => response.on_disabled_hover_text(text),
        (true, false) => response.on_hover_ui(|ui| rules_tooltip(ui, text, &cited)),
        (false, false) => response.on_disabled_hover_ui(|ui| rules_tooltip(ui, text, &cited)),
    }
}

/// The line, then each rule it cites: the citation and the text's own lines.
fn rules_tooltip(ui: &mut egui::Ui, line: &str, cited: &[Citation]) {
    ui.set_max_width(WIDTH);
    ui.label(egui::RichText::new(line).strong());
    for citation in cited.iter().take(MAX_CITATIONS) {
        ui.separator();
        ui.label(egui::RichText::new(citation.to_string()).monospace().color(egui::Color32::GRAY));
        match lines_of(*citation) {
            Some(lines) => {
                for words in lines.iter().filter(|l| !l.is_empty()) {
                    ui.label(egui::RichText::new(*words).italics());
                }
                let count = (citation.last - citation.first + 1) as usize;
                if count > MAX_LINES {
                    let more = (count - MAX_LINES).to_string();
                    ui.label(egui::RichText::new(crate::tr!("rules-more-lines", count = more)).small());
                }
            }
            None => {
                ui.label(egui::RichText::new(tr("rules-not-in-the-texts")).small());
            }
        }
    }
    if cited.len() > MAX_CITATIONS {
        ui.label(egui::RichText::new(tr("rules-more-citations")).small());
    }
}
