// Types of the `priorart` package (index.js under Node, browser.js in
// browsers; both export api.js). The reports are the JSON documents the
// CLI prints (GUIDE.md: `priorart-verify/1`, `priorart-check/1`), typed
// member by member from their Rust types (crates/nip/src/report.rs,
// crates/nip/src/check/report.rs, crates/ots/src/forge.rs); the package's
// tests check real reports against these types (tests/types.test.mjs).
// Names that nostr-tools also exports (`verifyEvent`, `Filter`,
// `UnsignedEvent`) have names of their own here, so that a client imports
// both packages without renaming.

/**
 * Loads the core WebAssembly module (once; later calls return the same
 * promise). In browsers the synchronous functions (`fingerprint`, the
 * events, the filters) need it first; the async ones call it themselves. In
 * Node it is optional: the first call loads the module synchronously.
 * `core`, `extractor`: where the two modules are when a bundler did not
 * ship them beside the package's code (esbuild: its `file` loader on
 * `priorart/priorart_wasm_bg.wasm` and `priorart/priorart_extract_bg.wasm`).
 */
export function init(options?: {
  core?: ModuleSource;
  extractor?: ModuleSource;
}): Promise<void>;
/** Where a WebAssembly module comes from. */
export type ModuleSource = string | URL | Response | BufferSource | WebAssembly.Module;

/** The fingerprint schemes; the first is the default (the NIP's `X`). */
export const SCHEMES: readonly ["minhash-equality-v1", "simhash-equality-v2", "simhash-doc", "simhash-doc-v2"];
export type Scheme = (typeof SCHEMES)[number];
/** The simhash-doc schemes: `simhash-doc-v2` (Chinese, Japanese, Thai… as character bigrams; the default) and the frozen `simhash-doc`. */
export type SimhashDocScheme = "simhash-doc-v2" | "simhash-doc";

/** Every error this package throws; `reason` is the library's stable snake_case name; messages are at most 500 characters, inputs quoted up to 80. */
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

/** The fingerprint of `text`: 64 hex digits (equality schemes) or 13 base32hex characters (simhash-doc-v2, simhash-doc). */
export function fingerprint(text: string, options?: { scheme?: Scheme }): string;

/** A fingerprinter for a list of schemes; its buffers are shared with every other of the same list. */
export class Fingerprinter {
  constructor(schemes?: readonly Scheme[]);
  /** One fingerprint per scheme, in the constructor's order. */
  of(text: string): string[];
  /** Makes this instance unusable (`of` then throws `InputError`, reason `freed`). */
  free(): void;
}

/** Every intermediate value: the object of `priorart fingerprint --explain --json` (without `file`, `input`). */
export function explain(text: string, options: { scheme: SimhashDocScheme }): SimhashDocExplanation;
export function explain(text: string, options?: { scheme?: "minhash-equality-v1" | "simhash-equality-v2" }): EqualityExplanation;
export function explain(text: string, options?: { scheme?: Scheme }): EqualityExplanation | SimhashDocExplanation;
/** `explain` under an equality scheme (GUIDE.md, `--explain --json`). */
export interface EqualityExplanation {
  scheme: "minhash-equality-v1" | "simhash-equality-v2";
  canonical_text: string;
  tokens: string[];
  tokens_total: number;
  kept_tokens: string[];
  kept_tokens_total: number;
  /** One per bucket; `null` for an empty bucket. */
  buckets: ({ token: string; min_hash: string; kept_hex: string } | null)[];
  descriptor: string;
  empty: boolean;
  fallback: boolean;
  fingerprint: string;
}
/** `explain` under `simhash-doc-v2` or `simhash-doc` (GUIDE.md, `--explain --json`). */
export interface SimhashDocExplanation {
  scheme: SimhashDocScheme;
  tokens: string[];
  /** Each feature and its 64-bit hash (16 hex digits). */
  features: Record<string, string>;
  /** The 64 signed counters. */
  counters: number[];
  numeric: string[];
  identifiers: string[];
  fingerprint: string;
  hex: string;
}

