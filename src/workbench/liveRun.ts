// A run in this process, as the workbench sees it: its events (onEvent or the optimizer actor's
// emitted events), its worker slots (onSlotInterval) and its XState inspection, each folded into
// the view at the run's time; and its drain and stop. The CLI's session feeds one (run --ui,
// demo --ui); serveWorkbench({ actor }) subscribes one to an optimizer actor it is given.
// Nothing here is made unless the workbench is asked for: a run without it pays for none of this.
import type { Clock } from '../clock.js';
import { createInspectionSerializer } from '../report/inspectionLog.js';
import type { ReportInput } from '../report/renderReport.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import type { RunView } from './runView.js';

/** How a live run is drained and stopped (the session's controllers, or messages to the actor). */
export interface LiveStops {
  /** Nothing new starts; what is in flight finishes. */
  drain(): void;
  /** As drain, and what is still in flight after a grace is aborted. */
  stop(): void;
}

export class LiveRunFeed {
  private startedAt: number | undefined;
  private ended = false;
  private readonly serialize: (event: unknown) => ReturnType<ReturnType<typeof createInspectionSerializer>>;

  constructor(
    readonly view: RunView,
    private readonly clock: Clock,
    private readonly onChange: () => void,
    readonly stops: LiveStops,
  ) {
    this.serialize = createInspectionSerializer(clock);
    view.elapsedNow = () => (this.startedAt === undefined || this.ended ? undefined : this.clock.now() - this.startedAt);
  }

  /** Run time now, ms. */
  private at(): number | undefined {
    return this.startedAt === undefined ? undefined : this.clock.now() - this.startedAt;
  }

  onEvent(event: RunEvent): void {
    if (event.type === 'run.started' && this.startedAt === undefined) {
      this.startedAt = this.clock.now();
      this.view.slotsStartedAt = this.startedAt;
    }
    if (event.type === 'run.ended') this.ended = true;
    this.view.applyEvent(event, this.at());
    this.onChange();
  }

  onSlotInterval(interval: SlotInterval): void {
    this.view.applySlotInterval(interval);
    this.onChange();
  }

  /** Pass as the run's `inspect` (XState's inspection events). */
  inspect(event: unknown): void {
    const record = this.serialize(event);
    if (!record) return;
    this.view.applyInspection(record);
    this.onChange();
  }

  /** The report this process wrote, or the result it got: the finished view. */
  finished(input: ReportInput): void {
    this.ended = true;
    this.view.applyFinishedInput(input);
    this.onChange();
  }

  /** Gave up without a result (an error, an interrupt). */
  failed(message: string): void {
    this.ended = true;
    this.view.applyEvent({ type: 'error', message, systemic: true }, this.at());
    this.view.markFailed();
    this.onChange();
  }

  running(): boolean {
    return this.startedAt !== undefined && !this.ended;
  }
}
