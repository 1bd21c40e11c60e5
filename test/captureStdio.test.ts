// captureStdio: what an optimizeAnything evaluator prints during one call (console and
// process.stdout/stderr.write) becomes that call's side information and reaches the reflection
// prompt, in the batched and the async schedule; calls in flight at once never see each other's
// text; console and the streams are themselves again once the run ends, also when it fails.
import { describe, expect, it } from 'vitest';
import { optimizeAnything, type Schedule } from '../src/index.js';
import { appendingReflection } from './support/anythingTask.js';

const EXAMPLES = Array.from({ length: 8 }, (_, i) => i);

function streamsAsTheyAre() {
  return { log: console.log, error: console.error, warn: console.warn, out: process.stdout.write, err: process.stderr.write };
}

describe('captureStdio', () => {
  for (const schedule of [{ kind: 'batched' }, { kind: 'async', inFlight: 2 }] as Schedule[]) {
    it(`printed text reaches the reflection prompt (${schedule.kind})`, async () => {
      const before = streamsAsTheyAre();
      const reflection = appendingReflection();
      await optimizeAnything({
        seedCandidate: 'x',
        evaluator: (candidate: string, example: number) => {
          console.log(`scored ${candidate} on example ${example}`);
          process.stderr.write(`slow path taken for ${example}\n`);
          return { score: candidate.length / 10, sideInfo: { Next: 'y' } };
        },
        dataset: [0, 1, 2],
        reflectionLm: reflection,
        schedule,
        maxMetricCalls: 12,
        captureStdio: true,
      });
      const prompt = reflection.prompts[0] ?? '';
      expect(prompt).toContain('scored x on example');
      expect(prompt).toContain('slow path taken for');
      expect(streamsAsTheyAre()).toEqual(before);
    });
  }

  it('8 calls at once never see each other\'s text; side information with its own `stdout` keeps it', async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const result = await optimizeAnything({
      seedCandidate: 'x',
      evaluator: async (_candidate: string, example: number) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        console.log('start', example);
        // Finish in the reverse order of starting, so the prints of every call interleave in time.
        await new Promise((resolve) => setTimeout(resolve, (8 - example) * 3));
        process.stdout.write(`end ${example}\n`);
        console.error('err', example);
        inFlight--;
        return { score: example / 8, sideInfo: example === 0 ? { stdout: 'mine' } : {} };
      },
      dataset: EXAMPLES,
      reflectionLm: appendingReflection(),
      workers: 8,
      maxMetricCalls: 8,
      trackBestOutputs: true,
      captureStdio: true,
    });
    expect(mostInFlight).toBe(8);
    const outputs = (result.bestOutputs ?? []).map((b) => b.outputs[0]?.output);
    expect(outputs).toEqual(
      EXAMPLES.map((i) => (i === 0 ? { stdout: 'mine', _gepa_stdout: 'start 0\nend 0\n', stderr: 'err 0\n' } : { stdout: `start ${i}\nend ${i}\n`, stderr: `err ${i}\n` })),
    );
  });

  it('gives console and the streams back when the run fails', async () => {
    const before = streamsAsTheyAre();
    await expect(
      optimizeAnything({
        seedCandidate: 'x',
        evaluator: () => {
          console.log('about to fail');
          throw new Error('no harness');
        },
        dataset: [0, 1],
        reflectionLm: appendingReflection(),
        maxMetricCalls: 4,
        captureStdio: true,
      }),
    ).rejects.toThrow(/no harness/);
    expect(streamsAsTheyAre()).toEqual(before);
  });

  it('refuses a captureStdio that is not a boolean', async () => {
    await expect(optimizeAnything({ seedCandidate: 'x', evaluator: () => 1, reflectionLm: appendingReflection(), maxMetricCalls: 1, captureStdio: 'yes' as never })).rejects.toThrow(
      'invalid optimizeAnything options: captureStdio: must be true or false',
    );
  });
});
