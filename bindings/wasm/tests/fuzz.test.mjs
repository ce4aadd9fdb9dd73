// Every export called with random JavaScript values (numbers, null,
// objects, arrays, bigints, symbols, huge strings, bytes), alone and in
// the places of valid options, for a seeded, bounded number of calls: each
// call answers or throws the package's errors (or a TypeError), never a
// WebAssembly trap, and the module's answers afterwards are still the CLI's.
// PRIORART_FUZZ_SEED and PRIORART_FUZZ_CALLS change the run.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as priorart from "../index.js";
import { NIP_DATA, cli } from "./helpers.mjs";

const SEED = Number(process.env.PRIORART_FUZZ_SEED ?? 20261128);
const CALLS = Number(process.env.PRIORART_FUZZ_CALLS ?? 10_000);
const TEXT = "Tidal mills ground grain on the estuary.";
const PUBKEY = "f15033abf09e1441b27f54982d3bd5efdb680ed3488e8d0774c3c84825090fb3";
const EVENTS = readFileSync(join(NIP_DATA, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
const X = readFileSync(join(NIP_DATA, "x"), "utf8").trim();

/** mulberry32: a small seeded generator, so that a failing run can be replayed. */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HUGE = "a".repeat(2_000_000);
const NUMBERS = [0, -0, 1, -1, 5, 7, 1.5, -1.5, 255, 256, 65535, 65536, 70000, 2 ** 31, 2 ** 32, 2 ** 53, Date.now(), NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE];
const STRINGS = ["", " ", "1", "-1", "a", "é", "\u0000", "\uFEFF", "\uD800", "mainnet", "regtest", "simhash-doc", "simhash-doc-v2", "minhash-equality-v1", "html", "epub", X, X.toUpperCase(), PUBKEY, TEXT, "0".repeat(160), "null", "{}", "[]", JSON.stringify(EVENTS[0])];
const NAMES = ["d", "title", "kind", "text", "x", "createdAt", "pubkey", "fuzzyTags", "network", "content", "scheme", "format", "name", "headerAt", "tipHeight", "confirmed", "fetch", "core", "extractor", "url", "ending", "events", "timeoutMs", "value", "length", "toString", "toJSON"];

function fuzzer(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const value = (depth = 0) => {
    switch (Math.floor(random() * (depth > 2 ? 9 : 13))) {
      case 0: return pick(NUMBERS);
      case 1: return pick(STRINGS);
      case 2: return null;
      case 3: return undefined;
      case 4: return random() < 0.5;
      case 5: return BigInt(Math.floor(random() * 2 ** 40)) * (random() < 0.5 ? -1n : 1n) * (random() < 0.1 ? 1n << 70n : 1n);
      case 6: return Symbol("fuzz");
      case 7: return random() < 0.15 ? HUGE : String.fromCharCode(...Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 0x10000)));
      case 8: return random() < 0.5 ? new Uint8Array(Math.floor(random() * 64)).map(() => random() * 256) : new ArrayBuffer(8);
      case 9: return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      case 10: return object(depth + 1);
      case 11: return () => value(depth + 1);
      default: return pick([new Date(), new Map([[1, "x"]]), new Error("x"), /x/, Promise.resolve(5), Object.create(null)]);
    }
  };
  const object = (depth = 0) => Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => [pick(NAMES), value(depth)]));
  /** A valid value or, sometimes, a random one: the fuzzed calls reach past the first check. */
  const maybe = (valid) => (random() < 0.7 ? valid : value());
  const options = (valid) => {
    if (random() < 0.2) return value();
    const result = { ...valid };
    for (const key of Object.keys(valid)) if (random() < 0.3) result[key] = value();
    if (random() < 0.3) result[pick(NAMES)] = value();
    return result;
  };
  const headers = () =>
    random() < 0.5
      ? priorart.memoryHeaders()
      : { name: maybe("fuzz"), headerAt: async () => value(), tipHeight: async () => value(), confirmed: () => value() };
  return {
    value,
    /** Each export and how to call it. */
    calls: [
      () => priorart.fingerprint(maybe(TEXT), options({ scheme: "simhash-doc" })),
      () => new priorart.Fingerprinter(maybe(["minhash-equality-v1"])).of(maybe(TEXT)),
      () => priorart.explain(maybe(TEXT), options({ scheme: "minhash-equality-v1" })),
      () => priorart.simhashDoc(maybe(TEXT), random() < 0.5 ? undefined : options({ scheme: "simhash-doc" })),
      () => priorart.hamming(maybe(1n), maybe("0000000000000")),
      () => priorart.similarity(value(), value()),
      () => priorart.discoveryFilter(maybe(X)),
      () => priorart.fuzzyDiscoveryFilter(maybe(TEXT)),
      () => priorart.contentEvent(options({ kind: 30023, text: TEXT, d: "d", title: "t", createdAt: 1, pubkey: PUBKEY, fuzzyTags: false })),
      () => priorart.attestation(options({ x: X, kind: 1, createdAt: 1, pubkey: PUBKEY })),
      () => priorart.checkSigned(maybe(EVENTS[0]), maybe(EVENTS[0])),
      () => priorart.memoryHeaders(maybe([[1, "00"]]), options({ name: "n" })),
      () => priorart.esploraHeaders(maybe("http://127.0.0.1:9"), options({ name: "n" })),
      () => priorart.cachedHeaders(maybe(priorart.memoryHeaders()), maybe(priorart.memoryHeaders())),
      () => priorart.extractHtml(maybe("<p>x</p>")),
      () => priorart.extractDocument(maybe(new TextEncoder().encode(TEXT)), options({ format: "text" })),
      () => priorart.verifyProofEvent(maybe(EVENTS[0]), headers(), options({ network: "regtest", content: TEXT })),
      () => priorart.check(maybe(X), maybe([{ url: "wss://r", ending: { status: "eose" }, events: EVENTS }]), headers(), options({ network: "regtest" })),
      () => priorart.check(maybe(X), maybe([]), headers(), "regtest", options({ text: TEXT, keyAnswers: [], proofAnswers: [] })),
      () => priorart.nearCopiesProofFilter(maybe(TEXT), maybe([{ url: "wss://r", ending: { status: "eose" }, events: EVENTS }])),
      () => priorart.relayAnswer({ url: maybe("wss://r"), subscribe: (_, p) => (p.oneose(), { close() {} }) }, maybe({ kinds: [1] }), options({ timeoutMs: 1 })),
      () => priorart.init(options({})),
    ],
  };
}

