// A payment's story for the back-office's detail page, from the services that own each part: the payment, its
// authorization attempts as the acquirer recorded them (refusal codes, 3-D Secure challenges), its refunds and
// disputes, every event with its delivery attempts, and what the team did to it (the audit log).
import type { AuditService } from '../audit/audit.service.js';
import type { DisputesService } from '../disputes/disputes.service.js';
import type { Owner } from '../merchants/principal.js';
import type { PaymentsService } from '../payments/payments.service.js';
import type { RefundsService } from '../refunds/refunds.service.js';
import type { EventsService } from '../webhooks/events.service.js';

/** Events shown on one payment's page: its story is never this long, and older ones stay in the event log. */
const TIMELINE_EVENTS = 100;

export class TimelineService {
  constructor(
    private readonly deps: {
      payments: PaymentsService; refunds: RefundsService; disputes: DisputesService; events: EventsService;
      audit: AuditService;
    },
  ) {}

  async of(owner: Owner, paymentId: string) {
    const { payments, refunds, disputes, events, audit } = this.deps;
    // The payment's detail lists its attempts already: read once, shown with more of each here.
    const { payment, authorizations: attempts } = await payments.detail(owner, paymentId);
    const [refundList, disputeList, eventList, auditEntries] = await Promise.all([
      refunds.listRefunds(owner, paymentId),
      disputes.list(owner, { paymentId, limit: 100 }),
      events.list(owner, { paymentId, limit: TIMELINE_EVENTS }),
      audit.ofObject(owner, paymentId),
    ]);
    const withDeliveries = await Promise.all(eventList.data.map(async (event) => ({
      ...event, deliveries: (await events.deliveries(owner, event.id)).data,
    })));
    return {
      payment,
      attempts: attempts.map((a) => ({
        id: a.id, at: a.createdAt, status: a.status, amount: a.amount, currency: a.currency, refusalCode: a.refusalCode,
        threeDSecure: a.threeDSecure ?? null, card: { brand: a.card.brand, last4: a.card.last4 },
      })),
      refunds: refundList.data,
      disputes: disputeList.data,
      events: withDeliveries.reverse(),
      audit: auditEntries,
    };
  }
}
