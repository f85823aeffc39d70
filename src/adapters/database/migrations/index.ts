// Every migration, oldest first. `npm run migration:create` adds the new file here; a test checks that this list
// and the files in this folder agree.
import { Migration20261122091116_initial } from './Migration20261122091116_initial.ts';
import { Migration20261122100740_posts_versions_usage_events } from './Migration20261122100740_posts_versions_usage_events.ts';
import { Migration20261122105714_publishing_and_webhooks } from './Migration20261122105714_publishing_and_webhooks.ts';
import { Migration20261122113257_schedules } from './Migration20261122113257_schedules.ts';
import { Migration20261122121322_video_jobs } from './Migration20261122121322_video_jobs.ts';
import { Migration20261123153858_schedule_last_run_at } from './Migration20261123153858_schedule_last_run_at.ts';
import { Migration20261123180441_idempotency_keys } from './Migration20261123180441_idempotency_keys.ts';
import { Migration20261123180753_video_job_outcome } from './Migration20261123180753_video_job_outcome.ts';
import { Migration20261123202632_social_connection_sessions } from './Migration20261123202632_social_connection_sessions.ts';
import { Migration20261127144512_rate_limits } from './Migration20261127144512_rate_limits.ts';
import { Migration20261127150000_video_jobs_unfinished_index } from './Migration20261127150000_video_jobs_unfinished_index.ts';
import { Migration20261127173500_webhooks_answers_slowly } from './Migration20261127173500_webhooks_answers_slowly.ts';
import { Migration20261127200000_oauth_connections } from './Migration20261127200000_oauth_connections.ts';
import { Migration20261127200500_publish_target_overrides } from './Migration20261127200500_publish_target_overrides.ts';
import { Migration20261127200600_publish_target_attempts } from './Migration20261127200600_publish_target_attempts.ts';
import { Migration20261127210000_linkedin_threads_platforms } from './Migration20261127210000_linkedin_threads_platforms.ts';
import { Migration20261127230000_open_network_platforms } from './Migration20261127230000_open_network_platforms.ts';
import { Migration20261127231000_publish_attempt_answers } from './Migration20261127231000_publish_attempt_answers.ts';
import { Migration20261127232000_threads_of_posts } from './Migration20261127232000_threads_of_posts.ts';
import { Migration20261128090000_event_hand_over } from './Migration20261128090000_event_hand_over.ts';
import { Migration20261129075918_publication_requests } from './Migration20261129075918_publication_requests.ts';
import { Migration20261129083103_request_effects } from './Migration20261129083103_request_effects.ts';
import { Migration20261129103521_request_effect_secrets } from './Migration20261129103521_request_effect_secrets.ts';
import { Migration20261129170000_video_publishing } from './Migration20261129170000_video_publishing.ts';
import { Migration20261129181500_publish_target_video } from './Migration20261129181500_publish_target_video.ts';
import { Migration20261129234952_oauth_authorization_app } from './Migration20261129234952_oauth_authorization_app.ts';
import { Migration20261130015735_pinterest_boards } from './Migration20261130015735_pinterest_boards.ts';
import { Migration20261130023959_youtube } from './Migration20261130023959_youtube.ts';
import { Migration20261130050540_instagram } from './Migration20261130050540_instagram.ts';
import { Migration20261130051404_tiktok } from './Migration20261130051404_tiktok.ts';
import { Migration20261130052658_facebook } from './Migration20261130052658_facebook.ts';
import { Migration20261130052811_platform_quota } from './Migration20261130052811_platform_quota.ts';
import { Migration20261130055600_connection_settings } from './Migration20261130055600_connection_settings.ts';
import { Migration20261130074644_image_key_rejections } from './Migration20261130074644_image_key_rejections.ts';
import { Migration20261130082408_oauth_authorization_confirmed } from './Migration20261130082408_oauth_authorization_confirmed.ts';
import { Migration20261130082500_social_connection_leases } from './Migration20261130082500_social_connection_leases.ts';
import { Migration20261130082518_api_key_scope } from './Migration20261130082518_api_key_scope.ts';
import { Migration20261130093506_oauth_consent_browser } from './Migration20261130093506_oauth_consent_browser.ts';

export const migrationsList = [
  Migration20261122091116_initial,
  Migration20261122100740_posts_versions_usage_events,
  Migration20261122105714_publishing_and_webhooks,
  Migration20261122113257_schedules,
  Migration20261122121322_video_jobs,
  Migration20261123153858_schedule_last_run_at,
  Migration20261123180441_idempotency_keys,
  Migration20261123180753_video_job_outcome,
  Migration20261123202632_social_connection_sessions,
  Migration20261127144512_rate_limits,
  Migration20261127150000_video_jobs_unfinished_index,
  Migration20261127173500_webhooks_answers_slowly,
  Migration20261127200000_oauth_connections,
  Migration20261127200500_publish_target_overrides,
  Migration20261127200600_publish_target_attempts,
  Migration20261127210000_linkedin_threads_platforms,
  Migration20261127230000_open_network_platforms,
  Migration20261127231000_publish_attempt_answers,
  Migration20261127232000_threads_of_posts,
  Migration20261128090000_event_hand_over,
  Migration20261129075918_publication_requests,
  Migration20261129083103_request_effects,
  Migration20261129103521_request_effect_secrets,
  Migration20261129170000_video_publishing,
  Migration20261129181500_publish_target_video,
  Migration20261129234952_oauth_authorization_app,
  Migration20261130015735_pinterest_boards,
  Migration20261130023959_youtube,
  Migration20261130050540_instagram,
  Migration20261130051404_tiktok,
  Migration20261130052658_facebook,
  Migration20261130052811_platform_quota,
  Migration20261130055600_connection_settings,
  Migration20261130074644_image_key_rejections,
  Migration20261130082408_oauth_authorization_confirmed,
  Migration20261130082500_social_connection_leases,
  Migration20261130082518_api_key_scope,
  Migration20261130093506_oauth_consent_browser,
];
