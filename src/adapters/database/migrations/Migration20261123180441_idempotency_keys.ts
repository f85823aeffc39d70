import { Migration } from '@mikro-orm/migrations';

export class Migration20261123180441_idempotency_keys extends Migration {
  override name = 'Migration20261123180441_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("id" uuid not null, "workspace_id" uuid not null, "key" varchar(255) not null, "request_method" varchar(10) not null, "request_path" text not null, "request_hash" varchar(64) not null, "lock_id" uuid null, "locked_until" timestamptz null, "response_status" int null, "response_headers" jsonb null, "response_body" text null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_workspace_id_key_unique" unique ("workspace_id", "key");`);

    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }
}
