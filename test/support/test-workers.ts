import { availableParallelism } from 'node:os';

/**
 * How many test files run at once (vitest.config.ts), which is also how many port slices the files draw from
 * (test/setup/own-ports-and-scratch.ts): two per core. Most files spend part of their time waiting (Temporal's timers,
 * the next whole minute for a cron, processes they start and kill), and the files beside them use the CPU meanwhile;
 * with fewer, cores sat idle while files waited. The CPU-bound files (the fuzzing, the videos) take longer beside
 * others, which their timeouts allow for. At most 32: the port range holds 32 slices of 399 ports.
 */
export function testWorkers(): number {
  return Math.min(32, 2 * availableParallelism());
}
