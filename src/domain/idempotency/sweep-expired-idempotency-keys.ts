import type { Database } from '../../adapters/database/orm.ts';
import type { Logger } from '../../logger.ts';

/**
 * Deletes the keys past their lifetime, and the publications and creations recorded under them; returns how many keys. (A claim and
 * a plan already ignore them: this only frees space.)
 */
export async function deleteExpiredIdempotencyKeys(orm: Database): Promise<number> {
  const em = orm.em.fork();
  await em.execute(`delete from publication_requests where expires_at <= now()`, [], 'run');
  await em.execute(`delete from request_effects where expires_at <= now()`, [], 'run');
  const result = await em.execute<{ affectedRows: number }>(`delete from idempotency_keys where expires_at <= now()`, [], 'run');
  return result.affectedRows;
}

/**
 * Runs the delete at api start-up and then every `intervalSeconds` in each api process. Several processes sweeping
 * the same rows is harmless (a delete of what is already gone deletes nothing), so no schedule or leader is needed.
 */
export class IdempotencyKeySweeper {
  readonly #orm: Database;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> = Promise.resolve();

  constructor(orm: Database, logger: Logger) {
    this.#orm = orm;
    this.#logger = logger;
  }

  start(intervalSeconds: number): void {
    const sweep = () => {
      this.#sweeping = deleteExpiredIdempotencyKeys(this.#orm)
        .then((deleted) => {
          if (deleted > 0) this.#logger.info({ deleted }, 'deleted expired idempotency keys');
        })
        .catch((error: unknown) => this.#logger.warn({ err: error }, 'could not delete expired idempotency keys'));
    };
    sweep();
    this.#timer = setInterval(sweep, intervalSeconds * 1000);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a sweep in flight (so the database is not closed under it). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#sweeping;
  }
}
