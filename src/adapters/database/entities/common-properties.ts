import { p } from '@mikro-orm/postgresql';
import { newId } from '../new-id.ts';

// The columns most tables share, spelled once so that every table keys and stamps its rows the same way. Spread
// into an entity's `properties`; the relations to a workspace and to a post sit beside their entities
// (belongsToWorkspace, belongsToPost), which import this file.

/** A time-ordered UUID (new-id.ts) given when the row is created, by us rather than the database. */
export const primaryKey = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => newId()),
};

/** When the row was written, for rows that are never changed or whose changes have a time of their own. */
export const createdAt = {
  createdAt: p.datetime().onCreate(() => new Date()),
};

/** When the row was written and when it last changed. */
export const createdAndUpdatedAt = {
  ...createdAt,
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
};
