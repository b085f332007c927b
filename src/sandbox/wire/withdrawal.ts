/**
 * Withdrawal wire forms: the cashout answer (docs/gateway.md 2.1, without updatedAt), the read form
 * (with updatedAt, REJECTED shown as FAILED) and the webhook (6.5). Amounts are
 * decimal strings of reais.
 */
import { reaisStringFromCents } from '../../domain/money.js';
import type { PixKeyType, WithdrawalStatus } from '../domain/vocabulary.js';
import type { WithdrawalRecord } from '../domain/records.js';

type WithdrawalReadStatus = Exclude<WithdrawalStatus, 'REJECTED'> | 'FAILED';

export interface WithdrawalCreatedForm {
  readonly id: number;
  readonly amount: string;
  readonly netAmount: string;
  readonly pixKey: string;
  readonly pixKeyType: PixKeyType;
  readonly status: WithdrawalReadStatus;
  readonly createdAt: string;
  readonly fees: { readonly fixed: string; readonly variable: string; readonly total: string };
}

export interface WithdrawalReadForm extends Omit<WithdrawalCreatedForm, 'fees'> {
  readonly updatedAt: string;
  readonly fees: WithdrawalCreatedForm['fees'];
}

export interface WithdrawalNotification {
  readonly id: number;
  readonly userId: number;
  readonly amount: string;
  readonly pixKey: string | null;
  readonly pixKeyType: PixKeyType | null;
  readonly status: WithdrawalStatus;
  readonly externalId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly processedAt: string | null;
  readonly user: { readonly id: number; readonly name: string; readonly email: string };
  readonly type: 'WITHDRAWAL';
}

function withdrawalReadStatus(status: WithdrawalStatus): WithdrawalReadStatus {
  return status === 'REJECTED' ? 'FAILED' : status;
}

function fees(withdrawal: WithdrawalRecord): WithdrawalCreatedForm['fees'] {
  return {
    fixed: reaisStringFromCents(withdrawal.feeFixedCents),
    variable: reaisStringFromCents(withdrawal.feeVariableCents),
    total: reaisStringFromCents(withdrawal.feeTotalCents),
  };
}

export function withdrawalCreatedForm(withdrawal: WithdrawalRecord): WithdrawalCreatedForm {
  return {
    id: withdrawal.id,
    amount: reaisStringFromCents(withdrawal.amountCents),
    netAmount: reaisStringFromCents(withdrawal.netAmountCents),
    pixKey: withdrawal.pixKey,
    pixKeyType: withdrawal.pixKeyType,
    status: withdrawalReadStatus(withdrawal.status),
    createdAt: withdrawal.createdAt.toISOString(),
    fees: fees(withdrawal),
  };
}

export function withdrawalReadForm(withdrawal: WithdrawalRecord): WithdrawalReadForm {
  const { fees: feeBreakdown, ...created } = withdrawalCreatedForm(withdrawal);
  return { ...created, updatedAt: withdrawal.updatedAt.toISOString(), fees: feeBreakdown };
}

export function withdrawalNotification(
  withdrawal: WithdrawalRecord,
  user: { readonly name: string; readonly email: string },
): WithdrawalNotification {
  return {
    id: withdrawal.id,
    userId: withdrawal.ownerUserId,
    amount: reaisStringFromCents(withdrawal.amountCents),
    pixKey: withdrawal.pixKey,
    pixKeyType: withdrawal.pixKeyType,
    status: withdrawal.status,
    externalId: withdrawal.externalId,
    createdAt: withdrawal.createdAt.toISOString(),
    updatedAt: withdrawal.updatedAt.toISOString(),
    processedAt: withdrawal.processedAt?.toISOString() ?? null,
    user: { id: withdrawal.ownerUserId, name: user.name, email: user.email },
    type: 'WITHDRAWAL',
  };
}
