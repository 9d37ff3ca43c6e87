// The event stream (GET /api/v1/events/stream) read over a real socket, as `motu listen` reads it: it answers 200 and
// stays open by design, so a test takes what arrives within a moment, then hangs up.
export interface StreamRead {
  status: number;
  headers: Headers;
  /** What arrived before hanging up: the SSE text, or the whole error body. */
  text: string;
  body: any;
}

/** Opens `url` (the stream with its query) with `headers`, reads for `ms` when it is a stream (200), then closes it. */
export async function readStream(url: string, headers: Record<string, string>, ms = 300): Promise<StreamRead> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  if (res.status !== 200) {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, headers: res.headers, text, body };
  }
  let text = '';
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  const stop = setTimeout(() => abort.abort(), ms);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    /* hung up by the timer */
  } finally {
    clearTimeout(stop);
  }
  return { status: 200, headers: res.headers, text, body: text };
}