export interface SimhashDoc {
  /** 13 base32hex characters (the CLI's form). */
  base32hex: string;
  /** The 64-bit value. */
  value: bigint;
}
/** A simhash-doc value: a bigint, its base32hex or hex text, or `simhashDoc`'s result. */
export type SimhashDocLike = bigint | string | SimhashDoc;

/** The simhash-doc value of `text`: `simhash-doc-v2`'s unless `{ scheme: "simhash-doc" }`. */
export function simhashDoc(text: string, options?: { scheme?: SimhashDocScheme }): SimhashDoc;
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
  name: string;
  set(height: number, hex: string): void;
  confirmed(height: number, hex: string): void;
  readonly size: number;
}
/** Heights to headers: a Map, an object, or any iterable of [height, hex] pairs (an array, a generator, `map.entries()`). */
export function memoryHeaders(
  entries?: Map<number, string> | Record<string, string> | Iterable<readonly [number | string, string]>,
  options?: { name?: string },
): MemoryHeaders;
export function esploraHeaders(
  url: string | URL,
  options?: { fetch?: typeof globalThis.fetch; name?: string },
): HeaderSource;
export function cachedHeaders(
  upstream: HeaderSource,
  cache?: Pick<HeaderSource, "headerAt"> & { confirmed(height: number, hex: string): void | Promise<void> },
): HeaderSource;

export type Network = "mainnet" | "regtest";

// ---- The verification report (`priorart-verify/1`, crates/nip/src/report.rs) ----

export type VerifyVerdict = "valid" | "valid-but-forgeable" | "invalid" | "unverified" | "not-nip-ff-3";
/** Why a step failed or what a warning is about (report.rs `Reason`; GUIDE.md lists each). */
export type VerifyReason =
  | "event_too_large" | "event_not_json" | "event_malformed" | "wrong_kind" | "not_nip_ff3"
  | "description_missing" | "description_repeated" | "description_too_large" | "description_not_json" | "description_not_event"
  | "attestation_id_mismatch" | "attestation_bad_signature" | "attestation_wrong_kind" | "attestation_content_not_empty"
  | "attestation_x_missing" | "attestation_x_repeated" | "attestation_x_malformed" | "attestation_wrong_algorithm"
  | "attestation_k_malformed" | "attestation_unexpected_tag"
  | "content_reference_missing" | "content_reference_ambiguous" | "author_missing" | "author_malformed" | "author_mismatch"
  | "x_missing" | "x_repeated" | "x_malformed" | "x_wrong_algorithm" | "x_mismatch"
  | "event_reference_missing" | "event_reference_repeated" | "event_reference_malformed"
  | "proof_too_large" | "proof_not_base64" | "proof_unparseable"
  | "proof_for_other_digest" | "proof_pending_only" | "proof_no_bitcoin_attestation" | "proof_not_verified" | "proof_headers_unavailable"
  | "proof_header_source_unreliable"
  | "k_mismatch" | "k_missing" | "event_signature_invalid" | "forgeable_by_prestamping" | "cost_to_forge_unknown";
