// The paying customer's pages in Chromium at a phone's width (390 px), French and English, light and dark: the
// languages offered, the layout, a paid session opened again, the 3-D Secure dialog, the paths a mobile app's web
// view watches, and axe-core's WCAG A/AA rules on every page.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { fillCard, newPage } from './support/browser.js';
import { createCustomer } from './support/factories.js';
import { eachDatabase, ManualClock } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const SHOP = 'https://shop.example';
const PHONE = { width: 390, height: 844 };
const NAMES = {
  en: { number: 'Card number', expiry: 'Expiry date', cvc: 'Security code', pay: /^Pay /, save: 'Save card' },
  fr: { number: 'Numéro de carte', expiry: "Date d'expiration", cvc: 'Cryptogramme', pay: /^Payer /, save: 'Enregistrer la carte' },
} as const;

eachDatabase("the paying customer's pages", (dialect) => {
  const clock = new ManualClock();
  const suite = withMerchantApp(dialect, { clock, serve: true, browser: true, merchantName: 'Fare ʻUte — Pāpeʻete' });
  const { t, m: merchant } = suite;

  async function session(overrides: Record<string, unknown> = {}) {
    const res = await t.api(merchant.testKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-7', amount: 2500, currency: 'XPF', items: [{ product: 'Pāreu Tiʻare', unitPrice: 2500, quantity: 1 }] },
      redirectUrl: `${SHOP}/return?cart=7`, notificationUrl: `${SHOP}/hook`, email: 'client@example.com', languageCode: 'en',
      ...overrides,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { paymentId: string; sessionId: string; checkoutUrl: string };
  }

  async function walletUrl(locale: string) {
    const customer = await createCustomer(t, merchant.testKey);
    const res = await t.api(merchant.testKey, 'POST', `/api/v1/customers/${customer}/sessions`, { returnUrl: `${SHOP}/cards`, locale });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.redirectUrl as string;
  }

  /** A phone-sized page; the merchant's site answers with a stub; every main-frame navigation is recorded. */
  async function open(url: string, options: { colorScheme?: 'light' | 'dark' } = {}) {
    const { context, page } = await newPage(suite.browser, { colorScheme: options.colorScheme, viewport: PHONE });
    await context.route(`${SHOP}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Shop</title><h1>Shop</h1></html>' }));
    const visited: string[] = [];
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) visited.push(frame.url()); });
    await page.goto(url);
    return { context, page, visited };
  }

  async function status(paymentId: string) {
    return (await t.api(merchant.testKey, 'GET', `/api/v1/payments/${paymentId}`)).body.status as string;
  }

  /** Each secure field's placeholder against the room its input leaves for text. */
  async function placeholdersFit(page: Page): Promise<Array<{ field: string; text: number; room: number }>> {
    const frames = page.frames().filter((f) => f.url().includes('/acquirer/v1/fields/'));
    assert.equal(frames.length, 3);
    return Promise.all(frames.map((f) => f.evaluate(() => {
      const input = document.querySelector('input')!;
      const style = getComputedStyle(input);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const spacing = parseFloat(style.letterSpacing) || 0;
      const text = ctx.measureText(input.placeholder).width + spacing * input.placeholder.length;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return { field: document.documentElement.dataset.field ?? '', text: Math.ceil(text), room: Math.floor(room) };
    })));
  }

  it('a languageCode the pages do not speak (de) gets English; fr-PF gets French (checkout and wallet)', async () => {
    const de = await open((await session({ languageCode: 'de' })).checkoutUrl);
    assert.equal(await de.page.getAttribute('html', 'lang'), 'en');
    await de.page.getByRole('button', { name: NAMES.en.pay }).waitFor();
    await de.page.frameLocator(`iframe[title="${NAMES.en.number}"]`).getByLabel(NAMES.en.number).waitFor();
    await de.context.close();

    const pf = await open((await session({ languageCode: 'fr-PF' })).checkoutUrl);
    await pf.page.getByRole('button', { name: NAMES.fr.pay }).waitFor();
    await pf.context.close();

    const wallet = await open(await walletUrl('de-DE'));
    assert.equal(await wallet.page.getAttribute('html', 'lang'), 'en');
    await wallet.page.getByRole('button', { name: NAMES.en.save }).waitFor();
    await wallet.page.frameLocator(`iframe[title="${NAMES.en.number}"]`).getByLabel(NAMES.en.number).waitFor();
    await wallet.context.close();
  });

  it('at 390 px: the card placeholders fit their fields (checkout, wallet), the wallet panel keeps a margin, one wallet heading', async () => {
    for (const lang of ['fr', 'en'] as const) {
      const checkout = await open((await session({ languageCode: lang })).checkoutUrl);
      await checkout.page.getByRole('button', { name: NAMES[lang].pay }).waitFor();
      for (const f of await placeholdersFit(checkout.page)) assert.ok(f.text <= f.room, `checkout ${lang} ${f.field}: ${f.text} px of placeholder in ${f.room} px`);
      await checkout.context.close();

      const wallet = await open(await walletUrl(lang));
      const save = wallet.page.getByRole('button', { name: NAMES[lang].save });
      await save.waitFor();
      await wallet.page.waitForFunction(() => !(document.getElementById('save') as HTMLButtonElement).disabled);
      for (const f of await placeholdersFit(wallet.page)) assert.ok(f.text <= f.room, `wallet ${lang} ${f.field}: ${f.text} px of placeholder in ${f.room} px`);
      const panel = (await wallet.page.locator('main').boundingBox())!;
      assert.ok(panel.x >= 12, `the wallet panel starts ${panel.x} px from the left edge`);
      assert.ok(PHONE.width - (panel.x + panel.width) >= 12, 'the wallet panel keeps a margin on the right');
      const heading = lang === 'fr' ? 'Enregistrer une carte' : 'Save a card';
      assert.equal(await wallet.page.getByText(heading, { exact: true }).count(), 1, 'the page title is not repeated by the card component');
      await wallet.context.close();
    }
  });

  it('a paid session opened again says it is paid, with the way back; expired and cancelled keep their own wording', async () => {
    for (const lang of ['en', 'fr'] as const) {
      const s = await session({ languageCode: lang, successPageMode: 'show' });
      const { context, page } = await open(s.checkoutUrl);
      await fillCard(page, '4242424242424242', lang);
      await page.getByRole('button', { name: NAMES[lang].pay }).click();
      await page.waitForURL(/\/checkout\/success\?/);
      await page.goto(s.checkoutUrl);
      await page.getByRole('heading', { name: lang === 'en' ? 'This order is already paid' : 'Cette commande est déjà payée' }).waitFor();
      const text = await page.locator('main').innerText();
      assert.doesNotMatch(text, /start again|recommencez|no longer active|plus active/i);
      const back = new URL((await page.getByRole('link', { name: lang === 'en' ? 'Return to Fare ʻUte — Pāpeʻete' : 'Revenir chez Fare ʻUte — Pāpeʻete' }).getAttribute('href'))!);
      assert.equal(back.origin + back.pathname, `${SHOP}/return`);
      assert.equal(back.searchParams.get('status'), 'success');
      assert.equal(back.searchParams.get('paymentId'), s.paymentId);
      assert.equal(await status(s.paymentId), 'captured');
      await context.close();
    }

    const expired = await session({ expiresIn: 60 });
    clock.advance(61_000);
    const e = await open(expired.checkoutUrl);
    await e.page.getByRole('heading', { name: 'This payment page is no longer active' }).waitFor();
    assert.equal(await e.page.locator('main').innerText().then((x) => x.includes('⏱')), false, 'no clock glyph read aloud');
    assert.equal(await e.page.locator('.icon svg[aria-hidden="true"]').count(), 1);
    await e.context.close();

    const cancelled = await session();
    const c = await open(cancelled.checkoutUrl);
    await c.page.getByRole('link', { name: 'Cancel and return to the merchant' }).click();
    await c.page.waitForURL(`${SHOP}/**`);
    await c.page.goto(cancelled.checkoutUrl);
    await c.page.getByRole('heading', { name: 'This payment page is no longer active' }).waitFor();
    await c.context.close();
  });

  it('3-D Secure dialog: Escape and a labelled close button abandon the attempt and give the card form back; French buttons on a French page', async () => {
    const s = await session({ languageCode: 'fr' });
    const { context, page } = await open(s.checkoutUrl);
    await fillCard(page, '4000000000003220', 'fr');
    await page.getByRole('button', { name: NAMES.fr.pay }).click();
    const bank = page.frameLocator('#challenge-frame');
    await bank.getByRole('button', { name: 'Authentifier', exact: true }).waitFor();
    await bank.getByRole('button', { name: "Faire échouer l'authentification" }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#challenge').waitFor({ state: 'hidden' });
    await page.getByRole('alert').filter({ hasText: "L'authentification a été annulée" }).waitFor();
    assert.equal(await page.getByRole('button', { name: NAMES.fr.pay }).isEnabled(), true);
    assert.equal(await status(s.paymentId), 'pending');

    await page.getByRole('button', { name: NAMES.fr.pay }).click();
    await bank.getByRole('button', { name: 'Authentifier', exact: true }).waitFor();
    await page.getByRole('button', { name: "Fermer l'authentification et revenir au formulaire de carte" }).click();
    await page.locator('#challenge').waitFor({ state: 'hidden' });
    assert.equal(await status(s.paymentId), 'pending');

    // The card form works again: another card pays.
    await fillCard(page, '4242424242424242', 'fr');
    await page.getByRole('button', { name: NAMES.fr.pay }).click();
    await page.waitForURL(`${SHOP}/**`);
    assert.equal(await status(s.paymentId), 'captured');
    await context.close();
  });

  it('success always passes through /checkout/success and refusal through /checkout/failed, 3-D Secure included', async () => {
    const landedVia = (visited: string[], path: string) => {
      const i = visited.findIndex((u) => new URL(u).pathname === path);
      const j = visited.findIndex((u) => u.startsWith(SHOP));
      assert.ok(i >= 0, `${path} in ${visited.join(' → ')}`);
      assert.ok(j > i, `the merchant after ${path}: ${visited.join(' → ')}`);
    };
    // Email known, successPageMode auto: the merchant's page, but through /checkout/success.
    const ok = await open((await session()).checkoutUrl);
    await fillCard(ok.page, '4242424242424242', 'en');
    await ok.page.getByRole('button', { name: NAMES.en.pay }).click();
    await ok.page.waitForURL(`${SHOP}/**`);
    assert.equal(new URL(ok.page.url()).searchParams.get('status'), 'success');
    landedVia(ok.visited, '/checkout/success');
    await ok.context.close();

    const challenged = await open((await session({ successPageMode: 'redirect' })).checkoutUrl);
    await fillCard(challenged.page, '4000000000003220', 'en');
    await challenged.page.getByRole('button', { name: NAMES.en.pay }).click();
    await challenged.page.frameLocator('#challenge-frame').getByRole('button', { name: 'Authenticate', exact: true }).click();
    await challenged.page.waitForURL(`${SHOP}/**`);
    landedVia(challenged.visited, '/checkout/success');
    await challenged.context.close();

    const ko = await open((await session({ failurePageMode: 'redirect', failureRedirectUrl: `${SHOP}/failed` })).checkoutUrl);
    await fillCard(ko.page, '4000000000000002', 'en');
    await ko.page.getByRole('button', { name: NAMES.en.pay }).click();
    await ko.page.waitForURL(`${SHOP}/**`);
    assert.equal(new URL(ko.page.url()).searchParams.get('status'), 'failed');
    landedVia(ko.visited, '/checkout/failed');
    await ko.context.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    for (const lang of ['fr', 'en'] as const) {
      it(`axe-core finds no WCAG A/AA violation on any page (${lang}, ${scheme})`, async () => {
        const problems: string[] = [];
        const check = async (name: string, page: Page) => {
          for (const v of await axeViolations(page)) problems.push(`${name} [${v.frame}]: ${v.id} (${v.help}) ${v.targets.join(' ')}`);
        };
        let context: BrowserContext;
        let page: Page;

        const s = await session({ languageCode: lang, successPageMode: 'show' });
        ({ context, page } = await open(s.checkoutUrl, { colorScheme: scheme }));
        await page.getByRole('button', { name: NAMES[lang].pay }).waitFor();
        await check('checkout', page);
        await fillCard(page, '4000000000003220', lang);
        await page.getByRole('button', { name: NAMES[lang].pay }).click();
        await page.frameLocator('#challenge-frame').getByRole('button', { name: lang === 'fr' ? 'Authentifier' : 'Authenticate', exact: true }).waitFor();
        await check('3-D Secure', page);
        await page.frameLocator('#challenge-frame').getByRole('button', { name: lang === 'fr' ? 'Authentifier' : 'Authenticate', exact: true }).click();
        await page.waitForURL(/\/checkout\/success\?/);
        await check('success', page);
        await page.goto(s.checkoutUrl);
        await check('already paid', page);
        await context.close();

        const failed = await session({ languageCode: lang });
        ({ context, page } = await open(failed.checkoutUrl, { colorScheme: scheme }));
        await fillCard(page, '4000000000000002', lang);
        await page.getByRole('button', { name: NAMES[lang].pay }).click();
        await page.waitForURL(/\/checkout\/failed\?/);
        await check('failed', page);
        await page.goto(`${suite.baseUrl}/expired?lang=${lang}`);
        await check('expired', page);
        await context.close();

        ({ context, page } = await open(await walletUrl(lang), { colorScheme: scheme }));
        await page.waitForFunction(() => !(document.getElementById('save') as HTMLButtonElement).disabled);
        await check('wallet with the card component', page);
        await context.close();

        assert.deepEqual(problems, []);
      });
    }
  }
});
