//! DiskSim's parameter-file syntax (libparam), read into a small tree.
//!
//! What is understood (enough for DiskSim 4.0's `valid/` files and DIXtrac
//! output):
//! * `# comment` to the end of the line;
//! * top-level blocks `TYPE [NAME] { key = value, ... }` — keys may contain
//!   spaces, dots, slashes and parentheses (`Segment size (in blks)`);
//! * values: numbers, bare words (`trackSwitchPlusRotation`, file names),
//!   nested blocks `TYPE { ... }`, lists `[ v, v, ... ]` (trailing comma
//!   allowed), and `source FILE`, which reads FILE (relative to the including
//!   file) and stands for the first block in it;
//! * top-level `source FILE` (its blocks are added), `instantiate [ names ] as
//!   TYPE`, and `topology ...` (skipped: one disk is all the replay needs).
//!
//! As DiskSim's libparam does, a parameter given twice in one block keeps
//! its *first* value (`lp_loadparams` skips a parameter already set); the
//! reader notes it as a warning. Numbers are decimal or `0x` hexadecimal;
//! `nan`, `inf` and numbers too large for a double are words, as in
//! DiskSim's lexer, so they fail where a number is expected.
//!
//! Files come from a [`Source`]: the file system ([`FileSystem`]) or texts
//! held in memory ([`MemFiles`], how the built-in presets' embedded
//! descriptions are read, through this same parser). Every error names the
//! file and line and what was expected; nesting of `[`/`{` deeper than
//! [`MAX_NESTING`] and `source` chains deeper than 16 are errors; nothing
//! here panics on input.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where a document and the files it `source`s are read from.
pub trait Source {
    /// The text of `path` (already resolved against the including file),
    /// or why it cannot be read.
    fn read(&self, path: &Path) -> std::result::Result<String, String>;
}

/// Files on disk.
pub struct FileSystem;

impl Source for FileSystem {
    fn read(&self, path: &Path) -> std::result::Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
}

/// Texts held in memory under made-up paths (e.g. `<built-in>/x.model`);
/// a `source`d name resolves against the including file's folder, as on disk.
#[derive(Debug, Clone, Default)]
pub struct MemFiles {
    files: BTreeMap<PathBuf, String>,
}

impl MemFiles {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn add(&mut self, path: impl Into<PathBuf>, text: impl Into<String>) {
        self.files.insert(path.into(), text.into());
    }
}

impl Source for MemFiles {
    fn read(&self, path: &Path) -> std::result::Result<String, String> {
        self.files.get(path).cloned().ok_or_else(|| "no such file".to_string())
    }
}

/// Deepest nesting of lists and blocks a document may have.
pub const MAX_NESTING: usize = 64;

/// A value on the right of `=` or inside a list.
#[derive(Debug, Clone)]
pub enum Value {
    Num(f64),
    Word(String),
    Block(Block),
    List(Vec<Value>),
}

/// `TYPE [NAME] { params }`.
#[derive(Debug, Clone)]
pub struct Block {
    pub type_name: String,
    pub name: Option<String>,
    pub params: Vec<Param>,
    /// The file this block was read from (relative paths inside resolve here).
    pub file: Rc<PathBuf>,
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub key: String,
    pub value: Value,
    pub line: usize,
}

/// `instantiate [ names ] as TYPE`.
#[derive(Debug, Clone)]
pub struct Instantiation {
    pub names: Vec<String>,
    pub as_type: String,
}

/// Everything read from one top-level file (with its `source`d files).
#[derive(Debug, Default)]
pub struct Document {
    pub blocks: Vec<Block>,
    pub instances: Vec<Instantiation>,
    /// What DiskSim tolerates silently (a parameter given twice), one line each.
    pub warnings: Vec<String>,
}

