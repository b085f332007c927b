import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

/**
 * The mirror schema (a contract: finance queries these names; docs/architecture.md) and the inbox.
 * Money is bigint centavos everywhere; `mode: 'number'` is safe because the money module
 * rejects anything beyond Number.MAX_SAFE_INTEGER before it gets here.
 */

const cents = (name: string) => bigint(name, { mode: 'number' });
const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});

export const sales = pgTable(
  'sales',
  {
    id: bigint('id', { mode: 'number' }).primaryKey(),
    status: text('status').notNull(),
    paymentMethod: text('payment_method').notNull(),
    amountCents: cents('amount_cents').notNull(),
    netAmountCents: cents('net_amount_cents'),
    /** The sale's one fee: the read's systemFee (or a signed source's); never a webhook's. */
    systemFeeCents: cents('system_fee_cents'),
    /** Always equal to system_fee_cents (generated): nothing can write another fee here. */
    feeCents: cents('fee_cents').generatedAlwaysAs(sql`system_fee_cents`),
    reserveAmountCents: cents('reserve_amount_cents'),
    installments: integer('installments'),
    customerName: text('customer_name'),
    customerEmail: text('customer_email'),
    customerDocument: text('customer_document'),
    customerPhone: text('customer_phone'),
    pixCode: text('pix_code'),
    /** When a pending PIX expires, as the gateway answered paymirror's own sale; null: unknown. */
    pixExpiresAt: tstz('pix_expires_at'),
    boletoCode: text('boleto_code'),
    cardLastFour: text('card_last_four'),
    cardBrand: text('card_brand'),
    externalTransactionId: text('external_transaction_id'),
    shipping: jsonb('shipping'),
    createdAt: tstz('created_at'),
    completedAt: tstz('completed_at'),
    firstSeenAt: tstz('first_seen_at').notNull().defaultNow(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
    lastReconciledAt: tstz('last_reconciled_at'),
    /** When the reconciler should look at this row next; null: no scheduled check. */
    nextReconcileAt: tstz('next_reconcile_at'),
    /** Set when the worker had to guess or could not confirm: the reconciler takes these first. */
    reconcileRequestedAt: tstz('reconcile_requested_at'),
    reconcileReason: text('reconcile_reason'),
    /** When the gateway's answer last written here was requested: an older answer never wins. */
    gatewayReadAt: tstz('gateway_read_at'),
    /**
     * When the current status was observed: the delivery's receipt for a notification, the
     * read's start for a gateway answer. A gateway read begun before it cannot move the row
     * out of it (docs/architecture.md, "Provenance").
     */
    statusObservedAt: tstz('status_observed_at'),
    /**
     * When the gateway denied this record (404/403 shape B, confirmed by a second read): it
     * leaves every finance view and the books until an authentic observation restores it.
     */
    deniedAt: tstz('denied_at'),
    /**
     * What set the current status: 'signed' (a postback), 'confirmed' (a webhook the read
     * confirmed), 'read', 'unverified', 'api'; null when unknown. A read never moves a record
     * out of a final status a signed or confirmed observation set.
     */
    statusSetBy: text('status_set_by'),
    /** Reads in a row that contradicted that final status; flagged at the configured count. */
    disagreeingReads: integer('disagreeing_reads').notNull().default(0),
    /** When the record was flagged for an operator (paymirror report flagged), and why. */
    flaggedAt: tstz('flagged_at'),
    flagReason: text('flag_reason'),
    /** A first denying read (404/403 shape B), waiting for the second that confirms it. */
    denialReadAt: tstz('denial_read_at'),
  },
  (t) => [
    index('sales_next_reconcile_at_idx').on(t.nextReconcileAt),
    check('sales_amounts_non_negative', sql`${t.amountCents} >= 0 and ${t.feeCents} >= 0`),
  ],
);

export const saleItems = pgTable(
  'sale_items',
  {
    saleId: bigint('sale_id', { mode: 'number' })
      .notNull()
      .references(() => sales.id, { onDelete: 'cascade' }),
    itemId: bigint('item_id', { mode: 'number' }).notNull(),
    title: text('title').notNull(),
    unitPriceCents: cents('unit_price_cents').notNull(),
    quantity: integer('quantity').notNull(),
    tangible: boolean('tangible').notNull(),
  },
  (t) => [primaryKey({ columns: [t.saleId, t.itemId] })],
);

export const withdrawals = pgTable(
  'withdrawals',
  {
    id: bigint('id', { mode: 'number' }).primaryKey(),
    status: text('status').notNull(),
    amountCents: cents('amount_cents').notNull(),
    netAmountCents: cents('net_amount_cents'),
    feeFixedCents: cents('fee_fixed_cents'),
    feeVariableCents: cents('fee_variable_cents'),
    feeTotalCents: cents('fee_total_cents'),
    pixKey: text('pix_key'),
    pixKeyType: text('pix_key_type'),
    externalId: text('external_id'),
    createdAt: tstz('created_at'),
    gatewayUpdatedAt: tstz('gateway_updated_at'),
    processedAt: tstz('processed_at'),
    firstSeenAt: tstz('first_seen_at').notNull().defaultNow(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
    lastReconciledAt: tstz('last_reconciled_at'),
    nextReconcileAt: tstz('next_reconcile_at'),
    reconcileRequestedAt: tstz('reconcile_requested_at'),
    reconcileReason: text('reconcile_reason'),
    gatewayReadAt: tstz('gateway_read_at'),
    statusObservedAt: tstz('status_observed_at'),
    /**
     * When the gateway denied this record (404/403 shape B, confirmed by a second read): it
     * leaves every finance view and the books until an authentic observation restores it.
     */
    deniedAt: tstz('denied_at'),
    /**
     * What set the current status: 'signed' (a postback), 'confirmed' (a webhook the read
     * confirmed), 'read', 'unverified', 'api'; null when unknown. A read never moves a record
     * out of a final status a signed or confirmed observation set.
     */
    statusSetBy: text('status_set_by'),
    /** Reads in a row that contradicted that final status; flagged at the configured count. */
    disagreeingReads: integer('disagreeing_reads').notNull().default(0),
    /** When the record was flagged for an operator (paymirror report flagged), and why. */
    flaggedAt: tstz('flagged_at'),
    flagReason: text('flag_reason'),
    /** A first denying read (404/403 shape B), waiting for the second that confirms it. */
    denialReadAt: tstz('denial_read_at'),
  },
  (t) => [
    index('withdrawals_next_reconcile_at_idx').on(t.nextReconcileAt),
    check('withdrawals_amount_non_negative', sql`${t.amountCents} >= 0`),
  ],
);

export const statusHistory = pgTable(
  'status_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    resourceType: text('resource_type').notNull(),
    resourceId: bigint('resource_id', { mode: 'number' }).notNull(),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    source: text('source').notNull(),
    // Set null when `paymirror prune` deletes an old processed inbox row: history stays.
    inboxEventId: bigint('inbox_event_id', { mode: 'number' }).references(() => inboxEvents.id, {
      onDelete: 'set null',
    }),
    recordedAt: tstz('recorded_at').notNull().defaultNow(),
    /**
     * False for a status authentically observed after the mirror had moved past it (a MED
     * postback processed after the sale was already ESTORNADO): part of the record's story,
     * never its current state. The rows with entered = true form the mirror's path.
     */
    entered: boolean('entered').notNull().default(true),
    /** When the status was observed: a delivery's receipt, or a gateway read's start. */
    observedAt: tstz('observed_at').notNull().defaultNow(),
    /** When the transition feed put this row on its queue (the outbox marker). */
    publishedAt: tstz('published_at'),
  },
  (t) => [
    check('status_history_resource_type_ck', sql`${t.resourceType} in ('sale', 'withdrawal')`),
    check(
      'status_history_source_ck',
      sql`${t.source} in ('postback', 'webhook', 'reconcile', 'api')`,
    ),
    index('status_history_resource_idx').on(t.resourceType, t.resourceId, t.id),
    index('status_history_unpublished_idx')
      .on(t.id)
      .where(sql`${t.publishedAt} is null`),
    // One notification records a status at most once: a re-run job cannot write a second row.
    // (It may record two: a signed MED, then the read it was confirmed with, ESTORNADO.)
    uniqueIndex('status_history_inbox_event_status_uq')
      .on(t.inboxEventId, t.toStatus)
      .where(sql`${t.inboxEventId} is not null`),
  ],
);

export const inboxEvents = pgTable(
  'inbox_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    channel: text('channel').notNull(),
    /** 'sale' | 'withdrawal'; null when quarantined before a resource could be read. */
    resourceType: text('resource_type'),
    resourceId: bigint('resource_id', { mode: 'number' }),
    notifiedStatus: text('notified_status'),
    /** `sale:{id}:{status}`, `withdrawal:{id}:{status}:{updatedAt}`, or `sha256:{hex}` of the compact JSON (quarantined). */
    eventKey: text('event_key').notNull(),
    /** The body as received; only its first 1 KiB when `body_truncated`. */
    rawBody: bytea('raw_body').notNull(),
    payload: jsonb('payload'),
    bodySha256: text('body_sha256').notNull(),
    /** The body's size as received (null on rows stored before it was recorded). */
    bodyBytes: integer('body_bytes'),
    /**
     * A quarantined webhook past the unauthenticated byte budget: `raw_body` keeps the body's
     * first 1 KiB, `payload` is null; its digest, headers and size are kept (SECURITY.md).
     */
    bodyTruncated: boolean('body_truncated').notNull().default(false),
    headers: jsonb('headers').notNull(),
    sourceAddress: text('source_address'),
    receivedAt: tstz('received_at').notNull().defaultNow(),
    deliveryCount: integer('delivery_count').notNull().default(1),
    lastDeliveredAt: tstz('last_delivered_at').notNull().defaultNow(),
    state: text('state').notNull(),
    outcome: text('outcome'),
    quarantineReason: text('quarantine_reason'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    enqueuedAt: tstz('enqueued_at'),
    processedAt: tstz('processed_at'),
  },
  (t) => [
    check('inbox_events_channel_ck', sql`${t.channel} in ('postback', 'webhook')`),
    check(
      'inbox_events_state_ck',
      sql`${t.state} in ('pending', 'processed', 'quarantined', 'failed')`,
    ),
    index('inbox_events_pending_idx')
      .on(t.enqueuedAt)
      .where(sql`${t.state} = 'pending'`),
    index('inbox_events_resource_idx').on(t.resourceType, t.resourceId),
    index('inbox_events_state_received_idx').on(t.state, t.receivedAt),
  ],
);

/**
 * The durable dedupe decision (docs/gateway.md 6): one row per channel and event key, pointing
 * at the first stored delivery. A new delivery of the key within the window is a duplicate.
 */
export const inboxDedupeKeys = pgTable(
  'inbox_dedupe_keys',
  {
    channel: text('channel').notNull(),
    eventKey: text('event_key').notNull(),
    inboxEventId: bigint('inbox_event_id', { mode: 'number' }).notNull(),
    firstReceivedAt: tstz('first_received_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channel, t.eventKey] })],
);

/** One reconciliation pass (scheduled, `reconcile --all-open`, one record, or a backfill). */
export const reconciliationRuns = pgTable(
  'reconciliation_runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    trigger: text('trigger').notNull(),
    status: text('status').notNull(),
    startedAt: tstz('started_at').notNull().defaultNow(),
    finishedAt: tstz('finished_at'),
    checked: integer('checked').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    /** Records the mirror did not have, first learnt from the gateway by this pass. */
    inserted: integer('inserted').notNull().default(0),
    corrected: integer('corrected').notNull().default(0),
    notFound: integer('not_found').notNull().default(0),
    errors: integer('errors').notNull().default(0),
    error: text('error'),
  },
  (t) => [
    check(
      'reconciliation_runs_status_ck',
      sql`${t.status} in ('running', 'succeeded', 'partial', 'failed')`,
    ),
    index('reconciliation_runs_started_idx').on(t.startedAt),
  ],
);

/**
 * Every difference found between the mirror and the gateway (or between the two channels),
 * with what was done about it. Values are text: money in centavos, statuses as named.
 */
export const reconciliationDiscrepancies = pgTable(
  'reconciliation_discrepancies',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Null for discrepancies found outside a pass (cross-channel, confirmation). */
    runId: bigint('run_id', { mode: 'number' }).references(() => reconciliationRuns.id),
    resourceType: text('resource_type').notNull(),
    resourceId: bigint('resource_id', { mode: 'number' }).notNull(),
    field: text('field').notNull(),
    mirrorValue: text('mirror_value'),
    gatewayValue: text('gateway_value'),
    /** corrected | recorded (left as is) | not_found (the gateway does not know the record) */
    action: text('action').notNull(),
    /** reconcile | cross_channel | confirmation | unconfirmed_webhook (docs/architecture.md) */
    source: text('source').notNull(),
    inboxEventId: bigint('inbox_event_id', { mode: 'number' }),
    detectedAt: tstz('detected_at').notNull().defaultNow(),
  },
  (t) => [
    index('reconciliation_discrepancies_run_idx').on(t.runId),
    index('reconciliation_discrepancies_resource_idx').on(t.resourceType, t.resourceId),
  ],
);

/** Where `paymirror backfill sales` got to, so a stopped backfill resumes. */
export const backfillProgress = pgTable(
  'backfill_progress',
  {
    resourceType: text('resource_type').notNull(),
    fromId: bigint('from_id', { mode: 'number' }).notNull(),
    toId: bigint('to_id', { mode: 'number' }).notNull(),
    nextId: bigint('next_id', { mode: 'number' }).notNull(),
    found: integer('found').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    startedAt: tstz('started_at').notNull().defaultNow(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
    finishedAt: tstz('finished_at'),
  },
  (t) => [primaryKey({ columns: [t.resourceType, t.fromId, t.toId] })],
);

/**
 * Deliveries that failed authentication, kept for diagnosis and `rejected reverify` (the fix
 * after a secret or token was configured wrong). Bounded: the scheduler trims it by age and
 * count, so a flood cannot fill the disk.
 */
export const rejectedDeliveries = pgTable(
  'rejected_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    channel: text('channel').notNull(),
    /** bad_signature | unknown_token | source_not_allowed | wrong_type | foreign_user | invalid_user_id */
    reason: text('reason').notNull(),
    /**
     * The whole body for a sample (REJECTS_SAMPLE_PER_HOUR per source), else its first 1 KiB
     * (`body_truncated`): enough to recognise it, not to re-verify it.
     */
    rawBody: bytea('raw_body'),
    /** sha256 of the whole body, hex; null when no body was read. */
    bodySha256: text('body_sha256'),
    /** The body's size as received. */
    bodyBytes: integer('body_bytes'),
    bodyTruncated: boolean('body_truncated').notNull().default(false),
    /** Headers as received, the signature included: re-verification needs it. */
    headers: jsonb('headers').notNull(),
    /** sha256 of the path token a webhook came with: enough to re-check, not to replay. */
    tokenSha256: text('token_sha256'),
    sourceAddress: text('source_address'),
    receivedAt: tstz('received_at').notNull().defaultNow(),
    /** Set by `rejected reverify` when the delivery now passes and went to the inbox. */
    inboxEventId: bigint('inbox_event_id', { mode: 'number' }),
  },
  (t) => [index('rejected_deliveries_received_idx').on(t.receivedAt)],
);

/**
 * Every cashout paymirror sends, written before the POST: a POST that moves money and gets no
 * clear answer (a time-out, a dropped connection, a 5xx, a 2xx that does not decode) may have
 * paid, and only this row says it was sent. `outcome`: pending (sent, no answer yet), succeeded
 * (withdrawal_id known), rejected (the gateway refused it: nothing paid), unknown (may have
 * paid: check before sending again), not_paid (an operator checked an unknown one: nothing
 * paid). See docs/operating.md, "Cashouts".
 */
export const cashoutAttempts = pgTable(
  'cashout_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    requestedAt: tstz('requested_at').notNull().defaultNow(),
    amountCents: cents('amount_cents').notNull(),
    pixKey: text('pix_key').notNull(),
    /** Null when the request left it to the gateway's default. */
    pixKeyType: text('pix_key_type'),
    outcome: text('outcome').notNull().default('pending'),
    withdrawalId: bigint('withdrawal_id', { mode: 'number' }),
    /** The error class and message, or what the operator recorded. */
    detail: text('detail'),
    /** The gateway's answer as received (keys redacted, bounded), when it was not a success. */
    rawAnswer: text('raw_answer'),
    finishedAt: tstz('finished_at'),
    /** Sent with `--force` while another attempt was unresolved: it does not hold the guard. */
    forced: boolean('forced').notNull().default(false),
  },
  (t) => [
    check(
      'cashout_attempts_outcome',
      sql`${t.outcome} in ('pending', 'succeeded', 'rejected', 'unknown', 'not_paid')`,
    ),
    check('cashout_attempts_amount_positive', sql`${t.amountCents} > 0`),
    index('cashout_attempts_unresolved_idx')
      .on(t.requestedAt)
      .where(sql`${t.outcome} in ('pending', 'unknown')`),
    // The cashout guard: at most one unforced attempt whose outcome nobody knows, across every
    // process (a second insert conflicts rather than racing a check).
    uniqueIndex('cashout_attempts_one_unresolved')
      .on(sql`(true)`)
      .where(sql`${t.outcome} in ('pending', 'unknown') and not ${t.forced}`),
  ],
);

