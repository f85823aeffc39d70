import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
import { isPublicAddress } from '../net/public-address-policy.ts';

// Some platforms take no upload and fetch a post's image from a URL of ours. Threads and Instagram fetch it once,
// while posting, from a signed link to the stored image (https://developers.facebook.com/docs/threads/get-started#public-server)
// or to a copy made for the platform:
// those links are made on PUBLIC_URL (the filesystem driver's /files route) or on the S3 endpoint clients use. A
// Nostr note carries a lasting link on PUBLIC_URL (/images/<token>), which redirects to such a signed link, so both
// addresses must be public for it. Judged from the configuration alone, without resolving names: a name that resolves
// to a private address is only found out by the platform (a Threads container then ends in ERROR, and the publish
// says why).

export type PublicUrlProblem = { code: 'public_url_unreachable'; message: string };

// Names no public DNS answers: reserved for local networks, testing and documentation (RFC 6761, 6762, 8375).
const localSuffixes = ['.localhost', '.local', '.localdomain', '.internal', '.lan', '.home.arpa', '.test', '.example', '.invalid'];

function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host)) return !isPublicAddress(host);
  // A single label (localhost, a Docker service name) is only ever resolved by a local resolver.
  return !host.includes('.') || localSuffixes.some((suffix) => host.endsWith(suffix));
}

/** Which links a platform is given: Threads and Instagram a signed one, a Nostr note a lasting one. */
export type ImageLinkProblems = { signed: PublicUrlProblem | null; lasting: PublicUrlProblem | null };

// Who fetches the image, in the problem's words.
const platformFetches = "the platform (Threads, Instagram) fetches the post's image";
const nostrFetches = "Nostr clients fetch the note's image";

function problemWith(url: string, setting: string, fetches: string): PublicUrlProblem | null {
  const { hostname, origin } = new URL(url);
  if (!isLocalHost(hostname)) return null;
  return { code: 'public_url_unreachable', message: `${setting} (${origin}) is not on the public internet: ${fetches} from it and cannot reach it.` };
}

function publicUrlSettingProblem(publicUrl: string | undefined, fetches: string): PublicUrlProblem | null {
  if (!publicUrl) {
    return {
      code: 'public_url_unreachable',
      message: `PUBLIC_URL is not set, so image links point at this machine's localhost: ${fetches} from the internet and cannot reach it.`,
    };
  }
  return problemWith(publicUrl, 'PUBLIC_URL', fetches);
}

/** Why a platform (Threads, Instagram) could not fetch our signed image links, or null when it can; asked for posts with an image. */
export function publicUrlProblem(config: Pick<Config, 'http' | 'storage'>, fetches = platformFetches): PublicUrlProblem | null {
  if (config.storage.driver === 's3') {
    const { publicEndpoint, endpoint } = config.storage.s3;
    // Without an endpoint the bucket is on AWS, whose presigned links are public.
    if (publicEndpoint) return problemWith(publicEndpoint, 'S3_PUBLIC_ENDPOINT', fetches);
    return endpoint ? problemWith(endpoint, 'S3_ENDPOINT', fetches) : null;
  }
  return publicUrlSettingProblem(config.http.publicUrl, fetches);
}

/** The problems of both kinds of link: a lasting one is on PUBLIC_URL and redirects to a signed one. */
export function imageLinkProblems(config: Pick<Config, 'http' | 'storage'>): ImageLinkProblems {
  return {
    signed: publicUrlProblem(config),
    lasting: publicUrlSettingProblem(config.http.publicUrl, nostrFetches) ?? publicUrlProblem(config, nostrFetches),
  };
}
