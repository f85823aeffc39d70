import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import type { OAuthTokens } from '../../adapters/social/oauth-platform.ts';
import { oauthAppOf } from '../../adapters/social/platform-module.ts';
import { oauthCredentialsOf } from '../../adapters/social/platform-registry.ts';
import type { SocialPlatform, VerifiedAccount } from '../../adapters/social/social-connector.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { isStorableText } from '../../common/validation/storable-text.ts';
import { keepConnectionAlive } from '../../../workflows/keep-connection-alive.ts';
import { keepConnectionAliveStart } from '../../../workflows/starts/keep-connection-alive.ts';
import type { Deps } from '../deps.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { requireQuota } from '../workspaces/plans.ts';
import { browserHashOf } from './confirm-authorization.ts';
import { callbackUrlOf, stateHashOf } from './start-authorization.ts';

/**
 * What the callback answers: a redirect to the client's `redirectUri`, or our own page, sending nobody anywhere, when
 * the state is not ours (or used), expired, or never went through our consent page.
 */
export type CallbackAnswer = { kind: 'redirect'; url: string } | { kind: 'refused'; reason: 'invalid-state' | 'expired' | 'unconfirmed' | 'other-browser' };

export type CallbackInput = {
  platform: SocialPlatform;
  state?: string;
  code?: string;
  error?: string;
  /** The consent page's secret in this browser. */ browser?: string;
};

/** The error codes a client's `redirectUri` may receive. */
type CallbackError = 'access_denied' | 'exchange_failed' | 'quota_exceeded';

// social_connections.account_name and account_id.
const accountFieldChars = 300;

type Consumed = {
  workspace_id: string;
  code_verifier_sealed: string;
  redirect_uri: string;
  author: string | null;
  app: 'authors' | null;
  expires_at: Date;
  confirmed_at: Date | null;
  consent_browser_hash: string | null;
};

/**
 * Our public callback (`GET /oauth/{platform}/callback`), where the platform sends the person after they answered
 * its consent screen. The state is used up as it is read (deleted in one statement, so two callbacks with one state
 * cannot both go on); a state we did not hand out, or already used, expired, or that never went through our consent
 * page (start-authorization.ts), redirects nowhere: a redirect to the client's `redirectUri` is earned by a person
 * who saw which workspace asked, within the ten minutes, and by nothing else. Then the code is exchanged
 * (with the PKCE verifier), the account read, and the connection created under the workspace's lock (counted against
 * its plan) with its tokens sealed; its keep-alive workflow is started, and the person goes back to the client's
 * `redirectUri` with `connectionId`, or with `error`.
 */
export async function completeAuthorization(deps: Deps, input: CallbackInput): Promise<CallbackAnswer> {
  if (!input.state) return { kind: 'refused', reason: 'invalid-state' };
  const [consumed] = await deps.orm.em
    .fork()
    .execute<Consumed[]>(
      'delete from oauth_authorizations where state_hash = ? and platform = ? returning workspace_id, code_verifier_sealed, redirect_uri, author, app, expires_at, confirmed_at, consent_browser_hash',
      [stateHashOf(input.state), input.platform],
    );
  if (!consumed) return { kind: 'refused', reason: 'invalid-state' };
  if (new Date(consumed.expires_at).getTime() <= Date.now()) return { kind: 'refused', reason: 'expired' };
  if (consumed.confirmed_at === null) return { kind: 'refused', reason: 'unconfirmed' };
  // Confirmed, but in another browser: whoever made the link pressed Continue and sent the person the platform's page.
  if (!input.browser || consumed.consent_browser_hash !== browserHashOf(input.browser)) return { kind: 'refused', reason: 'other-browser' };

  const back = (result: { connectionId: string } | { error: CallbackError }): CallbackAnswer => {
    const url = new URL(consumed.redirect_uri);
    for (const [name, value] of Object.entries(result)) url.searchParams.set(name, value);
    url.searchParams.set('state', input.state!);
    return { kind: 'redirect', url: url.toString() };
  };
  if (input.error) return back({ error: input.error === 'access_denied' ? 'access_denied' : 'exchange_failed' });
  // The app the authorization went through (start-authorization.ts): its client exchanges the code.
  const setup = deps.oauth[input.platform];
  const app = setup ? oauthAppOf(setup, consumed) : null;
  if (!input.code || !setup || !app?.client) return back({ error: 'exchange_failed' });

  let tokens: OAuthTokens;
  let account: VerifiedAccount;
  try {
    const codeVerifier = deps.secrets.open(consumed.code_verifier_sealed);
    tokens = await app.platform.exchangeCode({ client: app.client, callbackUrl: callbackUrlOf(deps, input.platform), code: input.code, codeVerifier });
    account = await app.platform.account(tokens.accessToken, consumed.author ?? undefined);
  } catch (error) {
    deps.logger.warn({ platform: input.platform, workspaceId: consumed.workspace_id, reason: (error as Error).message }, 'OAuth code exchange failed');
    return back({ error: 'exchange_failed' });
  }
  if (!isStorableText(account.accountName, accountFieldChars) || !isStorableText(account.accountId, accountFieldChars))
    return back({ error: 'exchange_failed' });

  let connection: SocialConnection;
  try {
    connection = await deps.orm.em.fork().transactional(async (em) => {
      const { plan } = await lockWorkspace(em, consumed.workspace_id);
      requireQuota(plan, 'socialConnections', await em.count(SocialConnection, { workspaceId: consumed.workspace_id }));
      return em.create(SocialConnection, {
        workspaceId: consumed.workspace_id,
        platform: input.platform,
        serverUrl: setup.serverUrl,
        accountName: account.accountName,
        accountId: account.accountId,
        credentialsSealed: deps.secrets.seal(JSON.stringify({ ...oauthCredentialsOf(input.platform, tokens, account), app: consumed.app ?? undefined })),
        sessionSealed: null,
        postLanguage: null,
        expiresAt: new Date(tokens.expiresAt),
      });
    });
  } catch (error) {
    if (error instanceof AppError && error.code === 'plan-limit-reached') return back({ error: 'quota_exceeded' });
    throw error;
  }
  await startKeepAlive(deps, connection);
  return back({ connectionId: connection.id });
}

/**
 * Starts the connection's keep-alive workflow unless one runs. Temporal not taking it leaves the connection made
 * but not yet kept alive: logged, and `POST /social-connections/{id}/verify` starts it again.
 */
export async function startKeepAlive(deps: Deps, connection: SocialConnection): Promise<void> {
  try {
    await inTemporal(deps.temporal, 'start the connection keep-alive', () =>
      deps.temporal.workflow.start(keepConnectionAlive, {
        ...keepConnectionAliveStart(connection),
        taskQueue: deps.taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    );
  } catch (error) {
    deps.logger.warn({ connectionId: connection.id, err: error }, 'the connection keep-alive workflow did not start; a verify of the connection starts it');
  }
}
