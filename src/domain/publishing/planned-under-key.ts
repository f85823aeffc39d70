import type { EntityManager } from '@mikro-orm/postgresql';
import { PublicationRequest } from '../../adapters/database/entities/publication-request.ts';

/**
 * Whether the request named by `requestKey` (requestFingerprint) planned a publication already (its first send, whose
 * answer was lost). Its retry then goes straight to that plan: checks that held for the first send, such as a
 * `scheduledAt` in the future, may no longer hold, and must not turn what was planned (and perhaps published) into
 * a refusal.
 */
export async function plannedUnderKey(em: EntityManager, workspaceId: string, requestKey: string | undefined): Promise<boolean> {
  if (requestKey === undefined) return false;
  return (await em.count(PublicationRequest, { workspaceId, key: requestKey, expiresAt: { $gt: new Date() } })) > 0;
}
