/**
 * Middleware shared by the public endpoints: API key authentication (docs/gateway.md 5) and the
 * internalError fault.
 */
import type { RequestHandler, Response } from 'express';
import type { FaultInjector } from '../delivery/faults.js';
import { sameSecret } from '../keys.js';
import { sendShapeB, sendShapeC } from './apiErrors.js';
import type { AuthFailureShape } from './apiErrors.js';
import { InvariantError } from '../../lib/invariantError.js';

export interface ApiAccount {
  readonly publicKey: string;
  readonly privateKey: string;
  readonly userId: number;
}

const UNAUTHORIZED_MESSAGE = 'Missing or invalid API keys (X-Api-Public-Key, X-Api-Private-Key)';

export function requireApiKeys(
  account: ApiAccount,
  failureShape: AuthFailureShape,
): RequestHandler {
  return (req, res, next) => {
    const publicKey = req.get('X-Api-Public-Key');
    const privateKey = req.get('X-Api-Private-Key');
    // Both comparisons always run, so timing does not tell which key was wrong.
    const publicMatches = sameSecret(publicKey ?? '', account.publicKey);
    const privateMatches = sameSecret(privateKey ?? '', account.privateKey);
    if (publicKey !== undefined && privateKey !== undefined && publicMatches && privateMatches) {
      res.locals.userId = account.userId;
      return next();
    }
    if (failureShape === 'B') sendShapeB(res, 401, 'Unauthorized', UNAUTHORIZED_MESSAGE);
    else sendShapeC(res, 401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  };
}

export function authenticatedUserId(res: Response): number {
  const userId: unknown = res.locals.userId;
  if (typeof userId !== 'number')
    throw new InvariantError('authenticatedUserId called on an unauthenticated route');
  return userId;
}

/** Every public endpoint documents (or leaves open) a 500; the sandbox answers shape B. */
export function injectInternalError(faults: FaultInjector): RequestHandler {
  return (_req, res, next) => {
    if (!faults.strikes('internalError')) return next();
    sendShapeB(res, 500, 'Internal server error', 'Injected fault: internalError');
  };
}
