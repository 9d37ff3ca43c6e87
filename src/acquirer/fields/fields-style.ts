// The secure fields' stylesheet (/acquirer/v1/assets/fields.css). Follows the visitor's colour scheme.
export const FIELDS_CSS = `
:root { color-scheme: light dark; --fg: #111827; --muted: #6b7280; --border: #d1d5db; --bg: #ffffff; --focus: #2563eb; --error: #b91c1c; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #f3f4f6; --muted: #9ca3af; --border: #4b5563; --bg: #111827; --focus: #60a5fa; --error: #fca5a5; }
}
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: transparent; font: 16px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); }
.wrap { position: relative; padding: 2px; }
input { width: 100%; height: 44px; padding: 0 64px 0 12px; font: inherit; font-size: 16px; color: var(--fg); background: var(--bg);
  border: 1px solid var(--border); border-radius: 8px; outline: none; letter-spacing: 0.02em; }
input:focus { border-color: var(--focus); box-shadow: 0 0 0 3px color-mix(in srgb, var(--focus) 30%, transparent); }
input[aria-invalid="true"] { border-color: var(--error); }
input::placeholder { color: var(--muted); }
.brand { position: absolute; right: 12px; top: 14px; font-size: 12px; font-weight: 700; color: var(--muted); letter-spacing: 0.05em; }
html[data-field="number"] input { padding-right: 132px; }
/* A phone's frame (about 310 px at 390 px): a smaller badge, so a whole number and the longest badge fit side by side;
   the script sets the number's right padding to the badge's width. */
@media (max-width: 360px) { .brand { font-size: 10px; letter-spacing: 0; right: 8px; top: 16px; } }
/* Empty, the field shows no brand: the whole width goes to the placeholder (390 px screens). */
html[data-field] input:placeholder-shown { padding-right: 12px; }
.err { min-height: 18px; font-size: 13px; color: var(--error); padding: 2px 2px 0; }
.bank { max-width: 420px; margin: 24px auto; padding: 24px; border: 1px solid var(--border); border-radius: 12px; background: var(--bg); }
.bank h1 { font-size: 20px; margin: 0 0 8px; }
.bank p { color: var(--muted); margin: 0 0 16px; }
.bank dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 16px; margin: 0 0 20px; }
.bank dt { color: var(--muted); }
.bank dd { margin: 0; font-weight: 600; }
.bank .actions { display: flex; gap: 12px; flex-wrap: wrap; }
.bank button { font: inherit; padding: 10px 16px; border-radius: 8px; border: 1px solid var(--border); background: var(--bg); color: var(--fg); cursor: pointer; }
.bank button.primary { background: #15803d; border-color: #15803d; color: #fff; }
.bank button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.tag { display: inline-block; font-size: 12px; padding: 2px 8px; border-radius: 999px; background: #fef3c7; color: #92400e; margin-bottom: 12px; }
`;
