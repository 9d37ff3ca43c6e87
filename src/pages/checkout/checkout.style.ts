// Stylesheet of the hosted pages (/checkout/assets/checkout.css): light and dark, mobile first. Every text colour
// reads at 4.5:1 or more on what it sits on (WCAG AA): muted text on the page background as on a panel, white
// on the accent in both schemes.
export const CHECKOUT_CSS = `
:root { color-scheme: light dark; --bg: #f4f5f7; --panel: #ffffff; --fg: #111827; --muted: #4b5563; --line: #e5e7eb;
  --accent: #1d4ed8; --accent-fg: #ffffff; --link: #1d4ed8; --focus: #2563eb; --error: #b91c1c; --ok: #15803d; --warn-bg: #fef3c7; --warn-fg: #92400e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0b1020; --panel: #111827; --fg: #f3f4f6; --muted: #9ca3af; --line: #263041; --accent: #2563eb; --accent-fg: #ffffff; --link: #60a5fa;
    --focus: #60a5fa; --error: #fca5a5; --ok: #4ade80; --warn-bg: #3a2a05; --warn-fg: #fcd34d; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, iframe:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.page { max-width: 960px; margin: 0 auto; padding: 24px 16px 48px; }
.top { display: flex; align-items: center; justify-content: space-between; gap: 12px; margin-bottom: 20px; }
.merchant { display: flex; align-items: center; gap: 12px; min-width: 0; }
.merchant-text { min-width: 0; overflow-wrap: anywhere; }
.logo { flex: none;  width: 40px; height: 40px; border-radius: 10px; background: var(--accent); color: var(--accent-fg); display: grid; place-items: center; font-weight: 700; font-size: 18px; }
.logo-img { object-fit: contain; background: var(--panel); border: 1px solid var(--line); }
.merchant-name { font-weight: 700; font-size: 18px; margin: 0; }
.store-name { color: var(--muted); font-size: 14px; margin: 0; }
.secure { color: var(--muted); font-size: 14px; display: flex; align-items: center; gap: 6px; white-space: nowrap; }
.test { background: var(--warn-bg); color: var(--warn-fg); border-radius: 8px; padding: 8px 12px; font-size: 14px; margin-bottom: 16px; }
.grid { display: grid; gap: 20px; }
@media (min-width: 820px) { .grid { grid-template-columns: 1fr 1.1fr; align-items: start; } }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 14px; padding: 20px; }
h1 { font-size: 20px; margin: 0 0 16px; }
h2 { font-size: 16px; margin: 0 0 12px; }
.total-big { font-size: 32px; font-weight: 750; letter-spacing: -0.02em; margin: 0 0 16px; }
.items { list-style: none; margin: 0; padding: 0; }
.items li:last-child { border-bottom: 0; }
.items li { display: flex; justify-content: space-between; gap: 12px; padding: 10px 0; border-bottom: 1px solid var(--line); }
.items .q { color: var(--muted); font-size: 14px; }
.sum { display: grid; grid-template-columns: 1fr auto; gap: 6px 0; margin: 12px 0 0; }
.sum dt { color: var(--muted); }
.sum dd { margin: 0; padding-left: 12px; text-align: right; font-variant-numeric: tabular-nums; }
.sum .grand { color: var(--fg); font-weight: 700; font-size: 18px; padding-top: 6px; border-top: 1px solid var(--line); }
.ref { color: var(--muted); font-size: 14px; margin-top: 12px; }
.field { margin-bottom: 14px; }
.label { display: block; font-size: 14px; font-weight: 600; margin-bottom: 4px; }
.hint { color: var(--muted); font-size: 13px; margin-top: 2px; }
input[type=email] { width: calc(100% - 4px); margin: 0 2px; height: 44px; padding: 0 12px; font: inherit; color: var(--fg); background: var(--panel); border: 1px solid #d1d5db; border-radius: 8px; }
@media (prefers-color-scheme: dark) { input[type=email] { border-color: #4b5563; background: #111827; } }
.secure-frame { display: block; width: 100%; height: 68px; border: 0; }
.secure svg { width: 14px; height: 14px; fill: currentColor; }
.pay { margin-top: 8px; }
.row { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.saved { border: 0; padding: 0; margin: 0 0 14px; }
.saved legend { font-size: 14px; font-weight: 600; margin-bottom: 6px; padding: 0; }
.choice { display: flex; align-items: center; gap: 10px; padding: 12px; border: 1px solid var(--line); border-radius: 10px; margin-bottom: 8px; cursor: pointer; }
.choice input { width: 18px; height: 18px; accent-color: var(--accent); }
.check { display: flex; align-items: center; gap: 10px; margin: 4px 0 16px; }
.check input { width: 18px; height: 18px; accent-color: var(--accent); }
.pay { width: 100%; height: 52px; border: 0; border-radius: 10px; background: var(--accent); color: var(--accent-fg); font: inherit; font-size: 17px; font-weight: 650; cursor: pointer; }
.pay[disabled] { opacity: 0.65; cursor: progress; }
.alert { color: var(--error); min-height: 1.5em; margin: 8px 0; font-size: 15px; }
.alert:empty { min-height: 0; margin: 0; }
.cancel { display: inline-block; margin-top: 14px; color: var(--muted); font-size: 14px; background: none; border: 0; padding: 0; font: inherit; text-decoration: underline; cursor: pointer; }
.foot { color: var(--muted); font-size: 13px; text-align: center; margin-top: 24px; }
dialog { border: 0; border-radius: 14px; padding: 0; width: min(480px, 96vw); background: var(--panel); color: var(--fg); }
dialog::backdrop { background: rgba(0, 0, 0, 0.55); }
.dialog-head { display: flex; align-items: flex-start; justify-content: space-between; gap: 8px; padding: 12px 12px 0 20px; }
.dialog-head h2 { padding: 4px 0 0; }
.close { flex: none; width: 44px; height: 44px; display: grid; place-items: center; border: 0; border-radius: 10px; background: transparent; color: var(--fg); cursor: pointer; }
.close svg { width: 18px; height: 18px; }
.close:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.result .icon svg { display: block; }
dialog iframe { display: block; width: 100%; height: 440px; border: 0; }
.result { max-width: 560px; margin: 0 auto; text-align: center; }
.result .icon { width: 56px; height: 56px; border-radius: 50%; display: grid; place-items: center; margin: 0 auto 12px; font-size: 28px; font-weight: 700; }
.result .ok { background: color-mix(in srgb, var(--ok) 18%, transparent); color: var(--ok); }
.result .ko { background: color-mix(in srgb, var(--error) 18%, transparent); color: var(--error); }
.result dl { text-align: left; }
.actions { display: flex; flex-direction: column; gap: 10px; margin-top: 20px; }
.button { display: block; text-align: center; padding: 12px 16px; border-radius: 10px; background: var(--accent); color: var(--accent-fg); text-decoration: none; font-weight: 600; }
.button.secondary { background: transparent; color: var(--link); border: 1px solid var(--line); }
.muted { color: var(--muted); }
.doc { max-width: 640px; margin: 0 auto; overflow-wrap: anywhere; }
.doc table { width: 100%; border-collapse: collapse; margin: 16px 0; }
.doc td { padding: 6px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
.doc td.n { text-align: right; padding-left: 12px; white-space: nowrap; font-variant-numeric: tabular-nums; }
.doc .total td { font-weight: 700; }
.doc .button { margin: 16px 0; }
`;
