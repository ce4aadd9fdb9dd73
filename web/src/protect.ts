// "Protect my text": the reader's NIP-07 signer (window.nostr) signs the
// content event and the kind 1042 the package builds; the package checks
// what the signer returned (the event asked for, id and signature), as
// the CLI checks a NIP-46 bunker's answer. The content event goes to the
// relays, the attestation to a `priorart serve` service, whose job is
// followed until its kind 1041 is published.

import { byId, el, fill } from './dom';
import * as priorart from './priorart';
import { publishToRelay } from './relay';
import type { Settings } from './settings';

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

export interface ProtectContext {
  settings(): Settings | null;
  text(): string;
  x(): string | null;
}

export function setUpProtect(context: ProtectContext): void {
  const run = byId<HTMLButtonElement>('protect-run');
  const download = byId<HTMLButtonElement>('protect-download');
  const status = byId('protect-status');
  const log = byId('protect-log');
  const link = byId('protect-download-link');
  const articleFields = byId('article-fields');
  const identifier = byId<HTMLInputElement>('identifier');
  const title = byId<HTMLInputElement>('title');
  const kindInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="kind"]'));
  const kind = () => Number(kindInputs.find((input) => input.checked)?.value ?? '1');
  for (const input of kindInputs) input.addEventListener('change', () => (articleFields.hidden = kind() !== 30023));

  const say = (line: string, state?: string) => {
    log.append(el('li', state ? { 'data-step': state } : {}, line));
    status.textContent = line;
    if (state) status.dataset.state = state;
  };

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

  download.addEventListener('click', async () => {
    fill(log);
    fill(link);
    const x = context.x();
    if (!x) return say('Paste a text first.', 'no_text');
    download.disabled = true;
    try {
      const found = await signer();
      if (!found) return;
      const attestation = await signAttestation(found.nostr, found.pubkey, x);
      const blob = new Blob([JSON.stringify(attestation) + '\n'], { type: 'application/json' });
      const name = `attestation-${attestation.id.slice(0, 12)}.json`;
      fill(
        link,
        el('a', { href: URL.createObjectURL(blob), download: name }, `Download ${name}`),
        ', then: ',
        el('code', {}, `priorart timestamp ${name}`),
      );
      say('The attestation is signed: download it and stamp it with priorart timestamp.', 'attestation_ready');
    } catch (error) {
      say(`Stopped: ${message(error)}`, 'failed');
    } finally {
      download.disabled = false;
    }
  });

  run.addEventListener('click', async () => {
    fill(log);
    fill(link);
    const settings = context.settings();
    const x = context.x();
    if (!settings) return;
    if (!x) return say('Paste a text first.', 'no_text');
    if (settings.relays.length === 0) return say('Name the relays to publish to in the settings first.', 'no_relays');
    if (!settings.service) return say('Give the timestamping service (a priorart serve URL) in the settings first.', 'no_service');
    const contentKind = kind();
    const d = identifier.value.trim();
    if (contentKind === 30023 && !d) return say('An article needs an identifier (d tag).', 'no_identifier');
    run.disabled = true;
    try {
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
      const submitted = await callService(`${settings.service}/v1/attestations`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(submission),
      });
      if (submitted.status !== 202) {
        say(`The service refused it: ${describeRefusal(submitted)}`, 'failed');
        return;
      }
      const id = String(submitted.body.id ?? attestation.id);
      say(`Accepted (job ${id.slice(0, 12)}…): the service stamps it at its calendars; the proof needs a Bitcoin block.`, 'accepted');
      await follow(`${settings.service}/v1/attestations/${id}`, say);
    } catch (error) {
      say(`Stopped: ${message(error)}`, 'failed');
    } finally {
      run.disabled = false;
    }
  });
}

/** Polls the job until it is published or failed, more slowly as time goes by. */
async function follow(url: string, say: (line: string, state?: string) => void): Promise<void> {
  let wait = FOLLOW_FIRST_MS;
  let last = '';
  for (;;) {
    const answer = await callService(url, {});
    if (answer.status !== 200) {
      say(`The service answered ${describeRefusal(answer)}`, 'failed');
      return;
    }
    const state = String(answer.body.state);
    if (state !== last) {
      last = state;
      say(jobLine(answer.body), state);
    }
    if (state === 'published' || state === 'failed') return;
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 1.5, FOLLOW_MAX_MS);
  }
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
