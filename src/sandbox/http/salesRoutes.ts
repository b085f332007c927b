/**
 * POST /api/sales (docs/gateway.md 4.4) and GET /api/transactions/{id} (4.3, errors 7.2).
 */
import express, { Router } from 'express';
import { z } from 'zod';
import { resourceIdSchema, saleCreateRequestSchema } from '../requests.js';
import { saleCreatedResponse } from '../wire/saleCreated.js';
import { transactionReadForm } from '../wire/transactionRead.js';
import { sendShapeB, sendShapeC } from './apiErrors.js';
import type { HttpDeps } from './deps.js';
import { authenticatedUserId, injectInternalError, requireApiKeys } from './guards.js';

export function salesRoutes(deps: HttpDeps): Router {
  const router = Router();

  router.post(
    '/api/sales',
    requireApiKeys(deps.account, 'C'),
    injectInternalError(deps.faults),
    (_req, res, next) => {
      if (!deps.runtime.salesForbidden) return next();
      sendShapeC(res, 403, 'FORBIDDEN', 'This account is not allowed to create sales');
    },
    express.json({ limit: '256kb' }),
    async (req, res) => {
      const parsed = saleCreateRequestSchema.safeParse(req.body);
      if (!parsed.success)
        return sendShapeB(res, 400, 'Invalid sale data', z.prettifyError(parsed.error));
      const sale = await deps.store.createSale(authenticatedUserId(res), parsed.data);
      res.status(201).json(saleCreatedResponse(sale));
    },
  );

  router.get(
    '/api/transactions/:id',
    requireApiKeys(deps.account, 'B'),
    injectInternalError(deps.faults),
    (req, res) => {
      const id = resourceIdSchema.safeParse(req.params.id);
      if (!id.success)
        return sendShapeB(res, 400, 'Invalid transaction id', 'id must be a valid number');
      const sale = deps.store.sales.get(id.data);
      if (!sale)
        return sendShapeB(res, 404, 'Transaction not found', `no transaction with id ${id.data}`);
      if (sale.ownerUserId !== authenticatedUserId(res)) {
        return sendShapeB(
          res,
          403,
          'Forbidden',
          'the transaction does not belong to the authenticated account',
        );
      }
      res.status(200).json(transactionReadForm(sale));
    },
  );

  return router;
}
