// What the tests share: the repository's paths, and the `priorart` binary
// (PRIORART_BIN, set by .ci/wasm.sh; else the workspace's debug build)
// that every answer of the package is compared with.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
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
    throw new Error(`priorart ${args.join(" ")}: exit ${error.status}: ${error.stderr}`);
  }
}

/** A fresh temporary directory. */
export function scratch(prefix = "priorart-wasm-") {
  return mkdtempSync(join(tmpdir(), prefix));
}
