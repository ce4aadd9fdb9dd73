// What the reader set, remembered in this browser (localStorage) and
// nowhere else. Nothing here has a default relay: none is contacted
// before the reader names it.

export type Network = 'mainnet' | 'regtest';

export interface Settings {
  relays: string[];
  esplora: string;
  network: Network;
  service: string;
  timeoutSeconds: number;
}

/**
 * The settings in force, or what is wrong with them: the caller says it
 * where the reader acted (next to the button clicked), not only in the
 * settings form, which may be closed or scrolled away.
 */
export type SettingsRead = { ok: true; settings: Settings } | { ok: false; problem: string };

const KEY = 'priorart.settings.v1';
export const DEFAULT_TIMEOUT_SECONDS = 10;
const MAX_TIMEOUT_SECONDS = 120;

export const DEFAULTS: Settings = {
  relays: [],
  esplora: '',
  network: 'mainnet',
  service: '',
  timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
};

/** The stored settings; anything missing or unreadable falls back to the defaults. */
export function load(): Settings {
  let stored: unknown;
  try {
    stored = JSON.parse(localStorage.getItem(KEY) ?? 'null');
  } catch {
    stored = null;
  }
  if (typeof stored !== 'object' || stored === null) return { ...DEFAULTS };
  const value = stored as Partial<Record<keyof Settings, unknown>>;
  return {
    relays: Array.isArray(value.relays) ? value.relays.filter((r): r is string => typeof r === 'string') : [],
    esplora: typeof value.esplora === 'string' ? value.esplora : '',
    network: value.network === 'regtest' ? 'regtest' : 'mainnet',
    service: typeof value.service === 'string' ? value.service : '',
    timeoutSeconds: clampTimeout(Number(value.timeoutSeconds)),
  };
}

export function save(settings: Settings): void {
  localStorage.setItem(KEY, JSON.stringify(settings));
}

export function clampTimeout(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return DEFAULT_TIMEOUT_SECONDS;
  return Math.min(Math.max(Math.round(seconds), 1), MAX_TIMEOUT_SECONDS);
}

/** The relay URLs of a text, one a line: ws:// or wss:// only, each once; the rest named as refused. */
export function parseRelays(text: string): { relays: string[]; refused: string[] } {
  const relays: string[] = [];
  const refused: string[] = [];
  for (const line of text.split(/\s+/)) {
    const candidate = line.trim();
    if (!candidate) continue;
    let url: URL;
    try {
      url = new URL(candidate);
    } catch {
      refused.push(candidate);
      continue;
    }
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      refused.push(candidate);
      continue;
    }
    // The URL as typed (a relay's URL is its name in the report), without a lone trailing slash.
    const name = candidate.replace(/\/$/, '');
    if (!relays.includes(name)) relays.push(name);
  }
  return { relays, refused };
}

/** An http(s) base URL without a trailing slash, or null. */
export function parseHttpBase(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  try {
    const url = new URL(trimmed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  } catch {
    return null;
  }
  return trimmed.replace(/\/+$/, '');
}
