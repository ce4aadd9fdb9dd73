//! Reading named inputs: files, or standard input for `-`.

use anyhow::{Context, Result};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// The name standing for standard input.
pub const STDIN: &str = "-";

/// Opens `name` for buffered reading (`-` is standard input).
pub fn open(name: &str) -> Result<Box<dyn BufRead + Send>> {
    if name == STDIN {
        return Ok(Box::new(BufReader::with_capacity(1 << 16, io::stdin())));
    }
    let file = std::fs::File::open(Path::new(name)).with_context(|| format!("{name}: cannot open"))?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
}

/// Reads all of `name` as UTF-8 text; the error names the file and the byte
/// offset of the first invalid sequence.
pub fn read_text(name: &str) -> Result<String> {
    let mut bytes = Vec::new();
    open(name)?.read_to_end(&mut bytes).with_context(|| format!("{name}: cannot read"))?;
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        anyhow::anyhow!("{name}: not valid UTF-8 (first invalid byte at offset {offset})")
    })
}
