import { Migration } from '@mikro-orm/migrations';

export class Migration20261122113257_schedules extends Migration {
  override name = 'Migration20261122113257_schedules';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "schedules" ("id" uuid not null, "workspace_id" uuid not null, "name" varchar(100) not null, "cron_expression" varchar(100) not null, "prompt_template" text null, "project_id" uuid null, "brand_kit_id" uuid null, "is_active" boolean not null default true, "last_run_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "schedules_workspace_id_created_at_index" on "schedules" ("workspace_id", "created_at");`);

    this.addSql(
      `alter table "schedules" add constraint "schedules_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "schedules" cascade;`);
  }
}
