// What every resource shares: the client, and lists that page themselves.
import type { CallArgs, MotuClient, RequestOptions } from '../client.js';
import { ListPromise, type Page } from '../pagination.js';
import type { ApiPath, ListItem, MethodOf } from '../types.js';

export abstract class Resource {
  constructor(protected readonly client: MotuClient) {}

  /** A list operation as a ListPromise: the first page when awaited, every item with `for await`. */
  protected paged<P extends ApiPath, M extends MethodOf<P>>(
    method: M,
    path: P,
    args: CallArgs<P, M>,
    options?: RequestOptions,
  ): ListPromise<ListItem<P, M>> {
    const query = { ...(args.query as Record<string, unknown> | undefined) };
    const first = typeof query.startingAfter === 'string' ? query.startingAfter : undefined;
    return new ListPromise<ListItem<P, M>>(
      (startingAfter) =>
        this.client.request(method, path, { ...args, query: { ...query, startingAfter } } as unknown as CallArgs<P, M>, options) as Promise<Page<ListItem<P, M>>>,
      first,
    );
  }
}