export interface VerifyStep {
  /** The step number in the NIP (1-8; NIP-03 events have their own 1-4). */
  step: number;
  /** What the step checks, in words. */
  check: string;
  status: "pass" | "fail" | "skip";
  /** Why it failed; `null` unless `status` is `fail`. */
  reason: VerifyReason | null;
  detail: string;
}
export interface VerifyWarning {
  reason: VerifyReason;
  detail: string;
}
/** The earliest Bitcoin block the proof reaches. */
export interface BitcoinAnchor {
  height: number;
  /** Block header time, seconds since 1970 (as the miner wrote it). */
  time: number;
  block_hash: string;
}
/** What rewriting the chain from the attested block to the source's tip costs, from checked headers. */
export interface CostToForge {
  blocks: number;
  work_log2: number;
  days_at_attested_hashrate: number;
  claimed_blocks: number;
  complete: boolean;
  tip_as_far_as_held: boolean;
}
/** The `priorart-verify/1` report (GUIDE.md). */
export interface VerifyReport {
  format: "priorart-verify/1";
  verdict: VerifyVerdict;
  scheme: "nip-ff-3" | "nip-03" | null;
  network: Network | null;
  event_id: string | null;
  kind: number | null;
  signer: string | null;
  author: string | null;
  fingerprint: string | null;
  commitment: string | null;
  bitcoin: BitcoinAnchor | null;
  cost_to_forge: CostToForge | null;
  steps: VerifyStep[];
  warnings: VerifyWarning[];
  /** The plaintext check, when `content` was given. */
  content: { fingerprint: string; matches_x: boolean } | null;
}

// ---- The check report (`priorart-check/1`, crates/nip/src/check/report.rs) ----

/** How one relay's answer ended (nip::check::Ending). */
export type RelayEnding =
  | { status: "eose" }
  | { status: "timeout" }
  | { status: "closed"; message: string }
  | { status: "unreachable"; error: string }
  | { status: "disconnected"; error: string }
  | { status: "event_limit"; limit: number }
  | { status: "byte_limit"; limit: number };
export type SkipReason =
  | "not_json" | "not_relay_message" | "malformed_event" | "too_large" | "other_subscription"
  | "bad_id" | "bad_signature" | "not_matching_filter" | "duplicate" | "unexpected";
export interface RelaySummary {
  url: string;
  answered: boolean;
  ending: RelayEnding;
  /** How many events it sent that were kept. */
  events: number;
  skipped: { reason: SkipReason; count: number; example: string }[];
  notices: string[];
  elapsed_ms: number;
}
export type CheckStatus =
  | "proven" | "near_copy_proven" | "unverified" | "unproven" | "nothing_found" | "no_relay_answered" | "no_relay_asked";
export interface CheckVerdict {
  status: CheckStatus;
  /** The sentence, for people. */
  text: string;
  /** The first proof (with `height`), or without one the earliest event by its untrusted `created_at`; `null`: nothing found. */
  earliest:
    | {
        author: string; npub: string; event_id: string; height: number; time: number; utc: string;
        /** With the status `near_copy_proven`: the near copy the proof is of. */
        near_copy?: { event_id: string; author: string; npub: string; x: string; jaccard: number };
      }
    | { author: string; npub: string; event_id: string; kind: number; created_at: number; utc: string }
    | null;
  other_authors: number;
}
export interface RankedProof {
  rank: number;
  event_id: string;
  author: string;
  npub: string;
  block: { height: number; time: number; utc: string; block_hash: string };
  content: { tag: "a" | "e"; reference: string; found: boolean } | null;
  relays: string[];
  report: VerifyReport;
}
export interface UnverifiedProof {
  event_id: string;
  author: string;
  npub: string;
  relays: string[];
  report: VerifyReport;
}
export interface RefusedProof {
  event_id: string;
  signer: string | null;
  claimed_author: string | null;
  verdict: VerifyVerdict;
  reasons: string[];
  relays: string[];
  report: VerifyReport;
}
/** A kind 1041 (or 1040) of another scheme: set aside, never called forged. */
export interface SetAside {
  event_id: string;
  signer: string | null;
  detail: string;
  relays: string[];
}
export interface ContentEventSeen {
  event_id: string;
  author: string;
  npub: string;
  kind: number;
  created_at: number;
  /** Always false: nothing proves when an event was written. */
  created_at_trusted: false;
  utc: string;
  x_check: "matches" | "does_not_match" | "cannot_check";
  /** The content's own fingerprint for `does_not_match`, `empty` or `encrypted` for `cannot_check`, else `null`. */
  detail: string | null;
  relays: string[];
}
/** The `priorart-check/1` report (GUIDE.md). */
export interface CheckReport {
  format: "priorart-check/1";
  x: string;
  network: Network;
  verdict: CheckVerdict;
  relays: RelaySummary[];
  proofs: RankedProof[];
  unverified: UnverifiedProof[];
  refused: RefusedProof[];
  set_aside: SetAside[];
  content_events: ContentEventSeen[];
  /** The CLI's `--index` lookup: never filled in by this package. */
  index: null;
  /** The near copies, when `check` was given `near` (as `priorart check --fuzzy`), else `null`. */
  fuzzy: FuzzyReport | null;
}
export type NotReported = "too_far" | "too_different" | "unreadable" | "listed_by_x";
/** A verified near copy and the proofs of its `X`. */
export interface NearCopy {
  event_id: string;
  author: string;
  npub: string;
  kind: number;
  created_at: number;
  created_at_trusted: false;
  utc: string;
  simhash_doc: string;
  distance: number;
  jaccard: number;
  x: string;
  /** What its own `B` tags said (informational). */
  fuzzy_tags: "matches" | "does_not_match" | "malformed";
  relays: string[];
  proofs: RankedProof[];
  unverified: UnverifiedProof[];
  refused: RefusedProof[];
}
/** The report's `fuzzy` member (crates/nip/src/check/near.rs). */
export interface FuzzyReport {
  text: string;
  simhash_doc: string;
  k: number;
  min_jaccard: number;
  keys: number;
  candidates: number;
  not_reported: { reason: NotReported; count: number }[];
  near_copies: NearCopy[];
  relays: RelaySummary[];
  proof_relays: RelaySummary[];
}

