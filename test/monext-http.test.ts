// The Monext client's HTTP/1.1 (src/acquirer/monext/monext.http.ts) against servers that answer as HTTP allows but the
// fake Monext does not: bytes sent as node:http sends them, chunked answers cut anywhere, informational answers, answers
// read until the close, connections the server closes, announced idle timeouts, calls beyond the connection limit,
// answers cut off or never sent. Each server is a plain TCP server on 127.0.0.1 written for the case.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MonextClient, MonextUnavailable } from '../src/acquirer/monext/monext.client.js';

const CREDENTIALS = { merchantId: '123456789012345', accessKey: 'key-é', pointOfSaleReference: 'POS', contractNumber: 'CB_1', environment: 'homologation' as const };
const JSON_BODY = '{"result":{"title":"ACCEPTED","code":"00000","detail":"é"},"sessionId":"abc"}';

/** A TCP server whose every request (bytes up to the end of its body) gets `answer`'s bytes; counts connections. */
async function server(answer: (socket: net.Socket, request: string, n: number) => void) {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const srv = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = pending.slice(0, end + 4 + length);
        pending = pending.slice(request.length);
        requests.push(request);
        answer(socket, request, requests.length);
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`;
  return {
    url, requests, connections: () => connections, open: () => sockets.size,
    client: (timeoutMs = 2_000) => new MonextClient(CREDENTIALS, { baseUrl: url, timeoutMs }),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    },
  };
}

/** Writes `bytes` a few at a time, each piece in a later turn: the client sees the answer cut at every place. */
async function dribble(socket: net.Socket, bytes: string, piece = 3): Promise<void> {
  const buffer = Buffer.from(bytes, 'utf8');
  for (let i = 0; i < buffer.length; i += piece) {
    socket.write(buffer.subarray(i, i + piece));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const answered = (status: number, headers: string, body: string) =>
  `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\n${headers}\r\n${body}`;
const withLength = (body: string, extra = '') => answered(200, `content-length: ${Buffer.byteLength(body)}\r\n${extra}`, body);

describe("the Monext client's HTTP", () => {
  const servers: { close(): Promise<void> }[] = [];
  const open = async (answer: Parameters<typeof server>[0]) => {
    const s = await server(answer);
    servers.push(s);
    return s;
  };
  after(async () => {
    for (const s of servers) await s.close();
  });

  it("sends the bytes node:http sends for the same request, and keeps the connection for the next call", async () => {
    const s = await open((socket) => socket.write(withLength(JSON_BODY, 'keep-alive: timeout=5\r\n')));
    const client = s.client();
    const posted = await client.call('POST', '/v1/checkout/payments/sessions', { order: { reference: 'pay_1', amount: 1000 }, label: 'Café' });
    assert.deepEqual(posted, { kind: 'answer', status: 200, body: JSON.parse(JSON_BODY) });
    await client.call('GET', '/v1/checkout/payments/sessions/abc');
    assert.equal(s.connections(), 1);

    // node:http's own request for the same call, to the same server.
    const payload = JSON.stringify({ order: { reference: 'pay_1', amount: 1000 }, label: 'Café' });
    await new Promise<void>((resolve, reject) => {
      const agent = new http.Agent({ keepAlive: true });
      const request = http.request(`${s.url}/v1/checkout/payments/sessions`, {
        method: 'POST', agent, headers: {
          authorization: `Basic ${Buffer.from(`${CREDENTIALS.merchantId}:${CREDENTIALS.accessKey}`).toString('base64')}`, accept: 'application/json',
          'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)),
        },
      }, (response) => response.resume().on('end', () => {
        agent.destroy();
        resolve();
      }));
      request.on('error', reject);
      request.end(payload);
    });
    assert.equal(s.requests[0], s.requests[2]);
  });

  it('reads a chunked answer cut anywhere, with chunk extensions, a trailer and an informational answer before it', async () => {
    const s = await open((socket) => {
      const [a, b] = [JSON_BODY.slice(0, 20), JSON_BODY.slice(20)];
      const chunk = (text: string, ext = '') => `${Buffer.byteLength(text).toString(16)}${ext}\r\n${text}\r\n`;
      void dribble(socket, `HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${answered(200, 'Transfer-Encoding: chunked\r\n', `${chunk(a, ';x=1')}${chunk(b)}0\r\nx-trailer: 1\r\n\r\n`)}`);
    });
    const client = s.client();
    for (let i = 0; i < 2; i++) assert.deepEqual(await client.call('GET', '/v1/checkout/transactions/1'), { kind: 'answer', status: 200, body: JSON.parse(JSON_BODY) });
    assert.equal(s.connections(), 1);
  });

  it('reads an answer framed by the close, and opens a new connection after one the server closes', async () => {
    const s = await open((socket, _request, n) => {
      if (n === 1) socket.end(answered(200, '', JSON_BODY));
      else socket.write(withLength(JSON_BODY, 'connection: close\r\n'), () => socket.end());
    });
    const client = s.client();
    for (let i = 0; i < 3; i++) assert.equal((await client.call('GET', '/v1/checkout/transactions/1')).kind, 'answer');
    assert.equal(s.connections(), 3);
  });

  it("closes a kept connection before the server's announced idle timeout", async () => {
    const s = await open((socket) => socket.write(withLength(JSON_BODY, 'Keep-Alive: timeout=1\r\n')));
    const client = s.client();
    await client.call('GET', '/v1/checkout/transactions/1');
    await client.call('GET', '/v1/checkout/transactions/2');
    assert.equal(s.connections(), 2); // a timeout of one second leaves no time to reuse it safely
  });

  it('answers the calls beyond the connection limit once a connection is free', async () => {
    const s = await open((socket) => setTimeout(() => socket.write(withLength(JSON_BODY)), 20));
    const client = s.client();
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => client.call('GET', `/v1/checkout/transactions/${i}`)));
    assert.ok(answers.every((a) => a.kind === 'answer'));
    assert.equal(s.connections(), 64);
  });

  it('an answer cut off, an answer that is not HTTP, or none in time: MonextUnavailable, and the next call is answered', async () => {
    const s = await open((socket, _request, n) => {
      if (n === 1) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n{"result":');
      else if (n === 2) socket.write('SSH-2.0-OpenSSH\r\n\r\n');
      else if (n === 3) return; // never answered
      else socket.write(withLength(JSON_BODY));
    });
    const client = s.client(300);
    const reasons: string[] = [];
    for (let i = 0; i < 3; i++) {
      await assert.rejects(client.call('GET', '/v1/checkout/transactions/1'), (err: Error) => {
        reasons.push(err.message);
        return err instanceof MonextUnavailable;
      });
    }
    assert.match(reasons[0]!, /cut off/);
    assert.match(reasons[1]!, /not HTTP/);
    assert.match(reasons[2]!, /no answer within 300 ms/);
    assert.equal((await client.call('GET', '/v1/checkout/transactions/1')).kind, 'answer');
  });

  it('a kept connection does not keep the process alive (a CLI command that called Monext exits at once)', async () => {
    const s = await open((socket) => socket.write(withLength(JSON_BODY)));
    const client = fileURLToPath(new URL('../src/acquirer/monext/monext.client.ts', import.meta.url));
    const script = `const { MonextClient } = await import(${JSON.stringify(client)});
      const c = new MonextClient(${JSON.stringify(CREDENTIALS)}, { baseUrl: ${JSON.stringify(s.url)}, timeoutMs: 2000 });
      await c.call('GET', '/v1/checkout/transactions/1');
      const answered = performance.now();
      process.on('exit', () => console.log(String(performance.now() - answered)));`;
    // Not spawnSync: the server answering the child is in this process.
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const status = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(status, 0, err);
    assert.ok(Number(out) < 2_000, `exited ${out} ms after its answer: the idle connection (4 s) held it`);
  });

  it('a server that is not there: MonextUnavailable (unreachable)', async () => {
    const s = await open(() => {});
    const client = s.client();
    await s.close();
    servers.pop();
    await assert.rejects(client.call('GET', '/v1/checkout/transactions/1'), /unreachable/);
  });
});
