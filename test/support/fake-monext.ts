// A contract-faithful fake of Monext's Retail API (REST v1), on 127.0.0.1 only, for the live-mode tests. It answers
// what Monext's own plugins (PaylineByMonext/payline-commercetools, Monext/monext-sylius) send and read:
//   POST /v1/checkout/payments/sessions            → {result, sessionId, redirectURL}   (the widget's session; a card
//                                                    registration is an ACCOUNT_VERIFICATION, a zero-amount ONE_OFF is refused)
//   GET  /v1/checkout/payments/sessions/{id}       → {result, transactions[], order, privateData}   (no redirectURL: only
//                                                    the creation gives it; the transactions in either order)
//   GET  /v1/checkout/transactions/{id}            → {result, transaction, order, associatedTransactions[]}
//   POST /v1/checkout/transactions/{id}/captures | /cancels | /refunds {amount} → {result, transaction:{id,date,type}}
//   POST /v1/checkout/payments                     → a merchant-initiated payment with a wallet's card: RECURRING or
//                                                    UNSCHEDULED with the first transaction's issuerTransactionId, else
//                                                    refused 01131 (3-D Secure required, nobody there to pass it)
// Basic authentication (merchant id : access key; a wrong pair is a 200 {title: "Unauthorized"} on session creation, as
// Monext/monext-sylius src/Api/MonextClient.php checks, a 401 elsewhere), results as
// {title: ACCEPTED|REFUSED|ERROR|INPROGRESS|CANCELLED, code: "00000"…, detail}. A failed 3-D Secure ends the session
// CANCELLED 03022 with its transaction. Masked numbers are BIN + X + the last two digits (453257XXXXXXXX17). The cardholder's side of the widget
// (card typed, CB chosen, 3-D Secure) is played by `payInWidget`, and faults are put on the next calls by `fault`:
// a timeout after Monext acted, a 5xx, a body that is not JSON, an unknown status, a slow answer.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';

/**
 * Monext's widget hosts (homologation) the stand-in widget uses as the real one does: its script and style from the CDN,
 * a font and an image from the payment host, its calls to the second payment host. A browser test routes them to
 * the fake (`standInHosts`), so that a page whose CSP forgets one of them fails.
 */
export const WIDGET_HOSTS = {
  cdn: 'https://homologation-payment.cdn.payline.com',
  payment: 'https://homologation-payment.payline.com',
  payment2: 'https://homologation-payment-2.payline.com',
} as const;

export const FAKE_MONEXT_CREDENTIALS = {
  merchantId: '123456789012345', accessKey: 'fake-access-key-DO-NOT-LOG-0123', pointOfSaleReference: 'POS_MOTU', contractNumber: 'CB_1234567',
};

/** What Motu must send as its Authorization (HTTP Basic: merchant id : access key). */
const EXPECTED_AUTHORIZATION = `Basic ${Buffer.from(`${FAKE_MONEXT_CREDENTIALS.merchantId}:${FAKE_MONEXT_CREDENTIALS.accessKey}`).toString('base64')}`;

/** Test cards of the fake widget (the number never leaves the fake: Motu sees a masked number and an mxToken). */
export const MONEXT_CARDS = {
  visa: '4970100000000014', // not co-badged in the fake: network VISA
  cb: '4970100000000006', // co-badged: CB chosen
  declined: '4000000000000002', // 01100 refused
  insufficient: '4000000000009995', // 01116
  challenge: '4000000000003220', // 3-D Secure in the widget
  saveThenDecline: '4000000000000341', // registers; every merchant-initiated charge refused 01100
  revoked: '4000000000000358', // registers; the cardholder then revokes its recurring payments: every charge refused 01132
} as const;

export type Fault = 'timeout-after-accept' | 'timeout-before' | '500' | 'malformed' | 'unknown-status' | 'slow'
  /** A 400 Monext gives for a request it refuses (not the credentials, not "no such session"). */
  | '400'
  /** 01185 "used order" inside a 200 answer. */
  | 'used-order-200'
  /** The session abandoned (02534) as a 4xx. */
  | 'abandoned-4xx';

interface Card { pan: string; network: string; code: string }
interface Associated { id: string; type: string; amount: number; status: 'OK' | 'KO'; date: string; originTransactionId: string }
interface Tx {
  id: string; type: 'AUTHORIZATION' | 'AUTHORIZATION_AND_CAPTURE'; amount: number; currency: string; orderReference: string;
  result: { title: string; code: string; detail: string }; card: Card; associated: Associated[]; date: string; issuerTransactionId: string;
  paymentType: string;
}
interface Session {
  id: string; order: { reference: string; amount: number; currency: string }; walletId: string | null; capture: string; paymentType: string;
  result: { title: string; code: string; detail: string }; transactions: string[]; pendingCard: Card | null; returnURL: string; notificationURL: string | null;
  softDescriptor: string | null;
}

