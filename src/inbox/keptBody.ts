/**
 * How much of a body the inbox keeps of a delivery it cannot trust with its bytes: a rejected
 * delivery (failed authentication), or a quarantined webhook past the unauthenticated byte
 * budget. The digest and size always; the body whole, or only its head.
 */
export type BodyKept = 'whole' | 'head';

/** The head kept of a body not kept whole: enough to recognise it, not to re-verify it. */
export const BODY_HEAD_BYTES = 1024;

export interface KeptBody {
  readonly bytes: Buffer;
  readonly truncated: boolean;
}

export function keptBody(body: Buffer, kept: BodyKept): KeptBody {
  if (kept === 'whole' || body.length <= BODY_HEAD_BYTES) return { bytes: body, truncated: false };
  return { bytes: body.subarray(0, BODY_HEAD_BYTES), truncated: true };
}

/** The bytes a body costs once kept so. */
export function keptBodyBytes(bodyBytes: number, kept: BodyKept): number {
  return kept === 'whole' ? bodyBytes : Math.min(bodyBytes, BODY_HEAD_BYTES);
}
