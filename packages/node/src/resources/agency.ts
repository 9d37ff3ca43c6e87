// Agencies and their clients' mandates. An agency (the operator sets the flag on its account) invites clients
// (`motu.agency.invitations`) and lists the mandates it holds (`motu.agency.mandates`); a client accepts an invitation
// with its own key and changes, transfers or revokes the mandates on its account (`motu.agencyMandates`). Under a
// mandate, the agency acts for its client with `motu.withAccount('mer_…')`.
import type { MotuClient, RequestOptions } from '../client.js';
import type { ListPromise } from '../pagination.js';
import type { ListItem, QueryParams, RequestBody, ResponseBody } from '../types.js';
import { Resource } from './resource.js';

export type AgencyInvitationCreateParams = RequestBody<'/api/v1/agency/invitations', 'post'>;
export type AgencyInvitationListParams = QueryParams<'/api/v1/agency/invitations', 'get'>;
export type AgencyInvitation = ResponseBody<'/api/v1/agency/invitations/{id}', 'get'>;
export type AgencyPortfolioListParams = QueryParams<'/api/v1/agency/mandates', 'get'>;
export type AgencyMandateListParams = QueryParams<'/api/v1/agency-mandates', 'get'>;
export type AgencyMandateUpdateParams = RequestBody<'/api/v1/agency-mandates/{id}', 'patch'>;
export type AgencyMandateTransferParams = RequestBody<'/api/v1/agency-mandates/{id}/transfer', 'post'>;
export type Mandate = ResponseBody<'/api/v1/agency-mandates/{id}', 'patch'>;

export class AgencyInvitations extends Resource {
  /** Invites a client by email to give the agency a mandate with these `scopes`; the answer's `url` is the invitation. */
  create(params: AgencyInvitationCreateParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agency/invitations', 'post'>> {
    return this.client.request('post', '/api/v1/agency/invitations', { body: params }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<AgencyInvitation> {
    return this.client.request('get', '/api/v1/agency/invitations/{id}', { path: { id } }, options);
  }

  /** Newest first; filter by `status`. */
  list(params: AgencyInvitationListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/agency/invitations', 'get'>> {
    return this.paged('get', '/api/v1/agency/invitations', { query: params }, options);
  }

  cancel(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agency/invitations/{id}/cancel', 'post'>> {
    return this.client.request('post', '/api/v1/agency/invitations/{id}/cancel', { path: { id } }, options);
  }
}

export class AgencyPortfolio extends Resource {
  /** The mandates the agency holds (its clients); filter by `status`. */
  list(params: AgencyPortfolioListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/agency/mandates', 'get'>> {
    return this.paged('get', '/api/v1/agency/mandates', { query: params }, options);
  }
}

/** `motu.agency`: an agency's own invitations and the mandates it holds. */
export class Agency {
  readonly invitations: AgencyInvitations;
  readonly mandates: AgencyPortfolio;

  constructor(client: MotuClient) {
    this.invitations = new AgencyInvitations(client);
    this.mandates = new AgencyPortfolio(client);
  }
}

/** `motu.agencyInvitations`: a client accepting an agency's invitation, with its own key. */
export class AgencyInvitationAcceptance extends Resource {
  /** `token` is the last segment of the invitation's `url`; the answer is the new mandate. */
  accept(token: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agency-invitations/{token}/accept', 'post'>> {
    return this.client.request('post', '/api/v1/agency-invitations/{token}/accept', { path: { token } }, options);
  }
}

/** `motu.agencyMandates`: the mandates given on the client's account. */
export class AgencyMandates extends Resource {
  list(params: AgencyMandateListParams = {}, options?: RequestOptions): ListPromise<ListItem<'/api/v1/agency-mandates', 'get'>> {
    return this.paged('get', '/api/v1/agency-mandates', { query: params }, options);
  }

  /** Changes what the agency may do (the mandate's `scopes`). */
  update(id: string, params: AgencyMandateUpdateParams, options?: RequestOptions): Promise<Mandate> {
    return this.client.request('patch', '/api/v1/agency-mandates/{id}', { path: { id }, body: params }, options);
  }

  /** Moves the mandate to another agency (`agencyId`). */
  transfer(id: string, params: AgencyMandateTransferParams, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agency-mandates/{id}/transfer', 'post'>> {
    return this.client.request('post', '/api/v1/agency-mandates/{id}/transfer', { path: { id }, body: params }, options);
  }

  /** Revokes the mandate (the client or the agency): the agency's calls on the account are refused from then on. */
  revoke(id: string, options?: RequestOptions): Promise<ResponseBody<'/api/v1/agency-mandates/{id}/revoke', 'post'>> {
    return this.client.request('post', '/api/v1/agency-mandates/{id}/revoke', { path: { id } }, options);
  }
}
