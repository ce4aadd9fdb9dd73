// Types of the `priorart` package (index.js under Node, browser.js in
// browsers; both export api.js). The reports are the JSON
// documents the CLI prints; their members are documented in GUIDE.md
// (`priorart-verify/1`, `priorart-check/1`) and typed loosely here.

/** The fingerprint schemes; the first is the default (the NIP's `X`). */
export const SCHEMES: readonly ["minhash-equality-v1", "simhash-equality-v2", "simhash-doc"];
export type Scheme = (typeof SCHEMES)[number];

/** Every error this package throws; `reason` is the library's stable snake_case name. */
export class PriorartError extends Error {
  readonly reason: string;
}
/** A bad argument (unknown scheme, malformed fingerprint or key, ...). */
export class InputError extends PriorartError {}
/** A document that could not be read (`reason`: the extractor's, e.g. `too_deep`, `unsupported`). */
export class ExtractionError extends PriorartError {}
/** A content event or attestation that cannot be built as asked (`missing_d`, `unexpected_d`, ...). */
export class EventError extends PriorartError {}
/** What a signer returned is not the event asked for (`signed_event_bad_signature`, ...). */
export class SignedEventError extends PriorartError {}

/** The fingerprint of `text`: 64 hex digits (equality schemes) or 13 base32hex characters (simhash-doc). */
export function fingerprint(text: string, options?: { scheme?: Scheme }): string;

/** A fingerprinter that keeps its caches between texts. */
export class Fingerprinter {
  constructor(schemes?: Scheme[]);
  /** One fingerprint per scheme, in the constructor's order. */
  of(text: string): string[];
  free(): void;
}

/** Every intermediate value: the object of `priorart fingerprint --explain --json` (without `file`, `input`). */
export function explain(text: string, options?: { scheme?: Scheme }): Record<string, unknown>;

export interface SimhashDoc {
  /** 13 base32hex characters (the CLI's form). */
  base32hex: string;
  /** The 64-bit value. */
  value: bigint;
}
/** A simhash-doc value: a bigint, its base32hex or hex text, or `simhashDoc`'s result. */
export type SimhashDocLike = bigint | string | SimhashDoc;

export function simhashDoc(text: string): SimhashDoc;
/** Differing bits (0 to 64). */
export function hamming(a: SimhashDocLike, b: SimhashDocLike): number;
/** `1 - hamming(a, b) / 64`. */
export function similarity(a: SimhashDocLike, b: SimhashDocLike): number;

/**
 * Loads the extraction module (a second WebAssembly module, fetched on first
 * use): the extraction functions call it themselves; calling it earlier only
 * starts the download sooner.
 */
export function loadExtractor(): Promise<void>;
/** The text of an HTML page as the CLI extracts it (bytes decoded as the CLI decodes a file; a string read as UTF-8). */
export function extractHtml(html: string | Uint8Array | ArrayBuffer): Promise<string>;
/** The text of a document as the CLI reads a file (HTML, XML, EPUB, text; no PDF in this package). */
export function extractDocument(
  bytes: string | Uint8Array | ArrayBuffer,
  options?: { format?: "html" | "xml" | "epub" | "text" | string },
): Promise<string>;

/** The tip of a header source: a height, or a height that is only the highest header held (a cache). */
export type TipHeight = number | { height: number; asFarAsHeld?: boolean } | null;

/**
 * Where block headers come from. Nothing it answers is trusted: the verifier
 * checks proof of work, the exact difficulty at the height, and links.
 */
export interface HeaderSource {
  /** How messages name the source (`esplora https://...`). */
  name?: string;
  /** The 80-byte header at `height` as 160 hex digits; `null` when there is no block there. Throw when unreachable. */
  headerAt(height: number): Promise<string | null | undefined>;
  /** The tip height, for the cost to forge; without it the cost is not computed. */
  tipHeight?(): Promise<TipHeight>;
  /** Told of every header the verifier confirmed (a cache keeps these and only these). */
  confirmed?(height: number, hex: string): void | Promise<void>;
}

