// The core module's download: what a page fetches before its first
// fingerprint (README, "Loading"), gzipped as a static host serves it.
// Fingerprint rules, tables and crates added to the core must fit in it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The core module's budget, gzipped (level 9). */
const CORE_BUDGET = 400 * 1024;

test("the core module is under 400 KB gzipped", (t) => {
  const wasm = readFileSync(fileURLToPath(new URL("../pkg/priorart_wasm_bg.wasm", import.meta.url)));
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  t.diagnostic(`core module: ${wasm.length} bytes, ${gzipped} bytes gzipped (${(gzipped / 1024).toFixed(1)} KB)`);
  assert.ok(gzipped < CORE_BUDGET, `the core module is ${gzipped} bytes gzipped: over its budget of ${CORE_BUDGET}`);
});
