// A child process for the optimizeAnything kill -9 test: runs (or resumes) the durable single-task
// run in the directory argv[2], appending a line to the counter file argv[3] whenever the
// evaluator really runs. Prints "ready" before the run, then its result as JSON.
import { appendFileSync } from 'node:fs';
import { optimizeAnything } from '../../src/index.js';
import { anythingDurableOptions } from './anythingDurableTask.js';

const [runDir, counterFile] = process.argv.slice(2);
if (!runDir || !counterFile) throw new Error('usage: anythingRunChild.ts RUN_DIR COUNTER_FILE');
process.stdout.write('ready\n');
const result = await optimizeAnything(anythingDurableOptions(runDir, () => appendFileSync(counterFile, '.\n')));
process.stdout.write(`${JSON.stringify(result)}\n`);
