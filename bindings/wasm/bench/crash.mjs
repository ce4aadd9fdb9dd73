// Issue 38's crash, measured on a build of the package:
//   node bindings/wasm/bench/crash.mjs [PACKAGE/index.js]
// 200 calls of verifyEvent(event, headers, { network: 5 }), then a
// fingerprint. Before the fix the first call trapped (memory access out of
// bounds) and Node died of SIGSEGV; now each call is an InputError.
import { pathToFileURL } from "node:url";

const target = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL("../index.js", import.meta.url).href;
const p = await import(target);
const event = { kind: 1041, content: "", tags: [], created_at: 1, pubkey: "0".repeat(64), id: "0".repeat(64), sig: "0".repeat(128) };
let traps = 0;
let refused = 0;
for (let i = 0; i < 200; i++) {
  try {
    await p.verifyEvent(event, p.memoryHeaders(), { network: 5 });
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) {
      if (++traps === 1) console.log(`call ${i + 1}: ${error.message}`);
    } else refused++;
  }
}
let after;
try {
  after = p.fingerprint("Tidal mills ground grain on the estuary.");
} catch (error) {
  after = `${error.constructor.name}: ${error.message}`;
}
console.log(`200 calls: ${traps} traps, ${refused} refused; then fingerprint: ${after}`);
