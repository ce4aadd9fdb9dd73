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
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import {
  PHONE,
  PRIORART,
  ROOT,
  askAbout,
  assertFits,
  configure,
  launchBrowser,
  newPage,
  openSettings,
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

/**
 * Records, in the page, every text the status line beside the button
 * takes (`window.__statuses`) and every provisional verdict's note
 * (`window.__provisional`), however briefly shown.
 */
async function recordStatuses(page) {
  await page.evaluate(() => {
    window.__statuses = [];
    window.__provisional = [];
    const status = document.getElementById('ask-status');
    const verdict = document.getElementById('verdict');
    const note = document.getElementById('verdict-note');
    new MutationObserver(() => window.__statuses.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
    new MutationObserver(() => {
      if (verdict.dataset.provisional === 'true') window.__provisional.push(note.textContent);
    }).observe(note, { childList: true, characterData: true, subtree: true });
  });
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

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
  await recordStatuses(page);
  const report = await askAbout(page, world.scenario.text);
  await screenshot(page, 'ranking');
  const statuses = await page.evaluate(() => window.__statuses);
  assert.ok(
    statuses.some((line) => /waiting for Bitcoin block headers from 127\.0\.0\.1:\d+/.test(line)),
    `the status names the block headers it waits for: ${statuses.join(' | ')}`,
  );
  assert.match(await page.textContent('#verdict-note'), /^Final: every relay answered or ended \(3 answered\)\.$/);

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
  await recordStatuses(page);
  const report = await askAbout(page, world.scenario.text);
  await screenshot(page, 'liars');
  // While the hanging relay is still open, the verdict on what has arrived is marked provisional and names it.
  const notes = await page.evaluate(() => window.__provisional);
  assert.ok(notes.some((note) => note.startsWith('Provisional:') && note.includes(`${world.hang} (answering)`)), notes.join(' | '));
  assert.equal(await page.getAttribute('#verdict', 'data-provisional'), null, 'the final verdict is not provisional');
  assert.match(await page.textContent('#verdict-note'), /^Final: .*1 timeout.*1 unreachable/);

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
  assert.equal(report.verdict.status, 'unverified', 'proofs found, none checked: said so, before any created_at');
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

test('the X of real HTML files is priorart fingerprint\'s, offline once the first file fetched the reader', async () => {
  const files = [
    '/usr/share/doc/base-passwd/users-and-groups.html',
    ...['utf8', 'windows1251', 'shiftjis', 'utf16', 'latin1-undeclared', 'mislabelled'].map((name) =>
      join(ROOT, 'crates', 'extract', 'tests', 'data', `html-${name}.html`),
    ),
  ].filter((file) => existsSync(file));
  assert.ok(files.length >= 6);
  const page = await newPage(browser, site.origin);
  for (const [index, file] of files.entries()) {
    // The first file fetches the document reader; once it is here, files are read offline.
    if (index === 1) await page.context().setOffline(true);
    const expected = (await priorart(['fingerprint', file])).trim().split(/\s+/)[0];
    await page.evaluate(() => delete document.getElementById('file-status').dataset.file);
    await page.setInputFiles('#file', file);
    await page.waitForFunction(
      (name) => {
        const status = document.getElementById('file-status');
        return status.dataset.file && status.textContent.includes(name);
      },
      basename(file),
    );
    assert.equal(await page.getAttribute('#file-status', 'data-file'), 'read', await page.textContent('#file-status'));
    assert.equal(await page.textContent('#x'), expected, file);
  }
  await page.click('#explain summary');
  // The details' toggle event comes after the click, in a task of its own.
  await page.waitForFunction(() => document.getElementById('words').textContent.length > 0);
  assert.match(await page.textContent('#words'), /^Kept \d+ of \d+ words/, 'the canonical words, on request');
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
  await configure(page, { relays: [world.relays[0]], esplora: world.esplora, timeout: 0 });
  assert.equal(await page.inputValue('#timeout'), '10', 'a timeout of 0 means the default, and the field shows the 10 s used');
  assert.deepEqual(sockets, [], 'saving the settings contacts nobody');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#relays'), world.relays[0]);
  assert.equal(await page.inputValue('#esplora'), world.esplora);
  assert.deepEqual(sockets, []);
  assert.deepEqual(page.problems, []);
});

test('a bad relay URL is answered next to the button, and the answer goes once the list is fixed', async () => {
  const page = await newPage(browser, site.origin);
  await configure(page, { relays: world.relays, esplora: world.esplora });
  // The settings are folded once relays are named: the task comes first.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(() => document.getElementById('settings').open), false);
  await openSettings(page);
  await page.fill('#relays', [...world.relays, 'relay.example.com'].join('\n'));
  await page.evaluate(() => (document.getElementById('settings').open = false));
  await page.fill('#text', world.scenario.text);
  await page.click('#ask');
  assert.equal(await page.getAttribute('#ask-status', 'data-state'), 'error');
  assert.match(await page.textContent('#ask-status'), /Nothing asked: .*not a ws:\/\/ or wss:\/\/ relay URL: relay\.example\.com/);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'relays', 'the field to fix is opened and focused');
  assert.equal(await page.getAttribute('#relays', 'aria-invalid'), 'true');
  assert.ok(await page.isHidden('#results'), 'nothing was asked');

  await page.fill('#relays', world.relays.join('\n'));
  const report = await askAbout(page, world.scenario.text);
  assert.equal(report.verdict.status, 'proven');
  assert.equal(await page.getAttribute('#ask-status', 'data-state'), 'done');
  assert.match(await page.textContent('#ask-status'), /^Checked 3 relay\(s\)/);
  assert.equal(await page.textContent('#settings-status'), '', 'the refusal in the settings is gone too');
  assert.equal(await page.getAttribute('#relays', 'aria-invalid'), 'false');
  assert.deepEqual(page.problems, []);
});

test('on a phone nothing is wider than the screen: first view, settings, a result, protect\'s error', async () => {
  const page = await newPage(browser, site.origin, { viewport: PHONE });
  await assertFits(page, 'the first view');
  await screenshot(page, 'phone-first-view', { fullPage: false });
  await configure(page, { relays: [...world.relays, world.liar, world.hang, world.silent], esplora: world.esplora, service: world.serve, timeout: 3 });
  await assertFits(page, 'the settings open');
  await askAbout(page, world.scenario.text);
  await assertFits(page, 'a verdict with its ranking');
  await page.click('#results details summary');
  await assertFits(page, 'the report\'s JSON open');
  await page.locator('#verdict').scrollIntoViewIfNeeded();
  await screenshot(page, 'phone-result', { fullPage: false });
  await page.locator('#ranking').scrollIntoViewIfNeeded();
  await screenshot(page, 'phone-ranking', { fullPage: false });
  await screenshot(page, 'phone-result-full');
  await page.click('#protect-run');
  await page.waitForSelector('#protect-status[data-state="no_signer"]');
  await assertFits(page, 'protect without a signer');
  assert.deepEqual(page.problems, []);
});

test('protect checks the service first: unreachable, or not allowing the page\'s origin, publishes nothing', async () => {
  const key = randomBytes(32);
  const port = await closedPort();
  // The same page from another origin: the service is up but allows only the first origin.
  const elsewhere = await serveStatic();
  try {
    for (const [origin, service, expected] of [
      [site.origin, `http://127.0.0.1:${port}`, /^Nothing signed or published: the service cannot be reached \(http:\/\/127\.0\.0\.1:\d+\/healthz\)\.$/],
      [elsewhere.origin, world.serve, /^Nothing signed or published: the service is reachable but does not allow this page's origin \(http:\/\/127\.0\.0\.1:\d+\): its operator adds --cors-origin http:\/\/127\.0\.0\.1:\d+\.$/],
    ]) {
      const page = await newPage(browser, origin, { signerKey: key, viewport: PHONE });
      const sockets = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      await configure(page, { relays: world.relays, esplora: world.esplora, service });
      await page.fill('#text', `A text that must stay private until its service is known to work, ${randomBytes(6).toString('hex')}.`);
      await page.click('#protect-run');
      await page.waitForSelector('#protect-status[data-state="service_unusable"]', { timeout: 30_000 });
      assert.match(await page.textContent('#protect-status'), expected);
      assert.deepEqual(sockets, [], 'no relay was contacted: nothing published');
      assert.doesNotMatch(await page.textContent('#protect'), /Asking the signer/, 'nothing was signed');
      assert.equal(await page.isEnabled('#protect-run'), true, 'the button is free again');
      await assertFits(page, 'protect\'s error state');
      if (origin === site.origin) {
        await page.locator('#protect').scrollIntoViewIfNeeded();
        await screenshot(page, 'protect-error', { fullPage: false });
      }
      assert.deepEqual(page.problems.filter((problem) => !/Failed to load resource|CORS|ERR_CONNECTION_REFUSED|healthz/.test(problem)), []);
      await page.context().close();
    }
  } finally {
    await elsewhere.close();
  }
});

test('without a signer, protect says so once', async () => {
  const page = await newPage(browser, site.origin);
  await configure(page, { relays: world.relays, esplora: world.esplora, service: world.serve });
  await page.fill('#text', world.scenario.text);
  await page.click('#protect-run');
  await page.waitForSelector('#protect-status[data-state="no_signer"]');
  const said = await page.textContent('#protect');
  assert.equal(said.split('No NIP-07 signer').length - 1, 1, said);
});

/** The REQ filters the page sends, in order. */
function recordQueries(page) {
  const queries = [];
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      const message = JSON.parse(payload);
      if (message[0] === 'REQ') queries.push(message[2]);
    }),
  );
  return queries;
}

