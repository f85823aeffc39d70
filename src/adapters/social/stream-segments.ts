import type { Readable } from 'node:stream';

/**
 * The stream's bytes in segments of `size` (the last one shorter; or each segment's own size, by its index, where the
 * platform sets the parts), after skipping the first `skip` segments: the parts of an upload in parts, read as they
 * are sent. A segment is the stream's own chunks (the one across a boundary split without copying), so no more than
 * one segment is held at a time and nothing is copied. Skipped segments are read and dropped (storage is read from
 * its start); the stream is destroyed when the caller stops.
 */
export async function* streamSegments(stream: Readable, size: number | ((index: number) => number), skip = 0): AsyncGenerator<Buffer[]> {
  const sizes = typeof size === 'number' ? () => size : size;
  const sizeOf = (index: number) => {
    const bytes = sizes(index);
    // A segment of no bytes would never end.
    if (!(bytes >= 1)) throw new RangeError(`a segment of ${bytes} bytes`);
    return bytes;
  };
  let segment: Buffer[] = [];
  let held = 0;
  let index = 0;
  try {
    for await (const read of stream as AsyncIterable<Buffer>) {
      let chunk = read;
      for (let needed = sizeOf(index); held + chunk.length >= needed; needed = sizeOf(index)) {
        const taken = needed - held;
        segment.push(chunk.subarray(0, taken));
        if (index >= skip) yield segment;
        index += 1;
        segment = [];
        held = 0;
        chunk = chunk.subarray(taken);
      }
      if (chunk.length > 0) {
        segment.push(chunk);
        held += chunk.length;
      }
    }
    if (held > 0 && index >= skip) yield segment;
  } finally {
    stream.destroy();
  }
}
