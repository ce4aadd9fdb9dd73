//! A relay's text frame → a `nostr::RelayMessage`, or the reason it is not one.

use nostr::prelude::RelayMessage;

/// Why a frame was not a relay message we can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadMessage {
    /// Not JSON at all.
    NotJson,
    /// An `EVENT` message whose event does not parse as a NIP-01 event.
    MalformedEvent,
    /// JSON, but no relay message NIP-01 (or a NIP we know) defines.
    NotRelayMessage,
}

/// Parses one frame. rust-nostr's parser answers one opaque error for every
/// problem; the report names which kind it was, so a failed parse is looked
/// at once more, as plain JSON.
pub(crate) fn parse(text: &str) -> Result<RelayMessage<'static>, BadMessage> {
    match RelayMessage::from_json(text) {
        Ok(message) => Ok(message),
        Err(_) => Err(classify_failure(text)),
    }
}

fn classify_failure(text: &str) -> BadMessage {
    match serde_json::from_str::<serde_json::Value>(text) {
        Err(_) => BadMessage::NotJson,
        Ok(value) if value.get(0).and_then(|v| v.as_str()) == Some("EVENT") => BadMessage::MalformedEvent,
        Ok(_) => BadMessage::NotRelayMessage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_is_named() {
        assert_eq!(parse("[\"EOSE\", \"s\"").unwrap_err(), BadMessage::NotJson);
        assert_eq!(parse("[\"EVENT\", \"s\", {\"id\": 3}]").unwrap_err(), BadMessage::MalformedEvent);
        assert_eq!(parse("[\"HELLO\", \"s\"]").unwrap_err(), BadMessage::NotRelayMessage);
        assert_eq!(parse("{}").unwrap_err(), BadMessage::NotRelayMessage);
        assert!(matches!(parse("[\"EOSE\", \"s\"]"), Ok(RelayMessage::EndOfStoredEvents(_))));
    }
}
