// One message catalog for everything Motu shows people, in French and English, importable by Node (the hosted
// pages) and by the browser bundles (the back-office). Each product surface is a namespace: `dashboard` for now.
import { en } from './en.js';
import { fr } from './fr.js';

export const LANGS = ['en', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

export type Catalog = typeof en;

export const catalog: Record<Lang, Catalog> = { en, fr };
