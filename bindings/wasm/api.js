// priorart for JavaScript: the Rust crates of priorart compiled to
// WebAssembly (pkg/, built by scripts/build-wasm.sh). Every answer comes
// from them; this file only shapes arguments and results, turns errors into
// typed classes, and fetches block headers through the caller's async
// header source, round after round (see `withHeaders`). The entry points
// (index.js, browser.js) load the core module before any of it runs;
// extraction loads its own module on first use (`loadExtractor`).

import { core as wasm, extractionModule } from "./modules.js";

/** The fingerprint schemes, the first the default (the NIP's `X`). */
export const SCHEMES = Object.freeze(["minhash-equality-v1", "simhash-equality-v2", "simhash-doc"]);

/** Every error this package throws; `reason` is the library's stable name. */
export class PriorartError extends Error {
  constructor(message, reason) {
    super(message);
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

const ERROR_CLASSES = { InputError, ExtractionError, EventError, SignedEventError };

/** Runs `work`, rethrowing the module's errors as the package's classes. */
function call(work) {
  try {
    return work();
  } catch (error) {
    const Class = error && ERROR_CLASSES[error.kind];
    if (Class) throw new Class(error.message, error.reason);
    throw error;
  }
}

function text(value, name) {
  if (typeof value !== "string") throw new InputError(`${name} must be a string`, "not_a_string");
  return value;
}

/** One fingerprinter per scheme, kept: its caches serve every later text. */
const shared = new Map();

/** The fingerprint of `text` (default: the NIP's `X`, minhash-equality-v1). */
export function fingerprint(input, { scheme = SCHEMES[0] } = {}) {
  let fingerprinter = shared.get(scheme);
  if (!fingerprinter) {
    fingerprinter = call(() => new wasm.Fingerprints([scheme]));
    shared.set(scheme, fingerprinter);
  }
  return fingerprinter.of(text(input, "text"))[0];
}

/**
 * A fingerprinter that keeps its caches between texts (faster over many
 * texts): `new Fingerprinter(schemes).of(text)` → one fingerprint per scheme.
 * Call `free()` when done.
 */
export class Fingerprinter {
  #inner;
  constructor(schemes = [SCHEMES[0]]) {
    this.#inner = call(() => new wasm.Fingerprints(schemes));
  }
  of(input) {
    return this.#inner.of(text(input, "text"));
  }
  free() {
    this.#inner.free();
  }
}

/** Every intermediate value: the object of `priorart fingerprint --explain --json`. */
export function explain(input, { scheme = SCHEMES[0] } = {}) {
  return JSON.parse(call(() => wasm.explain(text(input, "text"), scheme)));
}

/** The `simhash-doc` of `text`: `{ base32hex, value }` (13 characters, a 64-bit `bigint`). */
export function simhashDoc(input) {
  const value = wasm.simhashDocValue(text(input, "text"));
  return { base32hex: wasm.simhashDocText(value), value };
}

/** A simhash-doc value from a bigint, its base32hex or hex text, or `simhashDoc`'s result. */
function simhashValue(value) {
  if (typeof value === "bigint") {
    if (value < 0n || value >= 1n << 64n) throw new InputError(`${value}: not a 64-bit value`, "invalid_simhash_doc");
    return value;
  }
  if (typeof value === "string") return call(() => wasm.parseSimhashDoc(value));
  if (value && typeof value.value === "bigint") return simhashValue(value.value);
  throw new InputError("a simhash-doc is a bigint, its base32hex or hex text, or simhashDoc()'s result", "invalid_simhash_doc");
}

/** Differing bits of two simhash-doc values. */
export function hamming(a, b) {
  return wasm.hamming(simhashValue(a), simhashValue(b));
}

/** `1 - hamming(a, b) / 64`. */
export function similarity(a, b) {
  return wasm.similarity(simhashValue(a), simhashValue(b));
}

const encoder = new TextEncoder();

function bytesOf(input, name) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  throw new InputError(`${name} must be a string, Uint8Array or ArrayBuffer`, "not_bytes");
}

/**
 * Loads the extraction module (html5ever, encoding_rs, quick-xml, zip: a
 * module of its own, so that pages that never read a file never download
 * it). `extractHtml` and `extractDocument` load it themselves; calling this
 * earlier (when a file input appears, say) only starts the download sooner.
 */
export async function loadExtractor() {
  await extractionModule();
}

/**
 * The text of an HTML page as `priorart` extracts it (so its fingerprint is
 * the CLI's `X` of the file), a promise (the extraction module loads on
 * first use). Bytes (`Uint8Array`, `ArrayBuffer`) are decoded as the CLI
 * decodes a file (BOM, <meta> charset, detection); a string is already
 * text, read as UTF-8 whatever its <meta> says.
 */
export async function extractHtml(html) {
  // A byte order mark outranks every declaration: the string's own UTF-8.
  const bytes = typeof html === "string" ? encoder.encode("\uFEFF" + html.replace(/^\uFEFF/, "")) : bytesOf(html, "html");
  const extractor = await extractionModule();
  return call(() => extractor.extractHtml(bytes));
}

/**
 * The text of a document as every priorart command reads a file, a
 * promise: format detected from the content (or `format`: "html", "xml",
 * "epub", "text"), plain text and Markdown only decoded. PDF is not in this
 * package (`ExtractionError`, reason `unsupported`).
 */
export async function extractDocument(bytes, { format } = {}) {
  const input = typeof bytes === "string" ? encoder.encode(bytes) : bytesOf(bytes, "bytes");
  const extractor = await extractionModule();
  return call(() => extractor.extractDocument(input, format));
}

// ---- Block headers, fetched by the caller ----------------------------------

/** Most verifier runs per call; each run fetches what the previous lacked. */
const MAX_ROUNDS = 32;
/** Headers fetched past a wanted one (up to the tip): the cost-to-forge count reads them in order. */
const LOOKAHEAD = 24;
/** Header requests in flight at once. */
const CONCURRENCY = 6;

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `run(rounds)` (the verifier against the headers known so far) until
 * it wants no header it has not been given: each run's wanted heights (and
 * the tip, when asked) are fetched from `headers` and handed in, then it
 * runs again. Nothing fetched is trusted: the verifier checks every header.
 * The headers it confirmed are passed to `headers.confirmed` (for a cache).
 */
