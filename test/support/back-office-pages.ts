// The back-office's browser tests' common steps: a page signed in as a user, axe in light and dark, no sideways scroll.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import type { UserClient } from './back-office.js';
import { newPage } from './browser.js';
import type { AppFixture } from './merchant-app.js';

/** A new page of `suite`'s Chromium, signed in as `user` (its session cookie), in `lang`, clipboard allowed. */
export async function signedInPage(suite: Pick<AppFixture, 'browser' | 'baseUrl'>, user: UserClient, lang: 'en' | 'fr', viewport?: { width: number; height: number }): Promise<Page> {
  const { context, page } = await newPage(suite.browser, { locale: lang === 'fr' ? 'fr-FR' : 'en-GB', ...(viewport ? { viewport } : {}) });
  const eq = user.cookie.indexOf('=');
  await context.addCookies([{ name: user.cookie.slice(0, eq), value: user.cookie.slice(eq + 1), url: suite.baseUrl }]);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.baseUrl });
  return page;
}

/** Axe finds nothing on the page, in light then dark; the page is left light. */
export async function accessible(page: Page, what: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page), [], `${what} (${colorScheme})`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The page does not scroll sideways (at 390 px, say). */
export async function noSideways(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${what} scrolls sideways by ${overflow}px`);
}
