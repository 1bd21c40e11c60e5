// Draws a run's progress: on a terminal a live cli-progress bar (budget used, best score,
// proposals in flight, worker utilization, cost) with accepted candidates logged above it; in CI
// or a pipe plain lines, one per accepted candidate and one every ~10% of the budget.
import cliProgress from 'cli-progress';
import { formatDuration } from '../runtimeModel/index.js';
import type { Clock } from '../clock.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { RunProgress, type ProgressBudget, type ProgressNews } from './runProgress.js';
import { terminalSafe } from './terminalText.js';
import { plural } from '../report/runWording.js';

export interface ProgressDisplay {
  onEvent(event: RunEvent): void;
  onSlotInterval(interval: SlotInterval): void;
  /** A message for the user (e.g. "draining"), printed without breaking the display. */
  notice(text: string): void;
  /** Ends the display; given the result's metric calls, its last status shows exactly those. */
  stop(finalMetricCalls?: number): void;
}

export interface ProgressDisplayOptions {
  mode: 'live' | 'lines';
  stream: NodeJS.WritableStream;
  workers: number;
  budget: ProgressBudget;
  clock: Clock;
}

const score = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(3));
const percent = (x: number) => `${Math.round(x * 100)}%`;
export const formatUsd = (x: number) => (x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);

function budgetText(p: RunProgress): string {
  const { maxMetricCalls, maxCostUsd } = p.budget;
  const calls = maxMetricCalls ? `${p.shownCalls()}/${maxMetricCalls} calls` : `${p.shownCalls()} calls`;
  // Nothing paid and no dollar budget: the models may be unpriced, and "$0.0000" would claim a price.
  if (!maxCostUsd && p.costUsd === 0) return calls;
  const cost = maxCostUsd ? `${formatUsd(p.costUsd)}/${formatUsd(maxCostUsd)}` : formatUsd(p.costUsd);
  return `${calls} | ${cost}`;
}

function newsLine(news: ProgressNews): string {
  if (news.kind === 'seed') return `seed candidate: valset ${score(news.score)}`;
  if (news.kind === 'error') return `error: ${news.message}`;
  if (news.kind === 'warning') return `warning: ${news.message}`;
  if (news.kind === 'retry') {
    const capped = news.requestedDelayMs !== undefined ? `; the server asked for ${formatDuration(news.requestedDelayMs)}, capped by retryMaxDelayMs` : '';
    return `retrying ${news.model} in ${formatDuration(news.delayMs)} (attempt ${news.attempt} of ${news.maxAttempts} failed: ${news.reason})${capped}`;
  }
  const origin = news.parents.length > 1 ? `merge of ${news.parents.map((i) => `#${i}`).join(' + ')}` : `from #${news.parents[0] ?? '?'}`;
  const best = news.best ? ' (new best)' : '';
  return `+ candidate #${news.index} ${origin}: valset ${score(news.valScore)}${best}`;
}

/** What a status line says apart from the time (elapsed, utilization): the same figures are not printed twice. */
function statusFigures(p: RunProgress): string {
  return JSON.stringify([p.shownCalls(), p.costUsd, p.bestScore, p.seedScore, p.candidates, p.inFlight, p.errors]);
}

function statusLine(p: RunProgress, now: number): string {
  const fraction = p.budgetFraction(now);
  const head = fraction === undefined ? '' : `[${percent(fraction).padStart(4)}] `;
  return (
    `${head}${budgetText(p)} | best ${score(p.bestScore)} (seed ${score(p.seedScore)}) | ` +
    `${plural(p.candidates, 'candidate')} | ${p.inFlight} in flight | ${percent(p.utilization(now))} busy | ${formatDuration(now - p.startedAt)}` +
    (p.errors > 0 ? ` | ${plural(p.errors, 'failed call')}` : '')
  );
}

export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  const { clock, stream } = options;
  const progress = new RunProgress(options.workers, options.budget, clock.now());
  return options.mode === 'live' ? liveDisplay(progress, stream, clock) : lineDisplay(progress, stream, clock);
}

function lineDisplay(progress: RunProgress, stream: NodeJS.WritableStream, clock: Clock): ProgressDisplay {
  let lastDecile = 0;
  let lastFigures: string | undefined;
  const print = (text: string) => stream.write(`${terminalSafe(text)}\n`);
  const printStatus = () => {
    lastFigures = statusFigures(progress);
    print(statusLine(progress, clock.now()));
  };
  return {
    onEvent(event) {
      for (const news of progress.apply(event)) print(newsLine(news));
      // Status lines start once the seed is scored, so they always have a best score to show.
      if (event.type !== 'budget.updated' || progress.seedScore === undefined) return;
      const fraction = progress.budgetFraction(clock.now());
      if (fraction === undefined) return;
      const decile = Math.floor(fraction * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        printStatus();
      }
    },
    onSlotInterval: (interval) => progress.addInterval(interval),
    notice: print,
    stop(finalMetricCalls) {
      // The last line is the summary's count, whichever decile the run stopped in; unless the
      // last status line said exactly that already (a run stopping right after it).
      if (finalMetricCalls === undefined) return;
      progress.finish(finalMetricCalls);
      if (statusFigures(progress) !== lastFigures) printStatus();
    },
  };
}

function liveDisplay(progress: RunProgress, stream: NodeJS.WritableStream, clock: Clock): ProgressDisplay {
  const multibar = new cliProgress.MultiBar(
    {
      stream,
      format: '{bar} {percentage}% | {budget} | best {best} (seed {seed}) | {candidates} cand. | {inFlight} in flight | {busy} busy | {elapsed}{failed}',
      hideCursor: true,
      clearOnComplete: false,
      // Our own SIGINT handling drains the run; the bar must stay up meanwhile.
      gracefulExit: false,
      barsize: 24,
      fps: 8,
    },
    cliProgress.Presets.shades_classic,
  );
  const TOTAL = 1000;
  const payload = () => {
    const now = clock.now();
    return {
      budget: budgetText(progress),
      best: score(progress.bestScore),
      seed: score(progress.seedScore),
      candidates: progress.candidates,
      inFlight: progress.inFlight,
      busy: percent(progress.utilization(now)),
      elapsed: formatDuration(now - progress.startedAt),
      failed: progress.errors > 0 ? ` | ${plural(progress.errors, 'failed call')}` : '',
    };
  };
  const bar = multibar.create(TOTAL, 0, payload());
  const redraw = () => bar.update(Math.round((progress.budgetFraction(clock.now()) ?? 0) * TOTAL), payload());
  // Elapsed time and utilization move between events too.
  const ticker = setInterval(redraw, 250);
  ticker.unref();
  return {
    onEvent(event) {
      for (const news of progress.apply(event)) multibar.log(`${terminalSafe(newsLine(news))}\n`);
      redraw();
    },
    onSlotInterval: (interval) => {
      progress.addInterval(interval);
      // Every finished call moves the counter; cli-progress draws at most `fps` times a second.
      redraw();
    },
    notice: (text) => multibar.log(`${terminalSafe(text)}\n`),
    stop(finalMetricCalls) {
      clearInterval(ticker);
      if (finalMetricCalls !== undefined) progress.finish(finalMetricCalls);
      redraw();
      multibar.stop();
    },
  };
}