async function withHeaders(headers, run) {
  if (!headers || typeof headers.headerAt !== "function") {
    throw new InputError("headers must have an async headerAt(height) (see memoryHeaders, esploraHeaders)", "no_header_source");
  }
  const rounds = new wasm.HeaderRounds(headers.name ?? "headers from JavaScript");
  const asked = new Set();
  let tip = null;
  try {
    for (let round = 1; ; round++) {
      const answer = call(() => run(rounds));
      const wanted = rounds.takeWanted();
      const heights = Array.from(wanted.heights);
      const wantsTip = wanted.tip;
      wanted.free();
      if ((heights.length === 0 && !wantsTip) || round === MAX_ROUNDS) {
        if (typeof headers.confirmed === "function") {
          for (const [height, hex] of rounds.confirmed()) await headers.confirmed(height, hex);
        }
        return answer;
      }
      if (wantsTip) tip = await fetchTip(headers, rounds);
      const fetch = new Set(heights);
      for (const height of heights) {
        for (let next = height + 1; tip !== null && next <= Math.min(height + LOOKAHEAD, tip); next++) fetch.add(next);
      }
      await inParallel([...fetch].filter((height) => !asked.has(height)), async (height) => {
        asked.add(height);
        try {
          const hex = await headers.headerAt(height);
          if (hex === null || hex === undefined) rounds.absent(height);
          else rounds.insert(height, String(hex));
        } catch (error) {
          rounds.unavailable(height, messageOf(error));
        }
      });
    }
  } finally {
    rounds.free();
  }
}

async function fetchTip(headers, rounds) {
  if (typeof headers.tipHeight !== "function") {
    rounds.noTip("");
    return null;
  }
  try {
    const tip = await headers.tipHeight();
    const height = typeof tip === "number" ? tip : tip?.height;
    if (!Number.isSafeInteger(height) || height < 0 || height > 0xffffffff) {
      rounds.noTip("");
      return null;
    }
    rounds.setTip(height, Boolean(tip?.asFarAsHeld));
    return height;
  } catch (error) {
    rounds.noTip(messageOf(error));
    return null;
  }
}

