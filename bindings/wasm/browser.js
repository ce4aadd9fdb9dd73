// priorart for browsers and bundlers (package.json's "browser" condition):
// the package's API (api.js) with its WebAssembly modules fetched from
// their URLs, which bundlers that handle `new URL("…", import.meta.url)`
// (Vite, webpack, Parcel) ship as assets (esbuild does not: pass their
// URLs to `init`). Nothing is fetched when this file is imported: `await
// init()` fetches and compiles the core module (the async functions call
// it themselves), the extraction module is fetched when a document is
// first read.

import { configure } from "./modules.js";

configure({ fetch: (url) => fetch(url) });

export * from "./api.js";
