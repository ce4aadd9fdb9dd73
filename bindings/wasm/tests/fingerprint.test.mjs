// Every shared vector, the CLI's explanations, and the simhash-doc helpers.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  Fingerprinter,
  InputError,
  SCHEMES,
  explain,
  fingerprint,
  hamming,
  similarity,
  simhashDoc,
} from "../index.js";
import { ROOT, cli, scratch } from "./helpers.mjs";

const equality = JSON.parse(readFileSync(join(ROOT, "vectors/equality-vectors.json"), "utf8")).cases;
const simhashVectors = JSON.parse(readFileSync(join(ROOT, "vectors/simhash-doc.json"), "utf8")).cases;

test("every equality vector, both schemes, one call at a time and with a kept fingerprinter", () => {
  assert.ok(equality.length >= 3000, `${equality.length} cases`);
  const kept = new Fingerprinter(["minhash-equality-v1", "simhash-equality-v2"]);
  for (const vector of equality) {
    for (const scheme of ["minhash-equality-v1", "simhash-equality-v2"]) {
      assert.equal(fingerprint(vector.input, { scheme }), vector[scheme], `${vector.name} (${scheme})`);
    }
    assert.deepEqual(kept.of(vector.input), [vector["minhash-equality-v1"], vector["simhash-equality-v2"]], vector.name);
  }
  kept.free();
  assert.equal(fingerprint(equality[1].input), equality[1]["minhash-equality-v1"], "the default scheme is the X");
});

test("every simhash-doc vector: base32hex, bigint, fingerprint", () => {
  assert.ok(simhashVectors.length > 10);
  for (const vector of simhashVectors) {
    const value = simhashDoc(vector.input);
    assert.equal(value.base32hex, vector.base32, vector.name);
    assert.equal(value.value, BigInt(`0x${vector.hex}`), vector.name);
    assert.equal(fingerprint(vector.input, { scheme: "simhash-doc" }), vector.base32, vector.name);
  }
});

test("hamming and similarity take bigints, base32hex, hex and simhashDoc results", () => {
  const a = simhashDoc("The tidal mill ground grain for the village every morning.");
  const b = simhashDoc("The tidal mill ground grain for the whole village every morning.");
  const distance = hamming(a, b);
  assert.equal(distance, [...(a.value ^ b.value).toString(2)].filter((bit) => bit === "1").length);
  assert.equal(hamming(a.base32hex, b.value), distance);
  assert.equal(hamming(a.value.toString(16).padStart(16, "0"), b), distance);
  assert.equal(similarity(a, b), 1 - distance / 64);
  assert.equal(hamming(a, a), 0);
  assert.throws(() => hamming("not a value", a), (error) => error instanceof InputError && error.reason === "invalid_simhash_doc");
  assert.throws(() => hamming(-1n, a), InputError);
});

test("unknown schemes are typed errors with the library's reason", () => {
  assert.throws(
    () => fingerprint("text", { scheme: "md5" }),
    (error) => error instanceof InputError && error.reason === "unknown_scheme" && /md5/.test(error.message),
  );
});

test("explain is the CLI's --explain --json, for every scheme", () => {
  const dir = scratch();
  const texts = [
    "Hello, World! Ünïcödé façade — testing the résumé of 42 things at https://example.org/x.",
    "",
    "a an the",
    readFileSync(join(ROOT, "README.md"), "utf8").slice(0, 5000),
  ];
  texts.forEach((text, i) => {
    const file = join(dir, `text-${i}.txt`);
    writeFileSync(file, text);
    for (const scheme of SCHEMES) {
      const expected = JSON.parse(cli(["fingerprint", "--explain", "--json", "--scheme", scheme, file]));
      delete expected.file;
      delete expected.input;
      assert.deepEqual(explain(text, { scheme }), expected, `text ${i}, ${scheme}`);
    }
  });
});
