// "Who published this first?": the text's fingerprints (offline), the
// relays' answers as they arrive, and the package's `check` over them.

import { byId, el, fill, say } from './dom';
import { headerSource } from './headers';
import * as priorart from './priorart';
import { queryRelay, type RelayAnswer } from './relay';
import { endingText, showReport, type ReportView } from './render';
import type { CheckReport } from './report';
import type { Settings, SettingsRead } from './settings';

const FINGERPRINT_DELAY_MS = 120;
/** How long after a relay ends the page checks what has arrived, if others are still pending. */
const INTERIM_CHECK_DELAY_MS = 1_000;

/** What the page needs of the rest: the settings in force when asked. */
export interface WhoContext {
  settings(): SettingsRead;
}

export function setUpWho(context: WhoContext): { text(): string; x(): string | null } {
  const text = byId<HTMLTextAreaElement>('text');
  const x = byId('x');
  const simhash = byId('simhash');
  const explain = byId<HTMLDetailsElement>('explain');
  const words = byId('words');
  const file = byId<HTMLInputElement>('file');
  const fileStatus = byId('file-status');
  const ask = byId<HTMLButtonElement>('ask');
  const askStatus = byId('ask-status');
  const results = byId('results');
  const relayList = byId('relay-list');
  const view: ReportView = {
    verdict: byId('verdict'),
    note: byId('verdict-note'),
    ranking: byId<HTMLTableElement>('ranking').tBodies[0]!,
    refused: byId('refused'),
    unverified: byId('unverified'),
    near: byId('near'),
    nearSection: byId('near-section'),
    contents: byId('contents'),
    json: byId('report-json'),
  };

  let currentX: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const fingerprint = () => {
    const value = text.value;
    if (!value.trim()) {
      currentX = null;
      x.textContent = '–';
      simhash.textContent = '–';
      fill(words);
      return;
    }
    currentX = priorart.fingerprintX(value);
    x.textContent = currentX;
    simhash.textContent = priorart.simhashDoc(value);
    if (explain.open) showWords(value);
  };
  text.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(fingerprint, FINGERPRINT_DELAY_MS);
  });
  const showWords = (value: string) => {
    if (!value.trim()) return fill(words);
    const { kept, keptTotal, tokensTotal, chosen } = priorart.keptWords(value);
    fill(
      words,
      el('p', {}, `Kept ${keptTotal} of ${tokensTotal} words, after the NIP's stemming and filtering. The ${chosen.length} that make X: `, el('strong', {}, chosen.join(' '))),
      el('p', { class: 'kept' }, kept.join(' ')),
    );
  };
  explain.addEventListener('toggle', () => {
    if (explain.open) showWords(text.value);
  });

  // Only the last file chosen is shown, whatever order the reads end in.
  let reading = 0;
  let extractorLoaded = false;
  const readFile = async (chosen: File) => {
    const read = ++reading;
    say(
      fileStatus,
      extractorLoaded ? `Reading ${chosen.name}…` : `Reading ${chosen.name} (fetching the document reader, first file only)…`,
      'loading',
    );
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    // The format is the package's to detect, from the bytes, as the CLI does.
    const answer = await priorart.documentText(bytes);
    if (read !== reading) return;
    extractorLoaded ||= 'text' in answer || answer.unreadable.kind !== 'no_reader';
    if ('unreadable' in answer) {
      // The text and X of an earlier file or paste are not this file's: gone.
      text.value = '';
      fingerprint();
      results.hidden = true;
      const { unreadable } = answer;
      say(
        fileStatus,
        unreadable.kind === 'pdf'
          ? `${chosen.name} is a PDF, which is not read in the browser: priorart fingerprint ${chosen.name} reads it and prints its X.`
          : unreadable.kind === 'no_reader'
            ? `${chosen.name} was not read: the document reader could not be downloaded (${unreadable.message}); pasting works offline.`
            : `${chosen.name} could not be read: ${unreadable.message}`,
        'error',
      );
      fileStatus.dataset.file = unreadable.kind === 'pdf' ? 'pdf' : unreadable.kind === 'no_reader' ? 'no_reader' : 'unreadable';
      return;
    }
    text.value = answer.text;
    say(fileStatus, `Read ${chosen.name} as priorart reads it: ${answer.text.length} characters of text.`, 'done');
    fileStatus.dataset.file = 'read';
    fingerprint();
  };
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (chosen) void readFile(chosen);
  });
  const dropZone = byId('who');
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    const dropped = event.dataTransfer?.files[0];
    if (dropped) void readFile(dropped);
  });

  let generation = 0;
  ask.addEventListener('click', async () => {
    xNow();
    // Whatever was said about an earlier click is stale now.
    say(askStatus, '');
    const read = context.settings();
    if (!read.ok) {
      say(askStatus, `Nothing asked: ${read.problem} Fix it in the settings below (opened).`, 'error');
      return;
    }
    const { settings } = read;
    if (settings.relays.length === 0) {
      say(askStatus, 'Name at least one relay in the settings first (opened below): no relay is asked before you name it.', 'error');
      byId<HTMLDetailsElement>('settings').open = true;
      byId('relays').focus();
      return;
    }
    if (!currentX) {
      say(askStatus, 'Paste a text or choose a file first.', 'error');
      text.focus();
      return;
    }
    const asked = ++generation;
    const started = performance.now();
    results.hidden = false;
    ask.disabled = true;
    try {
      const report = await askRelays(currentX, text.value, settings, relayList, view, askStatus, asked, () => asked === generation);
      if (asked !== generation || !report) return;
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      view.verdict.dataset.elapsedMs = String(Math.round(performance.now() - started));
      say(askStatus, `Checked ${report.relays.length} relay(s) in ${seconds} s.`, 'done');
    } catch (error) {
      say(askStatus, `The check failed: ${error instanceof Error ? error.message : String(error)}`, 'error');
    } finally {
      if (asked === generation) ask.disabled = false;
    }
  });

  fingerprint();
  // The X of the text as it is now (a change may still wait for the debounce).
  const xNow = () => {
    clearTimeout(timer);
    fingerprint();
    return currentX;
  };
  // The extraction module (about three times the core) is not fetched
  // here: most readers paste, and the first file read fetches it.
  return { text: () => text.value, x: xNow };
}

