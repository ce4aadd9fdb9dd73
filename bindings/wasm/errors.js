// The package's error classes, in a file of their own so that the module
// loader (modules.js) and the API (api.js) throw the same classes.

/** Every error this package throws; `reason` is the library's stable name. */
export class PriorartError extends Error {
  constructor(message, reason) {
    super(cut(message));
    this.name = new.target.name;
    this.reason = reason;
  }
}
/** A bad argument (unknown scheme, malformed fingerprint or key, ...). */
export class InputError extends PriorartError {}
/** A document that could not be read (`reason`: the extractor's). */
export class ExtractionError extends PriorartError {}
/** A content event or attestation that cannot be built as asked. */
export class EventError extends PriorartError {}
/** What a signer returned is not the signed event asked for. */
export class SignedEventError extends PriorartError {}

/**
 * Longest message: an error names what was refused and what to do, it
 * never carries a whole input (inputs are quoted up to QUOTED characters;
 * this cut is the last guard).
 */
const MAX_MESSAGE = 500;
/** Longest part of an input a message quotes. */
export const QUOTED = 80;

/** `message` (anything) as a string of at most `max` characters. */
export function cut(message, max = MAX_MESSAGE) {
  const text = typeof message === "string" ? message : String(message);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
