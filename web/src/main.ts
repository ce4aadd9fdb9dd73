// The page: the settings (at the bottom, folded once relays are named: the
// task comes first), then the two parts once the package's WebAssembly
// module is compiled (fingerprinting needs nothing else and works offline).

import './style.css';
import { byId } from './dom';
import { clampTimeout, load, parseHttpBase, parseRelays, save, type Network, type Settings, type SettingsRead } from './settings';

/** The settings form; `current()` reads, checks and saves it. */
function setUpSettings(): { current(): SettingsRead } {
  const box = byId<HTMLDetailsElement>('settings');
  const form = byId<HTMLFormElement>('settings-form');
  const relays = byId<HTMLTextAreaElement>('relays');
  const esplora = byId<HTMLInputElement>('esplora');
  const network = byId<HTMLSelectElement>('network');
  const service = byId<HTMLInputElement>('service');
  const timeout = byId<HTMLInputElement>('timeout');
  const status = byId('settings-status');
  const summary = byId('settings-summary');

  const stored = load();
  relays.value = stored.relays.join('\n');
  esplora.value = stored.esplora;
  network.value = stored.network;
  service.value = stored.service;
  timeout.value = String(stored.timeoutSeconds);
  // A first visit has no relay: the settings are open, as the first thing to fill in after the text.
  box.open = stored.relays.length === 0;

  const open = (field: HTMLElement) => {
    box.open = true;
    field.focus();
  };

  /** The one line beside "Ask the relays" saying what it will use, with a way to change it. */
  const summarize = (settings: Settings) => {
    const change = document.createElement('a');
    change.href = '#settings';
    change.textContent = settings.relays.length === 0 ? 'name them' : 'change';
    change.addEventListener('click', (event) => {
      event.preventDefault();
      open(relays);
    });
    const parts =
      settings.relays.length === 0
        ? ['No relay named yet']
        : [
            `${settings.relays.length} relay${settings.relays.length === 1 ? '' : 's'}`,
            settings.esplora ? `headers from ${hostOf(settings.esplora)}` : 'no Esplora (proofs stay unverified)',
            settings.network,
          ];
    summary.replaceChildren(`${parts.join(', ')} (`, change, ')');
  };
  summarize(stored);

  const current = (): SettingsRead => {
    const { relays: urls, refused } = parseRelays(relays.value);
    const esploraUrl = parseHttpBase(esplora.value);
    const serviceUrl = parseHttpBase(service.value);
    const wrong: [HTMLElement, boolean, string][] = [
      [relays, refused.length > 0, `not a ws:// or wss:// relay URL: ${refused.join(', ')}`],
      [esplora, esplora.value.trim() !== '' && !esploraUrl, 'the Esplora URL is not an http(s) URL'],
      [service, service.value.trim() !== '' && !serviceUrl, 'the service URL is not an http(s) URL'],
    ];
    for (const [field, bad] of wrong) field.setAttribute('aria-invalid', String(bad));
    const problems = wrong.filter(([, bad]) => bad);
    if (problems.length > 0) {
      const problem = `Settings not saved: ${problems.map(([, , what]) => what).join('; ')}.`;
      status.textContent = problem;
      status.dataset.state = 'error';
      // The field to fix, open and focused; the caller says why beside the button clicked.
      open(problems[0]![0]);
      return { ok: false, problem };
    }
    const settings: Settings = {
      relays: urls,
      esplora: esploraUrl ?? '',
      network: network.value as Network,
      service: serviceUrl ?? '',
      timeoutSeconds: clampTimeout(Number(timeout.value)),
    };
    // The value used, shown: a 0 or an empty field means the default, and the field says so.
    timeout.value = String(settings.timeoutSeconds);
    save(settings);
    // A refusal fixed is a refusal gone.
    if (status.dataset.state === 'error') {
      status.textContent = '';
      delete status.dataset.state;
    }
    summarize(settings);
    return { ok: true, settings };
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const read = current();
    if (read.ok) {
      const { settings } = read;
      status.textContent = `Saved in this browser: ${settings.relays.length} relay(s)${settings.esplora ? ', Esplora' : ', no Esplora (proofs stay unverified)'}${settings.service ? ', a timestamping service' : ''}.`;
      status.dataset.state = 'saved';
    }
  });
  return { current };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

async function start(): Promise<void> {
  const settings = setUpSettings();
  const ask = byId<HTMLButtonElement>('ask');
  const askStatus = byId('ask-status');
  ask.disabled = true;
  // The package compiles its core WebAssembly module (about 400 KB
  // gzipped) before it answers: the reader sees what is being waited for.
  // The text field works meanwhile; its X follows once the module is ready.
  askStatus.textContent = 'Loading the fingerprinting module (WebAssembly)…';
  askStatus.dataset.state = 'loading';
  byId('x').textContent = 'loading…';
  let parts: [typeof import('./who'), typeof import('./protect')];
  try {
    parts = await Promise.all([import('./who'), import('./protect')]);
  } catch (error) {
    askStatus.textContent = `The priorart module did not load: ${error instanceof Error ? error.message : String(error)}`;
    askStatus.dataset.state = 'error';
    return;
  }
  askStatus.textContent = '';
  delete askStatus.dataset.state;
  const [{ setUpWho }, { setUpProtect }] = parts;
  const who = setUpWho({ settings: settings.current });
  setUpProtect({ settings: settings.current, text: who.text, x: who.x });
  ask.disabled = false;
  document.body.dataset.ready = 'true';
}

void start();
