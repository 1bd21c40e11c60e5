// The reflection prompt: the current text in a fence, the records as markdown (# Example N,
// ## key, nested keys one level down) and a request for a fenced reply.
import { describe, expect, it } from 'vitest';
import { buildReflectionPrompt, renderRecords } from '../src/gepa/proposer/reflectionPrompt.js';

const record = {
  Inputs: { question: 'What is 2+2?', context: 'arithmetic' },
  'Generated Outputs': '5',
  Feedback: 'Wrong: the answer is 4.',
};

describe('renderRecords', () => {
  it('renders a record exactly: # Example N, ## per key, ### for nested keys', () => {
    expect(renderRecords([record])).toBe(
      [
        '# Example 1',
        '## Inputs',
        '### question',
        'What is 2+2?',
        '',
        '### context',
        'arithmetic',
        '',
        '## Generated Outputs',
        '5',
        '',
        '## Feedback',
        'Wrong: the answer is 4.',
      ].join('\n'),
    );
  });

  it('numbers the examples and separates them by a blank line', () => {
    expect(renderRecords([{ Feedback: 'ok' }, { Feedback: 'bad' }])).toBe('# Example 1\n## Feedback\nok\n\n# Example 2\n## Feedback\nbad');
  });

  it('renders lists, numbers, booleans, empty strings and missing values', () => {
    expect(renderRecords([{ steps: ['add', ' carry '], score: 0.5, ok: false, note: '  ', output: null, trace: undefined }])).toBe(
      [
        '# Example 1',
        '## steps',
        '1. add',
        '2. carry',
        '',
        '## score',
        '0.5',
        '',
        '## ok',
        'false',
        '',
        '## note',
        '(empty)',
        '',
        '## output',
        '(none)',
        '',
        '## trace',
        '(none)',
      ].join('\n'),
    );
  });

  it('goes one heading level down per nesting level, at most ######', () => {
    const deep = { a: { b: { c: { d: { e: { f: 'leaf' } } } } } };
    expect(renderRecords([deep])).toBe('# Example 1\n## a\n### b\n#### c\n##### d\n###### e\n###### f\nleaf');
  });

  it('renders nothing for no records', () => {
    expect(renderRecords([])).toBe('');
  });
});

describe('buildReflectionPrompt', () => {
  const prompt = buildReflectionPrompt('system_prompt', 'You are a calculator.', [record]);

  it('shows the current text inside a fence and names the component', () => {
    expect(prompt).toContain('```\nYou are a calculator.\n```');
    expect(prompt).toContain('`system_prompt`');
  });

  it('includes the rendered records after the current text', () => {
    const rendered = renderRecords([record]);
    expect(prompt).toContain(rendered);
    expect(prompt).toContain('# Example 1\n## Inputs\n### question\nWhat is 2+2?');
    expect(prompt).toContain('## Feedback\nWrong: the answer is 4.');
    expect(prompt.indexOf('You are a calculator.')).toBeLessThan(prompt.indexOf('# Example 1'));
  });

  it('asks for the complete new text inside a fenced block, after the examples', () => {
    const ask = prompt.indexOf('inside a');
    expect(ask).toBeGreaterThan(prompt.indexOf('## Feedback'));
    expect(prompt.slice(ask)).toMatch(/```\s*fenced block/);
  });

  it('numbers several records', () => {
    const p = buildReflectionPrompt('c', 't', [record, record, record]);
    expect(p).toContain('# Example 3\n## Inputs');
    expect(p).not.toContain('# Example 4');
  });
});
