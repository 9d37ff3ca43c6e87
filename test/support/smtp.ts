// A fake SMTP server on 127.0.0.1 (smtp-server): the outside world's mail relay, which our worker talks to. It
// keeps every message it accepts, raw, and can be stopped and restarted on the same port (a relay that is down).
import { SMTPServer } from 'smtp-server';
import { freePort } from './ports.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface FakeSmtp {
  port: number;
  url: string;
  received: ReceivedMail[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function fakeSmtp(options: { start?: boolean } = {}): Promise<FakeSmtp> {
  const port = await freePort();
  const received: ReceivedMail[] = [];
  let server: SMTPServer | null = null;
  const smtp: FakeSmtp = {
    port,
    url: `smtp://relay:relay-password@127.0.0.1:${port}`,
    received,
    async start() {
      server = new SMTPServer({
        secure: false, disabledCommands: ['STARTTLS'], authOptional: true, logger: false,
        onAuth: (_auth, _session, callback) => callback(null, { user: 'relay' }),
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw: Buffer.concat(chunks).toString('utf8'),
            });
            callback();
          });
        },
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async stop() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  if (options.start !== false) await smtp.start();
  return smtp;
}

/** The MIME parts of a raw message (one level of multipart nesting is enough for ours). */
export function mimeParts(raw: string): Array<{ headers: string; body: string }> {
  const boundaries = [...raw.matchAll(/boundary="?([^";\r\n]+)"?/gi)].map((m) => m[1]!);
  const parts: Array<{ headers: string; body: string }> = [];
  for (const boundary of boundaries) {
    for (const chunk of raw.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) continue;
      const split = chunk.indexOf('\r\n\r\n');
      if (split < 0) continue;
      parts.push({ headers: chunk.slice(0, split), body: chunk.slice(split + 4) });
    }
  }
  return parts;
}

/** The decoded body of a part (base64 or quoted-printable or as is). */
export function decodePart(part: { headers: string; body: string }): Buffer {
  if (/content-transfer-encoding:\s*base64/i.test(part.headers)) return Buffer.from(part.body.replace(/\s+/g, ''), 'base64');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(part.headers)) {
    const text = part.body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
        bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        bytes.push(text.charCodeAt(i));
      }
    }
    return Buffer.from(bytes);
  }
  return Buffer.from(part.body, 'utf8');
}

/** The decoded Subject header (nodemailer encodes non-ASCII subjects as RFC 2047 words). */
export function subjectOf(raw: string): string {
  const header = raw.slice(0, raw.indexOf('\r\n\r\n'));
  const line = /^Subject: (.*(?:\r\n[ \t].*)*)/im.exec(header)?.[1] ?? '';
  return line.replace(/\r\n[ \t]/g, ' ').replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, enc: string, text: string) =>
    enc.toLowerCase() === 'b' ? Buffer.from(text, 'base64').toString('utf8') : decodePart({ headers: 'content-transfer-encoding: quoted-printable', body: text.replace(/_/g, ' ') }).toString('utf8'));
}
