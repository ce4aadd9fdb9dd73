// The page in Debian's chromium against real components on 127.0.0.1
// (see harness.mjs): ranking, lying and hanging relays, a stolen proof,
// the creator flow with a NIP-07 signer through `priorart serve`, and the
// X of real HTML files against `priorart fingerprint`. Screenshots go to
// target/web-screenshots.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import { getPublicKey } from 'nostr-tools/pure';
import {
  ROOT,
  askAbout,
  configure,
  launchBrowser,
  newPage,
  priorart,
  screenshot,
  serveStatic,
  startWorld,
} from './harness.mjs';

let site;
let world;
let browser;

before(async () => {
  site = await serveStatic();
  world = await startWorld(site.origin);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await world?.stop();
  await site?.close();
});

/** A filter with its kinds sorted (their order means nothing). */
function sorted(filter) {
  return { ...filter, kinds: [...filter.kinds].sort((a, b) => a - b) };
}

/** What `priorart check --json` answers for `text` on these relays. */
async function cliCheck(text, relays) {
  const file = join(mkdtempSync(join(tmpdir(), 'priorart-web-')), 'text.txt');
  writeFileSync(file, text);
  const args = ['check', '--json', '--network', 'regtest', '--no-header-cache', '--esplora', world.esplora];
  for (const relay of relays) args.push('--relay', relay);
  // 0: proven; 1: a negative verdict; 3: unverified.
  return JSON.parse(await priorart([...args, file], { allowExit: [0, 1, 3] }));
}

test('the earliest proven author ranks first and a later copier second, in check\'s words', async () => {
  const page = await newPage(browser, site.origin);
  const queries = [];
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      const message = JSON.parse(payload);
      if (message[0] === 'REQ') queries.push(message[2]);
    }),
  );
  await configure(page, { relays: world.relays, esplora: world.esplora });
  const report = await askAbout(page, world.scenario.text);
  await screenshot(page, 'ranking');

  assert.equal(queries.length, world.relays.length, 'one query per relay');
  for (const filter of queries) {
    assert.deepEqual(sorted(filter), sorted(world.scenario.discovery_filter), 'the NIP\'s discovery query, as the CLI sends it');
  }

  assert.equal(await page.textContent('#x'), world.scenario.x);
  const rows = await page.$$eval('#ranking tbody tr', (trs) => trs.map((tr) => [tr.dataset.rank, tr.dataset.author]));
  assert.deepEqual(rows, [
    ['1', world.scenario.first],
    ['2', world.scenario.copier],
  ]);
  const blocks = report.proofs.map((proof) => proof.block.height);
  assert.deepEqual(blocks, [world.scenario.first_block, world.scenario.copier_block]);

  const cli = await cliCheck(world.scenario.text, world.relays);
  assert.equal(await page.textContent('#verdict'), cli.verdict.text, 'the verdict in priorart check\'s words');
  assert.equal(report.verdict.status, 'proven');
  assert.deepEqual(
    report.proofs.map((proof) => [proof.rank, proof.author, proof.event_id]),
    cli.proofs.map((proof) => [proof.rank, proof.author, proof.event_id]),
  );
  assert.deepEqual(
    report.refused.map((proof) => [proof.event_id, proof.reasons]),
    cli.refused.map((proof) => [proof.event_id, proof.reasons]),
  );
  assert.deepEqual(page.problems, []);
});

test('a stolen proof is shown invalid with its reason; lying, hanging and silent relays do not break the page', async () => {
  const page = await newPage(browser, site.origin);
  const relays = [...world.relays, world.liar, world.hang, world.silent];
  await configure(page, { relays, esplora: world.esplora, timeout: 3 });
  const report = await askAbout(page, world.scenario.text);
  await screenshot(page, 'liars');

  const stolen = page.locator(`#refused li[data-event="${world.scenario.stolen_proof}"]`);
  assert.equal(await stolen.getAttribute('data-verdict'), 'invalid');
  assert.match(await stolen.getAttribute('data-reasons'), /\bproof_for_other_digest\b/);
  assert.match(await stolen.textContent(), /proof_for_other_digest/);

  const state = (url) => page.getAttribute(`#relay-list li[data-relay="${url}"]`, 'data-state');
  assert.equal(await state(world.hang), 'timeout');
  assert.equal(await state(world.silent), 'unreachable');
  assert.equal(await state(world.liar), 'eose');
  const liar = report.relays.find((relay) => relay.url === world.liar);
  const skipped = Object.fromEntries(liar.skipped.map((skip) => [skip.reason, skip.count]));
  assert.deepEqual(skipped, { bad_id: 1, bad_signature: 1 }, 'the liar\'s forgeries are not kept');
  assert.match(await page.textContent(`#relay-list li[data-relay="${world.liar}"]`), /not kept: 1 bad id, 1 bad signature/);

  const rows = await page.$$eval('#ranking tbody tr', (trs) => trs.map((tr) => tr.dataset.author));
  assert.deepEqual(rows, [world.scenario.first, world.scenario.copier], 'the liars change no rank');
  assert.equal(report.verdict.status, 'proven');
  assert.deepEqual(page.problems, []);
});

