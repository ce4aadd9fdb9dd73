// The package in a client's bundle: `npm pack`, unpacked as an installed
// dependency, a tiny app bundled by esbuild, Vite 5, Vite 8 and webpack 5, each
// bundle served on 127.0.0.1 and loaded in Debian's chromium
// (playwright-core). Each app initializes the package, fingerprints a text
// (the CLI's X), builds the discovery filter, and only then reads an HTML
// document: the extraction module must not be fetched before. Prints each
// bundle's files and sizes, what the page fetched before extraction, and
// the time to a ready package (BENCHMARKS.md, "npm package in bundlers").
// The bundlers: tests/bundlers/package-lock.json (.ci/setup.d/wasm-bundlers.sh);
// chromium: .ci/setup.d/web.sh. Missing: skipped (recorded in
// target/priorart-skipped.txt) unless PRIORART_REQUIRE_PEERS=1.
import assert from "node:assert/strict";
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, relative } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { CHROMIUM, bundlerModules, cli, installPacked, scratch } from "./helpers.mjs";

const TEXT = "Tidal mills ground grain on the estuary.";
const HTML = "<html><body><nav>menu</nav><article><p>Tidal mills ground grain on the estuary.</p></article></body></html>";

/** The app every bundler builds: no top-level await (Vite 5's default target has none). */
const APP = ({ urls }) => `import { init, fingerprint, discoveryFilter, extractHtml, PriorartError } from "priorart";
${urls ? 'import core from "priorart/priorart_wasm_bg.wasm";\nimport extractor from "priorart/priorart_extract_bg.wasm";\n' : ""}
// Before init() the synchronous functions say so (browsers load the module asynchronously).
let before;
try {
  fingerprint("too early");
} catch (error) {
  before = error instanceof PriorartError && error.reason;
}
const started = performance.now();
init(${urls ? "{ core, extractor }" : ""})
  .then(async () => {
    const ready = performance.now();
    const x = fingerprint(${JSON.stringify(TEXT)});
    const filter = discoveryFilter(x);
    const atStart = performance.getEntriesByType("resource").map((entry) => entry.name);
    const extracted = fingerprint(await extractHtml(${JSON.stringify(HTML)}));
    window.result = { before, x, filter, extracted, atStart, readyMs: ready, initMs: ready - started };
  })
  .catch((error) => {
    window.result = { error: String(error && error.message), reason: error && error.reason, priorart: error instanceof PriorartError };
  });
`;
const PAGE = (script) => `<!doctype html><html><head><meta charset="utf-8"><title>priorart app</title></head>
<body><script type="module" src="${script}"></script></body></html>`;

/** Each bundler: builds `dir/src/main.js` into `dir/dist` (index.html and what it loads). */
function bundlers(require) {
  // Each bundler's ES module entry (Vite 5's CommonJS one lacks `build`).
  const load = async (name) => {
    const dir = dirname(require.resolve(`${name}/package.json`));
    const exported = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).exports?.["."]?.import;
    const entry = typeof exported === "string" ? exported : exported?.default;
    return import(pathToFileURL(entry ? join(dir, entry) : require.resolve(name)).href);
  };
  return {
    async esbuild(dir, { urls }) {
      const esbuild = await load("esbuild");
      await esbuild.build({
        entryPoints: [join(dir, "src/main.js")],
        bundle: true,
        format: "esm",
        splitting: true,
        minify: true,
        platform: "browser",
        outdir: join(dir, "dist"),
        // esbuild copies a .wasm only when it is imported (the file loader):
        // the app passes the URLs it gets to init().
        loader: { ".wasm": "file" },
        logLevel: "silent",
      });
      writeFileSync(join(dir, "dist/index.html"), PAGE("./main.js"));
      void urls;
    },
    async vite5(dir) {
      const { build } = await load("vite");
      writeFileSync(join(dir, "index.html"), PAGE("./src/main.js"));
      await build({ root: dir, base: "./", logLevel: "silent", configFile: false, build: { outDir: join(dir, "dist"), emptyOutDir: true } });
    },
    // Vite 8 (Rolldown), installed under the alias vite8.
    async vite8(dir) {
      const { build } = await load("vite8");
      writeFileSync(join(dir, "index.html"), PAGE("./src/main.js"));
      await build({ root: dir, base: "./", logLevel: "silent", configFile: false, build: { outDir: join(dir, "dist"), emptyOutDir: true } });
    },
    async webpack5(dir) {
      const { default: webpack } = await load("webpack");
      const stats = await new Promise((resolve, reject) =>
        webpack(
          {
            mode: "production",
            context: dir,
            entry: "./src/main.js",
            output: { path: join(dir, "dist"), filename: "main.js", publicPath: "auto", clean: true },
            resolve: { conditionNames: ["browser", "import", "default"] },
          },
          (error, result) => (error ? reject(error) : resolve(result)),
        ),
      );
      assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
      writeFileSync(join(dir, "dist/index.html"), PAGE("./main.js"));
    },
  };
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };

