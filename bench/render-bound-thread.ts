import { parentPort } from 'node:worker_threads';
import { createLocalImageProvider } from '../src/generation/local-provider.ts';
import { steadyRate } from './stats.ts';
import type { RenderRound, RenderRoundResult } from './render-bound.ts';

// The thread behind render-bound.ts: runs each round of renders it is sent, with the worker's own provider, and
// answers with the round's steady rate. Closes when told 'stop'.

const port = parentPort!;
const provider = createLocalImageProvider();
let renders = 0;
const render = () => provider.generate({ prompt: `A calm sea at dusk, floor ${renders}`, format: '1:1', seed: (renders += 1), colors: {} });

port.on('message', (message: RenderRound | 'stop') => {
  if (message === 'stop') return port.close();
  void steadyRate(message.requests, message.concurrency, render).then(
    (rate) => port.postMessage({ rate } satisfies RenderRoundResult),
    (error: unknown) => port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies RenderRoundResult),
  );
});
