import type { ObjectStorage } from '../../src/storage/object-storage.ts';

/**
 * Object storage that fails the first `failures` deletes, as an outage would, then behaves like the real store it
 * wraps. Injected into the activities the way the worker injects the real one.
 */
export function flakyDeletes(storage: ObjectStorage, failures: number): ObjectStorage & { deleteAttempts: number } {
  const flaky = {
    ...storage,
    deleteAttempts: 0,
    async delete(key: string) {
      flaky.deleteAttempts += 1;
      if (flaky.deleteAttempts <= failures) throw new Error(`storage unavailable (simulated failure ${flaky.deleteAttempts})`);
      await storage.delete(key);
    },
  };
  return flaky;
}
