import type { CustomerRecord } from '../domain/records.js';

export interface CustomerForm {
  readonly name: string;
  readonly email: string;
  readonly document?: string;
  readonly phone?: string;
}

/** Optional customer fields the seller did not give are left out, not invented. */
export function customerForm(customer: CustomerRecord): CustomerForm {
  return {
    name: customer.name,
    email: customer.email,
    ...(customer.document !== null ? { document: customer.document } : {}),
    ...(customer.phone !== null ? { phone: customer.phone } : {}),
  };
}
