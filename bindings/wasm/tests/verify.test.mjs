// The verifier through the package: every attack and tamper case gives the
// report `priorart verify --json` gives, byte for byte, against the same
// headers (a header cache, or an Esplora server on 127.0.0.1); `check`
// ranks the same proofs. Fixtures: the regtest proofs of
// bindings/python/tests/data/nip (see its README).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { InputError, attestation, check, esploraHeaders, memoryHeaders, verifyEvent } from "../index.js";
import { NIP_DATA, ROOT, cli, scratch } from "./helpers.mjs";

const EVENTS = readFileSync(join(NIP_DATA, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
const X = readFileSync(join(NIP_DATA, "x"), "utf8").trim();
const HEADERS = Object.fromEntries(
  readdirSync(join(NIP_DATA, "headers")).map((name) => [
    Number.parseInt(name, 10),
    readFileSync(join(NIP_DATA, "headers", name), "utf8").trim(),
  ]),
);

/** nostr-tools (installed by .ci/setup.d/nip.sh) signs the forged events. */
async function nostrTools() {
  try {
    const resolve = createRequire(join(ROOT, "crates/nip/tests/peer/package.json")).resolve;
    const tools = await import(pathToFileURL(resolve("nostr-tools/pure")).href);
    return tools.generateSecretKey ? tools : tools.default;
  } catch (error) {
    const line = "bindings/wasm verify.test.mjs: nostr-tools is not installed: run .ci/setup.d/nip.sh";
    if (process.env.PRIORART_REQUIRE_PEERS === "1") throw new Error(line, { cause: error });
    const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "priorart-skipped.txt"), `${line}\n`, { flag: "a" });
    return null;
  }
}

const tagged = (event, name, value) => ({
  ...event,
  tags: event.tags.map((tag) => (tag[0] === name ? [name, ...value] : tag)),
});
const descriptionOf = (event) => JSON.parse(event.tags.find((tag) => tag[0] === "description")[1]);

/** Each case: a name and the event as sent (an object or raw text). */
async function cases() {
  const [alice, bob] = EVENTS;
  const list = EVENTS.map((event, i) => [`honest proof ${i}`, event]);
  const description = descriptionOf(alice);
  list.push(
    ["the 1041's own signature broken (a warning)", { ...alice, sig: alice.sig.replace(/^./, (c) => (c === "0" ? "1" : "0")) }],
    ["proof bytes changed", { ...alice, content: `${alice.content.slice(0, -8)}AAAAAAA=` }],
    ["content not base64", { ...alice, content: "not a proof!" }],
    ["another proof's bytes (the stolen blob, unsigned)", { ...alice, content: bob.content }],
    ["X tag not the attested X", tagged(alice, "X", ["0".repeat(64), "minhash-equality-v1"])],
    ["attestation tampered", tagged(alice, "description", [JSON.stringify({ ...description, created_at: description.created_at + 1 })])],
    ["attestation of another kind", tagged(alice, "description", [JSON.stringify({ ...description, kind: 1 })])],
    ["description not JSON", tagged(alice, "description", ["{"])],
    ["p tag not the author", tagged(alice, "p", [bob.pubkey])],
    ["k tag differs (a warning)", tagged(alice, "k", ["30023"])],
    ["not a kind 1041", { ...alice, kind: 1 }],
    ["not JSON", "this is not an event"],
    ["oversized", { ...alice, content: "A".repeat(300_000) }],
  );
  const tools = await nostrTools();
  if (tools) {
    // Signed forgeries: the thief's own valid events around the victim's proof.
    const thief = tools.generateSecretKey();
    const thiefKey = tools.getPublicKey(thief);
    const own = tools.finalizeEvent(attestation({ x: X, kind: 1, createdAt: 1_795_564_304, pubkey: thiefKey }), thief);
    const signed = (template) => tools.finalizeEvent({ created_at: alice.created_at, ...template }, thief);
    const reference = [["e", "0".repeat(63) + "2"], ["p", thiefKey], ["k", "1"], ["X", X, "minhash-equality-v1"]];
    list.push(
      ["attack a: the victim's proof under the thief's attestation", signed({ kind: 1041, content: alice.content, tags: [...reference, ["description", JSON.stringify(own)]] })],
      ["attack a: the victim's attestation under the thief's reference", signed({ kind: 1041, content: alice.content, tags: [...reference, ["description", JSON.stringify(description)]] })],
      ["the thief's attestation, no proof of it", signed({ kind: 1041, content: bob.content, tags: [...reference, ["description", JSON.stringify(own)]] })],
    );
  }
  return list;
}

