// Every front end writes the same JSON: the same inputs through the CLI
// (`priorart ... --json`), the Python package (bindings/python, from the
// virtualenv .ci/python.sh installs it into, which runs before this suite)
// and this package, for explain, passages, verify, check and ots info. The
// CLI's bytes and the Python native module's are compared byte for byte;
// this package's answers (objects) and the Python dataclasses' `to_json()`
// member for member, in order, against the CLI's. Without the Python
// package: skipped, recorded like a missing peer, unless
// PRIORART_REQUIRE_PEERS=1 (CI), which makes that a failure.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SCHEMES, check, explain, memoryHeaders, verifyProofEvent } from "../index.js";
import { NIP_DATA, PACKAGE, ROOT, cli, scratch } from "./helpers.mjs";

const EVENTS = readFileSync(join(NIP_DATA, "events.jsonl"), "utf8").split("\n").filter(Boolean);
const X = readFileSync(join(NIP_DATA, "x"), "utf8").trim();
const HEADERS = Object.fromEntries(
  readdirSync(join(NIP_DATA, "headers")).map((name) => [
    Number.parseInt(name, 10),
    readFileSync(join(NIP_DATA, "headers", name), "utf8").trim(),
  ]),
);
const PYTHON = process.env.PRIORART_PYTHON ?? join(ROOT, "bindings/python/.venv/bin/python");

/** The Python package's answers to `requests` (tests/peer/python_front_end.py), or null when it is not installed. */
function python(t, requests) {
  let missing = existsSync(PYTHON) ? null : `${PYTHON} not found`;
  if (!missing) {
    try {
      execFileSync(PYTHON, ["-c", "import priorart"], { stdio: "pipe" });
    } catch {
      missing = `the priorart package is not installed in ${PYTHON}`;
    }
  }
  if (missing) {
    const line = `bindings/wasm ${t.name}: ${missing}: run .ci/python.sh first`;
    if (process.env.PRIORART_REQUIRE_PEERS === "1") throw new Error(line);
    const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "priorart-skipped.txt"), `${line}\n`, { flag: "a" });
    t.skip(line);
    return null;
  }
  const out = execFileSync(PYTHON, [join(PACKAGE, "tests/peer/python_front_end.py")], {
    input: JSON.stringify(requests),
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  return JSON.parse(out);
}

/** `json` as this package writes it back: member order and values as JSON.parse keeps them. */
const same = (json) => JSON.stringify(JSON.parse(json));

/** A header cache directory holding `headers` (height → hex). */
function headerCache(dir, name, headers) {
  const cache = join(dir, name);
  mkdirSync(cache, { recursive: true });
  for (const [height, hex] of Object.entries(headers)) writeFileSync(join(cache, `${height}.hex`), `${hex}\n`);
  return cache;
}

const TEXTS = [
  "Hello, World! Ünïcödé façade — testing the résumé of 42 things at https://example.org/x.",
  "",
  "潮汐磨坊把海水的涨落变成面粉。東京の港では、潮の満ち引きで石臼を回していた。โรงสีน้ำขึ้นน้ำลง",
  readFileSync(join(ROOT, "README.md"), "utf8").slice(0, 3000),
];

test("explain: the CLI, the Python package and this package write the same JSON", (t) => {
  const dir = scratch();
  const cases = TEXTS.flatMap((text, i) => SCHEMES.map((scheme) => ({ kind: "explain", text, scheme, i })));
  const answers = python(t, cases);
  if (!answers) return;
  cases.forEach(({ text, scheme, i }, n) => {
    const file = join(dir, `text-${i}.txt`);
    writeFileSync(file, text);
    const printed = cli(["fingerprint", "--explain", "--json", "--scheme", scheme, file]).trimEnd();
    const head = JSON.stringify({ file, input: JSON.parse(printed).input }).slice(0, -1);
    const { native, typed } = answers[n];
    // The CLI's object is the library's, after its own `file` and `input`.
    assert.equal(printed, `${head},${native.slice(1)}`, `text ${i}, ${scheme}: the CLI's bytes and Python's`);
    assert.equal(JSON.stringify(explain(text, { scheme })), same(native), `text ${i}, ${scheme}: this package`);
    assert.equal(same(typed), same(native), `text ${i}, ${scheme}: Python's dataclass`);
  });
});

test("passages: the CLI and the Python package write the same JSON", (t) => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const pairs = [
    [readme.slice(0, 4000), `Preface of ours. ${readme.slice(1500, 3500)} And an ending of our own.`],
    ["Nothing in common here at all.", "Entirely different words appear there."],
    [`${TEXTS[2]} ${TEXTS[0]}`, `前言。${TEXTS[2]}`],
  ];
  const answers = python(t, pairs.map(([a, b]) => ({ kind: "passages", a, b })));
  if (!answers) return;
  pairs.forEach(([a, b], n) => {
    const dir = scratch();
    writeFileSync(join(dir, "a"), a);
    writeFileSync(join(dir, "b"), b);
    const printed = execFileSync(process.env.PRIORART_BIN ?? join(ROOT, "target/debug/priorart"),
      ["compare", "--passages", "--json", "a", "b"], { cwd: dir, encoding: "utf8" }).trimEnd();
    const { native, typed } = answers[n];
    assert.equal(printed, native, `pair ${n}: the CLI's bytes and Python's`);
    assert.equal(same(typed), JSON.stringify(JSON.parse(native).passages), `pair ${n}: Python's dataclasses`);
  });
});

