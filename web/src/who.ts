// "Who published this first?": the text's fingerprints (offline), the
// relays' answers as they arrive, and the package's `check` over them.

import { byId, el, fill } from './dom';
import { headerSource } from './headers';
import * as priorart from './priorart';
import { QUERY_LIMITS, queryRelay, type RelayAnswer } from './relay';
import { endingText, showReport, type ReportView } from './render';
import type { CheckReport } from './report';
import type { Settings } from './settings';

const FINGERPRINT_DELAY_MS = 120;
/** How long after a relay ends the page checks what has arrived, if others are still pending. */
const INTERIM_CHECK_DELAY_MS = 1_000;

/** What the page needs of the rest: the settings in force when asked. */
export interface WhoContext {
  settings(): Settings | null;
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
    ranking: byId<HTMLTableElement>('ranking').tBodies[0]!,
    refused: byId('refused'),
    unverified: byId('unverified'),
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

  const readFile = async (chosen: File) => {
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    const head = new TextDecoder().decode(bytes.subarray(0, 1024));
    const html =
      /\.x?html?$/i.test(chosen.name) || chosen.type === 'text/html' || /^\s*(<!doctype html|<html)/i.test(head);
    try {
      // The bytes as the CLI reads a file: HTML extracted, text decoded (BOM, charset).
      text.value = await priorart.documentText(bytes, html ? 'html' : 'text');
    } catch (error) {
      fileStatus.textContent = `${chosen.name}: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    fileStatus.textContent = html
      ? `Read ${chosen.name}: HTML, its text extracted as priorart does (${text.value.length} characters).`
      : `Read ${chosen.name} (${text.value.length} characters).`;
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
    const settings = context.settings();
    if (!settings) return;
    if (settings.relays.length === 0) {
      askStatus.textContent = 'Name at least one relay in the settings first: no relay is asked before you name it.';
      byId('relays').focus();
      return;
    }
    if (!currentX) {
      askStatus.textContent = 'Paste a text or choose a file first.';
      text.focus();
      return;
    }
    const asked = ++generation;
    const started = performance.now();
    results.hidden = false;
    ask.disabled = true;
    askStatus.textContent = `Asking ${settings.relays.length} relay(s)…`;
    try {
      const report = await askRelays(currentX, settings, relayList, view, asked, () => asked === generation);
      if (asked !== generation || !report) return;
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      view.verdict.dataset.elapsedMs = String(Math.round(performance.now() - started));
      askStatus.textContent = `Checked ${report.relays.length} relay(s) in ${seconds} s.`;
    } catch (error) {
      askStatus.textContent = `The check failed: ${error instanceof Error ? error.message : String(error)}`;
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
  // Files are read by the package's second module (extraction), fetched
  // now that the page works, after the core and never before it: a file
  // read later, even offline, needs no download then. A failed fetch is
  // tried again when a file is read.
  priorart.loadExtractor().catch(() => undefined);
  return { text: () => text.value, x: xNow };
}

/**
 * Queries every relay at once, shows each one's progress and ending as
 * it comes, checks what has arrived a second after a relay ends while
 * others are still pending (one check at a time), and ends with the check
 * of every answer.
 */
async function askRelays(
  x: string,
  settings: Settings,
  relayList: HTMLElement,
  view: ReportView,
  run: number,
  current: () => boolean,
): Promise<CheckReport | null> {
  const filter = priorart.discoveryFilter(x);
  const { headers, stats } = headerSource(settings.esplora, settings.network);
  const limits = { ...QUERY_LIMITS, timeoutMs: settings.timeoutSeconds * 1000 };
  const answers: (RelayAnswer | undefined)[] = settings.relays.map(() => undefined);
  const items = settings.relays.map((url) => el('li', { 'data-relay': url, 'data-state': 'connecting' }, `${url}: connecting…`));
  fill(relayList, ...items);
  delete view.verdict.dataset.final;
  view.verdict.textContent = 'Waiting for the relays…';

  let checking: Promise<CheckReport | null> = Promise.resolve(null);
  let checkedWith = 0;
  let checkMs = 0;
  let checks = 0;
  let interim: ReturnType<typeof setTimeout> | undefined;
  const checkArrived = (): Promise<CheckReport | null> => {
    checking = checking.then(async (previous) => {
      const arrived = answers.filter((answer): answer is RelayAnswer => answer !== undefined);
      if (!current()) return previous;
      if (arrived.length === checkedWith && previous) return previous;
      checkedWith = arrived.length;
      const started = performance.now();
      const report = await priorart.check(x, arrived, headers, settings.network);
      checkMs += performance.now() - started;
      checks += 1;
      if (current()) showReport(view, report, false);
      return report;
    });
    return checking;
  };

  await Promise.all(
    settings.relays.map(async (url, index) => {
      const item = items[index]!;
      const answer = await queryRelay(url, filter, limits, (progress) => {
        if (progress.state === 'done') return;
        item.dataset.state = progress.state;
        item.textContent = progress.state === 'connecting' ? `${url}: connecting…` : `${url}: ${progress.events} event(s) so far…`;
      });
      answers[index] = answer;
      item.dataset.state = answer.ending.status;
      item.textContent = `${url}: ${endingText(answer.ending)}, ${answer.events.length} event(s) in ${answer.elapsed_ms} ms`;
      // A verdict on what has arrived while slower relays are still
      // pending; relays that end close together are checked together
      // (each check verifies every event again).
      interim ??= setTimeout(() => {
        interim = undefined;
        if (answers.includes(undefined)) void checkArrived();
      }, INTERIM_CHECK_DELAY_MS);
    }),
  );
  clearTimeout(interim);
  const report = await checkArrived();
  if (!report || !current()) return null;
  showReport(view, report, true);
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
