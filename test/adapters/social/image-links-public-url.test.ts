import { describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config.ts';
import { imageLinkProblems, publicUrlProblem } from '../../../src/adapters/social/image-links-public-url.ts';

type Settings = { publicUrl?: string; driver?: 'filesystem' | 's3'; s3Endpoint?: string; s3PublicEndpoint?: string };

function configWith({ publicUrl, driver = 'filesystem', s3Endpoint, s3PublicEndpoint }: Settings): Pick<Config, 'http' | 'storage'> {
  return {
    http: { host: '0.0.0.0', port: 3000, publicUrl, trustProxyHops: 0, keepAliveTimeoutSeconds: 65 },
    storage: {
      driver,
      directory: '.data/objects',
      signedUrlTtlSeconds: 3600,
      urlSigningSecret: 'x'.repeat(32),
      s3: {
        bucket: 'posts',
        region: 'us-east-1',
        endpoint: s3Endpoint,
        publicEndpoint: s3PublicEndpoint,
        accessKeyId: undefined,
        secretAccessKey: undefined,
        forcePathStyle: false,
      },
    },
  };
}

describe('image link problems (can Threads, or Nostr readers, fetch our image links?)', () => {
  it.each([
    ['a public name', 'https://content.example.com'],
    ['a public address', 'https://8.8.8.8:8443'],
    ['a public name with a path', 'https://example.com/content-service'],
  ])('when PUBLIC_URL is %s, then there is no problem', (_case, publicUrl) => {
    expect(publicUrlProblem(configWith({ publicUrl }))).toBeNull();
  });

  it('when PUBLIC_URL is not set, then the links point at localhost and Threads cannot reach them', () => {
    expect(publicUrlProblem(configWith({}))).toEqual({
      code: 'public_url_unreachable',
      message:
        "PUBLIC_URL is not set, so image links point at this machine's localhost: the platform (Threads, Instagram) fetches the post's image from the internet and cannot reach it.",
    });
  });

  it.each([
    ['loopback', 'http://127.0.0.1:3000'],
    ['localhost', 'http://localhost:3000'],
    ['a private address', 'https://10.1.2.3'],
    ['an IPv6 loopback', 'http://[::1]:3000'],
    ['a Docker service name', 'http://api:3000'],
    ['a .local name', 'https://content.local'],
    ['a .internal name', 'https://api.corp.internal'],
  ])('when PUBLIC_URL is %s, then it is a problem naming the setting', (_case, publicUrl) => {
    expect(publicUrlProblem(configWith({ publicUrl }))).toEqual({
      code: 'public_url_unreachable',
      message: `PUBLIC_URL (${new URL(publicUrl).origin}) is not on the public internet: the platform (Threads, Instagram) fetches the post's image from it and cannot reach it.`,
    });
  });

  it('when images are on AWS S3 (no endpoint), then there is no problem, whatever PUBLIC_URL says', () => {
    expect(publicUrlProblem(configWith({ driver: 's3' }))).toBeNull();
  });

  it('when images are on an S3 store whose public endpoint is public, then there is no problem', () => {
    expect(publicUrlProblem(configWith({ driver: 's3', s3Endpoint: 'http://minio:9000', s3PublicEndpoint: 'https://files.example.com' }))).toBeNull();
  });

  it('when images are on an S3 store clients reach on localhost, then the problem names S3_PUBLIC_ENDPOINT', () => {
    const problem = publicUrlProblem(configWith({ driver: 's3', s3Endpoint: 'http://minio:9000', s3PublicEndpoint: 'http://localhost:9000' }));
    expect(problem?.message).toBe(
      "S3_PUBLIC_ENDPOINT (http://localhost:9000) is not on the public internet: the platform (Threads, Instagram) fetches the post's image from it and cannot reach it.",
    );
  });

  it('when images are on an S3 store with only a private endpoint, then the problem names S3_ENDPOINT', () => {
    expect(publicUrlProblem(configWith({ driver: 's3', s3Endpoint: 'http://minio:9000' }))?.message).toMatch(/^S3_ENDPOINT \(http:\/\/minio:9000\)/);
  });

  it('when a Nostr note would link its image on a PUBLIC_URL that is not public, then the lasting link has a problem naming it, and Threads none on public S3', () => {
    const problems = imageLinkProblems(configWith({ driver: 's3', publicUrl: 'http://localhost:3000' }));
    expect(problems.signed).toBeNull();
    expect(problems.lasting).toEqual({
      code: 'public_url_unreachable',
      message: "PUBLIC_URL (http://localhost:3000) is not on the public internet: Nostr clients fetch the note's image from it and cannot reach it.",
    });
  });

  it('when PUBLIC_URL is public but the S3 endpoint the lasting link redirects to is not, then the lasting link has the S3 problem', () => {
    const problems = imageLinkProblems(configWith({ driver: 's3', publicUrl: 'https://content.example.com', s3Endpoint: 'http://minio:9000' }));
    expect(problems.lasting?.message).toMatch(/^S3_ENDPOINT \(http:\/\/minio:9000\) is not on the public internet: Nostr clients/);
    expect(problems.signed?.message).toMatch(/^S3_ENDPOINT .*: the platform \(Threads, Instagram\) fetches/);
  });

  it('when PUBLIC_URL is public with the filesystem driver, then neither link has a problem', () => {
    expect(imageLinkProblems(configWith({ publicUrl: 'https://content.example.com' }))).toEqual({ signed: null, lasting: null });
  });
});
