import { patched } from '@temporalio/workflow';

/**
 * A workflow's patches folded into one marker for the runs that begin now. Each patch a run takes records a marker
 * event and, through the SDK's `TemporalChangeVersion` search attribute, an upsert event and a write to the
 * server's visibility store: a publication took three of each. A run that began with `current` recorded takes every
 * patched path on that one marker; a run that began before checks each patch on its own, exactly as it did, so its
 * replay meets the same commands. Call it first thing in the workflow, where every run meets it at the same point.
 * Once no run older than `current` is left, the patches it stands for can go (and their old paths with them).
 */
export function patchesFoldedInto(current: string): (patch: string) => boolean {
  const takesAll = patched(current);
  return (patch) => takesAll || patched(patch);
}