const ACCEPTED = { title: 'ACCEPTED', code: '00000', detail: 'Transaction approved' };
const INPROGRESS = { title: 'INPROGRESS', code: '02306', detail: 'Customer has to fill his payment data' };

function id(): string {
  return `${Date.now()}${randomBytes(4).readUInt32BE(0)}`.slice(0, 20);
}

export class FakeMonext {
  readonly sessions = new Map<string, Session>();
  readonly transactions = new Map<string, Tx>();
  readonly wallets = new Map<string, Card>();
  /** Every request received (method, path, body), in order; the Authorization header is kept only as "ok"/"bad". */
  readonly requests: { method: string; path: string; body: any; auth: 'ok' | 'bad' }[] = [];
  private readonly faults: { match: RegExp; fault: Fault }[] = [];
  private server!: Server;
  url = '';
  /** How long a "timeout" fault holds the answer (longer than the connector's timeout). */
  holdMs = 4000;
  /** Benchmarks: false keeps no request (`requests` would grow by three per payment for the whole run). */
  record = true;
  /** Monext down: every API call answers 503 until set back (the widget's own files still load). */
  unavailable = false;
  /** Benchmarks: the cardholder types this card the moment a widget session is made (no widget call to play). */
  autoPay: string | null = null;
  /** Benchmarks: every API answer is held this long (the network and Monext's own work, which cost Motu no CPU). */
  latencyMs = 0;
  /** The order of a session's transactions (Monext does not document it): oldest first, or newest first. */
  newestFirst = false;
  /** The status of a session's creation (Monext's plugins accept any 2xx): 200 or 201. */
  createdStatus = 200;
  /** The first transaction of each wallet (its issuerTransactionId: the stored credential's link). */
  private readonly firstOfWallet = new Map<string, string>();
  /** Monext's clock moves on between two transactions, so that their dates differ even on a test's stopped clock. */
  private tick = 0;

