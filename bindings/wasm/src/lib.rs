//! The core WebAssembly module of the npm package `priorart`: fingerprints,
//! proof verification, the discovery check and events for signers. Every
//! answer comes from the workspace's crates (fingerprint, ots, nip); document
//! extraction is a module of its own (`extract/`). This file
//! only converts arguments, results and errors. The package's JavaScript
//! (`index.js`) wraps it: options objects, `bigint`s, typed error
//! classes, and the rounds that fetch block headers through an async
//! interface (see [`HeaderRounds`]).
//!
//! Errors are thrown as JavaScript `Error`s with `reason` (the library's
//! `reason()` name) and `kind` (the error class the package throws).

#![forbid(unsafe_code)]

use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Scheme, SimhashDoc};
use priorart_nip::check::{DEFAULT_MIN_JACCARD, NearQuery, RelayAnswer, UncheckedAnswer};
use priorart_nip::fuzzy_tags::FUZZY_DISTANCE;
use priorart_nip::nip46::SignRequest;
use priorart_nip::nostr::prelude::{Filter, Kind, PublicKey, Tag, Tags, Timestamp};
use priorart_nip::{Attestation, ContentEvent};
use priorart_ots::{HeaderSource, Network, SourceError, TipHeight, WantedHeaders};
use wasm_bindgen::prelude::*;

/// A JavaScript `Error` with `message`, the library's `reason` name and the
/// `kind` of error the package's wrapper throws (`InputError`,
/// `EventError`, `SignedEventError`).
fn error(kind: &str, reason: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    // Setting a property on a fresh plain object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"reason".into(), &reason.into());
    let _ = js_sys::Reflect::set(&error, &"kind".into(), &kind.into());
    error.into()
}

fn input_error(reason: &str, message: &str) -> JsValue {
    error("InputError", reason, message)
}

fn scheme(name: &str) -> Result<Scheme, JsValue> {
    name.parse()
        .map_err(|err: priorart_fingerprint::UnknownScheme| input_error(err.reason(), &err.to_string()))
}

fn network(name: &str) -> Result<Network, JsValue> {
    name.parse().map_err(|_| input_error("unknown_network", &format!("{name}: not mainnet or regtest")))
}

/// A fingerprinter kept between calls, so that its caches (token hashes,
/// case folds) serve many texts, as the CLI's does over a corpus.
#[wasm_bindgen]
pub struct Fingerprints {
    fingerprinter: Fingerprinter,
    schemes: Vec<Scheme>,
}

#[wasm_bindgen]
impl Fingerprints {
    /// A fingerprinter for `schemes` (names).
    #[wasm_bindgen(constructor)]
    pub fn new(schemes: Vec<String>) -> Result<Fingerprints, JsValue> {
        let schemes = schemes.iter().map(|name| scheme(name)).collect::<Result<_, _>>()?;
        Ok(Fingerprints { fingerprinter: Fingerprinter::new(), schemes })
    }

    /// The fingerprints of `text`, one per scheme, in their wire form.
    pub fn of(&mut self, text: &str) -> Vec<String> {
        self.fingerprinter.fingerprint(text, &self.schemes).iter().map(ToString::to_string).collect()
    }
}

/// The explanation of `text` under `scheme`: the JSON text of
/// `priorart fingerprint --explain --json` without `file` and `input`.
#[wasm_bindgen]
pub fn explain(text: &str, scheme: &str) -> Result<String, JsValue> {
    let scheme = self::scheme(scheme)?;
    Ok(match priorart_fingerprint::explain(text, scheme) {
        Some(explanation) => explanation.to_json().to_string(),
        None => priorart_fingerprint::explain_simhash_doc(text).to_json().to_string(),
    })
}

/// The `simhash-doc` value of `text`.
#[wasm_bindgen(js_name = simhashDocValue)]
pub fn simhash_doc_value(text: &str) -> u64 {
    Fingerprinter::new().simhash_doc(text).0
}

/// A `simhash-doc` value from its base32hex or hex text.
#[wasm_bindgen(js_name = parseSimhashDoc)]
pub fn parse_simhash_doc(text: &str) -> Result<u64, JsValue> {
    text.parse::<SimhashDoc>()
        .map(|value| value.0)
        .map_err(|err: priorart_fingerprint::InvalidSimhashDoc| input_error(err.reason(), &err.to_string()))
}

/// The 13-character base32hex form of a `simhash-doc` value.
#[wasm_bindgen(js_name = simhashDocText)]
pub fn simhash_doc_text(value: u64) -> String {
    SimhashDoc(value).to_string()
}

