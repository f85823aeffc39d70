import type { EntityManager } from '@mikro-orm/postgresql';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { createOnce, madeBefore } from '../idempotency/request-effects.ts';
import { platformUnreachable } from './platform-unreachable.ts';
import { AppError, type FieldError } from '../../common/errors/app-error.ts';
import { SocialRejectedError } from '../../adapters/social/social-connector.ts';
import type { RejectedFields } from '../../adapters/social/platform-module.ts';
import type { Caller } from '../caller.ts';
import { isStorableText } from '../../common/validation/storable-text.ts';
import type { Deps } from '../deps.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { requireQuota } from '../workspaces/plans.ts';
import { credentialsConnectionOf, type CreateSocialConnectionInput, type CredentialsConnectionOf } from '../../adapters/social/platform-registry.ts';

// social_connections.account_name and account_id.
const accountFieldChars = 300;

/**
 * Connects a social account: the credentials are checked with the platform first (a refusal answers 400 with the
 * platform's words), then sealed (ENCRYPTION_KEYS), with the session the check opened. They are never returned.
 * A retry of a keyed request that connected before answers that connection, without asking the platform again.
 */
export async function createSocialConnection(deps: Deps, caller: Caller, input: CreateSocialConnectionInput, requestKey?: string): Promise<SocialConnection> {
  const platform = credentialsConnectionOf(input);
  const { credentials } = platform;
  const connection = (em: EntityManager) => ({
    type: 'social-connection',
    find: (id: string) => em.findOne(SocialConnection, { id, workspaceId: caller.workspaceId }),
  });
  const before = await madeBefore(deps.orm.em.fork(), caller.workspaceId, requestKey, connection(deps.orm.em.fork()));
  if (before) return before;
  // Before the platform is asked, so a full workspace costs it no login; counted again under the lock below.
  requireQuota(caller.plan, 'socialConnections', await deps.orm.em.fork().count(SocialConnection, { workspaceId: caller.workspaceId }));
  let account;
  try {
    account = await deps.social[credentials.platform].verify(credentials);
  } catch (error) {
    // A refusal of a server the operator set (Telegram's, Slack's API) is ours to fix, not the client's: a 503 below.
    if (error instanceof SocialRejectedError && (error.about !== 'server' || platform.rejectedFields.server !== undefined)) {
      throw new AppError('validation-failed', error.reason, { errors: [rejectedField(platform.rejectedFields, error)] });
    }
    throw platformUnreachable(credentials.platform, 'the credentials', error);
  }
  // The account's name and id are the server's own words, kept in columns of their own size.
  if (!isStorableText(account.accountName, accountFieldChars) || !isStorableText(account.accountId, accountFieldChars)) {
    const refusal = new SocialRejectedError(
      `The server answered an unusable account name or id (not text, or over ${accountFieldChars} characters).`,
      'server',
    );
    throw new AppError('validation-failed', refusal.reason, { errors: [rejectedField(platform.rejectedFields, refusal)] });
  }
  return deps.orm.em.fork().transactional((em) =>
    createOnce(em, caller.workspaceId, requestKey, connection(em), async () => {
      // Counted under the workspace's lock, so two creates at once cannot both take the last place.
      const { plan } = await lockWorkspace(em, caller.workspaceId);
      requireQuota(plan, 'socialConnections', await em.count(SocialConnection, { workspaceId: caller.workspaceId }));
      return em.create(SocialConnection, {
        workspaceId: caller.workspaceId,
        platform: credentials.platform,
        serverUrl: account.serverUrl ?? serverUrlOf(platform),
        accountName: account.accountName,
        accountId: account.accountId,
        credentialsSealed: deps.secrets.seal(JSON.stringify(credentials)),
        // The check's session (Bluesky) is the connection's first: publishing reuses it.
        sessionSealed: account.session ? deps.secrets.seal(account.session) : null,
        postLanguage: ('postLanguage' in input ? input.postLanguage : undefined) ?? null,
      });
    }),
  );
}

/** The server a connection made with these credentials talks to, where the platform's check did not say. */
function serverUrlOf({ credentials, serverUrl }: CredentialsConnectionOf): string {
  if (serverUrl) return serverUrl;
  throw new Error(`the ${credentials.platform} connector did not say which server the connection talks to`);
}

function rejectedField(fields: RejectedFields, error: SocialRejectedError): FieldError {
  return { location: 'body', path: fields[error.about] ?? fields.credentials, message: error.reason };
}
