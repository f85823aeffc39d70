import { trimSlash } from '../trim-slash.ts';
import { newSecretKeyHex, secretKeyHexOf } from './nostr-keys.ts';
import type { NostrCredentials } from '../social-connector.ts';
import { AppError } from '../../../common/errors/app-error.ts';
import { isWebUrl } from '../../../common/validation/formats.ts';

export type NostrConnectionInput = { platform: 'nostr'; secretKey?: string; relays: string[] };

/**
 * A Nostr connection's credentials: the given secret key (hex or nsec) as hex, or a new one made for the workspace,
 * and the relays as wss:// URLs, each once, without a trailing slash.
 */
export function nostrCredentialsOf(input: NostrConnectionInput): NostrCredentials {
  const secretKey = input.secretKey === undefined ? newSecretKeyHex() : secretKeyHexOf(input.secretKey);
  if (!secretKey) throw invalid('/secretKey', 'secretKey is not a Nostr secret key (64 hex digits or nsec1…).');
  const relays = input.relays.map(trimSlash);
  for (const [index, relay] of relays.entries()) {
    // wss: parses as https: does (both are special schemes), so the rule of openapi.yaml's `uri` format applies.
    if (!relay.startsWith('wss://') || !isWebUrl(relay.replace(/^wss:/, 'https:'))) throw invalid(`/relays/${index}`, 'Each relay must be a wss:// URL.');
  }
  // Checked as given, so a refusal names the request's own index; then each relay once.
  return { platform: 'nostr', secretKey, relays: [...new Set(relays)] };
}

function invalid(path: string, message: string): AppError {
  return new AppError('validation-failed', message, { errors: [{ location: 'body', path, message }] });
}
