// A card link in a real browser (Debian's Chromium via playwright-core): a refused card leaves the link open, the
// customer tries another card on the same page and it is saved; the link takes at most MOTU_MAX_CARD_ATTEMPTS cards.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { fillCard, newPage } from './support/browser.js';
import { createCustomer } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { CARDS } from './support/cards.js';

const MAX = 3;
const PHONE = { width: 390, height: 844 };
const TEXT = {
  fr: { save: 'Enregistrer la carte', refused: 'Votre banque a refusé la carte. Vous pouvez essayer une autre carte.', saved: 'Votre carte est enregistrée.', failed: "Votre carte n'a pas pu être vérifiée." },
  en: { save: 'Save card', refused: 'Your bank declined the card. You can try another card.', saved: 'Your card is saved.', failed: 'Your card could not be verified.' },
} as const;

eachDatabase('card links in a browser', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Fare Ute', env: { MOTU_MAX_CARD_ATTEMPTS: String(MAX) } });
  const { t, m } = suite;

  async function link(locale: 'fr' | 'en') {
    const customerId = await createCustomer(t, m.testKey);
    const res = await t.api(m.testKey, 'POST', `/api/v1/customers/${customerId}/card-links`, { locale });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; url: string };
  }
  const read = async (id: string) => (await t.api(m.testKey, 'GET', `/api/v1/card-links/${id}`)).body;
  const saveEnabled = (page: Page) => page.waitForFunction(() => !(document.getElementById('save') as HTMLButtonElement | null)?.disabled);
  /** Types a card and presses Save (the button stays disabled until the answer). */
  async function submit(page: Page, card: string, lang: 'fr' | 'en') {
    await saveEnabled(page);
    await fillCard(page, card, lang);
    await page.getByRole('button', { name: TEXT[lang].save }).click();
  }
  /** After a refusal: the same page, the button usable again, the reason said once. */
  async function refusedOnPage(page: Page, lang: 'fr' | 'en') {
    await saveEnabled(page);
    await page.getByText(TEXT[lang].refused).waitFor();
    assert.equal(await page.getByText(TEXT[lang].refused).count(), 1, 'the reason is said once');
  }

  for (const lang of ['fr', 'en'] as const) {
    it(`${lang}: a declined card keeps the link open; another card on the same page is saved (390 px, axe clean)`, async () => {
      const { id, url } = await link(lang);
      const { context, page } = await newPage(suite.browser, { viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
      await page.goto(url);
      await submit(page, CARDS.declined, lang);
      await refusedOnPage(page, lang);
      assert.equal(page.url(), url, 'the customer stays on the link');
      assert.deepEqual(await axeViolations(page), [], 'the page after a refusal is axe clean');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `no sideways scroll at 390 px (${width} px)`);
      const afterRefusal = await read(id);
      assert.equal(afterRefusal.status, 'open');
      assert.equal(afterRefusal.paymentMethodId, null);

      // Reopened later (another day, another tab): still the card form, not the inactive page.
      await page.goto(url);
      assert.equal(page.url(), url);
      await submit(page, CARDS.visa, lang);
      await page.getByText(TEXT[lang].saved).waitFor();
      const done = await read(id);
      assert.equal(done.status, 'completed');
      assert.equal(done.outcome, 'success');
      const pm = await t.api(m.testKey, 'GET', `/api/v1/payment-methods/${done.paymentMethodId}`);
      assert.equal(pm.body.last4, '4242');
      await page.goto(url);
      assert.match(page.url(), /\/expired/, 'a link whose card is saved is over');
      await context.close();
    });
  }

  it(`the last refused card (MOTU_MAX_CARD_ATTEMPTS=${MAX}) ends the link: failed, the page inactive, no card taken after it`, async () => {
    const { id, url } = await link('fr');
    const { context, page } = await newPage(suite.browser);
    await page.goto(url);
    for (let i = 1; i < MAX; i++) {
      await submit(page, CARDS.declined, 'fr');
      await refusedOnPage(page, 'fr');
      assert.equal((await read(id)).status, 'open', `open after refusal ${i}`);
    }
    await submit(page, CARDS.declined, 'fr');
    await page.getByText(TEXT.fr.failed).waitFor();
    const ended = await read(id);
    assert.equal(ended.status, 'completed');
    assert.equal(ended.outcome, 'failed');
    assert.equal(ended.paymentMethodId, null);
    await page.goto(url);
    assert.match(page.url(), /\/expired/);
    // A card tester going on through the API: no card is taken any more.
    const sessionId = url.split('/').pop()!;
    const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
    assert.equal(token.status, 410);
    assert.equal(token.body.code, 'SESSION_EXPIRED');
    await context.close();
  });
});
