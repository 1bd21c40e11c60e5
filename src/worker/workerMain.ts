// Runs `gepa-actors worker` directly: `tsx src/worker/workerMain.ts --adapter ... --redis ...`
// (tests and benchmarks spawn it this way; users go through the gepa-actors CLI).
import { workerCommand } from './workerCommand.js';

process.exit(await workerCommand(process.argv.slice(2)));
