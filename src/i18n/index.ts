// One message catalog for everything Motu shows people, in French and English, importable by Node (the hosted
// pages, PDFs and mails) and by the browser bundles (the back-office). Each product surface is a namespace:
// `dashboard` (the back-office), and what customers see: `checkout`, `wallet`, `invoicePage`, `invoicePdf`, `fields`
// (the secure card fields), `bank` (the simulated 3-D Secure bank), `mail`, `start` (the page at `/`) and `sdk` (the web SDK's component, in its own
// file for its bundle).
import { en } from './en.js';
import { fr } from './fr.js';
import { hostedEn } from './hosted-en.js';
import { hostedFr } from './hosted-fr.js';
import { sdkText } from './sdk.js';

export const LANGS = ['en', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

export type Catalog = typeof en & typeof hostedEn & { sdk: (typeof sdkText)['en'] };

export const catalog: Record<Lang, Catalog> = {
  en: { ...en, ...hostedEn, sdk: sdkText.en },
  fr: { ...fr, ...hostedFr, sdk: sdkText.fr },
};

export { fillText } from './fill.js';
