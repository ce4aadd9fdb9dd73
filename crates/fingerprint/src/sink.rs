//! What the simhash-doc scanner (`simhash_tokens.rs`) hands its tokens to:
//! the counters of a value (`simhash_doc.rs`), word shingles
//! (`shingles.rs`), and the token rules' `Segmenter` (`segment.rs`), which
//! re-cuts runs and passes them on to another sink. Its own module, so that
//! the scanner and the segmenter each depend on it and not on each other.

/// Receives what the scan finds, in document order.
pub(crate) trait Sink {
    /// A token to hash (case-folded, normalized UTF-8).
    fn token(&mut self, token: &[u8]);
    /// The same token as the first `len` bytes of `padded`, which has at
    /// least [`PAD`] more bytes after them (of other text or zeros), so a
    /// hash may load whole words past the token's end.
    #[inline(always)]
    fn padded_token(&mut self, padded: &[u8], len: usize) {
        self.token(&padded[..len]);
    }
    /// [`Sink::padded_token`] of a token the scanner knows is ASCII (no
    /// byte of it is non-ASCII in its block's masks): a token rule passes
    /// it on without looking at its bytes.
    #[inline(always)]
    fn ascii_token(&mut self, padded: &[u8], len: usize) {
        self.padded_token(padded, len);
    }
    /// A run of word characters without a letter (a number), dropped.
    fn numeric(&mut self, _run: &[u8]) {}
    /// A whitespace-delimited chunk dropped as a URL or identifier.
    fn identifier(&mut self, _chunk: &[u8]) {}
}

/// Bytes that every buffer tokens are cut from holds after its text.
pub(crate) const PAD: usize = 12;
