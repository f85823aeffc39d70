import { Migration } from '@mikro-orm/migrations';

export class Migration20261130055600_connection_settings extends Migration {
  override name = 'Migration20261130055600_connection_settings';

  override up(): void | Promise<void> {
    this.addSql(`alter table "social_connections" add "settings" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "social_connections" drop column "settings";`);
  }
}
