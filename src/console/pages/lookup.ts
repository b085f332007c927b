import type { PageHandler } from '../pageContext.js';
import { lookupParams, queryOf } from '../params.js';
import { saleHref, withdrawalHref } from './columns.js';

/** The header's "Record" form: a sale or a withdrawal by id, to its page. */
export const lookupPage: PageHandler = async (context) => {
  const parsed = lookupParams.safeParse(queryOf(context.url));
  if (!parsed.success) {
    return {
      kind: 'bad_request',
      problem: 'Give a record type and its id (a whole number).',
      back: '/console',
    };
  }
  const { kind, id } = parsed.data;
  return { kind: 'redirect', to: kind === 'sale' ? saleHref(id) : withdrawalHref(id) };
};
