import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

// A link to a stored image that never expires, for a post that keeps it for ever (a Nostr note carries its image as
// a URL): `${publicUrl}/images/<token>`, which the api answers with a redirect to a freshly signed storage link.
// The token names the object key and is signed (HMAC-SHA256) with a subkey of URL_SIGNING_SECRET, so no setting is
// added and a file link's signature can never pass as a token or the other way round. It holds no expiry: the same
// key always gives the same link, which keeps a Nostr event (and its id) the same on every attempt. It ends with the
// image's extension, since some clients show a URL as an image only by its ending. A note shows its link, so a post
// image's key (three UUIDs, objectKeys) is packed into 49 bytes: the link is about 120 characters, not 260.

export type LastingImageLinks = {
  /** The lasting link to the object `key`. */
  linkTo(key: string): string;
  /** The object key a token names, or undefined when the token is not one we signed. */
  keyOf(token: string): string | undefined;
};

const subkeyInfo = 'content-service lasting image links';
// 128 bits: beyond guessing, and the link stays short where people see it (a note shows its URL).
const signatureBytes = 16;
const tokenPattern = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([a-z0-9]+)$/;

const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const postImageKey = new RegExp(`^workspaces/(${uuid})/posts/(${uuid})/(artwork|render)-(${uuid})\\.png$`);
const postImageKinds = ['artwork', 'render'];
// The first byte says how the rest reads: a post image's kind (its index), or any other key as UTF-8.
const plainKey = 0xff;

function packed(key: string): Buffer {
  const [, workspaceId, postId, kind, objectId] = postImageKey.exec(key) ?? [];
  if (!workspaceId || !postId || !kind || !objectId) return Buffer.concat([Buffer.from([plainKey]), Buffer.from(key)]);
  const ids = [workspaceId, postId, objectId].map((id) => Buffer.from(id.replaceAll('-', ''), 'hex'));
  return Buffer.concat([Buffer.from([postImageKinds.indexOf(kind)]), ...ids]);
}

function unpacked(bytes: Buffer): string | undefined {
  const [form] = bytes;
  if (form === plainKey) return bytes.subarray(1).toString();
  const kind = form === undefined ? undefined : postImageKinds[form];
  if (!kind || bytes.length !== 49) return undefined;
  const [workspaceId, postId, objectId] = [1, 17, 33].map((at) =>
    bytes
      .subarray(at, at + 16)
      .toString('hex')
      .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'),
  );
  return `workspaces/${workspaceId}/posts/${postId}/${kind}-${objectId}.png`;
}

function extensionOf(key: string): string {
  const extension = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
  return /^[a-z0-9]+$/.test(extension) ? extension : 'bin';
}

export function createLastingImageLinks(urlSigningSecret: string, publicUrl: () => string): LastingImageLinks {
  const subkey = Buffer.from(hkdfSync('sha256', urlSigningSecret, Buffer.alloc(0), subkeyInfo, 32));
  const signatureOf = (key: string) => createHmac('sha256', subkey).update(key).digest().subarray(0, signatureBytes);

  return {
    linkTo(key) {
      const token = `${packed(key).toString('base64url')}.${signatureOf(key).toString('base64url')}.${extensionOf(key)}`;
      return `${publicUrl()}/images/${token}`;
    },

    keyOf(token) {
      const [, encodedKey, signature, extension] = tokenPattern.exec(token) ?? [];
      if (!encodedKey || !signature) return undefined;
      const key = unpacked(Buffer.from(encodedKey, 'base64url'));
      if (key === undefined) return undefined;
      const given = Buffer.from(signature, 'base64url');
      const expected = signatureOf(key);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return extension === extensionOf(key) ? key : undefined;
    },
  };
}
