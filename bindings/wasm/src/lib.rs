//! The core WebAssembly module of the npm package `priorart`: fingerprints,
//! proof verification, the discovery check and events for signers. Every
//! answer comes from the workspace's crates (fingerprint, ots, nip); document
//! extraction is a module of its own (`extract/`). This file
//! only converts arguments, results and errors. The package's JavaScript
//! (`api.js`, loaded by `index.js` and `browser.js`) wraps it: options objects, `bigint`s, typed error
//! classes, and the rounds that fetch block headers through an async
//! interface (see [`HeaderRounds`]).
//!
//! Errors are thrown as JavaScript `Error`s with `reason` (the library's
//! `reason()` name) and `kind` (the error class the package throws).
//!
//! Every string and number a caller hands in arrives as a [`JsValue`] and is
//! checked here ([`string`], [`kind`], [`timestamp`]), never declared as
//! `&str`, `String` or `u16`: wasm-bindgen's release glue does not check
//! types, and its `passStringToWasm0` given a number (`arg.length`
//! undefined) reallocates a dangling zero-size block, which corrupts the
//! allocator's heap (`memory access out of bounds` a few calls later, a
//! SIGSEGV in Node 20); a number for a `u16` is silently wrapped (-1 →
//! 65535). A `JsValue` is passed as a reference, whatever it holds.

#![forbid(unsafe_code)]

use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Scheme, SimhashDoc, TokenRule};
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
    let error = js_sys::Error::new(&cut(message, MAX_MESSAGE_CHARS));
    // Setting a property on a fresh plain object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"reason".into(), &reason.into());
    let _ = js_sys::Reflect::set(&error, &"kind".into(), &kind.into());
    error.into()
}

fn input_error(reason: &str, message: &str) -> JsValue {
    error("InputError", reason, message)
}

/// Longest error message, in characters: messages name what was refused,
/// and an input echoed whole (a 10-million-character "fingerprint") would
/// make a message as large as the input.
const MAX_MESSAGE_CHARS: usize = 300;
/// Longest part of an input a message quotes.
const MAX_QUOTED_CHARS: usize = 80;

/// `text`, cut to `max` characters (and an ellipsis) when longer.
fn cut(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => text.into(),
        Some((end, _)) => format!("{}…", &text[..end]).into(),
    }
}

/// What a JavaScript value is, for messages (`typeof`, with `null` and arrays told apart).
fn type_of(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

/// The string argument `name`; anything else is refused (see the module's docs for why
/// strings are not declared as `&str`).
fn string(value: &JsValue, name: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| {
        input_error("not_a_string", &format!("{name} must be a string, not {}", type_of(value)))
    })
}

/// An optional string argument: `undefined` and `null` are none.
fn optional_string(value: &JsValue, name: &str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() { Ok(None) } else { string(value, name).map(Some) }
}

/// An event kind: a number, whole, 0 to 65535 (never wrapped or rounded).
fn kind(value: &JsValue, name: &str) -> Result<u16, JsValue> {
    match value.as_f64() {
        Some(number) if number.fract() == 0.0 && (0.0..=65535.0).contains(&number) => Ok(number as u16),
        Some(number) => Err(input_error(
            "invalid_kind",
            &format!("{name}={number}: an event kind is a whole number from 0 to 65535"),
        )),
        None => Err(input_error("invalid_kind", &format!("{name} must be a number, not {}", type_of(value)))),
    }
}

fn scheme(name: &str) -> Result<Scheme, JsValue> {
    name.parse()
        .map_err(|err: priorart_fingerprint::UnknownScheme| input_error(err.reason(), &err.to_string()))
}

fn network(value: &JsValue) -> Result<Network, JsValue> {
    let name = string(value, "network")?;
    name.parse().map_err(|_| {
        input_error("unknown_network", &format!("{}: not mainnet or regtest", cut(&name, MAX_QUOTED_CHARS)))
    })
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
    /// A fingerprinter for `schemes` (an array of names, at least one).
    #[wasm_bindgen(constructor)]
    pub fn new(schemes: JsValue) -> Result<Fingerprints, JsValue> {
        if !js_sys::Array::is_array(&schemes) {
            return Err(input_error(
                "unknown_scheme",
                &format!("schemes must be an array of scheme names, not {}", type_of(&schemes)),
            ));
        }
        let schemes = js_sys::Array::from(&schemes)
            .iter()
            .map(|name| scheme(&string(&name, "a scheme")?))
            .collect::<Result<Vec<_>, _>>()?;
        if schemes.is_empty() {
            return Err(input_error("unknown_scheme", "schemes: at least one scheme"));
        }
        Ok(Fingerprints { fingerprinter: Fingerprinter::new(), schemes })
    }

    /// The fingerprints of `text`, one per scheme, in their wire form.
    pub fn of(&mut self, text: JsValue) -> Result<Vec<String>, JsValue> {
        let text = string(&text, "text")?;
        Ok(self.fingerprinter.fingerprint(&text, &self.schemes).iter().map(ToString::to_string).collect())
    }
}

