import { v7 } from 'uuid';

/** Time-ordered UUIDs (v7): new rows land at the end of primary-key indexes instead of at random pages. */
export function newId(): string {
  return v7();
}
