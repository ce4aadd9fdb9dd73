//! Stable names for error kinds: every library error of priorart says what
//! went wrong as a snake_case name (`reason()`), the name its JSON reports
//! and the Python binding (`InputError.reason`) give. Front ends branch on
//! these names, so they are part of the API: add, never rename.
//!
//! One macro, [`reason_names!`], writes `reason()` and `REASONS` for an
//! enum, so that every crate names its errors the same way;
//! [`check_names`] is the rule the crates' tests hold the names to.
//!
//! Two helpers for the messages that carry those errors, written once:
//! [`error_chain`] (an error and its causes on one line) and [`cut`] (an
//! untrusted string shortened for a message).

#![forbid(unsafe_code)]

/// Implements `reason()` for an error enum: the stable snake_case name of
/// each variant, and `REASONS`, every name it can return (in declaration
/// order). Crates take it with `#[macro_use] extern crate priorart_reason;`.
#[macro_export]
macro_rules! reason_names {
    ($error:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $error {
            /// The stable snake_case name of this error's kind, as JSON
            /// reports and the Python binding (`InputError.reason`) give it.
            pub fn reason(&self) -> &'static str {
                match self {
                    $($error::$variant { .. } => $name,)+
                }
            }

            /// Every name [`Self::reason`] returns, one per variant, in
            /// declaration order.
            pub const REASONS: &'static [&'static str] = &[$($name),+];
        }
    };
}

/// Whether `names` (one error's `REASONS`) are fit to be reason names:
/// each snake_case (as the JSON reports spell reasons), and no two alike.
pub fn check_names(names: &[&str]) -> Result<(), String> {
    if let Some(name) = names.iter().find(|name| !is_snake_case(name)) {
        return Err(format!("{name:?} is not snake_case"));
    }
    let mut sorted = names.to_vec();
    sorted.sort_unstable();
    match sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        Some(pair) => Err(format!("{:?} repeats in {names:?}", pair[0])),
        None => Ok(()),
    }
}

fn is_snake_case(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('_')
        && !name.ends_with('_')
        && !name.contains("__")
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::check_names;

    enum Example {
        First,
        Second { _detail: u8 },
    }

    reason_names!(Example {
        First => "first",
        Second => "second_kind",
    });

    #[test]
    fn each_variant_has_its_name() {
        assert_eq!(Example::First.reason(), "first");
        assert_eq!(Example::Second { _detail: 1 }.reason(), "second_kind");
        assert_eq!(Example::REASONS, ["first", "second_kind"]);
    }

    #[test]
    fn names_must_be_snake_case_and_distinct() {
        assert!(check_names(Example::REASONS).is_ok());
        for bad in ["", "Bad", "two__bars", "_lead", "trail_", "with-dash"] {
            assert!(check_names(&[bad]).is_err(), "{bad:?} accepted");
        }
        assert!(check_names(&["same", "other", "same"]).unwrap_err().contains("repeats"));
    }
}

/// An error and its causes on one line (`a: b: c`), each once: a cause
/// whose text the line already ends with is left out, since some libraries
/// (tungstenite: "IO error: {0}") repeat their source in their own message.
/// How a report or a list quotes an error whose `Display` leaves its cause
/// to `source()`.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let said = inner.to_string();
        if !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = inner.source();
    }
    text
}

/// At most `limit` bytes of `text`, cut at a character boundary: an
/// untrusted string quoted in a message or echoed to a client.
pub fn cut(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod message_tests {
    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|inner| inner as _)
        }
    }

    #[test]
    fn a_chain_is_said_once_per_cause() {
        let error = Layer(
            "request failed",
            Some(Box::new(Layer("io: refused", Some(Box::new(Layer("refused", None)))))),
        );
        assert_eq!(error_chain(&error), "request failed: io: refused");
        assert_eq!(error_chain(&Layer("alone", None)), "alone");
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 3), "hé");
        assert_eq!(cut("short", 80), "short");
    }
}
