//! Bytes → UTF-8, by the rules of the WHATWG Encoding Standard.
//!
//! Precedence, as in browsers: byte-order mark, then a transport declaration (the
//! HTTP `Content-Type` charset of a WARC record), then the document's own
//! declaration (`<meta charset>`, `<?xml encoding?>`), then detection. A declared
//! encoding that the bytes violate falls back to detection; when that fails too,
//! the result is [`ExtractError::InvalidEncoding`].

use crate::ExtractError;
use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

/// How far into a document the `<meta charset>` and `<?xml encoding?>` prescans look
/// (1024 bytes, as the HTML standard says).
const PRESCAN_BYTES: usize = 1024;

/// HTML: BOM, transport charset, `<meta>` prescan, detection.
pub(crate) fn decode_html(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
) -> Result<String, ExtractError> {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return decode_strict(&bytes[bom_len..], encoding);
    }
    if let Some(encoding) = utf16_without_bom(bytes) {
        return decode_strict(bytes, encoding);
    }
    refuse_binary(bytes)?;
    let declared = transport.or_else(|| meta_charset(bytes)).map(html_declared);
    decode_declared_or_detected(bytes, declared)
}

/// XML: BOM, transport charset, `<?xml encoding?>`, else UTF-8 (the XML default),
/// with detection as the fallback for undeclared legacy bytes.
pub(crate) fn decode_xml(bytes: &[u8], transport: Option<&'static Encoding>) -> Result<String, ExtractError> {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return decode_strict(&bytes[bom_len..], encoding);
    }
    if let Some(encoding) = utf16_without_bom(bytes) {
        return decode_strict(bytes, encoding);
    }
    refuse_binary(bytes)?;
    let declared = transport.or_else(|| xml_declared_encoding(bytes)).unwrap_or(UTF_8);
    decode_declared_or_detected(bytes, Some(declared))
}

/// Plain text: BOM, transport charset, UTF-8 if valid, UTF-16 recognised by its
/// zero bytes, else detection of a legacy 8-bit (or CJK multi-byte) encoding.
pub(crate) fn decode_text(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
) -> Result<String, ExtractError> {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return decode_strict(&bytes[bom_len..], encoding);
    }
    if let Some(encoding) = utf16_without_bom(bytes) {
        return decode_strict(bytes, encoding);
    }
    refuse_binary(bytes)?;
    decode_declared_or_detected(bytes, transport.or(Some(UTF_8)))
}

/// Text, markup and their legacy encodings never hold a NUL byte (UTF-16,
/// which does, is recognised before this is asked): binary data, such as
/// an executable or an image read with a forced `--format`, is refused
/// here, whichever of text, HTML or XML it was read as, instead of being
/// decoded into mojibake.
fn refuse_binary(bytes: &[u8]) -> Result<(), ExtractError> {
    match memchr_nul(bytes) {
        Some(offset) => Err(ExtractError::NotText { offset }),
        None => Ok(()),
    }
}

/// The encoding a byte-order mark or the leading bytes of the input announce, for sniffing.
pub(crate) fn sniff_prefix(bytes: &[u8]) -> String {
    let prefix = &bytes[..bytes.len().min(4096)];
    let encoding =
        Encoding::for_bom(prefix).map(|(e, _)| e).or_else(|| utf16_without_bom(prefix)).unwrap_or(UTF_8);
    let (text, _, _) = encoding.decode(prefix);
    text.into_owned()
}

fn decode_declared_or_detected(
    bytes: &[u8],
    declared: Option<&'static Encoding>,
) -> Result<String, ExtractError> {
    let first_error = match declared {
        Some(encoding) => match decode_strict(bytes, encoding) {
            Ok(text) => return Ok(text),
            Err(err) => Some(err),
        },
        None => None,
    };
    let detected = detect(bytes);
    if Some(detected) == declared {
        return Err(
            first_error.unwrap_or(ExtractError::InvalidEncoding { encoding: detected.name(), offset: 0 })
        );
    }
    decode_strict(bytes, detected).map_err(|err| first_error.unwrap_or(err))
}

/// Firefox's detector over the whole input (it is fast: a few hundred MB/s).
fn detect(bytes: &[u8]) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    detector.guess(None, Utf8Detection::Allow)
}

