// @motu/js: loads Motu's web SDK from your Motu (`{baseUrl}/sdk/v1/motu.js`) once, as an ES module import, and hands
// back its global typed. The SDK itself is always the one your Motu serves, so the card component matches the API.
//
//   import { loadMotu } from '@motu/js';
//   const motu = await loadMotu({ baseUrl: 'https://pay.example.com' });
//   const controller = await motu.mount({ session: 'ses_…', container: '#card' });
import type { Controller, MountOptions } from './generated/sdk.js';

export type * from './generated/sdk.js';

/** The SDK's global (`window.Service`). */
export interface MotuSdk {
  /** The SDK's version (`'1'`). */
  readonly version: string;
  /** Renders the card component in `options.container`; rejects (with `code`) when it cannot. */
  mount(options: MountOptions): Promise<Controller>;
}

/** What mount() rejects with: an Error carrying the component's error code (`SESSION_EXPIREE`, `NAVIGATEUR_INCOMPATIBLE`…). */
export type MountError = Error & { code: string };

export interface LoadMotuOptions {
  /** Where your Motu answers, e.g. `https://pay.example.com`. */
  baseUrl: string;
  /** A Subresource Integrity hash (`sha384-…`), from `{baseUrl}/sdk/v1/manifest.json` with its versioned `file`. */
  integrity?: string;
  /** The script's path under baseUrl: `/sdk/v1/motu.js` by default, or the versioned file of the manifest. */
  path?: string;
  /** Your page's CSP nonce, if its script-src uses nonces. */
  nonce?: string;
  /** Milliseconds to wait for the script. Default 15 000. */
  timeoutMs?: number;
}

declare global {
  interface Window {
    Service?: MotuSdk;
  }
}

const loading = new Map<string, Promise<MotuSdk>>();

function sdkOf(win: Window): MotuSdk | null {
  const sdk = win.Service;
  return sdk && typeof sdk.mount === 'function' ? sdk : null;
}

/**
 * Loads the SDK once per script URL (a second call, or a script tag already in the page, is reused) and resolves to
 * its typed global. Rejects when the script cannot load; a later call tries again.
 */
export function loadMotu(options: LoadMotuOptions): Promise<MotuSdk> {
  if (typeof window === 'undefined' || typeof document === 'undefined') {
    return Promise.reject(new Error('loadMotu runs in a browser: the card component needs a page'));
  }
  if (!options || typeof options.baseUrl !== 'string') return Promise.reject(new TypeError('loadMotu({ baseUrl }): baseUrl is required'));
  const src = new URL(options.path ?? '/sdk/v1/motu.js', options.baseUrl.replace(/\/+$/, '') + '/').href;
  const cached = loading.get(src);
  if (cached) return cached;

  const promise = new Promise<MotuSdk>((resolve, reject) => {
    const existing = [...document.querySelectorAll<HTMLScriptElement>('script[src]')].find((s) => s.src === src);
    const ready = sdkOf(window);
    if (existing && ready) return resolve(ready);
    const script = existing ?? document.createElement('script');
    const timer = setTimeout(() => fail(new Error(`Motu's SDK did not load from ${src} in time`)), options.timeoutMs ?? 15_000);
    function done() {
      clearTimeout(timer);
      const sdk = sdkOf(window);
      if (sdk) resolve(sdk);
      else fail(new Error(`${src} loaded but did not define Motu's SDK`));
    }
    function fail(error: Error) {
      clearTimeout(timer);
      loading.delete(src);
      if (!existing) script.remove();
      reject(error);
    }
    script.addEventListener('load', done, { once: true });
    script.addEventListener('error', () => fail(new Error(`Motu's SDK could not be loaded from ${src}`)), { once: true });
    if (!existing) {
      script.src = src;
      script.async = true;
      if (options.integrity) {
        script.integrity = options.integrity;
        script.crossOrigin = 'anonymous';
      }
      if (options.nonce) script.nonce = options.nonce;
      document.head.appendChild(script);
    }
  });
  loading.set(src, promise);
  return promise;
}