test(`${CALLS} calls of every export with random values (seed ${SEED}): no trap, the CLI's answers afterwards`, async () => {
  const random = generator(SEED);
  const { calls } = fuzzer(random);
  const outcomes = { answered: 0, refused: 0, typeErrors: 0 };
  const typeErrors = new Set();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const which = Math.floor(random() * calls.length);
    try {
      const answer = calls[which]();
      if (answer && typeof answer.then === "function") await answer;
      outcomes.answered++;
    } catch (error) {
      if (error instanceof priorart.PriorartError) outcomes.refused++;
      else if (error instanceof TypeError) {
        outcomes.typeErrors++;
        typeErrors.add(error.message.replace(/\d+/g, "N").slice(0, 120));
      }
      else assert.fail(`call ${i} (export #${which}, seed ${SEED}) threw ${error?.constructor?.name}: ${String(error?.message).slice(0, 300)}`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`fuzz: ${CALLS} calls in ${seconds.toFixed(1)} s (seed ${SEED}): ${JSON.stringify(outcomes)}, 0 traps`);
  console.log(`fuzz: the TypeErrors (JavaScript's own, on values no API takes): ${[...typeErrors].join(" | ")}`);
  assert.ok(outcomes.answered > CALLS / 10 && outcomes.refused > CALLS / 10, JSON.stringify(outcomes));

  // The module is intact: the CLI's X, a proof still valid, an event still built.
  assert.equal(priorart.fingerprint(TEXT), cli(["fingerprint", "-"], { input: TEXT }).split(/\s+/)[0]);
  const headers = priorart.memoryHeaders(
    readdirSync(join(NIP_DATA, "headers")).map((name) => [Number.parseInt(name, 10), readFileSync(join(NIP_DATA, "headers", name), "utf8").trim()]),
  );
  assert.equal(priorart.contentEvent({ text: TEXT, createdAt: 1, pubkey: PUBKEY }).tags[0][1], priorart.fingerprint(TEXT));
  const report = await priorart.verifyProofEvent(EVENTS[0], headers, "regtest");
  assert.equal(report.verdict, "valid", JSON.stringify(report.steps));
});
