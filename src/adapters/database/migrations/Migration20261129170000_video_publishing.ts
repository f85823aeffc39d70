import { Migration } from '@mikro-orm/migrations';

export class Migration20261129170000_video_publishing extends Migration {
  override name = 'Migration20261129170000_video_publishing';

  override up(): void | Promise<void> {
    this.addSql(`alter table "video_jobs" add "video_bytes" int null, add "duration_ms" int null;`);
    this.addSql(`alter table "publish_targets" add "media" text null;`);
    this.addSql(`alter table "publish_targets" add constraint "publish_targets_media_check" check ("media" in ('image', 'video'));`);
    this.addSql(`alter table "publish_target_attempts" drop constraint "publish_target_attempts_outcome_check";`);
    this.addSql(
      `alter table "publish_target_attempts" add constraint "publish_target_attempts_outcome_check" check ("outcome" in ('published', 'refused', 'rate_limited', 'unavailable', 'unknown', 'processing'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "publish_target_attempts" where "outcome" = 'processing';`);
    this.addSql(`alter table "publish_target_attempts" drop constraint "publish_target_attempts_outcome_check";`);
    this.addSql(
      `alter table "publish_target_attempts" add constraint "publish_target_attempts_outcome_check" check ("outcome" in ('published', 'refused', 'rate_limited', 'unavailable', 'unknown'));`,
    );
    this.addSql(`alter table "publish_targets" drop constraint "publish_targets_media_check";`);
    this.addSql(`alter table "publish_targets" drop column "media";`);
    this.addSql(`alter table "video_jobs" drop column "video_bytes", drop column "duration_ms";`);
  }
}
