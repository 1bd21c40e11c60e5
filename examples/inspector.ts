// Watching a run in the Stately inspector (@statelyai/inspect): the optimizer, its evaluator
// and a proposer per proposal (async: per proposal its parent's evaluation lets go on), their
// states and every message between them, live.
//
//   npx tsx examples/inspector.ts            WebSocket relay on localhost:8080; open
//                                            http://localhost:8080 in a browser. The relay
//                                            runs here, but the page it serves loads the
//                                            Stately inspector UI from https://stately.ai,
//                                            so the browser needs internet.
//   npx tsx examples/inspector.ts --sky      Stately Sky: events go to stately.ai, which
//                                            prints a link to a live session (internet).
//   npx tsx examples/inspector.ts --offline [--out DIR]
//                                            no network at all: inspection events are written
//                                            to DIR/inspect.jsonl (the CLI's --inspect does the
//                                            same and draws the actor tree in report.html).
//
// The live modes need @statelyai/inspect (an optional peer of gepa-actors: npm install
// @statelyai/inspect); --offline needs nothing beyond gepa-actors.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { InspectionEvent, Observer } from 'xstate';
import { optimize } from '../src/index.js';
import { createInspectionLog } from '../src/entries/report.js';
import { systemClock } from '../src/entries/embedding.js';
import { createDemoTask } from '../src/entries/demo.js';
import { sanitizeContext, sanitizeEvent } from './inspectorView.js';

const { values } = parseArgs({
  options: {
    offline: { type: 'boolean', default: false },
    sky: { type: 'boolean', default: false },
    out: { type: 'string', default: 'runs/inspector' },
    port: { type: 'string', default: '8080' },
    budget: { type: 'string', default: '400' },
    'wait-ms': { type: 'string', default: '8000' },
  },
});

/** Imported only by the live modes; a missing package says how to install it. */
async function statelyInspect<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('the inspector example needs `npm install @statelyai/inspect` (or run it with --offline)', { cause: error });
  }
}

/** OptimizeConfig.inspect takes a function; an inspector offers an observer. */
const forward = (observer: Observer<InspectionEvent>) => (event: unknown) => observer.next?.(event as InspectionEvent);

// Latencies slow enough to follow the run by eye.
// The held-out testset is not an option of optimize(), which refuses fields it does not know.
const { testset: _heldOut, ...task } = createDemoTask({ metricCallMs: values.offline ? 2 : 40, reflectionMs: values.offline ? 5 : 300 });
const run = (inspect: (event: unknown) => void) =>
  optimize({ ...task, maxMetricCalls: Number(values.budget), schedule: { kind: 'async', inFlight: 4 }, workers: 8, inspect });

if (values.offline) {
  const dir = resolve(values.out);
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'inspect.jsonl');
  const log = createInspectionLog({ clock: systemClock, path });
  const result = await run(log.inspect);
  await log.close();
  const actors = log.records.filter((r) => r.kind === 'actor').length;
  console.log(`${log.records.length} inspection records (${actors} actors) written to ${path}`);
  console.log(`best valset score ${result.bestScore.toFixed(3)} after ${result.metricCalls} metric calls`);
} else if (values.sky) {
  const { createSkyInspector } = await statelyInspect(() => import('@statelyai/inspect'));
  const inspector = createSkyInspector({ sanitizeContext, sanitizeEvent });
  const result = await run(forward(inspector.inspect));
  console.log(`best valset score ${result.bestScore.toFixed(3)}; the Sky session stays available at the link above`);
  inspector.stop();
} else {
  const { createWebSocketInspector } = await statelyInspect(() => import('@statelyai/inspect'));
  const { createInspectorServer } = await statelyInspect(() => import('@statelyai/inspect/server'));
  const port = Number(values.port);
  const server = createInspectorServer({ port, autoOpen: false });
  const inspector = createWebSocketInspector({ url: `ws://localhost:${port}`, sanitizeContext, sanitizeEvent });
  console.log(`Open http://localhost:${port} now (the inspector UI loads from stately.ai: the browser needs internet).`);
  console.log(`Starting in ${Number(values['wait-ms']) / 1000} s...`);
  await new Promise((r) => setTimeout(r, Number(values['wait-ms'])));
  const result = await run(forward(inspector.inspect));
  console.log(`best valset score ${result.bestScore.toFixed(3)}. The relay stays up so you can explore; Ctrl-C to quit.`);
  process.once('SIGINT', () => {
    inspector.stop();
    server.stop();
    process.exit(0);
  });
}
