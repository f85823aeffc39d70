export type PageRequest = { page: number; pageSize: number };
export type Page<T> = { items: T[]; page: number; pageSize: number; hasMore: boolean };

/** Reads one row more than asked, to know whether a next page exists without counting every row. */
export function pageQuery({ page, pageSize }: PageRequest): { limit: number; offset: number } {
  return { limit: pageSize + 1, offset: (page - 1) * pageSize };
}

export function toPage<T>(rows: T[], { page, pageSize }: PageRequest): Page<T> {
  return { items: rows.slice(0, pageSize), page, pageSize, hasMore: rows.length > pageSize };
}
