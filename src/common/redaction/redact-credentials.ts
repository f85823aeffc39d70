// Credentials travel in URLs more often than anyone would like: Telegram puts a bot's token in the path, Discord and
// Slack a webhook's, Meta's Graph API access tokens and app secrets go in query strings, an OAuth callback carries its
// code and state, and our signed file links their signature. Whatever writes URLs or headers down for people to read
// (exported spans, log lines) passes them through here first, so no backend, log shipper or operator sees one.

/** What stands in for a credential: the word OpenTelemetry's semantic conventions use for redacted URL parts. */
export const redactedMark = 'REDACTED';

// Query parameters that carry a credential by name: OAuth 2 (RFC 6749, 7636), Meta's Graph API, signed links (ours,
// S3's and Google's), and the usual names for keys; `secretLikeName` catches the rest (`x_refresh_token`, `apiKey`).
const secretParameters = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'client_assertion',
  'code',
  'code_verifier',
  'state',
  'token',
  'key',
  'signature',
  'sig',
  'password',
  'secret',
  'fb_exchange_token',
  'input_token',
  'appsecret_proof',
  'awsaccesskeyid',
  'x-amz-credential',
  'upload_id',
]);
const secretLikeName = /token|secret|signature|passw|credential|api[-_]?key|proof|session/i;

// Headers that carry a credential by name (Set-Cookie and Cookie both: a session is one).
const secretHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);

// `?name=value` or `&name=value`, wherever it stands in the text (a whole URL, a path with its query, an error
// message), or `name=value` opening it (a query on its own, as `url.query` holds it).
const queryParameter = /(^|[?&;])([^=&#?\s"'<>]+)=([^&#\s"'<>]*)/g;

// Credentials in paths, with what replaces them: a Telegram bot's token (`/bot<id>:<secret>/`, also under `/file`),
// a Discord webhook's (`/webhooks/<snowflake>/<token>`), a Slack incoming webhook's (`/services/T…/B…/<secret>`), and a
// URL's user information (`//user:password@host`). A customer's webhook URL may be any of them. An upload URL that is
// itself the grant (Slack's `files.getUploadURLExternal`, YouTube's resumable `upload_id`) counts too, and so does our
// OAuth consent page's path, which carries the authorization's state.
const secretPaths: Array<[RegExp, string]> = [
  [/\/bot(\d+):[\w-]+/g, `/bot$1:${redactedMark}`],
  [/\/webhooks\/(\d{5,})\/[\w-]+/g, `/webhooks/$1/${redactedMark}`],
  [/\/services\/(T\w+)\/(B\w+)\/\w+/g, `/services/$1/$2/${redactedMark}`],
  [/\/upload\/v1\/[\w-]+/g, `/upload/v1/${redactedMark}`],
  [/\/oauth\/consent\/[^/?#\s"'<>]+/g, `/oauth/consent/${redactedMark}`],
  [/\/\/[^/?#@\s"'\\]+@/g, `//${redactedMark}:${redactedMark}@`],
];

/** Whether a query parameter or form field named `name` carries a credential. */
function isSecretParameter(name: string): boolean {
  const plain = safeDecode(name).toLowerCase();
  return secretParameters.has(plain) || secretLikeName.test(plain);
}

/** Whether a header named `name` carries a credential. */
export function isSecretHeader(name: string): boolean {
  const plain = name.toLowerCase();
  return secretHeaders.has(plain) || secretLikeName.test(plain);
}

/**
 * `text` (a URL, a request target, or any text that may quote one) with every credential it visibly carries
 * replaced by REDACTED: secret query parameters' values, tokens in known paths, user information. Everything else
 * is kept as it is, so the text still says which endpoint was called.
 */
export function redactCredentials(text: string): string {
  let redacted = text;
  for (const [pattern, replacement] of secretPaths) redacted = redacted.replace(pattern, replacement);
  return redacted.replace(queryParameter, (whole: string, separator: string, name: string) =>
    isSecretParameter(name) ? `${separator}${name}=${redactedMark}` : whole,
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
