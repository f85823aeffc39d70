import { Migration } from '@mikro-orm/migrations';

export class Migration20261130082500_social_connection_leases extends Migration {
  override name = 'Migration20261130082500_social_connection_leases';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "social_connections" add "session_lease_owner" uuid null, add "session_lease_until" timestamptz null, add "refresh_lease_owner" uuid null, add "refresh_lease_until" timestamptz null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "social_connections" drop column "session_lease_owner", drop column "session_lease_until", drop column "refresh_lease_owner", drop column "refresh_lease_until";`,
    );
  }
}
