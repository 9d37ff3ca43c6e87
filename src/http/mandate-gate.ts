// A mandate's change (revocation, scopes, transfer) and the agency's calls that change something under it, kept apart
// in this process: a change waits for the calls already admitted to finish, and a call arriving meanwhile waits for
// the change, then has its mandate checked again. So no call admitted under the old mandate still writes once the
// change has committed (reads, the event stream among them, are not held: the stream re-checks its mandate every 2 s).
// Between processes sharing PostgreSQL, a call admitted a moment before a change committed elsewhere may still finish.
export class MandateGate {
  private readonly inFlight = new Map<string, number>();
  private readonly changing = new Map<string, Promise<void>>();
  private readonly drained = new Map<string, () => void>();
  /** Counts the changes ended in this process, of any mandate: a call reads it before it reads its mandate. */
  #changes = 0;

  /** Taken before a call reads its mandate, and handed to `enter`. */
  get changesSeen(): number {
    return this.#changes;
  }

  /**
   * Admits a call under the mandate; false when the mandate it read may be stale (the caller checks it again): it had to
   * wait for a change, or a change ended between its read of the mandate (`seen`, changesSeen before that read) and now.
   * Without the second case, a change that began and committed while the call was reading its mandate would find no
   * call to wait for, and the call would then be admitted under the mandate as it was before.
   */
  async enter(mandateId: string, seen: number): Promise<boolean> {
    let waited = false;
    for (let change = this.changing.get(mandateId); change; change = this.changing.get(mandateId)) {
      waited = true;
      await change;
    }
    if (waited || this.#changes !== seen) return false;
    this.inFlight.set(mandateId, (this.inFlight.get(mandateId) ?? 0) + 1);
    return true;
  }

  leave(mandateId: string): void {
    const left = (this.inFlight.get(mandateId) ?? 1) - 1;
    if (left > 0) {
      this.inFlight.set(mandateId, left);
      return;
    }
    this.inFlight.delete(mandateId);
    this.drained.get(mandateId)?.();
  }

  /** Runs a change of the mandate once the calls admitted under it have finished (at most `maxWaitMs`). */
  async exclusive<T>(mandateId: string, fn: () => Promise<T>, maxWaitMs = 30_000): Promise<T> {
    for (let change = this.changing.get(mandateId); change; change = this.changing.get(mandateId)) await change;
    let done!: () => void;
    this.changing.set(mandateId, new Promise<void>((resolve) => { done = resolve; }));
    try {
      if ((this.inFlight.get(mandateId) ?? 0) > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, maxWaitMs);
          this.drained.set(mandateId, () => { clearTimeout(timer); resolve(); });
        });
      }
      return await fn();
    } finally {
      this.#changes += 1;
      this.drained.delete(mandateId);
      this.changing.delete(mandateId);
      done();
    }
  }
}
