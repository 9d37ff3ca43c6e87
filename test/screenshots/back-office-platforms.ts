// Screenshots of the marketplace and agency pages for docs/back-office.md (docs/images/back-office-*.png), light and
// dark:   node --import tsx test/screenshots/back-office-platforms.ts
// A platform with two sellers and a split payment; an agency with a client, acting for it.
import { launchBrowser, newPage, serveApp } from '../support/browser.js';
import { createMerchant } from '../support/factories.js';
import { PASSWORD } from '../support/back-office.js';
import { paidPayment } from '../support/payments.js';
import { makeAgency, makePlatform, onboardSeller } from '../support/platforms.js';
import { paidSplit } from '../support/splits.js';

const t = await serveApp('sqlite');
const browser = await launchBrowser();

async function ownerCookie(merchantId: string, email: string): Promise<[string, string]> {
  const user = await t.admin('POST', `/admin/v1/merchants/${merchantId}/users`, { email, role: 'owner' });
  const token = String(user.body.setupUrl).split('/').at(-1);
  const setUp = await t.api(undefined, 'POST', '/dashboard/api/setup', { token, password: PASSWORD });
  const [name, value] = String(setUp.headers['set-cookie']).split(';')[0]!.split('=');
  return [name!, value!];
}

try {
  const platform = await makePlatform(t, 'Fenua Market');
  const a = await onboardSeller(t, platform.testKey, { legalName: 'Vanille Tahaa' });
  const b = await onboardSeller(t, platform.testKey, { legalName: 'Perles Rikitea' });
  const split = await paidSplit(t, platform.testKey, {
    amount: 10_000,
    distribution: [
      { merchantId: a.merchantId, amount: 6000, commission: { rate: 1000, fixed: 50 } },
      { merchantId: b.merchantId, amount: 5000, commission: { rate: 500 }, discount: 1000 },
    ],
    financing: 2000,
  });
  await t.api(platform.testKey, 'POST', '/api/v1/payments/sessions', {
    order: { reference: 'ORD-1', amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/return',
  });
  const platformCookie = await ownerCookie(platform.id, 'heimana@fenua-market.example');

  const agency = await makeAgency(t, 'Agence Moana');
  const client = await createMerchant(t, 'Client SARL');
  await paidPayment(t, client.testKey, { amount: 4200 });
  const invited = await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'owner@client.example', scopes: ['payments.read', 'customers.read', 'balance.read'] });
  await t.api(client.testKey, 'POST', `/api/v1/agency-invitations/${String(invited.body.url).split('/').at(-1)}/accept`, {});
  await t.api(agency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'contact@roulotte.example', scopes: ['payments.read', 'refunds.write'] });
  const agencyCookie = await ownerCookie(agency.id, 'tiare@agence-moana.example');

  for (const scheme of ['light', 'dark'] as const) {
    const { context, page } = await newPage(browser, { colorScheme: scheme, locale: 'en-GB', viewport: { width: 1200, height: 860 } });
    const shot = async (name: string) => {
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `docs/images/back-office-${name}-${scheme}.png`, fullPage: false });
    };
    await context.addCookies([{ name: platformCookie[0], value: platformCookie[1], url: t.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
    await page.goto(`${t.baseUrl}/dashboard/platform/sellers`);
    await page.getByRole('link', { name: 'Vanille Tahaa' }).waitFor();
    await shot('sellers');
    await page.goto(`${t.baseUrl}/dashboard/payments/${split}`);
    await page.getByRole('heading', { name: 'Distribution to sellers' }).scrollIntoViewIfNeeded();
    await page.getByRole('link', { name: 'Vanille Tahaa' }).first().waitFor();
    await shot('distribution');
    await context.clearCookies();
    await context.addCookies([{ name: agencyCookie[0], value: agencyCookie[1], url: t.baseUrl, httpOnly: true, sameSite: 'Lax' }]);
    await page.goto(`${t.baseUrl}/dashboard/agency/portfolio`);
    await page.getByRole('button', { name: 'Act for Client SARL' }).waitFor();
    await shot('portfolio');
    await page.getByRole('button', { name: 'Act for Client SARL' }).click();
    await page.getByText('Acting for Client SARL').waitFor();
    await page.getByRole('table').waitFor();
    await shot('acting');
    await page.getByRole('button', { name: 'Back to Agence Moana' }).click();
    await context.close();
  }
} finally {
  await browser.close();
  await t.close();
}
