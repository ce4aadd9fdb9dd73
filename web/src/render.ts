// The check report on the page: the verdict in `priorart check`'s words,
// the ranking by block, and every other proof with why it is not ranked
// (invalid with its reasons, unverified as unverified): none is hidden.

import { el, fill, short } from './dom';
import { failures, type CheckReport } from './report';
import type { Ending } from './relay';

export interface ReportView {
  verdict: HTMLElement;
  /** What the verdict is worth: provisional (which relays are not heard yet) or final. */
  note: HTMLElement;
  ranking: HTMLTableSectionElement;
  refused: HTMLElement;
  unverified: HTMLElement;
  /** The near copies' list and its section (hidden when they were not looked for). */
  near: HTMLElement;
  nearSection: HTMLElement;
  contents: HTMLElement;
  json: HTMLElement;
}

/**
 * Shows `report`; `provisional` says why it may still change (relays not
 * heard yet), null for the final report of a query.
 */
export function showReport(view: ReportView, report: CheckReport, provisional: string | null): void {
  view.verdict.textContent = report.verdict.text;
  view.verdict.dataset.status = report.verdict.status;
  if (provisional === null) {
    view.verdict.dataset.final = 'true';
    delete view.verdict.dataset.provisional;
  } else {
    delete view.verdict.dataset.final;
    view.verdict.dataset.provisional = 'true';
    view.note.textContent = provisional;
  }

  fill(
    view.ranking,
    ...report.proofs.map((proof) =>
      el(
        'tr',
        { 'data-rank': String(proof.rank), 'data-author': proof.author },
        // data-label: the column's name, shown beside each cell on a phone, where rows become cards.
        el('td', { 'data-label': 'Rank' }, String(proof.rank)),
        el('td', { 'data-label': 'Author' }, short(proof.npub, 12)),
        el('td', { 'data-label': 'Block' }, String(proof.block.height)),
        el('td', { 'data-label': 'Block time' }, proof.block.utc),
        el('td', { 'data-label': 'Content' }, proof.content ? `${proof.content.tag} ${proof.content.found ? 'found' : 'not found'}` : '–'),
        el('td', { 'data-label': 'Relays' }, proof.relays.join(', ')),
      ),
    ),
  );
  if (report.proofs.length === 0) {
    fill(view.ranking, el('tr', {}, el('td', { colspan: '6' }, 'No valid proof.')));
  }

  fill(
    view.refused,
    ...report.refused.map((proof) =>
      el(
        'li',
        { 'data-event': proof.event_id, 'data-verdict': proof.verdict, 'data-reasons': proof.reasons.join(' ') },
        el('strong', {}, `${proof.verdict}: `),
        proof.reasons.join(', '),
        ' — proof ',
        short(proof.event_id),
        proof.claimed_author ? ' claims author ' : '',
        proof.claimed_author ? short(proof.claimed_author) : '',
        ` (from ${proof.relays.join(', ')})`,
        el('ul', {}, ...failures(proof.report).map((failure) => el('li', {}, failure))),
      ),
    ),
  );
  if (report.refused.length === 0) fill(view.refused, el('li', {}, 'None.'));

  fill(
    view.unverified,
    ...report.unverified.map((proof) =>
      el(
        'li',
        { 'data-event': proof.event_id, 'data-verdict': 'unverified' },
        el('strong', {}, 'unverified: '),
        'author ',
        short(proof.npub, 12),
        ', proof ',
        short(proof.event_id),
        ` (from ${proof.relays.join(', ')}): `,
        failures(proof.report).join('; ') || 'no block header to check it against',
      ),
    ),
  );
  if (report.unverified.length === 0) fill(view.unverified, el('li', {}, 'None.'));

  fill(
    view.contents,
    ...report.content_events.map((event) =>
      el(
        'li',
        { 'data-event': event.event_id, 'data-x-check': event.x_check },
        `kind ${event.kind} by `,
        short(event.npub, 12),
        `, created_at ${event.utc} (the author's claim): `,
        event.x_check === 'matches' ? 'its text has this X' : `${event.x_check.replaceAll('_', ' ')}${event.detail ? ` (${event.detail})` : ''}`,
        ` (from ${event.relays.join(', ')})`,
      ),
    ),
  );
  if (report.content_events.length === 0) fill(view.contents, el('li', {}, 'None.'));

  showNearCopies(view, report);
  view.json.textContent = JSON.stringify(report, null, 2);
}

/**
 * The near copies (another X, nearly the same words; found through the
 * fuzzy `B` keys and verified against the text by the package), each with
 * its earliest valid proof or why it has none: the proven author of a near
 * copy may be the text's real author.
 */
function showNearCopies(view: ReportView, report: CheckReport): void {
  const fuzzy = report.fuzzy;
  view.nearSection.hidden = !fuzzy;
  if (!fuzzy) return fill(view.near);
  const earliest = report.verdict.earliest;
  const named = earliest && 'near_copy' in earliest ? earliest.near_copy?.event_id : undefined;
  fill(
    view.near,
    el('li', { class: 'summary' }, fuzzy.text),
    ...fuzzy.near_copies.map((copy) => {
      const first = copy.proofs[0];
      return el(
        'li',
        { 'data-event': copy.event_id, 'data-author': copy.author, ...(copy.event_id === named ? { 'data-earliest': 'true' } : {}) },
        el('strong', {}, first ? `proven at block ${first.block.height} (${first.block.utc}) ` : 'no valid proof '),
        'by ',
        short(copy.npub, 12),
        `: kind ${copy.kind} event `,
        short(copy.event_id),
        `, word 5-gram Jaccard ${copy.jaccard.toFixed(2)}, ${copy.distance} simhash-doc bit(s) away, X `,
        short(copy.x),
        copy.unverified.length > 0 ? `; ${copy.unverified.length} unverified proof(s)` : '',
        copy.refused.length > 0 ? `; ${copy.refused.length} invalid proof(s)` : '',
        ` (from ${copy.relays.join(', ')})`,
      );
    }),
  );
}

/** A relay's ending in words. */
export function endingText(ending: Ending): string {
  switch (ending.status) {
    case 'eose':
      return 'answered (EOSE)';
    case 'closed':
      return `closed the query: ${ending.message}`;
    case 'timeout':
      return 'no end of answer in time (timeout)';
    case 'unreachable':
      return `unreachable: ${ending.error}`;
    case 'disconnected':
      return `disconnected: ${ending.error}`;
    case 'event_limit':
      return `stopped at ${ending.limit} events (flood)`;
    case 'byte_limit':
      return `stopped at ${ending.limit} bytes (flood)`;
  }
}
