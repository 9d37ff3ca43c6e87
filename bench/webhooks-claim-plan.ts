// bench/webhooks-claim-plan: the plans PostgreSQL makes for the worker's claim of pending rows
// (src/events/delivery/claim.ts). The statement is kept prepared, and after five runs PostgreSQL may keep a generic plan,
// made without the parameters' values: both it and the custom plan must walk `webhook_deliveries_pending` in due order
// and stamp the rows chosen by primary key, never read the whole table (docs/performance.md, "the claim's plan on
// PostgreSQL"). Checked on two queues of one target: mostly pending rows (a backlog), then a long history of delivered
// rows with a few pending. Prints each plan's time and buffers (EXPLAIN ANALYZE, rolled back) and fails if a plan
// reads the deliveries any other way.
// Run alone: `DATABASE_URL=… node --import tsx bench/webhooks-claim-plan.ts`; bench/webhooks.bench.ts runs it first
// on PostgreSQL.
import pg from 'pg';
import { parseConfig } from '../src/config.js';
import { CLAIM_PENDING_SQL } from '../src/events/delivery/claim.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { WebhooksService } from '../src/modules/webhooks/webhooks.service.js';
import { systemClock } from '../src/shared/clock.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';

/** The claim's parameters as the worker binds them: every row due, no target busy, a window of 256, 64 per target. */
const PARAMETERS = `'2026-12-01T00:00:00.000Z', '{}', 256, '{}', '{}', 64, 'bench-claim', '2026-12-01T00:01:00.000Z'`;

export interface PlanCheck {
  queue: string;
  mode: 'generic' | 'custom';
  ms: number;
  /** Buffers the whole statement touched (its writes included). */
  buffers: number;
  /** The plan's nodes that read the deliveries or the events, with the buffers each touched. */
  reads: string[];
  ok: boolean;
}

export async function checkClaimPlans(): Promise<PlanCheck[]> {
  const database = await freshDatabase('postgres');
  const checks: PlanCheck[] = [];
  try {
    const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' });
    const merchant = await new MerchantsService(database.db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
    const endpoint = await new WebhooksService(config, database.db, systemClock).createEndpoint(
      { merchantId: merchant.id, mode: 'test' },
      { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    );
    const client = new pg.Client({ connectionString: database.databaseUrl });
    await client.connect();
    try {
      let seq = 0;
      // `count` events and their deliveries to the endpoint, due one after the other, the first `delivered` of them succeeded.
      const add = async (count: number, status: 'succeeded' | 'pending') => {
        await client.query(
          `with e as (
             insert into webhook_events (id, merchant_id, mode, type, payment_id, body, created_at)
             select 'evt_bench_' || i, $1, 'test', 'customer.created', null, repeat('x', 300),
               to_char(timestamp '2026-11-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
             from generate_series($3::int + 1, $3::int + $4::int) i
             returning id, seq, created_at)
           insert into webhook_deliveries (id, event_id, merchant_id, mode, endpoint_id, url, target_key, status, attempt_count,
             next_attempt_at, created_at, updated_at, event_seq)
           select 'whd_bench_' || e.seq, e.id, $1, 'test', $2, 'http://127.0.0.1:9/hook', $2, $5, case when $5 = 'pending' then 0 else 1 end,
             e.created_at, e.created_at, e.created_at, e.seq
           from e`,
          [merchant.id, endpoint.id, seq, count, status],
        );
        seq += count;
        await client.query('analyze webhook_deliveries');
        await client.query('analyze webhook_events');
      };
      await client.query(`prepare claim as ${CLAIM_PENDING_SQL}`);
      const check = async (queue: string) => {
        for (const mode of ['generic', 'custom'] as const) {
          await client.query(`set plan_cache_mode = force_${mode}_plan`);
          await client.query('vacuum webhook_deliveries'); // the rows a check before stamped and rolled back
          await client.query('begin');
          const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) execute claim(${PARAMETERS})`);
          await client.query('rollback');
          const plan = rows.map((r) => r['QUERY PLAN']);
          // Each line that reads a table, with the buffers it touched (its node's first Buffers line).
          const reads = plan.flatMap((l, i) => {
            if (!/ on webhook_(deliveries|events)\b/.test(l) || /^\s*Update on/.test(l)) return [];
            const node = l.trim().replace(/^->\s+/, '').replace(/ \(actual.*$/, '');
            let hit: string | undefined;
            for (const d of plan.slice(i + 1)) {
              if (d.trim().startsWith('->') || /^\s*(SubPlan|InitPlan|CTE) /.test(d)) break; // a child: the node's own lines end
              if (d.trim().startsWith('Buffers:')) hit = /shared hit=(\d+)/.exec(d)?.[1];
            }
            return [`${node}${hit ? `, ${hit} buffers` : ''}`];
          });
          const ok =
            reads.some((l) => l.startsWith('Index Scan using webhook_deliveries_pending ')) &&
            reads.every((l) => /^(Index Scan using (webhook_deliveries_pending|webhook_deliveries_pkey|webhook_events_pkey) |Bitmap Heap Scan on webhook_deliveries |Bitmap Index Scan on webhook_deliveries_pkey)/.test(l));
          const ms = Number(/Execution Time: ([\d.]+)/.exec(plan.join('\n'))?.[1] ?? NaN);
          const buffers = Number(/Buffers: shared hit=(\d+)/.exec(plan.find((l) => l.includes('Buffers')) ?? '')?.[1] ?? NaN);
          checks.push({ queue, mode, ms, buffers, reads, ok });
          if (!ok) console.error(plan.join('\n'));
        }
      };
      await add(500, 'succeeded');
      await add(5_000, 'pending');
      await check('500 delivered, 5,000 pending');
      await client.query(`update webhook_deliveries set status = 'succeeded' where status = 'pending'`);
      await add(100_000, 'succeeded');
      await add(5_000, 'pending');
      await client.query('vacuum analyze webhook_deliveries');
      await check('105,500 delivered, 5,000 pending');
    } finally {
      await client.end();
    }
  } finally {
    await database.drop();
  }
  return checks;
}

export function printClaimPlans(checks: PlanCheck[]): void {
  for (const c of checks) {
    console.error(`claim plan, ${c.queue}, ${c.mode}: ${c.ok ? 'ok' : 'REGRESSED'}, ${c.ms} ms, ${c.buffers} buffers in all`);
    for (const r of c.reads) console.error(`    ${r}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const checks = await checkClaimPlans();
  printClaimPlans(checks);
  if (checks.some((c) => !c.ok)) process.exit(1);
  process.exit(0);
}