/// Differing bits of two `simhash-doc` values.
#[wasm_bindgen]
pub fn hamming(a: u64, b: u64) -> u32 {
    SimhashDoc(a).distance(SimhashDoc(b))
}

/// `1 - hamming(a, b) / 64`.
#[wasm_bindgen]
pub fn similarity(a: u64, b: u64) -> f64 {
    SimhashDoc(a).similarity(SimhashDoc(b))
}

/// Block headers fetched by the caller, round after round: the ots crate's
/// [`WantedHeaders`] (see its docs). The package's `verifyEvent` and
/// `check` run the verifier, hand the wanted heights to the caller's async
/// header source, put its answers here, and run again until nothing new
/// is wanted.
#[wasm_bindgen]
pub struct HeaderRounds {
    source: WantedHeaders,
}

#[wasm_bindgen]
impl HeaderRounds {
    /// No headers yet, for a source described as `name` in messages.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str) -> HeaderRounds {
        HeaderRounds { source: WantedHeaders::new(name) }
    }

    /// The header the caller's source served at `height` (160 hex digits);
    /// anything else is recorded as the source's bad answer.
    pub fn insert(&self, height: u32, hex: &str) {
        match priorart_ots::header_from_hex(hex) {
            Some(header) => self.source.insert(height.into(), header),
            None => {
                let detail = format!("block {height}: not an 80-byte header in hex");
                let error = SourceError::BadAnswer { source_name: self.source.describe(), detail };
                self.source.failed(height.into(), error);
            }
        }
    }

    /// The caller's source has no block at `height`.
    pub fn absent(&self, height: u32) {
        self.source.absent(height.into());
    }

    /// The caller's source failed at `height` (`message`: why).
    pub fn unavailable(&self, height: u32, message: &str) {
        let error = SourceError::unavailable(self.source.describe(), JsFailure(message.to_owned()));
        self.source.failed(height.into(), error);
    }

    /// The tip of the caller's source; `as_far_as_held`: only the highest
    /// header it holds (a cache).
    #[wasm_bindgen(js_name = setTip)]
    pub fn set_tip(&self, height: u32, as_far_as_held: bool) {
        self.source.set_tip(Ok(TipHeight { height: height.into(), as_far_as_held }));
    }

    /// The caller's source cannot say its tip (`message`: why, or empty).
    #[wasm_bindgen(js_name = noTip)]
    pub fn no_tip(&self, message: &str) {
        let name = self.source.describe();
        self.source.set_tip(Err(match message {
            "" => SourceError::NoTip { source_name: name },
            message => SourceError::unavailable(name, JsFailure(message.to_owned())),
        }));
    }

    /// The heights the last run asked for and lacked (ascending).
    #[wasm_bindgen(js_name = takeWanted)]
    pub fn take_wanted(&self) -> Wanted {
        let (heights, tip) = self.source.take_wanted();
        Wanted { heights: heights.into_iter().map(|height| height as u32).collect(), tip }
    }

    /// The headers the verifier confirmed, as `[height, hex]` pairs: those
    /// a cache may keep.
    pub fn confirmed(&self) -> js_sys::Array {
        self.source
            .confirmed()
            .into_iter()
            .map(|(height, header)| {
                js_sys::Array::of2(&(height as u32).into(), &priorart_ots::header_to_hex(&header).into())
            })
            .collect()
    }

    /// The NIP-FF-3 client algorithm on an event against the headers held:
    /// the `priorart-verify/1` report's JSON text, as `priorart verify
    /// --json` prints it (with `content`: the text checked against its X).
    #[wasm_bindgen(js_name = verifyEvent)]
    pub fn verify_event(
        &self,
        event_json: &str,
        network: &str,
        content: Option<String>,
    ) -> Result<String, JsValue> {
        let network = self::network(network)?;
        let mut report = priorart_nip::verify_event_json(event_json.trim(), &self.source, network);
        if let Some(content) = &content {
            report.check_content(content);
        }
        Ok(report.to_json())
    }

    /// The discovery check of `answers.x` on what the relays answered,
    /// against the headers held: the `priorart-check/1` report's JSON
    /// text, as `priorart check --json`.
    pub fn check(&self, answers: &RelayAnswers, network: &str) -> Result<String, JsValue> {
        let network = self::network(network)?;
        Ok(priorart_nip::check::check(&answers.x, &answers.answers, &self.source, network).to_json())
    }

    /// [`HeaderRounds::check`] with the near copies of `near` (the
    /// report's `fuzzy` member), which may change the verdict: a near copy
    /// proven earlier than every proof of `X` names the likely original.
    #[wasm_bindgen(js_name = checkNear)]
    pub fn check_near(
        &self,
        answers: &RelayAnswers,
        near: &NearAnswers,
        network: &str,
    ) -> Result<String, JsValue> {
        let network = self::network(network)?;
        let exact = priorart_nip::check::check(&answers.x, &answers.answers, &self.source, network);
        let fuzzy = near.query.report_unchecked(
            &exact,
            near.key_answers.clone(),
            near.proof_answers.clone(),
            &self.source,
            network,
        );
        Ok(exact.with_near_copies(fuzzy).to_json())
    }
}

