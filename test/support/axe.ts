// Accessibility checks in the browser tests: axe-core (the engine of the common audit tools) injected into the
// page and into each of its frames (the secure card fields, the bank page), WCAG 2.0/2.1 levels A and AA.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// Evaluated through the debugging protocol, not a <script> tag: the pages' CSP rightly refuses inline scripts.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface AxeFinding { frame: string; id: string; help: string; targets: string[] }

/** Every violation in the page and its frames, one line per rule and frame; [] when the page passes. */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const found: AxeFinding[] = [];
  for (const frame of page.frames()) {
    if (frame.url() === 'about:blank' || frame.url() === '') continue;
    // Once per document: a single-page application keeps its window (and axe) across its own navigations.
    if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(AXE_SOURCE);
    const violations = await frame.evaluate(async (tags) => {
      const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
      const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, iframes: false });
      return result.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
    }, TAGS);
    for (const v of violations) found.push({ frame: frame.url(), ...v });
  }
  return found;
}