  /** `now`: Monext's clock (the dates of its transactions); a test app's ManualClock keeps them in its time. */
  constructor(private readonly now: () => Date = () => new Date()) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.receive(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next call whose "METHOD path" matches gets this fault (once). */
  fault(match: RegExp, fault: Fault): void {
    this.faults.push({ match, fault });
  }

  /** Routes Monext's widget hosts (WIDGET_HOSTS) in a browser context to this fake's stand-in widget. */
  async standInHosts(context: BrowserContext): Promise<void> {
    for (const origin of Object.values(WIDGET_HOSTS)) {
      await context.route(`${origin}/**`, async (route) => {
        const url = new URL(route.request().url());
        const response = await route.fetch({ url: `${this.url}${url.pathname}${url.search}`, headers: { ...route.request().headers(), 'x-stand-in-hosts': '1' } });
        await route.fulfill({ response });
      });
    }
  }

  /** Counts the successful operations of a type on an authorization (CAPTURE, REFUND, CANCEL_AUTHORIZATION). */
  operations(transactionId: string, type: string): Associated[] {
    return (this.transactions.get(transactionId)?.associated ?? []).filter((a) => a.type === type && a.status === 'OK');
  }

  /**
   * The cardholder in the widget: types `pan` (any future expiry, any code), chooses CB on a co-badged card, and —
   * for the challenge card — is left in 3-D Secure until `finishChallenge`. Answers the session's result.
   */
  payInWidget(token: string, pan: string): Session['result'] {
    const s = this.sessions.get(token);
    if (!s) throw new Error(`unknown session ${token}`);
    const card = cardOf(pan);
    if (pan === MONEXT_CARDS.challenge) {
      s.pendingCard = card;
      return s.result;
    }
    return this.authorizeSession(s, card, true);
  }

  finishChallenge(token: string, authenticated: boolean): Session['result'] {
    const s = this.sessions.get(token)!;
    const card = s.pendingCard!;
    s.pendingCard = null;
    return this.authorizeSession(s, card, authenticated);
  }

  /** The cardholder left the widget (cancel link). */
  cancelInWidget(token: string): void {
    this.sessions.get(token)!.result = { title: 'CANCELLED', code: '02319', detail: 'Payment cancelled by Buyer' };
  }

  /** The session abandoned (no transaction): its read answers a 200 with 02324 (expired). */
  abandonInWidget(token: string): void {
    this.sessions.get(token)!.result = { title: 'ERROR', code: '02324', detail: 'Session expired' };
  }

  private authorizeSession(s: Session, card: Card, authenticated: boolean) {
    let result: Session['result'] = ACCEPTED;
    if (!authenticated) result = { title: 'CANCELLED', code: '03022', detail: '3DS authentication failed' };
    else if (card.pan === MONEXT_CARDS.declined) result = { title: 'REFUSED', code: '01100', detail: 'Transaction refused' };
    else if (card.pan === MONEXT_CARDS.insufficient) result = { title: 'REFUSED', code: '01116', detail: 'Amount limit' };
    const tx = this.newTx(s.order, s.capture === 'AUTOMATIC' ? 'AUTHORIZATION_AND_CAPTURE' : 'AUTHORIZATION', result, card, s.paymentType);
    s.transactions.push(tx.id);
    s.result = result;
    if (result.title === 'ACCEPTED' && s.walletId) {
      this.wallets.set(s.walletId, card);
      this.firstOfWallet.set(s.walletId, tx.issuerTransactionId);
    }
    return result;
  }

  private newTx(order: Session['order'], type: Tx['type'], result: Tx['result'], card: Card, paymentType = 'ONE_OFF'): Tx {
    const tx: Tx = {
      paymentType,
      id: id(), type, amount: order.amount, currency: order.currency, orderReference: order.reference, result, card,
      associated: [], date: new Date(this.now().getTime() + this.tick++).toISOString(), issuerTransactionId: `ISS${id()}`,
    };
    tx.associated.push({ id: tx.id, type, amount: order.amount, status: result.title === 'ACCEPTED' ? 'OK' : 'KO', date: tx.date, originTransactionId: tx.id });
    this.transactions.set(tx.id, tx);
    return tx;
  }

  /**
   * The request's body, then its answer. Read with the stream's events, and not at all for a GET (Monext's reads have
   * none): the benchmarks run the fake on the same cores as Motu, and every microsecond it spends is taken from Motu.
   */
  private receive(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET') return void this.handle(req, res, '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void this.handle(req, res, (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    let body: any = null;
    try { body = raw ? JSON.parse(raw) : null; } catch { body = '__invalid__'; }
    const query = (req.url ?? '').indexOf('?');
    const path = query < 0 ? req.url ?? '' : req.url!.slice(0, query);
    const auth = req.headers.authorization === EXPECTED_AUTHORIZATION ? 'ok' : 'bad';
    if (this.record) this.requests.push({ method: req.method!, path, body, auth });
    // Framed by its length (headers given as a flat list: node:http takes them as they are, no object to walk).
    const send = (status: number, payload: unknown) => {
      const text = JSON.stringify(payload);
      res.writeHead(status, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))]);
      res.end(text);
    };
    // The stand-in widget (Monext's own cannot load here): its script, style, font and image, and the cardholder's
    // "pay" call. Reached through Monext's hosts (standInHosts: the x-stand-in-hosts header), it names those hosts;
    // reached directly (MOTU_MONEXT_WIDGET_URL), the fake's own origin.
    const viaHosts = req.headers['x-stand-in-hosts'] === '1';
    const host = (name: keyof typeof WIDGET_HOSTS) => (viaHosts ? WIDGET_HOSTS[name] : this.url);
    if (path === '/cdn/scripts/widget-min.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' });
      res.end(STAND_IN_WIDGET.replace('__PAY__', host('payment2')).replace('__IMAGES__', host('payment')));
      return;
    }
    if (path === '/cdn/styles/widget-min.css') {
      res.writeHead(200, { 'content-type': 'text/css', 'access-control-allow-origin': '*' });
      res.end(`@font-face { font-family: "PaylineStandIn"; src: url("${host('payment')}/fonts/widget.woff2") format("woff2"); }
#PaylineWidget .pl-card { display: grid; gap: 8px; font-family: "PaylineStandIn", sans-serif; }`);
      return;
    }
    if (path === '/fonts/widget.woff2') {
      res.writeHead(200, { 'content-type': 'font/woff2', 'access-control-allow-origin': '*' });
      res.end(Buffer.from('d09GMgABAAAAAA', 'base64'));
      return;
    }
    if (path === '/images/cards.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
      res.end(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'));
      return;
    }
    if (path === '/_widget/pay' && req.method === 'POST') {
      let state = 'PAYMENT_FAILURE';
      try {
        const { token, pan } = JSON.parse(raw) as { token: string; pan: string };
        state = this.payInWidget(token, pan).title === 'ACCEPTED' ? 'PAYMENT_SUCCESS' : 'PAYMENT_FAILURE';
      } catch { /* unknown token */ }
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify({ state }));
      return;
    }
    if (this.unavailable) return send(503, { title: 'Service Unavailable', detail: 'maintenance' });
    if (auth === 'bad') {
      // Monext answers a session's creation with bad credentials 200 {title: "Unauthorized"} (Monext/monext-sylius).
      const status = req.method === 'POST' && path === '/v1/checkout/payments/sessions' ? 200 : 401;
      return send(status, { title: 'Unauthorized', detail: 'Full authentication is required to access this resource' });
    }
    const key = `${req.method} ${path}`;
    const index = this.faults.findIndex((f) => f.match.test(key));
    const fault = index >= 0 ? this.faults.splice(index, 1)[0]!.fault : null;
    if (fault === 'timeout-before') return void setTimeout(() => { if (!res.destroyed) send(504, {}); }, this.holdMs);
    if (fault === '500') return send(500, { title: 'Internal Server Error', detail: 'backend' });
    if (fault === '400') return send(400, { title: 'BAD_REQUEST', detail: 'The request was refused', code: '02101' });
    if (fault === 'abandoned-4xx') return send(400, { title: 'BAD_REQUEST', detail: 'Transaction abandoned', code: '02534' });
    if (fault === 'used-order-200') return send(200, { result: { title: 'REFUSED', code: '01185', detail: 'Used order' } });
    if (fault === 'malformed') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"result": {"title": "ACCEPTED", "code": "00'); return; }
    const answer = this.route(req.method!, path, body);
    if (fault === 'timeout-after-accept') return void setTimeout(() => { if (!res.destroyed) send(answer.status, answer.body); }, this.holdMs);
    if (fault === 'unknown-status' && answer.body?.result) answer.body.result = { title: 'MYSTERY_STATE', code: '09999', detail: 'not in any list' };
    if (fault === 'slow') await new Promise((r) => setTimeout(r, 300));
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    send(answer.status, answer.body);
  }

  private route(method: string, path: string, body: any): { status: number; body: any } {
    const bad = (detail: string) => ({ status: 400, body: { title: 'BAD_REQUEST', detail, code: '02101' } });
    if (body === '__invalid__') return bad('malformed JSON');
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/checkout/payments/sessions') {
      if (body?.pointOfSaleReference !== FAKE_MONEXT_CREDENTIALS.pointOfSaleReference) return bad('unknown pointOfSaleReference');
      if (!Array.isArray(body?.paymentMethod?.paymentMethodIDs) || !body.paymentMethod.paymentMethodIDs.includes(FAKE_MONEXT_CREDENTIALS.contractNumber)) return bad('unknown payment method');
      const o = body.order;
      if (!o || !Number.isInteger(o.amount) || o.amount < 0 || typeof o.currency !== 'string' || typeof o.reference !== 'string') return bad('order');
      if (typeof body.returnURL !== 'string') return bad('returnURL is required');
      const paymentType = body.payment?.paymentType ?? 'ONE_OFF';
      if (!['ONE_OFF', 'ACCOUNT_VERIFICATION'].includes(paymentType)) return bad(`paymentType ${paymentType} is not a widget payment`);
      // Verifying a card without charging it is an ACCOUNT_VERIFICATION; a payment of nothing is refused.
      if (paymentType === 'ONE_OFF' && o.amount === 0) return bad('order.amount must be positive for a ONE_OFF payment');
      if (paymentType === 'ACCOUNT_VERIFICATION' && o.amount !== 0) return bad('an ACCOUNT_VERIFICATION has no amount');
      const sid = `${randomBytes(9).toString('base64url')}${Date.now()}`.slice(0, 34);
      this.sessions.set(sid, {
        id: sid, order: { reference: o.reference, amount: o.amount, currency: o.currency }, walletId: body.walletId ?? body.buyer?.walletId ?? null,
        paymentType, capture: body.payment?.capture ?? 'AUTOMATIC', result: INPROGRESS, transactions: [], pendingCard: null,
        returnURL: body.returnURL, notificationURL: body.notificationURL ?? null, softDescriptor: body.payment?.softDescriptor ?? null,
      });
      if (this.autoPay) this.payInWidget(sid, this.autoPay);
      return { status: this.createdStatus, body: { result: ACCEPTED, sessionId: sid, redirectURL: `${this.url}/webpayment/${sid}` } };
    }
    if (method === 'GET' && (m = /^\/v1\/checkout\/payments\/sessions\/([^/]+)$/.exec(path))) {
      const s = this.sessions.get(m[1]!);
      if (!s) return { status: 404, body: { title: 'NOT_FOUND', detail: 'No transaction found for this token', code: '02304' } };
      // The session's authorizations, and the captures made on them since (later dates), in the order asked for.
      const listed = s.transactions.flatMap((t) => {
        const tx = this.transactions.get(t)!;
        return [this.txView(tx), ...tx.associated.filter((a) => a.type === 'CAPTURE').map((a) => ({ id: a.id, date: a.date, type: 'CAPTURE' }))];
      });
      return {
        status: 200,
        body: {
          result: s.result,
          transactions: this.newestFirst ? listed.reverse() : listed,
          order: { ...s.order, origin: 'E_COM' }, privateData: {},
        },
      };
    }
    if (method === 'GET' && (m = /^\/v1\/checkout\/transactions\/([^/]+)$/.exec(path))) {
      const tx = this.transactions.get(m[1]!);
      if (!tx) return { status: 404, body: { title: 'NOT_FOUND', detail: 'Transaction not found' } };
      return {
        status: 200,
        body: {
          result: tx.result, transaction: this.txView(tx), order: { reference: tx.orderReference, amount: tx.amount, currency: tx.currency },
          associatedTransactions: tx.associated,
        },
      };
    }
    if (method === 'POST' && (m = /^\/v1\/checkout\/transactions\/([^/]+)\/(captures|cancels|refunds)$/.exec(path))) {
      const tx = this.transactions.get(m[1]!);
      if (!tx) return { status: 404, body: { title: 'NOT_FOUND', detail: 'Transaction not found' } };
      const amount = body?.amount;
      if (!Number.isInteger(amount) || amount <= 0) return bad('amount');
      const ok = (t: string) => tx.associated.filter((a) => a.type === t && a.status === 'OK');
      const sum = (list: Associated[]) => list.reduce((s, a) => s + a.amount, 0);
      const captured = tx.type === 'AUTHORIZATION_AND_CAPTURE' && tx.result.title === 'ACCEPTED' ? tx.amount : sum(ok('CAPTURE'));
      const cancelled = ok('CANCEL_AUTHORIZATION').length > 0;
      const refuse = (code: string, detail: string) => ({ status: 200, body: { result: { title: 'REFUSED', code, detail }, transaction: { id: id(), date: this.now().toISOString(), type: m![2] } } });
      const record = (type: string) => {
        const op: Associated = { id: id(), type, amount, status: 'OK', date: this.now().toISOString(), originTransactionId: tx.id };
        tx.associated.push(op);
        return { status: 200, body: { result: ACCEPTED, transaction: { id: op.id, date: op.date, type } } };
      };
      if (tx.result.title !== 'ACCEPTED') return refuse('01119', 'This transaction is not authorized');
      if (m[2] === 'captures') {
        if (cancelled || captured > 0) return refuse('01119', 'Transaction already captured or cancelled');
        if (amount > tx.amount) return { status: 200, body: { result: { title: 'ERROR', code: '01110', detail: 'Invalid amount' } } };
        return record('CAPTURE');
      }
      if (m[2] === 'cancels') {
        if (cancelled || captured > 0) return refuse('01119', 'Transaction already captured or cancelled');
        return record('CANCEL_AUTHORIZATION');
      }
      if (captured === 0) return refuse('01119', 'Nothing captured');
      if (sum(ok('REFUND')) + amount > captured) return { status: 200, body: { result: { title: 'ERROR', code: '01110', detail: 'Invalid amount' } } };
      return record('REFUND');
    }
    if (method === 'POST' && path === '/v1/checkout/payments') {
      if (body?.paymentMethodId !== FAKE_MONEXT_CREDENTIALS.contractNumber) return bad('unknown payment method');
      const o = body.order;
      if (!o || !Number.isInteger(o.amount) || o.amount <= 0) return bad('order');
      const walletId = body.paymentInstrument?.walletId;
      const card = this.wallets.get(walletId);
      if (!card) return bad('unknown wallet');
      // A merchant-initiated charge is RECURRING or UNSCHEDULED and names the stored credential's first transaction;
      // anything else is a customer-initiated payment with nobody there for the 3-D Secure the issuer asks for.
      const first = body.issuerTransactionId ?? body.payment?.issuerTransactionId;
      const mit = ['RECURRING', 'UNSCHEDULED'].includes(body.payment?.paymentType) && first === this.firstOfWallet.get(walletId);
      const result = !mit ? { title: 'REFUSED', code: '01131', detail: '3DS authentication required' }
        : card.pan === MONEXT_CARDS.saveThenDecline ? { title: 'REFUSED', code: '01100', detail: 'Transaction refused' }
          : card.pan === MONEXT_CARDS.revoked ? { title: 'REFUSED', code: '01132', detail: 'Recurring payment revoked by the cardholder' }
            : ACCEPTED;
      const tx = this.newTx({ reference: o.reference, amount: o.amount, currency: o.currency }, body.payment?.capture === 'AUTOMATIC' ? 'AUTHORIZATION_AND_CAPTURE' : 'AUTHORIZATION', result, card, body.payment?.paymentType);
      return { status: 200, body: { result, transaction: { id: tx.id, date: tx.date, type: tx.type } } };
    }
    return { status: 404, body: { title: 'NOT_FOUND', detail: `no route ${method} ${path}` } };
  }

  private txView(tx: Tx) {
    return {
      id: tx.id, date: tx.date, type: tx.type, currency: tx.currency, paymentType: tx.paymentType, requestedAmount: tx.amount,
      authorizedAmount: tx.amount,
      paymentInstrumentData: {
        usedPaymentInstrument: 'UsedCard', expirationDate: '1234', mxToken: `${tx.card.pan.slice(0, 6)}Hq${tx.card.pan.slice(-4)}`,
        maskedNumber: `${tx.card.pan.slice(0, 6)}${'X'.repeat(tx.card.pan.length - 8)}${tx.card.pan.slice(-2)}`, network: tx.card.network,
        selectedNetwork: tx.card.network, paymentInstrumentType: { code: tx.card.code },
      },
      partnerReturnedData: { authorizationNumber: 'A55A', authorizationDate: tx.date, issuerTransactionId: tx.issuerTransactionId },
    };
  }
}