/// What the relays answered to the near-copy queries of a text (its `B`
/// keys, then the proofs of the copies' `X` values), read once; checked
/// as the relay client checks them by [`HeaderRounds::check_near`].
#[wasm_bindgen]
pub struct NearAnswers {
    query: NearQuery,
    key_answers: Vec<UncheckedAnswer>,
    proof_answers: Vec<UncheckedAnswer>,
}

#[wasm_bindgen]
impl NearAnswers {
    /// `key_answers_json`, `proof_answers_json`: JSON arrays of
    /// `nip::check::UncheckedAnswer`.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, key_answers_json: &str, proof_answers_json: &str) -> Result<NearAnswers, JsValue> {
        Ok(NearAnswers {
            query: near_query(text)?,
            key_answers: unchecked_answers(key_answers_json, "near-copy key answers")?,
            proof_answers: unchecked_answers(proof_answers_json, "near-copy proof answers")?,
        })
    }
}

fn near_query(text: &str) -> Result<NearQuery, JsValue> {
    NearQuery::of_text(text, FUZZY_DISTANCE, DEFAULT_MIN_JACCARD)
        .map_err(|err| input_error(err.reason(), &err.to_string()))
}

fn unchecked_answers(json: &str, what: &str) -> Result<Vec<UncheckedAnswer>, JsValue> {
    serde_json::from_str(json).map_err(|err| input_error("invalid_answers", &format!("{what}: {err}")))
}

/// The REQ filter (JSON) for the proofs of the near copies among what the
/// relays answered to [`fuzzy_discovery_filter`] (`key_answers_json`, a
/// JSON array of `nip::check::UncheckedAnswer`), or `undefined` without a
/// near copy.
#[wasm_bindgen(js_name = nearCopiesProofFilter)]
pub fn near_copies_proof_filter(text: &str, key_answers_json: &str) -> Result<Option<String>, JsValue> {
    let query = near_query(text)?;
    let answers: Vec<RelayAnswer> = unchecked_answers(key_answers_json, "near-copy key answers")?
        .into_iter()
        .map(|answer| answer.check_against(query.filter()))
        .collect();
    Ok(query.proof_filter(&answers).as_ref().map(filter_json))
}

/// What the relays answered to the discovery query of an `X`, checked
/// once: each event read, its id and the filter checked, each distinct
/// event's signature verified once across relays. The rounds of one
/// `check` verify the proofs again with more headers, never these.
#[wasm_bindgen]
pub struct RelayAnswers {
    x: EqualityFingerprint,
    answers: Vec<RelayAnswer>,
}

#[wasm_bindgen]
impl RelayAnswers {
    /// `answers_json`: a JSON array of `nip::check::UncheckedAnswer`.
    #[wasm_bindgen(constructor)]
    pub fn new(x: &str, answers_json: &str) -> Result<RelayAnswers, JsValue> {
        let x = fingerprint_x(x)?;
        let answers = unchecked_answers(answers_json, "relay answers")?;
        Ok(RelayAnswers { answers: UncheckedAnswer::check_all(answers, &x), x })
    }
}

fn fingerprint_x(x: &str) -> Result<EqualityFingerprint, JsValue> {
    x.parse().map_err(|_| input_error("invalid_x", &format!("{x}: not a fingerprint (64 hex digits)")))
}

/// The NIP's discovery query for `x` (every content kind and kind 1041
/// with the tag `X`), as the JSON of a REQ filter.
#[wasm_bindgen(js_name = discoveryFilter)]
pub fn discovery_filter(x: &str) -> Result<String, JsValue> {
    Ok(filter_json(&priorart_nip::check::discovery_filter(&fingerprint_x(x)?)))
}

