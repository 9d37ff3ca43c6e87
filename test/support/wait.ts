// The one way tests wait for something that happens in the background (a worker, a listener, another process):
// poll a check until it holds, and fail with what was awaited once the bound is reached instead of hanging.
import assert from 'node:assert/strict';

/**
 * Polls `check` every `intervalMs` until it holds; fails after `timeoutMs` with "<what>: not within N ms".
 * `what` may be a function, read at the failure, to tell what was last seen.
 */
export async function eventually(
  what: string | (() => string),
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline) assert.fail(`${typeof what === 'function' ? what() : what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits a fixed time. Only to let a moment pass before checking that nothing more happened (no second delivery, no
 * attempt past the schedule), or to space out steps; never to wait for something to happen: that is `eventually`.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
