import { Worker } from 'node:worker_threads';
import { errorOf } from '../../common/errors/caught.ts';
import type { LocalArtworkInput } from './local-artwork.ts';

// Local artwork is rendered on a thread of its own. Each image passes two full-size raw layers (4.7 MB each at
// 1080×1080) through JavaScript, and in the worker's process that external memory set off a major garbage
// collection every few images, each holding the main thread (workflow tasks, heartbeats, the api) for tens of
// milliseconds. On its own thread the collections are those of a small heap, and off the main thread, so workflow
// tasks no longer wait behind them and an image costs the process less CPU. One thread is enough: the pixel work
// runs on libvips's own threads whichever thread asks for it.

export type ArtworkRequest = { id: number; input: LocalArtworkInput };
export type ArtworkAnswer = { id: number; png: Uint8Array } | { id: number; error: string };

type Waiter = { resolve: (png: Buffer) => void; reject: (error: Error) => void };
/** A thread and the renders sent to it: a thread that fails fails its own renders, never its successor's. */
type ArtworkThread = { worker: Worker; waiting: Map<number, Waiter> };

let current: ArtworkThread | undefined;
let lastId = 0;

/** renderLocalArtwork on the artwork thread, started on first use and again after it failed. */
export function renderLocalArtworkOffThread(input: LocalArtworkInput): Promise<Buffer> {
  const thread = (current ??= startThread());
  const id = (lastId += 1);
  return new Promise((resolve, reject) => {
    thread.waiting.set(id, { resolve, reject });
    // Only a render under way keeps the process alive: an idle thread never holds up its exit.
    if (thread.waiting.size === 1) thread.worker.ref();
    try {
      thread.worker.postMessage({ id, input } satisfies ArtworkRequest);
    } catch (error) {
      settle(thread, id);
      reject(errorOf(error));
    }
  });
}

function startThread(): ArtworkThread {
  // The name is the thread's name in the OS, so CPU profiles (bench/cpu-time.ts) can tell it apart.
  const thread: ArtworkThread = { worker: new Worker(new URL('./local-artwork-thread.ts', import.meta.url), { name: 'artwork' }), waiting: new Map() };
  thread.worker.on('message', (answer: ArtworkAnswer) => {
    const waiter = thread.waiting.get(answer.id);
    if (!waiter) return;
    settle(thread, answer.id);
    if ('error' in answer) waiter.reject(new Error(answer.error));
    else waiter.resolve(Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength));
  });
  const failAll = (error: Error) => {
    if (current === thread) current = undefined;
    for (const [id, waiter] of thread.waiting) {
      settle(thread, id);
      waiter.reject(error);
    }
  };
  thread.worker.on('error', (error: Error) => failAll(new Error(`the artwork thread failed: ${error.message}`, { cause: error })));
  thread.worker.on('exit', (code) => failAll(new Error(`the artwork thread exited with code ${code}`)));
  // Listeners ref a worker again: unref it only after adding them.
  thread.worker.unref();
  return thread;
}

function settle(thread: ArtworkThread, id: number): void {
  thread.waiting.delete(id);
  if (thread.waiting.size === 0) thread.worker.unref();
}