export interface MemoryHeaders extends HeaderSource {
  set(height: number, hex: string): void;
  readonly size: number;
}
export function memoryHeaders(
  entries?: Map<number, string> | Record<string, string> | Iterable<[number, string]>,
  options?: { name?: string },
): MemoryHeaders;
export function esploraHeaders(
  url: string,
  options?: { fetch?: typeof globalThis.fetch; name?: string },
): HeaderSource;
export function cachedHeaders(
  upstream: HeaderSource,
  cache?: Pick<HeaderSource, "headerAt"> & { confirmed(height: number, hex: string): void | Promise<void> },
): HeaderSource;

export type Network = "mainnet" | "regtest";

/** The `priorart-verify/1` report (see GUIDE.md). */
export interface VerifyReport {
  format: "priorart-verify/1";
  verdict: "valid" | "invalid" | "unverified" | string;
  steps: { step: number; status: string; reason?: string; detail?: string }[];
  [member: string]: unknown;
}
/** The `priorart-check/1` report (see GUIDE.md). */
export interface CheckReport {
  format: "priorart-check/1";
  x: string;
  verdict: Record<string, unknown>;
  [member: string]: unknown;
}

/** What one relay answered to the discovery query (`nip::check::UncheckedAnswer`). */
export interface RelayAnswer {
  url: string;
  ending:
    | { status: "eose" }
    | { status: "timeout" }
    | { status: "closed"; message: string }
    | { status: "unreachable"; error: string }
    | { status: "disconnected"; error: string }
    | { status: "event_limit"; limit: number }
    | { status: "byte_limit"; limit: number };
  /** NIP-01 event objects or their JSON text, as received (each is checked). */
  events: (object | string)[];
  notices?: string[];
  answered?: boolean;
  elapsed_ms?: number;
}

export function verifyEvent(
  event: string | object,
  headers: HeaderSource,
  options?: Network | { network?: Network; content?: string },
): Promise<VerifyReport>;
/** The near-copy answers `check` takes: the text and what relays answered to its two near-copy queries. */
export interface NearAnswers {
  text: string;
  /** What relays answered to `fuzzyDiscoveryFilter(text)`. */
  keyAnswers: RelayAnswer[] | string;
  /** What relays answered to `nearCopiesProofFilter(text, keyAnswers)` (none when it was `null`). */
  proofAnswers?: RelayAnswer[] | string;
}
export function check(
  x: string,
  relayAnswers: RelayAnswer[] | string,
  headers: HeaderSource,
  network?: Network | { network?: Network },
  near?: NearAnswers | null,
): Promise<CheckReport>;

/** A NIP-01 REQ filter. */
export interface Filter {
  kinds: number[];
  "#X"?: string[];
  "#B"?: string[];
}
/** The NIP's discovery query for `x` (`{"kinds": [...], "#X": [x]}`), as `priorart check` sends it. */
export function discoveryFilter(x: string): Filter;
/**
 * The fuzzy discovery query for `text` (docs/nip-ff-3-fuzzy.md): content events carrying one of
 * its `B` keys, as `priorart check --fuzzy` sends it.
 */
export function fuzzyDiscoveryFilter(text: string): Filter;
/** The REQ filter for the proofs of the near copies among `keyAnswers` (answers to `fuzzyDiscoveryFilter(text)`), or `null` without one. */
export function nearCopiesProofFilter(text: string, keyAnswers: RelayAnswer[] | string): Filter | null;

/** An unsigned event, as `window.nostr.signEvent` takes it. */
export interface UnsignedEvent {
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  id?: string;
}
/** A signed NIP-01 event. */
export interface SignedEvent extends UnsignedEvent {
  id: string;
  sig: string;
}

export function contentEvent(options: {
  kind?: number;
  text: string;
  d?: string;
  title?: string;
  /** Seconds since 1970; default now. */
  createdAt?: number;
  /** The author's public key, 64 hex digits (`window.nostr.getPublicKey()`). */
  pubkey: string;
  /**
   * The fuzzy discovery `B` tags (docs/nip-ff-3-fuzzy.md) on a text of 100
   * words or more; default true.
   */
  fuzzyTags?: boolean;
}): UnsignedEvent;
export function attestation(options: {
  /** The X attested; or give `text`. */
  x?: string;
  text?: string;
  /** The kind of the content event attested (the `k` tag). */
  kind?: number;
  createdAt?: number;
  pubkey: string;
}): UnsignedEvent;
export function checkSigned(request: UnsignedEvent | string, signed: SignedEvent | string): SignedEvent;
