// The page's one door to the priorart package (bindings/wasm): every
// fingerprint, extraction, verification, ranking and verdict comes from
// it, that is from the same Rust crates as the `priorart` command. The
// package's core WebAssembly module is fetched and compiled here, before
// the page's first synchronous call (`init`); its extraction module is
// fetched only when a file is read.

import * as core from 'priorart';
import type { HeaderSource } from 'priorart';
import type { RelayAnswer } from './relay';
import type { CheckReport } from './report';
import type { Network } from './settings';

await core.init();

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

/** Loads the package's extraction module (what `documentText` needs) now. */
export function loadExtractor(): Promise<void> {
  return core.loadExtractor();
}

/** The text priorart fingerprints for a file's bytes: HTML extracted, plain text decoded (BOM, charset), as the CLI reads a file. */
export function documentText(bytes: Uint8Array, format: 'html' | 'text'): Promise<string> {
  return format === 'html' ? core.extractHtml(bytes) : core.extractDocument(bytes, { format: 'text' });
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
