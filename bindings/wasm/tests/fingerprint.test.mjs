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
const simhashV2Vectors = JSON.parse(readFileSync(join(ROOT, "vectors/simhash-doc-v2.json"), "utf8")).cases;

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
  const kept = new Fingerprinter(["simhash-doc", "simhash-doc-v2"]);
  for (const vector of simhashVectors) {
    const value = simhashDoc(vector.input, { scheme: "simhash-doc" });
    assert.equal(value.base32hex, vector.base32, vector.name);
    assert.equal(value.value, BigInt(`0x${vector.hex}`), vector.name);
    assert.equal(fingerprint(vector.input, { scheme: "simhash-doc" }), vector.base32, vector.name);
    assert.equal(kept.of(vector.input)[0], vector.base32, vector.name);
  }
  kept.free();
});

test("every simhash-doc-v2 vector: simhashDoc's default, base32hex, bigint, fingerprint", () => {
  assert.ok(simhashV2Vectors.length > 10);
  const kept = new Fingerprinter(["simhash-doc", "simhash-doc-v2"]);
  const v1 = new Map(simhashVectors.map((vector) => [vector.input, vector.base32]));
  let differ = 0;
  for (const vector of simhashV2Vectors) {
    for (const value of [simhashDoc(vector.input), simhashDoc(vector.input, { scheme: "simhash-doc-v2" }), simhashDoc(vector.input, {})]) {
      assert.equal(value.base32hex, vector.base32, vector.name);
      assert.equal(value.value, BigInt(`0x${vector.hex}`), vector.name);
    }
    assert.equal(fingerprint(vector.input, { scheme: "simhash-doc-v2" }), vector.base32, vector.name);
    assert.equal(kept.of(vector.input)[1], vector.base32, vector.name);
    if (v1.has(vector.input) && v1.get(vector.input) !== vector.base32) differ++;
  }
  kept.free();
  assert.ok(differ > 0, "some vectors (Chinese, Japanese, Thai…) differ between simhash-doc and simhash-doc-v2");
});

test("simhashDoc of Chinese text is the CLI's simhash-doc-v2 by default, its simhash-doc when asked", () => {
  const text = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。潮汐磨坊把海水的涨落变成面粉。";
  const [v2, v1] = ["simhash-doc-v2", "simhash-doc"].map((scheme) => cli(["fingerprint", "--scheme", scheme, "-"], { input: text }).split(/\s+/)[0]);
  assert.notEqual(v1, v2);
  assert.equal(simhashDoc(text).base32hex, v2);
  assert.equal(simhashDoc(text, { scheme: "simhash-doc" }).base32hex, v1);
  // One changed character moves v2 a few bits; v1 (one token per clause) much further.
  const edited = text.replace("某", "一");
  assert.ok(hamming(simhashDoc(text), simhashDoc(edited)) < hamming(simhashDoc(text, { scheme: "simhash-doc" }), simhashDoc(edited, { scheme: "simhash-doc" })));
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
    "潮汐磨坊把海水的涨落变成面粉。東京の港では、潮の満ち引きで石臼を回していた。โรงสีน้ำขึ้นน้ำลง",
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