impl Block {
    /// The value of `key` (exact DiskSim name, case-insensitive); when it is
    /// given twice, the first, as DiskSim's libparam keeps.
    pub fn get(&self, key: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.key.eq_ignore_ascii_case(key))
    }
    /// Position of `key`'s (first) occurrence among the parameters.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.params.iter().position(|p| p.key.eq_ignore_ascii_case(key))
    }
    /// A path named by a word value, relative to this block's file.
    pub fn resolve(&self, word: &str) -> PathBuf {
        self.file.parent().unwrap_or_else(|| Path::new(".")).join(word)
    }
    pub fn path_str(&self) -> String {
        self.file.display().to_string()
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'t> {
    Open,   // {
    Close,  // }
    LBrack, // [
    RBrack, // ]
    Comma,  // ,
    Eq,     // =
    /// A word, as it stands in the text (no copy: a layout file holds
    /// hundreds of thousands).
    Word(&'t str),
}

fn describe(t: Option<&(Tok<'_>, usize)>) -> String {
    match t {
        None => "end of file".to_string(),
        Some((Tok::Open, _)) => "`{`".into(),
        Some((Tok::Close, _)) => "`}`".into(),
        Some((Tok::LBrack, _)) => "`[`".into(),
        Some((Tok::RBrack, _)) => "`]`".into(),
        Some((Tok::Comma, _)) => "`,`".into(),
        Some((Tok::Eq, _)) => "`=`".into(),
        Some((Tok::Word(w), _)) => format!("`{w}`"),
    }
}

fn tokenize(text: &str) -> Vec<(Tok<'_>, usize)> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = match raw.find('#') {
            Some(p) => &raw[..p],
            None => raw,
        };
        // the byte where the current word began
        let mut start: Option<usize> = None;
        for (at, c) in l.char_indices() {
            let t = match c {
                '{' => Some(Tok::Open),
                '}' => Some(Tok::Close),
                '[' => Some(Tok::LBrack),
                ']' => Some(Tok::RBrack),
                ',' => Some(Tok::Comma),
                '=' => Some(Tok::Eq),
                c if c.is_whitespace() => None,
                _ => {
                    start.get_or_insert(at);
                    continue;
                }
            };
            if let Some(b) = start.take() {
                out.push((Tok::Word(&l[b..at]), line));
            }
            if let Some(t) = t {
                out.push((t, line));
            }
        }
        if let Some(b) = start {
            out.push((Tok::Word(&l[b..]), line));
        }
    }
    out
}

struct Parser<'a> {
    toks: &'a [(Tok<'a>, usize)],
    pos: usize,
    file: Rc<PathBuf>,
    /// `source` depth
    depth: usize,
    /// current nesting of lists and blocks
    nest: usize,
    src: &'a dyn Source,
    warnings: Vec<String>,
}