async function inParallel(items, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

function options(value) {
  return typeof value === "string" ? { network: value } : (value ?? {});
}

function jsonText(value, name) {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") return JSON.stringify(value);
  throw new InputError(`${name} must be JSON text or an object`, "not_json");
}

/**
 * The NIP-FF-3 client algorithm (steps 1-8) on a kind 1041 (or 1040): the
 * report of `priorart verify --json` (`priorart-verify/1`), every block
 * header from `headers` checked as the CLI checks it. Options: `network`
 * ("mainnet", default, or "regtest"), `content` (the text, checked against
 * the X). A network string may be given instead of the options.
 */
export async function verifyEvent(event, headers, opts) {
  const { network = "mainnet", content } = options(opts);
  const json = jsonText(event, "event");
  return JSON.parse(await withHeaders(headers, (rounds) => rounds.verifyEvent(json, network, content)));
}

/**
 * The discovery check of `x`: what relays answered (an array of
 * `{ url, ending: { status: "eose" | "timeout" | ... }, events, notices?,
 * answered?, elapsed_ms? }`, events as objects or JSON text) verified,
 * ranked by block and judged, as `priorart check --json` reports it
 * (`priorart-check/1`). Each event is checked (id, signature, the query's
 * filter) as priorart's relay client checks it. With `near` (`{ text,
 * keyAnswers, proofAnswers }`: the checked text and what relays answered
 * to `fuzzyDiscoveryFilter(text)` and `nearCopiesProofFilter`), the near
 * copies too, as `priorart check --fuzzy`: a near copy proven earlier than
 * every proof of `x` makes the verdict `near_copy_proven`.
 */
export async function check(x, relayAnswers, headers, network = "mainnet", near = undefined) {
  const { network: net = "mainnet" } = options(network);
  // The events are checked once (each distinct signature once across
  // relays); each round of headers verifies only the proofs again.
  const answers = call(() => new wasm.RelayAnswers(text(x, "x"), jsonText(relayAnswers, "relayAnswers")));
  const copies = near === undefined || near === null ? null : nearAnswers(near);
  try {
    const run = copies ? (rounds) => rounds.checkNear(answers, copies, net) : (rounds) => rounds.check(answers, net);
    return JSON.parse(await withHeaders(headers, run));
  } finally {
    answers.free();
    copies?.free();
  }
}

/** `check`'s `near`: `{ text, keyAnswers, proofAnswers }`, read once. */
function nearAnswers(near) {
  if (typeof near !== "object") throw new InputError("near must be { text, keyAnswers, proofAnswers }", "not_an_object");
  const { text: checked, keyAnswers = [], proofAnswers = [] } = near;
  return call(
    () =>
      new wasm.NearAnswers(
        text(checked, "near.text"),
        jsonText(keyAnswers, "near.keyAnswers"),
        jsonText(proofAnswers, "near.proofAnswers"),
      ),
  );
}

/**
 * The REQ filter for the proofs of the near copies among what relays
 * answered to `fuzzyDiscoveryFilter(text)` (`keyAnswers`, as `check`
 * takes answers), or `null` without a near copy: ask it, then give both
 * answers to `check` as `near`.
 */
export function nearCopiesProofFilter(input, keyAnswers) {
  const filter = call(() => wasm.nearCopiesProofFilter(text(input, "text"), jsonText(keyAnswers, "keyAnswers")));
  return filter === undefined ? null : JSON.parse(filter);
}

/**
 * The NIP's discovery query for `x`: the REQ filter (`{"kinds": [...],
 * "#X": [x]}`) whose answers `check` takes, as `priorart check` sends it.
 */
export function discoveryFilter(x) {
  return JSON.parse(call(() => wasm.discoveryFilter(text(x, "x"))));
}

/**
 * The fuzzy discovery query for `text` (docs/nip-ff-3-fuzzy.md): the REQ
 * filter of the content events carrying one of the text's `B` keys, which
 * finds every tagged text within 6 bits of its simhash-doc, as
 * `priorart check --fuzzy` sends it.
 */
export function fuzzyDiscoveryFilter(input) {
  return JSON.parse(call(() => wasm.fuzzyDiscoveryFilter(text(input, "text"))));
}

/**
 * Headers held in memory: `entries` maps heights to 160 hex digits (a Map,
 * an object, or [height, hex] pairs). Its tip is its highest header, "as
 * far as held", as the CLI's header cache answers. `set` adds one; as a
 * cache (`cachedHeaders`) it keeps what the verifier confirmed.
 */
export function memoryHeaders(entries = [], { name = "headers in memory" } = {}) {
  const held = new Map();
  const pairs = entries instanceof Map || Array.isArray(entries) ? entries : Object.entries(entries);
  for (const [height, hex] of pairs) held.set(Number(height), String(hex).trim());
  return {
    name,
    async headerAt(height) {
      return held.get(height) ?? null;
    },
    async tipHeight() {
      if (held.size === 0) return null;
      return { height: Math.max(...held.keys()), asFarAsHeld: true };
    },
    set(height, hex) {
      held.set(height, hex);
    },
    confirmed(height, hex) {
      held.set(height, hex);
    },
    get size() {
      return held.size;
    },
  };
}

/**
 * Headers from an Esplora REST server (`https://blockstream.info/api`,
 * `https://mempool.space/api`, a local one): `GET block-height/H`, then
 * `GET block/HASH/header`; the tip from `GET blocks/tip/height`. `fetch`
 * defaults to the global one. Never trusted: the verifier checks each header.
 */
export function esploraHeaders(url, { fetch = globalThis.fetch, name } = {}) {
  const base = String(url).replace(/\/+$/, "");
  const get = async (path) => {
    const response = await fetch(`${base}/${path}`);
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`HTTP status ${response.status} for ${base}/${path}`);
    const body = await response.text();
    if (body.length > 4096) throw new Error(`${base}/${path}: answer too long`);
    return body.trim();
  };
  return {
    name: name ?? `esplora ${base}`,
    async headerAt(height) {
      const hash = await get(`block-height/${height}`);
      if (hash === null) return null;
      if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`block-height/${height}: not a block hash`);
      return get(`block/${hash}/header`);
    },
    async tipHeight() {
      const tip = await get("blocks/tip/height");
      return tip === null ? null : { height: Number(tip), asFarAsHeld: false };
    },
  };
}