/**
 * Who runs a fleet-wide job now (the reconciliation pass): a lease that expires, renewed while
 * the job runs. A row lock taken in one statement, so it works through a connection pooler in
 * transaction mode, where a session advisory lock would be held by whichever client the
 * pooler's server connection serves next.
 */
export const schedulerLeases = pgTable('scheduler_leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: tstz('expires_at').notNull(),
});

/**
 * The books' journal (docs/finance.md, "The journal"): append-only (a trigger refuses UPDATE and
 * DELETE), written by the mirror writer in the transaction of the state change it follows.
 * Every record's entries sum, per account, to what its current state implies.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    resourceType: text('resource_type').notNull(),
    resourceId: bigint('resource_id', { mode: 'number' }).notNull(),
    /** available | reserved */
    account: text('account').notNull(),
    /** Signed centavos: a credit is positive. */
    amountCents: cents('amount_cents').notNull(),
    /** When the money moved; for an adjustment, the start of the first day open when booked. */
    effectiveAt: tstz('effective_at').notNull(),
    kind: text('kind').notNull(),
    /** postback | webhook | reconcile | api (the change's source) | opening (the migration) */
    source: text('source').notNull(),
    /** A sale's payment method; null for a withdrawal. */
    paymentMethod: text('payment_method'),
    recordedAt: tstz('recorded_at').notNull().defaultNow(),
    /** An adjustment: the record's latest entry on that account when it was booked. */
    correctsEntryId: bigint('corrects_entry_id', { mode: 'number' }).references(
      (): AnyPgColumn => ledgerEntries.id,
    ),
    /** An adjustment: when the money moved, inside a day already closed. */
    originalEffectiveAt: tstz('original_effective_at'),
    /** An adjustment: the kind it would have had in an open day. */
    originalKind: text('original_kind'),
  },
  (t) => [
    check('ledger_entries_resource_type_ck', sql`${t.resourceType} in ('sale', 'withdrawal')`),
    check('ledger_entries_account_ck', sql`${t.account} in ('available', 'reserved')`),
    check('ledger_entries_amount_ck', sql`${t.amountCents} <> 0`),
    index('ledger_entries_resource_idx').on(t.resourceType, t.resourceId, t.account),
    index('ledger_entries_effective_idx').on(t.effectiveAt),
  ],
);

/** Every close and reopen of the books, with the day the books are closed through after it. */
export const ledgerCloses = pgTable(
  'ledger_closes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    action: text('action').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    /** The last closed day after this action; null: none closed. */
    closedThrough: date('closed_through', { mode: 'string' }),
    reason: text('reason'),
    recordedAt: tstz('recorded_at').notNull().defaultNow(),
  },
  (t) => [check('ledger_closes_action_ck', sql`${t.action} in ('close', 'reopen')`)],
);

/** What each closed day held when it was closed: `books check` compares it with now. */
export const ledgerClosedDays = pgTable('ledger_closed_days', {
  day: date('day', { mode: 'string' }).primaryKey(),
  entryCount: integer('entry_count').notNull(),
  amountCents: cents('amount_cents').notNull(),
  digest: text('digest').notNull(),
  closedAt: tstz('closed_at').notNull().defaultNow(),
});
