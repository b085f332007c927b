/** What became of one delivery at the ingress; the route maps it to HTTP in one switch. */
type RejectReason =
  | 'unsupported_media_type'
  | 'body_too_large'
  | 'bad_signature'
  | 'not_a_json_object'
  | 'unknown_token'
  | 'source_not_allowed'
  | 'wrong_type'
  | 'foreign_user'
  | 'invalid_user_id'
  | 'unreadable_body';

export type IngestOutcome =
  | { readonly kind: 'accepted'; readonly id: number }
  | { readonly kind: 'duplicate'; readonly id: number }
  | { readonly kind: 'quarantined'; readonly id: number }
  /** Postgres was down: the delivery is fsynced in the local spool and will reach the inbox. */
  | { readonly kind: 'spooled' }
  | { readonly kind: 'rejected'; readonly reason: RejectReason; readonly detail?: string }
  /** Too many unauthenticated failures from this source lately: nothing kept or logged. */
  | { readonly kind: 'limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'unavailable' };

export interface HttpAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

export const NOT_FOUND: HttpAnswer = { status: 404, body: { error: 'not found' } };

/** The "HTTP answers" table of docs/receiving.md. */
export function answerFor(outcome: IngestOutcome): HttpAnswer {
  switch (outcome.kind) {
    case 'accepted':
    case 'duplicate':
    case 'quarantined':
      return { status: 200, body: { status: outcome.kind, id: outcome.id } };
    case 'spooled':
      return { status: 200, body: { status: 'accepted', id: null, spooled: true } };
    case 'unavailable':
      return {
        status: 503,
        body: { error: 'cannot store the delivery durably; retry later' },
        headers: { 'retry-after': '5' },
      };
    case 'rejected':
      return rejectionAnswer(outcome.reason, outcome.detail);
    case 'limited':
      return {
        status: 429,
        body: { error: 'too many failed authentications from this address; retry later' },
        // The body may be unread: the connection cannot carry another request.
        headers: { 'retry-after': String(outcome.retryAfterSeconds), connection: 'close' },
      };
  }
}

function rejectionAnswer(reason: RejectReason, detail: string | undefined): HttpAnswer {
  switch (reason) {
    case 'unsupported_media_type':
      return { status: 415, body: { error: 'Content-Type must be application/json' } };
    case 'body_too_large':
      return { status: 413, body: { error: detail ?? 'body over the limit' } };
    case 'bad_signature':
      return { status: 401, body: { error: 'missing or invalid X-Signature' } };
    case 'not_a_json_object':
      return { status: 400, body: { error: 'body must be a JSON object' } };
    case 'unreadable_body':
      return { status: 400, body: { error: detail ?? 'could not read the body' } };
    case 'unknown_token':
      return NOT_FOUND;
    case 'source_not_allowed':
      return { status: 403, body: { error: 'source address not allowed' } };
    case 'wrong_type':
      return { status: 403, body: { error: 'type must be TRANSACTION or WITHDRAWAL' } };
    case 'foreign_user':
      return { status: 403, body: { error: 'userId is not this seller' } };
    case 'invalid_user_id':
      return { status: 400, body: { error: 'userId is required and must be an integer' } };
  }
}