test("verify: the CLI, the Python package and this package write the same JSON", async (t) => {
  const dir = scratch();
  const sets = [["headers", HEADERS], ["none", {}]];
  const events = [...EVENTS, EVENTS[0].replace(/"content":"[^"]*"/, '"content":"tampered"'), "not json"];
  const cases = sets.flatMap(([name, set]) =>
    events.flatMap((event, i) => [undefined, "Tidal mills"].map((content) => ({
      kind: "verify", event, content, i, set, cache: headerCache(dir, name, set),
    }))));
  const answers = python(t, cases.map(({ kind, event, content, cache }) => ({ kind, event, content, cache })));
  if (!answers) return;
  for (const [n, { event, content, i, set, cache }] of cases.entries()) {
    const file = join(dir, `event-${i}.json`);
    writeFileSync(file, event);
    const args = ["verify", "--json", "--network", "regtest", "--header-cache", cache];
    if (content !== undefined) {
      writeFileSync(join(dir, "content.txt"), content);
      args.push("--content", join(dir, "content.txt"));
    }
    const printed = cli([...args, file], { expectStatus: [0, 1, 3] }).trimEnd();
    const { native, typed } = answers[n];
    const label = `event ${i}, ${Object.keys(set).length} headers, content ${content ?? "none"}`;
    assert.equal(printed, native, `${label}: the CLI's bytes and Python's`);
    const options = content === undefined ? { network: "regtest" } : { network: "regtest", content };
    // Named as the CLI names its header cache: the name is in the reports' details.
    const ours = await verifyProofEvent(event, memoryHeaders(set, { name: `header cache ${cache}` }), options);
    assert.equal(JSON.stringify(ours), same(native), `${label}: this package`);
    assert.equal(same(typed), same(native), `${label}: Python's dataclass`);
  }
});

/** `priorart relay` on a free port, with `events` published to it; its URL and a stop function. */
async function relayWith(dir, events) {
  const relay = spawn(process.env.PRIORART_BIN ?? join(ROOT, "target/debug/priorart"),
    ["relay", "--db", join(dir, "relay"), "--listen", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`priorart relay did not say its address: ${seen}`)), 20_000);
    relay.stderr.on("data", (chunk) => {
      seen += chunk;
      const found = seen.match(/ws:\/\/127\.0\.0\.1:\d+/);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    relay.on("exit", (code) => reject(new Error(`priorart relay exited (${code}): ${seen}`)));
  });
  const file = join(dir, "events.jsonl");
  writeFileSync(file, `${events.join("\n")}\n`);
  try {
    cli(["publish", "--relay", url, file]);
  } catch (error) {
    relay.kill();
    throw error;
  }
  return { url, stop: () => relay.kill() };
}

