// report.html as a user sees it: a real small demo run (with --inspect) renders in headless
// Chromium (Debian's chromium, driven by playwright-core) with no network, and the drawn page
// has what the report promises: score charts with points, one lineage node per candidate, a
// slot timeline with bars, a diff with insertions, the actor tree. A screenshot is kept in the
// OS temp dir for a human look. Without Chromium: skipped locally, a failure in CI.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { parseInspectionLog } from '../src/report/inspectionLog.js';
import { formatStaleness, summarizeStaleness } from '../src/report/stalenessSummary.js';
import type { OptimizeResult } from '../src/types.js';
import { memoryIo } from './support/memoryIo.js';

const CHROMIUM = '/usr/bin/chromium';
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const haveChromium = existsSync(CHROMIUM);
export const SCREENSHOT = join(tmpdir(), 'gepa-actors-report.png');

describe('report.html', () => {
  it.runIf(inCi && !haveChromium)('needs Chromium in CI', () => {
    expect.fail(`${CHROMIUM} is missing: .ci/setup-chromium.sh installs Debian's chromium (apt-get install -y chromium)`);
  });

  describe.runIf(haveChromium)('rendered in headless Chromium', () => {
    let dir: string;
    let runDir: string;
    let result: OptimizeResult;
    let context: BrowserContext;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'gepa-report-'));
      runDir = join(dir, 'run');
      const io = memoryIo();
      // Small latencies so the slot timeline has width; async so proposals overlap.
      const argv = ['demo', '--json', '--inspect', '--run-dir', runDir, '--budget', '240', '--schedule', 'async:4', '--workers', '6', '--metric-call-ms', '4', '--reflection-ms', '15'];
      expect(await runCli(argv, io)).toBe(0);
      result = JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
      context = await chromium.launchPersistentContext(join(dir, 'profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1280, height: 900 },
      });
    });

    afterAll(async () => {
      await context?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('draws the charts, the lineage tree, the Pareto grid, the timeline, the diff and the actor tree', async () => {
      const page = await context.newPage();
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) requests.push(request.url());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // Self-contained: nothing but the file itself was fetched, and the script ran cleanly.
      expect(requests).toEqual([]);
      expect(errors).toEqual([]);

      // Both score charts: a best-so-far line with a vertex per improvement and a dot per candidate.
      for (const id of ['score-over-time', 'score-over-calls']) {
        const d = (await page.locator(`#${id} path.best-line`).getAttribute('d')) ?? '';
        const vertices = d.match(/[ML]/g) ?? [];
        expect(vertices.length).toBeGreaterThanOrEqual(2);
        expect(await page.locator(`#${id} circle.score-dot`).count()).toBe(result.candidates.length);
        const box = await page.locator(`#${id}`).boundingBox();
        expect(box?.width).toBeGreaterThan(300);
      }

      // The lineage tree: one node per candidate, the best one marked.
      expect(await page.locator('svg.lineage .lineage-node').count()).toBe(result.candidates.length);
      expect(await page.locator(`svg.lineage .lineage-node.best[data-index="${result.bestIndex}"]`).count()).toBe(1);

      // The Pareto grid: a row per candidate, a cell per valset example.
      expect(await page.locator('svg.pareto-grid .grid-row').count()).toBe(result.candidates.length);
      expect(await page.locator('svg.pareto-grid rect.cell').count()).toBe(result.candidates.length * (result.valSubscores[0]?.length ?? 0));

      // The worker-slot timeline: bars of several kinds, visibly wide.
      const bars = page.locator('svg.timeline rect.slot-bar');
      expect(await bars.count()).toBeGreaterThan(result.candidates.length);
      for (const kind of ['seed', 'parent', 'reflection', 'child', 'valset']) {
        expect(await page.locator(`svg.timeline rect.slot-bar.${kind}`).count(), kind).toBeGreaterThan(0);
      }
      expect((await bars.first().boundingBox())?.width).toBeGreaterThan(0);

      // The best candidate's diff from the seed shows what the optimizer added.
      const inserted = await page.locator('#best-candidate pre.diff ins').allTextContents();
      expect(inserted.join('').trim().length).toBeGreaterThan(10);
      expect(await page.locator('#best-candidate pre.best-text').textContent()).toBe(result.bestCandidate.system_prompt);

      // An async run reports its staleness distribution among the summary cards.
      const staleness = summarizeStaleness(result.proposals);
      expect(staleness.max).toBeGreaterThan(0);
      const card = page.locator('.stat', { hasText: 'staleness' });
      expect(await card.locator('.value').textContent()).toBe(`median ${staleness.median}`);
      expect(await card.locator('.sub').textContent()).toContain(formatStaleness(staleness));

      // The runtime model's prediction beside the measured wall-clock.
      expect(await page.locator('#runtime-model .runtime-error').textContent()).toMatch(/^[+-]\d+%$/);

      // The actor tree from inspect.jsonl: optimizer -> evaluator and one proposer per proposal.
      for (const logic of ['optimizer', 'evaluator', 'proposer']) {
        expect(await page.locator(`#actors .actor-node[data-logic="${logic}"]`).count(), logic).toBeGreaterThan(0);
      }
      const proposers = await page.locator('#actors .actor-node[data-logic="proposer"]').count();
      expect(proposers).toBe(result.proposals.length);
    });

    it('wrote inspect.jsonl with actor ids, event types and state values, not contexts', async () => {
      const records = parseInspectionLog(await readFile(join(runDir, 'inspect.jsonl'), 'utf8'));
      const actors = records.filter((r) => r.kind === 'actor');
      expect(actors.find((r) => r.kind === 'actor' && r.logic === 'optimizer' && r.parent === undefined)).toBeDefined();
      expect(actors.find((r) => r.kind === 'actor' && r.systemId === 'evaluator')).toBeDefined();
      expect(records.some((r) => r.kind === 'event' && r.event === 'proposal.finished')).toBe(true);
      expect(records.some((r) => r.kind === 'snapshot' && r.value === 'done')).toBe(true);
      for (const r of records) expect(Object.keys(r)).not.toContain('context');
    });
  });
});