/// Decodes `bytes` as `encoding`; malformed input is an error naming the first bad byte.
pub(crate) fn decode_strict(bytes: &[u8], encoding: &'static Encoding) -> Result<String, ExtractError> {
    if encoding == UTF_8 {
        return std::str::from_utf8(bytes).map(str::to_owned).map_err(|err| ExtractError::InvalidEncoding {
            encoding: UTF_8.name(),
            offset: err.valid_up_to(),
        });
    }
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let capacity = decoder
        .max_utf8_buffer_length_without_replacement(bytes.len())
        .ok_or(ExtractError::TooLarge { size: bytes.len() as u64, limit: usize::MAX as u64 / 4 })?;
    let mut out = String::with_capacity(capacity);
    let (result, read) = decoder.decode_to_string_without_replacement(bytes, &mut out, true);
    match result {
        DecoderResult::InputEmpty => Ok(out),
        DecoderResult::Malformed(..) | DecoderResult::OutputFull => {
            Err(ExtractError::InvalidEncoding { encoding: encoding.name(), offset: read })
        }
    }
}

/// The HTML standard maps UTF-16 labels found in a `<meta>` (or a transport header
/// applied to bytes without a BOM) to UTF-8, and `x-user-defined` to windows-1252.
fn html_declared(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == UTF_16LE || encoding == UTF_16BE {
        UTF_8
    } else if encoding == encoding_rs::X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    }
}

/// A simplified form of the HTML standard's prescan: the first `charset=` inside a
/// `<meta` tag within the first 1024 bytes.
fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = bytes[..bytes.len().min(PRESCAN_BYTES)].to_ascii_lowercase();
    let mut rest = head.as_slice();
    while let Some(start) = find(rest, b"<meta") {
        let tag = &rest[start..];
        let end = tag.iter().position(|&b| b == b'>').unwrap_or(tag.len());
        if let Some(encoding) = charset_param(&tag[..end]) {
            return Some(encoding);
        }
        rest = &tag[end..];
    }
    None
}

/// The value after `charset=` (quoted or not), as an encoding label.
pub(crate) fn charset_param(text: &[u8]) -> Option<&'static Encoding> {
    let lower = text.to_ascii_lowercase();
    let at = find(&lower, b"charset")?;
    let after = lower[at + 7..].trim_ascii_start().strip_prefix(b"=")?.trim_ascii_start();
    let value = after.strip_prefix(b"\"").or_else(|| after.strip_prefix(b"'")).unwrap_or(after);
    let end = value
        .iter()
        .position(|b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
        .unwrap_or(value.len());
    Encoding::for_label(&value[..end])
}

/// `<?xml version="1.0" encoding="…"?>`
fn xml_declared_encoding(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    let decl = head.strip_prefix(b"<?xml")?;
    let end = find(decl, b"?>")?;
    let decl = &decl[..end];
    let at = find(decl, b"encoding")?;
    let after = decl[at + 8..].trim_ascii_start().strip_prefix(b"=")?.trim_ascii_start();
    let quote = *after.first()?;
    let value = after.get(1..)?;
    let end = value.iter().position(|&b| b == quote)?;
    Encoding::for_label(&value[..end]).map(|e| if e == UTF_16LE || e == UTF_16BE { UTF_8 } else { e })
}

/// UTF-16 without a BOM betrays itself by zero bytes at every other position in
/// Latin text; require at least 4 code units and a clear majority.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(4096) & !1];
    let units = sample.len() / 2;
    if units < 4 {
        return None;
    }
    let even_zero = sample.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd_zero = sample.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    if odd_zero * 10 >= units * 9 && even_zero * 10 <= units {
        Some(UTF_16LE)
    } else if even_zero * 10 >= units * 9 && odd_zero * 10 <= units {
        Some(UTF_16BE)
    } else {
        None
    }
}

fn memchr_nul(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == 0)
}

pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_and_xml_declarations() {
        assert_eq!(meta_charset(b"<html><meta charset=\"Shift_JIS\">"), Some(encoding_rs::SHIFT_JIS));
        assert_eq!(
            meta_charset(b"<META http-equiv=content-type content='text/html; charset=koi8-r'>"),
            Some(encoding_rs::KOI8_R)
        );
        assert_eq!(
            xml_declared_encoding(b"<?xml version='1.0' encoding='ISO-8859-1'?><a/>"),
            Some(WINDOWS_1252)
        );
    }

    #[test]
    fn undeclared_legacy_text_is_detected() {
        let (bytes, _, _) =
            encoding_rs::WINDOWS_1251.encode("Съешь же ещё этих мягких французских булок, да выпей чаю");
        assert_eq!(
            decode_text(&bytes, None).unwrap(),
            "Съешь же ещё этих мягких французских булок, да выпей чаю"
        );
    }

    #[test]
    fn bom_declared_utf16_must_be_valid() {
        let bad = [0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00];
        assert!(matches!(decode_text(&bad, None), Err(ExtractError::InvalidEncoding { .. })));
    }
}
