// The guides as HTML (src/pages/guides): raw HTML and hostile links in a markdown file are shown, never run; links
// between guides lead to their pages, pictures of docs/images are shown; /docs/guides answers under a CSP that allows no script, and 404 for no guide.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Guides } from '../src/pages/guides/guides.js';
import { eachDatabase } from './support/harness.js';
import { withApp } from './support/merchant-app.js';

describe('guides rendered from markdown', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'motu-guides-'));
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'README.md'), '# Motu\n\nSee docs/hostile.md and [payments](docs/payments.md#refunds).\n');
    writeFileSync(path.join(root, 'docs', 'payments.md'), '# Payments\n\n## Refunds\n\nText.\n');
    writeFileSync(path.join(root, 'docs', 'hostile.md'), [
      '# Hostile <img src=x onerror=alert(1)>',
      '',
      '<script>alert("raw")</script>',
      '',
      'Inline <b onclick="alert(2)">bold</b> and [a script](javascript:alert(3)) and [data](data:text/html,<script>x</script>).',
      '',
      '[the source](../src/app.ts), [the web](https://example.com/?a=1&b="2"), [payments](payments.md), `docs/payments.md`,',
      'and [a section](#hostile).',
      '',
      '![tracker](https://tracker.example/pixel.png)',
    ].join('\n'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('shows raw HTML as text and keeps only web, mail, site and guide links', () => {
    const guides = new Guides(root);
    assert.deepEqual(guides.names(), ['readme', 'hostile', 'payments']);
    const { html, title } = guides.get('hostile')!;
    assert.equal(title, 'Hostile <img src=x onerror=alert(1)>');
    assert.doesNotMatch(html, /<script|<img|<b[ >]|<[^>]*\son(error|click)=|href="(javascript|data):/i);
    assert.match(html, /&lt;script&gt;alert\(&quot;raw&quot;\)&lt;\/script&gt;/);
    assert.match(html, /a script and data/);
    assert.match(html, /the source,/, 'a repository file that is no guide is text');
    assert.match(html, /<a href="https:\/\/example\.com\/\?a=1&amp;b=&quot;2&quot;" rel="noopener noreferrer">the web<\/a>/);
    assert.match(html, /<a href="\/docs\/guides\/payments">payments<\/a>/);
    assert.match(html, /<a href="\/docs\/guides\/payments"><code>docs\/payments\.md<\/code><\/a>/);
    assert.match(html, /<a href="#hostile">a section<\/a>/);
    assert.doesNotMatch(html, /tracker\.example/, 'no image from elsewhere');
    const readme = guides.get('readme')!.html;
    assert.match(readme, /<a href="\/docs\/guides\/hostile">docs\/hostile\.md<\/a>/);
    assert.match(readme, /<a href="\/docs\/guides\/payments#refunds">payments<\/a>/);
    assert.match(guides.get('payments')!.html, /<h2 id="refunds">/);
    assert.equal(guides.get('nothing'), undefined);
  });
});

eachDatabase('GET /docs/guides', (dialect) => {
  const { t } = withApp(dialect);

  it('serves the index and each guide of the repository as HTML under a CSP without script; 404 for no guide', async () => {
    const index = await t.app.inject({ url: '/docs/guides' });
    assert.equal(index.statusCode, 200);
    assert.match(String(index.headers['content-type']), /^text\/html/);
    const csp = String(index.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src|unsafe/);
    for (const name of ['readme', 'webhooks', 'payments', 'cli', 'openapi', 'libraries']) {
      assert.match(index.body, new RegExp(`href="/docs/guides/${name}"`), name);
      const guide = await t.app.inject({ url: `/docs/guides/${name}` });
      assert.equal(guide.statusCode, 200, name);
      assert.doesNotMatch(guide.body, /<script/i, name);
    }
    // The repository's pictures come along, from this origin (the CSP's img-src 'self').
    const backOffice = await t.app.inject({ url: '/docs/guides/back-office' });
    assert.match(backOffice.body, /<img src="\/docs\/guides\/images\/back-office-home-light\.png" alt="Home, light"/);
    const picture = await t.app.inject({ url: '/docs/guides/images/back-office-home-light.png' });
    assert.equal(picture.statusCode, 200);
    assert.equal(picture.headers['content-type'], 'image/png');
    assert.equal(picture.rawPayload.subarray(1, 4).toString(), 'PNG');
    assert.equal((await t.app.inject({ url: '/docs/guides/images/..%2F..%2Fpackage.json' })).statusCode, 404);
    const missing = await t.app.inject({ url: '/docs/guides/..%2Fpackage' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /No such guide/);
    assert.equal((await t.app.inject({ url: '/docs/guides/nothing' })).statusCode, 404);
  });
});
