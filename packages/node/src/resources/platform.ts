// A platform's own API (a marketplace; the operator sets the flag on its account): onboarding sessions (a hosted form
// a seller fills in), the onboarding cases they open, and the sellers linked to the platform. Reached as
// `motu.platform.onboardingSessions`, `motu.platform.onboardingCases` and `motu.platform.merchants`; a key without the
// platform flag is answered 403.
import type { MotuClient, RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export type OnboardingSessionCreateParams = RequestBody<'/api/v1/platform/onboarding-sessions', 'post'>;
export type OnboardingSessionListParams = QueryParams<'/api/v1/platform/onboarding-sessions', 'get'>;
export type OnboardingSession = ResponseBody<'/api/v1/platform/onboarding-sessions/{id}', 'get'>;
export type OnboardingCaseListParams = QueryParams<'/api/v1/platform/onboarding-cases', 'get'>;
export type OnboardingCase = ResponseBody<'/api/v1/platform/onboarding-cases/{id}', 'get'>;
export type PlatformMerchantListParams = QueryParams<'/api/v1/platform/merchants', 'get'>;
export type PlatformMerchant = ResponseBody<'/api/v1/platform/merchants/{id}', 'get'>;

export class OnboardingSessions extends Resource {
  /** A hosted onboarding form for a seller: send the seller to its `url`; with `caseId`, a correction of that case. */
  create(params: OnboardingSessionCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/platform/onboarding-sessions', 'post'>> {
    return this.client.request('post', '/api/v1/platform/onboarding-sessions', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<OnboardingSession> {
    return this.client.request('get', '/api/v1/platform/onboarding-sessions/{id}', { path: { id } }, options);
  }

  /** Newest first; filter by `status`. */
  list(params: OnboardingSessionListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/platform/onboarding-sessions', 'get'>> {
    return this.paged('get', '/api/v1/platform/onboarding-sessions', { query: params }, options);
  }

  /** Closes an open session: its link no longer opens the form. */
  cancel(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/platform/onboarding-sessions/{id}/cancel', 'post'>> {
    return this.client.request('post', '/api/v1/platform/onboarding-sessions/{id}/cancel', { path: { id } }, options);
  }
}

export class OnboardingCases extends Resource {
  retrieve(id: string, options?: RequestOptions): Promise<OnboardingCase> {
    return this.client.request('get', '/api/v1/platform/onboarding-cases/{id}', { path: { id } }, options);
  }

  /** Newest first; filter by `enrollmentStatus`. */
  list(params: OnboardingCaseListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/platform/onboarding-cases', 'get'>> {
    return this.paged('get', '/api/v1/platform/onboarding-cases', { query: params }, options);
  }
}

export class PlatformMerchants extends Resource {
  /** The sellers linked to the platform. */
  list(params: PlatformMerchantListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/platform/merchants', 'get'>> {
    return this.paged('get', '/api/v1/platform/merchants', { query: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<PlatformMerchant> {
    return this.client.request('get', '/api/v1/platform/merchants/{id}', { path: { id } }, options);
  }

  /** Unlinks a seller: it can no longer be paid through you; its account stays open. */
  unlink(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/platform/merchants/{id}/unlink', 'post'>> {
    return this.client.request('post', '/api/v1/platform/merchants/{id}/unlink', { path: { id } }, options);
  }
}

/** `motu.platform`: a platform's sellers and their onboarding. */
export class Platform {
  readonly onboardingSessions: OnboardingSessions;
  readonly onboardingCases: OnboardingCases;
  readonly merchants: PlatformMerchants;

  constructor(client: MotuClient) {
    this.onboardingSessions = new OnboardingSessions(client);
    this.onboardingCases = new OnboardingCases(client);
    this.merchants = new PlatformMerchants(client);
  }
}
