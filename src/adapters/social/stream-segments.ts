import type { Readable } from 'node:stream';

/**
 * The stream's bytes in segments of `size` (the last one shorter), after skipping the first `skip` segments: the
 * parts of an upload in parts, read as they are sent, so no more than one segment is held at a time. Skipped
 * segments are read and dropped (storage is read from its start); the stream is destroyed when the caller stops.
 */
export async function* streamSegments(stream: Readable, size: number, skip = 0): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      while (pendingBytes >= size) {
        const joined = Buffer.concat(pending);
        const segment = joined.subarray(0, size);
        pending = [joined.subarray(size)];
        pendingBytes -= size;
        if (index >= skip) yield segment;
        index += 1;
      }
    }
    if (pendingBytes > 0 && index >= skip) yield Buffer.concat(pending);
  } finally {
    stream.destroy();
  }
}
