import { AppError } from '../../common/errors/app-error.ts';
import { isDateTime, isUuid } from '../../common/validation/formats.ts';

// Keyset paging for deep lists: the cursor names the last row of a page (its createdAt and id), and the next page
// starts right after it with an index seek, however deep. Opaque to clients (base64url).
export type PostCursor = { createdAt: Date; id: string };

export function encodeCursor(row: PostCursor): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): PostCursor {
  const [createdAt = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString().split('|');
  // A forged cursor is checked as strictly as any other input: it reaches SQL as a timestamp and a uuid.
  if (rest.length > 0 || !isDateTime(createdAt) || !isUuid(id)) {
    throw new AppError('validation-failed', 'cursor is not a cursor this API handed out.', {
      errors: [{ location: 'query', path: 'cursor', message: 'is not valid' }],
    });
  }
  return { createdAt: new Date(createdAt), id };
}