/** Header sets: the fixture's, none, and lying ones. */
function headerSets() {
  const attested = 1; // the block of the first proof
  const flipped = (hex, at) => hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);
  return [
    ["the fixture's headers", HEADERS],
    ["no headers", {}],
    ["another block served at a height", { ...HEADERS, [attested]: HEADERS[attested + 1] }],
    ["a header with another merkle root", { ...HEADERS, [attested]: flipped(HEADERS[attested], 80) }],
    ["a header that does not link (forge count)", { ...HEADERS, [attested + 1]: flipped(HEADERS[attested + 1], 10) }],
  ];
}

test("every case, against every header set, is the CLI's report byte for byte", async () => {
  const dir = scratch();
  let compared = 0;
  for (const [setName, set] of headerSets()) {
    for (const [caseName, event] of await cases()) {
      const cache = join(dir, `cache-${compared}`);
      mkdirSync(cache);
      for (const [height, hex] of Object.entries(set)) writeFileSync(join(cache, `${height}.hex`), `${hex}\n`);
      const file = join(dir, `event-${compared}.json`);
      const text = typeof event === "string" ? event : JSON.stringify(event);
      writeFileSync(file, text);
      const expected = cli(["verify", "--json", "--network", "regtest", "--header-cache", cache, file], { expectStatus: [0, 1, 3] });
      const headers = memoryHeaders(set, { name: `header cache ${cache}` });
      const report = await verifyEvent(text, headers, { network: "regtest" });
      assert.equal(`${JSON.stringify(report)}\n`, `${JSON.stringify(JSON.parse(expected))}\n`, `${caseName}, ${setName}`);
      compared++;
    }
  }
  assert.ok(compared >= 5 * 16, `${compared} comparisons`);
});

