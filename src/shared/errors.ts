// Expected failures are values: an AppError carries a code; one table maps every code to its HTTP status.

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  ORDER_AMOUNT_MISMATCH: 400,
  UNKNOWN_STORE: 400,
  STORE_INACTIVE: 400,
  STORE_KIND_MISMATCH: 400,
  STORE_CONTRACT_INACTIVE: 400,
  STORE_CONTRACT_CONFLICT: 400,
  STORE_KEY_MISMATCH: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  TWO_FACTOR_REQUIRED: 401,
  INVALID_TWO_FACTOR_CODE: 401,
  CSRF_TOKEN_INVALID: 403,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  ONBOARDING_SESSION_NOT_OPEN: 409,
  ONBOARDING_CASE_NOT_CORRECTABLE: 409,
  ONBOARDING_CASE_REFUSED: 409,
  ONBOARDING_CASE_DECIDED: 409,
  SESSION_EXPIRED: 410,
  BUSINESS_RULE_VIOLATION: 422,
  PAYMENT_NOT_CAPTURABLE: 422,
  PAYMENT_NOT_CANCELLABLE: 422,
  PAYMENT_NOT_REFUNDABLE: 422,
  REFUND_EXCEEDS_CAPTURED: 422,
  INSUFFICIENT_BALANCE: 422,
  NO_BANK_ACCOUNT: 422,
  PAYOUT_NOT_CANCELLABLE: 422,
  PAYOUT_NOT_PENDING: 422,
  CLOCK_NOT_ADVANCEABLE: 422,
  CLOCK_ADVANCE_TOO_FAR: 422,
  CLOCK_OBJECT_LIMIT: 422,
  PAYMENT_DISPUTED: 422,
  PAYMENT_NOT_DISPUTABLE: 422,
  DISPUTE_EVIDENCE_SUBMITTED: 422,
  DISPUTE_CLOSED: 422,
  PAYMENT_METHOD_UNUSABLE: 422,
  SUBSCRIPTION_CANCELLED: 422,
  SUBSCRIPTION_NOT_PAST_DUE: 422,
  INVOICING_INVOICE_FINALIZED: 422,
  INVOICING_NOT_ACTIVATED: 422,
  INVOICING_INVOICE_NOT_PAYABLE: 422,
  INVOICING_AMOUNT_EXCEEDS_REMAINING: 422,
  INVOICING_CREDIT_EXCEEDS_CREDITABLE: 422,
  INVOICING_NOTHING_TO_REFUND: 422,
  LAST_OWNER: 422,
  RATE_LIMITED: 429,
  ACCOUNT_LOCKED: 429,
  TOO_MANY_ATTEMPTS: 429,
  INTERNAL_ERROR: 500,
  ACQUIRER_NOT_CONFIGURED: 503,
  OPERATOR_ACCOUNT_NOT_CONFIGURED: 503,
  SERVICE_UNAVAILABLE: 503,
  PLATFORM_CONFIG_INVALID: 400,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  fields?: FieldError[];
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.details) body.details = this.details;
    if (this.fields) body.fields = this.fields;
    return body;
  }
}

/** A 400 VALIDATION_ERROR naming the first invalid field in `details.field` and all of them in `fields`. */
export function validationError(fields: FieldError[]): AppError {
  const first = fields[0] ?? { field: 'body', message: 'is invalid' };
  const message = fields.length === 1 ? `${first.field}: ${first.message}` : `${fields.length} fields are invalid; ${first.field}: ${first.message}`;
  return new AppError('VALIDATION_ERROR', message, { field: first.field }, fields);
}

export function invalidField(field: string, message: string): AppError {
  return validationError([{ field, message }]);
}

export function notFound(what: string, id?: string): AppError {
  return new AppError('NOT_FOUND', id ? `No ${what} with id ${id}` : `${what} not found`, id ? { id } : undefined);
}
