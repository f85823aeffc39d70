import type { Logger } from '../../logger.ts';
import { rateLimitStoreFailures } from '../../adapters/metrics/api-metrics.ts';

// A store that fails and answers by turns (a pool that times out under load) would otherwise log a pair of lines per
// turn.
const quietMs = 60_000;

/**
 * Whether the shared rate-limit store answers, as its statements find out. While it does not, every limit is
 * counted in this process's memory (each budget's insurance limiter), so N api processes allow up to N times the
 * budget: said once per outage in the log (when it starts and when it ends), and per failed statement in
 * `api_rate_limit_store_failures_total`.
 */
export class StoreOutage {
  readonly #logger: Logger;
  #down = false;
  #warned = false;
  #lastWarning = Number.NEGATIVE_INFINITY;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  failed(error: unknown): void {
    rateLimitStoreFailures.inc();
    if (this.#down) return;
    this.#down = true;
    const now = Date.now();
    if (now - this.#lastWarning < quietMs) return;
    this.#lastWarning = now;
    this.#warned = true;
    this.#logger.warn({ err: error }, 'rate-limit store unavailable: limits are counted in this process only until it answers again');
  }

  answered(): void {
    if (!this.#down) return;
    this.#down = false;
    if (!this.#warned) return;
    this.#warned = false;
    this.#logger.info('rate-limit store answers again: limits are shared between api processes again');
  }
}
