import { Migration } from '@mikro-orm/migrations';

export class Migration20261123180753_video_job_outcome extends Migration {
  override name = 'Migration20261123180753_video_job_outcome';

  override up(): void | Promise<void> {
    this.addSql(`alter table "video_jobs" add "status" text not null default 'queued', add "progress" int not null default 0, add "error" text null;`);
    this.addSql(`alter table "video_jobs" add constraint "video_jobs_status_check" check ("status" in ('queued', 'running', 'done', 'failed', 'cancelled'));`);
    // Jobs from before the row kept their end: a saved video is done; the others may be running or may have ended
    // without saying so, and are asked of their workflow as before.
    this.addSql(
      `update "video_jobs" set "status" = case when "video_key" is not null then 'done' else 'running' end, "progress" = case when "video_key" is not null then 100 else 0 end;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "video_jobs" drop constraint "video_jobs_status_check";`);
    this.addSql(`alter table "video_jobs" drop column "status", drop column "progress", drop column "error";`);
  }
}
