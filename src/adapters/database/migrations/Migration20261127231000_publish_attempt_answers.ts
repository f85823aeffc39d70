import { Migration } from '@mikro-orm/migrations';

export class Migration20261127231000_publish_attempt_answers extends Migration {
  override name = 'Migration20261127231000_publish_attempt_answers';

  override up(): void | Promise<void> {
    this.addSql(`alter table "publish_target_attempts" add column "answers" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "publish_target_attempts" drop column "answers";`);
  }
}
