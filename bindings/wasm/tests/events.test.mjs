// Events for a NIP-07 signer: built by the nip crate (the CLI's events),
// signed here by nostr-tools as a browser signer would, checked as the
// bunker path checks them.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  EventError,
  InputError,
  SignedEventError,
  attestation,
  checkSigned,
  contentEvent,
  discoveryFilter,
  fingerprint,
  fuzzyDiscoveryFilter,
} from "../index.js";
import { ROOT, cli, scratch } from "./helpers.mjs";

const TEXT = "Tidal mills ground grain on the estuary for eight centuries.\n\nTheir ponds filled at high tide.";

async function nostrTools(t) {
  try {
    const resolve = createRequire(join(ROOT, "crates/nip/tests/peer/package.json")).resolve;
    const tools = await import(pathToFileURL(resolve("nostr-tools/pure")).href);
    return tools.generateSecretKey ? tools : tools.default;
  } catch (error) {
    const line = "bindings/wasm events.test.mjs: nostr-tools is not installed: run .ci/setup.d/nip.sh";
    if (process.env.PRIORART_REQUIRE_PEERS === "1") throw new Error(line, { cause: error });
    const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "priorart-skipped.txt"), `${line}\n`, { flag: "a" });
    t.skip(line);
    return null;
  }
}

const PUBKEY = "f15033abf09e1441b27f54982d3bd5efdb680ed3488e8d0774c3c84825090fb3";

test("the unsigned events are the CLI's: the X tag, d and title, the k tag", () => {
  const note = contentEvent({ text: TEXT, createdAt: 1_700_000_000, pubkey: PUBKEY });
  assert.equal(note.kind, 1);
  assert.equal(note.content, TEXT);
  assert.equal(note.created_at, 1_700_000_000);
  assert.equal(note.pubkey, PUBKEY);
  const dir = scratch();
  writeFileSync(join(dir, "text.txt"), TEXT);
  const x = cli(["fingerprint", join(dir, "text.txt")]).split(/\s+/)[0];
  assert.deepEqual(note.tags, [["X", x, "minhash-equality-v1"]]);
  const article = contentEvent({ kind: 30023, text: TEXT, d: "mills", title: "Tidal mills", createdAt: 1, pubkey: PUBKEY });
  assert.deepEqual(article.tags, [["d", "mills"], ["title", "Tidal mills"], ["X", x, "minhash-equality-v1"]]);
  const attest = attestation({ text: TEXT, kind: 30023, createdAt: 2, pubkey: PUBKEY });
  assert.equal(attest.kind, 1042);
  assert.equal(attest.content, "");
  assert.deepEqual(attest.tags, [["X", x, "minhash-equality-v1"], ["k", "30023"]]);
  assert.deepEqual(attestation({ x, kind: 30023, createdAt: 2, pubkey: PUBKEY }), attest);
  assert.ok(Math.abs(contentEvent({ text: TEXT, pubkey: PUBKEY }).created_at - Date.now() / 1000) < 60, "now by default");
  assert.throws(() => contentEvent({ kind: 30023, text: TEXT, pubkey: PUBKEY }), (e) => e instanceof EventError && e.reason === "missing_d");
  assert.throws(() => contentEvent({ kind: 1, d: "x", text: TEXT, pubkey: PUBKEY }), (e) => e instanceof EventError && e.reason === "unexpected_d");
  assert.throws(() => contentEvent({ text: TEXT, pubkey: "npub-ish" }), (e) => e instanceof InputError && e.reason === "invalid_pubkey");
  assert.throws(() => attestation({ x: "zz", pubkey: PUBKEY }), (e) => e instanceof InputError && e.reason === "invalid_x");
  assert.throws(() => contentEvent({ text: TEXT, createdAt: -1, pubkey: PUBKEY }), (e) => e.reason === "out_of_range");
});

test("the discovery filters: X's as the NIP says, the fuzzy one asks for the B keys contentEvent writes", () => {
  const x = fingerprint(TEXT);
  const exact = discoveryFilter(x);
  assert.deepEqual(Object.keys(exact).sort(), ["#X", "kinds"]);
  assert.deepEqual(exact["#X"], [x]);
  assert.deepEqual([...exact.kinds].sort((a, b) => a - b), [1, 1041, 30023, 31337, 31338, 31339]);
  assert.throws(() => discoveryFilter("nope"), (e) => e instanceof InputError && e.reason === "invalid_x");

  const long = Array.from({ length: 30 }, (_, i) => `The mill at site ${i} ground grain on tide ${i * 7}.`).join(" ");
  const note = contentEvent({ text: long, createdAt: 1, pubkey: PUBKEY });
  const keys = note.tags.filter((tag) => tag[0] === "B" && tag.length === 2).map((tag) => tag[1]);
  assert.equal(keys.length, 28);
  const fuzzy = fuzzyDiscoveryFilter(long);
  assert.deepEqual(Object.keys(fuzzy).sort(), ["#B", "kinds"]);
  assert.deepEqual([...fuzzy["#B"]].sort(), keys.sort());
  assert.deepEqual([...fuzzy.kinds].sort((a, b) => a - b), [1, 30023, 31337, 31338, 31339]);
});

test("what a NIP-07 signer returns is checked as the bunker path checks it", async (t) => {
  const tools = await nostrTools(t);
  if (!tools) return;
  const secret = tools.generateSecretKey();
  const pubkey = tools.getPublicKey(secret);
  const request = contentEvent({ kind: 30023, text: TEXT, d: "mills", title: "Mills", createdAt: 1_700_000_000, pubkey });
  // window.nostr.signEvent takes the event without pubkey and fills it in.
  const { pubkey: _, id: __, ...template } = request;
  // As a signer hands it over: plain JSON (nostr-tools marks its own events with a symbol).
  const signed = JSON.parse(JSON.stringify(tools.finalizeEvent(template, secret)));
  assert.deepEqual(checkSigned(request, signed), signed);
  assert.deepEqual(checkSigned(JSON.stringify(template), JSON.stringify(signed)), signed, "a request without pubkey");
  const attest = attestation({ text: TEXT, kind: 30023, createdAt: 1_700_000_001, pubkey });
  const signedAttestation = tools.finalizeEvent(attest, secret);
  assert.equal(checkSigned(attest, signedAttestation).kind, 1042);
  assert.equal(attest.tags[0][1], fingerprint(TEXT));

  const other = tools.generateSecretKey();
  const refusals = [
    [tools.finalizeEvent(template, other), "signed_event_wrong_pubkey"],
    [tools.finalizeEvent({ ...template, content: `${TEXT}!` }, secret), "signed_event_different"],
    [tools.finalizeEvent({ ...template, created_at: 1_700_000_002 }, secret), "signed_event_different"],
    [tools.finalizeEvent({ ...template, tags: template.tags.slice(1) }, secret), "signed_event_different"],
    [{ ...signed, id: "0".repeat(64) }, "signed_event_bad_id"],
    [{ ...signed, sig: signed.sig.replace(/^./, (c) => (c === "0" ? "1" : "0")) }, "signed_event_bad_signature"],
    ["not an event", "signed_event_not_event"],
    [{ ...signed, content: "x".repeat(2_000_000) }, "signed_event_too_large"],
  ];
  for (const [answer, reason] of refusals) {
    assert.throws(() => checkSigned(request, answer), (e) => e instanceof SignedEventError && e.reason === reason, reason);
  }
  assert.throws(() => checkSigned({ kind: 1 }, signed), (e) => e instanceof InputError && e.reason === "invalid_request");
});
