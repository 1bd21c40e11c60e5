// The single-task search bench task of optimizeAnything: one service config, scored by running a
// simulated load test against the seed's hidden workload (serviceConfig.ts), with the harness's
// report as side information, and a simulated reflection LM that reads it
// (serviceConfigReflection.ts). No dataset: the candidate is the solution.
import { systemClock } from '../../clock.js';
import type { DemoTaskOptions } from '../demoTask.js';
import { hashString } from '../hash32.js';
import { sampledOnRepeat } from '../repeatedPromptSampling.js';
import { checkLatencyOptions } from '../simulatedLatency.js';
import { evaluatorLatency, type AnythingTask } from './anythingTask.js';
import { drawWorkload, runLoadTest, SERVICE_SEED_CONFIG } from './serviceConfig.js';
import { createServiceConfigReflectionModel } from './serviceConfigReflection.js';

export const SERVICE_CONFIG_OBJECTIVE =
  'Tune the service configuration so that it serves as much of the offered load as possible within the p99 latency SLO, with no more workers than needed.';
export const SERVICE_CONFIG_BACKGROUND = [
  'The configuration is `key = value` lines (# starts a comment); the keys are workers, queue_size, cache_mb, batch_size, timeout_ms and retries, all integers.',
  'The service refuses to start on an unknown key or a value out of range, and is killed if it exceeds its memory limit.',
  'Each evaluation runs a 60-second load test and reports throughput, drops, latency, errors, memory, cache hit rate and utilization.',
].join('\n');

/** The service-config task for a seed (the seed draws the workload); latency options as the demo's. */
export function createServiceConfigTask(options: DemoTaskOptions = {}): AnythingTask<unknown> {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const latency = { meanMs: options.metricCallMs ?? 0, jitter: options.jitter ?? ([0.5, 1.5] as const), clock: options.clock ?? systemClock };
  checkLatencyOptions('metricCallMs', latency.meanMs, latency.jitter);
  const workload = drawWorkload(seed);
  return {
    seedCandidate: SERVICE_SEED_CONFIG,
    objective: SERVICE_CONFIG_OBJECTIVE,
    background: SERVICE_CONFIG_BACKGROUND,
    async evaluate(candidate, _example, ctx) {
      await evaluatorLatency(latency, hashString(candidate, seed), ctx.signal);
      return runLoadTest(candidate, workload);
    },
    // Sampled: the same parent sends the same prompt again, and a real model answers anew.
    reflectionLm: sampledOnRepeat(createServiceConfigReflectionModel({ seed, meanMs: options.reflectionMs ?? 0, jitter: latency.jitter, clock: latency.clock })),
  };
}
