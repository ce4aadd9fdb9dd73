// The page: the settings form, then the two parts, once the package's
// WebAssembly module is compiled (fingerprinting needs nothing else and
// works offline).

import './style.css';
import { byId } from './dom';
import { clampTimeout, load, parseHttpBase, parseRelays, save, type Network, type Settings } from './settings';

function setUpSettings(): { current(): Settings | null } {
  const form = byId<HTMLFormElement>('settings-form');
  const relays = byId<HTMLTextAreaElement>('relays');
  const esplora = byId<HTMLInputElement>('esplora');
  const network = byId<HTMLSelectElement>('network');
  const service = byId<HTMLInputElement>('service');
  const timeout = byId<HTMLInputElement>('timeout');
  const status = byId('settings-status');

  const stored = load();
  relays.value = stored.relays.join('\n');
  esplora.value = stored.esplora;
  network.value = stored.network;
  service.value = stored.service;
  timeout.value = String(stored.timeoutSeconds);

  /** The form's settings, saved; null (and said why) when a field is wrong. */
  const current = (): Settings | null => {
    const { relays: urls, refused } = parseRelays(relays.value);
    const problems: string[] = [];
    if (refused.length > 0) problems.push(`not a ws:// or wss:// relay URL: ${refused.join(', ')}`);
    const esploraUrl = parseHttpBase(esplora.value);
    if (esplora.value.trim() && !esploraUrl) problems.push('the Esplora URL is not an http(s) URL');
    const serviceUrl = parseHttpBase(service.value);
    if (service.value.trim() && !serviceUrl) problems.push('the service URL is not an http(s) URL');
    for (const [field, bad] of [
      [relays, refused.length > 0],
      [esplora, esplora.value.trim() !== '' && !esploraUrl],
      [service, service.value.trim() !== '' && !serviceUrl],
    ] as const) {
      field.setAttribute('aria-invalid', String(bad));
    }
    if (problems.length > 0) {
      status.textContent = `Settings not saved: ${problems.join('; ')}.`;
      return null;
    }
    const settings: Settings = {
      relays: urls,
      esplora: esploraUrl ?? '',
      network: network.value as Network,
      service: serviceUrl ?? '',
      timeoutSeconds: clampTimeout(Number(timeout.value)),
    };
    save(settings);
    return settings;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const settings = current();
    if (settings) {
      status.textContent = `Saved in this browser: ${settings.relays.length} relay(s)${settings.esplora ? ', Esplora' : ', no Esplora (proofs stay unverified)'}${settings.service ? ', a timestamping service' : ''}.`;
    }
  });
  return { current };
}

async function start(): Promise<void> {
  const settings = setUpSettings();
  const ask = byId<HTMLButtonElement>('ask');
  ask.disabled = true;
  // The parts import the package, which compiles its WebAssembly module as
  // it loads: a browser that cannot is told so here.
  let parts: [typeof import('./who'), typeof import('./protect')];
  try {
    parts = await Promise.all([import('./who'), import('./protect')]);
  } catch (error) {
    byId('ask-status').textContent = `The priorart module did not load: ${error instanceof Error ? error.message : String(error)}`;
    return;
  }
  const [{ setUpWho }, { setUpProtect }] = parts;
  const who = setUpWho({ settings: settings.current });
  setUpProtect({ settings: settings.current, text: who.text, x: who.x });
  ask.disabled = false;
  document.body.dataset.ready = 'true';
}

void start();