/**
 * The stand-in of Monext's widget-min.js: reads #PaylineWidget's data-token, shows the three card fields and a pay
 * button (accessible names as Monext's widget has them), "pays" through the fake, then calls the page's
 * data-event-finalstatehasbeenreached function, as Monext's widget does at its final state.
 */
const STAND_IN_WIDGET = String.raw`(function () {
  var host = document.getElementById('PaylineWidget');
  if (!host) return;
  var token = host.getAttribute('data-token');
  var box = document.createElement('div');
  box.className = 'pl-card';
  function field(id, label) {
    var l = document.createElement('label'); l.htmlFor = id; l.textContent = label;
    var i = document.createElement('input'); i.id = id; i.autocomplete = 'off';
    box.appendChild(l); box.appendChild(i); return i;
  }
  var number = field('pl-card-number', 'Card number');
  field('pl-card-expiry', 'Expiry date');
  field('pl-card-cvv', 'Security code');
  var pay = document.createElement('button'); pay.type = 'button'; pay.textContent = 'Pay in widget';
  box.appendChild(pay);
  // As Monext's widget: an inline stylesheet of its own, the card brands' image from Monext's host.
  var sheet = document.createElement('style');
  sheet.textContent = '#PaylineWidget .pl-card label { display: block; }';
  host.appendChild(sheet);
  var brands = document.createElement('img'); brands.alt = 'CB, Visa, Mastercard'; brands.src = '__IMAGES__/images/cards.png';
  box.insertBefore(brands, box.firstChild);
  host.appendChild(box);
  pay.addEventListener('click', function () {
    var xhr = new XMLHttpRequest();
    xhr.open('POST', '__PAY__/_widget/pay');
    xhr.setRequestHeader('content-type', 'text/plain');
    xhr.onload = function () {
      var done = window[host.getAttribute('data-event-finalstatehasbeenreached')];
      if (typeof done === 'function') done(JSON.parse(xhr.responseText));
    };
    xhr.send(JSON.stringify({ token: token, pan: number.value.replace(/\s/g, '') }));
  });
})();
`;

function cardOf(pan: string): Card {
  const cb = pan.startsWith('4970100000000006') || pan.startsWith('513100');
  const brand = pan.startsWith('4') ? 'VISA' : pan.startsWith('5') ? 'MASTERCARD' : 'AMEX';
  return { pan, network: cb ? 'CB' : brand, code: cb ? 'CB' : brand };
}
