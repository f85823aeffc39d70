import { Migration } from '@mikro-orm/migrations';

export class Migration20261130082408_oauth_authorization_confirmed extends Migration {
  override name = 'Migration20261130082408_oauth_authorization_confirmed';

  override up(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" add "confirmed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" drop column "confirmed_at";`);
  }
}
