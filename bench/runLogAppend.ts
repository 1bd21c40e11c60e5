// How fast the run log takes records: one write(2) per record on one descriptor (what a run
// does), against fs.appendFileSync per record (open + write + close) and one fdatasync per
// record (what a machine-crash-proof log would cost). Prints records per second.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunLogWriter, type RunLogRecord } from '../src/storage/runLog.js';

const dir = mkdtempSync(join(tmpdir(), 'gepa-log-bench-'));
const record: RunLogRecord = {
  t: 'eval',
  key: '6fd8c4c931216862f1f1a6e86247fa35:17:1',
  evaluation: { score: 0, output: '12/03/2025', feedback: 'Expected "2025-03-12": the customer asked for ISO dates. '.repeat(3) },
};

function measure(name: string, n: number, append: (r: RunLogRecord) => void): void {
  const start = performance.now();
  for (let i = 0; i < n; i++) append(record);
  const seconds = (performance.now() - start) / 1000;
  console.log(`${name.padEnd(28)} ${Math.round(n / seconds).toLocaleString('en-US').padStart(10)} records/s`);
}

const writer = new RunLogWriter(join(dir, 'a.jsonl'), 0);
measure('writeSync on one fd', 50_000, (r) => writer.append(r));
writer.close();
measure('appendFileSync per record', 20_000, (r) => appendFileSync(join(dir, 'b.jsonl'), `${JSON.stringify(r)}\n`));
const synced = new RunLogWriter(join(dir, 'c.jsonl'), 0);
measure('writeSync + fdatasync', 500, (r) => {
  synced.append(r);
  synced.sync();
});
synced.close();
rmSync(dir, { recursive: true, force: true });
