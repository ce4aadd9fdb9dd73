//! The two "drop URLs and identifiers" filters, and how they layer.
//!
//! 1. `priorart-extract` (`clean.rs`) removes identifiers from the text of
//!    a document (HTML, XML, PDF, EPUB, web archives): they are not prose,
//!    and every fingerprint of the document is computed on what is left.
//! 2. `simhash-doc` (`simhash_tokens.rs`) drops identifier chunks as part of
//!    its own definition (`docs/simhash-doc.md`), whatever text it is given,
//!    so that independent implementations agree on raw text.
//!
//! Extraction runs first and drops a superset (ORCIDs, bare host/path URLs,
//! more scheme prefixes), so what reaches simhash-doc from a document has
//! nothing left for rule 2; rule 2 matters for text that did not go through
//! extraction. These shared cases pin both rules and that layering.

use priorart_extract::{Format, Limits, extract};

/// Dropped by both filters.
const BOTH: &[&str] = &[
    "https://example.org/a/b?c=d",
    "(http://example.org)",
    "www.example.org",
    "doi:10.1000/182",
    "10.1234/abcd.5678",
    "urn:isbn:0451450523",
    "arxiv:2101.00001",
    "someone@example.org",
];

/// Dropped by extraction only: identifiers the simhash-doc definition does
/// not name.
const EXTRACTION_ONLY: &[&str] =
    &["0000-0002-1825-009X", "orcid:0000-0002-1825-009X", "hdl:1234/5678", "pmid:12345"];

/// Kept by both: ordinary words with dots, colons or slashes.
const NEITHER: &[&str] = &["e.g.", "U.S.A.", "ratio:", "and/or", "3.14"];

fn dropped_by_extraction(word: &str) -> bool {
    let text = format!("before {word} after\n");
    let extraction = extract(text.as_bytes(), Format::Text, &Limits::default()).expect("plain text");
    let extracted = &extraction.documents[0].text;
    assert!(extracted.contains("before") && extracted.contains("after"), "{extracted:?}");
    !extracted.contains(word)
}

fn dropped_by_simhash_doc(word: &str) -> bool {
    let text = format!("before {word} after");
    !priorart_fingerprint::explain_simhash_doc(&text, priorart_fingerprint::TokenRule::V2)
        .identifiers
        .is_empty()
}

#[test]
fn both_filters_drop_the_common_identifiers() {
    for word in BOTH {
        assert!(dropped_by_extraction(word), "extraction keeps {word}");
        assert!(dropped_by_simhash_doc(word), "simhash-doc keeps {word}");
    }
}

#[test]
fn extraction_drops_a_superset() {
    for word in EXTRACTION_ONLY {
        assert!(dropped_by_extraction(word), "extraction keeps {word}");
        assert!(!dropped_by_simhash_doc(word), "simhash-doc drops {word}: move it to BOTH");
    }
    for word in BOTH {
        assert!(!dropped_by_simhash_doc(word) || dropped_by_extraction(word), "{word}");
    }
}

#[test]
fn ordinary_words_survive_both() {
    for word in NEITHER {
        assert!(!dropped_by_extraction(word), "extraction drops {word}");
        assert!(!dropped_by_simhash_doc(word), "simhash-doc drops {word}");
    }
}
