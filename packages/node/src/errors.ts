// Errors as values a caller can branch on: every failure is a MotuError with the API's own fields; the subclass
// tells the kind (by HTTP status, or a failure before any answer), `code` the precise reason.
import type { components } from './generated/openapi.js';

/** Every error code the API answers, as the document's Error schema lists them. */
export type ApiErrorCode = components['schemas']['Error']['code'];

/** Codes of failures that have no answer from Motu (the network, the timeout) or a webhook that does not verify. */
export type ClientErrorCode = 'CONNECTION_ERROR' | 'TIMEOUT' | WebhookFailure;

/** Why verifyWebhook refused a request. */
export type WebhookFailure =
  | 'WEBHOOK_MISSING_SIGNATURE'
  | 'WEBHOOK_MISSING_TIMESTAMP'
  | 'WEBHOOK_V1_NOT_ALLOWED'
  | 'WEBHOOK_INVALID_SIGNATURE'
  | 'WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE'
  | 'WEBHOOK_INVALID_BODY';

/** Every code a MotuError can carry; a code a newer Motu adds still arrives, as a plain string. */
export type MotuErrorCode = ApiErrorCode | ClientErrorCode | (string & {});

export interface FieldError {
  field: string;
  message: string;
}

export interface MotuErrorInit {
  status: number;
  code: MotuErrorCode;
  message: string;
  details?: Record<string, unknown>;
  fields?: FieldError[];
  requestId?: string | null;
  /** Seconds to wait before trying again (429 and some 409/503 answers). */
  retryAfter?: number | null;
  cause?: unknown;
}

export class MotuError extends Error {
  /** HTTP status of the answer; 0 when there was none (network failure, timeout, webhook verification). */
  readonly status: number;
  readonly code: MotuErrorCode;
  /** The API's `details` (for a validation error, `details.field` names the first invalid field). */
  readonly details: Record<string, unknown>;
  /** Every invalid field of a 400 VALIDATION_ERROR: `[{field, message}]`; empty otherwise. */
  readonly fields: FieldError[];
  /** The answer's X-Request-Id: quote it when asking the operator about a request. */
  readonly requestId: string | null;
  readonly retryAfter: number | null;

  constructor(init: MotuErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.fields = init.fields ?? [];
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** 400: the request is invalid; `fields` lists every invalid field. */
export class MotuValidationError extends MotuError {}
/** 401: the key is missing, unknown or revoked. */
export class MotuAuthenticationError extends MotuError {}
/** 403: the key may not do this (a read-only key writing, a store's key reaching another store). */
export class MotuPermissionError extends MotuError {}
/** 404: no such object for this key (or no such route). */
export class MotuNotFoundError extends MotuError {}
/** 409: a conflict, such as an Idempotency-Key reused with another body. */
export class MotuConflictError extends MotuError {}
/** 410: the object is gone (an expired session). */
export class MotuGoneError extends MotuError {}
/** 422: a business rule refused it (not capturable, refund above what was captured, insufficient balance…). */
export class MotuBusinessRuleError extends MotuError {}
/** 429: too many requests; `retryAfter` says when to come back. */
export class MotuRateLimitError extends MotuError {}
/** 5xx: Motu failed or is unavailable; the request id helps the operator. */
export class MotuServerError extends MotuError {}
/** No answer: the connection failed (`CONNECTION_ERROR`). */
export class MotuConnectionError extends MotuError {}
/** No answer within the timeout (`TIMEOUT`). */
export class MotuTimeoutError extends MotuConnectionError {}
/** verifyWebhook refused the request; `code` says why. */
export class MotuWebhookError extends MotuError {}

const BY_STATUS: Record<number, typeof MotuError> = {
  400: MotuValidationError,
  401: MotuAuthenticationError,
  403: MotuPermissionError,
  404: MotuNotFoundError,
  409: MotuConflictError,
  410: MotuGoneError,
  422: MotuBusinessRuleError,
  429: MotuRateLimitError,
};

function errorClass(status: number): typeof MotuError {
  return BY_STATUS[status] ?? (status >= 500 ? MotuServerError : MotuError);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error an answer of this status and body stands for (the body is Motu's `{code, message, details?, fields?}`). */
export function errorFromResponse(status: number, body: unknown, requestId: string | null, retryAfter: number | null): MotuError {
  const b = isRecord(body) ? body : {};
  const code = typeof b.code === 'string' ? b.code : `HTTP_${status}`;
  const message = typeof b.message === 'string' ? b.message : `Motu answered ${status}`;
  const fields = Array.isArray(b.fields)
    ? b.fields.filter((f): f is FieldError => isRecord(f) && typeof f.field === 'string' && typeof f.message === 'string')
    : [];
  const Class = errorClass(status);
  return new Class({ status, code, message, details: isRecord(b.details) ? b.details : {}, fields, requestId, retryAfter });
}
