/**
 * Control API, settings and introspection: notification targets, faults, account
 * restrictions, a state summary and the delivery log. No API keys (src/sandbox/README.md).
 */
import { Router } from 'express';
import { z } from 'zod';
import { faultsPatchSchema, FaultsError } from '../delivery/faults.js';
import { configPatchSchema, restrictionsPatchSchema } from '../requests.js';
import type { SaleRecord } from '../domain/records.js';
import { sendControlError } from './apiErrors.js';
import { balanceForm, countByStatus } from './controlForms.js';
import type { HttpDeps } from './deps.js';

const deliveriesQuerySchema = z.object({
  channel: z.enum(['webhook', 'postback']).optional(),
  resource: z.enum(['sale', 'withdrawal']).optional(),
  resourceId: z.coerce.number().int().positive().optional(),
});

export function controlSettingsRoutes(deps: HttpDeps): Router {
  const router = Router();
  const { runtime } = deps;

  const configForm = () => ({
    webhookUrl: runtime.webhookUrl,
    postbackSecretConfigured: runtime.postbackSecret.length > 0,
  });
  const restrictionsForm = () => ({
    cashoutBlock: runtime.cashoutBlock,
    salesForbidden: runtime.salesForbidden,
  });

  router.post('/config', (req, res) => {
    const body = configPatchSchema.safeParse(req.body);
    if (!body.success) return sendControlError(res, 400, z.prettifyError(body.error));
    if (body.data.webhookUrl !== undefined) runtime.webhookUrl = body.data.webhookUrl;
    if (body.data.postbackSecret !== undefined) runtime.postbackSecret = body.data.postbackSecret;
    deps.logger.info({ webhookUrl: runtime.webhookUrl }, 'sandbox configuration changed');
    res.status(200).json(configForm());
  });

  router.post('/faults', (req, res) => {
    const body = faultsPatchSchema.safeParse(req.body);
    if (!body.success) return sendControlError(res, 400, z.prettifyError(body.error));
    try {
      const faults = deps.faults.set(body.data);
      deps.logger.info({ faults }, 'sandbox faults changed');
      res.status(200).json(faults);
    } catch (error) {
      if (!(error instanceof FaultsError)) throw error;
      sendControlError(res, 400, error.message);
    }
  });

  router.post('/restrictions', (req, res) => {
    const body = restrictionsPatchSchema.safeParse(req.body);
    if (!body.success) return sendControlError(res, 400, z.prettifyError(body.error));
    if (body.data.cashoutBlock !== undefined) runtime.cashoutBlock = body.data.cashoutBlock;
    if (body.data.salesForbidden !== undefined) runtime.salesForbidden = body.data.salesForbidden;
    res.status(200).json(restrictionsForm());
  });

  router.get('/state', (_req, res) => {
    const ownSales = [...deps.store.sales.values()].filter(
      (sale: SaleRecord) => sale.ownerUserId === deps.account.userId,
    );
    res.status(200).json({
      userId: deps.account.userId,
      foreignUserId: deps.foreignUserId,
      balance: balanceForm(deps.store),
      sales: countByStatus(ownSales),
      withdrawals: countByStatus(deps.store.withdrawals.values()),
      deliveries: { pending: deps.pendingDeliveries(), logged: deps.deliveryLog.list().length },
      config: configForm(),
      faults: deps.faults.current(),
      restrictions: restrictionsForm(),
    });
  });

  router.get('/deliveries', (req, res) => {
    const query = deliveriesQuerySchema.safeParse(req.query);
    if (!query.success) return sendControlError(res, 400, z.prettifyError(query.error));
    const { channel, resource, resourceId } = query.data;
    const deliveries = deps.deliveryLog
      .list()
      .filter(
        (entry) =>
          (channel === undefined || entry.channel === channel) &&
          (resource === undefined || entry.resource === resource) &&
          (resourceId === undefined || entry.resourceId === resourceId),
      );
    res.status(200).json({ deliveries });
  });

  router.delete('/deliveries', (_req, res) => {
    deps.deliveryLog.clear();
    res.status(204).end();
  });

  return router;
}
