//! A submission's body (`POST /v1/attestations`) → the job to queue, or
//! the refusal naming what is wrong: the attestation through the
//! verifier's step 3, the content reference through the checks of step 4.

use super::refusal::Refusal;
use crate::job::{ContentTarget, NewJob};
use axum::http::StatusCode;
use priorart_nip::nostr::prelude::EventId;
use priorart_nip::{Attestation, AttestationParseError, ContentRef};
use serde_json::Value;

/// `{"attestation": <kind 1042, object or string>, "a": "KIND:PUBKEY:D"}`
/// or `{"attestation": …, "e": "<id>", "k": KIND}`, with optional
/// `"relays": ["wss://…"]` (the first becomes the 1041's relay hint). The
/// attestation goes through the verifier's step 3; the reference through
/// the checks of step 4.
pub(super) fn parse_submission(body: &[u8], relays: &[String]) -> Result<NewJob, Refusal> {
    let bad = |error: &str, detail: String| Refusal::new(StatusCode::BAD_REQUEST, error, detail);
    let invalid = |error: &str, detail: String| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, error, detail);
    let request: Value =
        serde_json::from_slice(body).map_err(|err| bad("malformed_json", err.to_string()))?;
    let Some(request) = request.as_object() else {
        return Err(bad("malformed_json", "the body is not a JSON object".into()));
    };
    let attestation_json = match request.get("attestation") {
        Some(Value::String(text)) => text.clone(),
        Some(object @ Value::Object(_)) => object.to_string(),
        Some(_) => {
            return Err(bad("attestation_malformed", "attestation is an event object or its JSON".into()));
        }
        None => return Err(bad("attestation_missing", "no attestation member".into())),
    };
    let attestation = Attestation::from_json(&attestation_json).map_err(|err| match &err {
        AttestationParseError::Invalid(reason) => invalid(err.reason(), reason.to_string()),
        AttestationParseError::Json(_) => invalid(err.reason(), err.to_string()),
    })?;
    let text = |name: &str| request.get(name).and_then(Value::as_str);
    let requested_kind = match request.get("k") {
        None | Some(Value::Null) => None,
        Some(k) => Some(
            k.as_u64()
                .and_then(|k| u16::try_from(k).ok())
                .ok_or_else(|| bad("k_malformed", "k is a kind number 0-65535".into()))?,
        ),
    };
    let content = match (text("a"), text("e")) {
        (Some(_), Some(_)) => {
            return Err(bad("content_reference_ambiguous", "give either a or e, not both".into()));
        }
        (None, None) => {
            return Err(bad("content_reference_missing", "give a (KIND:PUBKEY:D) or e (event id)".into()));
        }
        (Some(a), None) => ContentTarget::Address(a.to_owned()),
        (None, Some(e)) => ContentTarget::Event(
            EventId::from_hex(e).map_err(|_| bad("e_malformed", "e is a 64-hex event id".into()))?,
        ),
    };
    let reference = content.content_ref(&attestation).map_err(|err| match err {
        priorart_nip::ProofEventError::AuthorMismatch { .. } => invalid("author_mismatch", err.to_string()),
        other => invalid("author_malformed", other.to_string()),
    })?;
    let content_kind = match reference {
        ContentRef::Address { kind, .. } => Some(kind),
        ContentRef::Event { .. } => requested_kind.or(attestation.content_kind()),
    };
    match (content_kind, attestation.content_kind()) {
        (None, _) => {
            return Err(invalid(
                "kind_unknown",
                "the attestation has no k tag: give the content kind as k".into(),
            ));
        }
        (Some(content), Some(scoped)) if content != scoped => {
            return Err(invalid(
                "k_mismatch",
                format!("the content is kind {content} but the attestation is scoped to kind {scoped}"),
            ));
        }
        _ => {}
    }
    let relay_hint = match request.get("relays") {
        None | Some(Value::Null) => None,
        Some(Value::Array(hints)) => {
            let hint = hints.first().and_then(Value::as_str);
            match hint {
                Some(url) if priorart_relay::parse_relay_url(url).is_ok() => Some(url.to_owned()),
                Some(url) => {
                    return Err(bad("relays_malformed", format!("{url:?} is not a ws:// or wss:// URL")));
                }
                None if hints.is_empty() => None,
                None => return Err(bad("relays_malformed", "relays is an array of URLs".into())),
            }
        }
        Some(_) => return Err(bad("relays_malformed", "relays is an array of URLs".into())),
    };
    Ok(NewJob {
        attestation,
        content,
        content_kind: if matches!(reference, ContentRef::Event { .. }) { content_kind } else { None },
        relay_hint,
        content_event: None,
        relays: relays.to_vec(),
        calendars: Vec::new(),
        label: None,
    })
}
