// `gepa-actors worker` argument handling: wrong or missing arguments exit 2 with a message that
// names the problem, before any connection is made; --help prints the usage and exits 0.
import { BULLMQ_EXECUTOR_DEFAULTS } from '../src/executors/bullmqExecutor.js';
import { HEARTBEAT_MS } from '../src/executors/workerBeats.js';
import { describe, expect, it } from 'vitest';
import { workerCommand } from '../src/worker/workerCommand.js';
import { parseAdapterSpec } from '../src/worker/loadAdapter.js';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await workerCommand(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), stopSignal: AbortSignal.abort() });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const ADAPTER = 'test/support/demoAdapterModule.ts';

describe('gepa-actors worker arguments', () => {
  it('PATH#EXPORT splits at the last #; the export defaults to "adapter"', () => {
    expect(parseAdapterSpec('./a/adapter.js')).toEqual({ adapterPath: './a/adapter.js', exportName: 'adapter' });
    expect(parseAdapterSpec('./a/adapter.js#flaky')).toEqual({ adapterPath: './a/adapter.js', exportName: 'flaky' });
    expect(() => parseAdapterSpec('./a.js#')).toThrow("no export name after '#'");
  });

  it.each([
    [[], '--adapter PATH[#EXPORT] is required'],
    [['--adapter', ADAPTER], '--redis URL is required'],
    [['--adapter', ADAPTER, '--redis', 'http://localhost:6379'], 'expected a redis:// or rediss:// URL'],
    [['--adapter', ADAPTER, '--redis', 'redis://127.0.0.1:1', '--concurrency', '0'], '--concurrency must be an integer >= 1, got "0"'],
    [['--adapter', ADAPTER, '--redis', 'redis://127.0.0.1:1', '--concurrency', 'four'], '--concurrency must be an integer >= 1'],
    [['--adapter', ADAPTER, '--redis', 'redis://127.0.0.1:1', '--queue', 'a:b'], "must not contain ':'"],
    [['--adapter', ADAPTER, '--redis', 'redis://127.0.0.1:1', '--bogus'], "Unknown option '--bogus'"],
  ])('%j exits 2: %s', async (argv, message) => {
    const { code, err } = await run(argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain('Usage: gepa-actors worker');
  });

  it('a missing module or export exits 2 naming it (and the exports that exist)', async () => {
    const missing = await run(['--adapter', 'test/support/noSuchAdapter.ts', '--redis', 'redis://127.0.0.1:1']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('adapter module not found');
    const noExport = await run(['--adapter', `${ADAPTER}#nope`, '--redis', 'redis://127.0.0.1:1']);
    expect(noExport.code).toBe(2);
    expect(noExport.err).toContain('has no export "nope"');
    expect(noExport.err).toContain('flakyAdapter');
    const notAdapter = await run(['--adapter', `${ADAPTER}#DEMO_TASK_OPTIONS`, '--redis', 'redis://127.0.0.1:1']);
    expect(notAdapter.code).toBe(2);
    expect(notAdapter.err).toContain('is not an adapter');
  });

  it('--help prints the usage and exits 0, and says what happens when a worker is lost', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('--adapter PATH[#EXPORT]');
    // The failover's figures, as the executor's defaults have them.
    expect(out).toContain(`Failover: the worker beats every ${HEARTBEAT_MS} ms through Redis, from a thread of its own`);
    expect(out).toContain(`within about half a second (the executor's workerLostMs, default ${BULLMQ_EXECUTOR_DEFAULTS.workerLostMs}),\na quarter of a second while the other workers beat on time`);
    expect(out).toContain('"answer\ndropped"');
  });
});
