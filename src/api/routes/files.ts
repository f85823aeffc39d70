import { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../common/errors/app-error.ts';
import type { ObjectStorage } from '../../adapters/object-storage/object-storage.ts';
import { isValidObjectSignature } from '../../adapters/object-storage/url-signature.ts';

/**
 * Serves stored objects at the signed, expiring URLs the filesystem driver hands out. An invalid or expired link
 * answers 404, the same as a missing object, so links reveal nothing about what exists.
 */
export function fileRoutes(storage: ObjectStorage, urlSigningSecret: string): Router {
  const router = Router();

  router.get('/files/*key', async (req, res) => {
    const key = req.params.key.join('/');
    const given = req.query.signature;
    const signature = { expires: Number(req.query.expires), signature: typeof given === 'string' ? given : '' };
    const object = isValidObjectSignature(urlSigningSecret, key, signature) ? await storage.get(key) : null;
    if (!object) throw new AppError('not-found', 'This link is invalid, has expired, or its file no longer exists.');
    const maxAge = Math.max(0, signature.expires - Math.floor(Date.now() / 1000));
    res.set({
      'Content-Type': object.contentType,
      'Content-Length': String(object.size),
      'Cache-Control': `private, max-age=${maxAge}, immutable`,
    });
    await pipeline(object.body, res);
  });

  return router;
}
