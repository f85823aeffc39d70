import { Migration } from '@mikro-orm/migrations';

export class Migration20261122121322_video_jobs extends Migration {
  override name = 'Migration20261122121322_video_jobs';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "video_jobs" ("id" uuid not null, "workspace_id" uuid not null, "post_id" uuid not null, "format" text not null, "video_key" text null, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "video_jobs_post_id_created_at_index" on "video_jobs" ("post_id", "created_at");`);

    this.addSql(
      `alter table "video_jobs" add constraint "video_jobs_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(`alter table "video_jobs" add constraint "video_jobs_post_id_foreign" foreign key ("post_id") references "posts" ("id") on delete cascade;`);
    this.addSql(`alter table "video_jobs" add constraint "video_jobs_format_check" check ("format" in ('1:1', '9:16', '16:9'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "video_jobs" cascade;`);
  }
}
