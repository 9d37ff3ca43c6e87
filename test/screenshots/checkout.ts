// Screenshots of the checkout page for docs/images/ (both languages, light and dark):
//   node --import tsx test/screenshots/checkout.ts
import { launchBrowser, newPage, serveApp } from '../support/browser.js';
import { createMerchant, createStore } from '../support/factories.js';

const t = await serveApp('sqlite');
const browser = await launchBrowser();
try {
  const merchant = await createMerchant(t, 'Fare Ute');
  const store = await createStore(t, merchant.id, { code: 'PPT', name: 'Papeete · Front de mer' });
  const sessions = {
    fr: {
      languageCode: 'fr', isInclTaxAmount: false,
      order: { reference: 'CMD-2041', amount: 6800, currency: 'XPF', taxDetail: { rate: 1600 },
        items: [{ product: 'Paréo en coton', unitPrice: 2500, quantity: 2 }, { product: 'Monoï de Tahiti 100 ml', unitPrice: 1800, quantity: 1 }] },
    },
    en: {
      languageCode: 'en',
      order: { reference: 'ORD-2041', amount: 5690, currency: 'EUR',
        items: [{ product: 'Cotton pareo', unitPrice: 2100, quantity: 2 }, { product: 'Tahitian monoi oil 100 ml', unitPrice: 1490, quantity: 1 }] },
    },
  };
  for (const [lang, body] of Object.entries(sessions)) {
    const res = await t.api(merchant.testKey, 'POST', '/api/v1/payments/sessions', {
      ...body, storeId: store.id, redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await newPage(browser, { colorScheme: scheme, viewport: { width: 1080, height: 820 } });
      await page.goto(res.body.checkoutUrl);
      const names = lang === 'fr'
        ? { number: 'Numéro de carte', expiry: "Date d'expiration", cvc: 'Cryptogramme', email: 'E-mail' }
        : { number: 'Card number', expiry: 'Expiry date', cvc: 'Security code', email: 'Email' };
      await page.getByLabel(names.email).fill(lang === 'fr' ? 'hinano@example.pf' : 'alex@example.com');
      await page.frameLocator(`iframe[title="${names.number}"]`).getByLabel(names.number).fill('4242424242424242');
      await page.frameLocator(`iframe[title="${names.expiry}"]`).getByLabel(names.expiry).fill('1229');
      await page.frameLocator(`iframe[title="${names.cvc}"]`).getByLabel(names.cvc).fill('123');
      await page.mouse.click(5, 5);
      await page.screenshot({ path: `docs/images/checkout-${lang}-${scheme}.png`, fullPage: true });
      await context.close();
    }
    if (lang === 'fr') {
      const { context, page } = await newPage(browser, { viewport: { width: 390, height: 844 } });
      await page.goto(res.body.checkoutUrl);
      await page.screenshot({ path: 'docs/images/checkout-fr-mobile.png', fullPage: true });
      await context.close();
    }
  }
} finally {
  await browser.close();
  await t.close();
}
