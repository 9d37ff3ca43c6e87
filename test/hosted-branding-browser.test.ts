// The hosted pages as one product, in Chromium at a phone's width (390 px), French and English: checkout, success,
// failure, expired, card registration, card link and invoice page all wear the same header (the merchant's name,
// colour and uploaded logo) and the same test banner, without sideways scroll and axe clean. The logo upload (admin
// API and back-office) takes PNG, JPEG and WebP by their bytes and refuses anything else with a 400 that changes
// nothing; the logo is served by its digest with a year's cache and nosniff. The failure page's "Try again" and
// "Use another card" open the card form they name; the success page shows the merchant's order reference; the card
// number is never cut by the brand badge.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { axeViolations } from './support/axe.js';
import { signedInUser } from './support/back-office.js';
import { fillCard, newPage } from './support/browser.js';
import { CARDS } from './support/cards.js';
import { createCustomer } from './support/factories.js';
import { saveCard } from './support/wallet.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

const PHONE = { width: 390, height: 844 };
const NAME = 'Boutique Ōrama';
const PRIMARY = '#0f766e';
const BANNER = { fr: 'Mode test : aucun paiement réel', en: 'Test mode: no real payment is made' } as const;
const TEXT = {
  fr: { pay: /^Payer /, retry: 'Réessayer', other: 'Utiliser une autre carte', reference: 'Commande' },
  en: { pay: /^Pay /, retry: 'Try again', other: 'Use another card', reference: 'Order' },
} as const;

/** A real PNG of `width` × `height` pixels, one colour (IHDR, IDAT, IEND with their CRCs). */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([0x0f, 0x76, 0x6e]))]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}
const b64 = (bytes: Buffer) => bytes.toString('base64');

