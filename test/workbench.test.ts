// The workbench as a user sees it, in headless Chromium (Debian's, driven by playwright-core; one
// browser for the file): `gepa-actors watch` on a demo run directory prints one loopback URL with a
// token and the page shows the run's best valset score, the report's own figures and a candidate's
// diff; Branch and Resume from the page start the command again; a run watched live (demo --ui)
// reaches its final best score on the page without a reload; Drain (demo --ui) and Stop (watch,
// through the STOP file) end a running run, whose slots and proposals in flight a watcher of its
// directory sees (--inspect). With GEPA_WRITE_SCREENSHOTS=1 the screenshots of
// docs/watching.md are written to docs/images/ (else to the OS temp dir). Without Chromium: skipped,
// a failure under CI=true (test/support/testPrograms.ts).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { inProcessLauncher } from './support/inProcessLauncher.js';
import { memoryIo, type MemoryIo } from './support/memoryIo.js';
import { chromiumPath, haveProgram } from './support/testPrograms.js';

const CHROMIUM = chromiumPath();
const haveChromium = haveProgram('chromium');
const SHOTS = process.env.GEPA_WRITE_SCREENSHOTS === '1' ? join(import.meta.dirname, '..', 'docs', 'images') : join(tmpdir(), 'gepa-actors-workbench-shots');
const URL_LINE = /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/;

/** A command that serves until told (watch, --ui), run in this process. */
function serving(argv: string[], cwd: string, extra: Partial<MemoryIo> = {}) {
  let end: () => void = () => {};
  const ended = new Promise<void>((resolve) => (end = resolve));
  let url = '';
  const io: MemoryIo = {
    ...memoryIo({ cwd, onStderr: (text) => (url ||= /workbench: (\S+)/.exec(text)?.[1] ?? '') }),
    untilInterrupted: () => ended,
    ...extra,
  };
  const done = runCli(argv, io);
  return {
    io,
    done,
    end,
    url: async () => {
      await until('the URL', () => url !== '' || URL_LINE.test(io.out().split('\n')[0] ?? ''));
      return url || (io.out().split('\n')[0] as string);
    },
    result: () => JSON.parse(io.out().trimEnd().split('\n').find((l) => l.startsWith('{')) ?? '') as OptimizeResult,
  };
}

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The page's part from `from` to `to` (default: `from` alone) as laid out, for docs/watching.md: the
 * whole page is drawn, so the sticky header covers none of it.
 */
async function shot(page: Page, from: string, file: string, to = from): Promise<void> {
  const scrollY = (await page.evaluate('scrollY')) as number;
  const box = async (selector: string) => {
    const b = await page.locator(selector).boundingBox();
    if (!b) throw new Error(`${selector} is not shown`);
    return { top: b.y + scrollY, bottom: b.y + b.height + scrollY };
  };
  const [first, last] = [await box(from), await box(to)];
  await page.screenshot({ path: join(SHOTS, file), fullPage: true, clip: { x: 0, y: first.top - 12, width: 1280, height: last.bottom - first.top + 24 } });
}

