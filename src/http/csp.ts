// Content-Security-Policy headers of the hosted pages, and what a page that mounts an acquirer's widget adds to them.

/** CSP directives a page that mounts a widget extends, each with the sources it adds. */
export type WidgetCsp = Record<'script-src' | 'style-src' | 'img-src' | 'connect-src' | 'font-src' | 'frame-src' | 'form-action', readonly string[]>;

/**
 * A policy from its directives, a widget's sources merged in. A directive that allows inline styles drops its hashes:
 * a browser ignores 'unsafe-inline' next to a hash.
 */
export function cspWithWidget(base: [string, ...string[]][], widget?: WidgetCsp): string {
  const merged = new Map(base.map(([name, ...sources]) => [name, [...sources]]));
  for (const [name, extra] of Object.entries(widget ?? {}) as [string, readonly string[]][]) {
    const sources = merged.get(name) ?? ["'self'"];
    merged.set(name, [...new Set([...sources, ...extra])]);
  }
  return [...merged].map(([name, sources]) => {
    const kept = sources.includes("'unsafe-inline'") ? sources.filter((x) => !x.startsWith("'sha")) : sources;
    return [name, ...kept].join(' ');
  }).join('; ');
}
