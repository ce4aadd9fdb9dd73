// Block headers for the verifier: the package's Esplora source (the URL
// the reader names) behind a cache in IndexedDB. The verifier checks
// every header (proof of work, the exact difficulty at its height, links)
// and trusts none: a lying Esplora makes a proof invalid or unverified,
// never valid. The package hands the cache only the headers the verifier
// confirmed (`confirmed`), so one lying answer cannot poison it; a second
// check of the same proofs asks the network for nothing.

import type { HeaderSource } from 'priorart';
import { cachedHeaders, esploraHeaders, memoryHeaders } from './priorart';

const DB_NAME = 'priorart-headers';
const STORE = 'headers';
const HEX80 = /^[0-9a-f]{160}$/;
const FETCH_TIMEOUT_MS = 10_000;

function openDb(): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    // Private windows may refuse storage: the page works without the cache.
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
}

let db: Promise<IDBDatabase | null> | null = null;
function database(): Promise<IDBDatabase | null> {
  db ??= openDb();
  return db;
}

/** Headers confirmed by the verifier, per network and Esplora URL, in IndexedDB. */
function indexedDbCache(scope: string) {
  const key = (height: number) => `${scope}|${height}`;
  return {
    async headerAt(height: number): Promise<string | null> {
      const store = await database();
      if (!store) return null;
      return new Promise((resolve) => {
        const request = store.transaction(STORE, 'readonly').objectStore(STORE).get(key(height));
        request.onsuccess = () => resolve(typeof request.result === 'string' && HEX80.test(request.result) ? request.result : null);
        request.onerror = () => resolve(null);
      });
    },
    async confirmed(height: number, hex: string): Promise<void> {
      const store = await database();
      if (!store) return;
      await new Promise<void>((resolve) => {
        const transaction = store.transaction(STORE, 'readwrite');
        transaction.objectStore(STORE).put(hex, key(height));
        transaction.oncomplete = () => resolve();
        transaction.onerror = () => resolve();
        transaction.onabort = () => resolve();
      });
    },
  };
}

/** What one check asked of Esplora. */
export interface HeaderStats {
  requests: number;
}

/**
 * The header source of one check: the reader's Esplora (each request
 * under a time limit, so a hanging server cannot stall the page) behind the
 * IndexedDB cache; no Esplora URL: no headers, every proof unverified.
 * `onRequest` is told of each request (the page says what it waits for).
 */
export function headerSource(
  esplora: string,
  network: string,
  onRequest: (stats: HeaderStats) => void = () => undefined,
): { headers: HeaderSource; stats: HeaderStats } {
  const stats: HeaderStats = { requests: 0 };
  if (!esplora) return { headers: memoryHeaders([], { name: 'no Esplora URL set' }), stats };
  const timed: typeof fetch = (input, init) => {
    stats.requests += 1;
    onRequest(stats);
    return fetch(input, { ...init, cache: 'no-store', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  };
  const headers = cachedHeaders(esploraHeaders(esplora, { fetch: timed }), indexedDbCache(`${network}|${esplora}`));
  return { headers, stats };
}
