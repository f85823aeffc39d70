import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamSegments } from '../../../src/adapters/social/stream-segments.ts';

// The parts of an upload in parts, cut from a stream as it is read: fixed sizes (X) or each part's own (LinkedIn).

const bytes = Buffer.from(Array.from({ length: 23 }, (_, index) => index));

/** The stream of `bytes` in chunks of 4, as storage would give it. */
function chunked(): Readable {
  return Readable.from(Array.from({ length: Math.ceil(bytes.length / 4) }, (_, index) => bytes.subarray(index * 4, index * 4 + 4)));
}

async function segmentsOf(size: number | ((index: number) => number), skip = 0): Promise<number[][]> {
  const segments: number[][] = [];
  for await (const segment of streamSegments(chunked(), size, skip)) segments.push([...Buffer.concat(segment)]);
  return segments;
}

describe('streamSegments', () => {
  it('when cut in segments of 10, then the parts are 10, 10 and the 3 left, in order', async () => {
    expect((await segmentsOf(10)).map((segment) => segment.length)).toEqual([10, 10, 3]);
    expect((await segmentsOf(10)).flat()).toEqual([...bytes]);
  });

  it('when each part has its own size, then each segment is its size, the rest in the last', async () => {
    const sizes = [5, 12];
    const segments = await segmentsOf((index) => sizes[index] ?? 100);
    expect(segments).toEqual([[...bytes.subarray(0, 5)], [...bytes.subarray(5, 17)], [...bytes.subarray(17)]]);
  });

  it('when the first segments are skipped, then the rest start where they end', async () => {
    expect(await segmentsOf(10, 1)).toEqual([[...bytes.subarray(10, 20)], [...bytes.subarray(20)]]);
    expect(await segmentsOf(10, 3)).toEqual([]);
  });

  it('when a segment would be empty, then it is refused rather than looped on', async () => {
    await expect(segmentsOf(0)).rejects.toThrow(RangeError);
    await expect(segmentsOf((index) => (index === 0 ? 8 : 0))).rejects.toThrow('a segment of 0 bytes');
  });
});
