import { installTestTemporalRuntime } from '../support/temporal-runtime-log.ts';

// Before any file's code: a file that connects to Temporal without a worker (a NativeConnection) would otherwise have
// the SDK create its default runtime, and a later file in the same process could then no longer install ours.
installTestTemporalRuntime();