eachDatabase('the hosted pages as one product', (dialect) => {
  const suite = withMerchantApp(dialect, { serve: true, browser: true, merchantName: 'Orama SARL' });
  const { t, m } = suite;
  const api = (method: string, url: string, body?: unknown) => t.api(m.testKey, method, url, body);

  async function brand() {
    const patched = await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, {
      displayName: NAME, primaryColor: PRIMARY, legalName: 'Orama SARL', registrationNumber: 'TAHITI B7',
      address: { line1: 'Rue Jeanne dʼArc', postalCode: '98713', city: 'Papeete', country: 'PF' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const logo = await t.admin('PUT', `/admin/v1/merchants/${m.id}/logo`, { image: b64(png(32, 32)) });
    assert.equal(logo.status, 200, JSON.stringify(logo.body));
    return logo.body.logoUrl as string;
  }

  async function session(lang: 'fr' | 'en', reference = `CMD-${lang}-${Math.random().toString(36).slice(2, 7)}`) {
    const res = await api('POST', '/api/v1/payments/sessions', {
      order: { reference, amount: 2500, currency: 'XPF' }, email: 'client@example.com', languageCode: lang,
      redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook', successPageMode: 'show',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { ...(res.body as { sessionId: string; checkoutUrl: string; paymentId: string }), reference };
  }

  /** The header, the banner, the width and axe: the same on every page. */
  async function looksLikeMotu(page: Page, lang: 'fr' | 'en', logoUrl: string, what: string) {
    assert.equal(await page.getAttribute('html', 'lang'), lang, what);
    assert.equal((await page.locator('header.top .merchant-name').innerText()).trim(), NAME, `${what}: the merchant's name`);
    const logo = page.locator('header.top img.logo-img');
    assert.equal(await logo.getAttribute('src'), logoUrl, `${what}: the uploaded logo`);
    await page.waitForFunction(() => (document.querySelector('header.top img.logo-img') as HTMLImageElement | null)?.complete);
    assert.equal(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth), 32, `${what}: the logo loads (CSP img-src 'self')`);
    const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
    assert.equal(accent, PRIMARY, `${what}: the merchant's colour`);
    assert.deepEqual(await page.locator('p.test').allInnerTexts(), [BANNER[lang]], `${what}: one test banner, the same words`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `${what}: no sideways scroll at 390 px (${width} px)`);
    const margin = await page.locator('.page').evaluate((el) => el.getBoundingClientRect().left + parseFloat(getComputedStyle(el).paddingLeft));
    assert.ok(margin >= 12, `${what}: the content keeps off the screen's edge (${margin} px)`);
    assert.deepEqual(await axeViolations(page), [], `${what}: axe clean`);
  }

  for (const lang of ['fr', 'en'] as const) {
    it(`${lang}: checkout, failure, success, expired, wallet, card link and invoice pages share one header and banner (390 px, axe clean)`, async () => {
      const logoUrl = await brand();
      const { context, page } = await newPage(suite.browser, { viewport: PHONE, locale: lang === 'fr' ? 'fr-FR' : 'en-GB' });
      try {
        const s = await session(lang);
        await page.goto(s.checkoutUrl);
        await page.getByRole('button', { name: TEXT[lang].pay }).waitFor();
        await looksLikeMotu(page, lang, logoUrl, 'checkout');

        // Refused: the failure page; "Use another card" opens the card form on a new card, "Try again" the same page.
        await fillCard(page, CARDS.declined, lang);
        await page.getByRole('button', { name: TEXT[lang].pay }).click();
        await page.waitForURL(/\/checkout\/failed/);
        await looksLikeMotu(page, lang, logoUrl, 'failure');
        await page.getByRole('link', { name: TEXT[lang].other }).click();
        await page.waitForURL((url) => url.pathname === `/checkout/${s.sessionId}` && url.searchParams.get('card') === 'new');
        assert.equal(await page.locator('#card-block').isVisible(), true, 'another card: the card form is shown');
        await page.goBack();
        await page.getByRole('link', { name: TEXT[lang].retry }).click();
        await page.waitForURL((url) => url.pathname === `/checkout/${s.sessionId}`);
        await page.getByRole('button', { name: TEXT[lang].pay }).waitFor();

        // Paid: the success page shows the merchant's order reference.
        await fillCard(page, CARDS.visa, lang);
        await page.getByRole('button', { name: TEXT[lang].pay }).click();
        await page.waitForURL(/\/checkout\/success/);
        assert.equal((await page.locator('#order-reference').innerText()).trim(), s.reference);
        await looksLikeMotu(page, lang, logoUrl, 'success');

        // A session paid already and opened from an old link's path: the expired page, still with the merchant's header.
        await page.goto(`${suite.baseUrl}/expired?lang=${lang}&sessionId=${s.sessionId}`);
        await looksLikeMotu(page, lang, logoUrl, 'expired');

        const customer = await createCustomer(t, m.testKey);
        const wallet = await api('POST', `/api/v1/customers/${customer}/sessions`, { returnUrl: 'https://shop.example/cards', locale: lang });
        assert.equal(wallet.status, 201, JSON.stringify(wallet.body));
        await page.goto(wallet.body.redirectUrl);
        await page.waitForFunction(() => !(document.getElementById('save') as HTMLButtonElement | null)?.disabled);
        await looksLikeMotu(page, lang, logoUrl, 'wallet');

        const link = await api('POST', `/api/v1/customers/${customer}/card-links`, { locale: lang });
        assert.equal(link.status, 201, JSON.stringify(link.body));
        await page.goto(link.body.url);
        await page.waitForFunction(() => !(document.getElementById('save') as HTMLButtonElement | null)?.disabled);
        await looksLikeMotu(page, lang, logoUrl, 'card link');

        const cus = (await api('POST', '/api/v1/customers', { name: 'Moana', email: `moana-${lang}@example.com` })).body.id;
        const inv = await api('POST', '/api/v1/billing/invoices', { customerId: cus, currency: 'XPF', lines: [{ description: 'Cours de vaʻa avec un intitulé assez long pour un écran de téléphone', quantity: 4, unitPrice: 2_500, taxRate: 1300 }] });
        assert.equal(inv.status, 201, JSON.stringify(inv.body));
        const finalized = await api('POST', `/api/v1/billing/invoices/${inv.body.id}/finalize`);
        assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
        const sent = await api('POST', `/api/v1/billing/invoices/${inv.body.id}/send`);
        assert.equal(sent.status, 200, JSON.stringify(sent.body));
        await page.goto(lang === 'en' ? `${sent.body.url}?lang=en` : sent.body.url);
        await looksLikeMotu(page, lang, logoUrl, 'invoice');
      } finally {
        await context.close();
      }
    });
  }

  it('after a saved card is refused, "Try again" reopens the checkout on that card, "Use another card" on the card form', async () => {
    const customerId = await createCustomer(t, m.testKey);
    await saveCard(t, m.testKey, customerId, CARDS.visa);
    const declining = (await saveCard(t, m.testKey, customerId, CARDS.saveThenDecline)).result.paymentMethodId as string;
    const res = await api('POST', '/api/v1/payments/sessions', {
      order: { reference: 'CMD-saved', amount: 2500, currency: 'XPF' }, customerId, languageCode: 'en',
      redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { sessionId } = res.body as { sessionId: string };
    const paid = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { paymentMethodId: declining });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const failed = await t.api(undefined, 'GET', `/checkout/failed?sessionId=${sessionId}`);
    const href = (id: string) => new RegExp(`id="${id}" href="([^"]+)"`).exec(failed.body)?.[1]?.replaceAll('&amp;', '&');
    assert.equal(href('retry'), `/checkout/${sessionId}?card=${declining}`);
    assert.equal(href('other-card'), `/checkout/${sessionId}?card=new#card-title`);
    const chosen = (html: string) => /<input type="radio" name="card" value="([^"]+)" checked>/.exec(html)?.[1];
    const retry = await t.api(undefined, 'GET', href('retry')!);
    assert.equal(chosen(retry.body), declining, 'Try again: the refused saved card is chosen again');
    assert.match(retry.body, /<div id="card-block" role="group" aria-labelledby="card-title" hidden>/);
    const other = await t.api(undefined, 'GET', href('other-card')!.split('#')[0]!);
    assert.equal(chosen(other.body), 'new', 'Use another card: the card form');
    assert.match(other.body, /<div id="card-block" role="group" aria-labelledby="card-title">/);
  });

  it('at 390 px the card number is never cut by the brand badge (Visa, Mastercard, CB · Visa)', async () => {
    const s = await session('fr');
    const { context, page } = await newPage(suite.browser, { viewport: PHONE });
    try {
      await page.goto(s.checkoutUrl);
      const frame = page.frames().find((f) => f.url().includes('/acquirer/v1/fields/number'))!;
      for (const card of [CARDS.visa, CARDS.mastercard, CARDS.cbVisa]) {
        await page.frameLocator('iframe[title="Numéro de carte"]').getByLabel('Numéro de carte').fill(card);
        const fit = await frame.evaluate(() => {
          const input = document.querySelector('input')!;
          const badge = document.getElementById('brand')!;
          const style = getComputedStyle(input);
          const ctx = document.createElement('canvas').getContext('2d')!;
          ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const text = ctx.measureText(input.value).width + (parseFloat(style.letterSpacing) || 0) * input.value.length;
          const textEnd = input.getBoundingClientRect().left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft) + text;
          return { badge: badge.textContent, textEnd: Math.ceil(textEnd), badgeStart: Math.floor(badge.getBoundingClientRect().left) };
        });
        assert.ok(fit.badge, `a badge for ${card}`);
        assert.ok(fit.textEnd <= fit.badgeStart, `${card}: the number ends (${fit.textEnd}) before the badge ${fit.badge} (${fit.badgeStart})`);
      }
    } finally {
      await context.close();
    }
  });

  it('the logo upload refuses SVG, other types, a file too large or of odd size with a 400, and changes nothing', async () => {
    const good = await t.admin('PUT', `/admin/v1/merchants/${m.id}/logo`, { image: b64(png(64, 48)) });
    assert.equal(good.status, 200, JSON.stringify(good.body));
    const logoUrl = good.body.logoUrl as string;
    assert.match(logoUrl, new RegExp(`^/branding/logos/${m.id}/[0-9a-f]{64}$`));
    const served = await fetch(`${suite.baseUrl}${logoUrl}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.match(String(served.headers.get('cache-control')), /max-age=31536000/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), png(64, 48));

    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><script>alert(1)</script></svg>');
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64)]);
    const big = Buffer.concat([png(32, 32), Buffer.alloc(600 * 1024)]);
    for (const [what, image, reason] of [
      ['an SVG', b64(svg), 'type'], ['a GIF', b64(gif), 'type'], ['an HTML page', b64(Buffer.from('<!doctype html><p>hi</p>')), 'type'],
      ['600 KB', b64(big), 'size'], ['4000 px wide', b64(png(4000, 20)), 'dimensions'], ['8 px', b64(png(8, 8)), 'dimensions'], ['not base64', '%%%', undefined],
    ] as const) {
      const res = await t.admin('PUT', `/admin/v1/merchants/${m.id}/logo`, { image });
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body).slice(0, 200)}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR', what);
      assert.equal(typeof res.body.message, 'string', what);
      assert.equal(res.body.details.field, 'image', what);
      if (reason) assert.equal(res.body.details.reason, reason, what);
      assert.equal((await t.admin('GET', `/admin/v1/merchants/${m.id}`)).body.logoUrl, logoUrl, `${what}: the logo is unchanged`);
    }

    // The back-office's settings: the same rules; a support user may not change the logo.
    const owner = await signedInUser(t, m.id, 'owner');
    const refused = await owner.call('PUT', '/dashboard/api/settings/logo', { image: b64(svg) });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.details.reason, 'type');
    const support = await signedInUser(t, m.id, 'support');
    assert.equal((await support.call('PUT', '/dashboard/api/settings/logo', { image: b64(png(32, 32)) })).status, 403);
    const changed = await owner.call('PUT', '/dashboard/api/settings/logo', { image: b64(png(40, 40)) });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.notEqual(changed.body.logoUrl, logoUrl, 'a new picture, a new URL');
    assert.equal((await fetch(`${suite.baseUrl}${logoUrl}`)).status, 404, 'the old URL no longer answers');
    const removed = await owner.call('DELETE', '/dashboard/api/settings/logo');
    assert.equal(removed.body.logoUrl, null);
  });
});
