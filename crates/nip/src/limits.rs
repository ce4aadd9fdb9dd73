//! Size limits on every untrusted input, so that memory and time stay
//! bounded whatever a relay or a file hands us.
//!
//! Each limit is far above what an honest event needs: a kind 1042
//! attestation is about 400 bytes, an OpenTimestamps proof a few kilobytes.

/// Longest event JSON accepted (a kind 1041 or 1040 event, whole).
pub const MAX_EVENT_JSON_BYTES: usize = 512 * 1024;
/// Longest relay message read: the longest event with the
/// `["EVENT","<subscription>",…]` around it. What a client reads from a
/// relay and what `priorart relay` takes from a client.
pub const MAX_RELAY_MESSAGE_BYTES: usize = MAX_EVENT_JSON_BYTES + 1024;
/// Events kept from one relay's answer to one query; past it the answer is
/// cut off and said so (a relay flooding the query).
pub const MAX_EVENTS_PER_RELAY_ANSWER: usize = 5_000;
/// Bytes read from one relay's answer to one query, all messages together.
pub const MAX_BYTES_PER_RELAY_ANSWER: usize = 64 * 1024 * 1024;
/// `NOTICE`s kept from one relay's answer to one query (a relay may send
/// any number).
pub const MAX_NOTICES_PER_RELAY_ANSWER: usize = 10;
/// Characters of a relay's text (a notice, a `CLOSED` message, an
/// unreadable message) quoted in a report; longer text is cut there and
/// marked `…`.
pub const MAX_RELAY_TEXT_CHARS: usize = 160;
/// Longest `description` tag value (the serialized kind 1042 attestation).
pub const MAX_DESCRIPTION_BYTES: usize = 4 * 1024;
/// Longest base64 `.content` of a proof event; 64 KiB of `.ots` proof.
pub const MAX_PROOF_BASE64_BYTES: usize = 88 * 1024;
/// Most tags on one event: strfry's default (`events.maxNumTags`), so that
/// what a relay stores can be read and judged here. Honest events have far
/// more than a few dozen tags: a follow list (kind 3) holds one `p` tag per
/// followed key, and a tagged note carries 29 `B` tags of its own.
pub const MAX_TAGS: usize = 2_000;
/// Most strings in one tag (its name included); NIP-92 `imeta` tags, the
/// longest in use, hold one string per property of a media file.
pub const MAX_TAG_STRINGS: usize = 100;
