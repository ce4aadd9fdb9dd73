//! The scan's two sinks: [`Writer`] builds the canonical text and its tokens
//! (explanations, empty texts); [`Tokens`] hands each token on (fingerprints).

use super::*;

/// Builds the canonical text, collapsing separators and tracking tokens.
pub(super) struct Writer<'a> {
    pub(super) folded: &'a str,
    pub(super) text: &'a mut String,
    pub(super) tokens: &'a mut Vec<Token>,
    pub(super) pending_space: bool,
    pub(super) token: Option<Token>,
}

impl Writer<'_> {
    pub(super) fn flush_space(&mut self) {
        if self.pending_space {
            if !self.text.is_empty() {
                self.end_token();
                self.text.push(' ');
            }
            self.pending_space = false;
        }
    }

    pub(super) fn push_letters(&mut self, letters: &str, utf16_len: usize) {
        self.flush_space();
        let start = self.text.len();
        self.text.push_str(letters);
        let token = self.token.get_or_insert(Token { range: start..start, utf16_len: 0 });
        token.range.end = self.text.len();
        token.utf16_len += utf16_len;
    }

    pub(super) fn end_token(&mut self) {
        if let Some(token) = self.token.take() {
            self.tokens.push(token);
        }
    }
}

impl Sink for Writer<'_> {
    fn letters(&mut self, range: Range<usize>, utf16_len: usize) {
        let folded = self.folded;
        self.push_letters(&folded[range], utf16_len);
    }

    fn word(&mut self, word: &'static str) {
        self.space();
        self.push_letters(word, word.len());
        self.space();
    }

    fn space(&mut self) {
        self.end_token();
        self.pending_space = true;
    }

    fn other(&mut self, c: char) {
        self.flush_space();
        self.end_token();
        self.text.push(c);
    }
}

/// Hands each token to `emit` without building the canonical text.
///
/// A token is a slice of the folded text, except when deleted zero-width
/// characters join letters on both sides of them: then its pieces are
/// copied into `joined`.
pub(super) struct Tokens<'a, F> {
    /// The folded text and its [`PADDING`].
    pub(super) folded: &'a str,
    pub(super) joined: &'a mut String,
    /// The token being read, as a range of `folded` (its first piece only,
    /// once `is_joined`).
    pub(super) token: Option<Range<usize>>,
    pub(super) is_joined: bool,
    pub(super) utf16_len: usize,
    pub(super) emit: F,
    pub(super) any: bool,
}

impl<F: FnMut(TokenRef<'_>)> Tokens<'_, F> {
    #[inline(always)]
    pub(super) fn end_token(&mut self) {
        if let Some(range) = self.token.take() {
            let token = if self.is_joined {
                TokenRef { text: self.joined, utf16_len: self.utf16_len, key: padded_key(self.joined) }
            } else {
                let key = short_key(self.folded.as_bytes(), range.start, range.len());
                TokenRef { text: &self.folded[range], utf16_len: self.utf16_len, key }
            };
            (self.emit)(token);
            self.is_joined = false;
            self.any = true;
        }
    }
}

impl<F: FnMut(TokenRef<'_>)> Sink for Tokens<'_, F> {
    #[inline(always)]
    fn letters(&mut self, range: Range<usize>, utf16_len: usize) {
        match &mut self.token {
            None => {
                self.token = Some(range);
                self.utf16_len = utf16_len;
            }
            Some(token) if !self.is_joined && token.end == range.start => {
                token.end = range.end;
                self.utf16_len += utf16_len;
            }
            Some(token) => {
                if !self.is_joined {
                    self.joined.clear();
                    self.joined.push_str(&self.folded[token.clone()]);
                    self.is_joined = true;
                }
                self.joined.push_str(&self.folded[range]);
                self.utf16_len += utf16_len;
            }
        }
    }

    #[inline(always)]
    fn word(&mut self, word: &'static str) {
        self.end_token();
        (self.emit)(TokenRef { text: word, utf16_len: word.len(), key: padded_key(word) });
        self.any = true;
    }

    #[inline(always)]
    fn space(&mut self) {
        self.end_token();
    }

    #[inline(always)]
    fn other(&mut self, _: char) {
        self.end_token();
    }
}
