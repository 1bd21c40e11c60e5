// Two processes keeping evaluations in one 'disk' cache folder at the same time: every line each
// wrote is whole (one O_APPEND write per line, lines far longer than PIPE_BUF), so a run that opens
// the folder afterwards is served every evaluation both kept.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { EVALUATION_CACHE_FILE, evaluationCacheDir } from '../src/storage/evaluationCacheDir.js';

const COUNT = 400;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Starts a writer; resolves once it is ready, with a function that lets it go and waits for it. */
async function writer(folder: string, label: string): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/cacheWriterChild.ts', folder, label, String(COUNT)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const next = () => new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  lines.push(await next());
  expect(lines).toEqual(['ready']);
  return async () => {
    const finished = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write('go\n');
    expect(await finished).toBe(0);
  };
}

it('two runs appending to one cache folder at once lose no evaluation', async () => {
  dir = mkdtempSync(join(tmpdir(), 'gepa-cache-shared-'));
  const go = await Promise.all([writer(dir, 'a'), writer(dir, 'b')]);
  await Promise.all(go.map((start) => start()));
  const lines = readFileSync(join(dir, EVALUATION_CACHE_FILE), 'utf8').split('\n').filter(Boolean);
  expect(lines).toHaveLength(2 * COUNT);
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  const examples = Array.from({ length: COUNT }, (_, i) => ({ id: i }));
  const reader = evaluationCacheDir(dir, { adapter: 'writer-test' }, examples);
  for (const label of ['a', 'b']) {
    for (let i = 0; i < COUNT; i++) expect(reader.find(label, i, false, 0)?.score).toBe(i / COUNT);
  }
  // Another adapter identity is served none of them.
  expect(evaluationCacheDir(dir, { adapter: 'other' }, examples).find('a', 0, false, 0)).toBeUndefined();
}, 60_000);
