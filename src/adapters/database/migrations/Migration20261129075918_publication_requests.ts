import { Migration } from '@mikro-orm/migrations';

export class Migration20261129075918_publication_requests extends Migration {
  override name = 'Migration20261129075918_publication_requests';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "publication_requests" ("id" uuid not null, "workspace_id" uuid not null, "key" varchar(255) not null, "post_id" uuid not null, "publication_id" varchar(100) not null, "plan" jsonb not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "publication_requests_expires_at_index" on "publication_requests" ("expires_at");`);
    this.addSql(`alter table "publication_requests" add constraint "publication_requests_workspace_id_key_unique" unique ("workspace_id", "key");`);

    this.addSql(
      `alter table "publication_requests" add constraint "publication_requests_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "publication_requests" add constraint "publication_requests_post_id_foreign" foreign key ("post_id") references "posts" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "publication_requests" cascade;`);
  }
}
