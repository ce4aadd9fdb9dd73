// The browser tests' harness: the page built in web/dist served on
// 127.0.0.1, the fixture world (crates/cli/examples/web_world.rs: relays,
// Esplora, calendar and `priorart serve`, all real, all on 127.0.0.1),
// Debian's chromium driven by playwright-core, and a NIP-07 signer for the
// page. Nothing here is mocked: the page talks to the real processes.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';

export const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(WEB, '..');
export const TARGET = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(ROOT, 'target');
export const PRIORART = process.env.PRIORART_BIN ?? join(TARGET, 'debug', 'priorart');
export const CHROMIUM = process.env.PRIORART_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(TARGET, 'web-screenshots');

const WORLD = process.env.PRIORART_WEB_WORLD ?? join(TARGET, 'debug', 'examples', 'web_world');
const WORLD_STARTUP_MS = 120_000;

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * Serves `dir` (the built page) on 127.0.0.1; `origin` is what the page's
 * requests carry. A path without a file extension gets index.html; a
 * missing file gets a 404 (the page's favicon must exist). With `gzip`,
 * answers are compressed for clients that accept it, as a static host
 * does, so that transferred bytes are what a reader downloads.
 */
export async function serveStatic(dir = join(WEB, 'dist'), { gzip = false } = {}) {
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`${dir}/index.html is missing: run npm run build in web/`);
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
      if (extname(path)) {
        response.writeHead(404, { 'Content-Type': 'text/plain' });
        response.end('not found\n');
        return;
      }
      file = join(dir, 'index.html');
    }
    let body = readFileSync(file);
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' };
    if (gzip && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
      body = gzipSync(body, { level: 9 });
      headers['Content-Encoding'] = 'gzip';
    }
    response.writeHead(200, { ...headers, 'Content-Length': body.length });
    response.end(body);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${server.address().port}`;
  // A browser keeps its connections alive: they are cut, not waited for.
  const close = () => {
    const closed = new Promise((done) => server.close(done));
    server.closeAllConnections();
    return closed;
  };
  return { origin, close };
}

/** Starts the fixture world, its `priorart serve` allowing `origin` (none: no CORS); resolves with its description (URLs, scenario). */
export async function startWorld(origin, { benchEvents = 0 } = {}) {
  if (!existsSync(WORLD)) throw new Error(`${WORLD} is missing: cargo build -p priorart-cli --example web_world`);
  const args = origin ? ['--origin', origin] : [];
  if (benchEvents) args.push('--bench-events', String(benchEvents));
  const child = spawn(WORLD, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, PRIORART_BIN: PRIORART },
  });
  const lines = createInterface({ input: child.stdout });
  const world = await new Promise((resolveWorld, reject) => {
    const timer = setTimeout(() => reject(new Error('the fixture world did not start in time')), WORLD_STARTUP_MS);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolveWorld(JSON.parse(line));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fixture world exited (${code}) before it was ready`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { ...world, stop };
}

/** Debian's chromium, headless, with a fresh profile of its own (Playwright's temporary user data directory). */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A phone's viewport (the measure). */
export const PHONE = { width: 390, height: 844 };

/** A new page whose console errors and uncaught exceptions are collected in `page.problems`; `viewport` defaults to 1280×800. */
export async function newPage(browser, origin, { signerKey, viewport = { width: 1280, height: 800 } } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') page.problems.push(`console: ${message.text()}`);
  });
  if (signerKey) await injectSigner(page, signerKey);
  await page.goto(origin);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return page;
}

/**
 * A NIP-07 signer (`window.nostr`) holding `secretKey` (32 bytes): the
 * key stays in Node; the page's `window.nostr.signEvent` reaches it through
 * an exposed function, as an extension's content script reaches its
 * background page. It signs what it is given, as a user who clicks "sign".
 */
export async function injectSigner(page, secretKey) {
  await page.exposeFunction('__priorartTestSignerSign', (event) => finalizeEvent(event, secretKey));
  await page.addInitScript((pubkey) => {
    window.nostr = {
      getPublicKey: async () => pubkey,
      signEvent: async (event) => window.__priorartTestSignerSign(event),
    };
  }, getPublicKey(secretKey));
}

/** Opens the settings (folded at the bottom of the page once relays are named). */
export async function openSettings(page) {
  await page.evaluate(() => (document.getElementById('settings').open = true));
}

/** Fills the settings form and saves it. */
export async function configure(page, { relays, esplora = '', network = 'regtest', service = '', timeout = 5 }) {
  await openSettings(page);
  await page.fill('#relays', relays.join('\n'));
  await page.fill('#esplora', esplora);
  await page.selectOption('#network', network);
  await page.fill('#service', service);
  await page.fill('#timeout', String(timeout));
  await page.click('#settings-form button[type="submit"]');
  await page.waitForFunction(() => document.getElementById('settings-status').textContent.startsWith('Saved'));
}

/** Pastes `text`, asks the relays, and waits for the final verdict. */
export async function askAbout(page, text, timeout = 60_000) {
  const before = await page.getAttribute('#verdict', 'data-run');
  await page.fill('#text', text);
  await page.click('#ask');
  await page.waitForFunction(
    (previous) => {
      const verdict = document.getElementById('verdict');
      return verdict.dataset.final === 'true' && verdict.dataset.run !== previous;
    },
    before ?? '',
    { timeout },
  );
  return page.evaluate(() => JSON.parse(document.getElementById('report-json').textContent));
}

/** Saves a screenshot under target/web-screenshots: the whole page, or only the viewport (`fullPage: false`, what a reader sees first). */
export async function screenshot(page, name, { fullPage = true } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** Fails when anything makes the document wider than the viewport (`what`: the state checked). */
export async function assertFits(page, what) {
  const { scrollWidth, innerWidth, widest } = await page.evaluate(() => {
    const limit = window.innerWidth;
    // The element that sticks out, named in the failure.
    const widest = [...document.querySelectorAll('body *')]
      .filter((node) => node.getBoundingClientRect().right > limit + 0.5)
      .map((node) => `${node.tagName.toLowerCase()}${node.id ? '#' + node.id : ''}${node.className ? '.' + node.className : ''}`)
      .slice(0, 5);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: limit, widest };
  });
  if (scrollWidth > innerWidth) {
    throw new Error(`${what}: the document is ${scrollWidth} px wide in a ${innerWidth} px viewport (${widest.join(', ')})`);
  }
}

/** Runs the priorart binary; resolves with its standard output (rejects on a failure exit). */
export function priorart(args, { allowExit = [0] } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(PRIORART, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => {
      if (allowExit.includes(code)) resolveRun(stdout);
      else reject(new Error(`priorart ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}
