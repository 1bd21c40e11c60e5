// The optimizeAnything bench tasks (src/demo/anything/): the service config is parsed as a real
// service would and scored by its load test, whose report is the side information; the record
// task's model follows the rules its prompt states; and each simulated reflection model reads the
// side information in the prompt, whichever wording renders it (ours, or gepa's
// optimize_anything template), and edits the text the way the report asks.
import { describe, expect, it } from 'vitest';
import { Rng } from '../src/gepa/core/rng.js';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import { parseServiceConfig, runLoadTest, type Workload } from '../src/demo/anything/serviceConfig.js';
import { proposeConfigEdit, readLoadReport } from '../src/demo/anything/serviceConfigReflection.js';
import { createServiceConfigTask } from '../src/demo/anything/serviceConfigTask.js';
import { parseRulePrompt } from '../src/demo/anything/recordPrompt.js';
import { proposeRecordEdit } from '../src/demo/anything/recordReflection.js';
import { RECORD_RULES } from '../src/demo/anything/recordRules.js';
import { createRecordTask, normalizeRecord } from '../src/demo/anything/recordTask.js';

const WORKLOAD: Workload = { rate: 1000, serviceMs: 20, memoryLimitMb: 2048, workerMb: 200, workingSetMb: 1000, sloP99Ms: 300, upstreamFailure: 0.02 };
const signal = new AbortController().signal;

