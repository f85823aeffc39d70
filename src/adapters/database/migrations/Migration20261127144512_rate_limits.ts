import { Migration } from '@mikro-orm/migrations';

// The shared rate limits' counters (src/api/rate-limits), in the layout rate-limiter-flexible's PostgreSQL store
// queries: one row per `<budget>:<name>`, `expire` in epoch milliseconds. Created here rather than by the library at
// start-up, where every replica would race to create it. Unlogged: counters of a minute's window need no WAL (every
// request writes one or two), and after a crash an emptied table only restarts the windows.
export class Migration20261127144512_rate_limits extends Migration {
  override name = 'Migration20261127144512_rate_limits';

  override up(): void | Promise<void> {
    this.addSql(
      `create unlogged table "rate_limits" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, primary key ("key"));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limits";`);
  }
}
