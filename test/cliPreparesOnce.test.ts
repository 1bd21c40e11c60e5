// The CLI validates a config once and reads a resumed run's log once before the run: the run
// directory's check and the run itself share the prepared run and the directory as read. (The
// report, written after the run, reads the log again: by then it holds this process's work too.)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { resolveSettings } from '../src/config/runSettings.js';
import { readRunLog } from '../src/storage/runLog.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';

// The real functions, counted.
vi.mock('../src/config/runSettings.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/config/runSettings.js')>();
  return { ...real, resolveSettings: vi.fn(real.resolveSettings) };
});
vi.mock('../src/storage/runLog.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/storage/runLog.js')>();
  return { ...real, readRunLog: vi.fn(real.readRunLog) };
});

let dir: string;
let server: FakeOpenAIServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-prepares-once-'));
  server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
  await writeArithmeticDataset(dir);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the run command', () => {
  it('validates the config once; --resume reads the log once before the run, and once more for the report', async () => {
    const runDir = join(dir, 'run');
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, runDir }, null, 2));
    const env = { OPENAI_BASE_URL: server.baseURL };

    vi.mocked(resolveSettings).mockClear();
    expect(await runCli(['run', config], memoryIo({ env }))).toBe(0);
    expect(vi.mocked(resolveSettings)).toHaveBeenCalledTimes(1);

    vi.mocked(resolveSettings).mockClear();
    vi.mocked(readRunLog).mockClear();
    // A larger budget continues the finished run, so the resume runs (and logs) again.
    expect(await runCli(['run', config, '--resume', '--budget', '60'], memoryIo({ env }))).toBe(0);
    expect(vi.mocked(resolveSettings)).toHaveBeenCalledTimes(1);
    const logReads = vi.mocked(readRunLog).mock.calls.filter(([path]) => path === join(runDir, 'log.jsonl'));
    expect(logReads).toHaveLength(2);
  });
});
