/**
 * The three error body shapes of docs/gateway.md 2.4.
 *   A  { message, errorType }                     cashout business errors
 *   B  { message, error }                         400/401/500 on cashout; every transaction read error
 *   C  { success: false, error: { code, message } } authentication errors elsewhere
 */
import type { Response } from 'express';
import type { CashoutErrorType } from '../domain/vocabulary.js';

export type AuthFailureShape = 'B' | 'C';

export function sendShapeA(
  res: Response,
  status: number,
  errorType: CashoutErrorType,
  message: string,
): void {
  res.status(status).json({ message, errorType });
}

export function sendShapeB(res: Response, status: number, message: string, error: string): void {
  res.status(status).json({ message, error });
}

export function sendShapeC(
  res: Response,
  status: number,
  code: 'UNAUTHORIZED' | 'FORBIDDEN',
  message: string,
): void {
  res.status(status).json({ success: false, error: { code, message } });
}

/** Control API errors: not part of the gateway, so a plain { error }. */
export function sendControlError(res: Response, status: number, error: string): void {
  res.status(status).json({ error });
}
