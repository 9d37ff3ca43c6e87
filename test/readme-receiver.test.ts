// The README's webhook receiver (Quick start: webhooks on your machine), run as written: it refuses what is not signed,
// a body that is not JSON included, and keeps running; it accepts what Motu signs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signatureHeaders } from '../src/events/signer.js';
import { freePort } from './support/ports.js';
import { eventually } from './support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SECRET = `whsec_${'r'.repeat(32)}`;

/** The first ```js block after the heading. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf(heading);
  assert.ok(from >= 0, heading);
  const match = /```js\n([\s\S]*?)```/.exec(readme.slice(from));
  assert.ok(match, `a js block after ${heading}`);
  return match[1]!;
}

describe('the README webhook receiver', () => {
  let folder: string;
  let url: string;
  let output = '';
  let exited: number | null | undefined;
  let child: ReturnType<typeof spawn>;

  before(async () => {
    const source = readmeBlock('## Quick start: webhooks on your machine');
    assert.match(source, /\.listen\(4000\)/);
    const port = await freePort();
    folder = mkdtempSync(path.join(tmpdir(), 'motu-receiver-'));
    const file = path.join(folder, 'receiver.mjs');
    writeFileSync(file, source.replace('.listen(4000)', `.listen(${port}, '127.0.0.1')`));
    url = `http://127.0.0.1:${port}/hooks`;
    child = spawn(process.execPath, [file], { env: { ...process.env, MOTU_WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.on('exit', (code) => { exited = code; });
    await eventually('the receiver listens', async () => (await fetch(url, { method: 'POST', body: '' }).then((r) => r.status, () => 0)) === 400, 10_000, 50);
  });
  after(() => {
    child.kill();
    rmSync(folder, { recursive: true, force: true });
  });

  it('refuses an unsigned request whose body is not JSON with 400, and keeps running', async () => {
    for (const body of ['not json', '{"type":', '<xml/>']) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
      assert.equal(res.status, 400, body);
    }
    const forged = await fetch(url, { method: 'POST', headers: { 'x-service-timestamp': 'x', 'x-service-signature-v2': 'zz' }, body: 'garbage' });
    assert.equal(forged.status, 400);
    assert.equal(exited, undefined, output);
  });

  it('accepts an event signed with the secret, and refuses it signed with another', async () => {
    const body = JSON.stringify({ id: 'whe_readme', type: 'payment.captured', createdAt: new Date().toISOString(), data: {} });
    const now = Math.floor(Date.now() / 1000);
    const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...signatureHeaders(body, { secret: SECRET }, now, 'whe_readme') }, body });
    assert.equal(ok.status, 200);
    const other = await fetch(url, { method: 'POST', headers: signatureHeaders(body, { secret: `whsec_${'x'.repeat(32)}` }, now, 'whe_readme'), body });
    assert.equal(other.status, 400);
    const old = await fetch(url, { method: 'POST', headers: signatureHeaders(body, { secret: SECRET }, now - 600, 'whe_readme'), body });
    assert.equal(old.status, 400, 'a replay of an old request');
    await eventually('the receiver prints the verified event', () => /verified payment\.captured whe_readme/.test(output), 5000, 20);
    assert.equal(exited, undefined, output);
  });
});
