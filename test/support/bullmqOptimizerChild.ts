// A child process for the remote-executor resume test: runs (or resumes) the demo run with the
// bullmq executor in run directory argv[2], Redis argv[3], queue argv[4]. Prints "ready" before
// the run starts and the OptimizeResult as JSON when it ends.
import { optimize } from '../../src/index.js';
import { demoRunConfig } from './demoRun.js';

const [runDir, url, queue] = process.argv.slice(2);
if (!runDir || !url || !queue) throw new Error('usage: bullmqOptimizerChild.ts RUN_DIR REDIS_URL QUEUE');
process.stdout.write('ready\n');
const result = await optimize(demoRunConfig({ runDir, executor: { kind: 'bullmq', connection: url, queue } }));
process.stdout.write(`${JSON.stringify(result)}\n`);
