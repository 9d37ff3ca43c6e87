// @motu/node: Motu's merchant API from Node.js (20+), typed from Motu's OpenAPI document, with typed webhook events.
export { Motu } from './motu.js';
export { MotuClient, VERSION, type CallArgs, type MotuOptions, type RawResponse, type RequestOptions } from './client.js';
export * from './errors.js';
export * from './events.js';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks.js';
export { ListPromise, type Page } from './pagination.js';
export type * from './types.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export type * from './resources/billing.js';
export type * from './resources/customers.js';
export type * from './resources/money.js';
export type * from './resources/payments.js';
export type * from './resources/webhooks.js';
export type * from './resources/test-helpers.js';
export type * from './resources/platform.js';
export type * from './resources/agency.js';
