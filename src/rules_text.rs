//! The rules texts themselves, in their own French words: the lines a citation such as `004:259` or
//! `000:139-144` points at, for the rules at the cursor in the window and for `estoc rule`. The five texts
//! of the specification ship in `assets/rules/` unchanged (`assets/CREDITS.md`) and are compiled in: no file
//! is read at run time.

use std::fmt;

/// The texts by their number, the first three digits of a citation.
const TEXTS: [(&str, &str); 5] = [
    ("000", include_str!("../assets/rules/000_e111ff7e67995029.txt")),
    ("001", include_str!("../assets/rules/001_3e4e004180a8540b.txt")),
    ("002", include_str!("../assets/rules/002_7fff876a778c3eb2.txt")),
    ("003", include_str!("../assets/rules/003_2e987abc8a515589.txt")),
    ("004", include_str!("../assets/rules/004_fbebb9850f97e21f.txt")),
];

/// The most lines a citation shows: a longer range is cut, with a word saying so.
pub const MAX_LINES: usize = 8;

/// A citation: one of the texts and a range of its lines, both ends included, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Citation {
    /// The text's number, `"004"`.
    pub text: &'static str,
    /// The first line.
    pub first: u32,
    /// The last line.
    pub last: u32,
}

impl fmt::Display for Citation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}:{}", self.text, self.first)
        } else {
            write!(f, "{}:{}-{}", self.text, self.first, self.last)
        }
    }
}

/// Every citation in `words`, in order, each once: three digits naming one of the texts, a colon, a line,
/// and perhaps a dash and a last line (`004:259`, `004:259-262`). Other numbers are left alone.
pub fn citations(words: &str) -> Vec<Citation> {
    let bytes = words.as_bytes();
    let digits = |from: usize| bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let number = |from: usize, len: usize| words[from..from + len].parse::<u32>().ok();
    let mut found: Vec<Citation> = Vec::new();
    let mut i = 0;
    while i + 4 < bytes.len() {
        let starts = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let text = TEXTS.iter().map(|(n, _)| *n).find(|n| bytes[i..].starts_with(n.as_bytes()));
        let (Some(text), true) = (text, starts && bytes.get(i + 3) == Some(&b':')) else {
            i += 1;
            continue;
        };
        let at = i + 4;
        let len = digits(at);
        let Some(first) = number(at, len).filter(|_| len > 0) else {
            i += 1;
            continue;
        };
        let mut end = at + len;
        let mut last = first;
        if bytes.get(end) == Some(&b'-') {
            let more = digits(end + 1);
            if let Some(n) = number(end + 1, more).filter(|_| more > 0) {
                last = n;
                end += 1 + more;
            }
        }
        let citation = Citation { text, first, last };
        if !found.contains(&citation) {
            found.push(citation);
        }
        i = end;
    }
    found
}

/// The lines a citation points at, in order (at most [`MAX_LINES`]), or `None` when the text has no such
/// lines (a range backwards, or past its end).
pub fn lines_of(citation: Citation) -> Option<Vec<&'static str>> {
    let (_, text) = TEXTS.iter().find(|(n, _)| *n == citation.text)?;
    if citation.first == 0 || citation.last < citation.first {
        return None;
    }
    let lines: Vec<&'static str> = text.lines().collect();
    let (first, last) = (citation.first as usize, citation.last as usize);
    if last > lines.len() {
        return None;
    }
    Some(lines[first - 1..last].iter().take(MAX_LINES).map(|l| l.trim()).collect())
}

/// How many lines each text has.
pub fn line_counts() -> Vec<(&'static str, usize)> {
    TEXTS.iter().map(|(n, text)| (*n, text.lines().count())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_are_found_in_any_words() {
        let found = citations("a 5-foot step (004:259), minimum movement (000:139-144, 004:252); 12:30, 1004:5");
        let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["004:259", "000:139-144", "004:252"]);
        assert!(citations("no rule here: 3:15 and 9999:1").is_empty());
        assert_eq!(citations("004:64-65 then 004:64-65").len(), 1, "each once");
    }

    #[test]
    fn a_citation_reads_the_texts_own_lines() {
        let step = lines_of(Citation { text: "004", first: 259, last: 259 }).expect("004:259");
        assert!(
            step[0].starts_with("Un personnage qui ne se déplace pas dans un round peut effectuer un pas de placement")
        );
        let range = lines_of(Citation { text: "000", first: 139, last: 144 }).expect("000:139-144");
        assert_eq!(range.len(), 6);
        let long = lines_of(Citation { text: "004", first: 646, last: 851 }).expect("the aerial chapter");
        assert_eq!(long.len(), MAX_LINES);
        assert_eq!(lines_of(Citation { text: "004", first: 853, last: 853 }), None, "004 has 852 lines");
        assert_eq!(lines_of(Citation { text: "004", first: 10, last: 9 }), None);
    }
}