/** gepa 0.1.4's optimize_anything prompt shape: objective first, the text and the records in fences. */
function gepaStylePrompt(current: string, records: Array<Record<string, unknown>>): string {
  const rendered = records.map((r, i) => `# Example ${i + 1}\n${Object.entries(r).map(([k, v]) => `## ${k}\n${String(v)}\n\n`).join('')}`).join('\n\n');
  return `You are an expert optimization assistant.\n\n## Optimization Goal\n\nServe the load.\n\n## Current Component\n\n\`\`\`\n${current}\n\`\`\`\n\n## Evaluation Results\n\n\`\`\`\n${rendered}\n\`\`\`\n\nProvide ONLY the improved version within \`\`\` blocks.`;
}
const ours = (current: string, records: Array<Record<string, unknown>>) => buildReflectionPrompt('candidate', current, records, { objective: 'Serve the load.', background: 'key = value lines.' });

describe('the service config', () => {
  it.each([
    ['workers = 4\nwrkers = 2', "line 2: unknown key 'wrkers' (known: workers, queue_size, cache_mb, batch_size, timeout_ms, retries)"],
    ['workers = 4\nworkers = 5', "line 2: 'workers' is set twice"],
    ['workers = 0', "line 1: 'workers' must be an integer in [1, 64], got '0'"],
    ['# tuned\nworkers: 4', "line 2: expected 'key = value', got 'workers: 4'"],
  ])('refuses %j: %s', (text, error) => {
    expect(parseServiceConfig(text)).toEqual({ ok: false, error });
    expect(runLoadTest(text, WORKLOAD)).toEqual({ score: 0, sideInfo: { status: 'refused to start', error: `config error: ${error}` } });
  });

  it('is killed past its memory limit, and the report adds up the memory', () => {
    const run = runLoadTest('workers = 12\ncache_mb = 1000', WORKLOAD);
    expect(run.score).toBe(0);
    expect(run.sideInfo).toEqual({
      status: 'OOMKilled',
      error: 'the service was killed for exceeding its memory limit during warm-up',
      memory: '3407 MB of 2048 MB: 12 workers x 200 MB, cache 1000 MB, queue 7 MB', // 12 x 200 + 1000 + ceil(100 x 64 KB)
    });
  });

  it('serves more of an overload with more workers, and reports the timeout it ran with', () => {
    const few = runLoadTest('workers = 2\ntimeout_ms = 800', WORKLOAD);
    const more = runLoadTest('workers = 6\ntimeout_ms = 800', WORKLOAD);
    expect(few.sideInfo.load_test).toContain('(over capacity)');
    expect(more.score).toBeGreaterThan(few.score);
    expect(few.sideInfo.errors).toMatch(/^timeouts [\d.]+% \(timeout_ms 800\)/);
  });

  it('its task evaluates a string with no example, the same score for the same text', async () => {
    const task = createServiceConfigTask({ seed: 5 });
    const a = await task.evaluate(task.seedCandidate, undefined, { signal });
    expect(a).toEqual(await task.evaluate(task.seedCandidate, undefined, { signal }));
    expect(task.dataset).toBeUndefined();
  });
});

describe("the service config's reflection model reads the load test's report", () => {
  const CONFIG = 'workers = 8\nqueue_size = 100\ncache_mb = 1000\nbatch_size = 1\ntimeout_ms = 500\nretries = 0';
  const oom = runLoadTest(CONFIG, { ...WORKLOAD, memoryLimitMb: 2000 });
  const broken = runLoadTest('wrokers = 8\ncache_mb = 100', WORKLOAD);

  it.each([['ours', ours], ["gepa's", gepaStylePrompt]])('in %s wording', (_name, render) => {
    expect(readLoadReport(render(CONFIG, [oom.sideInfo]))).toMatchObject({ oom: true, memoryMb: 2607, memoryLimitMb: 2000 });
    // Most draws fix the OOM, and each such fix shrinks memory: fewer workers or a smaller cache
    // (a draw that slips into broken syntax is left to the next round, as the service refuses it).
    const fixes = [...Array(20).keys()].map((seed) => proposeConfigEdit(render(CONFIG, [oom.sideInfo]), new Rng(seed))).filter((e) => e.note.includes('OOM'));
    expect(fixes.length).toBeGreaterThanOrEqual(10);
    for (const fix of fixes) {
      const parsed = parseServiceConfig(fix.text);
      if (parsed.ok) expect(parsed.config.workers < 8 || parsed.config.cache_mb < 1000, fix.text).toBe(true);
    }
    // A config error is fixed first: the misspelt key is corrected.
    expect(proposeConfigEdit(render('wrokers = 8\ncache_mb = 100', [broken.sideInfo]), new Rng(1)).text).toBe('workers = 8\ncache_mb = 100');
  });

  it('writes a starting config when there is no current text (a seedless prompt)', () => {
    const edit = proposeConfigEdit('Write the first version of a text artifact. Reply inside a single ``` fenced block.', new Rng(0));
    expect(parseServiceConfig(edit.text).ok).toBe(true);
  });
});

describe('the record task', () => {
  it('reads each rule from its phrasings, and the wrong version from the wrong ones', () => {
    for (const rule of RECORD_RULES) {
      for (const p of rule.phrasings) expect(parseRulePrompt(p).stated.get(rule.field), p).toMatchObject({ wrong: false });
      for (const p of rule.wrongPhrasings) expect(parseRulePrompt(p).stated.get(rule.field), p).toMatchObject({ wrong: true });
    }
    // The first statement of a rule wins.
    expect(parseRulePrompt('Write dates as DD/MM/YYYY. Write every date as YYYY-MM-DD.').stated.get('date')?.wrong).toBe(true);
  });

  it('gets every field right under a prompt stating every rule, and reports the mismatches otherwise', async () => {
    const task = createRecordTask({ seed: 2 });
    const example = (task.dataset ?? [])[0];
    if (!example) throw new Error('no example');
    const all = RECORD_RULES.map((r) => r.phrasings[0]).join('\n');
    expect(normalizeRecord(parseRulePrompt(all), example, 2)).toMatchObject({ score: 1, sideInfo: { Mismatches: 'none: every field matches' } });
    const none = await task.evaluate('Normalize the record.', example, { signal });
    const wrong = (none.sideInfo.Mismatches as string).split('\n').filter((l) => l.includes(': got '));
    expect(none.score).toBeCloseTo((example.fields.length - wrong.length) / example.fields.length, 12);
    await expect(task.evaluate('x', undefined, { signal })).rejects.toThrow('call it with an example');
  });

  it.each([['ours', ours], ["gepa's", gepaStylePrompt]])("the reflection model states the most-failed field's rule, in %s wording", (_name, render) => {
    const records = [
      { Mismatches: "phone: got '(415) 555-0132', expected '+14155550132'\ndate: got '03/14/2024', expected '2024-03-14'" },
      { Mismatches: "date: got '01/20/2023', expected '2023-01-20'" },
    ];
    const prompt = render('Normalize the record.', records);
    const fixes = [...Array(40).keys()].map((seed) => proposeRecordEdit(prompt, new Rng(seed))).filter((e) => e.note.startsWith('the date field'));
    expect(fixes.length).toBeGreaterThan(10);
    for (const fix of fixes) expect(parseRulePrompt(fix.text).stated.get('date')).toMatchObject({ wrong: false });
  });
});