test('an edited copy: the verdict names the original\'s proven author, not the copier, in check\'s words', async () => {
  const { near } = world;
  const page = await newPage(browser, site.origin);
  const queries = recordQueries(page);
  await configure(page, { relays: world.relays, esplora: world.esplora });
  const report = await askAbout(page, near.copy);
  await page.locator('#verdict').scrollIntoViewIfNeeded();
  await screenshot(page, 'near-copy', { fullPage: false });

  const cli = await cliCheck(near.copy, world.relays);
  assert.equal(cli.verdict.status, 'near_copy_proven', cli.verdict.text);
  assert.equal(report.verdict.status, 'near_copy_proven', report.verdict.text);
  assert.equal(await page.textContent('#verdict'), cli.verdict.text, 'the verdict in priorart check\'s words');
  assert.equal(report.verdict.earliest.author, near.author, 'the essay\'s proven author');
  assert.equal(report.verdict.earliest.height, near.author_block);
  assert.equal(report.verdict.earliest.near_copy.x, near.essay_x);
  assert.equal(report.verdict.earliest.near_copy.event_id, near.essay_event);
  assert.deepEqual(
    report.proofs.map((proof) => [proof.author, proof.block.height]),
    [[near.copier, near.copier_block]],
    'the copier\'s own proof is ranked, later',
  );
  assert.equal(await page.getAttribute('#near li[data-earliest="true"]', 'data-author'), near.author);
  assert.match(await page.textContent('#near li[data-earliest="true"]'), new RegExp(`^proven at block ${near.author_block} `));
  await page.setViewportSize(PHONE);
  await assertFits(page, 'a near-copy verdict');
  await page.locator('#verdict').scrollIntoViewIfNeeded();
  await screenshot(page, 'phone-near-copy', { fullPage: false });

  // Each relay: the X query, the near-copy query (the CLI's keys), then the near copy's proofs.
  const by = (test) => queries.filter(test).length;
  assert.equal(by((filter) => filter['#X']?.[0] === near.copy_x), world.relays.length);
  assert.equal(by((filter) => filter['#B']?.length === cli.fuzzy.keys), world.relays.length, JSON.stringify(queries));
  assert.equal(by((filter) => filter['#X']?.includes(near.essay_x)), world.relays.length);
  assert.equal(queries.length, 3 * world.relays.length);
  assert.deepEqual(page.problems, []);
});

