/**
 * `gepa-actors/demo`: the offline tasks on simulated models that `gepa-actors demo` and the
 * benchmarks run: the demo task, and the two optimizeAnything tasks (a service config scored by a
 * simulated load test; a record-normalization prompt). Out of the root entry's module graph.
 *
 * @module gepa-actors/demo
 */
export { createDemoTask, DEMO_SEED_PROMPT, type DemoTask, type DemoTaskOptions, type DemoExample } from '../demo/demoTask.js';
export type { AnythingTask, SideInfoEvaluation, TaskEvaluator } from '../demo/anything/anythingTask.js';
export { createServiceConfigTask } from '../demo/anything/serviceConfigTask.js';
export { createRecordTask, type RecordExample } from '../demo/anything/recordTask.js';
