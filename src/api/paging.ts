import type { Request, Response } from 'express';
import type { Page, PageRequest } from '../domain/paging.ts';

/** `page` and `pageSize` as the validator delivers them: coerced to integers, defaults from openapi.yaml applied. */
export function pageRequestOf(req: Request): PageRequest {
  return { page: Number(req.query.page), pageSize: Number(req.query.pageSize) };
}

/**
 * Sends one page of a list with RFC 8288 `Link` headers to its neighbours. Lists that page by cursor link the next
 * page by cursor (a cursor-paged request has no `prev`: cursors only go forward).
 */
export function sendPage<T>(req: Request, res: Response, page: Page<unknown> & { nextCursor?: string | undefined }, body: T): void {
  const links: string[] = [];
  if (page.hasMore) {
    const next = page.nextCursor ? { cursor: page.nextCursor } : { page: String(page.page + 1) };
    links.push(`<${linkTo(req, next, page.pageSize)}>; rel="next"`);
  }
  if (page.page > 1 && req.query.cursor === undefined) links.push(`<${linkTo(req, { page: String(page.page - 1) }, page.pageSize)}>; rel="prev"`);
  if (links.length > 0) res.set('Link', links.join(', '));
  res.json(body);
}

function linkTo(req: Request, position: { page: string } | { cursor: string }, pageSize: number): string {
  const url = new URL(req.originalUrl, 'http://placeholder');
  url.searchParams.delete('page');
  url.searchParams.delete('cursor');
  for (const [name, value] of Object.entries(position)) url.searchParams.set(name, value);
  url.searchParams.set('pageSize', String(pageSize));
  return `${url.pathname}${url.search}`;
}
