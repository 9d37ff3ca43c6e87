// The shapes the application reads from the API (docs/back-office.md and the /api/v1 routes' schemas). Only the
// fields the pages use are named; the server may send more.

export type Mode = 'test' | 'live';
export type Role = 'owner' | 'admin' | 'developer' | 'support' | 'analyst';
export const ROLES: Role[] = ['owner', 'admin', 'developer', 'support', 'analyst'];

export interface Me {
  user: { id: string; email: string; role: Role; twoFactorEnabled: boolean };
  merchant: { id: string; name: string; displayName: string | null; timezone: string };
  mode: Mode;
  csrfToken: string;
}

export interface StoreRef { id: string; code: string; name: string }

export interface Store extends StoreRef { kind: string; active: boolean }

export interface FeeLine { id: string; label: string; totalAmount: number; totalAmountEur: number }

export interface Settlement {
  capturedAmount: number;
  mobupayCommission: number;
  netAmount: number;
  currency: string;
  settled: boolean;
  detailedFees: FeeLine[];
}

export interface Payment {
  id: string;
  status: string;
  reference: string;
  orderReference: string | null;
  amount: number;
  currency: string;
  amountCents: number;
  captureMode: string;
  store: StoreRef | null;
  customerId: string | null;
  email: string | null;
  refusalCode: string | null;
  refusalMessage: string | null;
  authorizedAmount: number;
  capturedAmount: number;
  refundedAmount: number;
  disputedAmount: number;
  cardBrand: string | null;
  cardLast4: string | null;
  createdAt: string;
  authorizedAt?: string | null;
  capturedAt?: string | null;
  settledAt?: string | null;
  settlement?: Settlement;
}

export interface Refund {
  id: string;
  status: string;
  amount: number;
  currency: string;
  reason: string | null;
  failureReason: string | null;
  createdAt: string;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  succeeded: boolean;
  error: string | null;
}

export interface Delivery {
  id: string;
  eventId: string;
  target: { type: string; endpointId: string | null; url: string };
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  attempts: DeliveryAttempt[];
}

export interface MotuEvent {
  id: string;
  type: string;
  createdAt: string;
  paymentId?: string | null;
  deliveries?: Delivery[];
}

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

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  /** The store whose key registered it (its payment events only); null: every store's. */
  storeId: string | null;
  createdAt: string;
}

export interface TestClock {
  id: string;
  name: string | null;
  frozenTime: string;
  status: 'ready' | 'advancing';
  advancingTo: string | null;
  createdAt: string;
}

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

export interface PayoutSchedule {
  interval: 'daily' | 'weekly' | 'monthly' | 'manual';
  weeklyAnchor: string;
  monthlyAnchor: number;
  delayDays: number;
  nextRunOn: string | null;
}
