import { Migration } from '@mikro-orm/migrations';

export class Migration20261123153858_schedule_last_run_at extends Migration {
  override name = 'Migration20261123153858_schedule_last_run_at';

  override up(): void | Promise<void> {
    this.addSql(`alter table "schedules" add "last_run_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "schedules" drop column "last_run_at";`);
  }
}
