import { Migration } from '@mikro-orm/migrations';

export class Migration20261130093506_oauth_consent_browser extends Migration {
  override name = 'Migration20261130093506_oauth_consent_browser';

  override up(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" add "consent_browser_hash" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" drop column "consent_browser_hash";`);
  }
}
