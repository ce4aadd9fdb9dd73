// "Protect my text": the reader's NIP-07 signer (window.nostr) signs the
// content event and the kind 1042 the package builds; the package checks
// what the signer returned (the event asked for, id and signature), as
// the CLI checks a NIP-46 bunker's answer. The service is checked first
// (reachable, allowing this page's origin): publishing makes the text
// public, and a text public without its attestation at a service has no
// timestamp. Then the content event goes to the relays, the attestation to
// a `priorart serve` service, whose job is followed (its errors shown)
// until its kind 1041 is published or the reader stops following.

import { byId, el, fill } from './dom';
import * as priorart from './priorart';
import { publishToRelay } from './relay';
import type { SettingsRead } from './settings';

/** NIP-07: what a signer extension puts on `window`. */
interface Nip07 {
  getPublicKey(): Promise<string>;
  signEvent(event: priorart.UnsignedEvent): Promise<unknown>;
}

declare global {
  interface Window {
    nostr?: Nip07;
  }
}

const FOLLOW_FIRST_MS = 1_000;
const FOLLOW_MAX_MS = 30_000;
const SERVICE_TIMEOUT_MS = 15_000;
/** The service check before anything is signed or published: a short wait. */
const SERVICE_CHECK_TIMEOUT_MS = 8_000;

export interface ProtectContext {
  settings(): SettingsRead;
  text(): string;
  x(): string | null;
}

/** Says a step: the status line shows the step in progress, the log the steps before it (each line once). */
type Say = (line: string, state?: string) => void;

