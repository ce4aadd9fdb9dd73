//! Plain text: only the character set needs work (see `decode`); line structure
//! is kept and whitespace normalized by `clean::finish`.

use crate::{ExtractError, decode};
use encoding_rs::Encoding;

pub(crate) fn extract(bytes: &[u8], charset: Option<&'static Encoding>) -> Result<String, ExtractError> {
    decode::decode_text(bytes, charset)
}
