// priorart for Node (and Deno, Bun): the package's API (api.js) with its
// WebAssembly modules read from the files beside it. Browsers and bundlers
// get browser.js instead (package.json's "browser" condition).

import { readFile } from "node:fs/promises";
import { loadCore } from "./modules.js";

// Node's fetch does not read file: URLs; a module served over HTTP is fetched.
await loadCore(async (url) => (url.protocol === "file:" ? readFile(url) : url));

export * from "./api.js";
