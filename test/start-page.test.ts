// What a person meets first (README, "Start"): `GET /` is a small page leading to the back-office and the API
// reference, in the browser's language; every page's icon is served (/favicon.svg, and /favicon.ico which browsers
// ask for on their own); the back-office's script and stylesheet are sent compressed (brotli or gzip, as
// Accept-Encoding asks), each encoding its own ETag, the same bytes once decompressed; and split, each page a chunk
// loaded when first visited.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { preferredEncoding } from '../src/pages/dashboard/dashboard.routes.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';

it('Accept-Encoding: the coding weighed most of brotli and gzip (brotli on a tie), none refused with q=0, * for the rest', () => {
  assert.equal(preferredEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(preferredEncoding('gzip'), 'gzip');
  assert.equal(preferredEncoding('br;q=0, gzip'), 'gzip');
  assert.equal(preferredEncoding('br;q=0.5, gzip;q=0.8'), 'gzip');
  assert.equal(preferredEncoding('*'), 'br');
  assert.equal(preferredEncoding('*;q=0, identity'), null);
  assert.equal(preferredEncoding('identity'), null);
  assert.equal(preferredEncoding(undefined), null);
});

eachDatabase('the start page, the icon and the compressed back-office', (dialect) => {
  const { t } = withMerchantApp(dialect, {});
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('GET / is a page with links to /dashboard and /docs, in English or French by Accept-Language, with its icon', async () => {
    const en = await get('/', { 'accept-language': 'en-GB,en;q=0.9' });
    assert.equal(en.statusCode, 200);
    assert.match(String(en.headers['content-type']), /text\/html/);
    assert.match(String(en.headers['content-security-policy']), /default-src 'none'/);
    assert.match(en.body, /<html lang="en">/);
    assert.match(en.body, /<a href="\/dashboard">Back-office<\/a>/);
    assert.match(en.body, /<a href="\/docs">API reference<\/a>/);
    assert.match(en.body, /<link rel="icon" href="\/favicon.svg"/);
    const fr = await get('/', { 'accept-language': 'fr-PF,fr;q=0.9' });
    assert.match(fr.body, /<html lang="fr">/);
    assert.match(fr.body, /<a href="\/docs">Référence de l&#39;API<\/a>/);
    assert.match(fr.body, /<a href="\/dashboard">/);
  });

  it('the icon is served at /favicon.svg and /favicon.ico, and named by the back-office, the hosted pages and /docs', async () => {
    for (const url of ['/favicon.svg', '/favicon.ico']) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], 'image/svg+xml');
      assert.match(res.body, /^<svg /);
    }
    assert.match((await get('/dashboard/sign-in')).body, /<link rel="icon" href="\/favicon.svg"/);
    assert.match((await get('/docs/')).body, /rel="icon"/);
  });

  it("the back-office's script answers brotli or gzip as asked, smaller, the same script decompressed; none when not asked", async () => {
    const shell = (await get('/dashboard')).body;
    const js = /src="(\/dashboard\/assets\/app-[0-9a-f]{16}\.js)"/.exec(shell)![1]!;
    const css = /href="(\/dashboard\/assets\/app-[0-9a-f]{16}\.css)"/.exec(shell)![1]!;
    const plain = await get(js);
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'accept-encoding');
    const br = await get(js, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 3, `brotli ${br.rawPayload.length} bytes for ${plain.rawPayload.length}`);
    assert.ok(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload), 'the same script');
    const gz = await get(js, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(gz.rawPayload.length < plain.rawPayload.length / 3);
    assert.ok(gunzipSync(gz.rawPayload).equals(plain.rawPayload));
    assert.notEqual(br.headers.etag, gz.headers.etag, 'each encoding its own ETag');
    assert.notEqual(gz.headers.etag, plain.headers.etag);
    assert.equal((await get(js, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })).statusCode, 304);
    assert.equal((await get(css, { 'accept-encoding': 'br' })).headers['content-encoding'], 'br');
  });

  it("the back-office is split: the pages are chunks loaded when visited, so the first load is well under the whole and named by the shell; chunks are served compressed and immutable", async () => {
    const shell = (await get('/dashboard')).body;
    const entry = (await get(/src="(\/dashboard\/assets\/app-[0-9a-f]{16}\.js)"/.exec(shell)![1]!)).body;
    const imported = (body: string, dynamic: boolean) => [...body.matchAll(dynamic ? /import\("\.\/(chunk-[A-Z0-9]+\.js)"\)/g : /(?:from|import)\s*"\.\/(chunk-[A-Z0-9]+\.js)"/g)].map((m) => m[1]!);
    const pages = imported(entry, true);
    assert.ok(pages.length >= 15, `one chunk per page (${pages.length})`);
    // The first load: the entry and the chunks it imports statically, transitively.
    const bodies = new Map<string, string>();
    const load = async (name: string) => {
      if (!bodies.has(name)) {
        const res = await get(`/dashboard/assets/${name}`);
        assert.equal(res.statusCode, 200, name);
        bodies.set(name, res.body);
      }
      return bodies.get(name)!;
    };
    const first = new Set<string>();
    const todo = imported(entry, false);
    while (todo.length > 0) {
      const name = todo.pop()!;
      if (first.has(name)) continue;
      first.add(name);
      todo.push(...imported(await load(name), false));
    }
    let firstBytes = entry.length;
    for (const name of first) firstBytes += bodies.get(name)!.length;
    let allBytes = firstBytes;
    const everything = new Set([...first]);
    const rest = [...pages];
    while (rest.length > 0) {
      const name = rest.pop()!;
      if (everything.has(name)) continue;
      everything.add(name);
      const body = await load(name);
      allBytes += body.length;
      rest.push(...imported(body, false), ...imported(body, true));
    }
    assert.ok(firstBytes < allBytes * 0.8, `the first load ${firstBytes} bytes of ${allBytes}`);
    const preloaded = [...shell.matchAll(/<link rel="modulepreload" href="\/dashboard\/assets\/(chunk-[A-Z0-9]+\.js)">/g)].map((m) => m[1]!);
    assert.deepEqual(new Set(preloaded), first, 'the shell names the first load\'s chunks, so the browser asks for them at once');

    const chunk = await get(`/dashboard/assets/${pages[0]}`, { 'accept-encoding': 'br' });
    assert.equal(chunk.statusCode, 200);
    assert.equal(chunk.headers['content-encoding'], 'br');
    assert.match(String(chunk.headers['content-type']), /text\/javascript/);
    assert.match(String(chunk.headers['cache-control']), /immutable/);
    assert.equal((await get('/dashboard/assets/chunk-AAAAAAAA.js')).statusCode, 404);
  });
});
