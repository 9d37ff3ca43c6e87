// Browser tests: Debian's Chromium driven by playwright-core, against a Motu app listening on a real
// loopback port (its MOTU_PUBLIC_URL is that port, so 3-D Secure return URLs and frames line up).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Dialect } from '../../src/db/database.js';
import { startApp, type TestApp, type TestAppOptions } from './harness.js';
import { freePort } from './ports.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface ServedApp extends TestApp {
  baseUrl: string;
}

/** A fresh app listening on 127.0.0.1 with MOTU_PUBLIC_URL set to its own address. */
export async function serveApp(dialect: Dialect, options: TestAppOptions = {}): Promise<ServedApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startApp(dialect, { ...options, env: { MOTU_PUBLIC_URL: baseUrl, ...options.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(t, { baseUrl });
}

export interface PageOptions {
  colorScheme?: 'light' | 'dark';
  locale?: string;
  viewport?: { width: number; height: number };
}

export async function newPage(browser: Browser, options: PageOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    locale: options.locale ?? 'fr-FR',
    viewport: options.viewport ?? { width: 1100, height: 900 },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** The secure fields' accessible names, as the pages and the component label them in each language. */
const FIELD_NAMES = {
  en: { number: 'Card number', expiry: 'Expiry date', cvc: 'Security code' },
  fr: { number: 'Numéro de carte', expiry: "Date d'expiration", cvc: 'Cryptogramme' },
} as const;

/** Types a card into the secure fields (each its own frame), found by their names in the page's language. */
export async function fillCard(page: Page, number: string, lang: 'en' | 'fr'): Promise<void> {
  const names = FIELD_NAMES[lang];
  await page.frameLocator(`iframe[title="${names.number}"]`).getByLabel(names.number).fill(number);
  await page.frameLocator(`iframe[title="${names.expiry}"]`).getByLabel(names.expiry).fill('12/34');
  await page.frameLocator(`iframe[title="${names.cvc}"]`).getByLabel(names.cvc).fill('123');
}
