// The proposers' actor ids: a few names reused as proposers come and go ('proposer-0',
// 'proposer-1', ...), each proposer registered under its proposal's id as its systemId, which
// inspection records (the report's actor tree shows it). Not the proposal ids themselves: XState
// copies the optimizer's children object at every spawn and stop, and V8 gives a copy holding
// keys it has never seen a new hidden class per key, so unique ids cost ~17 us a spawn and stop
// more than reused names (bench/README.md, "Issue 48 item 5 (branch `overhead`)"). Plain data
// held by reference in the optimizer's context (JSON gives its fields and reads back the same);
// its table by proposal is a dictionary, as the run's table of proposals is (recordsInFlight.ts).
import { emptyRecords } from '../src/gepa/search/recordsInFlight.js';
import type { ProposalId } from '../src/gepa/core/proposal.js';

/** A proposer's actor id. */
export type ProposerActorId = `proposer-${number}`;

export class ProposerActorIds {
  /** The running proposers' ids by proposal. */
  private readonly byProposal: Record<string, ProposerActorId> = emptyRecords();
  /** Ids of stopped proposers, the last freed taken first. */
  private readonly free: ProposerActorId[] = [];
  /** Ids made so far. */
  private made = 0;

  /** The id to spawn `proposal`'s proposer under. */
  spawned(proposal: ProposalId): ProposerActorId {
    const id = this.free.pop() ?? (`proposer-${this.made++}` as const);
    this.byProposal[proposal] = id;
    return id;
  }

  /** The id of `proposal`'s proposer, while it runs (none: the proposal has none, or it was stopped). */
  of(proposal: string): ProposerActorId | undefined {
    return this.byProposal[proposal];
  }

  /** `proposal`'s proposer is stopped: its id, now free for the next proposer (none: it had no proposer). */
  stopped(proposal: string): ProposerActorId | undefined {
    const id = this.byProposal[proposal];
    if (id === undefined) return undefined;
    delete this.byProposal[proposal];
    this.free.push(id);
    return id;
  }
}
