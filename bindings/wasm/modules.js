// The package's two WebAssembly modules: the core (fingerprints,
// verification, the check, events), loaded before the package's first
// answer, and the extraction module (documents to text), loaded on first
// use, so that pages that never read a file never download it. How a
// module's bytes are obtained depends on where the package runs: the entry
// points (index.js for Node, browser.js for browsers and bundlers) say it.

import initCore, * as core from "./pkg/priorart_wasm.js";

export { core };

/** `url` → what the glue's `init` takes (bytes, a URL or a Response). */
let moduleSource = null;
/** The extraction module's exports, once loaded (a promise of them). */
let extractor = null;

/**
 * Loads the core module; `source(url)` turns a module's URL into what
 * wasm-bindgen's `init` takes. The URLs are written out as
 * `new URL("…", import.meta.url)` so that bundlers ship both modules.
 */
export async function loadCore(source) {
  moduleSource = source;
  await initCore({ module_or_path: await source(new URL("./pkg/priorart_wasm_bg.wasm", import.meta.url)) });
}

/** The extraction module, loaded once (a failed load is tried again on the next call). */
export function extractionModule() {
  extractor ??= (async () => {
    const glue = await import("./pkg/priorart_extract.js");
    await glue.default({ module_or_path: await moduleSource(new URL("./pkg/priorart_extract_bg.wasm", import.meta.url)) });
    return glue;
  })().catch((error) => {
    extractor = null;
    throw error;
  });
  return extractor;
}
