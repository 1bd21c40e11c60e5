// A child process for the durable-run tests: runs (or resumes) the durable demo run in the
// directory argv[2], appending one line to the counter file argv[3] whenever adapter.evaluate
// really starts (argv[4] 'async' picks the async schedule), so the parent can count paid calls across processes it kills with SIGKILL.
// Prints "ready" before the run starts and the OptimizeResult as JSON when it ends.
import { appendFileSync } from 'node:fs';
import { optimize } from '../../src/index.js';
import { durableRunConfig } from './durableRunTask.js';

const [runDir, counterFile, schedule] = process.argv.slice(2);
if (!runDir || !counterFile) throw new Error('usage: durableRunChild.ts RUN_DIR COUNTER_FILE [async]');
const base = durableRunConfig(runDir, () => appendFileSync(counterFile, '.\n'));
// 'async': the same run in the async schedule, 8 in flight.
const config = schedule === 'async' ? { ...base, schedule: { kind: 'async' as const, inFlight: 8 } } : base;
process.stdout.write('ready\n');
const result = await optimize(config);
process.stdout.write(`${JSON.stringify(result)}\n`);
