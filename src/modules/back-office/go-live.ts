// What a merchant's live environment still needs before it takes real money, read from the services the API itself
// answers from (no second rule): the legal identity invoicing checks, the live bank accounts payouts go to, the default
// contract and its acquirer (the operator's to set), the live keys and the live webhook endpoints. The back-office's
// Go live page and its home checklist show it (GET /dashboard/api/go-live, owners and admins).
import type { BankAccountsService } from '../bank-accounts/bank-accounts.service.js';
import type { InvoicesService } from '../invoices/invoices.service.js';
import type { ApiKeysService } from '../merchants/api-keys.js';
import type { MerchantsService } from '../merchants/merchants.service.js';
import type { Owner } from '../merchants/principal.js';
import type { WebhooksService } from '../webhooks/webhooks.service.js';

/** `partial`: started but not yet real money (a contract on Monext's homologation environment). */
export type ItemState = 'done' | 'partial' | 'missing';

/** The currencies Motu pays out in: a currency's payouts go to its default live bank account. */
const PAYOUT_CURRENCIES = ['EUR', 'XPF'] as const;

export interface GoLiveDeps {
  merchants: MerchantsService;
  invoices: InvoicesService;
  bankAccounts: BankAccountsService;
  apiKeys: ApiKeysService;
  webhooks: WebhooksService;
}

export class GoLiveService {
  constructor(private readonly deps: GoLiveDeps) {}

  async checklist(merchantId: string) {
    const live: Owner = { merchantId, mode: 'live' };
    const [merchant, billing, accounts, keys, endpoints] = await Promise.all([
      this.deps.merchants.getMerchant(merchantId),
      this.deps.invoices.settings(live),
      this.deps.bankAccounts.list(live, { limit: 100 }),
      this.deps.apiKeys.list(live),
      this.deps.webhooks.listEndpoints(live, { limit: 100 }),
    ]);

    // Invoicing's own activation (GET /api/v1/billing/settings): the same fields, the same rule.
    const missing = billing.completeness.missing.map((m) => m.field);
    const legalIdentity = { state: missing.length === 0 ? 'done' as const : 'missing' as const, missing };

    const currencies = PAYOUT_CURRENCIES.map((currency) => {
      const account = accounts.data.find((a) => a.currency === currency && a.default);
      return { currency, defaultAccount: account ? { id: account.id, last4: account.last4, holderName: account.holderName } : null };
    });
    const withDefault = currencies.filter((c) => c.defaultAccount).length;
    const bankAccount = {
      // One currency is enough to start: each currency's payouts wait for its own default account, which the page lists.
      state: withDefault > 0 ? 'done' as const : 'missing' as const,
      currencies,
    };

    const working = keys.filter((k) => k.revokedAt === null);
    // A key the operator made (with the merchant, or by the admin API) was shown to the operator only: the team
    // holds the live keys it made itself, so those are the ones that count.
    const teamKeys = working.filter((k) => k.createdBy !== null);
    const liveKey = { state: teamKeys.length > 0 ? 'done' as const : 'missing' as const, count: teamKeys.length, operatorKeys: working.length - teamKeys.length };

    const enabled = endpoints.data.filter((e) => e.enabled);
    const webhookEndpoint = { state: enabled.length > 0 ? 'done' as const : 'missing' as const, count: enabled.length, disabled: endpoints.data.length - enabled.length };

    const contract = merchant.contracts.find((c) => c.isDefault && c.active) ?? null;
    const items = { legalIdentity, bankAccount, liveContract: liveContract(merchantId, contract), liveKey, webhookEndpoint };
    return { merchantId, ready: Object.values(items).every((i) => i.state === 'done'), items };
  }
}

type ContractView = Awaited<ReturnType<MerchantsService['getMerchant']>>['contracts'][number];

/**
 * The default contract (what live payments and card registrations use when no store names another) and what the
 * operator runs to connect it: the `motu` command and the admin route, with this merchant's contract filled in.
 */
function liveContract(merchantId: string, contract: ContractView | null) {
  if (!contract) return { state: 'missing' as const, contract: null, operator: null };
  const connected = contract.acquirer === 'monext' && contract.monext !== null;
  const environment = connected ? contract.monext!.environment : null;
  const state: ItemState = environment === 'production' ? 'done' : environment === 'homologation' ? 'partial' : 'missing';
  const id = contract.id;
  const operator = state === 'done' ? null : state === 'partial'
    ? {
      command: `motu contracts update ${id} --monext-environment production --monext-access-key "$MONEXT_ACCESS_KEY"`,
      route: `PATCH /admin/v1/contracts/${id}`,
      body: { monext: { environment: 'production', accessKey: '…' } },
    }
    : {
      command: `motu contracts update ${id} --acquirer monext --monext-merchant-id MONEXT_MERCHANT_ID --monext-access-key "$MONEXT_ACCESS_KEY" --monext-point-of-sale POINT_OF_SALE --monext-contract-number CONTRACT_NUMBER --monext-environment production`,
      route: `PATCH /admin/v1/contracts/${id}`,
      body: { acquirer: 'monext', monext: { merchantId: '…', accessKey: '…', pointOfSaleReference: '…', contractNumber: '…', environment: 'production' } },
    };
  return {
    state,
    contract: { id, merchantId, statementLabel: contract.statementLabel, acquirer: contract.acquirer, environment, active: contract.active },
    operator,
  };
}

export type GoLive = Awaited<ReturnType<GoLiveService['checklist']>>;
