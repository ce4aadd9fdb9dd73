//! The committed schemas (`schemas/*.schema.json`), TypeScript
//! declarations (`bindings/wasm/reports.d.ts`) and npm constants
//! (`bindings/wasm/constants.js`, `.d.ts`) are what the Rust types and
//! constants give today, and real documents written by the libraries have exactly the
//! members their schema lists. After changing a report type, run
//!
//! ```sh
//! PRIORART_REGENERATE_SCHEMAS=1 cargo test -p priorart-schema
//! ```
//!
//! and commit the files it rewrites (the Python test
//! `bindings/python/tests/test_schemas.py` then says which dataclass lacks
//! the member).

use priorart_nip::check::{Ending, UncheckedAnswer};
use priorart_ots::{DetachedTimestamp, MemoryHeaders, Network, VerifyReport, header_from_hex};
use priorart_schema::{Document, constants, documents, typescript};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn schema_path(document: &Document) -> PathBuf {
    root().join(format!("schemas/{}.schema.json", document.name))
}

fn typescript_path() -> PathBuf {
    root().join("bindings/wasm/reports.d.ts")
}

/// `expected` is in `path`, or (with PRIORART_REGENERATE_SCHEMAS set) is written there.
fn committed(path: &Path, expected: &str) {
    if std::env::var_os("PRIORART_REGENERATE_SCHEMAS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a file has a directory"))
            .expect("the directory is writable");
        std::fs::write(path, expected).expect("the file is writable");
        eprintln!("regenerated {}", path.display());
        return;
    }
    let found = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        found == expected,
        "{} is not what the Rust types give: run PRIORART_REGENERATE_SCHEMAS=1 cargo test -p priorart-schema \
         and commit it",
        path.display()
    );
}

#[test]
fn committed_schemas_are_the_types() {
    let documents = documents();
    for document in &documents {
        let text = serde_json::to_string_pretty(&document.schema).expect("a schema serializes") + "\n";
        committed(&schema_path(document), &text);
    }
    committed(&typescript_path(), &typescript(&documents));
}

#[test]
fn committed_npm_constants_are_the_rust_constants() {
    committed(&root().join("bindings/wasm/constants.js"), &constants::javascript());
    committed(&root().join("bindings/wasm/constants.d.ts"), &constants::declarations());
}

#[test]
fn no_stray_schema_files() {
    let names: Vec<String> = documents().iter().map(|d| format!("{}.schema.json", d.name)).collect();
    for entry in std::fs::read_dir(root().join("schemas")).expect("schemas/ exists") {
        let name = entry.expect("a directory entry").file_name().to_string_lossy().into_owned();
        assert!(names.contains(&name), "schemas/{name} is no document's: remove it");
    }
}

