// The page's one door to the priorart package (bindings/wasm): every
// fingerprint, extraction, verification, ranking and verdict comes from
// it, that is from the same Rust crates as the `priorart` command. The
// package's core WebAssembly module is fetched and compiled here, before
// the page's first synchronous call (`init`; nothing else here relies on
// an import-time effect); its extraction module is fetched only when a
// file is read.

import * as core from 'priorart';
import type { HeaderSource } from 'priorart';
import type { RelayAnswer } from './relay';
import type { CheckReport } from './report';
import type { Network } from './settings';

await core.init();

export type { SignedEvent, UnsignedEvent } from 'priorart';
// The header sources headers.ts combines (the reader's Esplora behind a cache).
export { cachedHeaders, esploraHeaders, memoryHeaders } from 'priorart';

/** X: the minhash-equality-v1 fingerprint (64 hex). */
export function fingerprintX(text: string): string {
  return core.fingerprint(text);
}

/** The simhash-doc value in its base32hex spelling. */
export function simhashDoc(text: string): string {
  return core.simhashDoc(text).base32hex;
}

/** What the X fingerprint kept of the text: the kept words, how many of how many, and the eight that make X. */
export function keptWords(text: string): { kept: string[]; keptTotal: number; tokensTotal: number; chosen: string[] } {
  const explanation = core.explain(text) as {
    kept_tokens: string[];
    kept_tokens_total: number;
    tokens_total: number;
    buckets: ({ token: string } | null)[];
  };
  return {
    kept: explanation.kept_tokens,
    keptTotal: explanation.kept_tokens_total,
    tokensTotal: explanation.tokens_total,
    chosen: explanation.buckets.flatMap((bucket) => (bucket ? [bucket.token] : [])),
  };
}

/** Why a file gave no text: a PDF, the document reader not downloaded (offline?), or the file itself. */
export type Unreadable = { kind: 'pdf' } | { kind: 'no_reader'; message: string } | { kind: 'other'; message: string };

/**
 * The text priorart fingerprints for a file's bytes, as every priorart
 * command reads a file: the format detected from the content by the
 * package (HTML, XML, EPUB, text in any character set; the file's name
 * plays no part, as for the CLI), then extracted or decoded. The package's
 * extraction module is fetched on the first call only (most readers paste).
 */
export async function documentText(bytes: Uint8Array): Promise<{ text: string } | { unreadable: Unreadable }> {
  try {
    await core.loadExtractor();
  } catch (error) {
    return { unreadable: { kind: 'no_reader', message: error instanceof Error ? error.message : String(error) } };
  }
  try {
    return { text: await core.extractDocument(bytes) };
  } catch (error) {
    // The package reads no PDF (its extractor is built without it): its
    // detection names the format in the refusal, reason `unsupported`.
    if (error instanceof core.ExtractionError && error.reason === 'unsupported' && /\bPDF\b/.test(error.message)) {
      return { unreadable: { kind: 'pdf' } };
    }
    return { unreadable: { kind: 'other', message: error instanceof Error ? error.message : String(error) } };
  }
}

/**
 * The NIP's discovery query for X: every content kind and kind 1041 with
 * the tag X (nip::check::discovery_filter; the browser tests check that the
 * page sends exactly the CLI's filter).
 */
export function discoveryFilter(x: string): object {
  return core.discoveryFilter(x);
}

/**
 * The REQ filter of the content events near `text` (their fuzzy `B`
 * keys), or null for a text too short to be looked up by them: as
 * `priorart check FILE` does by default (the package's fuzzyByDefault:
 * nip::fuzzy_tags::long_enough, 100 words or more, two letters of Chinese,
 * Japanese, Thai… counting as one).
 */
export function nearCopiesFilter(text: string): object | null {
  return core.fuzzyByDefault(text) ? core.fuzzyDiscoveryFilter(text) : null;
}

/**
 * The REQ filter for the proofs of the near copies the relays returned
 * (each verified against `text` by the package), or null when there is
 * none: the second query of `priorart check`'s near-copy search.
 */
export function nearCopiesProofFilter(text: string, keyAnswers: RelayAnswer[]): object | null {
  return core.nearCopiesProofFilter(text, keyAnswers);
}

/** The near-copy search's answers, for `check`. */
export interface NearAnswers {
  text: string;
  keyAnswers: RelayAnswer[];
  proofAnswers: RelayAnswer[];
}

/** `priorart check --json` on the relays' answers, with headers from `headers` (and the near copies, when looked for). */
export async function check(
  x: string,
  answers: RelayAnswer[],
  headers: HeaderSource,
  network: Network,
  near?: NearAnswers,
): Promise<CheckReport> {
  return core.check(x, answers, headers, network, near);
}


/** What one relay's answer may cost: `priorart check`'s limits (nip::limits), so that the page reads relays as the CLI does. */
export const relayAnswerLimits = core.relayAnswerLimits;

export const contentEvent = core.contentEvent;
export const attestation = core.attestation;
export const checkSigned = core.checkSigned;