test("check: the CLI (against a relay holding the proofs), the Python package and this package write the same JSON", async (t) => {
  const dir = scratch();
  const caches = [["headers", HEADERS], ["none", {}]].map(([name, set]) => [headerCache(dir, name, set), set]);
  const { url, stop } = await relayWith(dir, EVENTS);
  try {
    const printed = caches.map(([cache]) =>
      cli(["check", "--x", X, "--relay", url, "--json", "--network", "regtest", "--header-cache", cache],
        { expectStatus: [0, 1, 2, 3] }).trimEnd());
    // What the relay answered, as the other front ends take it: its events,
    // and the CLI's own timing (the one member that depends on the run).
    const requests = printed.map((json, n) => ({
      kind: "check",
      x: X,
      cache: caches[n][0],
      answers: [{ url, ending: { status: "eose" }, events: EVENTS, elapsed_ms: JSON.parse(json).relays[0].elapsed_ms }],
    }));
    const answers = python(t, requests);
    if (!answers) return;
    for (const [n, json] of printed.entries()) {
      const { native, typed } = answers[n];
      assert.equal(json, native, `headers ${n}: the CLI's bytes and Python's`);
      const headers = memoryHeaders(caches[n][1], { name: `header cache ${caches[n][0]}` });
      const ours = await check(X, requests[n].answers, headers, "regtest");
      assert.equal(JSON.stringify(ours), same(native), `headers ${n}: this package`);
      assert.equal(same(typed), same(native), `headers ${n}: Python's dataclass`);
    }
  } finally {
    stop();
  }
});

test("ots info: the CLI and the Python package write the same JSON", (t) => {
  const data = join(ROOT, "crates/ots/tests/data");
  const dir = scratch();
  const proofs = readdirSync(data).filter((name) => name.endsWith(".ots") && name !== "empty.ots");
  const answers = python(t, proofs.map((name) => ({ kind: "ots_info", proof: join(data, name) })));
  if (!answers) return;
  proofs.forEach((name, n) => {
    copyFileSync(join(data, name), join(dir, name));
    const printed = cli(["ots", "info", "--json", join(dir, name)]).trimEnd();
    const { native, typed } = answers[n];
    assert.equal(printed, native, `${name}: the CLI's bytes and Python's`);
    assert.equal(same(typed), same(native), `${name}: Python's dataclass`);
  });
});

test("ots verify: the CLI and the Python package write the same JSON", (t) => {
  const data = join(ROOT, "crates/ots/tests/data");
  const empty = scratch();
  const cases = [];
  for (const name of readdirSync(data).filter((file) => file.endsWith(".ots") && existsSync(join(data, file.slice(0, -4))))) {
    const proof = join(data, name);
    const op = JSON.parse(cli(["ots", "info", "--json", proof])).file_hash_op;
    if (op !== "sha256") continue;
    const digest = createHash("sha256").update(readFileSync(proof.slice(0, -4))).digest("hex");
    for (const cache of [join(data, "headers"), empty]) {
      cases.push({ kind: "ots_verify", proof, digest, cache });
      cases.push({ kind: "ots_verify", proof, digest: "00".repeat(32), cache });
    }
  }
  assert.ok(cases.length >= 20, `${cases.length} cases`);
  const answers = python(t, cases);
  if (!answers) return;
  cases.forEach(({ proof, digest, cache }, n) => {
    const printed = cli(["ots", "verify", "--json", "--digest", digest, "--header-cache", cache, proof],
      { expectStatus: [0, 1, 3] }).trimEnd();
    const { native, typed } = answers[n];
    const label = `${proof}, ${digest.slice(0, 8)}, ${cache}`;
    // The CLI alone tells what to run next for a pending proof, after its error.
    const hinted = native.replace(/("error":"(?:[^"\\]|\\.)*)"/, `$1: priorart ots upgrade ${proof}"`);
    assert.ok(printed === native || (JSON.parse(native).reason === "pending" && printed === hinted),
      `${label}: the CLI's bytes and Python's\n${printed}\n${native}`);
    assert.equal(same(typed), same(native), `${label}: Python's dataclass`);
  });
});
