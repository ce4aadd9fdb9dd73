// The page's one door to the priorart package (bindings/wasm): every
// fingerprint, extraction, verification, ranking and verdict comes from
// it, that is from the same Rust crates as the `priorart` command. This
// module only adapts arguments and names the few things the page uses.

import * as core from 'priorart';
import type { HeaderSource } from './headers';
import type { RelayAnswer } from './relay';
import type { CheckReport } from './report';
import type { Network } from './settings';

/** An event for a NIP-07 signer (what `window.nostr.signEvent` takes). */
export interface UnsignedEvent {
  kind: number;
  created_at: number;
  tags: string[][];
  content: string;
  pubkey: string;
}

/** A signed nostr event, checked by the package. */
export interface SignedEvent extends UnsignedEvent {
  id: string;
  sig: string;
}

/** Loads and compiles the WebAssembly module (once). */
export const ready: Promise<void> = Promise.resolve(core.ready).then(() => undefined);

/** X: the minhash-equality-v1 fingerprint (64 hex). */
export function fingerprintX(text: string): string {
  return core.fingerprint(text, { scheme: 'minhash-equality-v1' });
}

/** The simhash-doc value in its base32hex spelling. */
export function simhashDoc(text: string): string {
  return core.simhashDoc(text).text;
}

/** The canonical words the X fingerprint kept, space-separated. */
export function canonicalWords(text: string): string {
  return core.explain(text).canonical;
}

/** The text priorart fingerprints for a file's bytes: HTML extracted, plain text decoded (BOM, charset), as the CLI reads it. */
export function documentText(bytes: Uint8Array, format: 'html' | 'text'): string {
  return format === 'html' ? core.extractHtml(bytes) : core.extractDocument(bytes, 'text');
}

/** The NIP's discovery query for X. */
export function discoveryFilter(x: string): object {
  return core.discoveryFilter(x);
}

/** `priorart check --json` on the relays' answers, with headers from `headers`. */
export async function check(x: string, answers: RelayAnswer[], headers: HeaderSource, network: Network): Promise<CheckReport> {
  return (await core.check(x, answers, headers, network)) as CheckReport;
}

export function contentEvent(options: {
  kind: number;
  text: string;
  pubkey: string;
  createdAt: number;
  d?: string;
  title?: string | null;
}): UnsignedEvent {
  return core.contentEvent(options) as UnsignedEvent;
}

export function attestation(options: { x: string; kind: number; pubkey: string; createdAt: number }): UnsignedEvent {
  return core.attestation(options) as UnsignedEvent;
}

/** What the signer returned, checked: the event asked for, id and signature valid; or an error naming the failed check. */
export function checkSigned(request: UnsignedEvent, signedJson: string): SignedEvent {
  return core.checkSigned(request, signedJson) as SignedEvent;
}
