// priorart for JavaScript: the Rust crates of priorart compiled to
// WebAssembly (pkg/, built by scripts/build/wasm.sh). Every answer comes
// from them; this file only checks and shapes arguments and results, turns
// errors into typed classes, and fetches block headers through the
// caller's async header source, round after round (see `withHeaders`).
// The core module is loaded by `init()` (modules.js): the async functions
// call it themselves; the synchronous ones need it loaded (in Node they
// load it on first use). Extraction loads its own module on first use
// (`loadExtractor`).
//
// Every value a caller passes is checked before it reaches the module,
// here or by the module itself (bindings/wasm/src/lib.rs takes every string
// and number as a JsValue): wasm-bindgen's release glue checks no type, and
// a number where it expects a string corrupts the module's heap.

import { core as wasm, extractionModule, init } from "./modules.js";
import { EventError, ExtractionError, InputError, PriorartError, QUOTED, SignedEventError, cut } from "./errors.js";
// Generated from the Rust constants by crates/schema: read at import time,
// before the WebAssembly module is loaded.
import { FUZZY_MIN_WORDS, RELAY_ANSWER_LIMITS, SCHEMES, SIMHASH_DOC_SCHEMES } from "./constants.js";

export { init };
export { EventError, ExtractionError, InputError, PriorartError, SignedEventError };
export { FUZZY_MIN_WORDS, SCHEMES };

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

/** What a value is, for messages. */
function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

function text(value, name) {
  if (typeof value !== "string") throw new InputError(`${name} must be a string, not ${typeOf(value)}`, "not_a_string");
  return value;
}

/** An options argument: an object, or nothing (`undefined`). */
function optionsOf(value, name) {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InputError(`${name} must be an object, not ${typeOf(value)}`, "invalid_options");
  }
  return value;
}

function scheme(value) {
  if (value === undefined) return SCHEMES[0];
  if (!SCHEMES.includes(value)) {
    const shown = typeof value === "string" ? JSON.stringify(cut(value, QUOTED)) : typeOf(value);
    throw new InputError(`scheme ${shown}: not one of ${SCHEMES.join(", ")}`, "unknown_scheme");
  }
  return value;
}

/**
 * The module's fingerprinters, one per list of schemes, shared by
 * `fingerprint` and every `Fingerprinter` of that list: a fingerprinter
 * holds only scratch buffers (sized by the largest text it has read), so
 * sharing one gives the same answers and ten thousand `Fingerprinter`s cost
 * no memory in the module. Lists past the first POOLED get their own,
 * freed by `free()` or, when forgotten, by a FinalizationRegistry.
 */
const shared = new Map();
const POOLED = 16;
const unfreed =
  typeof FinalizationRegistry === "function" ? new FinalizationRegistry((inner) => inner.free()) : null;

function schemeList(schemes) {
  if (!Array.isArray(schemes) || schemes.length === 0) {
    throw new InputError(`schemes must be a non-empty array of scheme names, not ${typeOf(schemes)}`, "unknown_scheme");
  }
  return schemes.map((name) => {
    if (name === undefined) throw new InputError("schemes: a scheme name is undefined", "unknown_scheme");
    return scheme(name);
  });
}

/** The fingerprint of `text` (default: the NIP's `X`, minhash-equality-v1). */
export function fingerprint(input, options) {
  const name = scheme(optionsOf(options, "fingerprint's options").scheme);
  text(input, "text");
  let fingerprinter = shared.get(name);
  if (!fingerprinter) {
    fingerprinter = call(() => new (wasm().Fingerprints)([name]));
    shared.set(name, fingerprinter);
  }
  return call(() => fingerprinter.of(input))[0];
}

/**
 * A fingerprinter for a list of schemes: `new Fingerprinter(schemes).of(text)`
 * → one fingerprint per scheme. Its buffers are shared with every other
 * `Fingerprinter` of the same list; `free()` is needed only to make the
 * instance unusable (or to release a list beyond the shared ones at once).
 */