test('the same copy without block headers: its proofs named unverified, nobody called proven', async () => {
  const { near } = world;
  const page = await newPage(browser, site.origin);
  await configure(page, { relays: world.relays, esplora: '' });
  const report = await askAbout(page, near.copy);
  assert.equal(report.verdict.status, 'unverified', report.verdict.text);
  assert.match(await page.textContent('#verdict'), /none could be checked: no block headers/);
  assert.equal(report.proofs.length, 0);
  assert.deepEqual(
    await page.$$eval('#unverified li[data-verdict="unverified"]', (items) => items.length),
    1,
    'the copier\'s proof, unverified',
  );
  assert.match(await page.textContent(`#near li[data-author="${near.author}"]`), /^no valid proof .*1 unverified proof\(s\)/);
  assert.deepEqual(page.problems, []);
});

/**
 * A `priorart serve` of its own whose only calendar is a closed port (its
 * jobs never get stamped), on the world's chain and relays, allowing
 * `origin`; resolves with its URL and a stop function.
 */
async function serveWithDeadCalendar(origin) {
  const state = mkdtempSync(join(tmpdir(), 'priorart-web-serve-'));
  const args = ['serve', '--listen', '127.0.0.1:0', '--state', state, '--interval', '1', '--timeout', '2'];
  args.push('--calendar', `http://127.0.0.1:${await closedPort()}`, '--network', 'regtest', '--no-header-cache');
  args.push('--esplora', world.esplora, '--cors-origin', origin, ...world.relays.flatMap((relay) => ['--relay', relay]));
  const child = spawn(PRIORART, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error('priorart serve printed no URL in time')), 30_000);
    createInterface({ input: child.stderr }).on('line', (line) => {
      const found = line.match(/http:\/\/\S+/);
      if (found) {
        clearTimeout(timer);
        resolveUrl(found[0]);
      }
    });
    child.once('exit', (code) => reject(new Error(`priorart serve exited ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

test('following a job shows the calendars\' failures, and the reader can stop following', async () => {
  const service = await serveWithDeadCalendar(site.origin);
  try {
    const page = await newPage(browser, site.origin, { signerKey: randomBytes(32) });
    await configure(page, { relays: world.relays, esplora: world.esplora, service: service.url });
    await page.fill('#text', `A text whose service cannot reach its calendar, ${randomBytes(6).toString('hex')}.`);
    await page.click('#protect-run');
    await page.waitForSelector('#protect-log li[data-step="accepted"], #protect-status[data-state="accepted"]', { timeout: 30_000 });
    assert.equal(await page.isEnabled('#protect-run'), true, 'the button is free while the job is followed');
    assert.equal(await page.isVisible('#protect-stop'), true);
    // The calendar's failure, not "waiting for the next round" alone.
    await page.waitForSelector('#protect-status[data-state="job_error"]', { timeout: 30_000 });
    assert.match(
      await page.textContent('#protect-status'),
      /^The service reports a problem with this job: last error: cannot stamp: .*http:\/\/127\.0\.0\.1:\d+\/digest: Connection refused/,
    );
    await page.click('#protect-stop');
    assert.equal(await page.getAttribute('#protect-status', 'data-state'), 'stopped');
    assert.equal(await page.isHidden('#protect-stop'), true);
    const log = await page.$$eval('#protect-log li', (items) => items.length);
    await new Promise((done) => setTimeout(done, 2_500));
    assert.equal(await page.$$eval('#protect-log li', (items) => items.length), log, 'nothing more is said once stopped');
    assert.deepEqual(page.problems, []);
  } finally {
    service.stop();
  }
});
