import { Migration } from '@mikro-orm/migrations';

export class Migration20261129234952_oauth_authorization_app extends Migration {
  override name = 'Migration20261129234952_oauth_authorization_app';

  override up(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" add "app" text null;`);
    this.addSql(`alter table "oauth_authorizations" add constraint "oauth_authorizations_app_check" check ("app" in ('authors'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_authorizations" drop constraint "oauth_authorizations_app_check";`);
    this.addSql(`alter table "oauth_authorizations" drop column "app";`);
  }
}
