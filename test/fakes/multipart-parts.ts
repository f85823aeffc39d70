import type { Received } from './scripted-server.ts';

// What a multipart/form-data request carried, part by part, as a fake platform reads it (Telegram's sendPhoto,
// Discord's execute webhook with files).

export type MultipartPart = { name: string; value?: string; file?: { filename: string; contentType: string; bytes: Buffer } };

/** The request's parts in order; none unless it was sent as multipart/form-data. */
export async function multipartPartsOf(received: Received): Promise<MultipartPart[]> {
  const contentType = received.request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return [];
  const form = await new Response(new Uint8Array(received.body), { headers: { 'content-type': contentType } }).formData();
  const parts: MultipartPart[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') parts.push({ name, value });
    else parts.push({ name, file: { filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) } });
  }
  return parts;
}
