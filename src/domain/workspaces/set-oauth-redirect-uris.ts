import { Workspace } from '../../adapters/database/entities/workspace.ts';
import { AppError, type FieldError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Why `uri` cannot be where an OAuth connection sends the person back to, or undefined when it can: an absolute URL
 * without a fragment, https unless it is on loopback (a native or desktop app, RFC 8252 §7.3), no user or password.
 */
function redirectUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri)) return 'is not a URL';
  const url = new URL(uri);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackHosts.has(url.hostname))) return 'must use https (http only on loopback)';
  if (url.hash || uri.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry a user or password';
  return undefined;
}

/**
 * Sets the URLs the workspace's OAuth authorizations may send the person back to (`redirectUri`), matched exactly
 * as written: the allow-list stops a leaked API key from having connections handed to a site of its choosing.
 */
export async function setOAuthRedirectUris(deps: Deps, caller: Caller, uris: string[]): Promise<void> {
  const errors: FieldError[] = uris.flatMap((uri) => {
    const problem = redirectUriProblem(uri);
    return problem ? [{ location: 'body' as const, path: '/oauthRedirectUris', message: `${uri} ${problem}` }] : [];
  });
  if (errors.length > 0) throw new AppError('validation-failed', errors.map((error) => error.message).join('; '), { errors });
  await deps.orm.em.fork().transactional(async (em) => {
    const workspace = await em.findOneOrFail(Workspace, caller.workspaceId);
    workspace.oauthRedirectUris = [...new Set(uris)];
  });
}
