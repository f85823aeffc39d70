import { expect } from 'vitest';

type ErrorClass<T extends Error> = abstract new (...args: never[]) => T;

/** What `promise` rejects with, checked to be an Error (or the class given); the test fails when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<Error>;
export async function failureOf<T extends Error>(promise: Promise<unknown>, type: ErrorClass<T>): Promise<T>;
export async function failureOf(promise: Promise<unknown>, type: ErrorClass<Error> = Error): Promise<Error> {
  const error = await promise.then(
    () => expect.fail('expected a failure'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(type);
  return error as Error;
}

/**
 * The failures of `calls`, each checked like failureOf's and each started only once the one before has failed: a
 * call started early could reject before anything awaits it, an unhandled rejection that fails the run.
 */
export async function failuresOneAtATime<T extends Error>(calls: (() => Promise<unknown>)[], type: ErrorClass<T>): Promise<T[]> {
  const failures: T[] = [];
  for (const call of calls) failures.push(await failureOf(call(), type));
  return failures;
}
