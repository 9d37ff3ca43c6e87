// Webhooks and events: registered endpoints, the signing secret (and its rotation), the agency's addresses, the
// events' history, their deliveries, resends, and the live stream of new events.
import type { RequestOptions } from '../client.js';
import type { MotuEvent } from '../events.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';
import { readEventStream } from './event-stream.js';

export type WebhookEndpointCreateParams = RequestBody<'/api/v1/webhook-endpoints', 'post'>;
export type WebhookEndpointUpdateParams = RequestBody<'/api/v1/webhook-endpoints/{id}', 'patch'>;
export type WebhookEndpoint = ResponseBody<'/api/v1/webhook-endpoints/{id}', 'get'>;
export type EventListParams = QueryParams<'/api/v1/events', 'get'>;
export type EventResendParams = RequestBody<'/api/v1/events/{id}/resend', 'post'>;
export type EventDeliveries = ResponseBody<'/api/v1/events/{id}/deliveries', 'get'>;
export type AgencyWebhookCreateParams = RequestBody<'/api/v1/agency/webhooks', 'post'>;

export class WebhookEndpoints extends Resource {
  /** An endpoint receiving the events its filters match (`["payment.*"]`, `["*"]`…). */
  create(params: WebhookEndpointCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/webhook-endpoints', 'post'>> {
    return this.client.request('post', '/api/v1/webhook-endpoints', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.client.request('get', '/api/v1/webhook-endpoints/{id}', { path: { id } }, options);
  }

  /** Changes an endpoint; `{enabled: true}` puts one taken out of service back. */
  update(id: string, params: WebhookEndpointUpdateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/webhook-endpoints/{id}', 'patch'>> {
    return this.client.request('patch', '/api/v1/webhook-endpoints/{id}', { path: { id }, body: params }, options);
  }

  list(params: QueryParams<'/api/v1/webhook-endpoints', 'get'> = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/webhook-endpoints', 'get'>> {
    return this.paged('get', '/api/v1/webhook-endpoints', { query: params }, options);
  }

  delete(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/webhook-endpoints/{id}', 'delete'>> {
    return this.client.request('delete', '/api/v1/webhook-endpoints/{id}', { path: { id } }, options);
  }
}

export class WebhookSigningSecret extends Resource {
  /** The secret webhooks of this key's mode are signed with (`whsec_…`): give it to verifyWebhook. */
  retrieve(options?: RequestOptions): Promise<ResponseBody<'/api/v1/webhooks/signing-secret', 'get'>> {
    return this.client.request('get', '/api/v1/webhooks/signing-secret', {}, options);
  }

  /** A new secret; the previous one still signs `X-Service-Signature-V2-Previous` for 24 hours. */
  rotate(options?: RequestOptions): Promise<ResponseBody<'/api/v1/webhooks/signing-secret/rotate', 'post'>> {
    return this.client.request('post', '/api/v1/webhooks/signing-secret/rotate', {}, options);
  }
}

export class AgencyWebhooks extends Resource {
  /** An agency declares the address its agency events go to. */
  create(params: AgencyWebhookCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agency/webhooks', 'post'>> {
    return this.client.request('post', '/api/v1/agency/webhooks', { body: params }, options);
  }
}

export interface EventStreamOptions {
  /** Resume after this instant (ISO 8601), e.g. the `createdAt` of the last event handled; default: from now. */
  since?: string | Date;
  /** Ends the stream. */
  signal?: AbortSignal;
}

export class Events extends Resource {
  /** The events, newest first; `type` takes `payment.*`-style filters. */
  list(params: EventListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/events', 'get'>> {
    return this.paged('get', '/api/v1/events', { query: params }, options);
  }

  /** One event exactly as delivered. */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/events/{id}', 'get'>> {
    return this.client.request('get', '/api/v1/events/{id}', { path: { id } }, options);
  }

  /** Every target of the event and every attempt (time, status, latency, answer or error). */
  listDeliveries(id: string, options?: RequestOptions): Promise<EventDeliveries> {
    return this.client.request('get', '/api/v1/events/{id}/deliveries', { path: { id } }, options);
  }

  /** Delivers the event again (same id): to every target it had, one endpoint, or the notification URL. */
  resend(id: string, params: EventResendParams = {}, options?: RequestOptions): Promise<ResponseBody<'/api/v1/events/{id}/resend', 'post'>> {
    return this.client.request('post', '/api/v1/events/{id}/resend', { path: { id }, body: params }, options);
  }

  /**
   * New events as they happen (server-sent events), typed: `for await (const event of motu.events.stream())`.
   * Ends when `signal` aborts or the connection closes; resume with `since`.
   */
  stream(options: EventStreamOptions = {}): AsyncIterable<MotuEvent> {
    const since = options.since instanceof Date ? options.since.toISOString() : options.since;
    const client = this.client;
    return {
      async *[Symbol.asyncIterator]() {
        const res = await client.raw('get', '/api/v1/events/stream', { query: since ? { since } : {} }, { signal: options.signal, timeoutMs: 2 ** 31 - 1, maxRetries: 0 }, 'text/event-stream');
        yield* readEventStream(res.body, options.signal);
      },
    };
  }
}
