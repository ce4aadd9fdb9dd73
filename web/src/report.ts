// The `priorart-check/1` and `priorart-verify/1` reports: the package's own
// types (bindings/wasm/reports.d.ts, generated from the Rust types by
// crates/schema), so that the page cannot drift from what the package returns.

import type { FuzzyReport, VerifyReport } from 'priorart';

export type { CheckReport, VerifyReport } from 'priorart';

/** What the near-copy search found (nip::check::near::FuzzyReport). */
export type NearCopies = FuzzyReport;

/** The failed steps of a verification, each as "reason: detail". */
export function failures(report: VerifyReport): string[] {
  return report.steps
    .filter((step) => step.status === 'fail')
    .map((step) => (step.reason ? `${step.reason}: ${step.detail}` : step.detail));
}
