#!/usr/bin/env node
// Throughput of the npm package (bindings/wasm, WebAssembly) against a
// JavaScript implementation of the same fingerprint, in the same Node
// process, on the shared vectors and on the Debian corpus; and the size of
// its two modules. Build the package first (scripts/build/wasm.sh).
//
//   node scripts/bench/wasm.mjs [--corpus $PRIORART_CORPUS/docs.jsonl] [--docs N] [--rounds R]
//
// The JavaScript baseline: simhash-ts, the NIP's reference, is not on the
// npm registry, so the peer is crates/fingerprint/tests/peer/equality-oracle.js,
// the NIP's rules written for Node (String.normalize, the engine's Unicode
// regexes, and node:crypto's native SHA-256, where simhash-ts hashes in
// JavaScript with @noble/hashes): the same algorithm, and no slower than
// the reference. Each is checked to give the same X on every text before it
// is timed; the best of R rounds is kept (other tenants share the machine).
import { createRequire } from "node:module";
import { readFileSync, existsSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const corpusPath = option("--corpus", `${process.env.PRIORART_CORPUS ?? "/tmp/priorart-corpus"}/docs.jsonl`);
const maxDocs = Number(option("--docs", "Infinity"));
const rounds = Number(option("--rounds", "3"));

const { Fingerprinter, fingerprint } = await import(`${root}bindings/wasm/index.js`);
const oracle = createRequire(import.meta.url)(`${root}crates/fingerprint/tests/peer/equality-oracle.js`);

const utf8 = (texts) => texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);

/** Best seconds of `rounds` passes of `fn` over every text. */
function best(texts, fn) {
  let fastest = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (const text of texts) fn(text);
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return fastest;
}

function measure(name, texts) {
  const kept = new Fingerprinter(["minhash-equality-v1"]);
  for (const text of texts) {
    const ours = kept.of(text)[0];
    if (ours !== oracle.minhashEquality(text)) throw new Error(`${name}: the two differ on a text`);
  }
  const bytes = utf8(texts);
  const wasmKept = best(texts, (text) => kept.of(text));
  const wasmCall = best(texts, (text) => fingerprint(text));
  const js = best(texts, (text) => oracle.minhashEquality(text));
  kept.free();
  const mbs = (seconds) => (bytes / 1e6 / seconds).toFixed(1);
  console.log(`| ${name} | ${texts.length} texts, ${(bytes / 1e6).toFixed(1)} MB | ${mbs(wasmKept)} MB/s | ${mbs(wasmCall)} MB/s | ${mbs(js)} MB/s | ${(js / wasmKept).toFixed(1)}× | ${(js / wasmCall).toFixed(1)}× |`);
}

console.log(`Node ${process.version}, ${cpus()[0].model}, ${cpus().length} cores; best of ${rounds} rounds`);
for (const [module, file] of [["core", "priorart_wasm_bg.wasm"], ["extraction", "priorart_extract_bg.wasm"]]) {
  const wasmBytes = readFileSync(`${root}bindings/wasm/pkg/${file}`);
  console.log(`${module} module: ${wasmBytes.length} bytes, ${gzipSync(wasmBytes, { level: 9 }).length} gzipped (gzip -9)`);
}
console.log();
console.log("| input | size | package, kept Fingerprinter | package, fingerprint() per text | JavaScript (equality-oracle.js) | ratio, kept | ratio, per call |");
console.log("|---|---|---|---|---|---|---|");
const vectors = JSON.parse(readFileSync(`${root}vectors/equality-vectors.json`, "utf8")).cases.map((c) => c.input);
measure("shared vectors (vectors/equality-vectors.json)", vectors);
if (existsSync(corpusPath)) {
  const docs = [];
  for (const line of readFileSync(corpusPath, "utf8").split("\n")) {
    if (docs.length >= maxDocs) break;
    if (line) docs.push(JSON.parse(line).text);
  }
  measure(`Debian corpus (${corpusPath})`, docs);
} else {
  console.log(`(no corpus at ${corpusPath}: build it with scripts/corpus/build.sh, or --corpus FILE)`);
}
