import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { root, sources } from './source-files.ts';

// Temporal failure types are matched by workflows and the api and written into histories: they come from one
// table (src/adapters/temporal/failure-types.ts), never from a string at the throw site or a class name.

describe('failure types', () => {
  it('when the code makes an ApplicationFailure, then its type comes from the table', () => {
    const offenders = ['src', 'activities', 'workflows', 'worker'].flatMap(sources).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const calls = [...text.matchAll(/ApplicationFailure\.(?:nonRetryable|retryable|create)\(([\s\S]*?)\);/g)].map((match) => match[1]!);
      return calls.filter((args) => !/failureTypes\.\w+|error\.failureType/.test(args)).map((args) => `${file.slice(root.length)}: ${args.slice(0, 80)}`);
    });
    expect(offenders).toEqual([]);
  });

  it('when the table is read, then no two entries share a value', () => {
    const values = Object.values(failureTypes);
    expect(new Set(values).size).toBe(values.length);
  });
});
