// Who is asking, as the services see it: a merchant's environment, the key that spoke for it and what that key may
// do. The transport builds it (today from a secret key; a back-office user or an agency acting for its client are
// other ways in), and services take it without knowing any HTTP type.
import type { Role } from '../users/users.table.js';
import type { Mode, Permission } from './merchants.table.js';

export interface Principal {
  readonly merchantId: string;
  readonly mode: Mode;
  /** The API key that authenticated the call (the rate limit and idempotency count on it). */
  readonly keyId: string;
  readonly permission: Permission;
  /** The store the key is attached to; it prevails over a body's storeId and narrows what the key sees. */
  readonly storeId: string | null;
  /**
   * Who acts on the merchant's behalf when it is not the merchant itself: an agency managing its client, a platform
   * managing its sellers. The merchant fields above are then the client's; this says whose key spoke (audit, and
   * what that party may do). Absent for the merchant's own keys, the only way in today.
   */
  readonly actingFor?: { readonly kind: 'agency' | 'platform'; readonly id: string };
  /** A back-office user signed in with the session cookie (then `keyId` is the user's id): the audit names them. */
  readonly user?: { readonly id: string; readonly role: Role };
  /**
   * A key made in the back-office: the user who made it (or was handed it), whose role is the key's ceiling (checked
   * on every request as that user's session would be), and whom the audit of the key's changes names.
   */
  readonly madeBy?: { readonly userId: string; readonly role: Role };
}

/**
 * What a query is scoped to: a merchant's environment, narrowed to one store when the caller is bound to one. A
 * principal is one; jobs and pages that act for a merchant without a key build one from the row they work on.
 */
export type Owner = Pick<Principal, 'merchantId' | 'mode'> & { readonly storeId?: string | null };
