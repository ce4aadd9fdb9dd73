// Import time of the package in Node, then its first fingerprint (ms):
//   for i in 1 2 3 4 5 6 7; do node bindings/wasm/bench/import.mjs [PACKAGE/index.js]; done | sort -n
import { pathToFileURL } from "node:url";

const target = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL("../index.js", import.meta.url).href;
const t0 = performance.now();
const p = await import(target);
const t1 = performance.now();
p.fingerprint("Tidal mills ground grain on the estuary.");
const t2 = performance.now();
console.log(`${(t1 - t0).toFixed(1)} ms import, ${(t2 - t1).toFixed(1)} ms first fingerprint`);
