// The module's memory after 10,000 Fingerprinters that are used once and
// never freed:  node bindings/wasm/bench/fingerprinters.mjs [PACKAGE/index.js]
import { pathToFileURL } from "node:url";

const target = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL("../index.js", import.meta.url).href;
const p = await import(target);
await p.init?.();
p.fingerprint("warm");
// wasm-bindgen's init returns the instance's exports once it is loaded.
const { memory } = await (await import(new URL("./pkg/priorart_wasm.js", target).href)).default();
const before = memory.buffer.byteLength;
for (let i = 0; i < 10_000; i++) new p.Fingerprinter(["minhash-equality-v1", "simhash-doc"]).of(`Tidal mills ground grain on the estuary ${i}.`);
console.log(`10,000 unfreed Fingerprinters: the module's memory ${(before / 2 ** 20).toFixed(1)} → ${(memory.buffer.byteLength / 2 ** 20).toFixed(1)} MiB`);
