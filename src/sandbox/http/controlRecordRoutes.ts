/**
 * Control API, records: move sales and withdrawals through their machines, create a sale
 * owned by another account, set the balance. No API keys (src/sandbox/README.md).
 */
import { Router } from 'express';
import type { Response } from 'express';
import { z } from 'zod';
import {
  balanceSetSchema,
  foreignSaleRequestSchema,
  resourceIdSchema,
  saleStatusMoveSchema,
  withdrawalStatusMoveSchema,
} from '../requests.js';
import type { MoveResult } from '../store.js';
import { transactionReadForm } from '../wire/transactionRead.js';
import { withdrawalReadForm } from '../wire/withdrawal.js';
import { sendControlError } from './apiErrors.js';
import type { HttpDeps } from './deps.js';
import { balanceForm } from './controlForms.js';

function answerMove<T, S>(
  res: Response,
  kind: string,
  id: number,
  result: MoveResult<T, S>,
  to: S,
  form: (record: T) => object,
): void {
  switch (result.kind) {
    case 'not_found':
      return sendControlError(res, 404, `no ${kind} with id ${id}`);
    case 'illegal':
      return sendControlError(res, 409, result.reason);
    case 'moved':
      res.status(200).json({ id, from: result.from, to, [kind]: form(result.record) });
  }
}

export function controlRecordRoutes(deps: HttpDeps): Router {
  const router = Router();

  router.post('/sales/:id/status', (req, res) => {
    const id = resourceIdSchema.safeParse(req.params.id);
    if (!id.success) return sendControlError(res, 400, 'id must be a positive integer');
    const body = saleStatusMoveSchema.safeParse(req.body);
    if (!body.success) return sendControlError(res, 400, z.prettifyError(body.error));
    const result = deps.store.moveSale(id.data, body.data.status);
    if (result.kind === 'moved') {
      deps.logger.info({ saleId: id.data, from: result.from, to: body.data.status }, 'sale moved');
    }
    answerMove(res, 'transaction', id.data, result, body.data.status, transactionReadForm);
  });

  router.post('/withdrawals/:id/status', (req, res) => {
    const id = resourceIdSchema.safeParse(req.params.id);
    if (!id.success) return sendControlError(res, 400, 'id must be a positive integer');
    const body = withdrawalStatusMoveSchema.safeParse(req.body);
    if (!body.success) return sendControlError(res, 400, z.prettifyError(body.error));
    const result = deps.store.moveWithdrawal(id.data, body.data.status);
    if (result.kind === 'moved') {
      deps.logger.info(
        { withdrawalId: id.data, from: result.from, to: body.data.status },
        'withdrawal moved',
      );
    }
    answerMove(res, 'withdrawal', id.data, result, body.data.status, withdrawalReadForm);
  });

  router.post('/foreign-sales', async (req, res) => {
    const body = foreignSaleRequestSchema.safeParse(req.body ?? {});
    if (!body.success) return sendControlError(res, 400, z.prettifyError(body.error));
    const sale = await deps.store.createSale(deps.foreignUserId, {
      amount: body.data.amount,
      paymentMethod: body.data.paymentMethod,
      customer: { name: 'Foreign Customer', email: 'customer@foreign.invalid' },
      items: [{ title: 'Foreign item', unitPrice: body.data.amount, quantity: 1, tangible: false }],
    });
    res.status(201).json({ id: sale.id, ownerUserId: sale.ownerUserId });
  });

  router.post('/balance', (req, res) => {
    const body = balanceSetSchema.safeParse(req.body);
    if (!body.success) {
      return sendControlError(
        res,
        400,
        'expected {"availableCents": <integer>} or {"available": "<reais>"}',
      );
    }
    deps.store.setAvailableCents(body.data.availableCents);
    res.status(200).json(balanceForm(deps.store));
  });

  return router;
}
