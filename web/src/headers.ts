// Block headers for the verifier, from the Esplora server the reader
// names. The verifier checks every header (proof of work, the difficulty
// at its height) and trusts none: a lying Esplora makes a proof invalid or
// unverified, never valid. Headers of blocks that verified a proof are
// kept in IndexedDB (per Esplora URL and network), so a second check of
// the same proofs asks the network for nothing; a header no proof
// verified is never stored.

/** The header interface of the priorart package: 80 bytes as hex, or null when the source has none. */
export interface HeaderSource {
  headerAt(height: number): Promise<string | null>;
}

const DB_NAME = 'priorart-headers';
const STORE = 'headers';
const HEX80 = /^[0-9a-f]{160}$/;
const HASH = /^[0-9a-f]{64}$/;
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

function key(esplora: string, network: string, height: number): string {
  return `${network}|${esplora}|${height}`;
}

async function cached(esplora: string, network: string, height: number): Promise<string | null> {
  const store = await database();
  if (!store) return null;
  return new Promise((resolve) => {
    const request = store.transaction(STORE, 'readonly').objectStore(STORE).get(key(esplora, network, height));
    request.onsuccess = () => resolve(typeof request.result === 'string' && HEX80.test(request.result) ? request.result : null);
    request.onerror = () => resolve(null);
  });
}

async function keep(esplora: string, network: string, headers: Map<number, string>): Promise<void> {
  const store = await database();
  if (!store || headers.size === 0) return;
  await new Promise<void>((resolve) => {
    const transaction = store.transaction(STORE, 'readwrite');
    const objects = transaction.objectStore(STORE);
    for (const [height, header] of headers) objects.put(header, key(esplora, network, height));
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => resolve();
    transaction.onabort = () => resolve();
  });
}

async function text(url: string): Promise<string | null> {
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), cache: 'no-store' });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.text()).trim();
}

/**
 * The headers one check uses: the IndexedDB cache first, then Esplora
 * (`/block-height/H`, `/block/HASH/header`); each fetched header is held in
 * memory for this check only, until `keepVerified` stores those of the
 * blocks that verified a proof.
 */
export class EsploraHeaders implements HeaderSource {
  readonly fetched = new Map<number, string>();
  requests = 0;
  cacheHits = 0;

  constructor(
    readonly esplora: string,
    readonly network: string,
  ) {}

  async headerAt(height: number): Promise<string | null> {
    const known = this.fetched.get(height) ?? (await cached(this.esplora, this.network, height));
    if (known) {
      if (!this.fetched.has(height)) this.cacheHits += 1;
      return known;
    }
    if (!this.esplora) return null;
    this.requests += 2;
    const hash = await text(`${this.esplora}/block-height/${height}`);
    if (hash === null) return null;
    if (!HASH.test(hash)) throw new Error(`${this.esplora}: block ${height}: not a block hash`);
    const header = await text(`${this.esplora}/block/${hash}/header`);
    if (header === null) return null;
    if (!HEX80.test(header)) throw new Error(`${this.esplora}: block ${height}: not an 80-byte header`);
    this.fetched.set(height, header);
    return header;
  }

  /** Stores the headers of these heights (blocks the verifier accepted). */
  async keepVerified(heights: Iterable<number>): Promise<void> {
    const verified = new Map<number, string>();
    for (const height of heights) {
      const header = this.fetched.get(height);
      if (header) verified.set(height, header);
    }
    await keep(this.esplora, this.network, verified);
  }
}
