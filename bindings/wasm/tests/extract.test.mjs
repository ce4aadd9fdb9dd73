// HTML (and the other formats the package reads) give the CLI's text and X.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ExtractionError, InputError, extractDocument, extractHtml, fingerprint } from "../index.js";
import { ROOT, cli } from "./helpers.mjs";

const DATA = join(ROOT, "crates/extract/tests/data");
const fixtures = (suffix) => readdirSync(DATA).filter((name) => name.endsWith(suffix)).map((name) => join(DATA, name));

/** The CLI's X of a file (`X  FILE`). */
const cliX = (file) => cli(["fingerprint", file]).split(/\s+/)[0];

test("every HTML fixture (UTF-8, UTF-16, legacy charsets, mislabelled) gives the CLI's text and X", async () => {
  const files = fixtures(".html");
  assert.ok(files.length >= 5, files.join(", "));
  for (const file of files) {
    const bytes = readFileSync(file);
    const text = await extractHtml(bytes);
    assert.equal(text, cli(["extract", file]).replace(/\n$/, ""), file);
    assert.equal(fingerprint(text), cliX(file), file);
    assert.equal(await extractHtml(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)), text, file);
  }
});

test("a string is read as the text it is, whatever its <meta> declares", async () => {
  const file = join(DATA, "html-utf8.html");
  const html = readFileSync(file, "utf8");
  assert.equal(await extractHtml(html), await extractHtml(readFileSync(file)));
  const declared = `<html><head><meta charset="windows-1252"></head><body><p>Façade résumé — naïve</p></body></html>`;
  assert.equal(await extractHtml(declared), "Façade résumé — naïve");
  assert.equal(await extractHtml(`\uFEFF${declared}`), "Façade résumé — naïve");
});

test("other formats read as the CLI reads them; PDF is left out with its reason", async () => {
  for (const file of [...fixtures(".xml"), ...fixtures(".epub").filter((f) => !f.includes("bomb")), ...fixtures(".txt")]) {
    assert.equal(fingerprint(await extractDocument(readFileSync(file))), cliX(file), file);
  }
  await assert.rejects(
    extractDocument(readFileSync(join(DATA, "article.pdf"))),
    (error) => error instanceof ExtractionError && error.reason === "unsupported",
  );
  await assert.rejects(
    extractDocument(readFileSync(join(DATA, "bomb.epub"))),
    (error) => error instanceof ExtractionError && error.reason === "decompression_bomb",
  );
  await assert.rejects(extractDocument(new Uint8Array(), { format: "docx" }), InputError);
});

test("limits hold: deep nesting is a typed error, not a crash", async () => {
  const deep = "<div>".repeat(100_000) + "text";
  await assert.rejects(extractHtml(deep), (error) => error instanceof ExtractionError && error.reason === "too_deep");
});
