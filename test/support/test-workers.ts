import { availableParallelism } from 'node:os';

/**
 * How many test files run at once (vitest.config.ts), which is also how many port slices the files draw from
 * (test/setup/own-ports-and-scratch.ts): three per two cores. Most files spend part of their time waiting on servers
 * (Temporal's timers, processes they start and kill), which a third file fills; a file per core left a core idle a
 * third of the run, and two per core stretch the CPU-bound files (the fuzzing, the videos) towards their timeouts. At
 * most 32: the port range holds 32 slices of 399 ports.
 */
export function testWorkers(): number {
  return Math.min(32, Math.max(1, Math.round(1.5 * availableParallelism())));
}
