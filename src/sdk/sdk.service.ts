// What the browser component (motu.js) may do with a session id, its only credential: read the session it
// mounts on, submit a card token, and finish a 3-D Secure challenge. A completed or expired session is refused.
// Payment sessions go through the hosted checkout's use cases; wallet sessions through card registration.
import type { CheckoutService } from '../modules/checkout/checkout.service.js';
import type { PaymentRow } from '../modules/payments/payments.table.js';
import { isPaid } from '../modules/payments/payment-status.js';
import type { WalletSessionsService } from '../modules/wallet/wallet-sessions.service.js';
import { AppError } from '../shared/errors.js';
import { displayName, themeOf, type Branded } from '../modules/merchants/branding.js';

export type Defi3ds = 'embarque' | 'redirection';

export interface SdkSessionInfo {
  id: string;
  intent: 'payment' | 'tokenization';
  /** Amount to pay in the currency's minor unit (payment intent), else null. */
  amount: number | null;
  currency: string | null;
  mode: 'test' | 'live';
  locale: string;
  merchantName: string;
  expiresAt: string;
  /** The merchant's colours, the component's default theme (the page's `appearance` wins); null: Motu's default. */
  theme: { colorPrimary: string; colorOnPrimary: string } | null;
}

/** The component's next step after a submission. */
export type SdkResult =
  | { status: 'succeeded'; redirectUrl: string | null; paymentId?: string; paymentMethodId?: string | null; cardNetwork?: string | null }
  | { status: 'challenge'; challengeUrl: string }
  | { status: 'failed' | 'error'; code: string; message: string; redirectUrl?: string | null };


export class SdkService {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly wallet: WalletSessionsService,
    private readonly publicUrl: string,
  ) {}

  async session(sessionId: string): Promise<SdkSessionInfo> {
    const paid = await this.checkout.load(sessionId);
    if (paid && 'inactive' in paid) throw paid.state === 'exhausted' ? this.checkout.tooManyAttempts() : inactive();
    if (paid) {
      const { session, payment, merchant } = paid;
      return {
        id: session.id, intent: 'payment', amount: payment.amount, currency: payment.currency, mode: session.mode,
        locale: session.language_code, merchantName: displayName(merchant), expiresAt: session.expires_at, theme: sdkTheme(merchant),
      };
    }
    const open = await this.wallet.loadOpen(sessionId);
    if (open === 'inactive') throw inactive();
    if (!open) throw new AppError('NOT_FOUND', 'Unknown session');
    return {
      id: open.session.id, intent: 'tokenization', amount: null, currency: null, mode: open.session.mode,
      locale: open.session.language_code, merchantName: open.merchantName, expiresAt: open.session.expires_at, theme: sdkTheme(open.merchant),
    };
  }

  async submit(sessionId: string, token: string, defi3ds: Defi3ds, email?: string): Promise<SdkResult> {
    const info = await this.session(sessionId);
    if (info.intent === 'tokenization') {
      const r = await this.wallet.register(sessionId, token);
      if (r.outcome === 'success') return { status: 'succeeded', redirectUrl: r.redirectUrl, paymentMethodId: r.paymentMethodId };
      // Without redirectUrl (a card link with attempts left) the component shows the message and takes another card.
      return { status: r.outcome, code: r.code ?? 'ERROR', message: r.message ?? 'The card could not be registered', ...(r.redirectUrl ? { redirectUrl: r.redirectUrl } : {}) };
    }
    const threeDSReturnUrl = `${this.publicUrl}/api/v1/sdk/sessions/${encodeURIComponent(sessionId)}/3ds-return?defi3ds=${defi3ds}`;
    const next = await this.checkout.pay(sessionId, { token, threeDSReturnUrl, ...(email ? { email } : {}) });
    if (next.next === 'challenge') return { status: 'challenge', challengeUrl: next.url };
    if (next.next === 'error') return { status: 'error', code: next.code, message: next.message };
    return this.outcome(sessionId);
  }

  /** The bank page sent the customer back (into the component's frame, or the whole window in redirection mode). */
  async completeChallenge(sessionId: string, authorizationId: string): Promise<{ result: SdkResult; fallbackUrl: string }> {
    await this.checkout.completeChallenge(sessionId, authorizationId);
    const result = await this.outcome(sessionId);
    const ctx = await this.checkout.loadAny(sessionId);
    const fallbackUrl = ctx ? this.checkout.failureTarget(ctx.session, ctx.payment) : '/expired';
    return { result, fallbackUrl };
  }

  private async outcome(sessionId: string): Promise<SdkResult> {
    const ctx = await this.checkout.loadAny(sessionId);
    if (!ctx) throw new AppError('NOT_FOUND', 'Unknown session');
    const { session, payment } = ctx;
    if (isPaid(payment.status)) {
      return { status: 'succeeded', redirectUrl: `${this.publicUrl}${this.checkout.successTarget(session)}`, paymentId: payment.id, cardNetwork: payment.card_network };
    }
    if (payment.status === 'failed') {
      return { status: 'failed', code: 'PAIEMENT_REFUSE', message: payment.refusal_message ?? 'The card was refused' };
    }
    return { status: 'error', code: 'SESSION_EXPIRED', message: 'This session is no longer active' };
  }
}

function inactive(): AppError {
  return new AppError('SESSION_EXPIRED', 'This session is completed or expired; create a new one');
}

function sdkTheme(merchant: Branded): SdkSessionInfo['theme'] {
  const theme = themeOf(merchant);
  return theme ? { colorPrimary: theme.primary, colorOnPrimary: theme.onPrimary } : null;
}
