// The package's two WebAssembly modules: the core (fingerprints,
// verification, the check, events) and the extraction module (documents to
// text), loaded on first use, so that pages that never read a file never
// download it. Nothing is loaded when the package is imported (no top-level
// await: bundlers that target browsers without it, `require()`, and
// tree-shaking all work): `init()` loads the core, and the async functions
// call it themselves. Where the bytes can be read synchronously (Node:
// index.js), the synchronous functions load the core on their first call;
// in browsers they need `await init()` first, as nothing can wait there.
// How a module's bytes are obtained depends on where the package runs: the
// entry points (index.js for Node, browser.js for browsers and bundlers)
// say it with `configure`.

import * as glue from "./pkg/priorart_wasm.js";
import { PriorartError, QUOTED, cut } from "./errors.js";

/** The module's URLs, written out as `new URL("…", import.meta.url)` so that bundlers ship them. */
const CORE_URL = () => new URL("./pkg/priorart_wasm_bg.wasm", import.meta.url);
const EXTRACT_URL = () => new URL("./pkg/priorart_extract_bg.wasm", import.meta.url);

/**
 * `{ fetch(url), readSync?(url) }`, set by the entry point (index.js: read
 * the files); a browser's fetch until then, so that a bundler that skips
 * the entry point's body still loads the modules.
 */
let platform = { fetch: (url) => fetch(url) };
/** `init`'s options: where the modules are, when not beside this file. */
let locations = {};
/** Whether the core module is instantiated. */
let ready = false;
/** The core's load, once started (a promise). */
let loading = null;
/** The extraction module's exports, once loaded (a promise of them). */
let extractor = null;

/** Set by the entry point: how a module's bytes are fetched (and, in Node, read synchronously). */
export function configure(how) {
  platform = how;
}

/**
 * Loads the core module (once; later calls return the same promise).
 * `options.core`, `options.extractor`: where the two modules are when a
 * bundler did not ship them beside the package's code (esbuild: copy
 * `priorart/priorart_wasm_bg.wasm` with its `file` loader and pass the URL
 * it gives): a URL, a Response, the bytes or a compiled WebAssembly.Module.
 */
export function init(options = {}) {
  if (options === null || typeof options !== "object") {
    throw new TypeError("init(options): options must be an object ({ core, extractor })");
  }
  const { core: coreAt, extractor: extractorAt } = options;
  for (const [name, value] of [["core", coreAt], ["extractor", extractorAt]]) {
    if (value !== undefined && !isModuleSource(value)) {
      throw new TypeError(`init: ${name} must be a URL (or its text), a Response, the module's bytes or a WebAssembly.Module`);
    }
  }
  // A location counts only before its module loads: once loaded, it stays.
  if (extractorAt !== undefined && !extractor) locations.extractor = extractorAt;
  if (coreAt !== undefined && !ready && !loading) locations.core = coreAt;
  if (ready) return Promise.resolve();
  loading ??= (async () => {
    const module = await moduleBytes(locations.core ?? CORE_URL(), "core");
    if (!ready) await glue.default({ module_or_path: module });
    ready = true;
  })().catch((error) => {
    // A failed load is tried again by the next call, from the default location.
    loading = null;
    locations.core = undefined;
    throw error;
  });
  return loading;
}

function isModuleSource(value) {
  return (
    typeof value === "string" ||
    value instanceof URL ||
    value instanceof ArrayBuffer ||
    ArrayBuffer.isView(value) ||
    value instanceof WebAssembly.Module ||
    (typeof Response !== "undefined" && value instanceof Response)
  );
}

/**
 * The core module's exports, instantiated: synchronously on first use
 * where the platform can read files synchronously (Node), else only after
 * `init()`.
 */
export function core() {
  if (ready) return glue;
  if (platform?.readSync && locations.core === undefined) {
    let bytes;
    try {
      bytes = platform.readSync(CORE_URL());
    } catch (error) {
      throw new PriorartError(`could not read priorart's core WebAssembly module: ${cut(String(error?.message ?? error), 2 * QUOTED)}`, "module_unavailable");
    }
    glue.initSync({ module: checkMagic(bytes, "core", "the package's file") });
    ready = true;
    return glue;
  }
  throw new PriorartError(
    "priorart is not initialized: `await init()` once before the synchronous functions (fingerprint, events, filters); browsers load its WebAssembly module asynchronously",
    "not_initialized",
  );
}

/** The extraction module, loaded once (a failed load is tried again on the next call). */
export function extractionModule() {
  extractor ??= (async () => {
    const extract = await import("./pkg/priorart_extract.js");
    await extract.default({ module_or_path: await moduleBytes(locations.extractor ?? EXTRACT_URL(), "extraction") });
    return extract;
  })().catch((error) => {
    extractor = null;
    locations.extractor = undefined;
    throw error;
  });
  return extractor;
}

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/**
 * What wasm-bindgen's `init` takes for a module at `source`, checked:
 * a fetch that failed, or that answered something other than WebAssembly
 * (a dev server's HTML page for a file it does not have), is told as such
 * rather than as the compiler's "expected magic word".
 */
async function moduleBytes(source, which) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return checkMagic(source, which, "the bytes given");
  let response = source;
  const where = cut(String(source?.url ?? source), QUOTED);
  if (!(typeof Response !== "undefined" && source instanceof Response)) {
    try {
      // A string is the caller's: a browser's fetch resolves it against the page, Node's loader against its directory.
      response = await platform.fetch(source);
    } catch (error) {
      throw new PriorartError(`could not load priorart's ${which} WebAssembly module from ${where}: ${cut(String(error?.message ?? error), 2 * QUOTED)}${HINT}`, "module_unavailable");
    }
  }
  if (!(typeof Response !== "undefined" && response instanceof Response)) return checkMagic(response, which, where);
  if (!response.ok) {
    throw new PriorartError(`could not load priorart's ${which} WebAssembly module from ${where}: HTTP ${response.status}${HINT}`, "module_unavailable");
  }
  // Compiled while it downloads when served as WebAssembly; read whole otherwise.
  if (response.headers.get("Content-Type")?.startsWith("application/wasm")) return response;
  return checkMagic(await response.arrayBuffer(), which, where);
}

const HINT =
  ". A bundler that does not ship the package's .wasm files (esbuild) needs their URLs passed: init({ core, extractor }); Vite's dev server needs optimizeDeps: { exclude: [\"priorart\"] }";

function checkMagic(bytes, which, where) {
  const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!WASM_MAGIC.every((byte, i) => view[i] === byte)) {
    const start = new TextDecoder().decode(view.subarray(0, 16)).replace(/[^\x20-\x7e]/g, "?");
    throw new PriorartError(`priorart's ${which} WebAssembly module from ${where} is not WebAssembly (it starts with ${JSON.stringify(start)})${HINT}`, "module_unavailable");
  }
  return bytes;
}
