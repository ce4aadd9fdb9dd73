// priorart for Node (and Deno, Bun): the package's API (api.js) with its
// WebAssembly modules read from the files beside it. Nothing is read when
// the package is imported: the core module is read and compiled
// synchronously on the first call that needs it (or by `await init()`),
// so `require("priorart")` works too. Browsers and bundlers get
// browser.js instead (package.json's "browser" condition).

import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { configure } from "./modules.js";

/** A module's location: a URL, or a URL's text, or a file's path (relative to the working directory). */
const where = (location) =>
  location instanceof URL ? location : URL.canParse(location) ? new URL(location) : pathToFileURL(location);

configure({
  // Node's fetch does not read file: URLs; a module served over HTTP is fetched.
  fetch: async (location) => {
    const url = where(location);
    return url.protocol === "file:" ? readFile(url) : fetch(url);
  },
  readSync: (url) => readFileSync(url),
});

export * from "./api.js";
