// Lists answer one page, `{data, hasMore}`, and take `limit` and `startingAfter` (the id of the last item seen).
// A ListPromise is that first page when awaited, and every item of every page when iterated with `for await`.

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

type FetchPage<T> = (startingAfter: string | undefined) => Promise<Page<T>>;

export class ListPromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  #first: Promise<Page<T>> | null = null;

  constructor(
    private readonly fetchPage: FetchPage<T>,
    private readonly startingAfter: string | undefined,
  ) {}

  private first(): Promise<Page<T>> {
    this.#first ??= this.fetchPage(this.startingAfter);
    return this.#first;
  }

  then<R1 = Page<T>, R2 = never>(
    onFulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.first().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.first().catch(onRejected);
  }

  /** Every item of every page, fetching the next page when the previous one is used up. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page = await this.first();
    for (;;) {
      yield* page.data;
      if (!page.hasMore || page.data.length === 0) return;
      const last = page.data[page.data.length - 1] as { id?: unknown };
      if (typeof last.id !== 'string') throw new TypeError('this list has no item ids to page with');
      page = await this.fetchPage(last.id);
    }
  }

  /** Every item of every page, up to `max` (default 10 000, a guard against reading a whole history by mistake). */
  async toArray(max = 10_000): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) {
      if (all.length >= max) break;
      all.push(item);
    }
    return all;
  }
}