/** What one relay answered to the discovery query (`nip::check::UncheckedAnswer`). */
export interface RelayAnswer {
  url: string;
  ending: RelayEnding;
  /** NIP-01 event objects or their JSON text, as received (each is checked). */
  events: (object | string)[];
  notices?: string[];
  answered?: boolean;
  elapsed_ms?: number;
}

/** The NIP-FF-3 client algorithm on a kind 1041 (or 1040): `priorart verify --json`'s report. */
export function verifyProofEvent(
  event: string | object,
  headers: HeaderSource,
  options?: Network | { network?: Network; content?: string },
): Promise<VerifyReport>;
/** @deprecated The same function as `verifyProofEvent`; its name is nostr-tools' signature check's. */
export const verifyEvent: typeof verifyProofEvent;
/** The near-copy answers `check` takes: the text and what relays answered to its two near-copy queries. */
export interface NearAnswers {
  text: string;
  /** What relays answered to `fuzzyDiscoveryFilter(text)`. */
  keyAnswers: readonly RelayAnswer[] | string;
  /** What relays answered to `nearCopiesProofFilter(text, keyAnswers)` (none when it was `null`). */
  proofAnswers?: readonly RelayAnswer[] | string;
}
export function check(
  x: string,
  relayAnswers: readonly RelayAnswer[] | string,
  headers: HeaderSource,
  network?: Network | { network?: Network },
  near?: NearAnswers | null,
): Promise<CheckReport>;

/**
 * What one relay answered to `filter`, as `check` takes it: `relay` is a
 * nostr-tools `Relay` (or a promise of one, `pool.ensureRelay(url)`: a
 * failed one is `unreachable`); the answer ends with EOSE, CLOSED, the
 * connection's end (`disconnected`) or the timeout (default 10 s), and the
 * subscription is closed.
 */
export function relayAnswer(
  relay: SubscribableRelay | Promise<SubscribableRelay>,
  /** The REQ filter: `discoveryFilter(x)`, or any nostr-tools `Filter`. */
  filter: object,
  options?: { url?: string; timeoutMs?: number; maxEvents?: number },
): Promise<RelayAnswer>;
/** What `relayAnswer` needs of a relay: nostr-tools' `Relay` (AbstractRelay) fits. */
export interface SubscribableRelay {
  url: string;
  subscribe(
    filters: object[],
    params: { eoseTimeout: number; onevent(event: any): void; oneose(): void; onclose(reason: string): void },
  ): { close(reason?: string): void };
}

