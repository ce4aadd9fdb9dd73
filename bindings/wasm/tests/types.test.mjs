// The package's declarations (index.d.ts) as a nostr client compiles them:
// a client written against nostr-tools 2.25.2's own types (its Relay,
// SimplePool, Filter, finalizeEvent) with TypeScript 5.9.3 `--strict`, and
// real reports of the package (verify and check, every fixture;
// explanations) written out as object literals of the declared types, so
// that a member the declarations lack, lack in the answer, or type wrongly
// fails to compile. The report types themselves (reports.d.ts) are generated
// from the Rust types by crates/schema, whose test holds them current. From
// tests/bundlers (.ci/setup.d/wasm-bundlers.sh); missing: skipped unless
// PRIORART_REQUIRE_PEERS=1.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { check, explain, fingerprint, memoryHeaders, verifyProofEvent } from "../index.js";
import { BUNDLERS, NIP_DATA, PACKAGE, bundlerModules } from "./helpers.mjs";

const CLIENT = `import { Relay, SimplePool, finalizeEvent, generateSecretKey, verifyEvent } from "nostr-tools";
import type { Event, EventTemplate, Filter } from "nostr-tools";
import {
  attestation, cachedHeaders, check, checkSigned, contentEvent, discoveryFilter, esploraHeaders,
  explain, fingerprint, fuzzyDiscoveryFilter, hamming, init, memoryHeaders, nearCopiesProofFilter, relayAnswer,
  simhashDoc, verifyProofEvent, SCHEMES,
} from "priorart";
import type {
  CheckReport, CheckStatus, DiscoveryFilter, EventToSign, RelayAnswer, Scheme, SimhashDocExplanation, SimhashDocScheme,
  VerifyReason, VerifyReport,
} from "priorart";

export async function client(relay: Relay, pool: SimplePool, text: string): Promise<string> {
  await init();
  const x = fingerprint(text);
  // simhash-doc-v2 by default; the frozen simhash-doc when asked.
  const schemes: SimhashDocScheme[] = ["simhash-doc-v2", "simhash-doc"];
  const values = schemes.map((scheme) => simhashDoc(text, { scheme }));
  const moved: number = hamming(simhashDoc(text), values[1] ?? 0n);
  const explained: SimhashDocExplanation = explain(text, { scheme: "simhash-doc-v2" });
  const every: readonly Scheme[] = SCHEMES;
  const v2: Scheme = "simhash-doc-v2";
  void [moved, explained.scheme, every.includes(v2), fingerprint(text, { scheme: v2 })];
  const filter: Filter = discoveryFilter(x);
  const ours: DiscoveryFilter = fuzzyDiscoveryFilter(text);
  const sub = relay.subscribe([discoveryFilter(x), ours], { onevent(event: Event) { void event; } });
  sub.close();
  const closer = pool.subscribeMany(["wss://relay.example"], discoveryFilter(x), { onevent() {} });
  closer.close();
  pool.subscribeMany(["wss://relay.example"], fuzzyDiscoveryFilter(text), { oneose() {} }).close();
  const answers: RelayAnswer[] = await Promise.all([
    relayAnswer(relay, filter),
    relayAnswer(pool.ensureRelay("wss://relay.example"), discoveryFilter(x), { url: "wss://relay.example", timeoutMs: 5000 }),
  ]);
  const headers = cachedHeaders(esploraHeaders("https://esplora.example/api"), memoryHeaders(new Map([[1, "00"]]).entries()));
  const report: CheckReport = await check(x, answers, headers);
  const status: CheckStatus = report.verdict.status;
  // The near copies, as priorart check --fuzzy: the B-key query, then the copies' proofs.
  const keyAnswers = [await relayAnswer(relay, fuzzyDiscoveryFilter(text))];
  const proofFilter = nearCopiesProofFilter(text, keyAnswers);
  const proofAnswers = proofFilter ? [await relayAnswer(relay, proofFilter)] : [];
  const withNear = await check(x, answers, headers, "mainnet", { text, keyAnswers, proofAnswers });
  const copies: number = withNear.fuzzy?.near_copies.length ?? 0;
  const height: number | undefined = report.proofs[0]?.report.bitcoin?.height;
  const days: number | undefined = report.proofs[0]?.report.cost_to_forge?.days_at_attested_hashrate;

  // A NIP-07 template (no pubkey) and nostr-tools' finalizeEvent (which
  // mutates what it is given: hand it a copy).
  const secret = generateSecretKey();
  const template: EventTemplate = contentEvent({ kind: 30023, text, d: "essay", createdAt: 1_700_000_000 });
  const signed: Event = finalizeEvent({ ...template }, secret);
  const fine: boolean = verifyEvent(signed);
  const checked: Event = checkSigned(template, signed);
  const request: EventToSign = attestation({ x, kind: 30023 });
  const proof: VerifyReport = await verifyProofEvent(finalizeEvent({ ...request }, secret), headers, "regtest");
  const reason: VerifyReason | null = proof.steps[0]?.reason ?? null;
  const warned: string[] = proof.warnings.map((warning) => warning.reason);
  return [status, copies, height, days, fine, checked.id, reason, warned.join(), proof.content?.matches_x].join(" ");
}
`;

