// A server that stops answering: the run says so after a quiet spell instead of minutes of
// silence, and a first Ctrl-C stops it within seconds: the drain gives calls in flight a grace
// period on the injected clock, then abandons them (nothing logged for them, so a resume makes
// them again), and the run directory resumes to a finished run.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runCli } from '../src/cli/program.js';
import { ABANDON_AFTER_MS, runSession } from '../src/cli/runSession.js';
import { StallWatch } from '../src/cli/stallWatch.js';
import { installSignalHandlers } from '../src/storage/stopRequests.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';

describe('StallWatch', () => {
  it('tells a quiet spell at the threshold, then at each doubling; any activity starts it over', () => {
    const watch = new StallWatch(1_000, 30_000, 'Ctrl-C stops');
    expect(watch.check(30_999)).toBeUndefined();
    expect(watch.check(31_000)).toBe(
      'no call has finished for 30.0 s: the server is slow or not answering (each attempt waits up to requestTimeoutMs, and failed attempts are retried). Ctrl-C stops.',
    );
    expect(watch.check(45_000)).toBeUndefined();
    expect(watch.check(61_000)).toContain('no call has finished for 1.0 min');
    watch.activity(70_000);
    expect(watch.check(99_999)).toBeUndefined();
    expect(watch.check(100_000)).toContain('for 30.0 s');
  });
});

describe('installSignalHandlers with abandonAfterMs', () => {
  it('aborts the work in flight that long after the first signal, on the injected clock', () => {
    const clock = new SimulatedClock();
    const [drain, abort] = [new AbortController(), new AbortController()];
    const actions: string[] = [];
    const uninstall = installSignalHandlers(drain, abort, { signals: ['SIGUSR2'], abandonAfterMs: 5_000, clock, onSignal: (_s, action) => void actions.push(action) });
    try {
      process.emit('SIGUSR2', 'SIGUSR2');
      expect([drain.signal.aborted, abort.signal.aborted]).toEqual([true, false]);
      clock.increment(4_999);
      expect(abort.signal.aborted).toBe(false);
      clock.increment(1);
      expect(abort.signal.aborted).toBe(true);
      expect(actions).toEqual(['drain', 'abandon']);
    } finally {
      uninstall();
    }
  });

  it('a run that ends within the grace period is not aborted after it', () => {
    const clock = new SimulatedClock();
    const [drain, abort] = [new AbortController(), new AbortController()];
    const uninstall = installSignalHandlers(drain, abort, { signals: ['SIGUSR2'], abandonAfterMs: 5_000, clock });
    process.emit('SIGUSR2', 'SIGUSR2');
    uninstall();
    clock.increment(10_000);
    expect(abort.signal.aborted).toBe(false);
  });
});

describe('a run session whose calls stop answering', () => {
  it('says so after the quiet spell, and a first Ctrl-C then abandons the hung calls after the grace period', async () => {
    const valset = [{ q: 'a' }, { q: 'b' }];
    let calls = 0;
    // The seed's valset calls answer; every later call waits until it is aborted.
    const adapter = {
      evaluate: (_candidate: unknown, _example: unknown, ctx: { signal: AbortSignal }) =>
        ++calls <= valset.length
          ? Promise.resolve({ score: 0.5 })
          : new Promise<{ score: number }>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
    };
    const io = memoryIo({ onStderr: (text) => void (text.startsWith('no call has finished for') && process.emit('SIGINT')) });
    const { result } = await runSession({
      config: { seedCandidate: { p: 'x' }, trainset: valset, adapter, reflectionLm: async () => '```\ny\n```', maxMetricCalls: 50 },
      io,
      stallNoticeMs: 100,
      abandonAfterMs: 100,
    });
    expect(result.stopReason).toBe('aborted');
    const lines = io.err().split('\n');
    const at = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix));
    expect(at('no call has finished for')).toBeGreaterThanOrEqual(0);
    expect(lines[at('no call has finished for')]).toContain('Ctrl-C stops within 100 ms, abandoning the calls in flight');
    expect(at('Stopping: no new proposals; the calls in flight get 100 ms to finish')).toBeGreaterThan(at('no call has finished for'));
    expect(at('Abandoning the calls still in flight after 100 ms')).toBeGreaterThan(at('Stopping:'));
  });
});

describe('the CLI against a server that hangs after the seed', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gepa-hung-'));
    await writeArithmeticDataset(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a first Ctrl-C stops the run with the hung calls abandoned and unlogged; --resume finishes it', async () => {
    let hang = true;
    // The seed's 4 valset calls are answered; from the 5th request on the server never answers.
    const server = await startFakeOpenAIServer({
      models: ['gpt-4.1-mini', 'gpt-5-mini'],
      stepFor: (_messages, n) => (hang && n > 4 ? { kind: 'hang' } : undefined),
      onRequest: (request) => {
        // process.emit runs the CLI's handlers without a real signal; once, at the first hung call.
        if (hang && request.step === 'hang' && server.requests.filter((r) => r.step === 'hang').length === 1) setImmediate(() => process.emit('SIGINT'));
      },
    });
    try {
      const config = join(dir, 'hung.json');
      // Ten minutes a try: only abandoning the calls can end this run soon.
      await writeFile(config, JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, runDir: 'runs/hung', requestTimeoutMs: 600_000 }));
      const env = { OPENAI_BASE_URL: server.baseURL };
      const stopped = memoryIo({ env });
      expect(await runCli(['run', config, '--json'], stopped)).toBe(0);
      const result = JSON.parse(stopped.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
      expect(result.stopReason).toBe('aborted');
      const err = stopped.err();
      expect(err).toContain(`the calls in flight get ${ABANDON_AFTER_MS / 1000}.0 s to finish, then are abandoned`);
      expect(err).toContain('Abandoning the calls still in flight after 5.0 s: nothing is logged for them, so resuming makes them again.');
      expect(err).toContain(`the run is not finished: the same command with --resume continues it from ${join(dir, 'runs/hung')}`);
      // Only the answered calls are in the log: the four of the seed.
      const log = (await readFile(join(dir, 'runs/hung/log.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { t: string });
      expect(log.filter((r) => r.t === 'eval')).toHaveLength(4);

      hang = false;
      const resumed = memoryIo({ env });
      expect(await runCli(['run', config, '--resume', '--json'], resumed)).toBe(0);
      const after = JSON.parse(resumed.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
      expect(after.stopReason).not.toBe('aborted');
      expect(after.bestScore).toBe(1);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('a first Ctrl-C while the seed is still being evaluated exits 130 with the way to continue; --resume does', async () => {
    let hang = true;
    const server = await startFakeOpenAIServer({
      models: ['gpt-4.1-mini', 'gpt-5-mini'],
      stepFor: () => (hang ? { kind: 'hang' } : undefined),
      onRequest: () => {
        if (hang && server.requests.filter((r) => r.step === 'hang').length === 1) setImmediate(() => process.emit('SIGINT'));
      },
    });
    try {
      const config = join(dir, 'seed-hung.json');
      await writeFile(config, JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, runDir: 'runs/seed-hung', requestTimeoutMs: 600_000 }));
      const env = { OPENAI_BASE_URL: server.baseURL };
      const stopped = memoryIo({ env });
      expect(await runCli(['run', config], stopped)).toBe(130);
      expect(stopped.err()).toContain(`interrupted before the seed candidate was evaluated: no result yet; the same command with --resume continues it from ${join(dir, 'runs/seed-hung')}`);
      hang = false;
      expect(await runCli(['run', config, '--resume'], memoryIo({ env }))).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});
