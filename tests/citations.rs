//! Every citation of the rules texts in the code and the docs is written `004:505` or `004:505-507`, so that
//! a search for a line finds the code that plays it, and points at a line the text has.

use std::path::{Path, PathBuf};

/// The rules texts' lengths in lines (`../shared/rules/`): 000 to 004.
const LINES: [u32; 5] = [260, 83, 130, 130, 852];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
            out.push(path);
        }
    }
}

/// The citations in `text`: file, first line, last line, and where.
fn citations(text: &str) -> Vec<(u32, u32, u32, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let digits = |from: usize| bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = 0;
    while i + 4 < bytes.len() {
        let starts = (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && bytes[i] == b'0'
            && bytes[i + 1] == b'0'
            && (b'0'..=b'4').contains(&bytes[i + 2])
            && bytes[i + 3] == b':'
            && bytes.get(i + 4).is_some_and(|b| b.is_ascii_digit());
        if !starts {
            i += 1;
            continue;
        }
        let file = u32::from(bytes[i + 2] - b'0');
        let n = digits(i + 4);
        let first: u32 = text[i + 4..i + 4 + n].parse().unwrap();
        let mut end = i + 4 + n;
        let mut last = first;
        if bytes.get(end) == Some(&b'-') && bytes.get(end + 1).is_some_and(|b| b.is_ascii_digit()) {
            let m = digits(end + 1);
            last = text[end + 1..end + 1 + m].parse().unwrap();
            end += 1 + m;
        }
        out.push((file, first, last, i));
        i = end;
    }
    out
}

#[test]
fn every_citation_points_at_a_line_of_its_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for dir in ["src", "docs", "tests"] {
        files(&root.join(dir), &mut all);
    }
    all.push(root.join("README.md"));
    let mut bad = Vec::new();
    let mut count = 0;
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        for (file, first, last, at) in citations(&text) {
            count += 1;
            let line = text[..at].matches('\n').count() + 1;
            if first == 0 || last < first || last > LINES[file as usize] {
                bad.push(format!("{}:{line}: 00{file}:{first}-{last}", path.display()));
            }
        }
    }
    assert!(count > 500, "only {count} citations found");
    assert!(bad.is_empty(), "citations outside their text:\n{}", bad.join("\n"));
}

#[test]
fn citations_are_read_with_their_ranges() {
    assert_eq!(citations("see 004:505-507 and (000:61)"), vec![(4, 505, 507, 4), (0, 61, 61, 21)]);
    assert!(citations("a2004:12").is_empty(), "a year is no citation");
}
