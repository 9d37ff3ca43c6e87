// One LISTEN connection per process, shared by everyone who listens: the reference stamp (channel motu_reference)
// and the delivery worker (the outbox's channel). It connects when the first listener subscribes, LISTENs on every
// channel asked, and when the connection is lost it tells every listener (something may have been missed) and
// connects again every `retryMs`. A connection cut without a word (a network partition, a failover behind a proxy)
// would otherwise leave listeners trusting a silent channel: a query every `heartbeatMs`, and the connection is
// dropped when the previous one has not answered by the next.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The payload of the notifications this process sends after its commits (src/db/postgres/postgres.ts,
 * Notifications). Its listener passes them over: the commit's hook has called this process's listeners already
 * (notifyAfterCommit), and hearing its own notification again would only wake them a second time for nothing.
 */
export const OWN_NOTIFICATIONS = `motu-${randomBytes(8).toString('hex')}`;

interface Listener {
  onNotify(): void;
  /** The connection is up (again) or was lost: whatever was sent meanwhile was not heard. */
  onGap(): void;
}

export class PostgresListener {
  private client: pg.Client | undefined;
  private up = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly channels = new Map<string, Set<Listener>>();

  constructor(
    private readonly connectionString: string,
    private readonly retryMs = 1000,
    private readonly heartbeatMs = 5000,
  ) {}

  /** Whether the connection is up and LISTENing: notifications are being heard. */
  get listening(): boolean {
    return this.up;
  }

  subscribe(channel: string, listener: Listener): () => void {
    let set = this.channels.get(channel);
    if (!set) {
      set = new Set();
      this.channels.set(channel, set);
      if (this.up) void this.client?.query(`LISTEN ${channel}`).catch(() => this.lost(this.client!));
    }
    set.add(listener);
    this.connect();
    return () => {
      set.delete(listener);
    };
  }

  private each(fn: (l: Listener) => void): void {
    for (const set of this.channels.values()) for (const l of set) fn(l);
  }

  private connect(): void {
    if (this.client || this.closed || this.retry) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'motu-listener',
      connectionTimeoutMillis: this.heartbeatMs,
      keepAlive: true,
    });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.payload === OWN_NOTIFICATIONS) return;
      for (const l of this.channels.get(message.channel) ?? []) l.onNotify();
    });
    client
      .connect()
      .then(async () => {
        for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
      })
      .then(() => {
        if (this.client !== client) return;
        this.up = true;
        this.each((l) => l.onGap()); // commits made before LISTEN were not heard
        let waiting = false;
        this.heartbeat = setInterval(() => {
          if (waiting) return this.lost(client);
          waiting = true;
          client.query('select 1').then(() => {
            waiting = false;
          }, () => this.lost(client));
        }, this.heartbeatMs);
        this.heartbeat.unref();
      })
      .catch(() => this.lost(client));
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    clearInterval(this.heartbeat);
    this.client = undefined;
    this.up = false;
    this.each((l) => l.onGap());
    void client.end().catch(() => {});
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.channels.size > 0) this.connect();
    }, this.retryMs);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.up = false;
    if (client) await client.end().catch(() => {});
  }
}
