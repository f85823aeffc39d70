import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
import { isPublicAddress } from '../net/public-address-policy.ts';

// Threads takes no upload: it fetches a post's image from a URL of ours, a signed link to the stored image
// (https://developers.facebook.com/docs/threads/get-started#public-server). Those links are made on PUBLIC_URL
// (the filesystem driver's /files route) or on the S3 endpoint clients use, so that address must be on the public
// internet. Judged from the configuration alone, without resolving names: a name that resolves to a private address
// is only found out by Threads (the container then ends in ERROR, and the publish says why).

export type PublicUrlProblem = { code: 'public_url_unreachable'; message: string };

// Names no public DNS answers: reserved for local networks, testing and documentation (RFC 6761, 6762, 8375).
const localSuffixes = ['.localhost', '.local', '.localdomain', '.internal', '.lan', '.home.arpa', '.test', '.example', '.invalid'];

function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host)) return !isPublicAddress(host);
  // A single label (localhost, a Docker service name) is only ever resolved by a local resolver.
  return !host.includes('.') || localSuffixes.some((suffix) => host.endsWith(suffix));
}

function problemWith(url: string, setting: string): PublicUrlProblem | null {
  const { hostname, origin } = new URL(url);
  if (!isLocalHost(hostname)) return null;
  return {
    code: 'public_url_unreachable',
    message: `${setting} (${origin}) is not on the public internet: Threads fetches the post's image from it and cannot reach it.`,
  };
}

/** Why Threads could not fetch our image links, or null when it can; asked for posts with an image. */
export function publicUrlProblem(config: Pick<Config, 'http' | 'storage'>): PublicUrlProblem | null {
  if (config.storage.driver === 's3') {
    const { publicEndpoint, endpoint } = config.storage.s3;
    // Without an endpoint the bucket is on AWS, whose presigned links are public.
    if (publicEndpoint) return problemWith(publicEndpoint, 'S3_PUBLIC_ENDPOINT');
    return endpoint ? problemWith(endpoint, 'S3_ENDPOINT') : null;
  }
  if (!config.http.publicUrl) {
    return {
      code: 'public_url_unreachable',
      message:
        "PUBLIC_URL is not set, so image links point at this machine's localhost: Threads fetches the post's image from the internet and cannot reach it.",
    };
  }
  return problemWith(config.http.publicUrl, 'PUBLIC_URL');
}
