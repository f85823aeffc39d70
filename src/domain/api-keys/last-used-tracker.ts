import type { Database } from '../../adapters/database/orm.ts';
import type { Logger } from '../../logger.ts';

/**
 * Remembers when each API key was last used without writing to the database on every request: uses are kept in
 * memory and written in one batched UPDATE every few seconds and at shutdown. Reads in this process see the
 * unflushed value; other processes see it after the next flush.
 */
export class LastUsedTracker {
  readonly #pending = new Map<string, Date>();
  readonly #orm: Database;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;

  constructor(orm: Database, logger: Logger) {
    this.#orm = orm;
    this.#logger = logger;
  }

  touch(apiKeyId: string, at = new Date()): void {
    this.#pending.set(apiKeyId, at);
  }

  /** The most recent use known to this process. */
  latest(apiKeyId: string, stored: Date | null | undefined): Date | null {
    const pending = this.#pending.get(apiKeyId);
    if (!pending) return stored ?? null;
    return stored && stored > pending ? stored : pending;
  }

  start(intervalSeconds: number): void {
    this.#timer = setInterval(() => {
      this.flush().catch((error: unknown) => this.#logger.warn({ err: error }, 'could not record API key usage'));
    }, intervalSeconds * 1000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending];
    this.#pending.clear();
    const values = batch.map(() => '(?::uuid, ?::timestamptz)').join(', ');
    try {
      await this.#orm.em.execute(
        `update api_keys as k set last_used_at = v.at
           from (values ${values}) as v(id, at)
          where k.id = v.id and (k.last_used_at is null or k.last_used_at < v.at)`,
        batch.flatMap(([id, at]) => [id, at.toISOString()]),
        'run',
      );
    } catch (error) {
      // Put the uses back (unless newer ones arrived meanwhile) so the next flush tries again.
      for (const [id, at] of batch) if (!this.#pending.has(id)) this.#pending.set(id, at);
      throw error;
    }
  }
}
