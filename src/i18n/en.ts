// English texts. French (fr.ts) has the same shape, checked by the compiler. Interpolations are {{name}} (i18next).
export const en = {
  dashboard: {
    common: {
      loading: 'Loading…', error: 'Error:', back: 'Back', all: 'All', applyFilters: 'Apply filters', resetFilters: 'Reset',
      pagination: 'Pagination', previous: 'Previous', next: 'Next', pageN: 'Page {{n}}', save: 'Save', saved: 'Saved',
      create: 'Create', delete: 'Delete', cancel: 'Cancel', copy: 'Copy', yes: 'Yes', no: 'No', none: 'None', actions: 'Actions',
    },
    shell: {
      skip: 'Skip to content', menu: 'Menu', navigation: 'Main', language: 'Language', signOut: 'Sign out',
      testBadge: 'TEST', liveBadge: 'LIVE', liveMode: 'Live mode', nowLive: 'You are now in live mode: real payments.',
      nowTest: 'You are now in test mode.', testBanner: 'Test mode: you are looking at test data; no real money moves.',
    },
    nav: {
      home: 'Home', payments: 'Payments', customers: 'Customers', subscriptions: 'Subscriptions', invoices: 'Invoices',
      balance: 'Balance', payouts: 'Payouts', disputes: 'Disputes', developers: 'Developers', settings: 'Settings',
    },
    signIn: {
      title: 'Sign in to Motu', email: 'Email', password: 'Password', code: 'Authentication code',
      codeHint: 'The 6-digit code of your authenticator app, or one of your recovery codes.', submit: 'Sign in',
      locked: 'Too many failed attempts: this account is locked. Try again in {{minutes}} minutes.',
    },
    setup: {
      title: 'Choose your password', intro: 'Welcome to {{merchant}}’s back-office. Your account: {{email}}.',
      password: 'Password', confirm: 'Confirm password', passwordHint: '{{n}} characters or more.',
      tooShort: 'The password needs {{n}} characters or more.', mismatch: 'The two passwords differ.', submit: 'Save and sign in',
    },
    notFound: { title: 'Page not found', text: 'There is no page at this address.', back: 'Go to payments' },
    status: {
      pending: 'Pending', transit: 'Authorized', captured: 'Captured', failed: 'Failed', cancelled: 'Cancelled', expired: 'Expired',
      partially_refunded: 'Partially refunded', refunded: 'Refunded', succeeded: 'Succeeded', delivered: 'Delivered',
      ready: 'Ready', advancing: 'Advancing', active: 'Active', invited: 'Invited', disabled: 'Disabled', enabled: 'Enabled', revoked: 'Revoked',
    },
    roles: { owner: 'Owner', admin: 'Admin', developer: 'Developer', support: 'Support', analyst: 'Analyst' },
    payments: {
      title: 'Payments', caption: 'Payments, newest first', filters: 'Filter payments', search: 'Search',
      searchHint: 'Reference, email, payment id…', status: 'Status', from: 'From', to: 'To', amountMin: 'Minimum amount',
      amountMax: 'Maximum amount', amountHint: 'In the smallest unit: francs for XPF, cents for EUR.', store: 'Store',
      reference: 'Reference', customerEmail: 'Customer email', cardLast4: 'Card last 4 digits', created: 'Created',
      customer: 'Customer', card: 'Card', amount: 'Amount', exportCsv: 'Export CSV', empty: 'No payment matches these filters.',
    },
    payment: {
      title: 'Payment {{reference}}', backToList: '← All payments', summary: 'Summary', id: 'Payment id', reference: 'Payment reference',
      orderReference: 'Order reference', customer: 'Customer', card: 'Card', store: 'Store', captureMode: 'Capture mode',
      created: 'Created', authorizedAt: 'Authorized', capturedAt: 'Captured', settledAt: 'Settled', capturedAmount: 'Captured amount',
      refundedAmount: 'Refunded amount', disputedAmount: 'Disputed amount', refusal: 'Refusal', fees: 'Fees',
      feesCaption: 'Motu fees on this payment', feeLine: 'Line', amount: 'Amount', feesTotal: 'Total fees', net: 'Net amount',
      timeline: 'Timeline', capture: 'Capture', cancel: 'Cancel payment', refund: 'Refund',
      captureTitle: 'Capture this payment?', captureText: 'Authorized amount:', captureAmount: 'Amount to capture (empty: all)',
      cancelTitle: 'Cancel this payment?', cancelText: 'The authorization is released; the customer is not charged. This cannot be undone.',
      refundTitle: 'Refund this payment?', refundText: 'Refundable:', refundAmount: 'Amount to refund (empty: all of it)', refundReason: 'Reason (optional)',
      amountMinorHint: 'In the smallest unit: francs for XPF, cents for EUR.',
      captured: 'Payment captured.', cancelled: 'Payment cancelled.', refunded: 'Refund requested.',
    },
    timeline: {
      attempt: 'Authorization attempt', refusalCode: 'refusal code', threeDSecure: '3-D Secure', refund: 'Refund', dispute: 'Dispute',
      teamAction: 'Team action', event: 'Event',
    },
    events: {
      title: 'Event log', caption: 'Events, newest first', type: 'Type', created: 'Created', deliveries: 'Deliveries', resend: 'Resend',
      resent: 'The event is being delivered again.', noDelivery: 'No delivery: no endpoint or notification URL took this event.',
      attempt: 'Attempt {{n}}', noAnswer: 'no answer', nextAttempt: 'Next attempt:', empty: 'No event yet.', payment: 'Payment',
      filterType: 'Event type', show: 'Show deliveries', hide: 'Hide deliveries',
    },
  },
};
