// Files in the page (no relay needed): every format the package reads
// gets `priorart fingerprint`'s X, a PDF one clear sentence, and the
// page's weight before the first file (the extraction module is fetched
// on the first file only). The page is served gzipped, as a static host
// serves it, so that the bytes counted are the bytes a reader downloads.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { PHONE, ROOT, assertFits, launchBrowser, newPage, priorart, screenshot, serveStatic } from './harness.mjs';

/** The page's weight budget before the first file (issue 31; BENCHMARKS.md). */
const WEIGHT_BEFORE_FIRST_FILE = 500_000;
const DATA = join(ROOT, 'crates', 'extract', 'tests', 'data');

let site;
let browser;

before(async () => {
  site = await serveStatic(undefined, { gzip: true });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.close();
});

/**
 * A one-page PDF written in ASCII only (text operators, no compression):
 * the kind of file the page used to read as text, fingerprinting its PDF
 * source. Offsets in the xref table are exact, so that PDF readers (the
 * CLI's among them) take it as it is.
 */
function asciiPdf(text) {
  const stream = `BT /F1 12 Tf 20 150 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = pdf.length;
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return pdf;
}

/** `priorart fingerprint FILE`'s X. */
async function cliX(file) {
  return (await priorart(['fingerprint', file])).trim().split(/\s+/)[0];
}

/** Chooses `file` in the page's picker and waits until the page has said something about it. */
async function choose(page, file) {
  const before = await page.evaluate(() => document.getElementById('file-status').dataset.seen ?? '0');
  await page.evaluate(() => {
    const status = document.getElementById('file-status');
    status.dataset.seen = String(Number(status.dataset.seen ?? '0') + 1);
    delete status.dataset.file;
  });
  await page.setInputFiles('#file', file);
  await page.waitForFunction(
    ([name, seen]) => {
      const status = document.getElementById('file-status');
      return status.dataset.seen !== seen && status.dataset.file && status.textContent.includes(name);
    },
    [basename(file), before],
  );
  return {
    x: await page.textContent('#x'),
    text: await page.inputValue('#text'),
    status: await page.textContent('#file-status'),
    outcome: await page.getAttribute('#file-status', 'data-file'),
  };
}

test('before the first file the page downloads at most 500 KB (gzipped) and no extraction module; the first file fetches it', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const transfers = [];
  page.on('requestfinished', async (request) => {
    const sizes = await request.sizes();
    transfers.push({ url: request.url(), bytes: sizes.responseBodySize + sizes.responseHeadersSize });
  });
  const missing = [];
  page.on('response', (response) => {
    if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(site.origin);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  await screenshot(page, 'first-view', { fullPage: false });

  const total = transfers.reduce((sum, transfer) => sum + transfer.bytes, 0);
  const listed = transfers.map((transfer) => `${transfer.bytes} ${new URL(transfer.url).pathname}`).join(', ');
  console.log(`page weight before the first file: ${total} bytes transferred in ${transfers.length} requests (${listed})`);
  assert.deepEqual(missing, [], 'every file the page asks for exists (the favicon among them)');
  assert.ok(transfers.some((transfer) => transfer.url.endsWith('favicon.svg')), 'the favicon is fetched');
  assert.ok(!transfers.some((transfer) => /priorart_extract/.test(transfer.url)), `no extraction module before the first file: ${listed}`);
  assert.ok(transfers.some((transfer) => /priorart_wasm_bg.*\.wasm$/.test(transfer.url)), 'the core module is counted');
  assert.ok(total <= WEIGHT_BEFORE_FIRST_FILE, `${total} bytes > ${WEIGHT_BEFORE_FIRST_FILE}: ${listed}`);

  const dir = mkdtempSync(join(tmpdir(), 'priorart-web-files-'));
  const note = join(dir, 'note.txt');
  writeFileSync(note, 'A short note, read from a file.\n');
  await choose(page, note);
  await page.waitForLoadState('networkidle');
  assert.ok(transfers.some((transfer) => /priorart_extract/.test(transfer.url)), 'the first file fetches the extraction module');
  await context.close();
});

test('every file the package reads gets priorart fingerprint\'s X, a PDF one sentence, on a phone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'priorart-web-files-'));
  const ascii = join(dir, 'ascii.pdf');
  writeFileSync(ascii, asciiPdf('An article whose PDF is written in plain ASCII, text operators and all.'));
  const page = await newPage(browser, site.origin, { viewport: PHONE });
  const accept = await page.getAttribute('#file', 'accept');
  for (const extension of ['.xml', '.epub', '.html', '.txt']) assert.ok(accept.split(',').includes(extension), `the picker offers ${extension}`);

  // Read: the CLI's X, whatever the format (the file's name plays no part).
  for (const name of ['jats.xml', 'tei.xml', 'book.epub', 'text-koi8r.txt', 'text-utf16be.txt']) {
    const file = join(DATA, name);
    const shown = await choose(page, file);
    assert.equal(shown.outcome, 'read', `${name}: ${shown.status}`);
    assert.equal(shown.x, await cliX(file), `${name}: the page's X is the CLI's`);
    await assertFits(page, `after ${name}`);
  }
  // The markup is gone: the X is the article's, not its XML source's.
  const jats = await choose(page, join(DATA, 'jats.xml'));
  assert.doesNotMatch(jats.text, /<article|<\/p>/, 'the XML article\'s text, not its markup');

  // PDFs, the ASCII one (once read as its PDF source) and a real one:
  // refused in one sentence naming the command that reads them; the
  // earlier file's text and X are gone.
  for (const file of [ascii, join(DATA, 'article.pdf')]) {
    assert.match(await cliX(file), /^[0-9a-f]{64}$/, `${basename(file)}: the CLI reads it`);
    const shown = await choose(page, file);
    assert.equal(shown.outcome, 'pdf', shown.status);
    assert.equal(shown.status, `${basename(file)} is a PDF, which is not read in the browser: priorart fingerprint ${basename(file)} reads it and prints its X.`);
    assert.equal(shown.text, '', 'the previous text is cleared');
    assert.equal(shown.x, '–', 'the previous X is cleared');
    await assertFits(page, `after ${basename(file)}`);
  }
  await screenshot(page, 'phone-pdf-refused');
  assert.deepEqual(page.problems, []);
});

test('while the WebAssembly module loads, the page says so and the button waits', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // The core module held back for a moment, as on a slow connection.
  let release;
  const held = new Promise((done) => (release = done));
  await page.route(/priorart_wasm_bg.*\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(site.origin);
  await page.waitForSelector('#ask-status[data-state="loading"]');
  assert.equal(await page.textContent('#ask-status'), 'Loading the fingerprinting module (WebAssembly)…');
  assert.equal(await page.textContent('#x'), 'loading…');
  assert.equal(await page.isDisabled('#ask'), true);
  // Typing meanwhile is kept: its X follows once the module is ready.
  await page.fill('#text', 'Typed while the module was loading.');
  release();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.textContent('#ask-status'), '');
  assert.match(await page.textContent('#x'), /^[0-9a-f]{64}$/);
  await context.close();
});
