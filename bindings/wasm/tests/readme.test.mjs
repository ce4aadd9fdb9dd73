// The README's examples run as written, importing the package by its name
// (Node's self-reference), and the values its comments show are the ones
// the package and the CLI give. The verification example needs an
// Esplora server on the internet and a proof event; tests/verify.test.mjs
// covers that path against a loopback one.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { PACKAGE, bundlerModules, cli } from "./helpers.mjs";

const README = readFileSync(join(PACKAGE, "README.md"), "utf8");
const blocks = [...README.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);

/** Runs `code` as a module inside the package (so that `import … from "priorart"` is the package). */
function run(code, name) {
  const file = join(PACKAGE, "tests", `.readme-${name}.mjs`);
  writeFileSync(file, code);
  try {
    return execFileSync(process.execPath, [file], { encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    assert.fail(`README example ${name}: ${error.stderr}`);
  } finally {
    rmSync(file, { force: true });
  }
}

test("the first example: its X is the CLI's, and it runs", () => {
  const first = blocks[0];
  assert.match(first, /fingerprint\("Tidal mills ground grain on the estuary\."\);\n\/\/ '([0-9a-f]{8})…'/);
  const shown = first.match(/\/\/ '([0-9a-f]{8})…'/)[1];
  const x = cli(["fingerprint", "-"], { input: "Tidal mills ground grain on the estuary." }).split(/\s+/)[0];
  assert.equal(shown, x.slice(0, 8), "the X the README shows");
  const output = run(`${first}\nconsole.log(fingerprint("Tidal mills ground grain on the estuary."), hamming(a, b), a.base32hex.length);\n`, "first");
  assert.match(output.trim(), new RegExp(`^${x} \\d+ 13$`));
});

test("the NIP-07 example runs against a signer made of nostr-tools", (t) => {
  const require = bundlerModules(t, ["nostr-tools"]);
  if (!require) return;
  const block = blocks.find((code) => code.includes("window.nostr.signEvent"));
  assert.ok(block, "the README has the NIP-07 example");
  const tools = pathToFileURL(require.resolve("nostr-tools/pure")).href;
  // A signer as a NIP-07 extension is: it signs a copy (finalizeEvent mutates its argument).
  const prelude = `import tools from ${JSON.stringify(tools)};
const { finalizeEvent, generateSecretKey, getPublicKey } = tools;
const secret = generateSecretKey();
globalThis.window = { nostr: { getPublicKey: async () => getPublicKey(secret), signEvent: async (event) => finalizeEvent({ ...event }, secret) } };
const text = "Tidal mills ground grain on the estuary for eight centuries.";
`;
  const output = run(`${prelude}${block}\nconsole.log(signedNote.kind, signedAttestation.kind, Object.keys(template).sort().join());\n`, "nip07");
  assert.equal(output.trim(), "30023 1042 content,created_at,kind,tags");
});