/**
 * `upstream` behind a cache (default: in memory): headers the cache holds
 * are not fetched again, and the cache keeps only headers the verifier
 * confirmed, so one lying answer cannot poison it (the CLI's header cache
 * rule). `cache` needs `headerAt` and `confirmed(height, hex)`; an
 * IndexedDB store with those two methods works.
 */
export function cachedHeaders(upstream, cache = memoryHeaders()) {
  return {
    name: upstream.name,
    async headerAt(height) {
      return (await cache.headerAt(height)) ?? upstream.headerAt(height);
    },
    async tipHeight() {
      return typeof upstream.tipHeight === "function" ? upstream.tipHeight() : null;
    },
    async confirmed(height, hex) {
      await cache.confirmed(height, hex);
    },
  };
}

// ---- Events for a NIP-07 signer --------------------------------------------

function seconds(createdAt) {
  return createdAt ?? Math.floor(Date.now() / 1000);
}

/**
 * The unsigned content event (kind 1 note by default, 30023 article with
 * `d`, ...) of `text` by `pubkey` (hex), with its `X` tag and (unless
 * `fuzzyTags` is false) the fuzzy discovery `B` tags of a text of 100 words
 * or more: what `window.nostr.signEvent` takes. `createdAt`: seconds
 * (default: now).
 */
export function contentEvent({ kind = 1, text: body, d, title, createdAt, pubkey, fuzzyTags = true } = {}) {
  return JSON.parse(
    call(() =>
      wasm.contentEvent(kind, text(body, "text"), d, title, seconds(createdAt), text(pubkey, "pubkey"), Boolean(fuzzyTags)),
    ),
  );
}

/**
 * The unsigned kind 1042 attestation by `pubkey` of `x` (or of `text`'s
 * X), for content of kind `kind`: what `window.nostr.signEvent` takes.
 */
export function attestation({ x, text: body, kind, createdAt, pubkey } = {}) {
  const value = x ?? fingerprint(text(body, "text"));
  return JSON.parse(call(() => wasm.attestation(value, kind, seconds(createdAt), text(pubkey, "pubkey"))));
}

/**
 * Checks what a signer returned for `request` (the unsigned event it was
 * handed) as priorart's bunker client does: the same event (kind,
 * created_at, tags, content, pubkey when the request names one), id and
 * signature valid. Returns the signed event; throws `SignedEventError`.
 */
export function checkSigned(request, signed) {
  return JSON.parse(call(() => wasm.checkSigned(jsonText(request, "request"), jsonText(signed, "signed"))));
}
