//! EPUB → text: the XHTML documents of the spine, in reading order, each through
//! the HTML extractor.
//!
//! The zip is read with the `zip` crate, every entry under size and ratio limits
//! (zip bombs); `META-INF/container.xml` names the package document (OPF), whose
//! manifest and spine quick-xml reads. Entries listed in `META-INF/encryption.xml`
//! (DRM) are refused, except obfuscated fonts, which we never read.

use crate::budget::Budget;
use crate::{ExtractError, Limits, html};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use std::collections::HashMap;
use std::io::{Cursor, Read};
use zip::ZipArchive;

pub(crate) fn extract(bytes: &[u8], limits: &Limits, budget: &Budget) -> Result<String, ExtractError> {
    let mut book = Book::open(bytes, limits)?;
    let container = book.read_text("META-INF/container.xml")?;
    let opf_path = rootfile_path(&container)?;
    let opf = book.read_text(&opf_path)?;
    let package = Package::parse(&opf)?;
    let encrypted = match book.read_text("META-INF/encryption.xml") {
        Ok(xml) => cipher_references(&xml),
        Err(_) => Vec::new(),
    };
    let base = opf_path.rsplit_once('/').map(|(dir, _)| dir).unwrap_or("");
    let mut text = String::new();
    for idref in &package.spine {
        budget.check()?;
        let Some((href, media_type)) = package.manifest.get(idref) else { continue };
        if !matches!(media_type.as_str(), "application/xhtml+xml" | "text/html") {
            continue;
        }
        let path = resolve(base, href);
        if encrypted.contains(&path) {
            return Err(ExtractError::Encrypted("EPUB"));
        }
        let chapter = book.read(&path)?;
        let chapter_text = html::extract(&chapter, None, limits, budget)?;
        if !chapter_text.is_empty() {
            text.push_str(&chapter_text);
            text.push_str("\n\n");
        }
    }
    Ok(text)
}

/// The zip archive with a running total of decompressed bytes.
struct Book<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    limits: &'a Limits,
    inflated: u64,
}

impl<'a> Book<'a> {
    fn open(bytes: &'a [u8], limits: &'a Limits) -> Result<Self, ExtractError> {
        let archive =
            ZipArchive::new(Cursor::new(bytes)).map_err(|err| ExtractError::malformed("EPUB", err))?;
        if archive.len() > limits.max_zip_entries {
            return Err(ExtractError::TooLarge {
                size: archive.len() as u64,
                limit: limits.max_zip_entries as u64,
            });
        }
        Ok(Book { archive, limits, inflated: 0 })
    }

    fn read_text(&mut self, name: &str) -> Result<String, ExtractError> {
        let bytes = self.read(name)?;
        crate::decode::decode_xml(&bytes, None)
    }

    /// Reads one entry, stopping as soon as it breaks the size or ratio limit.
    fn read(&mut self, name: &str) -> Result<Vec<u8>, ExtractError> {
        let mut entry = self
            .archive
            .by_name(name)
            .map_err(|err| ExtractError::malformed("EPUB", format!("{name}: {err}")))?;
        if entry.encrypted() {
            return Err(ExtractError::Encrypted("EPUB"));
        }
        let compressed = entry.compressed_size();
        let what = format!("zip entry {name}");
        let mut out = Vec::new();
        let mut chunk = [0u8; 1 << 16];
        loop {
            let n = entry
                .read(&mut chunk)
                .map_err(|err| ExtractError::malformed("EPUB", format!("{name}: {err}")))?;
            if n == 0 {
                break;
            }
            out.extend_from_slice(&chunk[..n]);
            self.limits.check_inflation(&what, out.len() as u64, compressed, self.inflated)?;
        }
        self.inflated += out.len() as u64;
        Ok(out)
    }
}

/// `full-path` of the first `<rootfile>` in `META-INF/container.xml`.
fn rootfile_path(container: &str) -> Result<String, ExtractError> {
    let mut found = None;
    each_element(container, |name, start| {
        if found.is_none() && name == "rootfile" {
            found = attribute(start, "full-path");
        }
    })?;
    found
        .map(|path| percent_decode(&path))
        .ok_or_else(|| ExtractError::malformed("EPUB", "no rootfile in container.xml"))
}

/// The OPF manifest (id → href, media type) and the spine (ids in reading order).
struct Package {
    manifest: HashMap<String, (String, String)>,
    spine: Vec<String>,
}

impl Package {
    fn parse(opf: &str) -> Result<Self, ExtractError> {
        let mut manifest = HashMap::new();
        let mut spine = Vec::new();
        each_element(opf, |name, start| match name {
            "item" => {
                if let (Some(id), Some(href)) = (attribute(start, "id"), attribute(start, "href")) {
                    let media_type = attribute(start, "media-type").unwrap_or_default();
                    manifest.insert(id, (percent_decode(&href), media_type));
                }
            }
            "itemref" if attribute(start, "linear").as_deref() != Some("no") => {
                spine.extend(attribute(start, "idref"));
            }
            _ => {}
        })?;
        if spine.is_empty() {
            return Err(ExtractError::malformed("EPUB", "the package document has an empty spine"));
        }
        Ok(Package { manifest, spine })
    }
}

/// `URI` attributes of `<CipherReference>`s, except those of obfuscated fonts.
fn cipher_references(encryption: &str) -> Vec<String> {
    let mut uris = Vec::new();
    let _ = each_element(encryption, |name, start| {
        if name == "CipherReference" {
            uris.extend(attribute(start, "URI").map(|uri| percent_decode(&uri)));
        }
    });
    uris
}

/// Calls `visit` with the local name and start tag of every element.
fn each_element(xml: &str, mut visit: impl FnMut(&str, &BytesStart<'_>)) -> Result<(), ExtractError> {
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(start) | Event::Empty(start)) => {
                let local = start.local_name();
                visit(local.as_ref(), &start);
            }
            Ok(Event::Eof) => return Ok(()),
            Ok(_) => {}
            Err(err) => return Err(ExtractError::malformed("EPUB", format!("package XML: {err}"))),
        }
    }
}

fn attribute(start: &BytesStart<'_>, key: &str) -> Option<String> {
    let attr = start.try_get_attribute(key).ok()??;
    attr.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok().map(|value| value.into_owned())
}

/// Joins an OPF-relative href to the OPF's directory, resolving `.` and `..`.
fn resolve(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or(href);
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in href.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// `%20` → space; invalid escapes are kept as they are.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve() {
        assert_eq!(resolve("OEBPS", "text/ch1.xhtml#top"), "OEBPS/text/ch1.xhtml");
        assert_eq!(resolve("OEBPS/a", "../b/c.xhtml"), "OEBPS/b/c.xhtml");
        assert_eq!(resolve("", "ch%201.xhtml"), "ch%201.xhtml");
        assert_eq!(percent_decode("ch%201.xhtml"), "ch 1.xhtml");
    }
}
