import { inject } from 'vitest';
import { testWorkers } from '../support/test-workers.ts';

// Test files run a few at a time (vitest.config.ts), one at a time in each worker process. Each draws the ports of the
// servers it starts from a slice of the range that no file running beside it draws from (src/local/embedded/ports.ts):
// vitest numbers its running workers from 1, and a worker's slot is free again only when its file has ended. Each
// also writes its temporary files into the run's scratch directory, which the global teardown removes, rather than
// into /tmp, where a worker killed mid-video left its work directory. The processes a test starts inherit both.
// One slice per worker, at least 8.
const slices = Math.max(8, testWorkers());
const worker = Number(process.env.VITEST_POOL_ID ?? '1');
process.env.PORT_SLICE = `${((worker - 1) % slices) + 1}/${slices}`;
process.env.TMPDIR = inject('scratchDir');
