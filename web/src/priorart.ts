// The page's one door to the priorart package (bindings/wasm): every
// fingerprint, extraction, verification, ranking and verdict comes from
// it, that is from the same Rust crates as the `priorart` command. The
// package compiles its core WebAssembly module when imported (top-level
// await; nothing else here relies on an import-time effect); its
// extraction module is fetched only when a file is read.

import * as core from 'priorart';
import type { HeaderSource } from 'priorart';
import type { RelayAnswer } from './relay';
import type { CheckReport } from './report';
import type { Network } from './settings';

export type { SignedEvent, UnsignedEvent } from 'priorart';

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

/** `priorart check --json` on the relays' answers, with headers from `headers`. */
export async function check(x: string, answers: RelayAnswer[], headers: HeaderSource, network: Network): Promise<CheckReport> {
  return (await core.check(x, answers, headers, network)) as unknown as CheckReport;
}

export const contentEvent = core.contentEvent;
export const attestation = core.attestation;
export const checkSigned = core.checkSigned;
