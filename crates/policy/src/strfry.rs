//! strfry's write-policy plugin protocol (strfry's `docs/plugins.md` and
//! `src/PluginEventSifter.h`): one JSON object per line in,
//! `{"type":"new","event":{…},"receivedAt":<unix s>,"sourceType":…,
//! "sourceInfo":…[,"authed":…]}`, and for each `new` one line out,
//! `{"id":<event.id>,"action":"accept"|"reject"|"shadowReject","msg":…}`.
//!
//! strfry waits for each answer before it sends the next request, matches
//! the answer to the request by `id`, and on an answer with another id (or
//! none), an unknown action or no answer within its
//! `relay.writePolicy.timeoutSeconds`, it rejects the event with
//! `error: internal error` and restarts the plugin. A line it cannot parse as
//! JSON it logs and skips. So:
//! - every `new` request gets exactly one line, whatever it holds;
//! - a request of another `type` gets none (strfry's own example plugin
//!   does the same: such messages may come with future versions, which
//!   would not wait for an answer);
//! - a line that is not a request (not JSON, no `type`, no `event`, no
//!   `receivedAt`) is answered `reject` with `msg` `invalid: …` and the
//!   event's `id` when one can be read, else `""` (strfry itself never sends
//!   such lines; with `""` it would restart the plugin, as for any answer it
//!   cannot match).
//!
//! Answers stay under strfry's 8,192-byte limit on a plugin's line: `msg`
//! is cut to [`MAX_MSG_BYTES`] and an id longer than an event id is not
//! echoed.

use crate::{Decision, Policy};
use priorart_reason::cut;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::io::{self, BufRead};

/// Longest `msg` written.
pub const MAX_MSG_BYTES: usize = 1024;

/// Longest input line read; longer ones are skipped (and answered with an
/// empty id). Events are refused by the policy's own, lower, size limit.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// An id longer than this is not echoed (event ids are 64 hex digits).
const MAX_ECHOED_ID_BYTES: usize = 128;

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    #[serde(borrow)]
    event: Option<&'a RawValue>,
    #[serde(rename = "receivedAt")]
    received_at: Option<u64>,
}

#[derive(Deserialize)]
struct EventId {
    id: Option<String>,
}

#[derive(Serialize)]
struct Answer<'a> {
    id: &'a str,
    action: &'static str,
    msg: &'a str,
}

/// The answer line (without its newline) to one input line, or `None` for
/// a request of a type other than `new`, which strfry expects no answer to.
pub fn answer(policy: &mut Policy, line: &[u8]) -> Option<String> {
    let request: Request = match serde_json::from_slice(line) {
        Ok(request) => request,
        Err(err) => return Some(refusal("", &format!("invalid: not a strfry request: {err}"))),
    };
    match request.kind {
        Some("new") => {}
        Some(_) => return None,
        None => return Some(refusal(&echoed_id(request.event), "invalid: the request has no type")),
    }
    let Some(event) = request.event else {
        return Some(refusal("", "invalid: the request has no event"));
    };
    let Some(received_at) = request.received_at else {
        return Some(refusal(&echoed_id(Some(event)), "invalid: the request has no receivedAt"));
    };
    Some(match policy.read_event(event.get()) {
        Ok(event) => render(&event.id.to_hex(), &policy.decide(&event, received_at)),
        Err(refused) => render(&echoed_id(Some(event)), &refused),
    })
}

/// The answer to a line longer than [`MAX_LINE_BYTES`].
pub fn line_too_long() -> String {
    refusal("", &format!("invalid: a request line longer than {MAX_LINE_BYTES} bytes"))
}

fn refusal(id: &str, msg: &str) -> String {
    render(id, &Decision::reject(msg))
}

fn render(id: &str, decision: &Decision) -> String {
    let msg = cut(&decision.msg, MAX_MSG_BYTES);
    serde_json::to_string(&Answer { id, action: decision.action.name(), msg }).expect("strings serialize")
}

