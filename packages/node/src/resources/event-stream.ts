// Reads a text/event-stream body: each message's `data:` lines are one event's JSON; comments (`: ping`) are skipped.
import type { MotuEvent } from '../events.js';

export async function* readEventStream(body: ReadableStream<Uint8Array> | null, signal?: AbortSignal): AsyncGenerator<MotuEvent> {
  if (!body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      if (signal?.aborted) return;
      const chunk = await reader.read().catch((err: unknown) => {
        if (signal?.aborted) return { done: true as const, value: undefined };
        throw err;
      });
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = message.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
        if (data) yield JSON.parse(data) as MotuEvent;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
