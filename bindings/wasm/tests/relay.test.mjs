// A client's day with a real relay: `priorart relay` on 127.0.0.1 holds the
// fixture's proofs, nostr-tools' Relay (over the `ws` package: Node 20 has
// no WebSocket) subscribes with discoveryFilter(x), relayAnswer turns each
// subscription into the RelayAnswer that check takes, and check ranks the
// proofs as with answers built by hand. An unreachable relay is
// `unreachable`. From tests/bundlers (.ci/setup.d/wasm-bundlers.sh);
// missing: skipped unless PRIORART_REQUIRE_PEERS=1.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { check, discoveryFilter, memoryHeaders, relayAnswer } from "../index.js";
import { NIP_DATA, bundlerModules, scratch } from "./helpers.mjs";

const EVENTS = readFileSync(join(NIP_DATA, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
const X = readFileSync(join(NIP_DATA, "x"), "utf8").trim();
const bin = process.env.PRIORART_BIN;

/** `priorart relay` on a free port; resolves with its URL and a stop function. */
async function startRelay() {
  const child = spawn(bin ?? "priorart", ["relay", "--db", scratch("priorart-relay-"), "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("priorart relay did not start in 60 s")), 60_000);
    createInterface({ input: child.stderr }).on("line", (line) => {
      const found = line.match(/listening on (ws:\/\/\S+)/);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`priorart relay exited (${code})`)));
  });
  return {
    url,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", done);
        child.kill("SIGTERM");
      }),
  };
}

test("nostr-tools' Relay against `priorart relay`: relayAnswer's answers, checked, rank the proofs", { timeout: 120_000 }, async (t) => {
  const require = bundlerModules(t, ["nostr-tools", "ws"]);
  if (!require) return;
  const tools = await import(pathToFileURL(require.resolve("nostr-tools/relay")).href);
  const { Relay, useWebSocketImplementation } = tools.useWebSocketImplementation ? tools : tools.default;
  const { default: WebSocket } = await import(pathToFileURL(require.resolve("ws")).href);
  useWebSocketImplementation(WebSocket);
  const relay = await startRelay();
  try {
    const publisher = await Relay.connect(relay.url);
    for (const event of EVENTS) await publisher.publish(event);
    publisher.close();

    const filter = discoveryFilter(X);
    const [answer, unreachable] = await Promise.all([
      relayAnswer(Relay.connect(relay.url), filter, { timeoutMs: 20_000 }),
      relayAnswer(Relay.connect("ws://127.0.0.1:9"), filter, { url: "ws://127.0.0.1:9" }),
    ]);
    assert.equal(answer.url.replace(/\/$/, ""), relay.url.replace(/\/$/, ""));
    assert.deepEqual(answer.ending, { status: "eose" });
    assert.deepEqual(answer.events.map((event) => event.id).sort(), EVENTS.map((event) => event.id).sort());
    assert.equal(unreachable.ending.status, "unreachable", JSON.stringify(unreachable));

    const headers = memoryHeaders(
      readdirSync(join(NIP_DATA, "headers")).map((name) => [Number.parseInt(name, 10), readFileSync(join(NIP_DATA, "headers", name), "utf8").trim()]),
    );
    const fromRelays = await check(X, [answer, unreachable], headers, "regtest");
    const byHand = await check(X, [{ url: answer.url, ending: { status: "eose" }, events: EVENTS }], headers, "regtest");
    assert.equal(fromRelays.verdict.status, "proven");
    assert.deepEqual(
      fromRelays.proofs.map((proof) => [proof.rank, proof.event_id, proof.block.height]),
      byHand.proofs.map((proof) => [proof.rank, proof.event_id, proof.block.height]),
    );
    assert.deepEqual(fromRelays.relays.map((summary) => summary.ending.status), ["eose", "unreachable"]);
  } finally {
    await relay.stop();
  }
});
