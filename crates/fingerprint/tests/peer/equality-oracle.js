// An independent oracle for the equality schemes, written from the NIP-FF-3
// specification in JavaScript so that it uses the engine's own Unicode
// tables (V8 + ICU): `String.prototype.normalize`, `toLowerCase`, and the
// `u`-flag property escapes. The Rust crate is checked against it on inputs
// generated at test time (tests/oracle.rs).
//
// Input on stdin: a JSON array of strings. Output: a JSON array of
// [minhash-equality-v1 hex, simhash-equality-v2 hex] pairs. Required as a
// module (scripts/bench/wasm.mjs: the JavaScript baseline of the npm
// package's benchmark), it exports `minhashEquality` and `simhashEquality`.
'use strict';
const crypto = require('node:crypto');

const STOP = new Set(('a an the and or but if to of in on for with at by from up down out over under ' +
  'into about between after before through during without within is are was were be been being it ' +
  'its that this these those as not can could should would will may might do does did done have has ' +
  'had i you he she we they them our your their').split(' '));

const sha256hex = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

function canonical(text) {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\r\n?/g, '\n')
    .replace(/https?:\/\/\S+/giu, ' url ')
    .replace(/[\u200b-\u200d\ufeff]/g, '')
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/[\p{N}]+/gu, ' num ')
    .replace(/\s+/gu, ' ')
    .trim();
}

function stem(t) {
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ed')) return t.slice(0, -2);
  if (t.length > 4 && t.endsWith('es')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s')) return t.slice(0, -1);
  return t;
}

function fingerprint(text, id, buckets, keepLast) {
  const canon = canonical(text);
  const stemmed = (canon.match(/[\p{L}\p{N}]+/gu) || []).map(stem);
  let kept = stemmed.filter((t) => t.length >= 4 && !STOP.has(t));
  if (kept.length === 0) kept = stemmed.filter((t) => t.length > 0);
  if (kept.length === 0) return sha256hex(`${id}|empty|${canon}`);
  const minima = new Array(buckets).fill(null);
  for (const token of kept) {
    const hex = sha256hex(`eqs:${token}`);
    const bucket = parseInt(hex.slice(0, 2), 16) % buckets;
    if (minima[bucket] === null || hex < minima[bucket]) minima[bucket] = hex;
  }
  const parts = minima.map((m, i) => `b${i}:${m === null ? 'x' : keepLast ? m.slice(-3) : m.slice(0, 3)}`);
  return sha256hex(`${id}|n=1|b=${buckets}|k=3|m=4|${parts.join('|')}`);
}

const minhashEquality = (text) => fingerprint(text, 'minhash-equality-v1', 8, true);
const simhashEquality = (text) => fingerprint(text, 'simhash-equality-v2', 2, false);
module.exports = { minhashEquality, simhashEquality };

if (require.main === module) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => { input += chunk; });
  process.stdin.on('end', () => {
    const out = JSON.parse(input).map((text) => [minhashEquality(text), simhashEquality(text)]);
    process.stdout.write(JSON.stringify(out));
  });
}
