//! Stable names for error kinds: every library error of priorart says what
//! went wrong as a snake_case name (`reason()`), the name its JSON reports
//! and the Python binding (`InputError.reason`) give. Front ends branch on
//! these names, so they are part of the API: add, never rename.
//!
//! One macro, [`reason_names!`], writes `reason()` and `REASONS` for an
//! enum, so that every crate names its errors the same way;
//! [`check_names`] is the rule the crates' tests hold the names to.

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
