// The package as users get it: `npm pack`, installed into a fresh
// directory with `npm install ./priorart-*.tgz`, imported by name from
// Node, gives the CLI's X on real documents.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PACKAGE, ROOT, cli, scratch } from "./helpers.mjs";

const npm = (args, cwd) => execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, encoding: "utf8" });

test("npm pack, npm install ./priorart-*.tgz in a fresh directory, the CLI's X on real documents", () => {
  const packed = scratch("priorart-pack-");
  npm(["pack", "--pack-destination", packed], PACKAGE);
  const tarball = readdirSync(packed).find((name) => /^priorart-.*\.tgz$/.test(name));
  assert.ok(tarball, readdirSync(packed).join(", "));
  const user = scratch("priorart-user-");
  writeFileSync(join(user, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }));
  npm(["install", "--offline", join(packed, tarball)], user);

  const documents = [
    ...["README.md", "GUIDE.md", "ARCHITECTURE.md", "docs/simhash-doc.md"].map((name) => join(ROOT, name)),
    ...readdirSync(join(ROOT, "crates/extract/tests/data"))
      .filter((name) => name.endsWith(".html") || name.endsWith(".xml"))
      .map((name) => join(ROOT, "crates/extract/tests/data", name)),
  ];
  writeFileSync(
    join(user, "x.mjs"),
    `import { readFileSync } from "node:fs";
import { extractDocument, fingerprint, simhashDoc } from "priorart";
for (const file of JSON.parse(process.argv[2])) {
  const text = await extractDocument(readFileSync(file));
  console.log(fingerprint(text), simhashDoc(text).base32hex);
}
`,
  );
  const got = execFileSync(process.execPath, ["x.mjs", JSON.stringify(documents)], { cwd: user, encoding: "utf8" }).trim().split("\n");
  const expected = cli(["fingerprint", "--scheme", "minhash-equality-v1,simhash-doc-v2", ...documents])
    .trim()
    .split("\n")
    .map((line) => line.split(/\s+/).slice(0, 2).join(" "));
  assert.deepEqual(got, expected);
  // The types and the browser entry ship with it.
  const installed = join(user, "node_modules/priorart");
  assert.ok(readdirSync(installed).includes("index.d.ts"));
  assert.ok(readdirSync(installed).includes("browser.js"));

  // The core needs nothing of the extraction module: without its file,
  // fingerprints work and only extraction fails.
  rmSync(join(installed, "pkg/priorart_extract_bg.wasm"));
  writeFileSync(
    join(user, "core.mjs"),
    `import { extractHtml, fingerprint } from "priorart";
console.log(fingerprint("Tidal mills ground grain on the estuary."));
await extractHtml("<p>text</p>").then(() => console.log("extracted"), (error) => console.log(error.reason, error.message.includes("ENOENT")));
`,
  );
  const core = execFileSync(process.execPath, ["core.mjs"], { cwd: user, encoding: "utf8" }).trim().split("\n");
  assert.deepEqual(core, [cli(["fingerprint", "-"], { input: "Tidal mills ground grain on the estuary." }).split(/\s+/)[0], "module_unavailable true"]);

  // Without the core's file, the first call says so (and the package still imports).
  rmSync(join(installed, "pkg/priorart_wasm_bg.wasm"));
  writeFileSync(
    join(user, "nocore.mjs"),
    `import { PriorartError, fingerprint } from "priorart";
try { fingerprint("x"); } catch (error) { console.log(error instanceof PriorartError, error.reason); }
`,
  );
  assert.equal(execFileSync(process.execPath, ["nocore.mjs"], { cwd: user, encoding: "utf8" }).trim(), "true module_unavailable");
});