/// The explanation of `text` under `scheme`: the JSON text of
/// `priorart fingerprint --explain --json` without `file` and `input`.
#[wasm_bindgen]
pub fn explain(text: JsValue, scheme: JsValue) -> Result<String, JsValue> {
    let text = string(&text, "text")?;
    let scheme = self::scheme(&string(&scheme, "scheme")?)?;
    // Serialized as such, not through `to_json`'s `Value`: without serde_json's
    // `preserve_order` (which would grow the module) a `Value` sorts its
    // members, and the package would write them in another order than the CLI.
    let json = match priorart_fingerprint::explain(&text, scheme) {
        Some(explanation) => serde_json::to_string(&explanation),
        None => {
            let rule =
                scheme.token_rule().expect("every scheme without an equality explanation is a simhash-doc");
            serde_json::to_string(&priorart_fingerprint::explain_simhash_doc(&text, rule))
        }
    };
    Ok(json.expect("an explanation serializes"))
}

/// The simhash-doc value of `text` under `scheme` (`simhash-doc-v2` or
/// `simhash-doc`; `undefined` is `simhash-doc-v2`). Any other scheme is
/// refused, named: an unknown one (`unknown_scheme`) or an equality one
/// (`not_a_simhash_doc_scheme`).
#[wasm_bindgen(js_name = simhashDocValue)]
pub fn simhash_doc_value(text: JsValue, scheme: JsValue) -> Result<u64, JsValue> {
    let text = string(&text, "text")?;
    let rule = match optional_string(&scheme, "scheme")? {
        None => TokenRule::V2,
        Some(name) => {
            let scheme = self::scheme(&name)?;
            scheme.token_rule().ok_or_else(|| {
                input_error(
                    "not_a_simhash_doc_scheme",
                    &format!(
                        "scheme {scheme} is not a simhash-doc scheme: expected {} or {}",
                        Scheme::SimhashDocV2,
                        Scheme::SimhashDoc
                    ),
                )
            })?
        }
    };
    Ok(Fingerprinter::new().simhash_doc(&text, rule).0)
}

