//! Gzip-compressed documents (`changelog.Debian.gz`, man pages): read whole,
//! every member in turn as `gzip -d` does, under the decompression limits.
//! Web archives are not read here: `warc.rs` reads them a member at a time.

use crate::{ExtractError, Limits};
use flate2::bufread::MultiGzDecoder;

/// The first two bytes of every gzip member.
pub(crate) const MAGIC: &[u8] = &[0x1f, 0x8b];

pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The decompressed bytes. A member cut short is `TruncatedGzip`; one that
/// expands past [`Limits::max_decompressed_bytes`] or, once over 1 MiB, past
/// [`Limits::max_decompression_ratio`] is a `DecompressionBomb`, stopped as
/// soon as it crosses the limit (never inflated whole first).
pub(crate) fn gunzip(bytes: &[u8], limits: &Limits) -> Result<Vec<u8>, ExtractError> {
    let mut decoder = MultiGzDecoder::new(bytes);
    crate::warc::read_bounded(&mut decoder, limits, "gzip file", |decoder| {
        bytes.len() - decoder.get_ref().len()
    })
}
