import type { FieldDifference } from './compareFields.js';
import type { SaleItemInsert } from '../db/rows.js';
import type { ReadDecision } from '../domain/observationOrder.js';
import type { WatchedRecord } from '../domain/reconcileSchedule.js';
import type { SaleDecision } from '../domain/saleMachine.js';
import type { WithdrawalDecision } from '../domain/withdrawalMachine.js';
import type { Notice } from '../notifications/notification.js';

/** What the planner reads of any mirror record. */
export interface MirrorRecord {
  readonly id: number;
  readonly status: string;
  /** When the current status was observed; null for rows older than observation times. */
  readonly statusObservedAt: Date | null;
  /** When the gateway answer last written to the row was requested. */
  readonly gatewayReadAt: Date | null;
  /** What set the current status (see StatusSetBy); null when unknown. */
  readonly statusSetBy: string | null;
  /** Reads in a row that contradicted an authentic final status. */
  readonly disagreeingReads: number;
  readonly flaggedAt: Date | null;
  /** When the gateway denied the record (twice), and its first denying read. */
  readonly deniedAt: Date | null;
  readonly denialReadAt: Date | null;
}

/** Fields of a record by their TypeScript names; TX_NOW for the database's now(). */
export type Fields = Readonly<Record<string, unknown>>;

/** What a record's state machine says of a notified status. */
type NoticeDecision = SaleDecision | WithdrawalDecision;

/**
 * One kind of mirror record (a sale, a withdrawal) as data for the one planner: its state
 * machine, what its notices and the gateway's reads of it say, what only a webhook carries, and
 * when the reconciler looks at it next. Value functions return fields of the record's table.
 */
export interface Resource<
  Row extends MirrorRecord,
  N extends Notice,
  Read extends { readonly id: number; readonly status: string },
> {
  readonly name: 'sale' | 'withdrawal';

  /** The machine's decision on a notified status, given the mirror's row (null: none yet). */
  decideNotice(current: Row | null, notice: N): NoticeDecision;
  /** What a gateway answer requested at `readAt` does (see decideGatewayRead). */
  decideRead(current: Row | undefined, read: Read, readAt: Date): ReadDecision<string>;
  /** Two names of one status (a withdrawal's REJECTED and FAILED). */
  sameStatus(a: string, b: string): boolean;

  /** Every field a notice gives. */
  noticeValues(notice: N): Fields;
  /** What a notice of the status the mirror holds writes besides filling what was missing. */
  sameStatusValues(current: Row, notice: N): Fields;
  /** What a notice that moves the record writes besides its status and schedule. */
  moveValues(notice: N): Fields;
  /** The fields only a webhook carries: the gateway's read lacks them. */
  webhookOnly(notice: N): Fields;
  /**
   * What a confirmed webhook claims that the read also gives (amounts, a sale's fee): compared
   * with what the read wrote, never written; a difference is a discrepancy.
   */
  webhookClaims(notice: N): Fields;
  /** Whether a confirmed webhook's own fields correct the mirror's (else they only fill). */
  webhookCorrects(current: Row, notice: N): boolean;
  /** What a webhook claims, compared with the mirror when the gateway contradicts it. */
  claims(notice: N): Fields;
  noticeItems(notice: N): SaleItemInsert[];

  /** Every field the gateway's read gives. */
  readValues(read: Read): Fields;
  /**
   * Fields a read empties when it leaves them null or absent: those the record's state rules
   * out (a sale's reserve outside MED and CHARGEBACK). Any other absent field is kept.
   */
  readClears(read: Read): readonly string[];
  readItems(read: Read): SaleItemInsert[];

  /** The record as its reconcile schedule sees it, from a notice or from a read. */
  watchedNotice(notice: N, now: Date): WatchedRecord;
  watchedRead(read: Read, current: Row | undefined): WatchedRecord;
  /** Values of a read that contradict each other, checked when they are newly stored. */
  readInconsistencies?(read: Read, current: Row | undefined): FieldDifference[];
}
