import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { contentTypeOfKey, type ObjectStorage } from './object-storage.ts';

export type S3StorageOptions = {
  bucket: string;
  region: string;
  /** For S3-compatible stores (MinIO, s3proxy, versitygw...); AWS itself needs none. */
  endpoint?: string | undefined;
  /** Where clients reach the store, when that differs from `endpoint` (e.g. inside and outside Docker). */
  publicEndpoint?: string | undefined;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle: boolean;
  defaultTtlSeconds: number;
  /** How long a request may go without a byte moving before it is abandoned (30 s; tests use less). */
  idleTimeoutMs?: number;
};

// The SDK's default is no timeout at all, so a store that stops answering would hold a request, an activity, or a
// transaction and its row locks (the orphaned-object sweep deletes inside one) for ever. Idle, not total: a large
// upload that keeps moving is never cut.
const connectTimeoutMs = 5_000;
const defaultIdleTimeoutMs = 30_000;

/** Objects in an S3 bucket, handed out as presigned GET URLs. */
export function createS3Storage(options: S3StorageOptions): ObjectStorage {
  const clientFor = (endpoint: string | undefined) =>
    new S3Client({
      region: options.region,
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      requestHandler: { connectionTimeout: connectTimeoutMs, socketTimeout: options.idleTimeoutMs ?? defaultIdleTimeoutMs },
      // Without explicit keys the SDK's default chain applies (environment, instance profile, ...).
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    });
  const client = clientFor(options.endpoint);
  // Presigned URLs carry the host they were signed for, so they are signed for the address clients use.
  const presigner = options.publicEndpoint ? clientFor(options.publicEndpoint) : client;
  const Bucket = options.bucket;

  return {
    driver: 's3',

    async prepare() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        await client.send(new CreateBucketCommand({ Bucket }));
      }
    },

    async put(key, body, contentType) {
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: contentType }));
    },

    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return {
          body: object.Body as Readable,
          contentType: object.ContentType ?? contentTypeOfKey(key),
          size: object.ContentLength ?? 0,
        };
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw error;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async signedUrl(key, ttlSeconds = options.defaultTtlSeconds) {
      return getSignedUrl(presigner, new GetObjectCommand({ Bucket, Key: key }), { expiresIn: ttlSeconds });
    },
  };
}
