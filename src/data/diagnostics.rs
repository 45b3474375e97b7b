//! Located problems in data files: every error says which file, which line and column, and what is
//! wrong, so a designer can go straight to it.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file.
    pub file: PathBuf,
    /// Line from 1 (0 when the problem concerns the whole file).
    pub line: usize,
    /// Column from 1.
    pub column: usize,
    /// What is wrong, in plain words.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: error: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}:{}:{}: error: {}", self.file.display(), self.line, self.column, self.message)
        }
    }
}

/// The problems listed at most for one file; the rest are counted.
pub const MOST_LISTED: usize = 100;

/// All the problems found in one check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl Diagnostics {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(value)` if nothing was found, else the problems: the first [`MOST_LISTED`], then one line at
    /// the next problem's place counting the rest.
    pub fn into_result<T>(mut self, value: T) -> Result<T, Diagnostics> {
        if self.is_empty() {
            return Ok(value);
        }
        if self.0.len() > MOST_LISTED {
            let rest = self.0.len() - MOST_LISTED;
            let next = self.0.swap_remove(MOST_LISTED);
            self.0.truncate(MOST_LISTED);
            self.0.push(Diagnostic { message: format!("and {rest} more problems not listed"), ..next });
        }
        Err(self)
    }
}

/// The text of a data file, to put line and column on problems found after parsing.
pub struct Source<'a> {
    /// The file's path.
    pub path: &'a Path,
    /// Its text.
    pub text: &'a str,
    /// The byte offset where each line starts, built at the first position asked.
    lines: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> Source<'a> {
    /// The text of the file at `path`.
    pub fn new(path: &'a Path, text: &'a str) -> Self {
        Source { path, text, lines: std::cell::OnceCell::new() }
    }
}

impl Source<'_> {
    /// Line and column (from 1, columns in characters as ron counts them) of a byte offset; an offset
    /// inside a character or beyond the text is taken back to the character's start or the text's end.
    /// The lines are indexed once, so each position costs a search and the length of its line.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = self.text.floor_char_boundary(offset.min(self.text.len()));
        let starts = self
            .lines
            .get_or_init(|| std::iter::once(0).chain(self.text.match_indices('\n').map(|(i, _)| i + 1)).collect());
        let line = starts.partition_point(|&s| s <= offset);
        let start = starts[line - 1];
        (line, self.text[start..offset].chars().count() + 1)
    }

    /// The byte offset of the first `needle` at or after `from`.
    pub fn find_from(&self, from: usize, needle: &str) -> Option<usize> {
        self.text.get(from..)?.find(needle).map(|i| i + from)
    }

    /// Where `key` (such as `template:`) stands inside the entry that carries `anchor` (such as
    /// `"goblin-2"`): the first `key` after the anchor, or the anchor itself. Falls back on the file.
    pub fn locate(&self, anchor: &str, key: Option<&str>) -> (usize, usize) {
        let Some(at) = self.find_from(0, anchor) else { return (0, 0) };
        let at = key.and_then(|k| self.find_from(at, k)).unwrap_or(at);
        self.position(at)
    }

    /// A problem at a byte offset.
    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.position(offset);
        Diagnostic { file: self.path.to_path_buf(), line, column, message: message.into() }
    }

    /// A problem at a located place.
    pub fn error(&self, (line, column): (usize, usize), message: impl Into<String>) -> Diagnostic {
        Diagnostic { file: self.path.to_path_buf(), line, column, message: message.into() }
    }

    /// Parses the text as RON, with `Some` implicit, turning a syntax or shape error into a located
    /// problem.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        options.from_str(self.text).map_err(|e| Diagnostic {
            file: self.path.to_path_buf(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })
    }
}

/// Data files larger than this are refused before they are read into memory.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a data file, refusing with a problem that says why: a missing or unreadable file, anything but a
/// regular file (a device such as `/dev/zero` never ends, a named pipe would wait for a writer), more
/// than [`MAX_FILE_BYTES`] (counted while reading, not trusted from the file system), text that is not
/// UTF-8 (located at its line and column). A UTF-8 byte-order mark is dropped.
pub fn read_file(path: &Path) -> Result<String, Diagnostic> {
    use std::io::Read;
    let whole = |message: String| Diagnostic { file: path.to_path_buf(), line: 0, column: 0, message };
    let meta = std::fs::metadata(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(whole("cannot read: not a regular file".into()));
    }
    let file = std::fs::File::open(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(whole("cannot read: not a regular file".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| whole(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(whole(format!("the file is larger than {MAX_FILE_BYTES} bytes, the limit of data files")));
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let good = e.utf8_error().valid_up_to();
            let valid = String::from_utf8_lossy(&e.as_bytes()[..good]).into_owned();
            let (line, column) = Source::new(path, &valid).position(good);
            return Err(Diagnostic { file: path.to_path_buf(), line, column, message: "not valid UTF-8 here".into() });
        }
    };
    Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text))
}

/// The file `named` by a data file (a scenario's level, a save's), resolved (links and `..` followed) and
/// kept inside one of `allowed` folders: a file may not make the game read elsewhere.
pub fn confined(named: &Path, allowed: &[PathBuf]) -> Result<PathBuf, String> {
    let real = named.canonicalize().map_err(|e| format!("cannot read {}: {e}", named.display()))?;
    if allowed.iter().filter_map(|dir| dir.canonicalize().ok()).any(|dir| real.starts_with(dir)) {
        Ok(real)
    } else {
        Err(format!("{} is outside the project's folders; a file may name only files inside them", named.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_columns_from_one() {
        let source = Source::new(Path::new("x.ron"), "ab\ncde\n  f");
        assert_eq!(source.position(0), (1, 1));
        assert_eq!(source.position(4), (2, 2));
        assert_eq!(source.position(9), (3, 3));
        assert_eq!(source.locate("cde", Some("e")), (2, 3));
    }

    #[test]
    fn syntax_errors_are_located() {
        let source = Source::new(Path::new("bad.ron"), "(\n  a: 1,\n  b: ]\n)");
        #[derive(serde::Deserialize, Debug)]
        #[expect(dead_code, reason = "only parsed")]
        struct T {
            a: i32,
            b: i32,
        }
        let err = source.parse::<T>().unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.to_string().starts_with("bad.ron:3:"), "{err}");
    }
}