export function setUpProtect(context: ProtectContext): void {
  const run = byId<HTMLButtonElement>('protect-run');
  const download = byId<HTMLButtonElement>('protect-download');
  const stop = byId<HTMLButtonElement>('protect-stop');
  const status = byId('protect-status');
  const log = byId('protect-log');
  const link = byId('protect-download-link');
  const articleFields = byId('article-fields');
  const identifier = byId<HTMLInputElement>('identifier');
  const title = byId<HTMLInputElement>('title');
  const kindInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="kind"]'));
  const kind = () => Number(kindInputs.find((input) => input.checked)?.value ?? '1');
  for (const input of kindInputs) input.addEventListener('change', () => (articleFields.hidden = kind() !== 30023));

  const say: Say = (line, state) => {
    if (status.textContent) {
      log.append(el('li', status.dataset.state ? { 'data-step': status.dataset.state } : {}, status.textContent));
    }
    status.textContent = line;
    if (state) status.dataset.state = state;
    else delete status.dataset.state;
  };
  const restart = () => {
    fill(log);
    fill(link);
    status.textContent = '';
    delete status.dataset.state;
  };

  /** The job being followed; a new run or "Stop following" ends it. */
  let following: { stopped: boolean } | null = null;
  const stopFollowing = () => {
    if (following) following.stopped = true;
    following = null;
    stop.hidden = true;
  };
  stop.addEventListener('click', () => {
    stopFollowing();
    say('Stopped following: the service keeps the job and works on it; follow it again with priorart protect --status, or look later.', 'stopped');
  });

  /** The signer and the reader's pubkey, or null (said why). */
  const signer = async (): Promise<{ nostr: Nip07; pubkey: string } | null> => {
    const nostr = window.nostr;
    if (!nostr) {
      say('No NIP-07 signer in this browser (window.nostr): install a signer extension, or use priorart protect.', 'no_signer');
      return null;
    }
    const pubkey = await nostr.getPublicKey();
    if (!/^[0-9a-f]{64}$/.test(pubkey)) {
      say(`The signer gave a public key that is not 64 hex characters: ${pubkey}`, 'signer_failed');
      return null;
    }
    return { nostr, pubkey };
  };

  /** Asks the signer to sign `unsigned` and checks its answer. */
  const sign = async (nostr: Nip07, unsigned: priorart.UnsignedEvent, what: string): Promise<priorart.SignedEvent> => {
    say(`Asking the signer to sign ${what}…`);
    const answer = await nostr.signEvent(unsigned);
    return priorart.checkSigned(unsigned, JSON.stringify(answer));
  };

  const signAttestation = async (nostr: Nip07, pubkey: string, x: string) =>
    sign(nostr, priorart.attestation({ x, kind: kind(), pubkey, createdAt: now() }), 'the attestation (kind 1042)');

  /** A link to the signed attestation as a file, for `priorart timestamp`. */
  const offerDownload = (attestation: priorart.SignedEvent) => {
    const blob = new Blob([JSON.stringify(attestation) + '\n'], { type: 'application/json' });
    const name = `attestation-${attestation.id.slice(0, 12)}.json`;
    fill(
      link,
      el('a', { href: URL.createObjectURL(blob), download: name }, `Download ${name}`),
      ', then: ',
      el('code', {}, `priorart timestamp ${name}`),
    );
  };

  download.addEventListener('click', async () => {
    restart();
    const x = context.x();
    if (!x) return say('Paste a text first.', 'no_text');
    download.disabled = true;
    try {
      const found = await signer();
      if (!found) return;
      const attestation = await signAttestation(found.nostr, found.pubkey, x);
      offerDownload(attestation);
      say('The attestation is signed: download it and stamp it with priorart timestamp.', 'attestation_ready');
    } catch (error) {
      say(`Stopped: ${message(error)}`, 'failed');
    } finally {
      download.disabled = false;
    }
  });

  run.addEventListener('click', async () => {
    stopFollowing();
    restart();
    const read = context.settings();
    if (!read.ok) return say(`Nothing signed or published: ${read.problem}`, 'bad_settings');
    const { settings } = read;
    const x = context.x();
    if (!x) return say('Paste a text first.', 'no_text');
    if (settings.relays.length === 0) return say('Name the relays to publish to in the settings first.', 'no_relays');
    if (!settings.service) return say('Give the timestamping service (a priorart serve URL) in the settings first.', 'no_service');
    const contentKind = kind();
    const d = identifier.value.trim();
    if (contentKind === 30023 && !d) return say('An article needs an identifier (d tag).', 'no_identifier');
    if (!window.nostr) {
      // Said before the service is asked anything.
      await signer();
      return;
    }
    run.disabled = true;
    try {
      // Before anything is public: a text published without its
      // attestation at the service has no timestamp.
      say(`Checking the timestamping service ${settings.service}…`);
      const problem = await checkService(settings.service);
      if (problem) {
        say(`Nothing signed or published: the service ${problem}.`, 'service_unusable');
        return;
      }
      const found = await signer();
      if (!found) return;
      const { nostr, pubkey } = found;
      const unsigned = priorart.contentEvent({
        kind: contentKind,
        text: context.text(),
        pubkey,
        createdAt: now(),
        ...(contentKind === 30023 ? { d } : {}),
        ...(contentKind === 30023 && title.value.trim() ? { title: title.value.trim() } : {}),
      });
      const content = await sign(nostr, unsigned, `the ${contentKind === 1 ? 'note' : 'article'}`);
      const attestation = await signAttestation(nostr, pubkey, x);

      say(`Publishing the ${contentKind === 1 ? 'note' : 'article'} to ${settings.relays.length} relay(s)…`);
      const acceptances = await Promise.all(
        settings.relays.map((relay) => publishToRelay(relay, content, settings.timeoutSeconds * 1000)),
      );
      for (const acceptance of acceptances) {
        say(`${acceptance.relay}: ${acceptance.outcome.replaceAll('_', ' ')}${acceptance.message ? ` (${acceptance.message})` : ''}`);
      }
      if (!acceptances.some((acceptance) => acceptance.outcome === 'accepted')) {
        say('No relay stored the event: the attestation is not sent.', 'failed');
        return;
      }

      const reference =
        contentKind === 30023 ? { a: `30023:${pubkey}:${d}` } : { e: content.id, k: contentKind };
      const submission = { attestation, ...reference, relays: settings.relays };
      say(`Sending the attestation to ${settings.service}…`);
      let submitted: ServiceAnswer;
      try {
        submitted = await callService(`${settings.service}/v1/attestations`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(submission),
        });
      } catch (error) {
        submitted = { status: 0, body: { error: message(error) } };
      }
      if (submitted.status !== 202) {
        // The service answered the check a moment ago; now it did not
        // take the attestation: the text is public, not yet timestamped.
        offerDownload(attestation);
        say(
          `The text is published but not timestamped: the service refused the attestation (${describeRefusal(submitted)}). Download the signed attestation below and run priorart timestamp, or try again.`,
          'failed',
        );
        return;
      }
      const id = String(submitted.body.id ?? attestation.id);
      say(`Accepted (job ${id.slice(0, 12)}…): the service stamps it at its calendars; the proof needs a Bitcoin block.`, 'accepted');
      // Following may take hours on mainnet: the button is free again now,
      // and "Stop following" ends the polling.
      const job = { stopped: false };
      following = job;
      stop.hidden = false;
      run.disabled = false;
      void follow(`${settings.service}/v1/attestations/${id}`, say, job).finally(() => {
        if (following === job) stopFollowing();
      });
    } catch (error) {
      say(`Stopped: ${message(error)}`, 'failed');
    } finally {
      run.disabled = false;
    }
  });
}

/**
 * Whether the service can take an attestation from this page: null, or
 * what is wrong. The request carries the `Content-Type` of the real
 * submission, so the browser makes the same CORS preflight: a service that
 * does not allow this origin fails here, before anything is published. A
 * failed request is tried again without CORS (an opaque answer) to tell
 * "not allowed" from "not reachable".
 */
