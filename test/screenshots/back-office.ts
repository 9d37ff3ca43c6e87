// Screenshots of the back-office for docs/back-office.md (docs/images/back-office-*.png), light and dark:
//   node --import tsx test/screenshots/back-office.ts
// A merchant with a few payments (one refunded in part, one declined first), its owner signed in through the pages.
import { launchBrowser, newPage, serveApp } from '../support/browser.js';
import { CARDS } from '../support/cards.js';
import { createMerchant } from '../support/factories.js';
import { PASSWORD } from '../support/back-office.js';
import { createSession, paySession } from '../support/payments.js';

const t = await serveApp('sqlite');
const browser = await launchBrowser();
try {
  const merchant = await createMerchant(t, 'Fare Ute');
  await t.admin('PATCH', `/admin/v1/merchants/${merchant.id}`, { displayName: 'Fare Ute · Papeete' });
  const payments: string[] = [];
  for (const [amount, currency] of [[6800, 'XPF'], [5690, 'EUR'], [12500, 'XPF'], [2400, 'EUR'], [31000, 'XPF']] as const) {
    const session = await createSession(t, merchant.testKey, { amount, currency });
    await paySession(t, session.sessionId, payments.length === 2 ? CARDS.declined : CARDS.visa).catch(() => undefined);
    if (payments.length === 2) await paySession(t, session.sessionId);
    payments.push(session.paymentId);
  }
  await t.api(merchant.testKey, 'POST', `/api/v1/payments/${payments[0]}/refund`, { amount: 2500, reason: 'One pareo returned' });
  const user = await t.admin('POST', `/admin/v1/merchants/${merchant.id}/users`, { email: 'hinano@fare-ute.example', role: 'owner' });
  const token = String(user.body.setupUrl).split('/').at(-1);
  const setUp = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
  const cookie = String(setUp.headers['set-cookie']).split(';')[0]!.split('=');

  const shots: Array<[name: string, path: string, ready: string]> = [
    ['home', '/', 'Home'],
    ['payments', '/payments', 'Payments'],
    ['payment', `/payments/${payments[0]}`, 'Timeline'],
    ['developers', '/developers/webhooks', 'Webhook endpoints'],
    ['go-live', '/go-live', 'Go live'],
  ];
  for (const scheme of ['light', 'dark'] as const) {
    const { context, page } = await newPage(browser, { colorScheme: scheme, locale: 'en-GB', viewport: { width: 1200, height: 860 } });
    await context.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: t.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
    for (const [name, path, ready] of shots) {
      await page.goto(`${t.baseUrl}/dashboard${path}`);
      await page.getByRole('heading', { name: ready }).first().waitFor();
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `docs/images/back-office-${name}-${scheme}.png`, fullPage: false });
    }
    await context.close();
  }
  const { context, page } = await newPage(browser, { locale: 'fr-FR', viewport: { width: 390, height: 844 } });
  await context.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: t.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
  await page.goto(`${t.baseUrl}/dashboard/payments/${payments[0]}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: 'docs/images/back-office-payment-fr-mobile.png', fullPage: false });
  // The payments list at 390 px: each payment a card, its reference, amount, status and date first.
  await page.goto(`${t.baseUrl}/dashboard/payments`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.locator('.table-wrap').scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'docs/images/back-office-payments-fr-mobile.png', fullPage: false });
  // The header's menu open: the navigation and the header's tools.
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'docs/images/back-office-menu-fr-mobile.png', fullPage: false });
  await context.close();
} finally {
  await browser.close();
  await t.close();
}
