import { parentPort } from 'node:worker_threads';
import { messageOf } from '../../common/errors/caught.ts';
import { renderLocalArtwork, type LocalArtworkInput } from './local-artwork.ts';
import type { ArtworkAnswer, ArtworkRequest } from './off-thread-artwork.ts';

// The thread behind off-thread-artwork.ts: renders each request it is sent and answers with the PNG's bytes, which
// it copies into memory of its own so they can be handed over without a second copy (sharp's buffers cannot be).

const port = parentPort!;

port.on('message', ({ id, input }: ArtworkRequest) => {
  void answer(id, input);
});

async function answer(id: number, input: LocalArtworkInput): Promise<void> {
  let reply: ArtworkAnswer;
  try {
    const png = new Uint8Array(await renderLocalArtwork(input));
    reply = { id, png };
    port.postMessage(reply, [png.buffer]);
  } catch (error) {
    reply = { id, error: messageOf(error) };
    port.postMessage(reply);
  }
}