const MAX_SOURCE_DEPTH: usize = 16;

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&(Tok<'a>, usize)> {
        self.toks.get(self.pos)
    }
    fn line(&self) -> usize {
        self.toks.get(self.pos).or_else(|| self.toks.last()).map(|t| t.1).unwrap_or(0)
    }
    fn err(&self, what: impl Into<String>) -> Error {
        Error::input(self.file.display().to_string(), self.line(), what.into())
    }
    fn expected(&self, what: &str) -> Error {
        self.err(format!("expected {what}, found {}", describe(self.peek())))
    }
    fn next_word(&mut self, what: &str) -> Result<String> {
        match self.peek() {
            Some((Tok::Word(w), _)) => {
                let w = w.to_string();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.expected(what)),
        }
    }
    fn enter(&mut self, what: &str) -> Result<()> {
        self.nest += 1;
        if self.nest > MAX_NESTING {
            return Err(self.err(format!("{what} nested more than {MAX_NESTING} deep")));
        }
        Ok(())
    }
    fn eat(&mut self, t: &Tok<'_>) -> bool {
        if self.peek().map(|x| &x.0) == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn document(&mut self, doc: &mut Document) -> Result<()> {
        while let Some((tok, _)) = self.peek() {
            let Tok::Word(w) = *tok else {
                return Err(self.expected("a block type, `source`, `instantiate` or `topology`"));
            };
            match w {
                "source" => {
                    self.pos += 1;
                    let f = self.next_word("a file name after `source`")?;
                    let path = self.file.parent().unwrap_or(Path::new(".")).join(&f);
                    let sub = read_document_depth(&path, self.depth + 1, self)?;
                    doc.blocks.extend(sub.blocks);
                    doc.instances.extend(sub.instances);
                    doc.warnings.extend(sub.warnings);
                }
                "instantiate" => {
                    self.pos += 1;
                    let list = self.list()?;
                    let names = list
                        .into_iter()
                        .filter_map(|v| match v {
                            Value::Word(w) => Some(w),
                            _ => None,
                        })
                        .collect();
                    let as_kw = self.next_word("`as`")?;
                    if as_kw != "as" {
                        self.pos -= 1;
                        return Err(self.expected("`as`"));
                    }
                    let as_type = self.next_word("a type name after `as`")?;
                    doc.instances.push(Instantiation { names, as_type });
                }
                "topology" => {
                    self.pos += 1;
                    // Skip words up to the first `[`, then the balanced list.
                    loop {
                        match self.peek() {
                            Some((Tok::Word(_), _)) => self.pos += 1,
                            Some((Tok::LBrack, _)) => break,
                            _ => return Err(self.expected("`[` opening the topology")),
                        }
                    }
                    let open_line = self.line();
                    let mut depth = 0usize;
                    loop {
                        match self.peek() {
                            None => {
                                return Err(self.err(format!(
                                    "unexpected end of file: expected `]` closing the topology opened at line {open_line}"
                                )))
                            }
                            Some((Tok::LBrack, _)) => depth += 1,
                            Some((Tok::RBrack, _)) => {
                                depth -= 1;
                                if depth == 0 {
                                    self.pos += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        self.pos += 1;
                    }
                }
                _ => {
                    let b = self.block_header_and_body()?;
                    doc.blocks.push(b);
                }
            }
        }
        Ok(())
    }

    /// `TYPE [NAME] { ... }`
    fn block_header_and_body(&mut self) -> Result<Block> {
        let line = self.line();
        let type_name = self.next_word("a block type")?;
        let name = match self.peek() {
            Some((Tok::Word(_), _)) => Some(self.next_word("a block name")?),
            _ => None,
        };
        if !self.eat(&Tok::Open) {
            return Err(self.expected(&format!("`{{` opening block `{type_name}`")));
        }
        self.enter("blocks")?;
        let params = self.params(&type_name, line)?;
        self.nest -= 1;
        for (i, p) in params.iter().enumerate() {
            if let Some(q) = params[..i].iter().find(|q| q.key.eq_ignore_ascii_case(&p.key)) {
                self.warnings.push(format!(
                    "{}:{}: `{}` given twice in block `{type_name}`; DiskSim keeps the first (line {})",
                    self.file.display(),
                    p.line,
                    p.key,
                    q.line
                ));
            }
        }
        Ok(Block { type_name, name, params, file: self.file.clone(), line })
    }

    /// `key = value, ... }` (the closing brace is consumed).
    fn params(&mut self, type_name: &str, open_line: usize) -> Result<Vec<Param>> {
        let mut params = Vec::new();
        loop {
            if self.eat(&Tok::Close) {
                return Ok(params);
            }
            if self.peek().is_none() {
                return Err(self.err(format!(
                    "unexpected end of file: expected `}}` closing block `{type_name}` opened at line {open_line}"
                )));
            }
            if self.eat(&Tok::Comma) {
                continue;
            }
            let line = self.line();
            let mut key = String::new();
            loop {
                match self.peek() {
                    Some((Tok::Word(w), _)) => {
                        if !key.is_empty() {
                            key.push(' ');
                        }
                        key.push_str(w);
                        self.pos += 1;
                    }
                    Some((Tok::Eq, _)) if !key.is_empty() => {
                        self.pos += 1;
                        break;
                    }
                    None => {
                        return Err(self.err(format!(
                            "unexpected end of file: expected `}}` closing block `{type_name}` opened at line {open_line}"
                        )))
                    }
                    _ => return Err(self.expected("`parameter name = value`")),
                }
            }
            let value = self.value()?;
            params.push(Param { key, value, line });
            match self.peek() {
                Some((Tok::Comma, _)) => self.pos += 1,
                Some((Tok::Close, _)) => {}
                None => {
                    return Err(self.err(format!(
                        "unexpected end of file: expected `}}` closing block `{type_name}` opened at line {open_line}"
                    )))
                }
                _ => return Err(self.expected("`,` or `}` after a parameter value")),
            }
        }
    }

    fn value(&mut self) -> Result<Value> {
        match self.peek() {
            Some((Tok::LBrack, _)) => Ok(Value::List(self.list()?)),
            Some(&(Tok::Word(w), _)) => {
                // `TYPE { ... }` nested block
                if let Some((Tok::Open, _)) = self.toks.get(self.pos + 1) {
                    return Ok(Value::Block(self.block_header_and_body()?));
                }
                self.pos += 1;
                if w == "source" {
                    let f = self.next_word("a file name after `source`")?;
                    let path = self.file.parent().unwrap_or(Path::new(".")).join(&f);
                    let sub = read_document_depth(&path, self.depth + 1, self)?;
                    self.warnings.extend(sub.warnings);
                    return match sub.blocks.into_iter().next() {
                        Some(b) => Ok(Value::Block(b)),
                        None => Err(Error::input(
                            path.display().to_string(),
                            0,
                            "expected a parameter block in a `source`d file, found none",
                        )),
                    };
                }
                Ok(match number(w) {
                    Some(x) => Value::Num(x),
                    None => Value::Word(w.to_string()),
                })
            }
            _ => Err(self.expected("a value (number, word, block or list)")),
        }
    }

    fn list(&mut self) -> Result<Vec<Value>> {
        let open_line = self.line();
        if !self.eat(&Tok::LBrack) {
            return Err(self.expected("`[`"));
        }
        self.enter("lists")?;
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some((Tok::RBrack, _)) => {
                    self.pos += 1;
                    self.nest -= 1;
                    return Ok(items);
                }
                Some((Tok::Comma, _)) => self.pos += 1,
                None => {
                    return Err(self.err(format!(
                        "unexpected end of file: expected `]` closing the list opened at line {open_line}"
                    )))
                }
                _ => items.push(self.value()?),
            }
        }
    }
}

/// A number as DiskSim's lexer reads one: decimal (integer or floating
/// point) or `0x` hexadecimal; anything else, `nan`, `inf` and overflowing
/// numbers included, is a word.
pub fn number(w: &str) -> Option<f64> {
    let first = w.chars().next()?;
    if !(first.is_ascii_digit() || matches!(first, '-' | '+' | '.')) {
        return None;
    }
    let (neg, body) = match w.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, w.strip_prefix('+').unwrap_or(w)),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = i64::from_str_radix(hex, 16).ok()? as f64;
        return Some(if neg { -v } else { v });
    }
    // most numbers in a layout file are short integers: exact in an f64
    let digits = body.as_bytes();
    if !digits.is_empty() && digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
        let v = digits.iter().fold(0u64, |a, &d| a * 10 + (d - b'0') as u64) as f64;
        return Some(if neg { -v } else { v });
    }
    if !body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+')) {
        return None;
    }
    w.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Reads a DiskSim parameter file (and what it `source`s) from disk.
