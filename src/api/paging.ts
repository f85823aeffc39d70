import type { Request, Response } from 'express';
import type { Page, PageRequest } from '../domain/paging.ts';

/** `page` and `pageSize` as the validator delivers them: coerced to integers, defaults from openapi.yaml applied. */
export function pageRequestOf(req: Request): PageRequest {
  return { page: Number(req.query.page), pageSize: Number(req.query.pageSize) };
}

/** Sends one page of a list with RFC 8288 `Link` headers to its neighbours. */
export function sendPage<T>(req: Request, res: Response, page: Page<unknown>, body: T): void {
  const links: string[] = [];
  if (page.hasMore) links.push(`<${linkTo(req, page.page + 1, page.pageSize)}>; rel="next"`);
  if (page.page > 1) links.push(`<${linkTo(req, page.page - 1, page.pageSize)}>; rel="prev"`);
  if (links.length > 0) res.set('Link', links.join(', '));
  res.json(body);
}

function linkTo(req: Request, pageNumber: number, pageSize: number): string {
  const url = new URL(req.originalUrl, 'http://placeholder');
  url.searchParams.set('page', String(pageNumber));
  url.searchParams.set('pageSize', String(pageSize));
  return `${url.pathname}${url.search}`;
}
