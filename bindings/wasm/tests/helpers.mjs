// What the tests share: the repository's paths, and the `priorart` binary
// (PRIORART_BIN, set by .ci/wasm.sh; else the workspace's debug build)
// that every answer of the package is compared with.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const PACKAGE = fileURLToPath(new URL("../", import.meta.url));
export const NIP_DATA = join(ROOT, "bindings/python/tests/data/nip");

const bin = process.env.PRIORART_BIN ?? join(ROOT, "target/debug/priorart");
if (!existsSync(bin)) throw new Error(`${bin} not found: cargo build -p priorart-cli (or set PRIORART_BIN)`);

/** The CLI's standard output for `args`; `expectStatus` lists the exit codes accepted. */
export function cli(args, { input, expectStatus = [0] } = {}) {
  try {
    return execFileSync(bin, args, { input, encoding: "utf8", maxBuffer: 1 << 28, stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    if (typeof error.status === "number" && expectStatus.includes(error.status)) return error.stdout;
    throw new Error(`priorart ${args.join(" ")}: exit ${error.status}: ${error.stderr}`, { cause: error });
  }
}

/** A fresh temporary directory. */
export function scratch(prefix = "priorart-wasm-") {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The bundlers, chromium driver and types of the bundler and type tests (tests/bundlers, .ci/setup.d/wasm-bundlers.sh). */
export const BUNDLERS = join(PACKAGE, "tests/bundlers");
export const CHROMIUM = process.env.PRIORART_CHROMIUM ?? "/usr/bin/chromium";

/** The bundlers' own node_modules, or null (skipped, or a failure under PRIORART_REQUIRE_PEERS=1). */
export function bundlerModules(t, needs) {
  const missing = needs.filter((name) => !existsSync(join(BUNDLERS, "node_modules", name, "package.json")));
  if (needs.includes("chromium") && existsSync(CHROMIUM)) missing.splice(missing.indexOf("chromium"), 1);
  if (missing.length === 0) return createRequire(join(BUNDLERS, "package.json"));
  const line = `bindings/wasm ${t.name}: ${missing.join(", ")} not installed: run .ci/setup.d/wasm-bundlers.sh and .ci/setup.d/web.sh`;
  if (process.env.PRIORART_REQUIRE_PEERS === "1") throw new Error(line);
  const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, "priorart-skipped.txt"), `${line}\n`, { flag: "a" });
  t.skip(line);
  return null;
}

/**
 * The package as `npm install` leaves it, in `BUNDLERS/.apps/node_modules/priorart`
 * (the apps live beside it, and resolve the bundlers from `BUNDLERS/node_modules`).
 */
export function installPacked() {
  const apps = join(BUNDLERS, ".apps");
  rmSync(apps, { recursive: true, force: true });
  const installed = join(apps, "node_modules/priorart");
  mkdirSync(installed, { recursive: true });
  const packed = scratch("priorart-pack-");
  execFileSync("npm", ["pack", "--pack-destination", packed, "--loglevel=error"], { cwd: PACKAGE });
  const tarball = readdirSync(packed).find((name) => name.endsWith(".tgz"));
  execFileSync("tar", ["-xzf", join(packed, tarball), "-C", installed, "--strip-components=1"]);
  return apps;
}

