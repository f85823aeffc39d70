import { parentPort, workerData } from 'node:worker_threads';
import { messageOf } from '../src/common/errors/caught.ts';
import type { PostFormat } from '../src/adapters/artwork/post-formats.ts';
import { steadyRate } from './stats.ts';
import { floorRenders, type RenderRound, type RenderRoundResult } from './render-bound.ts';

// The thread behind render-bound.ts: runs each round of renders it is sent, in the format it was started with, and
// answers with the round's steady rate. Closes when told 'stop'.

const port = parentPort!;
const render = floorRenders(workerData as PostFormat);

port.on('message', (message: RenderRound | 'stop') => {
  if (message === 'stop') return port.close();
  void steadyRate(message.requests, message.concurrency, render).then(
    (rate) => port.postMessage({ rate } satisfies RenderRoundResult),
    (error: unknown) => port.postMessage({ error: messageOf(error) } satisfies RenderRoundResult),
  );
});
