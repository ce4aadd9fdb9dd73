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

/** Longest message: an error names what was refused, it never carries a whole input. */
const MAX_MESSAGE = 300;

/** `message` (anything) as a string of at most MAX_MESSAGE characters. */
export function cut(message) {
  const text = typeof message === "string" ? message : String(message);
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}
