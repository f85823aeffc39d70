/**
 * The redirects of lasting image links this process answered lately, by storage key: a bounded, least recently used
 * map whose entries last `lifetimeMs`. The image behind a key never changes (a token names one stored object for
 * good), so a replica can answer from its own memory without asking the others; the only news it can miss is the
 * image's deletion, for at most `lifetimeMs`, which is what any cache in front is allowed anyway (the redirect is
 * public for as long), and the link redirected to is signed for far longer than that.
 */
export type RecentImageRedirects = {
  get(key: string): string | undefined;
  remember(key: string, location: string): void;
};

export function recentImageRedirects(options: { maxEntries: number; lifetimeMs: number }): RecentImageRedirects {
  // A Map iterates in insertion order: the first entry is the least recently used one.
  const entries = new Map<string, { location: string; until: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.until <= Date.now()) return undefined;
      entries.set(key, entry);
      return entry.location;
    },
    remember(key, location) {
      entries.delete(key);
      entries.set(key, { location, until: Date.now() + options.lifetimeMs });
      if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
    },
  };
}
