import { Migration } from '@mikro-orm/migrations';

export class Migration20261129083103_request_effects extends Migration {
  override name = 'Migration20261129083103_request_effects';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "request_effects" ("id" uuid not null, "workspace_id" uuid not null, "key" varchar(255) not null, "resource_type" varchar(40) not null, "resource_id" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "request_effects_expires_at_index" on "request_effects" ("expires_at");`);
    this.addSql(`alter table "request_effects" add constraint "request_effects_workspace_id_key_unique" unique ("workspace_id", "key");`);

    this.addSql(
      `alter table "request_effects" add constraint "request_effects_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "request_effects" cascade;`);
  }
}