/**
 * A NIP-01 REQ filter, as nostr-tools' `Filter` takes it (a type alias, not
 * an interface, so that it fits nostr-tools' `#${string}` index signature).
 */
export type DiscoveryFilter = {
  kinds: number[];
  "#X"?: string[];
  "#B"?: string[];
};
/** @deprecated Use `DiscoveryFilter` (nostr-tools exports a `Filter` of its own). */
export type Filter = DiscoveryFilter;
/** The NIP's discovery query for `x` (`{"kinds": [...], "#X": [x]}`), as `priorart check` sends it. */
/** What one relay's answer to a query may cost, as `priorart check` reads relays (`nip::limits`). */
export function relayAnswerLimits(): Readonly<{ maxEvents: number; maxBytes: number; maxMessageBytes: number }>;
export function discoveryFilter(x: string): DiscoveryFilter & { "#X": string[] };
/**
 * The fuzzy discovery query for `text` (docs/nip-ff-3-fuzzy.md): content events carrying one of
 * its `B` keys, as `priorart check --fuzzy` sends it.
 */
export function fuzzyDiscoveryFilter(text: string): DiscoveryFilter & { "#B": string[] };
/** The REQ filter for the proofs of the near copies among `keyAnswers` (answers to `fuzzyDiscoveryFilter(text)`), or `null` without one. */
export function nearCopiesProofFilter(text: string, keyAnswers: readonly RelayAnswer[] | string): DiscoveryFilter | null;

/**
 * An event to sign, as `window.nostr.signEvent` (NIP-07) and nostr-tools'
 * `finalizeEvent` take it; `pubkey` and `id` are there when a pubkey was given.
 */
export interface EventToSign {
  pubkey?: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  id?: string;
}
/** An event to sign built with a pubkey. */
export interface EventToSignBy extends EventToSign {
  pubkey: string;
  id: string;
}
/** @deprecated Use `EventToSign` (nostr-tools exports an `UnsignedEvent` of its own). */
export type UnsignedEvent = EventToSignBy;
/** A signed NIP-01 event. */
export interface SignedEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

export interface ContentEventOptions {
  /** An event kind, 0 to 65535 (default 1). */
  kind?: number;
  text: string;
  d?: string;
  title?: string;
  /** Whole seconds since 1970 (not `Date.now()`'s milliseconds); default now. */
  createdAt?: number;
  /**
   * The author's public key, 64 hex digits (`window.nostr.getPublicKey()`);
   * without it, the template a NIP-07 signer completes (no `pubkey`, no `id`).
   */
  pubkey?: string;
  /**
   * The fuzzy discovery `B` tags (docs/nip-ff-3-fuzzy.md: the simhash-doc-v2
   * value and its keys) on a text of 100 words or more (two letters of
   * Chinese, Japanese, Thai… counting as one); default true.
   */
  fuzzyTags?: boolean;
}
export function contentEvent(options: ContentEventOptions & { pubkey: string }): EventToSignBy;
export function contentEvent(options: ContentEventOptions): EventToSign;
export interface AttestationOptions {
  /** The X attested; or give `text`. */
  x?: string;
  text?: string;
  /** The kind of the content event attested (the `k` tag), 0 to 65535. */
  kind?: number;
  /** Whole seconds since 1970; default now. */
  createdAt?: number;
  pubkey?: string;
}
export function attestation(options: AttestationOptions & { pubkey: string }): EventToSignBy;
export function attestation(options: AttestationOptions): EventToSign;
export function checkSigned(request: EventToSign | string, signed: SignedEvent | string): SignedEvent;