pub fn read_document(path: &Path) -> Result<Document> {
    read_document_from(&FileSystem, path)
}

/// Reads a DiskSim parameter file (and what it `source`s) from `src`.
pub fn read_document_from(src: &dyn Source, path: &Path) -> Result<Document> {
    let text = src.read(path).map_err(|e| Error::io(path.display().to_string(), 0, "cannot read", &e))?;
    parse_with(&text, path, 0, src)
}

fn read_document_depth(path: &Path, depth: usize, from: &Parser<'_>) -> Result<Document> {
    if depth > MAX_SOURCE_DEPTH {
        return Err(from.err("`source` nested too deeply (a file sources itself?)"));
    }
    let text = from.src.read(path).map_err(|e| {
        from.err(format!("cannot read `source`d file {}: {}", path.display(), crate::error::io_words(&e)))
    })?;
    parse_with(&text, path, depth, from.src)
}

/// Parses `text` as if read from `path`; `source`d files are read from disk.
pub fn parse_str(text: &str, path: &Path, depth: usize) -> Result<Document> {
    parse_with(text, path, depth, &FileSystem)
}

/// Parses `text` as if read from `path`, reading `source`d files from `src`.
pub fn parse_with(text: &str, path: &Path, depth: usize, src: &dyn Source) -> Result<Document> {
    let toks = tokenize(text);
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        file: Rc::new(path.to_path_buf()),
        depth,
        nest: 0,
        src,
        warnings: Vec::new(),
    };
    let mut doc = Document::default();
    p.document(&mut doc)?;
    doc.warnings.extend(std::mem::take(&mut p.warnings));
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_rusts_parser_reads_them() {
        for w in
            ["0", "-0", "+7", "959", "-1200", "123456789012345", "1234567890123456789", "1.5", "-2e3", "0x1F"]
        {
            let want = if let Some(h) = w.strip_prefix("0x") {
                i64::from_str_radix(h, 16).unwrap() as f64
            } else {
                w.parse::<f64>().unwrap()
            };
            assert_eq!(number(w).map(f64::to_bits), Some(want.to_bits()), "{w}");
        }
        for w in ["nan", "inf", "1e999", "12a", "-", "x1"] {
            assert_eq!(number(w), None, "{w}");
        }
    }

    #[test]
    fn parses_nested_blocks_lists_and_spaced_keys() {
        let t = "disksim_disk D {\n Model = dm_disk { Number of cylinders = 10, Zones = [ z { a = 1 }, z { a = 2 }, ], },\n Segment size (in blks) = 561,\n Seek type = extracted\n}\n";
        let d = parse_str(t, Path::new("/x/y.diskspecs"), 0).unwrap();
        assert_eq!(d.blocks.len(), 1);
        let b = &d.blocks[0];
        assert_eq!(b.name.as_deref(), Some("D"));
        match &b.get("segment size (in blks)").unwrap().value {
            Value::Num(x) => assert_eq!(*x, 561.0),
            v => panic!("{v:?}"),
        }
        let Value::Block(m) = &b.get("Model").unwrap().value else { panic!() };
        let Value::List(z) = &m.get("Zones").unwrap().value else { panic!() };
        assert_eq!(z.len(), 2);
        assert_eq!(b.get("Seek type").unwrap().line, 4);
    }

    #[test]
    fn truncated_block_names_line_and_expectation() {
        let t = "disksim_disk D {\n a = 1,\n b = [ 1, 2\n";
        let e = parse_str(t, Path::new("t.diskspecs"), 0).unwrap_err();
        let s = e.to_string();
        assert!(s.contains("t.diskspecs:3"), "{s}");
        assert!(s.contains("expected `]`"), "{s}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        for open in ["[", "x { b = "] {
            let t = format!("disksim_disk D {{ a = {} }}", open.repeat(100_000));
            let e = parse_str(&t, Path::new("deep.diskspecs"), 0).unwrap_err().to_string();
            assert!(e.contains("deep.diskspecs:1") && e.contains("nested more than 64 deep"), "{e}");
        }
    }

    #[test]
    fn first_value_wins_with_a_warning_and_nan_is_a_word() {
        let t = "b X {\n k = 1,\n k = 2,\n n = nan,\n i = inf,\n h = 0x10,\n big = 1e999\n}";
        let d = parse_str(t, Path::new("t.diskspecs"), 0).unwrap();
        let b = &d.blocks[0];
        assert!(matches!(b.get("k").unwrap().value, Value::Num(x) if x == 1.0));
        assert!(matches!(b.get("n").unwrap().value, Value::Word(_)));
        assert!(matches!(b.get("i").unwrap().value, Value::Word(_)));
        assert!(matches!(b.get("big").unwrap().value, Value::Word(_)));
        assert!(matches!(b.get("h").unwrap().value, Value::Num(x) if x == 16.0));
        assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
        assert!(
            d.warnings[0].contains("t.diskspecs:3") && d.warnings[0].contains("line 2"),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn sources_are_read_from_memory() {
        let mut m = MemFiles::new();
        m.add("<built-in>/a.diskspecs", "disksim_disk D { Model = source b.model }");
        m.add("<built-in>/b.model", "dm_disk M { Block count = 5 }");
        let d = read_document_from(&m, Path::new("<built-in>/a.diskspecs")).unwrap();
        let Value::Block(b) = &d.blocks[0].get("Model").unwrap().value else { panic!() };
        assert_eq!(b.path_str(), "<built-in>/b.model");
        let e = read_document_from(&m, Path::new("<built-in>/c")).unwrap_err().to_string();
        assert!(e.contains("<built-in>/c") && e.contains("cannot read"), "{e}");
    }

    #[test]
    fn topology_and_instantiate_are_understood() {
        let t = "instantiate [ disk0 ] as D\ntopology disksim_iodriver driver0 [ disksim_bus bus0 [ disksim_disk disk0 [] ] ]\nb X { k = v }";
        let d = parse_str(t, Path::new("t.parv"), 0).unwrap();
        assert_eq!(d.instances[0].names, vec!["disk0".to_string()]);
        assert_eq!(d.instances[0].as_type, "D");
        assert_eq!(d.blocks.len(), 1);
    }
}
