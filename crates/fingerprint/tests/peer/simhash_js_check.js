// Runs npm simhash-js 1.0.0 on the keys and documents priorart sends on
// standard input, and prints what it computes. See
// crates/fingerprint/tests/simhash_doc_peers.rs for what is compared and why.
//
// simhash-js is used as published, except for one documented bug that is
// patched in a copy of its source at run time:
// - Jenkins.js `rot` uses the signed `>>`, so every rotation of a value with
//   the top bit set is wrong; `>>>` is what Bob Jenkins' C code does.
// The module-private `lookup3` and `combineShingles` are exported from the
// copy so they can be called on priorart's tokens (simhash-js's own
// tokenizer cuts fixed 4-character shingles, which is not the spec's).
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const dir = path.dirname(require.resolve('simhash-js/package.json'));
const version = require('simhash-js/package.json').version;

/** Evaluates a CommonJS source text with `require` mapped by `modules`. */
function load(source, modules) {
  const module = { exports: {} };
  const wrapped = vm.runInThisContext(`(function (module, exports, require) {${source}\n})`);
  wrapped(module, module.exports, (name) => modules[name] || require(name));
  return module.exports;
}

const jenkinsSource = fs.readFileSync(path.join(dir, 'Jenkins.js'), 'utf8');
const signedRotate = '((x) >> (32 - (k)))';
if (jenkinsSource.split(signedRotate).length !== 2) {
  throw new Error(`simhash-js ${version}: the rotate line changed; revisit the patch`);
}
const exportLookup3 = '\nmodule.exports.lookup3 = lookup3;';
const original = load(jenkinsSource + exportLookup3, {});
const fixed = load(jenkinsSource.replace(signedRotate, '((x) >>> (32 - (k)))') + exportLookup3, {});

const simhashSource = fs.readFileSync(path.join(dir, 'SimHash.js'), 'utf8');
const simhash = load(simhashSource + '\nmodule.exports.combineShingles = combineShingles;', {
  './Jenkins.js': fixed,
});

/** simhash-js reads keys with charCodeAt: give it one char per UTF-8 byte. */
const binary = (hex) => Buffer.from(hex, 'hex').toString('latin1');
const hex32 = (x) => (x >>> 0).toString(16).padStart(8, '0');

/** combineShingles over 32-bit values given as unpadded hex, as hash32 gives. */
function combine(values) {
  if (values.length === 0) return null; // simhash-js returns undefined
  const result = simhash.combineShingles.call({ maxFeatures: Infinity }, values.map((v) => v.toString(16)));
  // One shingle: it returns that shingle's hex string unchanged.
  return hex32(typeof result === 'string' ? parseInt(result, 16) : result);
}

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const keys = input.keys.map((key) => {
  const o = original.lookup3(binary(key), 0, 0);
  const f = fixed.lookup3(binary(key), 0, 0);
  return { original: [hex32(o.c), hex32(o.b)], fixed: [hex32(f.c), hex32(f.b)] };
});
const documents = input.documents.map((tokens) => {
  const hashes = tokens.map((token) => fixed.lookup3(binary(token), 0, 0));
  return { high: combine(hashes.map((h) => h.c)), low: combine(hashes.map((h) => h.b)) };
});
process.stdout.write(JSON.stringify({ version, keys, documents }));