/**
 * Queries every relay at once, shows each one's progress and ending as
 * it comes, checks what has arrived a second after a relay ends while
 * others are still pending (one check at a time; that verdict is marked
 * provisional), and ends with the check of every answer. For a text of
 * 100 words or more, as `priorart check FILE` does, each relay is also
 * asked for the texts near it (their fuzzy `B` keys), then for the proofs
 * of the near copies the package verified; the final check weighs them:
 * an edited copy's reader is shown the original's proven author. The
 * status line beside the button names what is awaited: relays, or block
 * headers.
 */
async function askRelays(
  x: string,
  text: string,
  settings: Settings,
  relayList: HTMLElement,
  view: ReportView,
  status: HTMLElement,
  run: number,
  current: () => boolean,
): Promise<CheckReport | null> {
  const filter = priorart.discoveryFilter(x);
  const nearFilter = priorart.nearCopiesFilter(text);
  const esploraHost = settings.esplora ? new URL(settings.esplora).host : '';
  let checkingNow = false;
  const relayProgress = () => {
    if (!current() || checkingNow) return;
    const pending = answers.filter((answer) => answer === undefined).length;
    const ended = answers.length - pending;
    // The near-copy queries are awaited too: said, not hidden behind "0 still answering".
    const nearPending = nearFilter ? answers.length - keyAnswers.filter(Boolean).length : 0;
    const near = nearFilter ? `; near copies: ${nearPending} relay(s) still answering` : '';
    if (pending > 0 || nearPending > 0) {
      say(status, `Asking ${answers.length} relay(s): ${ended} ended, ${pending} still answering${near}…`, 'working');
    }
  };
  const { headers, stats } = headerSource(settings.esplora, settings.network, (now) => {
    if (current()) {
      say(status, `Checking the proofs: waiting for Bitcoin block headers from ${esploraHost} (${now.requests} requested)…`, 'working');
    }
  });
  const limits = { ...priorart.relayAnswerLimits(), timeoutMs: settings.timeoutSeconds * 1000 };
  const answers: (RelayAnswer | undefined)[] = settings.relays.map(() => undefined);
  // The answers to the near-copy query, by relay (filled as they end).
  const keyAnswers: RelayAnswer[] = [];
  const items = settings.relays.map((url) => el('li', { 'data-relay': url, 'data-state': 'connecting' }, `${url}: connecting…`));
  fill(relayList, ...items);
  delete view.verdict.dataset.final;
  delete view.verdict.dataset.status;
  view.verdict.textContent = 'No verdict yet: the relays are being asked.';
  view.note.textContent = '';
  relayProgress();

  /** What a verdict on the answers so far is worth: the relays it has not heard. */
  const provisional = () => {
    const waiting = items.filter((_, index) => answers[index] === undefined).map((item) => `${item.dataset.relay} (${item.dataset.state === 'connecting' ? 'connecting' : 'answering'})`);
    return `Provisional: ${waiting.length} relay(s) not heard yet, whose proofs may change it: ${waiting.join(', ')}.`;
  };

  let checking: Promise<CheckReport | null> = Promise.resolve(null);
  let checkedWith = 0;
  let checkMs = 0;
  let checks = 0;
  let interim: ReturnType<typeof setTimeout> | undefined;
  const checkArrived = (final: boolean, near?: priorart.NearAnswers): Promise<CheckReport | null> => {
    checking = checking.then(async (previous) => {
      const arrived = answers.filter((answer): answer is RelayAnswer => answer !== undefined);
      if (!current()) return previous;
      if (arrived.length === checkedWith && previous && !near) return previous;
      checkedWith = arrived.length;
      const started = performance.now();
      checkingNow = true;
      say(status, settings.esplora ? 'Checking the proofs…' : 'Checking the proofs (no Esplora URL: they stay unverified)…', 'working');
      let report: CheckReport;
      try {
        report = await priorart.check(x, arrived, headers, settings.network, near);
      } finally {
        checkingNow = false;
      }
      checkMs += performance.now() - started;
      checks += 1;
      if (current()) {
        showReport(view, report, final ? null : provisional());
        relayProgress();
      }
      return report;
    });
    return checking;
  };

  await Promise.all(
    settings.relays.map(async (url, index) => {
      const item = items[index]!;
      // The near-copy query on a connection of its own, beside the X query.
      const keys = nearFilter ? queryRelay(url, nearFilter, limits, () => undefined) : null;
      const answer = await queryRelay(url, filter, limits, (progress) => {
        if (progress.state === 'done') return;
        item.dataset.state = progress.state;
        item.textContent = progress.state === 'connecting' ? `${url}: connecting…` : `${url}: ${progress.events} event(s) so far…`;
      });
      answers[index] = answer;
      item.dataset.state = answer.ending.status;
      item.textContent = `${url}: ${endingText(answer.ending)}, ${answer.events.length} event(s) in ${answer.elapsed_ms} ms`;
      relayProgress();
      // A verdict on what has arrived while slower relays are still
      // pending; relays that end close together are checked together
      // (each check verifies every event again).
      interim ??= setTimeout(() => {
        interim = undefined;
        if (answers.includes(undefined)) void checkArrived(false);
      }, INTERIM_CHECK_DELAY_MS);
      if (keys) {
        const keyAnswer = await keys;
        keyAnswers[index] = keyAnswer;
        item.append(
          el('span', { class: 'near-query', 'data-state': keyAnswer.ending.status }, `; near copies: ${endingText(keyAnswer.ending)}, ${keyAnswer.events.length} event(s)`),
        );
        relayProgress();
      }
    }),
  );
  clearTimeout(interim);
  let near: priorart.NearAnswers | undefined;
  if (nearFilter && current()) {
    // The near copies the package verified against the text: their proofs, from every relay.
    const proofFilter = priorart.nearCopiesProofFilter(text, keyAnswers);
    let proofAnswers: RelayAnswer[] = [];
    if (proofFilter) {
      say(status, `Asking ${settings.relays.length} relay(s) for the proofs of the near copies found…`, 'working');
      proofAnswers = await Promise.all(settings.relays.map((url) => queryRelay(url, proofFilter, limits, () => undefined)));
    }
    near = { text, keyAnswers, proofAnswers };
  }
  const report = await checkArrived(true, near);
  if (!report || !current()) return null;
  showReport(view, report, null);
  const endings = new Map<string, number>();
  for (const relay of report.relays) endings.set(relay.ending.status, (endings.get(relay.ending.status) ?? 0) + 1);
  view.note.textContent = `Final: every relay answered or ended (${[...endings].map(([ending, count]) => `${count} ${ending === 'eose' ? 'answered' : ending.replaceAll('_', ' ')}`).join(', ')}).`;
  view.verdict.dataset.run = String(run);
  for (const [index, summary] of report.relays.entries()) {
    const item = items[index];
    if (!item || summary.skipped.length === 0) continue;
    const skipped = summary.skipped.map((skip) => `${skip.count} ${skip.reason.replaceAll('_', ' ')}`).join(', ');
    item.append(el('span', { class: 'skipped' }, ` — not kept: ${skipped}`));
  }
  // What the time went to (the benchmark reads these).
  view.verdict.dataset.headerRequests = String(stats.requests);
  view.verdict.dataset.checkMs = String(Math.round(checkMs));
  view.verdict.dataset.checks = String(checks);
  view.verdict.dataset.relaysMs = String(Math.max(...report.relays.map((relay) => relay.elapsed_ms)));
  return report;
}
