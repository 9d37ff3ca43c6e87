// Stage 2 of a delivery: send, outside any transaction. Signed with the merchant's secrets (cached per merchant and
// mode, dropped by a rotation in this process) right before the POST, to an address the guard allows.
import { addressPolicy } from '../address-guard.js';
import type { SigningSecretCache } from '../secret-cache.js';
import { signatureHeaders, type SigningSecrets } from '../signer.js';
import { postWebhook } from '../transport.js';
import type { Claimed, DeliveryContext, Sent } from './context.js';

/** The attempt's start and result; null when the merchant's secret could not be read (the claim then lapses). */
export async function send(ctx: DeliveryContext, secrets: SigningSecretCache, c: Claimed): Promise<Sent | null> {
  const { clock, logger, config } = ctx;
  const { merchant_id: merchantId, mode } = c.row;
  let s: SigningSecrets | undefined;
  for (let tries = 0; (s = secrets.cached(merchantId, mode, clock.now().getTime())) === undefined; tries++) {
    if (tries === 3) {
      logger.error({ deliveryId: c.row.id }, 'webhook delivery without a signing secret');
      return null;
    }
    await secrets.load([`${merchantId}:${mode}`]);
  }
  // Signed right after the synchronous look-up: a rotation that has returned is never overtaken.
  const started = clock.now();
  const headers = signatureHeaders(c.body, s, Math.floor(started.getTime() / 1000), c.row.event_id);
  const result = await postWebhook(c.row.url, c.body, headers, {
    timeoutMs: config.webhookTimeoutMs,
    guard: addressPolicy(c.row.mode, config.allowLoopbackUrls),
  });
  return { started, result };
}
