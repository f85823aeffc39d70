import { Migration } from '@mikro-orm/migrations';

export class Migration20261127200500_publish_target_overrides extends Migration {
  override name = 'Migration20261127200500_publish_target_overrides';

  override up(): void | Promise<void> {
    this.addSql(`alter table "publish_targets" add column "text_override" text null, add column "alt_text_override" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "publish_targets" drop column "text_override", drop column "alt_text_override";`);
  }
}
