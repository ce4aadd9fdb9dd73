// The `priorart-check/1` report as the package returns it (the members
// the page shows; the format is documented in crates/nip/src/check).

import type { Ending } from './relay';

export interface VerifyStep {
  step: number;
  check: string;
  status: 'pass' | 'fail' | 'skip';
  reason: string | null;
  detail: string;
}

export interface VerifyReport {
  format: string;
  verdict: string;
  steps: VerifyStep[];
  warnings: { reason: string; detail: string }[];
  bitcoin: { height: number; time: number; block_hash: string } | null;
}

export interface CheckReport {
  format: string;
  x: string;
  network: string;
  verdict: {
    status: 'proven' | 'near_copy_proven' | 'unverified' | 'unproven' | 'nothing_found' | 'no_relay_answered' | 'no_relay_asked';
    text: string;
    earliest: {
      author: string;
      npub: string;
      event_id: string;
      height?: number;
      utc: string;
      /** With `near_copy_proven`: the near copy (another X) whose proof is the earliest. */
      near_copy?: { event_id: string; author: string; npub: string; x: string; jaccard: number };
    } | null;
    other_authors: number;
  };
  /** The near copies, when they were looked for (a text of 100 words or more). */
  fuzzy?: NearCopies | null;
  relays: {
    url: string;
    answered: boolean;
    ending: Ending;
    events: number;
    skipped: { reason: string; count: number; example: string }[];
    notices: string[];
    elapsed_ms: number;
  }[];
  proofs: {
    rank: number;
    event_id: string;
    author: string;
    npub: string;
    block: { height: number; time: number; utc: string; block_hash: string };
    content: { tag: string; reference: string; found: boolean } | null;
    relays: string[];
    report: VerifyReport;
  }[];
  unverified: { event_id: string; author: string; npub: string; relays: string[]; report: VerifyReport }[];
  refused: {
    event_id: string;
    signer: string | null;
    claimed_author: string | null;
    verdict: string;
    reasons: string[];
    relays: string[];
    report: VerifyReport;
  }[];
  content_events: {
    event_id: string;
    author: string;
    npub: string;
    kind: number;
    created_at: number;
    utc: string;
    x_check: 'matches' | 'does_not_match' | 'cannot_check';
    detail: string | null;
    relays: string[];
  }[];
}

/** What the near-copy search found (nip::check::near::FuzzyReport). */
export interface NearCopies {
  text: string;
  simhash_doc: string;
  k: number;
  min_jaccard: number;
  keys: number;
  candidates: number;
  near_copies: {
    event_id: string;
    author: string;
    npub: string;
    kind: number;
    utc: string;
    simhash_doc: string;
    distance: number;
    jaccard: number;
    x: string;
    relays: string[];
    proofs: { rank: number; event_id: string; author: string; npub: string; block: { height: number; utc: string } }[];
    unverified: { event_id: string; npub: string }[];
    refused: { event_id: string; verdict: string; reasons: string[] }[];
  }[];
}

/** The failed steps of a verification, each as "reason: detail". */
export function failures(report: VerifyReport): string[] {
  return report.steps
    .filter((step) => step.status === 'fail')
    .map((step) => (step.reason ? `${step.reason}: ${step.detail}` : step.detail));
}
