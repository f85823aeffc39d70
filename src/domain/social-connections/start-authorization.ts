import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OAuthAuthorization } from '../../adapters/database/entities/oauth-authorization.ts';
import { Workspace } from '../../adapters/database/entities/workspace.ts';
import { issueOnce } from '../idempotency/request-effects.ts';
import { oauthAppFor, type OAuthSetup } from '../../adapters/social/platform-module.ts';
import { oauthConnectionOf } from '../../adapters/social/platform-registry.ts';
import type { OAuthClient } from '../../adapters/social/oauth-platform.ts';
import type { SocialPlatform } from '../../adapters/social/social-connector.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';

/** How long a person has to grant access once the authorization is made. */
export const authorizationLifetimeMs = 10 * 60 * 1000;
// Rows past their expiry are kept a day, so that a late callback can tell the person the link expired rather than
// that it was never valid.
const expiredKeptMs = 24 * 60 * 60 * 1000;
/**
 * How many authorizations a workspace may have pending (not yet expired) at once: far more than people connecting at
 * one time, and a bound on the rows (and consent links) one workspace can mint.
 */
const pendingAuthorizationsCap = 50;

export type StartedAuthorization = { authorizationUrl: string; state: string; expiresAt: Date };

/** SHA-256 of a state, as stored: the state is a bearer secret, so only its hash is kept. */
export function stateHashOf(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/**
 * Our consent page for an authorization: the link the client hands to the person. It names the workspace asking
 * before anything goes to the platform (routes/oauth-consent.ts); the state in its path is what the page continues
 * with, so the page needs no other secret kept.
 */
function consentUrlOf(deps: Pick<Deps, 'publicUrl'>, state: string): string {
  return `${deps.publicUrl()}/oauth/consent/${state}`;
}

/** Our callback for `platform`, as registered with the platform's app. */
export function callbackUrlOf(deps: Pick<Deps, 'publicUrl'>, platform: SocialPlatform): string {
  return `${deps.publicUrl()}/oauth/${platform}/callback`;
}

/** The platform's OAuth side and the operator's app, or the 400/409 that says why there is none. */
export function configuredOAuth(deps: Pick<Deps, 'oauth'>, platform: SocialPlatform): OAuthSetup & { client: OAuthClient } {
  const setup = deps.oauth[platform];
  if (!setup) {
    throw new AppError('validation-failed', `${platform} does not connect through OAuth; use POST /social-connections.`, {
      errors: [{ location: 'body', path: '/platform', message: `${platform} does not connect through OAuth` }],
    });
  }
  if (!setup.client) {
    throw new AppError('conflict', `${platform} is not configured on this service: the operator sets its client id and secret (see docs/social-platforms.md).`);
  }
  return { ...setup, client: setup.client };
}

/**
 * An `author` other than the person is one the platform's module declares (a LinkedIn organisation), and needs the
 * scope the operator enables for it (LINKEDIN_ORGANIZATION_AUTHORS asks for the Community Management API's scopes).
 */
export function requireOrganizationAuthors(platform: SocialPlatform, scopes: readonly string[]): void {
  const authors = oauthConnectionOf(platform)?.authors;
  if (!authors) {
    throw new AppError('validation-failed', `${platform} takes no author: its connections post as the person who connects.`, {
      errors: [{ location: 'body', path: '/author', message: `${platform} takes no author` }],
    });
  }
  if (!scopes.includes(authors.scope)) {
    throw new AppError(
      'conflict',
      `${authors.what} authors are not enabled on this service: the operator sets ${authors.enabledBy} (see docs/social-platforms.md).`,
    );
  }
}

/**
 * Starts connecting an account through OAuth: a random `state` bound to the workspace (stored as its hash, good
 * once, for ten minutes), a PKCE verifier (sealed), and the link to our consent page, which sends the person on to
 * the platform (confirm-authorization.ts) only once they have seen which workspace asks. At most
 * `pendingAuthorizationsCap` may be pending per workspace (429, with when the oldest expires). With an Idempotency-Key the state is also recorded (sealed) with the authorization, so a retry whose first answer
 * was lost gets the same authorization and URL rather than a second one.
 */
export async function startAuthorization(
  deps: Deps,
  caller: Caller,
  input: { platform: SocialPlatform; redirectUri: string; author?: string | undefined },
  requestKey?: string,
): Promise<StartedAuthorization> {
  const { platform, app } = oauthAppFor(configuredOAuth(deps, input.platform), input.author);
  if (input.author !== undefined) requireOrganizationAuthors(input.platform, platform.scopes);
  const { resource: authorization, secret: state } = await deps.orm.em.fork().transactional(async (em) => {
    const find = (id: string) => em.findOne(OAuthAuthorization, { id, workspaceId: caller.workspaceId });
    return issueOnce(em, deps.idempotentAnswers, caller.workspaceId, requestKey, { type: 'oauth-authorization', find, noun: 'authorization' }, async () => {
      const { oauthRedirectUris } = await em.findOneOrFail(Workspace, caller.workspaceId);
      if (!oauthRedirectUris.includes(input.redirectUri)) {
        throw new AppError('validation-failed', `${input.redirectUri} is not one of the workspace's oauthRedirectUris (set them with PATCH /workspace).`, {
          errors: [{ location: 'body', path: '/redirectUri', message: `${input.redirectUri} is not on the workspace's allow-list` }],
        });
      }
      // Authorizations nobody came back for are swept as new ones are made, so the table holds about a day's.
      await em.nativeDelete(OAuthAuthorization, { expiresAt: { $lt: new Date(Date.now() - expiredKeptMs) } });
      await requirePendingRoom(em, caller.workspaceId);
      const fresh = randomBytes(32).toString('base64url');
      const made = em.create(OAuthAuthorization, {
        workspaceId: caller.workspaceId,
        platform: input.platform,
        stateHash: stateHashOf(fresh),
        codeVerifierSealed: deps.secrets.seal(randomBytes(32).toString('base64url')),
        redirectUri: input.redirectUri,
        author: input.author ?? null,
        app: app ?? null,
        expiresAt: new Date(Date.now() + authorizationLifetimeMs),
      });
      return { resource: made, secret: fresh };
    });
  });
  return { authorizationUrl: consentUrlOf(deps, state), state, expiresAt: authorization.expiresAt };
}

/** 429 when the workspace already has the most authorizations pending it may; the workspace's row is locked to count. */
async function requirePendingRoom(em: EntityManager, workspaceId: string): Promise<void> {
  await lockWorkspace(em, workspaceId);
  const pending = await em.find(
    OAuthAuthorization,
    { workspaceId, expiresAt: { $gt: new Date() } },
    { fields: ['expiresAt'], orderBy: { expiresAt: 'asc' }, limit: pendingAuthorizationsCap },
  );
  if (pending.length < pendingAuthorizationsCap) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((pending[0]!.expiresAt.getTime() - Date.now()) / 1000));
  throw new AppError(
    'rate-limited',
    `The workspace has ${pendingAuthorizationsCap} OAuth authorizations pending, the most it may have at once; the oldest expires in ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );
}
