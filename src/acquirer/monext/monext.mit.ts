// Merchant-initiated charges: a saved card (kept in a Monext wallet by a customer-present registration or payment)
// charged by the merchant, POST /v1/checkout/payments. A subscription's due date is RECURRING, any other charge
// UNSCHEDULED, each with the stored credential's first transaction (the issuer's transaction id of the registration):
// sent as ONE_OFF, an issuer may ask for a 3-D Secure nobody is there to pass. Monext offers no idempotency key: the
// charge's row is written before the call, and a call whose answer was lost is never sent again (no double charge).
import type { Updateable } from 'kysely';
import { iso } from '../../shared/clock.js';
import type { AuthorizationOutcome, AuthorizeInput } from '../acquirer.js';
import { REFUSAL_MESSAGES } from '../acquirer.js';
import { MonextUnavailable, resultOf } from './monext.client.js';
import { refusalOf, USED_ORDER } from './monext.codes.js';
import { genId, type MonextContext } from './monext.context.js';
import { getAuthorization } from './monext.money.js';
import { outcomeOfView, parseCardRef, rejectedError } from './monext.outcomes.js';
import type { MonextAuthorizationsTable } from './monext.table.js';

/** What Monext is asked: the wallet's card, the kind of merchant-initiated charge, and the link to its first transaction. */
export function chargeBody(ctx: MonextContext, input: AuthorizeInput, saved: NonNullable<ReturnType<typeof parseCardRef>>) {
  return {
    pointOfSaleReference: ctx.credentials.pointOfSaleReference,
    paymentMethodId: ctx.credentials.contractNumber,
    order: { reference: input.merchantReference, amount: input.amount, currency: input.currency, origin: 'E_COM' },
    payment: {
      paymentType: input.initiated === 'recurring' ? 'RECURRING' : 'UNSCHEDULED', capture: input.capture ? 'AUTOMATIC' : 'MANUAL',
      ...(input.statementLabel ? { softDescriptor: input.statementLabel } : {}),
    },
    ...(saved.issuerTransactionId ? { issuerTransactionId: saved.issuerTransactionId } : {}),
    paymentInstrument: { walletId: saved.walletId, cardIndex: 1 },
    privateData: { motuReference: input.reference ?? input.merchantReference },
  };
}

export async function authorizeDirect(ctx: MonextContext, input: AuthorizeInput, cardRef: string): Promise<AuthorizationOutcome> {
  const saved = parseCardRef(cardRef);
  if (!saved || saved.contractId !== ctx.contractId) return { status: 'error', code: 'UNKNOWN_CARD', message: 'The saved card is not kept at Monext for this contract' };
  const reference = input.reference ?? genId('mxr');
  const now = ctx.clock.now();
  const intent = {
    id: genId('mxa'), contract_id: ctx.contractId, mode: input.mode, merchant_reference: input.merchantReference, reference,
    kind: 'direct' as const, amount: input.amount, currency: input.currency, transaction_id: null, state: 'sending',
    created_at: iso(now), updated_at: iso(now),
  };
  try {
    await ctx.db.singleWrite((db) => db.insertInto('monext_authorizations').values(intent).execute());
  } catch (err) {
    if (!ctx.db.isUniqueViolation(err)) throw err;
    const earlier = await ctx.db.kysely.selectFrom('monext_authorizations').selectAll()
      .where('contract_id', '=', ctx.contractId).where('reference', '=', reference).executeTakeFirstOrThrow();
    if (earlier.transaction_id) {
      const view = await getAuthorization(ctx, `${ctx.contractId}.${earlier.transaction_id}`);
      if (view) return outcomeOfView(view);
    }
    // The first call may still be on its way: nothing is final until it is surely over (past the timeout).
    if (earlier.state === 'sending' && now.getTime() - Date.parse(earlier.updated_at) < ctx.clientOptions.timeoutMs + 1000) {
      throw new MonextUnavailable('an earlier call under the same reference is still on its way');
    }
    // Its answer was lost. Monext's API finds a transaction by its id only, never by order reference, so the call is
    // never sent again: that could charge the card twice. Not an attempt Motu can see; the operator reconciles it
    // in Monext's back office (docs/live.md, "A lost answer of a merchant-initiated charge").
    await ctx.db.singleWrite((db) => db.updateTable('monext_authorizations').set({ state: 'unknown', updated_at: iso(now) })
      .where('id', '=', earlier.id).where('transaction_id', 'is', null).execute());
    return {
      status: 'error', code: 'INVALID_TOKEN',
      message: `Monext's answer to the charge under ${reference} was lost; it is not sent again (no double charge): check Monext's back office for order ${input.merchantReference}`,
    };
  }
  const body = chargeBody(ctx, input, saved);
  const answer = await ctx.client.call('POST', '/v1/checkout/payments', body);
  const at = iso(ctx.clock.now());
  const mine = (set: Updateable<MonextAuthorizationsTable>) => ctx.db.singleWrite((db) => db.updateTable('monext_authorizations').set({ ...set, updated_at: at })
    .where('contract_id', '=', ctx.contractId).where('reference', '=', reference).execute());
  // 01185 "used order", as a 4xx or inside a 200: Monext holds a transaction under this order that Motu cannot see.
  if ((answer.kind === 'rejected' ? answer.code : resultOf(answer.body)?.code) === USED_ORDER) {
    await mine({ state: 'unknown' });
    return { status: 'error', code: 'INVALID_TOKEN', message: `Monext already holds a transaction for order ${input.merchantReference} (01185)` };
  }
  if (answer.kind === 'rejected') {
    await mine({ state: 'refused' });
    if (answer.status === 401 || answer.status === 403) throw rejectedError(answer);
    return {
      status: 'refused', authorizationId: `${ctx.contractId}.rejected.${reference}`, card: saved.card, refusalCode: 'processing_error',
      refusalMessage: REFUSAL_MESSAGES.processing_error,
    };
  }
  const result = resultOf(answer.body);
  const transaction = answer.body.transaction as Record<string, unknown> | undefined;
  const transactionId = typeof transaction?.id === 'string' && transaction.id !== '' ? transaction.id : null;
  if (!result || !transactionId) throw new MonextUnavailable('a payment answer without its result or transaction');
  const accepted = result.title === 'ACCEPTED';
  const refused = result.title === 'REFUSED' || result.title === 'ERROR';
  const code = refused ? refusalOf(result.code, result.title) : null;
  // A status this connector does not know is not final: the transaction is kept, its outcome read back later.
  await mine({
    transaction_id: transactionId, state: accepted ? 'answered' : 'refused', card: accepted || refused ? JSON.stringify(saved.card) : null,
    refusal_code: code, ...(accepted && input.capture ? { captured_amount: input.amount, captured_at: at } : {}),
  });
  const authorizationId = `${ctx.contractId}.${transactionId}`;
  if (accepted) return { status: 'authorized', authorizationId, card: saved.card, captured: Boolean(input.capture) };
  if (code) return { status: 'refused', authorizationId, card: saved.card, refusalCode: code, refusalMessage: REFUSAL_MESSAGES[code] };
  throw new MonextUnavailable(`an unknown payment status ${JSON.stringify(result.title).slice(0, 40)}`);
}