/// A `simhash-doc` value from its base32hex or hex text.
#[wasm_bindgen(js_name = parseSimhashDoc)]
pub fn parse_simhash_doc(text: JsValue) -> Result<u64, JsValue> {
    string(&text, "a simhash-doc")?
        .parse::<SimhashDoc>()
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
    /// No headers yet, for a source described as `name` in messages
    /// (the header source's `name`, cut to 80 characters).
    #[wasm_bindgen(constructor)]
    pub fn new(name: JsValue) -> Result<HeaderRounds, JsValue> {
        let name = string(&name, "the header source's name")?;
        Ok(HeaderRounds { source: WantedHeaders::new(cut(&name, MAX_QUOTED_CHARS).into_owned()) })
    }

    /// The header the caller's source served at `height` (160 hex digits);
    /// anything else is recorded as the source's bad answer.
    pub fn insert(&self, height: u32, hex: JsValue) {
        match hex.as_string().and_then(|hex| priorart_ots::header_from_hex(&hex)) {
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
    pub fn unavailable(&self, height: u32, message: JsValue) {
        let message = cut(&message.as_string().unwrap_or_default(), MAX_MESSAGE_CHARS).into_owned();
        let error = SourceError::unavailable(self.source.describe(), JsFailure(message));
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
    pub fn no_tip(&self, message: JsValue) {
        let name = self.source.describe();
        let message = cut(&message.as_string().unwrap_or_default(), MAX_MESSAGE_CHARS).into_owned();
        self.source.set_tip(Err(match message.as_str() {
            "" => SourceError::NoTip { source_name: name },
            _ => SourceError::unavailable(name, JsFailure(message)),
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
        event_json: JsValue,
        network: JsValue,
        content: JsValue,
    ) -> Result<String, JsValue> {
        let event_json = string(&event_json, "event")?;
        let network = self::network(&network)?;
        let content = optional_string(&content, "content")?;
        let mut report = priorart_nip::verify_event_json(event_json.trim(), &self.source, network);
        if let Some(content) = &content {
            report.check_content(content);
        }
        Ok(report.to_json())
    }

    /// The discovery check of `answers.x` on what the relays answered,
    /// against the headers held: the `priorart-check/1` report's JSON
    /// text, as `priorart check --json`.
    pub fn check(&self, answers: &RelayAnswers, network: JsValue) -> Result<String, JsValue> {
        let network = self::network(&network)?;
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
        network: JsValue,
    ) -> Result<String, JsValue> {
        let network = self::network(&network)?;
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
    pub fn new(
        text: JsValue,
        key_answers_json: JsValue,
        proof_answers_json: JsValue,
    ) -> Result<NearAnswers, JsValue> {
        Ok(NearAnswers {
            query: near_query(&string(&text, "near.text")?)?,
            key_answers: unchecked_answers(
                &string(&key_answers_json, "near.keyAnswers")?,
                "near-copy key answers",
            )?,
            proof_answers: unchecked_answers(
                &string(&proof_answers_json, "near.proofAnswers")?,
                "near-copy proof answers",
            )?,
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
pub fn near_copies_proof_filter(text: JsValue, key_answers_json: JsValue) -> Result<Option<String>, JsValue> {
    let query = near_query(&string(&text, "text")?)?;
    let answers: Vec<RelayAnswer> =
        unchecked_answers(&string(&key_answers_json, "keyAnswers")?, "near-copy key answers")?
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
    pub fn new(x: JsValue, answers_json: JsValue) -> Result<RelayAnswers, JsValue> {
        let x = fingerprint_x(&string(&x, "x")?)?;
        let answers = unchecked_answers(&string(&answers_json, "relayAnswers")?, "relay answers")?;
        Ok(RelayAnswers { answers: UncheckedAnswer::check_all(answers, &x), x })
    }
}

fn fingerprint_x(x: &str) -> Result<EqualityFingerprint, JsValue> {
    x.parse().map_err(|_| {
        input_error("invalid_x", &format!("{}: not a fingerprint (64 hex digits)", cut(x, MAX_QUOTED_CHARS)))
    })
}

/// The NIP's discovery query for `x` (every content kind and kind 1041
/// with the tag `X`), as the JSON of a REQ filter.
#[wasm_bindgen(js_name = discoveryFilter)]
pub fn discovery_filter(x: JsValue) -> Result<String, JsValue> {
    Ok(filter_json(&priorart_nip::check::discovery_filter(&fingerprint_x(&string(&x, "x")?)?)))
}

/// The fuzzy discovery query for `text` (docs/nip-ff-3-fuzzy.md): the
/// content events carrying one of its `B` keys, as the JSON of a REQ
/// filter; it finds every tagged text within 6 bits of its simhash-doc.
#[wasm_bindgen(js_name = fuzzyDiscoveryFilter)]
pub fn fuzzy_discovery_filter(text: JsValue) -> Result<String, JsValue> {
    Ok(filter_json(&near_query(&string(&text, "text")?)?.filter()))
}

/// Whether `priorart check FILE` looks for the near copies of `text` by
/// default: [`priorart_nip::fuzzy_tags::long_enough`] (100 words or more,
/// two letters of Chinese, Japanese, Thai… counting as one).
#[wasm_bindgen(js_name = fuzzyByDefault)]
pub fn fuzzy_by_default(text: JsValue) -> Result<bool, JsValue> {
    Ok(priorart_nip::fuzzy_tags::long_enough(&string(&text, "text")?))
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

/// A NIP-01 public key: exactly 64 lowercase hex digits. Checked here
/// before rust-nostr's `PublicKey::parse`, which also reads bech32 and, given
/// more than 64 hex digits (128, 1000, ten million), reads only the first 64
/// and accepts the rest: an event would carry another key than the one given.
fn public_key(hex: &str) -> Result<PublicKey, JsValue> {
    let refused =
        |why: &str| input_error("invalid_pubkey", &format!("pubkey {}: {why}", cut(hex, MAX_QUOTED_CHARS)));
    if hex.len() != 64 || !hex.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(refused("not 64 lowercase hex digits"));
    }
    PublicKey::from_hex(hex).map_err(|err| refused(&err.to_string()))
}

/// Latest `created_at` taken: 2^32 - 1 seconds (the year 2106). Far above any
/// honest clock, and far below what milliseconds (`Date.now()`, about
/// 1.7e12) give, which are refused instead of being taken as seconds 55,000
/// years from now.
const MAX_CREATED_AT: f64 = 4_294_967_295.0;

/// `createdAt`: whole seconds since 1970 (the package's JavaScript fills in
/// now: std has no clock on wasm32-unknown-unknown).
fn timestamp(value: &JsValue) -> Result<Timestamp, JsValue> {
    let Some(seconds) = value.as_f64() else {
        return Err(input_error(
            "out_of_range",
            &format!("createdAt must be a number of seconds, not {}", type_of(value)),
        ));
    };
    if !(seconds.fract() == 0.0 && (0.0..=MAX_CREATED_AT).contains(&seconds)) {
        let hint = if seconds > 1e11 && seconds.is_finite() { " (milliseconds? divide by 1000)" } else { "" };
        return Err(input_error(
            "out_of_range",
            &format!(
                "createdAt={seconds}: expected whole seconds since 1970, at most {MAX_CREATED_AT}{hint}"
            ),
        ));
    }
    Ok(Timestamp::from_secs(seconds as u64))
}

/// The key that stands in for a missing `pubkey` while an event is built
/// (the generator point's x coordinate, a valid key nobody would sign
/// with); it and the id computed with it are then left out of the event.
const PLACEHOLDER_PUBKEY: &str = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";

/// The event's JSON; without `pubkey` (a NIP-07 template, whose signer
/// fills in its own key) with neither `pubkey` nor `id`.
fn event_json(
    build: impl FnOnce(PublicKey) -> Result<String, JsValue>,
    pubkey: &JsValue,
) -> Result<String, JsValue> {
    match optional_string(pubkey, "pubkey")? {
        Some(hex) => build(public_key(&hex)?),
        None => {
            let json = build(public_key(PLACEHOLDER_PUBKEY)?)?;
            let mut event: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&json).expect("an unsigned event is a JSON object");
            event.remove("pubkey");
            event.remove("id");
            Ok(serde_json::Value::Object(event).to_string())
        }
    }
}

/// Room for what signing adds to an unsigned event's JSON (`id`, `sig`,
/// `pubkey` and their punctuation: 280 bytes), with a margin for a signer
/// that orders or spaces members differently.
const SIGNING_ROOM: usize = 512;

/// The event limit of priorart's readers (`checkSigned`, relays' answers),
/// applied before signing: an event refused only after the user signed it
/// would waste the signature prompt.
fn fits_signed(json: &str) -> Result<(), JsValue> {
    let limit = priorart_nip::limits::MAX_EVENT_JSON_BYTES;
    if json.len() + SIGNING_ROOM > limit {
        return Err(error(
            "EventError",
            "event_too_large",
            &format!("the event would be {} bytes once signed, more than {limit}", json.len() + SIGNING_ROOM),
        ));
    }
    Ok(())
}

/// The unsigned content event (kind 1, 30023, …) of `text` by `pubkey`,
/// with its `X` tag and, with `fuzzy_tags` and a text long enough, its
/// fuzzy discovery `B` tags (docs/nip-ff-3-fuzzy.md), as JSON: what a
/// NIP-07 `signEvent` is handed.
#[wasm_bindgen(js_name = contentEvent)]
pub fn content_event(
    kind: JsValue,
    text: JsValue,
    d: JsValue,
    title: JsValue,
    created_at: JsValue,
    pubkey: JsValue,
    fuzzy_tags: bool,
) -> Result<String, JsValue> {
    let kind = self::kind(&kind, "kind")?;
    let text = string(&text, "text")?;
    let (d, title) = (optional_string(&d, "d")?, optional_string(&title, "title")?);
    let created_at = timestamp(&created_at)?;
    // A text over the limit is refused before its fingerprint is computed.
    fits_signed(&text)?;
    let json = event_json(
        |pubkey| {
            let event = ContentEvent {
                d: d.as_deref(),
                title: title.as_deref(),
                fuzzy_tags,
                ..ContentEvent::new(kind, &text, created_at)
            };
            let unsigned =
                event.unsigned(pubkey).map_err(|err| error("EventError", err.reason(), &err.to_string()))?;
            Ok(unsigned.as_json())
        },
        &pubkey,
    )?;
    fits_signed(&json)?;
    Ok(json)
}

/// The unsigned kind 1042 attestation of `x` (for content of kind
/// `content_kind`) by `pubkey`, as JSON.
#[wasm_bindgen]
pub fn attestation(
    x: JsValue,
    content_kind: JsValue,
    created_at: JsValue,
    pubkey: JsValue,
) -> Result<String, JsValue> {
    let x = fingerprint_x(&string(&x, "x")?)?;
    let content_kind = match content_kind.is_undefined() || content_kind.is_null() {
        true => None,
        false => Some(kind(&content_kind, "kind")?),
    };
    let created_at = timestamp(&created_at)?;
    event_json(
        |pubkey| {
            let unsigned = Attestation::unsigned(pubkey, x, content_kind, created_at)
                .map_err(|err| error("EventError", "invalid_event", &err.to_string()))?;
            Ok(unsigned.as_json())
        },
        &pubkey,
    )
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
pub fn check_signed(request_json: JsValue, signed_json: JsValue) -> Result<String, JsValue> {
    let (request_json, signed_json) = (string(&request_json, "request")?, string(&signed_json, "signed")?);
    let request: RequestJson = serde_json::from_str(&request_json)
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
    let event = priorart_nip::nip46::check_signed_event(&asked, &signed_json)
        .map_err(|err| error("SignedEventError", err.reason(), &err.to_string()))?;
    Ok(priorart_nip::to_json(&event))
}
