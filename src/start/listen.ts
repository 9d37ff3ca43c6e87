// `motu listen --forward-to http://localhost:4000/hook`: streams the merchant's new test-mode events from
// GET /api/v1/events/stream and forwards each one, signed with the test webhook secret exactly as the
// delivery worker would, to a local URL. One line per event and the answer's status.
import { signatureHeaders } from '../events/signer.js';
import { postWebhook } from '../events/transport.js';

export interface ListenOptions {
  apiUrl: string;
  secretKey: string;
  forwardTo: string;
  print: (line: string) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export async function listen(options: ListenOptions): Promise<void> {
  const { apiUrl, secretKey, forwardTo, print, signal } = options;
  if (!secretKey.startsWith('sk_test_')) throw new Error('motu listen needs a test secret key (sk_test_…)');
  const auth = { authorization: `Bearer ${secretKey}` };
  const secretRes = await fetch(`${apiUrl}/api/v1/webhooks/signing-secret`, { headers: auth, signal });
  if (!secretRes.ok) throw new Error(`Cannot read the signing secret: HTTP ${secretRes.status} ${await secretRes.text()}`);
  const { webhookSecret } = (await secretRes.json()) as { webhookSecret: string };
  print(`Ready. Forwarding test-mode events to ${forwardTo} (Ctrl-C to stop)`);

  let since: string | undefined;
  while (!signal?.aborted) {
    try {
      const url = `${apiUrl}/api/v1/events/stream${since ? `?since=${encodeURIComponent(since)}` : ''}`;
      const res = await fetch(url, { headers: { ...auth, accept: 'text/event-stream' }, signal });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = message.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
          if (!data) continue;
          const event = JSON.parse(data) as { id: string; type: string; createdAt: string };
          since = event.createdAt;
          const headers = signatureHeaders(data, { secret: webhookSecret }, Math.floor(Date.now() / 1000), event.id);
          const result = await postWebhook(forwardTo, data, headers, { timeoutMs: options.timeoutMs ?? 10_000, guard: null });
          const outcome = result.error ? `error: ${result.error}` : String(result.statusCode);
          print(`${event.createdAt}  ${event.type.padEnd(28)} ${event.id}  → ${outcome} (${result.latencyMs} ms)`);
        }
      }
    } catch (err) {
      if (signal?.aborted) break;
      print(`Stream interrupted (${err instanceof Error ? err.message : String(err)}); reconnecting…`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