export class Fingerprinter {
  #inner;
  #own = false;
  constructor(schemes = [SCHEMES[0]]) {
    const list = schemeList(schemes);
    const key = list.join(",");
    let inner = shared.get(key);
    if (!inner) {
      inner = call(() => new (wasm().Fingerprints)(list));
      if (shared.size < POOLED) shared.set(key, inner);
      else {
        this.#own = true;
        unfreed?.register(this, inner, this);
      }
    }
    this.#inner = inner;
  }
  of(input) {
    if (!this.#inner) throw new InputError("this Fingerprinter was freed", "freed");
    text(input, "text");
    return call(() => this.#inner.of(input));
  }
  free() {
    if (this.#own && this.#inner) {
      unfreed?.unregister(this);
      this.#inner.free();
    }
    this.#inner = null;
  }
}

/** Every intermediate value: the object of `priorart fingerprint --explain --json`. */
export function explain(input, options) {
  const name = scheme(optionsOf(options, "explain's options").scheme);
  return JSON.parse(call(() => wasm().explain(text(input, "text"), name)));
}

/**
 * The simhash-doc value of `text`: `{ base32hex, value }` (13 characters, a
 * 64-bit `bigint`), of `simhash-doc-v2` unless `{ scheme: "simhash-doc" }`
 * (the frozen first rule: a clause of Chinese, Japanese, Thai… is one token).
 */
export function simhashDoc(input, options) {
  const given = optionsOf(options, "simhashDoc's options").scheme;
  const name = given === undefined ? SIMHASH_DOC_SCHEMES[0] : scheme(given);
  if (!SIMHASH_DOC_SCHEMES.includes(name)) {
    throw new InputError(`scheme ${name} is not a simhash-doc scheme: expected ${SIMHASH_DOC_SCHEMES.join(" or ")}`, "not_a_simhash_doc_scheme");
  }
  text(input, "text");
  const value = call(() => wasm().simhashDocValue(input, name));
  return { base32hex: wasm().simhashDocText(value), value };
}

/** A simhash-doc value from a bigint, its base32hex or hex text, or `simhashDoc`'s result. */
function simhashValue(value) {
  if (typeof value === "bigint") {
    if (value < 0n || value >= 1n << 64n) throw new InputError(`${cut(String(value), QUOTED)}: not a 64-bit value`, "invalid_simhash_doc");
    return value;
  }
  if (typeof value === "string") return call(() => wasm().parseSimhashDoc(value));
  if (value && typeof value.value === "bigint") return simhashValue(value.value);
  throw new InputError("a simhash-doc is a bigint, its base32hex or hex text, or simhashDoc()'s result", "invalid_simhash_doc");
}

/** Differing bits of two simhash-doc values. */
export function hamming(a, b) {
  return wasm().hamming(simhashValue(a), simhashValue(b));
}

/** `1 - hamming(a, b) / 64`. */
export function similarity(a, b) {
  return wasm().similarity(simhashValue(a), simhashValue(b));
}

const encoder = new TextEncoder();

function bytesOf(input, name) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  throw new InputError(`${name} must be a string, Uint8Array or ArrayBuffer, not ${typeOf(input)}`, "not_bytes");
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
  if (typeof html !== "string") bytesOf(html, "html");
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
export async function extractDocument(bytes, options) {
  const { format } = optionsOf(options, "extractDocument's options");
  if (format !== undefined) text(format, "format");
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

/** Why a header source failed, as a string whatever it threw. */
function messageOf(error) {
  try {
    return cut(error instanceof Error ? String(error.message) : String(error));
  } catch {
    return "the header source threw a value that is not printable";
  }
}

/** Checks that `headers` is a header source (see HeaderSource in index.d.ts). */
function headerSource(headers, name = "headers") {
  if (!headers || typeof headers.headerAt !== "function") {
    throw new InputError(`${name} must have an async headerAt(height) (see memoryHeaders, esploraHeaders)`, "no_header_source");
  }
  if (headers.name !== undefined && typeof headers.name !== "string") {
    throw new InputError(`${name}.name must be a string, not ${typeOf(headers.name)}`, "not_a_string");
  }
  return headers;
}

/**
 * Runs `run(rounds)` (the verifier against the headers known so far) until
 * it wants no header it has not been given: each run's wanted heights (and
 * the tip, when asked) are fetched from `headers` and handed in, then it
 * runs again. Nothing fetched is trusted: the verifier checks every header.
 * The headers it confirmed are passed to `headers.confirmed` (for a cache).
 */
async function withHeaders(headers, run) {
  headerSource(headers);
  await init();
  const rounds = call(() => new (wasm().HeaderRounds)(headers.name ?? "headers from JavaScript"));
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
          else if (typeof hex !== "string") rounds.unavailable(height, `headerAt(${height}) answered ${typeOf(hex)}, not a string`);
          else rounds.insert(height, hex);
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

/** Options that may be given as the network's name alone. */
function options(value, name) {
  return typeof value === "string" ? { network: value } : optionsOf(value, name);
}

function jsonText(value, name) {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    try {
      return JSON.stringify(value);
    } catch (error) {
      throw new InputError(`${name}: not JSON (${messageOf(error)})`, "not_json");
    }
  }
  throw new InputError(`${name} must be JSON text or an object, not ${typeOf(value)}`, "not_json");
}

/**
 * The NIP-FF-3 client algorithm (steps 1-8) on a kind 1041 (or 1040): the
 * report of `priorart verify --json` (`priorart-verify/1`), every block
 * header from `headers` checked as the CLI checks it. Options: `network`
 * ("mainnet", default, or "regtest"), `content` (the text, checked against
 * the X). A network string may be given instead of the options.
 */
export async function verifyProofEvent(event, headers, opts) {
  const { network = "mainnet", content } = options(opts, "verifyProofEvent's options");
  text(network, "network");
  if (content !== undefined) text(content, "content");
  const json = jsonText(event, "event");
  return JSON.parse(await withHeaders(headers, (rounds) => rounds.verifyEvent(json, network, content)));
}

/**
 * `verifyProofEvent` under its first name, kept for the clients that use
 * it; nostr-tools' signature check is also `verifyEvent`, so new code
 * imports `verifyProofEvent`.
 */
export const verifyEvent = verifyProofEvent;

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
  const { network: net = "mainnet" } = options(network, "check's network");
  text(net, "network");
  text(x, "x");
  const json = jsonText(relayAnswers, "relayAnswers");
  const nearJson = near === undefined || near === null ? null : nearAnswersJson(near);
  headerSource(headers);
  await init();
  // The events are checked once (each distinct signature once across
  // relays); each round of headers verifies only the proofs again.
  const answers = call(() => new (wasm().RelayAnswers)(x, json));
  let copies = null;
  try {
    copies = nearJson && call(() => new (wasm().NearAnswers)(...nearJson));
    const run = copies ? (rounds) => rounds.checkNear(answers, copies, net) : (rounds) => rounds.check(answers, net);
    return JSON.parse(await withHeaders(headers, run));
  } finally {
    answers.free();
    copies?.free();
  }
}

/** `check`'s `near` (`{ text, keyAnswers, proofAnswers }`), checked: the module's arguments. */
function nearAnswersJson(near) {
  const { text: checked, keyAnswers = [], proofAnswers = [] } = optionsOf(near, "near ({ text, keyAnswers, proofAnswers })");
  return [text(checked, "near.text"), jsonText(keyAnswers, "near.keyAnswers"), jsonText(proofAnswers, "near.proofAnswers")];
}

/**
 * The REQ filter for the proofs of the near copies among what relays
 * answered to `fuzzyDiscoveryFilter(text)` (`keyAnswers`, as `check`
 * takes answers), or `null` without a near copy: ask it, then give both
 * answers to `check` as `near`.
 */
export function nearCopiesProofFilter(input, keyAnswers) {
  const json = jsonText(keyAnswers, "keyAnswers");
  const filter = call(() => wasm().nearCopiesProofFilter(text(input, "text"), json));
  return filter === undefined ? null : JSON.parse(filter);
}

/**
 * What one relay's answer to a query may cost, as `priorart check` reads
 * relays: `{ maxEvents, maxBytes, maxMessageBytes }` (past them an answer
 * is cut off, `event_limit` or `byte_limit`, or a message skipped).
 */
export function relayAnswerLimits() {
  return RELAY_ANSWER_LIMITS;
}

/**
 * The NIP's discovery query for `x`: the REQ filter (`{"kinds": [...],
 * "#X": [x]}`) whose answers `check` takes, as `priorart check` sends it.
 */
export function discoveryFilter(x) {
  return JSON.parse(call(() => wasm().discoveryFilter(text(x, "x"))));
}

/**
 * The fuzzy discovery query for `text` (docs/nip-ff-3-fuzzy.md): the REQ
 * filter of the content events carrying one of the text's `B` keys, which
 * finds every tagged text within 6 bits of its simhash-doc-v2 (and, for text
 * simhash-doc cuts otherwise, within 6 bits of its simhash-doc: events tagged
 * before v2), as `priorart check --fuzzy` sends it.
 */
export function fuzzyDiscoveryFilter(input) {
  return JSON.parse(call(() => wasm().fuzzyDiscoveryFilter(text(input, "text"))));
}

/**
 * Whether `priorart check FILE` looks for the near copies of `text` by
 * default: `FUZZY_MIN_WORDS` words or more, two letters of Chinese,
 * Japanese, Thai… counting as one (nip::fuzzy_tags::long_enough).
 */
export function fuzzyByDefault(input) {
  return call(() => wasm().fuzzyByDefault(text(input, "text")));
}

/** A block height: a whole number from 0 to 2^32 - 1. */
function height(value, name) {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (!Number.isInteger(number) || number < 0 || number > 0xffffffff) {
    throw new InputError(`${name}: ${typeof value === "string" ? JSON.stringify(cut(value, QUOTED)) : typeOf(value)} is not a block height`, "invalid_height");
  }
  return number;
}

/**
 * Headers held in memory: `entries` maps heights to 160 hex digits (a Map,
 * an object, or any iterable of [height, hex] pairs: an array, a generator,
 * `map.entries()`). Its tip is its highest header, "as far as held", as
 * the CLI's header cache answers. `set` adds one; as a cache
 * (`cachedHeaders`) it keeps what the verifier confirmed. Nothing is
 * checked but the types: the verifier checks every header it reads.
 */
export function memoryHeaders(entries = [], options) {
  const { name = "headers in memory" } = optionsOf(options, "memoryHeaders' options");
  text(name, "name");
  if (entries === null || typeof entries !== "object") {
    throw new InputError(`memoryHeaders: entries must be a Map, an object or an iterable of [height, hex], not ${typeOf(entries)}`, "invalid_headers");
  }
  const held = new Map();
  const put = (at, hex) => held.set(height(at, "memoryHeaders"), text(hex, `the header at ${at}`).trim());
  const pairs = typeof entries[Symbol.iterator] === "function" ? entries : Object.entries(entries);
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new InputError("memoryHeaders: each entry must be a [height, hex] pair", "invalid_headers");
    }
    put(pair[0], pair[1]);
  }
  return {
    name,
    async headerAt(at) {
      return held.get(at) ?? null;
    },
    async tipHeight() {
      if (held.size === 0) return null;
      let tip = 0;
      for (const at of held.keys()) tip = Math.max(tip, at);
      return { height: tip, asFarAsHeld: true };
    },
    set(at, hex) {
      put(at, hex);
    },
    confirmed(at, hex) {
      put(at, hex);
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
export function esploraHeaders(url, options) {
  const { fetch = globalThis.fetch, name } = optionsOf(options, "esploraHeaders' options");
  if (!(url instanceof URL)) text(url, "url");
  if (typeof fetch !== "function") throw new InputError(`fetch must be a function, not ${typeOf(fetch)}`, "invalid_options");
  if (name !== undefined) text(name, "name");
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
  headerSource(upstream, "upstream");
  headerSource(cache, "cache");
  if (typeof cache.confirmed !== "function") {
    throw new InputError("cache must have confirmed(height, hex), where it keeps the headers the verifier confirmed", "no_header_source");
  }
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

/** `createdAt`, or now; the module refuses what is not whole seconds (milliseconds included). */
function seconds(createdAt) {
  return createdAt ?? Math.floor(Date.now() / 1000);
}

/** The event as a NIP-07 `signEvent` takes it: without pubkey and id when no pubkey was given. */
function event(json) {
  return JSON.parse(json);
}

/**
 * The unsigned content event (kind 1 note by default, 30023 article with
 * `d`, ...) of `text` by `pubkey` (hex), with its `X` tag and (unless
 * `fuzzyTags` is false) the fuzzy discovery `B` tags (its simhash-doc-v2
 * value and keys) of a text of 100 words or more (two letters of Chinese,
 * Japanese, Thai… counting as one): what `window.nostr.signEvent` takes.
 * Without `pubkey`, the template a NIP-07 signer completes (no `pubkey`, no `id`). `createdAt`:
 * whole seconds (default: now). Refused before signing when the signed
 * event would be larger than priorart's readers take (`event_too_large`).
 */
export function contentEvent(options) {
  const { kind = 1, text: body, d, title, createdAt, pubkey, fuzzyTags = true } = optionsOf(options, "contentEvent's options");
  if (typeof fuzzyTags !== "boolean") throw new InputError(`fuzzyTags must be a boolean, not ${typeOf(fuzzyTags)}`, "invalid_options");
  text(body, "text");
  return event(call(() => wasm().contentEvent(kind, body, d, title, seconds(createdAt), pubkey, fuzzyTags)));
}

/**
 * The unsigned kind 1042 attestation by `pubkey` of `x` (or of `text`'s
 * X), for content of kind `kind`: what `window.nostr.signEvent` takes
 * (without `pubkey`: the template a NIP-07 signer completes).
 */
export function attestation(options) {
  const { x, text: body, kind, createdAt, pubkey } = optionsOf(options, "attestation's options");
  const value = x ?? fingerprint(text(body, "text (or x)"));
  return event(call(() => wasm().attestation(value, kind, seconds(createdAt), pubkey)));
}

/**
 * Checks what a signer returned for `request` (the unsigned event it was
 * handed) as priorart's bunker client does: the same event (kind,
 * created_at, tags, content, pubkey when the request names one), id and
 * signature valid. Returns the signed event; throws `SignedEventError`.
 */
export function checkSigned(request, signed) {
  const [requestJson, signedJson] = [jsonText(request, "request"), jsonText(signed, "signed")];
  return JSON.parse(call(() => wasm().checkSigned(requestJson, signedJson)));
}

// ---- Relays' answers, from a nostr client's subscriptions -------------------

/**
 * What one relay answered to `filter` (the discovery query:
 * `discoveryFilter(x)`), as the `RelayAnswer` that `check` takes: `relay`
 * is a nostr-tools `Relay` (anything with `url` and `subscribe(filters,
 * { onevent, oneose, onclose })`) or a promise of one (`pool.ensureRelay(url)`,
 * `Relay.connect(url)`): a promise that fails is the relay `unreachable`.
 * The answer ends with the relay's EOSE, its CLOSED, the connection's end
 * (`disconnected`) or `timeoutMs` (default 10 s); the subscription is
 * closed then. Events are kept as the client received them, at most
 * `maxEvents` (default: `priorart check`'s, `relayAnswerLimits().maxEvents`;
 * a flood ends the answer, `event_limit`); `check` verifies each one.
 */
export async function relayAnswer(relay, filter, options) {
  const { url: given, timeoutMs = 10_000, maxEvents = RELAY_ANSWER_LIMITS.maxEvents } = optionsOf(options, "relayAnswer's options");
  // setTimeout takes at most 2^31 - 1 ms (24.8 days); past it, it fires at once.
  if (typeof timeoutMs !== "number" || !(timeoutMs >= 0 && timeoutMs <= 0x7fffffff)) {
    throw new InputError("timeoutMs must be a number of milliseconds, at most 2^31 - 1", "invalid_options");
  }
  if (!Number.isInteger(maxEvents) || maxEvents < 1) throw new InputError("maxEvents must be a positive whole number", "invalid_options");
  if (!filter || typeof filter !== "object") throw new InputError(`filter must be a REQ filter object, not ${typeOf(filter)}`, "invalid_options");
  const started = Date.now();
  let connected;
  try {
    connected = await relay;
  } catch (error) {
    return { url: given ?? "", ending: { status: "unreachable", error: messageOf(error) }, events: [], answered: false, elapsed_ms: Date.now() - started };
  }
  const url = given ?? connected?.url;
  if (typeof url !== "string") throw new InputError("relayAnswer: the relay has no url (give options.url)", "invalid_options");
  if (!connected || typeof connected.subscribe !== "function") {
    throw new InputError("relayAnswer: relay must have subscribe(filters, params), as nostr-tools' Relay", "invalid_options");
  }
  const events = [];
  let answered = false;
  return new Promise((resolve) => {
    let subscription = null;
    let done = false;
    const end = (ending) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ url, ending, events, answered, elapsed_ms: Date.now() - started });
      try {
        subscription?.close();
      } catch {
        // Closing a subscription on a dropped connection may throw; the answer is complete.
      }
    };
    const timer = setTimeout(() => end({ status: "timeout" }), timeoutMs);
    try {
      subscription = connected.subscribe([filter], {
        // nostr-tools fires oneose by itself after its eoseTimeout (4.4 s by
        // default) when the relay sent none: set it past ours, so that a
        // relay without EOSE is a timeout, not an EOSE.
        eoseTimeout: Math.min(timeoutMs + 1_000, 0x7fffffff),
        onevent(event) {
          if (done) return;
          answered = true;
          events.push(event);
          if (events.length >= maxEvents) end({ status: "event_limit", limit: maxEvents });
        },
        oneose() {
          answered = true;
          end({ status: "eose" });
        },
        onclose(reason) {
          if (done) return;
          // nostr-tools marks a subscription the relay CLOSED as `closed`
          // before telling; one ended by the connection's end is not.
          if (subscription && subscription.closed === false) {
            end({ status: "disconnected", error: messageOf(reason ?? "") });
          } else {
            answered = true;
            end({ status: "closed", message: messageOf(reason ?? "") });
          }
        },
      });
    } catch (error) {
      end({ status: "disconnected", error: messageOf(error) });
    }
    if (done) subscription?.close?.();
  });
}
