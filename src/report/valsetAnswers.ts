// The best candidate on every valset example: the example, its score, the output and the
// feedback its metric gave, so a reader sees where the best prompt still fails. Failures first,
// since they are what a reader looks for; outputs and feedback are user or model text, escaped.
import { escapeHtml } from './htmlEscape.js';
import type { ObservationSource, ValsetAnswer } from './runObserver.js';

const MAX_OUTPUT_CHARS = 1200;

function outputText(output: unknown): string {
  if (output === undefined) return '';
  let text: string;
  try {
    text = typeof output === 'string' ? output : (JSON.stringify(output) ?? String(output));
  } catch {
    text = String(output);
  }
  return text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}…` : text;
}

export function renderValsetAnswers(answers: readonly ValsetAnswer[] | undefined, bestIndex: number, from: ObservationSource = 'this process'): string {
  if (answers === undefined) return '<p class="muted">Not recorded: the report was written without observing the run\'s calls.</p>';
  const seen = answers.filter((a) => a.evaluation !== undefined).length;
  const why = from === 'the run log' ? 'not in the run log' : 'replayed or run on workers';
  if (seen === 0) return from === 'the run log' ? '<p class="muted">The run log holds none of the best candidate\'s valset calls.</p>' : '<p class="muted">None of the best candidate\'s valset calls ran in this process (replayed from the log, or run on workers).</p>';
  // Lowest score first; equal scores keep valset order (the sort is stable).
  const order = answers.map((a, i) => ({ a, i })).sort((x, y) => (x.a.evaluation?.score ?? Infinity) - (y.a.evaluation?.score ?? Infinity));
  const rows = order
    .map(({ a, i }) => {
      const e = a.evaluation;
      const score = e ? e.score.toFixed(3) : '';
      return (
        `<tr class="valset-answer" data-example="${i}"><td class="num">${i}</td><td class="example">${escapeHtml(a.example)}</td><td class="num score">${score}</td>` +
        `<td><pre class="output">${e ? escapeHtml(outputText(e.output)) : '<span class="muted">not recorded</span>'}</pre></td>` +
        `<td class="feedback">${escapeHtml(e?.feedback ?? '')}</td></tr>`
      );
    })
    .join('');
  const missing = answers.length - seen;
  return (
    `<p class="muted">Candidate #${bestIndex} on each of the ${answers.length} valset examples, lowest score first${missing > 0 ? `; ${missing} not recorded (${why})` : ''}.</p>` +
    `<div class="scroll"><table class="valset-answers"><thead><tr><th class="num">#</th><th>example</th><th class="num">score</th><th>output</th><th>feedback</th></tr></thead><tbody>${rows}</tbody></table></div>`
  );
}
