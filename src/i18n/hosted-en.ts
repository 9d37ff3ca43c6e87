// English texts of what customers see: the hosted pages (checkout, wallet, invoice page), the secure card fields and
// the simulated bank, the PDFs and the mails. French (hosted-fr.ts) has the same shape, checked by the compiler.
// Interpolations are {{name}}, as in the back-office's namespace (i18next's syntax), filled by fillText.
import type { RefusalCode } from '../acquirer/acquirer.js';

/** A text for every refusal the acquirers report (a code added to RefusalCode and not here fails the typecheck). */
export const refusalTexts = (texts: Record<RefusalCode, string>): Record<string, string> => texts;

export const hostedEn = {
  checkout: {
  title: 'Payment', secure: 'Secure payment', payByCard: 'Pay by card', testMode: 'Test mode: no real payment is made', order: 'Your order',
  quantity: 'Qty', subtotal: 'Subtotal', taxes: 'Taxes', total: 'Total', store: 'Store', reference: 'Order',
  email: 'Email', emailHint: 'Your receipt is sent to this address', emailInvalid: 'Enter a valid email address',
  cardDetails: 'Card details', savedCards: 'Your saved cards', newCard: 'Use another card',
  cardNumber: 'Card number', expiry: 'Expiry date', cvc: 'Security code', saveCard: 'Save my card',
  pay: 'Pay', processing: 'Processing…', cancel: 'Cancel and return to the merchant',
  challengeTitle: 'Confirm the payment with your bank', challengeClose: 'Close the authentication and return to the card form',
  challengeCancelled: 'The authentication was cancelled. You can pay again with this card or another one.', fieldsError: 'Check the card details',
  network: 'The connection failed. Check your connection and try again.',
  payFailed: 'The payment could not be made. Try again, or use another card.',
  browserUnfit: 'Your bank cannot authenticate the payment in this browser. Try another browser or another card.',
  unavailable: 'Card payments are not available on this service for the moment.',
  successTitle: 'Payment accepted', successText: 'Thank you. Your payment to {{merchant}} has been accepted.',
  authorizedText: 'Thank you. Your payment to {{merchant}} has been authorized.',
  amountPaid: 'Amount', date: 'Date', card: 'Card', paymentRef: 'Payment reference',
  receipt: 'Download the receipt (PDF)', backToMerchant: 'Return to {{merchant}}',
  failedTitle: 'Payment declined', failedText: 'Your payment to {{merchant}} could not be completed.', reason: 'Reason:',
  retry: 'Try again', otherCard: 'Use another card',
  attemptsExhausted: 'Too many attempts: this payment can no longer be retried here. Return to {{merchant}} to start again.',
  expiredTitle: 'This payment page is no longer active',
  expiredText: 'The payment session has expired or was cancelled. If you still want to pay, return to the merchant and start again.',
  paidTitle: 'This order is already paid', paidText: 'Your payment to {{merchant}} has been accepted; there is nothing more to pay.',
  continue: 'Continue',
  notFound: 'Unknown payment page', receiptTitle: 'Payment receipt', poweredBy: 'Payments by Motu',
  discount: 'Discount', orderDiscount: 'Order discount', moreItems: '{{count}} more items (the full order is with {{merchant}})', statementAs: 'This payment appears on your card statement as “{{label}}”.',
  refusals: refusalTexts({
    card_declined: 'Your bank declined the card.', insufficient_funds: 'The card has insufficient funds.',
    expired_card: 'The card has expired.', incorrect_cvc: 'The security code is incorrect.',
    processing_error: 'An error occurred while processing the card. Try again.', authentication_failed: 'The 3-D Secure authentication failed.',
    card_unknown: 'Your bank no longer recognises this card. Use another card.',
  }),
  refusalDefault: 'The payment was declined.',
},
  wallet: { title: 'Save a card', intro: '{{merchant}} invites you to save a card. Nothing will be charged.', save: 'Save card',
    saving: 'Verifying…', doneOk: 'Your card is saved.', doneFailed: 'Your card could not be verified.', doneError: 'The registration did not complete.',
    test: 'Test mode', unavailable: 'The card form cannot load.', cardTitle: 'Your card', tryAnother: 'You can try another card.' },
  invoicePage: { title: 'Invoice', due: 'Due by', total: 'Total', paid: 'Paid', remaining: 'Amount due', pay: 'Pay by card', pdf: 'Download the invoice (PDF)', settled: 'This invoice is paid. Thank you!', credited: 'This invoice was cancelled by a credit note.', tax: 'VAT' },
  invoicePdf: {
    invoice: 'Invoice', creditNote: 'Credit note', draft: 'DRAFT', test: 'TEST · not a valid document', number: 'Number', issued: 'Date',
    due: 'Due date', customer: 'Customer', description: 'Description', quantity: 'Qty', unitPrice: 'Unit price excl. tax', amount: 'Amount excl. tax',
    subtotal: 'Total excl. VAT', tax: 'VAT {{rate}}', total: 'Total incl. VAT', paid: 'Paid', credited: 'Credited', remaining: 'Amount due',
    registration: 'Registration number', taxId: 'Tax id', forInvoice: 'Credit note for invoice', reason: 'Reason',
    colon: ': ', taxOn: 'VAT {{rate}} on {{base}}',
    paymentTerms: 'Payment terms', termsOnReceipt: 'payable on receipt', termsDays: '{{days}} days, by {{date}}', termsBy: 'by {{date}}',
    earlyPayment: 'Early payment discount', noEarlyDiscount: 'No discount for early payment.',
    latePenalties: 'Late-payment penalties', statutoryPenalties: "the European Central Bank's main refinancing rate plus 10 percentage points",
    recoveryIndemnity: 'Any late payment also incurs a fixed compensation for recovery costs of €40 (French Commercial Code, art. L441-10 and D441-5).',
    reasons: { duplicate: 'Duplicate', order_change: 'Order change', product_unsatisfactory: 'Unsatisfactory product', fraudulent: 'Fraud', other: 'Other' } as Record<string, string>,
  },
  start: {
    title: 'Motu', intro: 'A card payment service.', dashboard: 'Back-office', dashboardText: "The merchant's team: payments, customers, invoices, settings.",
    docs: 'API reference', docsText: "For the merchant's developers: every route of the API, with its examples.",
  },
  fields: {
    number: 'Card number', expiry: 'Expiry date', cvc: 'Security code',
    numberPlaceholder: '1234 1234 1234 1234', expiryPlaceholder: 'MM / YY', cvcPlaceholder: '123',
    required: 'This field is required', invalidNumber: 'This card number is not valid', invalidExpiry: 'Enter a date as MM / YY',
    pastExpiry: 'This card has expired', invalidCvc: 'Enter the security code on the back of the card',
    incomplete: 'Check the card details', network: 'The connection failed; try again',
    unavailable: 'Card payments are not available on this service',
    tooMany: 'Too many cards entered for this payment; return to the merchant to start again',
    expired: 'This payment page is no longer active',
  },
  bank: {
    title: '3-D Secure authentication', tag: 'Test mode: simulated bank', intro: 'Your bank asks you to confirm this payment.',
    amount: 'Amount', card: 'Card', authenticate: 'Authenticate', fail: 'Fail authentication', done: 'This authentication is already complete.',
  },
  mail: {
    receiptSubject: 'Your payment receipt · {{merchant}}',
    receiptBody: 'Hello,\n\nYour payment of {{amount}} to {{merchant}} has been accepted.\nPayment reference: {{reference}}\n\nYour receipt is attached (PDF).',
    linkSubject: '{{merchant}} invites you to save a card',
    linkBody: 'Hello,\n\n{{merchant}} invites you to save a payment card. Nothing will be charged.\n\nSave my card: {{url}}\n\nThis link is valid until {{until}}.',
    receiptFile: 'receipt',
    invoiceSubject: 'Invoice {{number}} · {{merchant}}',
    invoiceBody: 'Hello,\n\n{{merchant}} sends you invoice {{number}}: {{amount}} due by {{due}}.\n\nView and pay the invoice: {{url}}\n\nThe invoice is attached (PDF).',
    invitationSubject: 'Join {{merchant}} on Motu',
    invitationBody: "Hello,\n\nYou are invited to join {{merchant}}'s team in its payments back-office.\n\nChoose my password: {{url}}\n\nThis link is valid {{hours}} hours, once.",
  },
};

export type HostedCatalog = typeof hostedEn;
