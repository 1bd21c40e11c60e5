// The simulated two-stage system seen by the optimizer as an ordinary Adapter: one metric call
// runs both stages (planner, then answer) on one problem and grades the result with partial
// credit. The reflection records show the problem, both stages' outputs and the grader's
// feedback, never the hidden family or expected-answer fields.
import type { Adapter, Candidate, EvalContext, Evaluation, ReflectiveDataset } from '../../gepa/core/adapter.js';
import { combineHashes, hashString } from '../hash32.js';
import { checkLatencyOptions, latencyApplies, simulateLatency, type LatencyModel } from '../simulatedLatency.js';
import type { MultistepExample } from './multistepDataset.js';
import { parseStagePromptCached } from './stagePrompt.js';
import { STAGES, type Stage } from './stageRules.js';
import { solveTwoStage, type TwoStageTrace } from './twoStageSolver.js';

export interface TwoStageModelOptions extends LatencyModel {
  seed: number;
}

function componentText(candidate: Candidate, stage: Stage): string {
  const text = candidate[stage];
  if (typeof text !== 'string') {
    throw new TypeError(`the multistep task needs components ${STAGES.map((s) => `'${s}'`).join(' and ')}; this candidate has no '${stage}' (it has: ${Object.keys(candidate).join(', ') || 'none'})`);
  }
  return text;
}

export function createTwoStageModel(options: TwoStageModelOptions): Adapter<MultistepExample> {
  const { seed } = options;
  checkLatencyOptions('metricCallMs', options.meanMs, options.jitter);
  return {
    async evaluate(candidate: Candidate, example: MultistepExample, ctx: EvalContext): Promise<Evaluation> {
      const planner = parseStagePromptCached(componentText(candidate, 'planner'), 'planner');
      const answer = parseStagePromptCached(componentText(candidate, 'answer'), 'answer');
      if (latencyApplies(options, ctx.signal)) {
        await simulateLatency(options, combineHashes(planner.hash, answer.hash ^ hashString(example.id, seed), seed), ctx.signal);
      }
      return solveTwoStage(planner, answer, example, seed, ctx.captureTraces);
    },

    makeReflectiveDataset(_candidate, results, components): ReflectiveDataset {
      const records = results.map(({ example, evaluation }) => {
        const trace = evaluation.trace as TwoStageTrace | undefined;
        const outputs = trace
          ? `Plan: ${trace.plan.map((s, i) => `(${i + 1}) ${s}`).join(' ')}\nAnswer: ${trace.answer}`
          : evaluation.output ?? '(no output)';
        return { Inputs: example.input, 'Generated Outputs': outputs, Feedback: evaluation.feedback ?? `Score: ${evaluation.score}` };
      });
      return Object.fromEntries(components.map((c) => [c, records]));
    },
  };
}
