import { Migration } from '@mikro-orm/migrations';

export class Migration20261127173500_webhooks_answers_slowly extends Migration {
  override name = 'Migration20261127173500_webhooks_answers_slowly';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhooks" add column "answers_slowly" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhooks" drop column "answers_slowly";`);
  }
}
