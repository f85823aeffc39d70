import { AppError } from '../../errors/app-error.ts';

// Keyset paging for deep lists: the cursor names the last row of a page (its createdAt and id), and the next page
// starts right after it with an index seek, however deep. Opaque to clients (base64url).
export type PostCursor = { createdAt: Date; id: string };

export function encodeCursor(row: PostCursor): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): PostCursor {
  const [createdAt = '', id = ''] = Buffer.from(cursor, 'base64url').toString().split('|');
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) {
    throw new AppError('validation-failed', 'cursor is not a cursor this API handed out.', {
      errors: [{ location: 'query', path: 'cursor', message: 'is not valid' }],
    });
  }
  return { createdAt: date, id };
}