const REPORTS = (verify, checks, explained) => `import type { CheckReport, EqualityExplanation, SimhashDocExplanation, VerifyReport } from "priorart";
export const verifyReports: VerifyReport[] = ${JSON.stringify(verify, null, 1)};
export const checkReports: CheckReport[] = ${JSON.stringify(checks, null, 1)};
export const equality: EqualityExplanation[] = ${JSON.stringify(explained.slice(0, 2), null, 1)};
export const simhashDoc: SimhashDocExplanation[] = ${JSON.stringify(explained.slice(2), null, 1)};
`;

test("a client against nostr-tools' own types, and real reports as the declared types, compile with tsc --strict", { timeout: 120_000 }, async (t) => {
  const require = bundlerModules(t, ["typescript", "nostr-tools"]);
  if (!require) return;
  const events = readFileSync(join(NIP_DATA, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  const x = readFileSync(join(NIP_DATA, "x"), "utf8").trim();
  const all = memoryHeaders(
    readdirSync(join(NIP_DATA, "headers")).map((name) => [Number.parseInt(name, 10), readFileSync(join(NIP_DATA, "headers", name), "utf8").trim()]),
  );
  const verify = [];
  for (const headers of [all, memoryHeaders()]) {
    for (const event of events) {
      verify.push(await verifyProofEvent(event, headers, { network: "regtest", content: "Tidal mills" }));
      verify.push(await verifyProofEvent({ ...event, content: "not a proof!" }, headers, "regtest"));
    }
  }
  verify.push(await verifyProofEvent("not json", all, "regtest"));
  const answers = [
    { url: "wss://one", ending: { status: "eose" }, events },
    { url: "wss://two", ending: { status: "closed", message: "no" }, events: [{ ...events[0], sig: "0".repeat(128) }] },
    { url: "wss://three", ending: { status: "timeout" }, events: [] },
  ];
  const long = Array.from({ length: 30 }, (_, i) => `The mill at site ${i} ground grain on tide ${i * 7}.`).join(" ");
  const near = { text: long, keyAnswers: [{ url: "wss://one", ending: { status: "eose" }, events: [] }], proofAnswers: [] };
  const checks = [
    await check(x, answers, all, "regtest"),
    await check(x, answers, memoryHeaders(), "regtest"),
    await check(fingerprint("nothing"), [], all, "regtest"),
    await check(x, answers, all, "regtest", near),
  ];
  assert.ok(checks[3].fuzzy, "a report with its near-copy member");
  assert.ok(verify.some((report) => report.bitcoin && report.cost_to_forge), "a report with a block and a cost to forge");
  assert.ok(checks[0].proofs.length > 0 && checks[1].unverified.length > 0, "ranked and unverified proofs");

  const dir = join(BUNDLERS, ".types");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "client.ts"), CLIENT);
  const sample = "Section 4.2 of RFC-1234: tidal mills ground grain on the estuary, said mill_keeper42.";
  const explained = [
    explain(sample),
    explain("", { scheme: "simhash-equality-v2" }),
    explain(sample, { scheme: "simhash-doc" }),
    explain(`${sample} 潮汐磨坊把海水的涨落变成面粉。`, { scheme: "simhash-doc-v2" }),
  ];
  writeFileSync(join(dir, "reports.ts"), REPORTS(verify, checks, explained));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        lib: ["ES2022", "DOM"],
        types: [],
        // The package's own declarations, as a client's `import from "priorart"` finds them.
        paths: { priorart: [join(PACKAGE, "index.d.ts")] },
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
      },
      files: ["client.ts", "reports.ts"],
    }),
  );
  const tsc = require.resolve("typescript/bin/tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    assert.fail(`tsc --strict: ${error.stdout}${error.stderr}`.slice(0, 5000));
  }
});
