// The shapes the application reads from the API. What /api/v1 answers is the OpenAPI document's schemas, through the
// types generated for `@motu/node` (packages/node/src/generated/openapi.ts), so a change of a route's schema reaches
// the pages through the compiler; what only /dashboard/api answers (the user, the team, the audit log, settings, API
// keys made here) is written below, after docs/back-office.md.
import type { components } from '../../../packages/node/src/generated/openapi.js';

type Schemas = components['schemas'];

export type Mode = 'test' | 'live';
export type Role = 'owner' | 'admin' | 'developer' | 'support' | 'analyst';
export const ROLES: Role[] = ['owner', 'admin', 'developer', 'support', 'analyst'];

export interface Me {
  user: { id: string; email: string; role: Role; twoFactorEnabled: boolean };
  /** platform: a marketplace (its Sellers and Onboarding pages); agency: manages clients under mandates. */
  merchant: { id: string; name: string; displayName: string | null; timezone: string; platform: boolean; agency: boolean };
  mode: Mode;
  csrfToken: string;
}

export type StoreRef = Schemas['StoreRef'];

export interface Store extends StoreRef { kind: string; active: boolean }

export type FeeLine = Schemas['FeeLine'];

export type Settlement = Schemas['Settlement'];

/** A payment; the document leaves its `settlement` block open, the pages read it as the events' settlement. */
export type Payment = Omit<Schemas['Payment'], 'settlement'> & { settlement?: Settlement };

export type Refund = Schemas['Refund'];

export type Delivery = Schemas['Delivery'];
export type DeliveryAttempt = Delivery['attempts'][number];

/** An event, with its deliveries where the answer joins them (a payment's timeline). */
export type MotuEvent = Schemas['Event'] & { deliveries?: Delivery[] };

export interface AuditEntry {
  id: string;
  /** keyId: the change was made with an API key made in the back-office, by `user`. */
  actedBy: { userId: string; keyId?: string };
  user: { id: string; email: string } | null;
  action: string;
  objectId: string | null;
  outcome: 'pending' | 'succeeded' | 'failed';
  statusCode: number | null;
  createdAt: string;
}

export interface Timeline {
  payment: Payment;
  attempts: Array<{
    id?: string; at: string; status?: string; outcome?: string; amount?: number; currency?: string; refusalCode: string | null;
    threeDSecure: unknown; card?: { brand: string; last4: string };
  }>;
  refunds: Refund[];
  disputes: Array<{ id: string; status: string; reason?: string | null; amount: number; currency: string; createdAt: string }>;
  events: MotuEvent[];
  audit: AuditEntry[];
}

export interface ApiKey {
  id: string;
  mode: Mode;
  permission: string;
  storeId: string | null;
  last4: string;
  createdAt: string;
  revokedAt: string | null;
  /** Who made it in the back-office (null: the operator, for the integration); its role is the key's ceiling. */
  createdBy: { id: string; email: string } | null;
  role: Role | null;
  secretKey?: string;
}

export type WebhookEndpoint = Schemas['WebhookEndpoint'];

export type TestClock = Schemas['TestClock'];

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  status: 'invited' | 'active';
  twoFactorEnabled: boolean;
  createdAt: string;
  lastSignInAt: string | null;
  /** API keys this member made (or was handed) in the back-office that still work. */
  apiKeys: number;
}

export interface MerchantSettings {
  name: string;
  displayName: string | null;
  primaryColor: string | null;
  accentColor: string | null;
  timezone: string;
  legalName: string | null;
  address: { line1?: string; line2?: string | null; postalCode?: string; city?: string; country?: string } | null;
  registrationNumber: string | null;
  taxId: string | null;
  invoiceFooter: string | null;
  latePaymentTerms: string | null;
  earlyPaymentDiscount: string | null;
  /** The logo on the hosted pages (a path on this server), null: the name's initial. */
  logoUrl: string | null;
}

export type PayoutSchedule = Schemas['PayoutSchedule'];
