// Webhook events, typed: `MotuEvent` is the union of every event type with its own `data`, so that checking
// `event.type === 'payment.captured'` narrows `event.data` to that payload. The payloads are generated from
// the service's own definitions (generated/events.ts).
import { EVENT_TYPES, type EventDataMap } from './generated/events.js';

export * from './generated/events.js';

export type MotuEventType = keyof EventDataMap;

/** The envelope every webhook body (and every event of the API) has. */
export interface MotuEventOf<T extends MotuEventType> {
  /** The event id: deduplicate on it (a retry or a resend delivers the same id). */
  id: string;
  type: T;
  /** ISO 8601, UTC. */
  createdAt: string;
  data: EventDataMap[T];
}

/** Any event Motu sends: narrow it on `type`. */
export type MotuEvent = { [T in MotuEventType]: MotuEventOf<T> }[MotuEventType];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isMotuEventType(value: string): value is MotuEventType {
  return KNOWN.has(value);
}
