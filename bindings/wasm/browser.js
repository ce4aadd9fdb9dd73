// priorart for browsers and bundlers (package.json's "browser" condition):
// the package's API (api.js) with its WebAssembly modules fetched from
// their URLs, which bundlers that handle `new URL("…", import.meta.url)`
// (Vite, webpack, Parcel) ship as assets. The core module is compiled when
// this file is imported (top-level await); the extraction module only when
// a document is first read.

import { loadCore } from "./modules.js";

await loadCore(async (url) => url);

export * from "./api.js";
