// The proposers' actor ids: a few names reused as proposers come and go ('proposer-0',
// 'proposer-1', ...), each proposer registered under its proposal's id as its systemId, which
// inspection records (the report's actor tree shows it). Not the proposal ids themselves: XState
// copies the optimizer's children object at every spawn and stop, and V8 gives a copy holding
// keys it has never seen a new hidden class per key, so unique ids cost ~17 us a proposal more
// than reused names (bench/README.md, "Issue 48 item 5 (branch `overhead`)"). A plain table
// held by reference in the optimizer's context; JSON gives it as { proposal: actor id }.
import type { ProposalId } from '../src/gepa/core/proposal.js';

/** A proposer's actor id. */
export type ProposerActorId = `proposer-${number}`;

export class ProposerActorIds {
  private readonly byProposal = new Map<string, ProposerActorId>();
  /** Ids of stopped proposers, the last freed taken first. */
  private readonly free: ProposerActorId[] = [];
  private made = 0;

  /** The id to spawn `proposal`'s proposer under. */
  spawned(proposal: ProposalId): ProposerActorId {
    const id = this.free.pop() ?? (`proposer-${this.made++}` as const);
    this.byProposal.set(proposal, id);
    return id;
  }

  /** The id of `proposal`'s proposer, while it runs (none: the proposal has none, or it was stopped). */
  of(proposal: string): ProposerActorId | undefined {
    return this.byProposal.get(proposal);
  }

  /** `proposal`'s proposer is stopped: its id, now free for the next proposer (none: it had no proposer). */
  stopped(proposal: string): ProposerActorId | undefined {
    const id = this.byProposal.get(proposal);
    if (id === undefined) return undefined;
    this.byProposal.delete(proposal);
    this.free.push(id);
    return id;
  }

  toJSON(): Record<string, ProposerActorId> {
    return Object.fromEntries(this.byProposal);
  }
}