/// The `id` of a malformed event, when it has a short string one.
fn echoed_id(event: Option<&RawValue>) -> String {
    event
        .and_then(|event| serde_json::from_str::<EventId>(event.get()).ok())
        .and_then(|event| event.id)
        .filter(|id| id.len() <= MAX_ECHOED_ID_BYTES)
        .unwrap_or_default()
}

/// One line read by [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// The line, without its newline, is in the buffer.
    Read,
    /// The line was longer than the limit: skipped up to its newline.
    TooLong,
    /// The input has ended.
    End,
}

/// Reads one line into `buf` (cleared first), holding at most `limit`
/// bytes of it: a longer line is consumed without being kept. Returns as
/// soon as a newline arrives, never waiting for more input than one line.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, limit: usize) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Read,
            });
        }
        read_any = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], end + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long && buf.len() + chunk.len() <= limit {
            buf.extend_from_slice(chunk);
        } else {
            too_long = true;
            buf.clear();
        }
        input.consume(used);
        if done {
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicyConfig;
    use priorart_nip::nostr::prelude::*;
    use priorart_ots::MemoryHeaders;

    fn policy() -> Policy {
        Policy::new(PolicyConfig::default(), Box::new(MemoryHeaders::default())).expect("default policy")
    }

    fn request(event: &str) -> String {
        format!(
            r#"{{"type":"new","event":{event},"receivedAt":1700000000,"sourceType":"IP4","sourceInfo":"127.0.0.1"}}"#
        )
    }

    #[test]
    fn a_new_event_is_answered_with_its_id() {
        let note = EventBuilder::new(Kind::TextNote, "hello").finalize(&Keys::generate()).expect("signs");
        let line = request(&priorart_nip::to_json(&note));
        let expected = format!(r#"{{"id":"{}","action":"accept","msg":""}}"#, note.id.to_hex());
        assert_eq!(answer(&mut policy(), line.as_bytes()), Some(expected));
    }

    #[test]
    fn other_request_types_get_no_answer() {
        assert_eq!(answer(&mut policy(), br#"{"type":"lookback","event":{}}"#), None);
    }

    #[test]
    fn malformed_lines_are_rejected_with_a_reason_and_the_id_when_readable() {
        let mut policy = policy();
        let answers: Vec<serde_json::Value> = [
            b"not json".as_slice(),
            br#"{"event":{"id":"abc"}}"#,
            br#"{"type":"new"}"#,
            br#"{"type":"new","event":{"id":"abc"}}"#,
            request(r#"{"id":"abc","kind":1}"#).as_bytes(),
            request(&format!(r#"{{"id":"{}"}}"#, "a".repeat(500))).as_bytes(),
        ]
        .iter()
        .map(|line| serde_json::from_str(&answer(&mut policy, line).expect("an answer")).expect("JSON"))
        .collect();
        let ids: Vec<&str> = answers.iter().map(|a| a["id"].as_str().expect("id")).collect();
        assert_eq!(ids, ["", "abc", "", "abc", "abc", ""]);
        for answer in &answers {
            assert_eq!(answer["action"], "reject");
            assert!(answer["msg"].as_str().expect("msg").starts_with("invalid: "), "{answer}");
        }
    }

    #[test]
    fn long_lines_are_skipped_without_being_held_and_reading_goes_on() {
        let input = format!("short\n{}\nnext\nlast", "x".repeat(100));
        let mut reader = io::BufReader::with_capacity(16, input.as_bytes());
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buf, 50).expect("reads");
            if line == Line::End {
                break;
            }
            lines.push((line, String::from_utf8(buf.clone()).expect("utf-8")));
        }
        assert_eq!(
            lines,
            [
                (Line::Read, "short".to_owned()),
                (Line::TooLong, String::new()),
                (Line::Read, "next".to_owned()),
                (Line::Read, "last".to_owned())
            ]
        );
    }

    #[test]
    fn messages_are_cut_on_a_character_boundary() {
        assert_eq!(cut("ééé", 3), "é");
        assert_eq!(cut("abc", 10), "abc");
    }
}
