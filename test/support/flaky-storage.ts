import type { ObjectStorage } from '../../src/adapters/object-storage/object-storage.ts';

/**
 * Object storage whose `operation` fails the first `failures` times, as an outage would, then behaves like the real
 * store it wraps. Injected into the activities the way the worker injects the real one.
 */
export function flakyStorage(storage: ObjectStorage, operation: 'put' | 'delete', failures: number): ObjectStorage & { attempts: number } {
  const outage = () => {
    flaky.attempts += 1;
    return flaky.attempts <= failures ? Promise.reject(new Error(`storage unavailable (simulated failure ${flaky.attempts})`)) : Promise.resolve();
  };
  const flaky: ObjectStorage & { attempts: number } = {
    ...storage,
    attempts: 0,
    ...(operation === 'put'
      ? { put: (...args: Parameters<ObjectStorage['put']>) => outage().then(() => storage.put(...args)) }
      : { delete: (key: string) => outage().then(() => storage.delete(key)) }),
  };
  return flaky;
}
