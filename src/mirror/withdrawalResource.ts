import {
  sameWithdrawalMoney,
  withdrawalFeeMismatches,
  type WithdrawalMoney,
} from '../domain/withdrawalFees.js';
import type { WithdrawalInsert, WithdrawalRow } from '../db/rows.js';
import {
  decideGatewayRead,
  isOlderThan,
  NEWER_READ_WRITTEN,
  WITHDRAWAL_MACHINE,
} from '../domain/observationOrder.js';
import {
  decideWithdrawal,
  sameWithdrawalOutcome,
  type WithdrawalStatus,
} from '../domain/withdrawalMachine.js';
import type { GatewayWithdrawal } from '../gateway/types.js';
import type { WithdrawalNotice } from '../notifications/notification.js';
import type { Change } from './mirrorRows.js';
import type { Resource } from './resource.js';

/**
 * A withdrawal, for the planner. Withdrawals are notified by webhook only, each with the
 * gateway's `updatedAt`: an older notification or read is stale. Only a webhook carries
 * `externalId` and `processedAt`; a confirmed one no older than the mirror corrects them.
 */
export const WITHDRAWAL: Resource<WithdrawalRow, WithdrawalNotice, GatewayWithdrawal> = {
  name: 'withdrawal',

  decideNotice: (current, notice) =>
    decideWithdrawal(
      current
        ? { status: current.status as WithdrawalStatus, gatewayUpdatedAt: current.gatewayUpdatedAt }
        : null,
      { status: notice.status, updatedAt: notice.updatedAt },
    ),
  decideRead: (current, read, readAt) =>
    current && read.updatedAt && isOlderThan(read.updatedAt, current.gatewayUpdatedAt)
      ? { kind: 'stale', reason: NEWER_READ_WRITTEN }
      : decideGatewayRead(
          current
            ? {
                status: current.status as WithdrawalStatus,
                statusObservedAt: current.statusObservedAt,
                gatewayReadAt: current.gatewayReadAt,
                statusSetBy: current.statusSetBy,
              }
            : null,
          { status: read.status, readAt },
          WITHDRAWAL_MACHINE,
        ),
  sameStatus: (a, b) => sameWithdrawalOutcome(a as WithdrawalStatus, b as WithdrawalStatus),

  noticeValues: (notice): Change<WithdrawalInsert> => ({
    id: notice.id,
    status: notice.status,
    amountCents: notice.amountCents,
    pixKey: notice.pixKey,
    pixKeyType: notice.pixKeyType,
    externalId: notice.externalId,
    createdAt: notice.createdAt,
    gatewayUpdatedAt: notice.updatedAt,
    processedAt: notice.processedAt,
  }),
  sameStatusValues: (current, notice): Change<WithdrawalInsert> => {
    const known = current.gatewayUpdatedAt;
    // Stryker disable next-line ConditionalExpression: a Date after 1970 is > null (0) as well
    return known === null || notice.updatedAt > known ? { gatewayUpdatedAt: notice.updatedAt } : {};
  },
  moveValues: (notice): Change<WithdrawalInsert> => ({ gatewayUpdatedAt: notice.updatedAt }),
  webhookOnly: (notice): Change<WithdrawalInsert> => ({
    externalId: notice.externalId,
    processedAt: notice.processedAt,
  }),
  webhookClaims: (notice): Change<WithdrawalInsert> => ({ amountCents: notice.amountCents }),
  webhookCorrects: (current, notice) => !isOlderThan(notice.updatedAt, current.gatewayUpdatedAt),
  claims: (notice): Change<WithdrawalInsert> => ({
    status: notice.status,
    amountCents: notice.amountCents,
    externalId: notice.externalId,
    processedAt: notice.processedAt,
  }),
  noticeItems: () => [],

  readValues: (read): WithdrawalInsert => ({
    id: read.id,
    status: read.status,
    amountCents: read.amountCents,
    netAmountCents: read.netAmountCents,
    feeFixedCents: read.feeFixedCents,
    feeVariableCents: read.feeVariableCents,
    feeTotalCents: read.feeTotalCents,
    pixKey: read.pixKey,
    pixKeyType: read.pixKeyType,
    createdAt: read.createdAt,
    gatewayUpdatedAt: read.updatedAt,
  }),
  readClears: () => [],
  readItems: () => [],
  readInconsistencies: (read, current) =>
    current && sameWithdrawalMoney(read, storedMoney(current))
      ? []
      : withdrawalFeeMismatches(read).map((mismatch) => ({
          field: mismatch.field,
          mirrorValue: String(mismatch.implied),
          gatewayValue: String(mismatch.stated),
        })),

  watchedNotice: (notice, now) => ({
    resource: 'withdrawal',
    status: notice.status,
    createdAt: notice.createdAt ?? now,
  }),
  watchedRead: (read) => ({
    resource: 'withdrawal',
    status: read.status,
    createdAt: read.createdAt,
  }),
};

/** The row's money as stored; a field still null never equals a read's. */
function storedMoney(row: WithdrawalRow): WithdrawalMoney {
  return {
    amountCents: row.amountCents,
    netAmountCents: row.netAmountCents ?? Number.NaN,
    feeFixedCents: row.feeFixedCents ?? Number.NaN,
    feeVariableCents: row.feeVariableCents ?? Number.NaN,
    feeTotalCents: row.feeTotalCents ?? Number.NaN,
  };
}
