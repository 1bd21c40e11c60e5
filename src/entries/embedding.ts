/**
 * `gepa-actors/embedding`: what a program that embeds or extends the machines (root:
 * optimizerMachine, proposerMachine, evaluatorActor) writes against: the messages between them
 * (docs/embedding.md), the executor seam of the evaluator, the system clock a run reads by
 * default, GEPA's building blocks, and the reflection strategy interface with its built-ins
 * (docs/hooks.md, "Reflection strategies").
 *
 * @module gepa-actors/embedding
 */
export type {
  EvaluatorRequest,
  EvaluatorReply,
  EvaluatorStats,
  ProposalUpdate,
  ProposerReport,
  ProposerDecision,
  ProposerInput,
  ReplyTo,
  SystemicFailure,
} from '../../machines/protocol.js';
export type { EvaluatorInput } from '../../machines/evaluator.actor.js';
// What the failure rule reads of a custom evaluator's counts (EvaluatorStats.outcomes).
export type { CallOutcomes } from '../gepa/search/failureRule.js';
export type { GatePrefetch } from '../gepa/search/gatePrefetch.js';
export type { BatchExample, BatchSlots, MetricCallExecutor, MetricCallIdentity } from '../executors/metricCallExecutor.js';
export { systemClock } from '../clock.js';
export { candidateHash } from '../gepa/core/candidateHash.js';
export { extractInstruction } from '../gepa/proposer/extractInstruction.js';
export { buildReflectionPrompt, type ReflectionContext } from '../gepa/proposer/reflectionPrompt.js';
export type {
  FailedReflection,
  MoreAsks,
  NewTexts,
  ReflectionAsk,
  ReflectionEvidence,
  ReflectionInput,
  ReflectionOptions,
  ReflectionRead,
  ReflectionReply,
  ReflectionRound,
  ReflectionStrategy,
} from '../gepa/reflection/reflectionStrategy.js';
export type { RunReflection } from '../gepa/reflection/reflectionRun.js';
export { reflectionStrategies, type ReflectionStrategyName } from '../gepa/reflection/reflectionStrategies.js';
