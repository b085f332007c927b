import type { Sql } from '../db/client.js';
import type { Logger } from '../log/logger.js';
import { recentlyPublished } from '../mirror/sql/history.js';

/** How many of the latest history rows are looked at (by the primary key, newest first). */
const RECENT_ROWS = 1000;

/**
 * For a scheduler started with the feed off: warns when some of the latest history rows were
 * published, that is, when the feed was on until lately. The feed became opt-in; a deployment
 * that consumed it while it was on by default would otherwise lose it on upgrade without a word.
 */
export async function warnIfFeedWasOn(sql: Sql, logger: Logger): Promise<void> {
  if (!(await recentlyPublished(sql, RECENT_ROWS))) {
    logger.debug('the transition feed is off, as it was before');
    return;
  }
  logger.warn(
    'the transition feed is off (it is opt-in: TRANSITIONS_ENABLED=true, or TRANSITIONS_WEBHOOK_URL), ' +
      'but recent status_history rows were published: set TRANSITIONS_ENABLED=true to go on ' +
      'publishing; the rows recorded meanwhile wait in the outbox and are published then',
  );
}
