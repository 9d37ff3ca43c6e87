// Browser tests: Debian's Chromium driven by playwright-core, against a Motu app listening on a real
// loopback port (its MOTU_PUBLIC_URL is that port, so 3-D Secure return URLs and frames line up).
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Dialect } from '../../src/db/database.js';
import { startApp, type TestApp, type TestAppOptions } from './harness.js';

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

/** A free loopback port (asked of the OS, then released for the app to take). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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