describe.runIf(haveChromium)('the workbench in headless Chromium', () => {
  let root: string;
  let context: BrowserContext;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'gepa-workbench-'));
    mkdirSync(SHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(join(root, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 800 },
    });
  });

  afterAll(async () => {
    await context?.close();
    rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  });

  /** A page that records its errors, requests off this server and navigations (a reload would be one). */
  async function open(url: string): Promise<{ page: Page; errors: string[]; elsewhere: string[]; navigations: () => number }> {
    const page = await context.newPage();
    const errors: string[] = [];
    const elsewhere: string[] = [];
    let navigations = 0;
    const origin = new URL(url).origin;
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => void (!r.url().startsWith(origin) && elsewhere.push(r.url())));
    page.on('framenavigated', (f) => void (f === page.mainFrame() && navigations++));
    await page.goto(url);
    return { page, errors, elsewhere, navigations: () => navigations };
  }

  it('watch: one loopback URL; the best score, the report\'s figures, a candidate\'s diff; Branch and Resume from the page', async () => {
    const runDir = join(root, 'finished');
    const demo = memoryIo({ cwd: root });
    const argv = ['demo', '--json', '--inspect', '--run-dir', runDir, '--budget', '160', '--schedule', 'async:3', '--workers', '4', '--metric-call-ms', '2', '--reflection-ms', '8'];
    expect(await runCli(argv, demo)).toBe(0);
    const result = JSON.parse(demo.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
    const { launch, launched } = inProcessLauncher();
    const watch = serving(['watch', runDir], root, { launch });
    const url = await watch.url();
    expect(watch.io.out().trimEnd().split('\n')).toEqual([url]);
    expect(url).toMatch(URL_LINE);

    const { page, errors, elsewhere } = await open(url);
    await page.locator('#wb-pill', { hasText: 'finished' }).waitFor();
    expect(await page.locator('#wb-best').textContent()).toBe(result.bestScore.toFixed(3));
    // The report's figures, as report.html draws them.
    const report = await context.newPage();
    await report.goto(new URL(`/report.html?token=${new URL(url).searchParams.get('token')}`, url).href);
    const values = (p: Page, scope: string) => p.locator(`${scope} .stat .value`).allTextContents();
    expect(await values(page, '[data-panel="cards"]')).toEqual(await values(report, '.cards'));
    for (const id of ['score-over-time', 'score-over-calls']) {
      expect(await page.locator(`#${id} path.best-line`).getAttribute('d')).toBe(await report.locator(`#${id} path.best-line`).getAttribute('d'));
    }
    expect(await page.locator('svg.lineage .lineage-node').count()).toBe(result.candidates.length);
    await report.close();

    // A candidate: its text, its diff from its parent, the reflection that wrote it.
    const child = result.parents.findIndex((p) => p.length === 1);
    await page.locator(`.lineage-node[data-index="${child}"]`).click();
    await page.locator('#wb-detail .candidate-title', { hasText: `Candidate #${child}` }).waitFor();
    expect((await page.locator('#wb-detail pre.diff ins').allTextContents()).join('').trim().length).toBeGreaterThan(5);
    expect(await page.locator('#wb-detail pre.candidate-text').first().textContent()).toBe(result.candidates[child]?.system_prompt);
    expect(await page.locator('#wb-detail details.reflection summary').first().textContent()).toMatch(/reflection prompt for system_prompt \([\d,]+ characters\)/);
    await shot(page, '.detail-row', 'workbench-candidate.png');

    // Branch from this candidate with another schedule and budget; the page links to it, and it to its origin.
    await page.fill('#wb-branch-budget', '80');
    await page.fill('#wb-branch-schedule', 'batched:1x2');
    await page.click('#wb-branch');
    await page.locator('#wb-toast', { hasText: 'branch 1 started from candidate' }).waitFor();
    expect(await launched[0]?.done).toBe(0);
    await page.locator('[data-panel="links"] a[data-run="branches/1"]').waitFor({ timeout: 10_000 });
    await page.click('#wb-branch-link a');
    await page.locator('[data-panel="links"] .origin', { hasText: `started from candidate #${child}` }).waitFor();
    await page.goBack();

    // Resume with a larger budget: the same page follows the run as it goes on.
    await page.fill('#wb-resume-budget', '220');
    await page.click('#wb-resume');
    await page.locator('#wb-toast', { hasText: 'resumed with a budget of 220' }).waitFor();
    expect(await launched[1]?.done).toBe(0);
    await page.locator('#wb-calls', { hasText: '/ 220' }).waitFor();
    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
    watch.end();
    expect(await watch.done).toBe(0);
  });

  it('demo --ui: a run watched live reaches its final best score on the page without a reload; Drain ends a running run', async () => {
    const live = serving(['demo', '--json', '--ui', '--run-dir', join(root, 'live'), '--budget', '300', '--workers', '4', '--metric-call-ms', '8', '--reflection-ms', '50'], root);
    const { page, errors, navigations } = await open(await live.url());
    await page.locator('#wb-pill', { hasText: 'running' }).waitFor();
    await page.locator('svg.lineage .lineage-node[data-index="1"]').waitFor();
    await page.screenshot({ path: join(SHOTS, 'workbench-live.png') });
    await page.locator('#wb-pill', { hasText: 'finished' }).waitFor({ timeout: 30_000 });
    await until('the summary', () => live.io.out().includes('{'));
    const result = live.result();
    expect(await page.locator('#wb-best').textContent()).toBe(result.bestScore.toFixed(3));
    expect(await page.locator('svg.lineage .lineage-node').count()).toBe(result.candidates.length);
    expect(await page.locator('#timeline svg.timeline rect.slot-bar').count()).toBeGreaterThan(result.candidates.length);
    expect(navigations()).toBe(1);
    live.end();
    expect(await live.done).toBe(0);

    const drained = serving(['demo', '--json', '--ui', '--run-dir', join(root, 'drained'), '--budget', '3000', '--workers', '4', '--metric-call-ms', '8', '--reflection-ms', '50'], root);
    const second = await open(await drained.url());
    await second.page.locator('svg.lineage .lineage-node[data-index="1"]').waitFor();
    await second.page.locator('#timeline svg.timeline rect.slot-bar').first().waitFor();
    await shot(second.page, '#timeline', 'workbench-slots.png', '#actors');
    await second.page.locator('#wb-drain:not([disabled])').click();
    await second.page.locator('#wb-toast', { hasText: 'draining' }).waitFor();
    await second.page.locator('#wb-pill', { hasText: 'stopped' }).waitFor({ timeout: 30_000 });
    await until('the summary', () => drained.io.out().includes('{'));
    expect(drained.result().stopReason).toBe('stopped');
    expect(drained.result().metricCalls).toBeLessThan(3000);
    expect(await second.page.locator('#wb-drain').isDisabled()).toBe(true);
    expect([...errors, ...second.errors]).toEqual([]);
    drained.end();
    expect(await drained.done).toBe(0);
  });

  it('watch: a run another command runs, with its slots and proposals in flight (--inspect); Stop ends it (its STOP file), within the grace', async () => {
    const runDir = join(root, 'stopped');
    const io = memoryIo({ cwd: root });
    const running = runCli(['demo', '--json', '--inspect', '--run-dir', runDir, '--budget', '3000', '--workers', '4', '--metric-call-ms', '8', '--reflection-ms', '50'], io);
    await until('the run directory', () => existsSync(join(runDir, 'config.json')));
    const watch = serving(['watch', runDir], root);
    const { page, errors } = await open(await watch.url());
    await page.locator('#wb-pill', { hasText: 'running' }).waitFor();
    await page.locator('svg.lineage .lineage-node[data-index="1"]').waitFor();
    // With --inspect the run's process writes what only it knows (activity.jsonl): the slots and the proposals in flight.
    await page.locator('#timeline svg.timeline rect.slot-bar').first().waitFor();
    await page.locator('[data-panel="inFlight"] table.in-flight tbody tr').first().waitFor();
    await page.locator('#wb-stop:not([disabled])').click();
    await page.locator('#wb-toast', { hasText: 'stopping' }).waitFor();
    expect(await running).toBe(0);
    const result = JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
    expect(result.stopReason).toBe('stopped');
    await page.locator('#wb-pill', { hasText: 'stopped' }).waitFor();
    expect(await page.locator('#wb-best').textContent()).toBe(result.bestScore.toFixed(3));
    await page.screenshot({ path: join(SHOTS, 'workbench-stopped.png') });
    expect(errors).toEqual([]);
    watch.end();
    expect(await watch.done).toBe(0);
  });
});
