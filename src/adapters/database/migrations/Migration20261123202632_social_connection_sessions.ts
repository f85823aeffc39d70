import { Migration } from '@mikro-orm/migrations';

export class Migration20261123202632_social_connection_sessions extends Migration {
  override name = 'Migration20261123202632_social_connection_sessions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "social_connections" add "session_sealed" text null, add "post_language" varchar(35) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "social_connections" drop column "session_sealed", drop column "post_language";`);
  }
}
