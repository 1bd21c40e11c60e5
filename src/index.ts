// The public entry of gepa-actors: the optimize() function, the optimizer machine to embed,
// the types of CONTRACT.md, and the domain building blocks a user may want to reuse.
export type {
  Adapter,
  Candidate,
  Clock,
  EvalContext,
  EvaluatedExample,
  Evaluation,
  LanguageModel,
  LmReply,
  OptimizeConfig,
  OptimizeResult,
  ProposalRecord,
  ReflectiveDataset,
  RunEvent,
  Schedule,
} from './types.js';
export { optimize } from '../machines/optimize.js';
export { optimizerMachine } from '../machines/optimizer.machine.js';
export { proposerMachine } from '../machines/proposer.machine.js';
export { evaluatorActor } from '../machines/evaluator.actor.js';
export { ConfigError } from './runSettings.js';
export { Rng } from './rng.js';
export { candidateHash } from './candidateHash.js';
export { systemClock, runOnSimulatedClock } from './clock.js';
export { extractInstruction } from './extractInstruction.js';
export { buildReflectionPrompt } from './reflectionPrompt.js';
