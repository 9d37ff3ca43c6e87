// The component's stylesheet, scoped to its shadow root: the merchant's page is never restyled, and the
// visitor's dark mode applies inside the component only.
export const COMPONENT_CSS = `
:host { all: initial; display: block; --motu-primary: #2563eb; --motu-bg: #ffffff; --motu-text: #111827; --motu-muted: #6b7280;
  --motu-border: #e5e7eb; --motu-error: #b91c1c; --motu-radius: 12px; }
@media (prefers-color-scheme: dark) {
  :host(:not([data-fixed-colors])) { --motu-primary: #60a5fa; --motu-bg: #111827; --motu-text: #f3f4f6; --motu-muted: #9ca3af; --motu-border: #374151; --motu-error: #fca5a5; }
}
.motu { box-sizing: border-box; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--motu-text);
  background: var(--motu-bg); border: 1px solid var(--motu-border); border-radius: var(--motu-radius); padding: 16px; color-scheme: light dark; }
.title { font-size: 17px; font-weight: 650; margin: 0 0 12px; }
.label { display: block; font-size: 13px; color: var(--motu-muted); margin: 0 0 2px; }
.row { display: flex; gap: 12px; } .row > div { flex: 1; min-width: 0; }
iframe.field { display: block; width: 100%; height: 68px; border: 0; background: transparent; }
.terms { font-size: 12.5px; color: var(--motu-muted); margin: 8px 0 0; }
.error { color: var(--motu-error); font-size: 13.5px; min-height: 0; margin: 8px 0 0; }
.error:empty { display: none; }
.challenge { margin-top: 12px; border-top: 1px solid var(--motu-border); padding-top: 12px; }
.challenge[hidden] { display: none; }
.challenge iframe { width: 100%; height: 420px; border: 0; border-radius: 8px; background: #fff; }
footer { display: flex; justify-content: space-between; gap: 8px; flex-wrap: wrap; margin-top: 12px; font-size: 12px; color: var(--motu-muted); }
.badge { color: var(--motu-primary); font-weight: 600; }
.test { background: #fef3c7; color: #92400e; border-radius: 999px; padding: 0 8px; }
`;
