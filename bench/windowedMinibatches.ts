// The async schedule's closest equivalent of the batched default's sliding minibatches, as a
// sampleMinibatch hook (bench only, to measure it): proposals are numbered by step, K of them make
// a window, and window w's proposal j takes chunk w + j of the epoch order (wrapping within the
// epoch, a new shuffle every `chunks` windows), exactly as task j of step w does in a batched
// step of width K under 'sliding'. So each chunk is judged by K consecutive proposals, as it is
// by K consecutive batched steps. State restarts when the step number does not grow (a new run).
import type { SampleMinibatch } from '../src/gepa/strategies/hookSignatures.js';

export function windowedMinibatches(width: number): SampleMinibatch {
  let epochs: number[][] = [];
  let lastStep = 0;
  return ({ trainsetSize, minibatchSize, step }, rng) => {
    if (step <= lastStep) epochs = [];
    lastStep = step;
    const chunks = Math.ceil(trainsetSize / minibatchSize);
    const n = step - 1;
    const window = Math.floor(n / width);
    const epoch = Math.floor(window / chunks);
    while (epochs.length <= epoch) {
      const order = rng.shuffle(Array.from({ length: trainsetSize }, (_, i) => i));
      // Pad to whole chunks with the epoch's first ids (the bench tasks' 60 examples need none).
      while (order.length % minibatchSize !== 0) order.push(order[order.length % trainsetSize] as number);
      epochs.push(order);
    }
    const order = epochs[epoch] as number[];
    const start = (((window % chunks) + (n % width)) % chunks) * minibatchSize;
    return order.slice(start, start + minibatchSize);
  };
}
