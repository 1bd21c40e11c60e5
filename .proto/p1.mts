import { Queue, QueueEvents, Worker } from 'bullmq';
import { bullmqConnection } from '../src/executors/redisConnection.js';
const connection = bullmqConnection('redis://127.0.0.1:6391');
const q = new Queue('proto', { connection });
const ev = new QueueEvents('proto', { connection });
let n = 0;
const w = new Worker('proto', async (job) => { n++; if (job.data.fail) throw new Error('boom ' + job.attemptsMade); return { score: job.data.x * 2 }; }, { connection, concurrency: 4 });
await ev.waitUntilReady(); await w.waitUntilReady();
const t0 = performance.now();
const jobs = await Promise.all(Array.from({ length: 200 }, (_, i) => q.add('m', { x: i }, { jobId: 'j-' + i, attempts: 3 })));
const rs = await Promise.all(jobs.map((j) => j.waitUntilFinished(ev)));
console.log('200 jobs', (performance.now() - t0).toFixed(0), 'ms', rs.slice(0, 3), n);
// duplicate job id -> same job, already finished
const again = await q.add('m', { x: 999 }, { jobId: 'j-5', attempts: 3 });
console.log('dup', again.id, await again.waitUntilFinished(ev), n);
const f = await q.add('m', { fail: true }, { jobId: 'f-1', attempts: 3, backoff: { type: 'fixed', delay: 10 } });
try { await f.waitUntilFinished(ev); } catch (e) { console.log('failed:', (e as Error).message, n); }
await w.close(); await ev.close(); await q.obliterate({ force: true }); await q.close();
console.log('closed');
