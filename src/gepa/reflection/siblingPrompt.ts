// Several children per parent (async `perParent`): the proposals of a group reflect on one parent
// evaluation, so their prompts are the same text. A model sampled above temperature 0 answers a
// repeated prompt anew; one at temperature 0, a response cache, and the simulated models here
// (whose reply is a function of the prompt) would answer N times alike and make one child N
// times. So the k-th sibling's prompt (k >= 1) opens with a note naming its sample, which reads to
// a model as a request for another answer and draws anew where the reply is a function of the
// prompt; the first proposal's prompt is unchanged (a group of one is the proposal of N = 1). At
// the start, not the end: the prompt's last section is the last example's feedback, which the
// note would read as part of.

/** `prompt` as the proposal at place `sample` of its group sends it (0: the prompt itself). */
export function siblingPrompt(prompt: string, sample: number): string {
  return sample === 0 ? prompt : `(Sample ${sample + 1} of this prompt: where more than one change would help, choose freely among them.)\n\n${prompt}`;
}
