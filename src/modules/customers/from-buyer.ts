// The customer a `saveCustomer` payment creates takes what the order says of its buyer (`order.buyer`): name, phone
// and billing address, not the email alone. Only what the customer object holds is kept, in its own limits, so the
// merchant can read and update it through the customers API like any other.
import type { OrderInput } from '../sessions/sessions.schemas.js';
import type { CustomerInput } from './customers.service.js';

const ADDRESS_FIELDS = ['streetNumber', 'street', 'line1', 'line2', 'complement', 'city', 'postalCode', 'country', 'label'] as const;
/** The customers API's own phone rule: a buyer's phone that does not meet it is left out rather than stored unreadable. */
const PHONE = /^\+?[0-9 ().-]{3,30}$/;
const LABEL_MAX = 100;

export function customerFromBuyer(order: Pick<OrderInput, 'buyer'>): Pick<CustomerInput, 'name' | 'phone' | 'address'> {
  const buyer = order.buyer;
  if (!buyer) return {};
  const billing = buyer.billingAddress;
  const first = buyer.firstName ?? billing?.firstName;
  const last = buyer.lastName ?? billing?.lastName;
  const name = [first, last].map((s) => s?.trim()).filter(Boolean).join(' ');
  const phone = [buyer.phone, billing?.phone].map((p) => p?.trim()).find((p) => p && PHONE.test(p));
  const address: Record<string, string> = {};
  for (const field of ADDRESS_FIELDS) {
    const value = billing?.[field];
    if (typeof value === 'string' && value.trim() !== '') address[field] = field === 'label' ? value.slice(0, LABEL_MAX) : value;
  }
  return {
    ...(name ? { name } : {}),
    ...(phone ? { phone } : {}),
    ...(Object.keys(address).length > 0 ? { address } : {}),
  };
}