/// Holds `value` to `schema`: every object has exactly its required
/// members and no member the schema does not list; types, constants and
/// enumerations as the schema says. Only the constructs the generated
/// schemas use (the TypeScript generator's set).
fn conforms(value: &Value, schema: &Value, defs: &Map<String, Value>) -> Result<(), String> {
    let schema = match schema {
        Value::Bool(true) => return Ok(()),
        Value::Object(schema) => schema,
        other => return Err(format!("unknown schema {other}")),
    };
    if let Some(Value::String(reference)) = schema.get("$ref") {
        let name = reference.trim_start_matches("#/$defs/");
        return conforms(value, &defs[name], defs);
    }
    if let Some(constant) = schema.get("const") {
        return if constant == value { Ok(()) } else { Err(format!("{value} is not {constant}")) };
    }
    if let Some(Value::Array(values)) = schema.get("enum")
        && !values.contains(value)
    {
        return Err(format!("{value} is none of {values:?}"));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(choices)) = schema.get(key) {
            let errors: Vec<String> =
                choices.iter().filter_map(|choice| conforms(value, choice, defs).err()).collect();
            return if errors.len() < choices.len() { Ok(()) } else { Err(errors.join("; or ")) };
        }
    }
    let kinds: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let integer_as_number = kind == "integer" && kinds.contains(&"number");
    if !kinds.contains(&kind) && !integer_as_number {
        return Err(format!("{value} is not of type {kinds:?}"));
    }
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                conforms(item, &schema["items"], defs).map_err(|e| format!("[{i}]: {e}"))?;
            }
        }
        Value::Object(members) => {
            if let Some(Value::Object(properties)) = schema.get("properties") {
                let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
                for name in required.iter().filter_map(Value::as_str) {
                    if !members.contains_key(name) {
                        return Err(format!("member {name} missing"));
                    }
                }
                for (name, member) in members {
                    let property =
                        properties.get(name).ok_or_else(|| format!("member {name} not in the schema"))?;
                    conforms(member, property, defs).map_err(|e| format!(".{name}: {e}"))?;
                }
            } else if let Some(values) = schema.get("additionalProperties") {
                for (name, member) in members {
                    conforms(member, values, defs).map_err(|e| format!(".{name}: {e}"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn holds(name: &str, json: &str) {
    let document = documents().into_iter().find(|d| d.name == name).expect("a document of that name");
    let schema = document.schema.as_value();
    let defs = schema.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    let value: Value = serde_json::from_str(json).expect("a document is JSON");
    if let Err(error) = conforms(&value, schema, &defs) {
        panic!("{name}: {error}\n{json}");
    }
}

const SAMPLE: &str = "Tidal mills ground grain on the estuary: the incoming tide filled a pond behind a dam, \
     and at ebb the water turned the wheel. Section 4.2 of RFC-1234, said mill_keeper42 at https://example.org.";

#[test]
fn explanations_have_their_schemas_members() {
    for scheme in
        [priorart_fingerprint::Scheme::MinhashEqualityV1, priorart_fingerprint::Scheme::SimhashEqualityV2]
    {
        for text in [SAMPLE, "", "a an the"] {
            let explanation = priorart_fingerprint::explain(text, scheme).expect("an equality scheme");
            holds("explain-equality", &serde_json::to_string(&explanation).expect("serializes"));
        }
    }
    for rule in priorart_fingerprint::TokenRule::ALL {
        let explanation = priorart_fingerprint::explain_simhash_doc(&format!("{SAMPLE} 潮汐磨坊 2024"), rule);
        holds("explain-simhash-doc", &serde_json::to_string(&explanation).expect("serializes"));
    }
}

#[test]
fn passages_have_their_schemas_members() {
    let b = format!("Some other words first. {SAMPLE} And a tail.");
    let passages = priorart_align::align(SAMPLE, &b).expect("texts within limits");
    assert!(!passages.is_empty(), "the sample shares a passage");
    let named = |name, text| priorart_align::report::Named { name, text };
    holds(
        "priorart-passages-1",
        &priorart_align::report::json_text(named("a", SAMPLE), named("b", &b), &passages),
    );
}

fn nip_data() -> PathBuf {
    root().join("bindings/python/tests/data/nip")
}

fn fixture_headers() -> MemoryHeaders {
    let headers = MemoryHeaders::new();
    for entry in std::fs::read_dir(nip_data().join("headers")).expect("the fixture's headers") {
        let path = entry.expect("a directory entry").path();
        let height: u64 =
            path.file_stem().and_then(|s| s.to_str()).and_then(|s| s.parse().ok()).expect("N.hex");
        let hex = std::fs::read_to_string(&path).expect("a header file");
        headers.insert(height, header_from_hex(hex.trim()).expect("a header"));
    }
    headers
}

fn fixture_events() -> Vec<String> {
    std::fs::read_to_string(nip_data().join("events.jsonl"))
        .expect("the fixture's events")
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn verify_and_check_reports_have_their_schemas_members() {
    let events = fixture_events();
    let x: priorart_fingerprint::EqualityFingerprint =
        std::fs::read_to_string(nip_data().join("x")).expect("the fixture's x").trim().parse().expect("an X");
    for headers in [fixture_headers(), MemoryHeaders::new()] {
        for event in events.iter().map(String::as_str).chain(["not json", "{}"]) {
            let mut report = priorart_nip::verify_event_json(event, &headers, Network::Regtest);
            report.check_content("Tidal mills");
            holds("priorart-verify-1", &report.to_json());
        }
        let answers = UncheckedAnswer::check_all(
            vec![
                UncheckedAnswer::from_event_json("wss://one", Ending::Eose, &events),
                UncheckedAnswer::from_event_json(
                    "wss://two",
                    Ending::Closed { message: "no".into() },
                    &events[..1],
                ),
                UncheckedAnswer::from_event_json("wss://three", Ending::Timeout, &[] as &[String]),
            ],
            &x,
        );
        let report = priorart_nip::check::check(&x, &answers, &headers, Network::Regtest);
        holds("priorart-check-1", &report.to_json());
    }
}

#[test]
fn ots_reports_have_their_schemas_members() {
    let data = root().join("crates/ots/tests/data");
    let mut seen = 0;
    for entry in std::fs::read_dir(&data).expect("the ots fixtures") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "ots") {
            continue;
        }
        let Ok(proof) = DetachedTimestamp::from_bytes(&std::fs::read(&path).expect("a proof file")) else {
            continue;
        };
        // serde_json reads at most 128 levels: deeper trees are held by the
        // Python and npm tests, which read them back.
        let info = priorart_ots::info_json(&proof);
        if serde_json::from_str::<Value>(&info).is_ok() {
            holds("ots-info", &info);
        }
        holds("ots-verify", &VerifyReport::digest_mismatch(&proof, Network::Mainnet).to_json());
        let report = VerifyReport::verify(&proof, &MemoryHeaders::new(), Network::Mainnet, 0);
        holds("ots-verify", &report.to_json_with_hint(Some("try again")));
        seen += 1;
    }
    assert!(seen >= 5, "{seen} proofs read");
}

#[test]
fn dedup_lines_have_their_schemas_members() {
    use priorart_dedup::{Control, Document, Quiet, Settings, TextCollection, output};
    let settings = Settings::new(6, 0.5, Default::default()).expect("the CLI's defaults");
    let mut collection = TextCollection::new(settings, None).expect("a temporary directory");
    let again = format!("{SAMPLE} Once more.");
    let documents = [("a", SAMPLE), ("b", again.as_str()), ("c", SAMPLE), ("d", "Something else entirely.")];
    collection.push(&documents.map(|(id, text)| Document { id, text })).expect("texts within limits");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (catalog, outcome) =
        collection.deduplicate(Control { progress: &Quiet, stop: &stop }).expect("a run to its end");
    assert!(!outcome.pairs.is_empty() && !outcome.clusters.is_empty(), "{outcome:?}");
    let lines = |bytes: Vec<u8>| String::from_utf8(bytes).expect("JSON text");
    for line in lines(output::pair_lines(&catalog, &outcome, None)).lines() {
        holds("dedup-pairs", line);
    }
    for line in lines(output::cluster_lines(&catalog, &outcome)).lines() {
        holds("dedup-clusters", line);
    }
}

#[test]
fn dedup_passage_lines_have_their_schemas_members() {
    use priorart_dedup::passages::{Boilerplate, boilerplate_line_of, pair_line};
    use priorart_dedup::passages_against::index_pair_line;
    use priorart_index::{IndexedPassage, PassageMatch};
    let b = format!("Some other words first. {SAMPLE} And a tail.");
    let passages = priorart_align::align(SAMPLE, &b).expect("texts within limits");
    assert!(!passages.is_empty(), "the sample shares a passage");
    holds("dedup-passages", &pair_line(["a", "b"], 7, &passages, None));
    holds("dedup-passages", &pair_line(["a", "b"], 7, &passages, Some([SAMPLE, &b])));
    let found = Boilerplate {
        documents: 40,
        marks: 3,
        example: 0,
        span: passages[0].b,
        snippet: b[passages[0].b.bytes()].to_string(),
    };
    holds("dedup-boilerplate", &boilerplate_line_of("b", &found));
    let matched = PassageMatch {
        id: "indexed".into(),
        marks: 7,
        passages: passages
            .iter()
            .map(|passage| IndexedPassage {
                text: passage.b,
                indexed: passage.a.bytes(),
                marks: 7,
                similarity: passage.similarity,
            })
            .collect(),
    };
    holds("dedup-passages-from-index", &index_pair_line(&matched, "b", None));
    holds("dedup-passages-from-index", &index_pair_line(&matched, "b", Some(&b)));
}

#[test]
fn index_passage_answers_have_their_schemas_members() {
    use priorart_index::{BoilerplateSpan, IndexedPassage, PassageAnswer, PassageMatch};
    let b = format!("Some other words first. {SAMPLE} And a tail.");
    let passages = priorart_align::align(SAMPLE, &b).expect("texts within limits");
    assert!(!passages.is_empty(), "the sample shares a passage");
    let shared = passages.iter().map(|passage| IndexedPassage {
        text: passage.b,
        indexed: passage.a.bytes(),
        marks: 7,
        similarity: passage.similarity,
    });
    let answer = PassageAnswer {
        marks: 12,
        documents: vec![PassageMatch { id: "indexed".into(), marks: 7, passages: shared.collect() }],
        boilerplate: vec![BoilerplateSpan { text: passages[0].b, documents: 33 }],
    };
    let json = serde_json::to_string(&answer.json("b.txt", &b)).expect("serializes");
    holds("index-query-passages", &json);
}

#[test]
fn index_answers_have_their_schemas_members() {
    use priorart_index::{AnswerJson, Entry, Layout, MemoryIndex, Query};
    let shingling = priorart_fingerprint::Shingling::default();
    let mut fingerprinter = priorart_fingerprint::Fingerprinter::new();
    let mut index = MemoryIndex::new(Layout::for_distance(3).expect("a layout"), shingling);
    index.insert_text("text", SAMPLE, &mut fingerprinter).expect("a new id");
    let again = format!("{SAMPLE} Once more.");
    let near = Query::of_text(&again, shingling, &mut fingerprinter);
    let mut by_value = Entry::of_text("value", &again, shingling, &mut fingerprinter);
    by_value.sketch = None;
    index.insert(by_value).expect("a new id");
    let x = Query::of_text(SAMPLE, shingling, &mut fingerprinter).x.expect("a text's X");
    let mut seen = 0;
    let scheme = Some(shingling.token_rule().simhash_scheme());
    let by_simhash = Query::of_simhash(near.simhash.expect("a text's value"));
    for (query, scheme) in [(near.clone(), scheme), (by_simhash, scheme), (Query::of_x(x), None)] {
        let answer = index.query(&query, 3).expect("k within the layout");
        seen += answer.documents();
        let json =
            serde_json::to_string(&AnswerJson::new("a name", &query, scheme, &answer)).expect("serializes");
        holds("index-query", &json);
    }
    assert!(seen >= 4, "{seen} documents found");
}
