import { objectKeys } from '../../adapters/object-storage/object-keys.ts';
import type { Deps } from '../deps.ts';
import { reserveObjectKey } from '../storage/orphaned-objects.ts';

// A platform that fetches a post's image and takes only some kinds (Instagram: JPEG of certain shapes) is given a
// copy its connector made, stored beside the post's media. The copy is on the orphan list from the moment it is
// stored, so the storage sweep deletes it a day later: long after the platform has fetched it, and whatever becomes
// of the post. Each attempt stores its own, so a sweep can never take one an attempt is about to hand over.

const keptMs = 24 * 60 * 60 * 1000;

/** Stores the bytes as the copy for one publish attempt and answers a signed link to them. */
export function platformCopyLink(
  deps: Pick<Deps, 'orm' | 'storage'>,
  at: { workspaceId: string; postId: string; attemptId: string },
): (bytes: Buffer, contentType: 'image/jpeg') => Promise<string> {
  return async (bytes, contentType) => {
    const key = objectKeys.platformCopy(at.workspaceId, at.postId, at.attemptId);
    await reserveObjectKey(deps.orm.em.fork(), { key, reason: 'copy of an image made for a platform, which has fetched it', graceMs: keptMs });
    await deps.storage.put(key, bytes, contentType);
    return deps.storage.signedUrl(key);
  };
}
