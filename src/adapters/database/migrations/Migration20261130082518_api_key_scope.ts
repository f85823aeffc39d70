import { Migration } from '@mikro-orm/migrations';

export class Migration20261130082518_api_key_scope extends Migration {
  override name = 'Migration20261130082518_api_key_scope';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_keys" add "scope" text not null default 'full';`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_scope_check" check ("scope" in ('read', 'publish', 'full'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_keys" drop constraint "api_keys_scope_check";`);
    this.addSql(`alter table "api_keys" drop column "scope";`);
  }
}
