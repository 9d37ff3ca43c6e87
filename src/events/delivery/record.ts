// Stage 3 of a delivery: record. The outcomes of many finished attempts in ONE transaction (on SQLite one fsync for the
// batch), each update guarded by its claim token: 2xx → succeeded; otherwise the next retry per the configured
// schedule; after the last retry → abandoned, and a registered endpoint is taken out of service until the merchant
// enables it again. Every attempt is a webhook_attempts row.
import type { DeliveryStatus, WebhookAttemptsTable } from '../events.table.js';
import { newId } from '../../shared/ids.js';
import { INSERT_CHUNK, type DeliveryContext, type Finished } from './context.js';

interface Outcome {
  f: Finished;
  ok: boolean;
  abandon: boolean;
  attempt: number;
  error: string | null;
  /** When the next retry is due (a failure with retries left). */
  next: string | null;
}

export async function recordOutcomes(ctx: DeliveryContext, batch: Finished[]): Promise<void> {
  const { db, clock, logger, schedule } = ctx;
  const now = clock.now();
  const nowIso = now.toISOString();
  // Rows that get the same update share one statement (typically: a claim's batch, all answered 2xx).
  const groups = new Map<string, { token: string; set: Record<string, unknown>; outcomes: Outcome[] }>();
  for (const f of batch) {
    const { c, result } = f;
    const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const attempt = c.row.attempt_count + 1;
    const retryIndex = attempt - 1; // the first send failed → retry 1 is schedule[0]
    const abandon = !ok && retryIndex >= schedule.length;
    const error = ok ? null : result.error ?? `HTTP ${result.statusCode}`;
    const status: DeliveryStatus = ok ? 'succeeded' : abandon ? 'abandoned' : 'pending';
    const next = ok || abandon ? null : new Date(now.getTime() + schedule[retryIndex]! * 1000).toISOString();
    const key = JSON.stringify([c.row.claim_token, status, attempt, next, result.statusCode, error]);
    let g = groups.get(key);
    if (!g) {
      const set: Record<string, unknown> = {
        status,
        attempt_count: attempt,
        claim_token: null,
        lease_until: null,
        last_status_code: result.statusCode,
        last_error: error,
        updated_at: nowIso,
      };
      if (next) set.next_attempt_at = next;
      g = { token: c.row.claim_token!, set, outcomes: [] };
      groups.set(key, g);
    }
    g.outcomes.push({ f, ok, abandon, attempt, error, next });
  }
  const recorded: Outcome[] = [];
  const lostClaims: Outcome[] = [];
  await db.transaction(async (trx) => {
    recorded.length = 0;
    lostClaims.length = 0;
    for (const g of groups.values()) {
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set(g.set)
        .where('id', 'in', g.outcomes.map((o) => o.f.c.row.id))
        .where('claim_token', '=', g.token)
        .returning('id')
        .execute();
      const ids = new Set(updated.map((u) => u.id));
      for (const o of g.outcomes) (ids.has(o.f.c.row.id) ? recorded : lostClaims).push(o);
    }
    const attempts: WebhookAttemptsTable[] = recorded.map((o) => ({
      id: newId('att'),
      delivery_id: o.f.c.row.id,
      event_id: o.f.c.row.event_id,
      attempt: o.attempt,
      started_at: o.f.started.toISOString(),
      status_code: o.f.result.statusCode,
      latency_ms: o.f.result.latencyMs,
      succeeded: o.ok ? 1 : 0,
      response_excerpt: o.f.result.excerpt,
      error: o.error,
    }));
    for (let i = 0; i < attempts.length; i += INSERT_CHUNK) await trx.insertInto('webhook_attempts').values(attempts.slice(i, i + INSERT_CHUNK)).execute();
    const disable = [...new Set(recorded.filter((o) => o.abandon && o.f.c.row.endpoint_id).map((o) => o.f.c.row.endpoint_id!))];
    if (disable.length > 0) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_reason: 'failing', disabled_at: nowIso, updated_at: nowIso })
        .where('id', 'in', disable)
        .execute();
    }
  });
  for (const o of lostClaims) logger.warn({ deliveryId: o.f.c.row.id }, 'webhook claim lost before the attempt was recorded');
  for (const o of recorded) {
    if (o.ok) continue;
    const row = o.f.c.row;
    // Ids, the status code and the transport's error only: never the URL (a notificationUrl may carry the merchant's
    // own token), the body, the signature or the secret.
    const fields = { deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id, mode: row.mode, attempt: o.attempt, statusCode: o.f.result.statusCode, error: o.error };
    if (o.abandon) {
      logger.warn(fields, row.endpoint_id ? 'webhook abandoned; endpoint taken out of service' : 'webhook to notificationUrl abandoned');
    } else if (row.mode === 'test') {
      // In test mode the receiver is the developer's own, being written: its failures are what they need to see.
      logger.warn({ ...fields, nextAttemptAt: o.next }, 'test-mode webhook attempt failed; it will be retried');
    } else {
      logger.info({ ...fields, nextAttemptAt: o.next }, 'webhook attempt failed; it will be retried');
    }
  }
}
