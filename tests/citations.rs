//! Every citation of the rules texts the project writes (`004:259`, `000:139-144`) points at lines the texts
//! have: in the code, the rulings, the translations and the scenarios, so that the rules at the cursor always
//! find their words and a search for a line finds what cites it.

use std::path::{Path, PathBuf};

fn files_under(dir: &Path, ext: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, ext, out);
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| ext.contains(&e)) {
            out.push(path);
        }
    }
}

#[test]
fn every_citation_points_into_the_texts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    files_under(&root.join("src"), &["rs"], &mut files);
    files_under(&root.join("assets/locales"), &["ftl"], &mut files);
    files_under(&root.join("tests/scenarios"), &["ron"], &mut files);
    files.push(root.join("docs/rulings.md"));
    files.push(root.join("docs/playing.md"));
    files.push(root.join("README.md"));
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            for citation in estoc::rules_text::citations(line) {
                seen += 1;
                if estoc::rules_text::lines_of(citation).is_none() {
                    bad.push(format!("{}:{}: {citation}", file.strip_prefix(root).unwrap_or(file).display(), n + 1));
                }
            }
        }
    }
    assert!(seen > 1000, "only {seen} citations found");
    assert!(bad.is_empty(), "citations of lines the texts do not have:\n{}", bad.join("\n"));
}
