//! The JSON documents every front end shares, described once: their JSON
//! Schemas come from the Rust types that write them (`schemars`, behind
//! each crate's `schema` feature), and the npm package's TypeScript
//! declarations come from the schemas ([`typescript`]). `tests/schemas.rs`
//! holds the committed copies (`schemas/*.schema.json`,
//! `bindings/wasm/reports.d.ts`) equal to what the types give
//! (`PRIORART_REGENERATE_SCHEMAS=1` rewrites them); the Python package's
//! dataclasses are tested against the schemas
//! (`bindings/python/tests/test_schemas.py`). The npm package's constants
//! (scheme names, relay limits) come from the Rust constants the same way
//! ([`constants`]).

pub mod constants;
mod typescript;

pub use typescript::typescript;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};

/// A shared document: its file name under `schemas/` (without
/// `.schema.json`) and its schema.
pub struct Document {
    /// The file name's stem (`priorart-check-1`).
    pub name: &'static str,
    /// The JSON Schema (draft 2020-12), as the serializer writes the
    /// document (an `Option` member not skipped when empty is required).
    pub schema: Schema,
}

fn schema_of<T: JsonSchema>(name: &'static str) -> Document {
    let generator = SchemaSettings::draft2020_12().for_serialize().into_generator();
    Document { name, schema: generator.into_root_schema_for::<T>() }
}

/// Every shared document, in a fixed order.
pub fn documents() -> Vec<Document> {
    vec![
        schema_of::<priorart_nip::Report>("priorart-verify-1"),
        schema_of::<priorart_nip::check::CheckReport>("priorart-check-1"),
        schema_of::<priorart_align::report::Document<'static>>("priorart-passages-1"),
        schema_of::<priorart_fingerprint::Explanation>("explain-equality"),
        schema_of::<priorart_fingerprint::SimhashDocExplanation>("explain-simhash-doc"),
        schema_of::<priorart_ots::VerifyJson<'static>>("ots-verify"),
        schema_of::<priorart_ots::ProofInfo>("ots-info"),
        schema_of::<priorart_dedup::output::PairLine<'static>>("dedup-pairs"),
        schema_of::<priorart_dedup::output::ClusterLine<'static>>("dedup-clusters"),
        schema_of::<priorart_dedup::output::SurvivorLine<'static>>("dedup-survivors"),
        schema_of::<priorart_dedup::passages::PassagesLine<'static>>("dedup-passages"),
        schema_of::<priorart_dedup::passages::BoilerplateLine<'static>>("dedup-boilerplate"),
        schema_of::<priorart_dedup::passages_against::IndexPassagesLine<'static>>(
            "dedup-passages-from-index",
        ),
        schema_of::<priorart_index::AnswerJson<'static>>("index-query"),
        schema_of::<priorart_index::PassageAnswerJson<'static>>("index-query-passages"),
    ]
}
