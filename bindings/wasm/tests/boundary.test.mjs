// What a JavaScript caller can pass that is not what the API takes: every
// case the issue named (a number where a string belongs crashed the module:
// wasm-bindgen's release glue corrupted its heap), silent coercions (kinds
// wrapped, milliseconds taken as seconds), limits checked before signing,
// bounded messages, and the rest of a client's day (NIP-07 templates
// without pubkey, iterables of headers, freed fingerprinters).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  EventError,
  Fingerprinter,
  InputError,
  PriorartError,
  attestation,
  check,
  checkSigned,
  contentEvent,
  discoveryFilter,
  explain,
  extractDocument,
  fingerprint,
  init,
  memoryHeaders,
  relayAnswer,
  simhashDoc,
  verifyEvent,
  verifyProofEvent,
} from "../index.js";
import { NIP_DATA, PACKAGE, cli } from "./helpers.mjs";

const TEXT = "Tidal mills ground grain on the estuary.";
const PUBKEY = "f15033abf09e1441b27f54982d3bd5efdb680ed3488e8d0774c3c84825090fb3";
const EVENTS = readFileSync(join(NIP_DATA, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
const X = readFileSync(join(NIP_DATA, "x"), "utf8").trim();
const HEADERS = memoryHeaders();

/** `work` throws a PriorartError of `Class` whose message names `name` (and, given, whose reason is `reason`). */
async function refused(work, Class, name, reason) {
  await assert.rejects(
    async () => work(),
    (error) => {
      assert.ok(error instanceof Class, `${error?.constructor?.name}: ${error?.message}`);
      assert.ok(error instanceof PriorartError);
      assert.ok(error.message.includes(name), `"${error.message}" does not name ${name}`);
      if (reason) assert.equal(error.reason, reason, error.message);
      return true;
    },
  );
}

test("a number (or any non-string) where a string belongs is refused, naming the option", async () => {
  await refused(() => contentEvent({ text: TEXT, d: 7, kind: 30023, pubkey: PUBKEY }), InputError, "d", "not_a_string");
  await refused(() => contentEvent({ text: TEXT, title: 5, pubkey: PUBKEY }), InputError, "title", "not_a_string");
  await refused(() => contentEvent({ text: 5, pubkey: PUBKEY }), InputError, "text", "not_a_string");
  await refused(() => contentEvent({ text: TEXT, pubkey: 5 }), InputError, "pubkey", "not_a_string");
  await refused(() => attestation({ x: 5, pubkey: PUBKEY }), InputError, "x", "not_a_string");
  await refused(() => verifyEvent(EVENTS[0], HEADERS, { network: 5 }), InputError, "network", "not_a_string");
  await refused(() => verifyEvent(EVENTS[0], HEADERS, { content: 5 }), InputError, "content", "not_a_string");
  await refused(() => check(X, [], HEADERS, { network: 5 }), InputError, "network", "not_a_string");
  await refused(() => check(5, [], HEADERS), InputError, "x", "not_a_string");
  await refused(() => verifyEvent(EVENTS[0], { name: 5, headerAt: async () => null }), InputError, "name", "not_a_string");
  await refused(() => extractDocument("text", { format: 5 }), InputError, "format", "not_a_string");
  await refused(() => explain(TEXT, { scheme: 5 }), InputError, "scheme", "unknown_scheme");
  await refused(() => fingerprint(TEXT, { scheme: 5 }), InputError, "scheme", "unknown_scheme");
  await refused(() => simhashDoc(TEXT, { scheme: 5 }), InputError, "scheme", "unknown_scheme");
  await refused(() => simhashDoc(TEXT, { scheme: "simhash-doc-v3" }), InputError, "simhash-doc-v3", "unknown_scheme");
  await refused(() => simhashDoc(TEXT, { scheme: "minhash-equality-v1" }), InputError, "minhash-equality-v1", "not_a_simhash_doc_scheme");
  await refused(() => simhashDoc(TEXT, "simhash-doc"), InputError, "options", "invalid_options");
  await refused(() => simhashDoc(5), InputError, "text", "not_a_string");
  await refused(() => fingerprint(TEXT, null), InputError, "options", "invalid_options");
  await refused(() => fingerprint(null), InputError, "text", "not_a_string");
  await refused(() => discoveryFilter({}), InputError, "x", "not_a_string");
  await refused(() => new Fingerprinter([5]), InputError, "scheme", "unknown_scheme");
  await refused(() => new Fingerprinter("minhash-equality-v1"), InputError, "schemes", "unknown_scheme");
  await refused(() => checkSigned(5, 5), InputError, "request", "not_json");
  // A pubkey is 64 lowercase hex digits: rust-nostr's parser alone read the first 64 of longer ones.
  for (const pubkey of [PUBKEY + PUBKEY, PUBKEY.toUpperCase(), `${PUBKEY}0`, "a".repeat(10_000)]) {
    await refused(() => contentEvent({ text: TEXT, pubkey }), InputError, "pubkey", "invalid_pubkey");
    await refused(() => attestation({ x: X, pubkey }), InputError, "pubkey", "invalid_pubkey");
  }
  await refused(() => memoryHeaders([[1, 5]]), InputError, "header", "not_a_string");
  // The same calls, many times over: the crash came within 3 to 60 calls.
  for (let i = 0; i < 200; i++) {
    await refused(() => verifyEvent(EVENTS[0], HEADERS, { network: 5 }), InputError, "network");
    await refused(() => contentEvent({ text: TEXT, d: i, kind: 30023, pubkey: PUBKEY }), InputError, "d");
  }
  assert.equal(fingerprint(TEXT), cli(["fingerprint", "-"], { input: TEXT }).split(/\s+/)[0], "the module still answers");
});

test("kinds and timestamps are taken only as they are: no wrapping, rounding, parsing, or milliseconds", async () => {
  for (const kind of [-1, 70000, 1.5, "1", NaN, Infinity, null, true, 10n]) {
    await refused(() => contentEvent({ text: TEXT, kind, pubkey: PUBKEY }), InputError, "kind", "invalid_kind");
  }
  for (const kind of [-1, 70000, 1.5, "a", "1"]) {
    await refused(() => attestation({ x: X, kind, pubkey: PUBKEY }), InputError, "kind", "invalid_kind");
  }
  assert.deepEqual(attestation({ x: X, kind: 65535, createdAt: 1, pubkey: PUBKEY }).tags.at(-1), ["k", "65535"]);
  assert.equal(contentEvent({ text: TEXT, kind: 0, createdAt: 1, pubkey: PUBKEY }).kind, 0);
  for (const createdAt of [Date.now(), -1, 1.5, "1700000000", NaN, 2 ** 32, {}]) {
    await refused(() => contentEvent({ text: TEXT, createdAt, pubkey: PUBKEY }), InputError, "createdAt", "out_of_range");
  }
  await assert.rejects(async () => contentEvent({ text: TEXT, createdAt: Date.now(), pubkey: PUBKEY }), /milliseconds\? divide by 1000/);
  assert.equal(contentEvent({ text: TEXT, createdAt: 2 ** 32 - 1, pubkey: PUBKEY }).created_at, 2 ** 32 - 1);
  await refused(() => contentEvent({ text: TEXT, pubkey: PUBKEY, fuzzyTags: "no" }), InputError, "fuzzyTags", "invalid_options");
});

test("an event that would be too large once signed is refused before signing", async () => {
  await refused(() => contentEvent({ text: "x".repeat(2_000_000), pubkey: PUBKEY }), EventError, "bytes", "event_too_large");
  // Just under the limit (512 KiB less the room signing takes) is built; its signed form passes checkSigned's limit.
  const fits = contentEvent({ text: "word ".repeat(100_000), pubkey: PUBKEY, createdAt: 1 });
  assert.ok(JSON.stringify(fits).length + 300 < 512 * 1024);
  await refused(() => contentEvent({ text: "é".repeat(262_000), pubkey: PUBKEY }), EventError, "bytes", "event_too_large");
});

test("no message echoes a whole input", async () => {
  const huge = "a".repeat(10_000_000);
  const attempts = [
    () => discoveryFilter(huge),
    () => attestation({ x: huge, pubkey: PUBKEY }),
    () => contentEvent({ text: TEXT, pubkey: huge }),
    () => fingerprint(TEXT, { scheme: huge }),
    () => explain(TEXT, { scheme: huge }),
    () => verifyEvent(EVENTS[0], HEADERS, huge),
    () => checkSigned(huge, huge),
    () => extractDocument("x", { format: huge }),
    () => memoryHeaders([[huge, "00"]]),
  ];
  for (const attempt of attempts) {
    await assert.rejects(async () => attempt(), (error) => {
      assert.ok(error instanceof PriorartError, String(error));
      assert.ok(error.message.length <= 301, `${error.message.length} characters: ${error.message.slice(0, 100)}`);
      return true;
    });
  }
});

test("contentEvent and attestation without pubkey: the template a NIP-07 signer completes", () => {
  const template = contentEvent({ kind: 30023, text: TEXT, d: "mills", createdAt: 1_700_000_000 });
  assert.deepEqual(Object.keys(template).sort(), ["content", "created_at", "kind", "tags"]);
  const full = contentEvent({ kind: 30023, text: TEXT, d: "mills", createdAt: 1_700_000_000, pubkey: PUBKEY });
  const { pubkey: _, id: __, ...rest } = full;
  assert.deepEqual(template, rest, "the same event but its pubkey and id");
  const attest = attestation({ text: TEXT, kind: 1, createdAt: 2 });
  assert.deepEqual(Object.keys(attest).sort(), ["content", "created_at", "kind", "tags"]);
  assert.equal(attest.kind, 1042);
});

test("memoryHeaders reads any iterable; its heights and headers are checked", async () => {
  const entries = [
    [1, "a".repeat(160)],
    [2, "b".repeat(160)],
  ];
  function* generate() {
    yield* entries;
  }
  for (const source of [entries, new Map(entries), new Map(entries).entries(), generate(), { 1: "a".repeat(160), 2: "b".repeat(160) }]) {
    const headers = memoryHeaders(source);
    assert.equal(headers.size, 2);
    assert.equal(await headers.headerAt(2), "b".repeat(160));
    assert.deepEqual(await headers.tipHeight(), { height: 2, asFarAsHeld: true });
  }
  await refused(() => memoryHeaders([[-1, "00"]]), InputError, "memoryHeaders", "invalid_height");
  await refused(() => memoryHeaders([[1.5, "00"]]), InputError, "memoryHeaders", "invalid_height");
  await refused(() => memoryHeaders(5), InputError, "entries", "invalid_headers");
  await refused(() => memoryHeaders([1, 2]), InputError, "pair", "invalid_headers");
  // Many headers: the tip is computed without spreading them as arguments.
  const many = memoryHeaders(Array.from({ length: 200_000 }, (_, i) => [i, "00"]));
  assert.equal((await many.tipHeight()).height, 199_999);
});

test("a freed Fingerprinter gives the package's error; unfreed ones cost the module no memory", async () => {
  const kept = new Fingerprinter(["minhash-equality-v1", "simhash-doc"]);
  const [x] = kept.of(TEXT);
  assert.equal(x, fingerprint(TEXT));
  kept.free();
  assert.throws(() => kept.of(TEXT), (error) => error instanceof InputError && error.reason === "freed");
  kept.free(); // twice is harmless
  // Ten thousand forgotten fingerprinters, each used once: the module's
  // memory does not grow with them (it grew to 1.2 GiB when each held a
  // fingerprinter of its own, freed only by a garbage collection that the
  // small JavaScript wrappers never triggered).
  const { memory } = await (await import("../pkg/priorart_wasm.js")).default();
  const before = memory.buffer.byteLength;
  for (let i = 0; i < 10_000; i++) new Fingerprinter(["minhash-equality-v1", "simhash-doc"]).of(`${TEXT} ${i}`);
  const grown = memory.buffer.byteLength - before;
  assert.ok(grown < 16 * 1024 * 1024, `the module grew by ${grown} bytes`);
});

test("require() loads the package (no top-level await), by its name", () => {
  const x = execFileSync(process.execPath, ["-e", `process.stdout.write(require("priorart").fingerprint(${JSON.stringify(TEXT)}))`], {
    cwd: PACKAGE,
    encoding: "utf8",
  });
  assert.equal(x, fingerprint(TEXT));
});

test("the new names: verifyProofEvent (verifyEvent kept as its alias), init resolves in Node", async () => {
  assert.equal(verifyEvent, verifyProofEvent);
  await init();
  await init();
  assert.throws(() => init(5), TypeError);
});

test("relayAnswer: a nostr-tools-style subscription to the RelayAnswer check takes", async () => {
  const filter = discoveryFilter(X);
  /** A relay as nostr-tools' AbstractRelay behaves: events, then EOSE, CLOSED or nothing. */
  const relay = (url, script) => ({
    url,
    closed: 0,
    subscribe(filters, params) {
      assert.deepEqual(filters, [filter]);
      // Past the answer's own timeout, so that nostr-tools never fakes an EOSE first.
      assert.ok(params.eoseTimeout > 50, `eoseTimeout ${params.eoseTimeout}`);
      const subscription = { closed: false, close: () => this.closed++ };
      queueMicrotask(() => script(params, subscription));
      return subscription;
    },
  });
  const eose = relay("wss://one", (p) => {
    for (const event of EVENTS) p.onevent(event);
    p.oneose();
  });
  // As nostr-tools reports a relay's CLOSED (the subscription marked closed first) and a dropped connection.
  const closed = relay("wss://two", (p, subscription) => {
    subscription.closed = true;
    p.onclose("blocked: no");
  });
  const dropped = relay("wss://five", (p) => p.onclose("relay connection closed"));
  const silent = relay("wss://three", () => {});
  const answers = await Promise.all([
    relayAnswer(eose, filter),
    relayAnswer(closed, filter),
    relayAnswer(silent, filter, { timeoutMs: 50 }),
    relayAnswer(Promise.reject(new Error("connection refused")), filter, { url: "wss://four" }),
    relayAnswer(dropped, filter),
  ]);
  assert.deepEqual(
    answers.map((answer) => [answer.url, answer.ending, answer.events.length, answer.answered]),
    [
      ["wss://one", { status: "eose" }, EVENTS.length, true],
      ["wss://two", { status: "closed", message: "blocked: no" }, 0, true],
      ["wss://three", { status: "timeout" }, 0, false],
      ["wss://four", { status: "unreachable", error: "connection refused" }, 0, false],
      ["wss://five", { status: "disconnected", error: "relay connection closed" }, 0, false],
    ],
  );
  assert.equal(eose.closed, 1, "the subscription is closed once the answer ended");
  // check takes them as they are: the proofs are found.
  const report = await check(X, answers, HEADERS, "regtest");
  assert.deepEqual(report.relays.map((summary) => summary.ending.status), ["eose", "closed", "timeout", "unreachable", "disconnected"]);
  assert.equal(report.relays[0].events, EVENTS.length);
});
