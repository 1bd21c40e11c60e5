// log() inside optimizeAnything's evaluators: each call's lines reach that call's side
// information, also after an await and with 16 calls running at once; outside an evaluator it
// warns once and does nothing; a side information with a `log` of its own keeps it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log, optimizeAnything } from '../src/index.js';
import { appendingReflection } from './support/anythingTask.js';

const EXAMPLES = Array.from({ length: 16 }, (_, i) => i);

afterEach(() => vi.restoreAllMocks());

describe('log()', () => {
  it('16 calls at once never see each other\'s lines', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const result = await optimizeAnything({
      seedCandidate: 'x',
      evaluator: async (_candidate, example: number) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        log('start', example);
        // Finish in the reverse order of starting, so lines of every call interleave in time.
        await new Promise((resolve) => setTimeout(resolve, (16 - example) * 3));
        log('end', example);
        await Promise.resolve();
        log('after', { example });
        inFlight--;
        return { score: example / 16, sideInfo: { Example: example } };
      },
      dataset: EXAMPLES,
      reflectionLm: appendingReflection(),
      workers: 16,
      maxMetricCalls: 16,
      trackBestOutputs: true,
    });
    expect(mostInFlight).toBe(16);
    const logs = (result.bestOutputs ?? []).map((b) => (b.outputs[0]?.output as { log: string; Example: number }));
    expect(logs).toEqual(EXAMPLES.map((i) => ({ Example: i, log: `start ${i}\nend ${i}\nafter { example: ${i} }` })));
  });

  it('outside an evaluator it warns once and does nothing', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    log('lost');
    log('lost again');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('log() was called outside an evaluator');
  });

  it('a side information with its own `log` keeps it; the lines go to `_gepa_log`', async () => {
    const result = await optimizeAnything({
      seedCandidate: 'x',
      evaluator: () => {
        log('from log()');
        return { score: 0.5, sideInfo: { log: 'the user\'s own' } };
      },
      reflectionLm: appendingReflection(),
      maxMetricCalls: 1,
      trackBestOutputs: true,
    });
    expect(result.bestOutputs?.[0]?.outputs[0]?.output).toEqual({ log: 'the user\'s own', _gepa_log: 'from log()' });
  });

  it('a throwing evaluator keeps the lines it logged before the error', async () => {
    const reflection = appendingReflection();
    await optimizeAnything({
      seedCandidate: 'x',
      evaluator: (_candidate, example: number) => {
        log('compiled', example);
        if (example === 2) throw new Error('segfault');
        return 1;
      },
      dataset: [1, 2, 3],
      reflectionLm: reflection,
      maxMetricCalls: 9,
    });
    expect(reflection.prompts[0]).toContain('## Score\n0\n\n## error\nsegfault\n\n## log\ncompiled 2');
  });
});