test("an Esplora server: headers fetched in rounds, checked, the CLI's report; the cache keeps only confirmed ones", async () => {
  const requests = [];
  const server = createServer((request, response) => {
    requests.push(request.url);
    const tip = Math.max(...Object.keys(HEADERS).map(Number));
    const height = request.url.match(/^\/block-height\/(\d+)$/)?.[1];
    const hash = request.url.match(/^\/block\/([0-9a-f]{64})\/header$/)?.[1];
    let body = null;
    if (request.url === "/blocks/tip/height") body = String(tip);
    else if (height !== undefined && HEADERS[height]) body = blockHash(HEADERS[height]);
    else if (hash) body = Object.values(HEADERS).find((hex) => blockHash(hex) === hash) ?? null;
    response.writeHead(body === null ? 404 : 200, { "content-type": "text/plain" });
    response.end(body ?? "Block not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  try {
    const dir = scratch();
    for (const [i, event] of EVENTS.entries()) {
      const file = join(dir, `event-${i}.json`);
      writeFileSync(file, JSON.stringify(event));
      // The CLI runs while this process serves it: asynchronously.
      const { stdout } = await promisify(execFile)(process.env.PRIORART_BIN ?? join(ROOT, "target/debug/priorart"),
        ["verify", "--json", "--network", "regtest", "--esplora", url, "--no-header-cache", file]);
      const cache = memoryHeaders();
      const report = await verifyEvent(event, esploraHeaders(url), "regtest");
      assert.equal(JSON.stringify(report), JSON.stringify(JSON.parse(stdout)), `event ${i}`);
      assert.equal(report.verdict, "valid");
      const cached = await verifyEvent(event, { ...esploraHeaders(url), confirmed: cache.confirmed }, "regtest");
      assert.deepEqual(cached, report);
      assert.ok(cache.size >= 1, "the confirmed headers were handed to the cache");
      for (const height of Object.keys(HEADERS).map(Number)) {
        const held = await cache.headerAt(height);
        if (held !== null) assert.equal(held, HEADERS[height], `cached header ${height}`);
      }
    }
    assert.ok(requests.includes("/blocks/tip/height"));
  } finally {
    server.close();
  }
});

test("a header source that fails or lies never makes a proof valid", async () => {
  const failing = { name: "flaky", headerAt: async () => { throw new Error("connection refused"); } };
  const report = await verifyEvent(EVENTS[0], failing, "regtest");
  assert.equal(report.verdict, "unverified");
  assert.match(JSON.stringify(report), /flaky is unavailable/);
  const liar = { name: "liar", headerAt: async (height) => HEADERS[height + 1] ?? null, tipHeight: async () => 1000 };
  assert.equal((await verifyEvent(EVENTS[0], liar, "regtest")).verdict, "invalid");
  const garbage = await verifyEvent(EVENTS[0], memoryHeaders({ ...HEADERS, 1: "00ff" }, { name: "garbage" }), "regtest");
  assert.equal(garbage.verdict, "unverified");
  assert.match(JSON.stringify(garbage), /garbage: unexpected answer: block 1: not an 80-byte header in hex/);
  await assert.rejects(verifyEvent(EVENTS[0], {}, "regtest"), InputError);
  await assert.rejects(verifyEvent(EVENTS[0], memoryHeaders(HEADERS), "testnet"), (error) => error.reason === "unknown_network");
});

test("check ranks the proofs by block, says what it skipped, and holds verifyEvent's reports", async () => {
  const headers = memoryHeaders(HEADERS);
  const forged = { ...EVENTS[0], content: `${EVENTS[0].content.slice(0, -4)}AAAA` };
  // The id of a kept event with another signature: each distinct event's
  // signature is verified once across relays, never assumed from its id.
  const badSignature = (event) => ({ ...event, sig: `${event.sig.slice(0, -2)}${event.sig.endsWith("00") ? "01" : "00"}` });
  const answers = [
    { url: "wss://one.example", ending: { status: "eose" }, events: EVENTS },
    { url: "wss://two.example", ending: { status: "eose" }, events: [JSON.stringify(EVENTS[0]), forged, "not json", badSignature(EVENTS[1])] },
    { url: "wss://slow.example", ending: { status: "timeout" }, events: [] },
    { url: "wss://three.example", ending: { status: "eose" }, events: [badSignature(EVENTS[0]), EVENTS[0]] },
  ];
  const report = await check(X, answers, headers, "regtest");
  assert.equal(report.format, "priorart-check/1");
  assert.equal(report.x, X);
  assert.equal(report.verdict.status, "proven");
  const heights = report.proofs.map((proof) => proof.block.height);
  assert.deepEqual(heights, [...heights].sort((a, b) => a - b));
  assert.deepEqual(report.proofs.map((proof) => proof.rank), heights.map((_, i) => i + 1));
  assert.equal(report.proofs.length, EVENTS.length);
  for (const proof of report.proofs) {
    const event = EVENTS.find((e) => e.id === proof.event_id);
    assert.deepEqual(proof.report, await verifyEvent(event, headers, "regtest"));
  }
  assert.deepEqual(report.relays[1].skipped.map((s) => s.reason).sort(), ["bad_id", "bad_signature", "malformed_event"]);
  assert.equal(report.relays[2].ending.status, "timeout");
  assert.deepEqual(report.relays[3].skipped.map((s) => s.reason), ["bad_signature"]);
  assert.equal(report.relays[3].events, 1);
  assert.equal((await check(X, [], headers, "regtest")).verdict.status, "no_relay_asked");
  // Without headers the proofs are found and unchecked, named as such.
  const unchecked = await check(X, answers, memoryHeaders(), { network: "regtest" });
  assert.equal(unchecked.verdict.status, "unverified");
  assert.match(unchecked.verdict.text, new RegExp(`^${EVENTS.length} proofs found, none could be checked`));
  await assert.rejects(check(X, [{ url: "wss://r" }], headers, "regtest"), (error) => error instanceof InputError && error.reason === "invalid_answers");
  await assert.rejects(check("nope", answers, headers, "regtest"), (error) => error.reason === "invalid_x");
});

/** A block's hash (the hex of its double SHA-256, reversed), as Esplora names it. */
function blockHash(hex) {
  const { createHash } = createRequire(import.meta.url)("node:crypto");
  const once = createHash("sha256").update(Buffer.from(hex, "hex")).digest();
  return Buffer.from(createHash("sha256").update(once).digest()).reverse().toString("hex");
}