/** Serves `dir` on 127.0.0.1; an unknown path gets index.html, as a dev server or an SPA host answers. */
async function serve(dir) {
  const server = createServer((request, response) => {
    let file = join(dir, decodeURIComponent(new URL(request.url, "http://x").pathname));
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) file = join(dir, "index.html");
    response.writeHead(200, { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(response);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

function files(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile() && !file.endsWith(".html"))
    .map((file) => ({ name: relative(dir, file), bytes: statSync(file).size, gzipped: gzipSync(readFileSync(file), { level: 9 }).length }));
}

test("esbuild, Vite 5, Vite 8 and webpack 5 bundles load in chromium: the CLI's X, the extraction module only when used", { timeout: 300_000 }, async (t) => {
  const require = bundlerModules(t, ["esbuild", "vite", "vite8", "webpack", "playwright-core", "chromium"]);
  if (!require) return;
  const apps = installPacked();
  const x = cli(["fingerprint", "-"], { input: TEXT }).split(/\s+/)[0];
  const htmlFile = join(scratch(), "page.html");
  writeFileSync(htmlFile, HTML);
  const htmlX = cli(["fingerprint", htmlFile]).split(/\s+/)[0];
  const playwright = await import(pathToFileURL(require.resolve("playwright-core")).href);
  const { chromium } = playwright.chromium ? playwright : playwright.default;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  });
  const build = bundlers(require);
  const cases = [
    ["esbuild", { urls: true }],
    ["vite5", { urls: false }],
    ["vite8", { urls: false }],
    ["webpack5", { urls: false }],
    // esbuild without the URLs: the .wasm is not copied, and the error says what to do.
    ["esbuild", { urls: false, fails: true }],
  ];
  try {
    for (const [name, options] of cases) {
      const dir = join(apps, `${name}${options.fails ? "-no-urls" : ""}`);
      mkdirSync(join(dir, "src"), { recursive: true });
      writeFileSync(join(dir, "src/main.js"), APP(options));
      const started = performance.now();
      await build[name](dir, options);
      const buildMs = performance.now() - started;
      const server = await serve(join(dir, "dist"));
      const page = await browser.newPage();
      const problems = [];
      const requested = [];
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("request", (request) => requested.push(new URL(request.url()).pathname));
      try {
        await page.goto(server.origin);
        await page.waitForFunction(() => window.result, null, { timeout: 60_000 });
        const result = await page.evaluate(() => window.result);
        if (options.fails) {
          assert.equal(result.reason, "module_unavailable", JSON.stringify(result));
          assert.ok(result.priorart && /init\(\{ core, extractor \}\)/.test(result.error), result.error);
          continue;
        }
        assert.deepEqual(problems, []);
        assert.equal(result.error, undefined, JSON.stringify(result));
        assert.equal(result.before, "not_initialized", name);
        assert.equal(result.x, x, name);
        assert.deepEqual(result.filter["#X"], [x]);
        assert.equal(result.extracted, htmlX, `${name}: the CLI's X of the HTML page`);
        const atStart = result.atStart.map((url) => new URL(url).pathname);
        // Asset names are the bundler's (webpack keeps only a hash): the
        // modules are told apart by count, one at start, both once used.
        const wasmAtStart = atStart.filter((path) => path.endsWith(".wasm"));
        assert.equal(wasmAtStart.length, 1, `${name}: only the core module at start: ${atStart}`);
        const wasmFetched = new Set(requested.filter((path) => path.endsWith(".wasm")));
        assert.equal(wasmFetched.size, 2, `${name}: the extraction module once used: ${requested}`);
        const output = files(join(dir, "dist"));
        const total = (key) => output.reduce((sum, file) => sum + file[key], 0);
        console.log(
          `bundle ${name}: built in ${(buildMs / 1000).toFixed(1)} s; ${output.length} files, ${total("bytes")} bytes (${total("gzipped")} gzipped): ${output.map((file) => `${file.name} ${file.bytes} (${file.gzipped})`).join(", ")}; fetched at start: ${["/", ...atStart].join(" ")}; package ready ${result.readyMs.toFixed(0)} ms after navigation (init ${result.initMs.toFixed(0)} ms)`,
        );
      } finally {
        await page.close();
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }
});

test("Vite 5's dev server: the pre-bundled package says what to do; excluded from pre-bundling, it works", { timeout: 180_000 }, async (t) => {
  const require = bundlerModules(t, ["vite", "playwright-core", "chromium"]);
  if (!require) return;
  const apps = installPacked();
  const x = cli(["fingerprint", "-"], { input: TEXT }).split(/\s+/)[0];
  const dir = join(apps, "vite5-dev");
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src/main.js"), APP({ urls: false }));
  writeFileSync(join(dir, "index.html"), PAGE("./src/main.js"));
  const vite = await import(pathToFileURL(join(dirname(require.resolve("vite/package.json")), "dist/node/index.js")).href);
  const playwright = await import(pathToFileURL(require.resolve("playwright-core")).href);
  const { chromium } = playwright.chromium ? playwright : playwright.default;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
  try {
    for (const exclude of [false, true]) {
      const server = await vite.createServer({
        root: dir,
        configFile: false,
        logLevel: "silent",
        cacheDir: join(dir, `.vite-${exclude}`),
        server: { host: "127.0.0.1", port: 0, strictPort: false, hmr: false },
        optimizeDeps: exclude ? { exclude: ["priorart"] } : {},
      });
      await server.listen();
      const page = await browser.newPage();
      try {
        await page.goto(server.resolvedUrls.local[0]);
        await page.waitForFunction(() => window.result, null, { timeout: 90_000 });
        const result = await page.evaluate(() => window.result);
        if (exclude) {
          assert.equal(result.error, undefined, JSON.stringify(result));
          assert.equal(result.x, x);
        } else {
          // Pre-bundled into node_modules/.vite/deps, the package's
          // new URL("./pkg/…") points where the dev server answers its HTML.
          assert.equal(result.reason, "module_unavailable", JSON.stringify(result));
          assert.match(result.error, /optimizeDeps: \{ exclude: \["priorart"\] \}/);
        }
      } finally {
        await page.close();
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }
});