test('without an Esplora URL every proof is shown unverified, none hidden and none valid', async () => {
  const page = await newPage(browser, site.origin);
  await configure(page, { relays: world.relays, esplora: '' });
  const report = await askAbout(page, world.scenario.text);
  await screenshot(page, 'unverified');
  assert.equal(report.proofs.length, 0);
  const unverified = await page.$$eval('#unverified li[data-verdict="unverified"]', (items) => items.length);
  assert.equal(unverified, 2, 'the two honest proofs, unverified');
  assert.equal(report.refused.length, 1, 'the stolen proof is invalid without any header');
  assert.notEqual(report.verdict.status, 'proven');
});

test('the creator flow with a NIP-07 signer reaches "published", and the page then finds the proof', async () => {
  const key = randomBytes(32);
  const author = getPublicKey(key);
  const page = await newPage(browser, site.origin, { signerKey: key });
  await configure(page, { relays: world.relays, esplora: world.esplora, service: world.serve });
  const text = `A harbour pilot's notes on the tides of ${randomBytes(6).toString('hex')}: where the channel shoals, which buoys drift in a gale, and how the ebb sets a loaded ship towards the northern bank.`;
  await page.fill('#text', text);
  await page.click('#protect-run');
  const ended = await page
    .waitForSelector('#protect-status[data-state="published"], #protect-status[data-state="failed"]', { timeout: 90_000 })
    .catch((error) => error);
  await screenshot(page, 'protect-published');
  const log = await page.$$eval('#protect-log li', (items) => items.map((item) => item.textContent));
  assert.equal(await page.getAttribute('#protect-status', 'data-state'), 'published', `${ended}\n${log.join('\n')}`);
  assert.ok(log.some((line) => /: accepted/.test(line)), log.join('\n'));

  const report = await askAbout(page, text);
  assert.equal(report.verdict.status, 'proven', report.verdict.text);
  assert.equal(report.proofs[0].author, author);
  assert.equal(report.proofs[0].content.found, true, 'the content event the page published');
  assert.deepEqual(page.problems, []);
});

test('the X of real HTML files is priorart fingerprint\'s, offline', async () => {
  const files = [
    '/usr/share/doc/base-passwd/users-and-groups.html',
    ...['utf8', 'windows1251', 'shiftjis', 'utf16', 'latin1-undeclared', 'mislabelled'].map((name) =>
      join(ROOT, 'crates', 'extract', 'tests', 'data', `html-${name}.html`),
    ),
  ].filter((file) => existsSync(file));
  assert.ok(files.length >= 6);
  const page = await newPage(browser, site.origin);
  await page.context().setOffline(true);
  for (const file of files) {
    const expected = (await priorart(['fingerprint', file])).trim().split(/\s+/)[0];
    await page.setInputFiles('#file', file);
    await page.waitForFunction((name) => document.getElementById('file-status').textContent.includes(name), basename(file));
    assert.equal(await page.textContent('#x'), expected, file);
  }
  await page.click('#explain summary');
  assert.ok((await page.textContent('#words')).length > 0, 'the canonical words, on request');
  await screenshot(page, 'html-offline');
  assert.deepEqual(page.problems, []);
});

test('no relay is contacted before the reader names one, and the settings are remembered', async () => {
  const page = await newPage(browser, site.origin);
  const sockets = [];
  page.on('websocket', (socket) => sockets.push(socket.url()));
  await page.fill('#text', world.scenario.text);
  await page.click('#ask');
  assert.match(await page.textContent('#ask-status'), /Name at least one relay/);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'relays', 'the relay field gets the focus');
  await configure(page, { relays: [world.relays[0]], esplora: world.esplora });
  assert.deepEqual(sockets, [], 'saving the settings contacts nobody');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#relays'), world.relays[0]);
  assert.equal(await page.inputValue('#esplora'), world.esplora);
  assert.deepEqual(sockets, []);
  assert.deepEqual(page.problems, []);
});
