// In-process wake-up of delivery workers when an outbox row is written. Process-wide on purpose: any worker
// of this process may have work; a wake-up that finds nothing costs one query. Across processes,
// PostgreSQL NOTIFY does the same job (see worker.ts).
type Listener = () => void;

const listeners = new Set<Listener>();
let scheduled = false;

export function onOutboxSignal(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Coalesces many writes into one wake-up per turn of the event loop. */
export function signalOutbox(): void {
  if (scheduled || listeners.size === 0) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    for (const listener of listeners) listener();
  });
}
