import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { ApiKey, type ApiKeyScope } from '../../adapters/database/entities/api-key.ts';
import { issueOnce } from '../idempotency/request-effects.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { requireFeature, requireQuota } from '../workspaces/plans.ts';
import { issueApiKey, type IssuedApiKey } from './issue-api-key.ts';
import { requireCurrentSecret } from './require-current-secret.ts';
import { requireKeyWithinCaller } from './require-key-within-caller.ts';

/**
 * A new key for the workspace, with the `full` scope unless asked for less, and never more than the calling key's
 * (requireKeyWithinCaller). With an Idempotency-Key its secret is recorded (sealed) with the key's row, so a
 * retry whose first answer was lost gets the same key and secret, not a second key.
 */
export async function createApiKey(
  deps: Deps,
  caller: Caller,
  input: { name: string; expiresAt?: string; scope?: ApiKeyScope },
  requestKey?: string,
): Promise<IssuedApiKey> {
  requireFeature(caller.plan, 'apiKeys');
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  const scope = input.scope ?? 'full';
  return deps.orm.em.fork().transactional(async (em) => {
    const find = (id: string) => em.findOne(ApiKey, { id, workspaceId: caller.workspaceId });
    const issued = await issueOnce(em, deps.idempotentAnswers, caller.workspaceId, requestKey, { type: 'api-key', find }, async () => {
      // Checked only when a key is made: a retry after the time has passed answers the key its first send made.
      if (expiresAt && expiresAt.getTime() <= Date.now()) {
        throw new AppError('validation-failed', 'expiresAt must be in the future.', {
          errors: [{ location: 'body', path: '/expiresAt', message: 'must be in the future' }],
        });
      }
      await requireKeyWithinCaller(em, caller, { scope, expiresAt }, 'create');
      // Counted under the workspace's lock, so two creates at once cannot both take the last place.
      const { plan } = await lockWorkspace(em, caller.workspaceId);
      requireFeature(plan, 'apiKeys');
      requireQuota(plan, 'apiKeys', await em.count(ApiKey, { workspaceId: caller.workspaceId }));
      const { apiKey, key } = issueApiKey(em, { workspaceId: caller.workspaceId, name: input.name, expiresAt, scope });
      return { resource: apiKey, secret: key };
    });
    requireCurrentSecret(issued.resource, issued.secret);
    return { apiKey: issued.resource, key: issued.secret };
  });
}
