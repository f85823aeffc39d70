import { Migration } from '@mikro-orm/migrations';

export class Migration20261122091116_initial extends Migration {
  override name = 'Migration20261122091116_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "orphaned_objects" ("id" uuid not null, "batch_id" uuid not null, "object_key" text not null, "reason" varchar(100) not null, "delete_after" timestamptz not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "orphaned_objects_batch_id_index" on "orphaned_objects" ("batch_id");`);
    this.addSql(`alter table "orphaned_objects" add constraint "orphaned_objects_object_key_unique" unique ("object_key");`);
    this.addSql(`create index "orphaned_objects_delete_after_index" on "orphaned_objects" ("delete_after");`);

    this.addSql(
      `create table "workspaces" ("id" uuid not null, "name" varchar(100) not null, "plan" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "workspaces" add constraint "workspaces_plan_check" check ("plan" in ('starter', 'growth'));`);

    this.addSql(
      `create table "projects" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(100) not null, "description" text null, "icon" varchar(32) null, "color" varchar(7) null, "status" text not null default 'active', "cover_key" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "projects_workspace_id_status_created_at_index" on "projects" ("workspace_id", "status", "created_at");`);
    this.addSql(`alter table "projects" add constraint "projects_status_check" check ("status" in ('active', 'archived'));`);

    this.addSql(
      `create table "brand_kits" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(100) not null, "colors" jsonb not null, "fonts" jsonb not null, "logo_url" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "brand_kits_workspace_id_created_at_index" on "brand_kits" ("workspace_id", "created_at");`);

    this.addSql(
      `create table "api_keys" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(100) not null, "key_hash" varchar(64) not null, "key_prefix" varchar(16) not null, "is_active" boolean not null default true, "expires_at" timestamptz null, "last_used_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "api_keys_workspace_id_created_at_index" on "api_keys" ("workspace_id", "created_at");`);

    this.addSql(
      `alter table "projects" add constraint "projects_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "brand_kits" add constraint "brand_kits_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
  }
}
