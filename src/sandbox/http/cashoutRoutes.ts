/**
 * POST /api/public/cashout (docs/gateway.md 4.1, errors 7.1), GET /api/public/cashout/{id} (4.2).
 *
 * Order of checks: keys (401 B) → account restriction (403 A) → body (400 B) → limits
 * (422 MINIMUM_VALUE / MAXIMUM_VALUE) → balance (422 INSUFFICIENT_BALANCE), as its README
 * fixes the last three. The restriction comes first because it does not depend on the body.
 */
import express, { Router } from 'express';
import { z } from 'zod';
import { cashoutRequestSchema, resourceIdSchema } from '../requests.js';
import { withdrawalCreatedForm, withdrawalReadForm } from '../wire/withdrawal.js';
import { sendShapeA, sendShapeB } from './apiErrors.js';
import type { HttpDeps } from './deps.js';
import { authenticatedUserId, injectInternalError, requireApiKeys } from './guards.js';

const RESTRICTION_MESSAGES = {
  API_WITHDRAWAL_DISABLED_GLOBALLY: 'Cashout through the API is disabled for this account',
  TRANSFER_NOT_ALLOWED: 'Transfers are not allowed for this account',
} as const;

export function cashoutRoutes(deps: HttpDeps): Router {
  const router = Router();

  router.post(
    '/api/public/cashout',
    requireApiKeys(deps.account, 'B'),
    injectInternalError(deps.faults),
    (_req, res, next) => {
      const block = deps.runtime.cashoutBlock;
      if (block === null) return next();
      sendShapeA(res, 403, block, RESTRICTION_MESSAGES[block]);
    },
    express.json({ limit: '64kb' }),
    (req, res) => {
      const parsed = cashoutRequestSchema.safeParse(req.body);
      if (!parsed.success)
        return sendShapeB(res, 400, 'Invalid data', z.prettifyError(parsed.error));
      const result = deps.store.requestCashout(authenticatedUserId(res), {
        amountCents: parsed.data.amount,
        pixKey: parsed.data.pixKey,
        pixKeyType: parsed.data.pixKeyType,
      });
      if (result.kind === 'refuse') return sendShapeA(res, 422, result.errorType, result.message);
      res.status(201).json(withdrawalCreatedForm(result.withdrawal));
    },
  );

  router.get(
    '/api/public/cashout/:id',
    requireApiKeys(deps.account, 'C'),
    injectInternalError(deps.faults),
    (req, res) => {
      const id = resourceIdSchema.safeParse(req.params.id);
      if (!id.success)
        return sendShapeB(res, 400, 'Invalid withdrawal id', 'id must be a valid number');
      const withdrawal = deps.store.withdrawals.get(id.data);
      // Another account's withdrawal is answered like an unknown one: its existence is not ours to know.
      if (!withdrawal || withdrawal.ownerUserId !== authenticatedUserId(res)) {
        return sendShapeB(res, 404, 'Withdrawal not found', `no withdrawal with id ${id.data}`);
      }
      res.status(200).json(withdrawalReadForm(withdrawal));
    },
  );

  return router;
}
