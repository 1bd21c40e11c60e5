// The small arithmetic run the CLI tests give the `run` command: a JSONL trainset and valset of
// sums, and a config for the loopback OpenAI-compatible server (test/support/fakeOpenAIServer.ts),
// whose default responder answers sums.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** JSONL rows `What is a + b?` -> `a + b`. */
export const arithmeticRows = (pairs: Array<[number, number]>): string =>
  pairs.map(([a, b]) => JSON.stringify({ input: `What is ${a} + ${b}?`, answer: String(a + b) })).join('\n');

/** Writes train.jsonl and val.jsonl (four sums each) into `dir`. */
export async function writeArithmeticDataset(dir: string): Promise<void> {
  await writeFile(join(dir, 'train.jsonl'), arithmeticRows([[1, 2], [3, 4], [5, 6], [7, 8]]));
  await writeFile(join(dir, 'val.jsonl'), arithmeticRows([[2, 2], [10, 5], [6, 7], [9, 9]]));
}

/** A `run` config over that dataset (paths relative to the config file), without a runDir. */
export const ARITHMETIC_RUN_CONFIG = {
  seedCandidate: { system_prompt: 'Answer the arithmetic question.' },
  trainset: 'train.jsonl',
  valset: 'val.jsonl',
  taskModel: 'gpt-4.1-mini',
  reflectionModel: 'gpt-5-mini',
  metric: 'exact-match',
  maxMetricCalls: 40,
  schedule: { kind: 'batched', parents: 1, perParent: 2 },
  workers: 4,
};
