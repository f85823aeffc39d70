import { Worker } from 'node:worker_threads';
import type { LocalArtworkInput } from './local-artwork.ts';

// Local artwork is rendered on a thread of its own. Each image passes two full-size raw layers (4.7 MB each at
// 1080×1080) through JavaScript, and in the worker's process that external memory set off a major garbage
// collection every few images, each holding the main thread (workflow tasks, heartbeats, the api) for 40–60 ms.
// On its own thread the collections are those of a small heap, and off the main thread: the benchmark's workflow
// tasks lost their 60–80 ms p90, and an image costs the process less CPU. One thread is enough: the pixel work runs
// on libvips's own threads whichever thread asks for it.

export type ArtworkRequest = { id: number; input: LocalArtworkInput };
export type ArtworkAnswer = { id: number; png: Uint8Array } | { id: number; error: string };

type Waiter = { resolve: (png: Buffer) => void; reject: (error: Error) => void };

let thread: Worker | undefined;
const waiting = new Map<number, Waiter>();
let lastId = 0;

/** renderLocalArtwork on the artwork thread, started on first use and again after it failed. */
export function renderLocalArtworkOffThread(input: LocalArtworkInput): Promise<Buffer> {
  const worker = (thread ??= startThread());
  const id = (lastId += 1);
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // Only a render under way keeps the process alive: an idle thread never holds up its exit.
    if (waiting.size === 1) worker.ref();
    worker.postMessage({ id, input } satisfies ArtworkRequest);
  });
}

function startThread(): Worker {
  // The name is the thread's name in the OS, so CPU profiles (bench/cpu-time.ts) can tell it apart.
  const worker = new Worker(new URL('./local-artwork-thread.ts', import.meta.url), { name: 'artwork' });
  worker.on('message', (answer: ArtworkAnswer) => {
    const waiter = waiting.get(answer.id);
    if (!waiter) return;
    settle(answer.id);
    if ('error' in answer) waiter.reject(new Error(answer.error));
    else waiter.resolve(Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength));
  });
  const failAll = (error: Error) => {
    if (thread === worker) thread = undefined;
    for (const [id, waiter] of waiting) {
      settle(id);
      waiter.reject(error);
    }
  };
  worker.on('error', (error: Error) => failAll(new Error(`the artwork thread failed: ${error.message}`, { cause: error })));
  worker.on('exit', (code) => failAll(new Error(`the artwork thread exited with code ${code}`)));
  // Listeners ref a worker again: unref it only after adding them.
  worker.unref();
  return worker;
}

function settle(id: number): void {
  waiting.delete(id);
  if (waiting.size === 0) thread?.unref();
}
