// Where a request for the evaluator goes. The built-in evaluator is a one-state machine (it sends
// the replies, so that inspection records the evaluator as their sender) in front of its service,
// a callback actor that runs the requests: the service takes them itself, registered as
// 'evaluator.inbox', without a step of the machine in front per request (an XState macrostep, its
// snapshot and its garbage: a request is ~1.5 a proposal). A replacement evaluator
// (`optimizerMachine.provide({ actors: { evaluator } })`) registers no inbox and gets them itself.
import type { ActorSystem } from 'xstate';
import type { EvaluatorRef } from './protocol.js';

/** The system id of the built-in evaluator's service: where requests go when it is there. */
export const EVALUATOR_INBOX = 'evaluator.inbox';

/** The actor a request goes to: the built-in evaluator's inbox, else the evaluator ('evaluator'); the optimizer starts it before any request. */
export function evaluatorInbox({ system }: { system: ActorSystem<any> }): EvaluatorRef {
  const inbox: EvaluatorRef | undefined = system.get(EVALUATOR_INBOX) ?? system.get('evaluator');
  if (!inbox) throw new Error("no actor with systemId 'evaluator' in the system");
  return inbox;
}
