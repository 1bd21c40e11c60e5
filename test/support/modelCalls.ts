// Helpers for the tests of model backends that talk to the loopback server (OpenAI, AI SDK): a
// clock that records the waits it is asked for, and the LanguageModelError a failed call throws.
import { expect } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { LanguageModelError } from '../../src/lm/openaiLanguageModel.js';
import type { Clock } from '../../src/clock.js';

/** A clock that runs in real time but records every wait it is asked for. */
export function recordingClock(): Clock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => systemClock.now(),
    setTimeout: (fn, ms) => {
      waits.push(ms);
      return systemClock.setTimeout(fn, ms);
    },
    clearTimeout: (id) => systemClock.clearTimeout(id),
  };
}

/** The LanguageModelError the call rejects with (the test fails if it resolves or throws anything else). */
export async function failure(promise: Promise<unknown>): Promise<LanguageModelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LanguageModelError);
  return err as LanguageModelError;
}
