import { Migration } from '@mikro-orm/migrations';

export class Migration20261128090000_event_hand_over extends Migration {
  override name = 'Migration20261128090000_event_hand_over';

  override up(): void | Promise<void> {
    // The events already there were handed over, or deliberately not (no webhook took them): none waits. A default
    // that is not volatile is stored once, not written into every row, so this is quick on a large table.
    this.addSql(`alter table "events" add column "handed_over_at" timestamptz null default now();`);
    this.addSql(`alter table "events" alter column "handed_over_at" drop default;`);
    this.addSql(`create index "events_awaiting_hand_over_index" on "events" ("id") where "handed_over_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "events_awaiting_hand_over_index";`);
    this.addSql(`alter table "events" drop column "handed_over_at";`);
  }
}