/// The fuzzy discovery query for `text` (docs/nip-ff-3-fuzzy.md): the
/// content events carrying one of its `B` keys, as the JSON of a REQ
/// filter; it finds every tagged text within 6 bits of its simhash-doc.
#[wasm_bindgen(js_name = fuzzyDiscoveryFilter)]
pub fn fuzzy_discovery_filter(text: &str) -> Result<String, JsValue> {
    Ok(filter_json(&near_query(text)?.filter()))
}

/// A filter as the JSON a REQ carries.
fn filter_json(filter: &Filter) -> String {
    serde_json::to_string(filter).expect("a filter serializes")
}

/// What a run lacked: block heights, and whether the tip height.
#[wasm_bindgen(getter_with_clone)]
pub struct Wanted {
    /// Heights asked for and not held, ascending.
    pub heights: Vec<u32>,
    /// Whether the tip was asked for and is not known.
    pub tip: bool,
}

/// Why the caller's header source failed, as it said.
#[derive(Debug)]
struct JsFailure(String);

impl std::fmt::Display for JsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsFailure {}

fn public_key(hex: &str) -> Result<PublicKey, JsValue> {
    PublicKey::parse(hex).map_err(|err| input_error("invalid_pubkey", &format!("pubkey {hex}: {err}")))
}

fn timestamp(seconds: f64) -> Result<Timestamp, JsValue> {
    if !(seconds.is_finite() && seconds >= 0.0 && seconds.fract() == 0.0 && seconds < 2f64.powi(53)) {
        return Err(input_error(
            "out_of_range",
            &format!("createdAt={seconds}: expected whole seconds since 1970"),
        ));
    }
    Ok(Timestamp::from_secs(seconds as u64))
}

/// The unsigned content event (kind 1, 30023, …) of `text` by `pubkey`,
/// with its `X` tag and, with `fuzzy_tags` and a text long enough, its
/// fuzzy discovery `B` tags (docs/nip-ff-3-fuzzy.md), as JSON: what a
/// NIP-07 `signEvent` is handed.
#[wasm_bindgen(js_name = contentEvent)]
pub fn content_event(
    kind: u16,
    text: &str,
    d: Option<String>,
    title: Option<String>,
    created_at: f64,
    pubkey: &str,
    fuzzy_tags: bool,
) -> Result<String, JsValue> {
    let event = ContentEvent {
        d: d.as_deref(),
        title: title.as_deref(),
        fuzzy_tags,
        ..ContentEvent::new(kind, text, timestamp(created_at)?)
    };
    let unsigned = event
        .unsigned(public_key(pubkey)?)
        .map_err(|err| error("EventError", err.reason(), &err.to_string()))?;
    Ok(unsigned.as_json())
}

/// The unsigned kind 1042 attestation of `x` (for content of kind
/// `content_kind`) by `pubkey`, as JSON.
#[wasm_bindgen]
pub fn attestation(
    x: &str,
    content_kind: Option<u16>,
    created_at: f64,
    pubkey: &str,
) -> Result<String, JsValue> {
    let x = fingerprint_x(x)?;
    let unsigned = Attestation::unsigned(public_key(pubkey)?, x, content_kind, timestamp(created_at)?)
        .map_err(|err| error("EventError", "invalid_event", &err.to_string()))?;
    Ok(unsigned.as_json())
}

/// What a signer was asked to sign, as JSON (`pubkey` may be left out).
#[derive(serde::Deserialize)]
struct RequestJson {
    kind: u16,
    created_at: u64,
    tags: Vec<Vec<String>>,
    content: String,
    #[serde(default)]
    pubkey: Option<String>,
}

/// Checks the event a signer returned for `request_json` (the unsigned
/// event asked for) as the bunker path does: the same event, id and
/// signature valid. Returns the signed event's JSON.
#[wasm_bindgen(js_name = checkSigned)]
pub fn check_signed(request_json: &str, signed_json: &str) -> Result<String, JsValue> {
    let request: RequestJson = serde_json::from_str(request_json)
        .map_err(|err| input_error("invalid_request", &format!("the sign request: {err}")))?;
    let tags = request
        .tags
        .iter()
        .map(Tag::parse)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| input_error("invalid_request", &format!("the sign request's tags: {err}")))?;
    let asked = SignRequest {
        pubkey: request.pubkey.as_deref().map(public_key).transpose()?,
        created_at: Timestamp::from_secs(request.created_at),
        kind: Kind::from_u16(request.kind),
        tags: Tags::from_list(tags),
        content: request.content,
    };
    let event = priorart_nip::nip46::check_signed_event(&asked, signed_json)
        .map_err(|err| error("SignedEventError", err.reason(), &err.to_string()))?;
    Ok(priorart_nip::to_json(&event))
}
