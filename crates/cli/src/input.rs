//! Reading named inputs: files, or standard input for `-`.

use anyhow::{Context, Result};
use priorart_corpus::DocumentOptions;
use priorart_extract::{DocumentText, Format};
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::Arc;

pub use priorart_corpus::STDIN;

/// Opens `name` for buffered reading (`-` is standard input).
pub fn open(name: &str) -> Result<Box<dyn BufRead + Send>> {
    Ok(priorart_corpus::open(name)?)
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

/// Reads a `.ots` proof file under the one size limit every command uses
/// (`priorart_ots::MAX_PROOF_BYTES`), then decodes it.
pub fn read_proof(path: &Path) -> Result<priorart_ots::DetachedTimestamp> {
    let bytes = read_proof_bytes(path)?;
    priorart_ots::DetachedTimestamp::from_bytes(&bytes).with_context(|| path.display().to_string())
}

/// The bytes of a `.ots` proof file, under `priorart_ots::MAX_PROOF_BYTES`.
pub fn read_proof_bytes(path: &Path) -> Result<Vec<u8>> {
    Ok(priorart_files::read_limited(path, priorart_ots::MAX_PROOF_BYTES)?)
}

/// How a command reads a document: one grammar for every command that
/// fingerprints a file, so one file has one `X` everywhere.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct DocumentArgs {
    /// Read the input as this format (html, xml, pdf, epub, text, man) instead
    /// of detecting it from the content (a gzipped input is read as what it holds).
    #[arg(long, value_name = "FORMAT", value_parser = input_format)]
    pub format: Option<Format>,
    /// Take the bytes as UTF-8 text as they are: no format detection, no
    /// extraction, no character set decoding.
    #[arg(long, conflicts_with = "format")]
    pub raw: bool,
}

/// `--format`'s value: an input format, or for `pan` (PAN's XML is what
/// `compare` writes, never what it reads) the option that asks for it.
fn input_format(name: &str) -> Result<Format, String> {
    if name.eq_ignore_ascii_case("pan") {
        return Err(
            "`pan` is an output, not an input format: `compare --pan` prints the passages as PAN's XML"
                .into(),
        );
    }
    name.parse().map_err(|err: priorart_extract::UnknownFormat| err.to_string())
}

impl DocumentArgs {
    /// How `priorart_corpus` reads a document for these options: PDFs in a
    /// child process of this binary ([`crate::pdf_child`]).
    pub fn options(&self) -> DocumentOptions {
        let pdf = |bytes: &[u8], limits: &priorart_extract::Limits| {
            crate::pdf_child::extract(bytes, limits).map_err(Into::into)
        };
        DocumentOptions { format: self.format, raw: self.raw, pdf: Some(Arc::new(pdf)) }
    }
}

/// The text of the document `name` (`-`: standard input) as every command
/// fingerprints it: [`priorart_corpus::document_text`] (plain text and
/// Markdown unchanged but for their character set; other formats
/// extracted), or the bytes as UTF-8 with `--raw`.
pub fn read_document(name: &str, args: &DocumentArgs) -> Result<DocumentText> {
    if args.raw {
        return Ok(DocumentText { format: Format::Text, text: read_text(name)? });
    }
    read_document_bytes(name, &priorart_corpus::read_bytes(name)?, args)
}

/// [`read_document`] of bytes already read from `name`.
pub fn read_document_bytes(name: &str, bytes: &[u8], args: &DocumentArgs) -> Result<DocumentText> {
    Ok(priorart_corpus::document_text(name, bytes, &args.options())?)
}

/// Parses sizes in bytes (`--working-set`): a positive whole number, with
/// an optional K, M or G (powers of 1024, as `sort -S`; `KiB`, `MiB`,
/// `GiB` also read), so that `512M` is 512 MiB.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let invalid = || format!("{text}: expected a positive size in bytes, such as 512M or 2G");
    let lower = text.to_ascii_lowercase();
    let (digits, unit) = lower.split_at(lower.find(|c: char| !c.is_ascii_digit()).unwrap_or(lower.len()));
    let shift = match unit {
        "" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(invalid()),
    };
    digits
        .parse::<u64>()
        .ok()
        .filter(|&count| count > 0)
        .and_then(|count| count.checked_mul(1 << shift))
        .ok_or_else(invalid)
}

/// Parses `--timeout` values: seconds, decimals allowed (`2.5`), more than
/// zero. The one grammar for every command's timeouts.
pub fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|seconds| std::time::Duration::try_from_secs_f64(seconds).ok())
        .filter(|duration| !duration.is_zero())
        .ok_or_else(|| format!("{text}: expected a positive number of seconds"))
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_are_read_in_powers_of_1024() {
        for (text, bytes) in [
            ("1", 1),
            ("4096", 4096),
            ("64K", 64 << 10),
            ("512M", 512 << 20),
            ("512MiB", 512 << 20),
            ("2g", 2 << 30),
            ("3GB", 3 << 30),
        ] {
            assert_eq!(parse_bytes(text), Ok(bytes), "{text}");
        }
        for text in ["", "0", "0M", "-1", "1.5G", "M", "12T", "5bb", " 1M", "99999999999G"] {
            assert!(parse_bytes(text).is_err(), "{text}");
        }
    }
}
