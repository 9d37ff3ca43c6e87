// English texts of the back-office's Go live page, its home checklist and what empty live pages and the invoices
// pages say before the first live payment or invoice; part of the `dashboard` namespace (en.ts spreads them in).
// fr-go-live.ts has the same shape.
export const enGoLive = {
  goLive: {
    title: 'Go live',
    intro: 'Live mode takes real cards and pays real money out. Here is what it needs, and where each thing is done.',
    ready: 'Everything is ready: your live mode takes real payments.',
    progress: '{{done}} of {{total}} done',
    checklist: 'What live mode needs',
    homeTitle: 'Before going live',
    homeMore: 'All the steps',
    states: { done: 'Done', partial: 'Started', missing: 'To do' },
    items: {
      legalIdentity: 'Your legal identity',
      bankAccount: 'A bank account for payouts',
      liveContract: 'The live contract and its acquirer',
      liveKey: 'A live API key',
      webhookEndpoint: 'A live webhook endpoint',
    },
    legalIdentity: {
      done: 'Your invoices name you, and invoicing is open.',
      missing: 'Missing: {{missing}}. Your invoices must name who issues them: invoicing opens once this is complete.',
      act: 'Complete it in Settings',
    },
    bankAccount: {
      text: 'Payouts in a currency go to its default live bank account.',
      currency: '{{currency}}: ',
      account: 'account ending {{last4}} ({{holder}})',
      none: 'no default account',
      act: 'Add a bank account in Payouts',
      liveOnly: 'Switch to live mode first: bank accounts are kept per mode.',
    },
    liveContract: {
      byOperator: 'Your contract and the acquirer taking your cards are set by the operator of this Motu service, not from the back-office.',
      contract: 'Contract {{id}} ({{label}}), merchant {{merchantId}}',
      simulator: 'Its acquirer: none yet. Live payments are refused until the operator connects the contract to Monext.',
      homologation: "Its acquirer: Monext, homologation environment. Payments go to Monext's test environment: no real money yet.",
      production: 'Its acquirer: Monext, production environment.',
      none: 'No active default contract: ask the operator.',
      askOperator: 'Ask the operator to run:',
      orRoute: 'or to call the admin API:',
      copy: 'Copy the command',
      copied: 'Command copied.',
    },
    liveKey: {
      done: 'Live keys made by your team: {{count}}.',
      missing: 'Your integration takes real payments with a live secret key (sk_live_…), shown once when it is made.',
      operatorKeys: 'The operator also holds {{count}} live key made with your account; ask for it, or make your own.',
      act: 'Make a live key in Developers',
    },
    webhookEndpoint: {
      done: 'Live endpoints receiving events: {{count}}.',
      missing: 'Your server learns of payments, refunds and disputes from webhooks: add the address that receives them.',
      disabled: 'Endpoints disabled: {{count}}.',
      act: 'Add an endpoint in Developers',
    },
    liveSwitch: 'Keys, endpoints and bank accounts are made in the mode you are in: switch to live mode (top of the page) to make the live ones.',
    askOwner: 'Ask an owner or an admin of your team what live mode still needs (Go live page).',
  },
  liveEmpty: {
    payments: 'No live payment yet.',
    firstGoLive: 'Live payments start once live mode is ready:',
    goLiveLink: 'see what it still needs',
  },
  invoicingNotice: {
    closed: 'Invoicing is not open yet: invoices can be drafted, but not finalized or sent, until your legal identity is complete. Missing: {{missing}}.',
    act: 'Complete it in Settings',
  },
};
