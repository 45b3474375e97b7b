//! Every citation of the rules texts the project writes is `004:505` or `004:505-507`, so that a search for a
//! line finds the code that plays it, and points at lines the text has: in the code, the docs, the tests and
//! scenarios and the translations, so that the rules at the cursor always find their words
//! (`estoc::rules_text`, the texts compiled in from `assets/rules/`).

use std::path::{Path, PathBuf};

use estoc::rules_text::{Citation, citations, line_counts, lines_of};

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
fn every_citation_points_at_lines_of_its_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    files_under(&root.join("src"), &["rs"], &mut files);
    files_under(&root.join("docs"), &["md"], &mut files);
    files_under(&root.join("tests"), &["rs", "ron"], &mut files);
    files_under(&root.join("assets/locales"), &["ftl"], &mut files);
    files.push(root.join("README.md"));
    let mut bad = Vec::new();
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            for citation in citations(line) {
                seen += 1;
                if lines_of(citation).is_none() {
                    bad.push(format!("{}:{}: {citation}", file.strip_prefix(root).unwrap_or(file).display(), n + 1));
                }
            }
        }
    }
    assert!(seen > 1000, "only {seen} citations found");
    assert!(bad.is_empty(), "citations of lines the texts do not have:\n{}", bad.join("\n"));
}

#[test]
fn citations_are_read_with_their_ranges() {
    let read = |words: &str| citations(words).iter().map(Citation::to_string).collect::<Vec<_>>();
    assert_eq!(read("see 004:505-507 and (000:61)"), ["004:505-507", "000:61"]);
    assert!(citations("a2004:12").is_empty(), "a year is no citation");
    assert!(citations("x004:12").is_empty(), "nor a word's end");
    // The texts as the specification has them: 004 ends on its 852nd line, with no newline after it.
    assert_eq!(line_counts(), [("000", 260), ("001", 83), ("002", 130), ("003", 130), ("004", 852)]);
}
