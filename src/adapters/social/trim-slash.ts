/** A server URL as a connection keeps it: without the trailing slashes people paste. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
