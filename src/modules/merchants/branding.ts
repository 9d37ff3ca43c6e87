// Merchant branding: the name customers see and the colours of the hosted pages (checkout, wallet) and of the
// SDK's default theme. Text on the primary colour is white or near-black, whichever contrasts more (WCAG
// relative luminance), so the Pay button stays readable whatever the merchant picks; the accent (links, focus
// rings) is used only where it reads on the page's background (contrast 4.5:1), else the default stays.
import { createHash } from 'node:crypto';
import type { Merchant } from './merchants.table.js';

export const HEX_COLOR = '^#[0-9a-fA-F]{6}$';
const HEX = new RegExp(HEX_COLOR);

export const LIGHT_TEXT = '#ffffff';
export const DARK_TEXT = '#111827';
/** The panels the colours sit on, light and dark (checkout, wallet page, SDK component). */
const PANEL = { light: '#ffffff', dark: '#111827' } as const;

export type Branded = Pick<Merchant, 'name' | 'display_name' | 'primary_color' | 'accent_color'>;

export interface Theme {
  primary: string;
  /** Text drawn on the primary colour. */
  onPrimary: string;
  /** Links and focus rings per colour scheme, or null where the merchant's colour would not read. */
  link: { light: string | null; dark: string | null };
}

export function displayName(merchant: Pick<Merchant, 'name' | 'display_name'>): string {
  return merchant.display_name || merchant.name;
}

export function isHexColor(value: unknown): value is string {
  return typeof value === 'string' && HEX.test(value);
}

function channel(hex: string, i: number): number {
  const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** WCAG 2 relative luminance of `#rrggbb`, 0 (black) to 1 (white). */
export function luminance(hex: string): number {
  return 0.2126 * channel(hex, 0) + 0.7152 * channel(hex, 1) + 0.0722 * channel(hex, 2);
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** WCAG AA for normal text. */
export const AA = 4.5;

/**
 * White or dark text on `background`, whichever has the higher contrast; for the mid-tones where neither reaches
 * 4.5:1 (near #757575), pure black, which always does with white as the other choice.
 */
export function textOn(background: string): string {
  const best = contrast(background, LIGHT_TEXT) >= contrast(background, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
  if (contrast(background, best) >= AA) return best;
  return contrast(background, '#000000') > contrast(background, LIGHT_TEXT) ? '#000000' : LIGHT_TEXT;
}

/** The merchant's theme, or null for Motu's default look. */
export function themeOf(merchant: Branded): Theme | null {
  const primary = isHexColor(merchant.primary_color) ? merchant.primary_color.toLowerCase() : null;
  const accent = isHexColor(merchant.accent_color) ? merchant.accent_color.toLowerCase() : null;
  if (!primary && !accent) return null;
  const linkColor = accent ?? primary!;
  const readable = (bg: string) => (contrast(linkColor, bg) >= AA ? linkColor : null);
  return {
    primary: primary ?? accent!,
    onPrimary: textOn(primary ?? accent!),
    link: { light: readable(PANEL.light), dark: readable(PANEL.dark) },
  };
}

/** An inline stylesheet and its CSP source ('sha256-…'), so a page keeps `style-src 'self'` plus this one hash. */
export interface InlineStyle { css: string; cspSource: string }

export function inlineStyle(css: string): InlineStyle {
  return { css, cspSource: `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'` };
}

/** A page's custom property following the link colour, with the page's own light and dark defaults. */
export interface LinkVar { name: string; light: string; dark: string }

/**
 * Custom properties overriding a page's defaults (this sheet comes after the page's own). A link property keeps
 * the page's default in a colour scheme where the merchant's colour would not read.
 */
export function themeCss(theme: Theme, vars: { primary: string; onPrimary: string; links?: LinkVar[] }): string {
  const links = (scheme: 'light' | 'dark') => (vars.links ?? []).map((v) => `${v.name}:${theme.link[scheme] ?? v[scheme]};`).join('');
  return `:root{${vars.primary}:${theme.primary};${vars.onPrimary}:${theme.onPrimary};${links('light')}}`
    + `@media (prefers-color-scheme: dark){:root{${links('dark')}}}`;
}
