import { Migration } from '@mikro-orm/migrations';

export class Migration20261127150000_video_jobs_unfinished_index extends Migration {
  override name = 'Migration20261127150000_video_jobs_unfinished_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "video_jobs_workspace_unfinished_index" on "video_jobs" ("workspace_id") where "status" in ('queued', 'running');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "video_jobs_workspace_unfinished_index";`);
  }
}
