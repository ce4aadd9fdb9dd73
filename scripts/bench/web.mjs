#!/usr/bin/env node
// Time from paste to verdict on the page (web/), for BENCHMARKS.md: three
// `priorart relay` processes each holding the same 1,000 events for one X
// (900 notes by as many authors, 100 valid kind 1041 proofs, each in its
// own regtest block), headers from a loopback Esplora, in Debian's
// chromium (playwright-core). The peer, measured in the same run against
// the same relays and Esplora: `priorart check --json --no-header-cache`.
//
// Each run is a fresh browser context (empty IndexedDB: every header
// fetched), then the same text asked again in that page (headers from
// IndexedDB: "warm").
//
//   node scripts/bench/web.mjs [RUNS]
//
// Needs web/dist (npm run build in web/), the release `priorart` (the
// relays and the peer: cargo build --release --locked -p priorart-cli) and
// the fixture world (crates/cli/examples/web_world.rs, any profile: it only
// sets up; cargo build --locked -p priorart-cli --example web_world).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const profile = process.env.PROFILE ?? 'release';
const target = process.env.CARGO_TARGET_DIR ?? join(new URL('../..', import.meta.url).pathname, 'target');
process.env.PRIORART_BIN ??= join(target, profile, 'priorart');
process.env.PRIORART_WEB_WORLD ??= join(target, 'debug', 'examples', 'web_world');
const { askAbout, configure, launchBrowser, newPage, serveStatic, startWorld } = await import('../../web/tests/harness.mjs');

const EVENTS = 1000;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const summary = (values) =>
  `median ${(median(values) / 1000).toFixed(3)} s (min ${(Math.min(...values) / 1000).toFixed(3)}, max ${(Math.max(...values) / 1000).toFixed(3)}; ${values.length} runs)`;

const site = await serveStatic();
// No origin for `priorart serve`: the page's creator part is not measured.
const world = await startWorld(null, { benchEvents: EVENTS });
const browser = await launchBrowser();
try {
  const text = world.bench.text;
  const cold = [];
  const warm = [];
  const parts = { cold: [], warm: [] };
  let report;
  for (let run = 0; run < runs; run += 1) {
    const page = await newPage(browser, site.origin);
    await configure(page, { relays: world.relays, esplora: world.esplora, timeout: 30 });
    for (const [times, part] of [[cold, parts.cold], [warm, parts.warm]]) {
      await page.fill('#text', '');
      const started = performance.now();
      report = await askAbout(page, text);
      times.push(performance.now() - started);
      part.push(
        await page.$eval('#verdict', (verdict) => ({
          relaysMs: Number(verdict.dataset.relaysMs),
          checkMs: Number(verdict.dataset.checkMs),
          checks: Number(verdict.dataset.checks),
          headerRequests: Number(verdict.dataset.headerRequests),
        })),
      );
    }
    if (page.problems.length) throw new Error(page.problems.join('\n'));
    await page.context().close();
  }
  if (report.x !== world.bench.x || report.proofs.length !== EVENTS / 10) {
    throw new Error(`unexpected report: x ${report.x}, ${report.proofs.length} proofs`);
  }
  const events = report.relays.map((relay) => relay.events);

  const dir = mkdtempSync(join(tmpdir(), 'priorart-bench-web-'));
  const file = join(dir, 'text.txt');
  writeFileSync(file, text);
  const cli = [];
  let cliReport;
  for (let run = 0; run < runs; run += 1) {
    const args = ['check', '--json', '--network', 'regtest', '--no-header-cache', '--esplora', world.esplora];
    for (const relay of world.relays) args.push('--relay', relay);
    const started = performance.now();
    const out = spawnSync(process.env.PRIORART_BIN, [...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    cli.push(performance.now() - started);
    if (out.status !== 0) throw new Error(`priorart check exited ${out.status}: ${out.stderr}`);
    cliReport = JSON.parse(out.stdout);
  }
  if (cliReport.verdict.text !== report.verdict.text) throw new Error('the page and the CLI disagree');

  const chromium = spawnSync(process.env.PRIORART_CHROMIUM ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}; ${chromium}; binaries: ${profile}`);
  console.log(`relays: 3 × priorart relay, events per relay ${events.join(', ')}, ${report.proofs.length} valid proofs, verdict: ${report.verdict.text}`);
  console.log(`| page, fresh browser context (every header from Esplora): paste → verdict | ${summary(cold)} |`);
  console.log(`| page, same page again (headers from IndexedDB) | ${summary(warm)} |`);
  console.log(`| priorart check --json --no-header-cache (${profile}), same relays and Esplora | ${summary(cli)} |`);
  for (const [name, part] of Object.entries(parts)) {
    const last = part[part.length - 1];
    console.log(
      `${name}: slowest relay answered in ${last.relaysMs} ms; ${last.checks} check(s) took ${last.checkMs} ms in all; ${last.headerRequests} Esplora requests`,
    );
  }
  console.log(`ratio page (fresh) / CLI: ${(median(cold) / median(cli)).toFixed(2)}`);
} finally {
  await browser.close();
  await world.stop();
  await site.close();
}
