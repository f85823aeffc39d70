import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { createLocalImageProvider } from '../src/adapters/image-providers/local-provider.ts';
import type { PostFormat } from '../src/adapters/artwork/post-formats.ts';

// The CPU bound of generating at concurrency: renders alone, as many in flight as requests, with the worker's own
// provider and in this process (the same libvips and thread pool), but on a thread of their own. On the main thread
// their garbage (each image's bytes) went to the main heap, whose collector worked it off while the generates' round
// that followed was measured: the generates paid for the floor's garbage collection.

/** One local render after another, each with a seed of its own: the floor's unit of work, here and at concurrency 1. */
export function floorRenders(format: PostFormat): () => Promise<unknown> {
  const provider = createLocalImageProvider();
  let renders = 0;
  return () => provider.generate({ prompt: `A calm sea at dusk, floor ${renders}`, format, seed: (renders += 1), colors: {} });
}

export type RenderRound = { requests: number; concurrency: number };
export type RenderRoundResult = { rate: number } | { error: string };

export type RenderBound = {
  /** One round's steady rate in renders per second (bench/stats.ts, steadyRate). */
  round(requests: number, concurrency: number): Promise<number>;
  stop(): Promise<void>;
};

export function startRenderBound(format: PostFormat): RenderBound {
  // The thread's name is what the CPU profile (bench/cpu-time.ts) files its time under.
  const thread = new Worker(new URL('./render-bound-thread.ts', import.meta.url), { name: 'renders', workerData: format });
  return {
    async round(requests, concurrency) {
      const answered = once(thread, 'message') as Promise<[RenderRoundResult]>;
      thread.postMessage({ requests, concurrency } satisfies RenderRound);
      const [result] = await answered;
      if ('error' in result) throw new Error(`the render bound's round failed: ${result.error}`);
      return result.rate;
    },
    async stop() {
      const exited = once(thread, 'exit');
      thread.postMessage('stop');
      await exited;
    },
  };
}