async function checkService(service: string): Promise<string | null> {
  const url = `${service}/healthz`;
  const init: RequestInit = { cache: 'no-store', signal: AbortSignal.timeout(SERVICE_CHECK_TIMEOUT_MS) };
  try {
    const response = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json' } });
    return response.ok ? null : `answered HTTP ${response.status} at ${url} (is it a priorart serve URL?)`;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      return `did not answer within ${SERVICE_CHECK_TIMEOUT_MS / 1000} s (${url})`;
    }
  }
  try {
    await fetch(url, { ...init, mode: 'no-cors' });
    return `is reachable but does not allow this page's origin (${location.origin}): its operator adds --cors-origin ${location.origin}`;
  } catch {
    return `cannot be reached (${url})`;
  }
}

/** Polls the job until it is published or failed, more slowly as time goes by, until `job.stopped`. */
async function follow(url: string, say: Say, job: { stopped: boolean }): Promise<void> {
  let wait = FOLLOW_FIRST_MS;
  let last = '';
  let lastProblems = '';
  while (!job.stopped) {
    let answer: ServiceAnswer;
    try {
      answer = await callService(url, {});
    } catch (error) {
      // A network hiccup while following is no verdict on the job: said, and tried again.
      if (job.stopped) return;
      const line = `The service did not answer (${message(error)}); trying again.`;
      if (line !== lastProblems) say(line, 'service_unreachable');
      lastProblems = line;
      await sleep(wait);
      wait = Math.min(wait * 1.5, FOLLOW_MAX_MS);
      continue;
    }
    if (job.stopped) return;
    if (answer.status !== 200) {
      say(`The service answered ${describeRefusal(answer)}`, 'failed');
      return;
    }
    const state = String(answer.body.state);
    if (state !== last) {
      last = state;
      say(jobLine(answer.body), state);
    }
    // Why the job is not moving (a calendar failing, the last error): hidden
    // behind "waiting" it would look like an honest wait.
    const problems = jobProblems(answer.body);
    if (problems && problems !== lastProblems && state !== 'failed') say(problems, 'job_error');
    lastProblems = problems;
    if (state === 'published' || state === 'failed') return;
    await sleep(wait);
    wait = Math.min(wait * 1.5, FOLLOW_MAX_MS);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function jobLine(job: Record<string, unknown>): string {
  const state = String(job.state);
  switch (state) {
    case 'signed':
      return 'signed: waiting for the next round of the service';
    case 'stamped':
      return 'stamped: the calendars hold it until a Bitcoin block includes it (hours on mainnet)';
    case 'anchored':
      return `anchored in block ${String(job.block)} (verified by the service)`;
    case 'built':
      return `proof event (kind 1041) built for block ${String(job.block)}`;
    case 'published': {
      const event = job.proof_event as { id?: string } | null;
      return `published: proof ${event?.id ?? ''} (kind 1041) anchored in block ${String(job.block)}`;
    }
    case 'failed':
      return `failed: ${String(job.last_error ?? 'no reason given')}`;
    default:
      return state;
  }
}

/** The job's last error and its calendars' failures, in one line ('' when none). */
function jobProblems(job: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof job.last_error === 'string' && job.last_error) parts.push(`last error: ${job.last_error}`);
  if (Array.isArray(job.calendars)) {
    for (const calendar of job.calendars as { calendar?: unknown; verdict?: unknown; detail?: unknown }[]) {
      const verdict = String(calendar.verdict ?? '');
      if (verdict === 'lied' || verdict === 'failed' || verdict === 'unverifiable') {
        parts.push(`calendar ${String(calendar.calendar)} ${verdict}${calendar.detail ? ` (${String(calendar.detail)})` : ''}`);
      }
    }
  }
  return parts.length > 0 ? `The service reports a problem with this job: ${parts.map((part) => part.replace(/\.$/, '')).join('; ')}.` : '';
}

interface ServiceAnswer {
  status: number;
  body: Record<string, unknown>;
}

async function callService(url: string, init: RequestInit): Promise<ServiceAnswer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS), cache: 'no-store' });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    body = { detail: text.slice(0, 300) };
  }
  return { status: response.status, body };
}

function describeRefusal(answer: ServiceAnswer): string {
  const error = typeof answer.body.error === 'string' ? answer.body.error : `HTTP ${answer.status}`;
  const detail = typeof answer.body.detail === 'string' ? `: ${answer.body.detail}` : '';
  return `${error}${detail}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function message(error: unknown): string {
  if (error instanceof TypeError && /fetch/i.test(error.message)) {
    return `${error.message} (is the service reachable, and does it allow this page's origin with --cors-origin?)`;
  }
  return error instanceof Error ? error.message : String(error);
}
