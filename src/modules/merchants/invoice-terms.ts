// The longest texts a merchant may add to its invoices (footer, late-payment terms, early-payment discount): each
// prints on every invoice and credit note, so each must fit the page's foot. Shared by the API's validation and the
// back-office's form.
export const INVOICE_TEXT_BOUNDS = { invoiceFooter: 600, latePaymentTerms: 300, earlyPaymentDiscount: 200 } as const;
