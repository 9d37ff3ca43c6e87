// The one field every form types an amount in: in the currency's units ("25", "25,50" in French; francs CFP have no
// decimals), read into minor units by src/shared/money-input.ts. Under the field, before anything is confirmed, the
// amount that will be sent (or the form's own sentence about it); a wrong amount is said at once and never sent.
import { useId, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isCurrency, type Currency } from '../../../shared/money.js';
import { parseAmount } from '../../../shared/money-input.js';
import { formatAmount } from '../format.js';
import { useLang } from '../i18n.js';

export interface AmountBounds {
  /** The least amount accepted, in minor units (1 unless said otherwise: a zero payout or refund means nothing). */
  min?: number;
  /** The most accepted, in minor units (what is left to refund, what is available). */
  max?: number;
}

/** What the field holds: nothing, an amount in minor units, or the reason it is not one (in the user's language). */
export type AmountState = { kind: 'empty' } | { kind: 'amount'; amount: number } | { kind: 'error'; message: string };

/** Amounts of an unknown currency are read as euros are (two decimals); Motu has only XPF and EUR. */
function currencyOf(currency: string): Currency {
  return isCurrency(currency) ? currency : 'EUR';
}

/** Reads a typed amount in the user's language, with its bounds. */
export function useAmountReader(): (text: string, currency: string, bounds?: AmountBounds) => AmountState {
  const { t } = useTranslation();
  const lang = useLang();
  return (text, currency, { min = 1, max } = {}) => {
    const c = currencyOf(currency);
    const read = parseAmount(text, c, lang);
    if (read.ok) {
      if (read.amount < min) return { kind: 'error', message: t('money.atLeast', { amount: formatAmount(min, c, lang) }) };
      if (max !== undefined && read.amount > max) return { kind: 'error', message: t('money.atMost', { amount: formatAmount(max, c, lang) }) };
      return { kind: 'amount', amount: read.amount };
    }
    switch (read.error) {
      case 'empty': return { kind: 'empty' };
      case 'invalid': return { kind: 'error', message: t(`money.invalid.${c}`) };
      case 'too_many_decimals': return { kind: 'error', message: t(`money.tooManyDecimals.${c}`) };
      case 'too_large': return { kind: 'error', message: t('money.tooLarge') };
    }
  };
}

/** A refused amount, thrown when a form is submitted with it: its message is what the field already says. */
export class AmountError extends Error {}

export interface MoneyInput extends AmountBounds {
  value: string;
  onChange: (text: string) => void;
  currency: string;
  state: AmountState;
  /** The amount to send in minor units, null when the field is empty; throws AmountError for a refused amount. */
  amount(options?: { required?: boolean }): number | null;
}

/** The state of one amount field of a form, in `currency`, within `bounds`. */
export function useMoneyInput(currency: string, bounds: AmountBounds = {}): MoneyInput & { reset(): void } {
  const { t } = useTranslation();
  const [value, setValue] = useState('');
  const state = useAmountReader()(value, currency, bounds);
  return {
    value, onChange: setValue, currency, ...bounds, state, reset: () => setValue(''),
    amount: ({ required = false } = {}) => amountOf(state, required, t('money.required')),
  };
}

/** The minor units of a field's state for a request; throws AmountError for a refused or missing amount. */
export function amountOf(state: AmountState, required: boolean, requiredMessage: string): number | null {
  if (state.kind === 'error') throw new AmountError(state.message);
  if (state.kind === 'empty') {
    if (required) throw new AmountError(requiredMessage);
    return null;
  }
  return state.amount;
}

interface Props {
  label: string;
  value: string;
  onChange: (text: string) => void;
  currency: string;
  /** Defaults to what useAmountReader makes of `value` (pass a MoneyInput's own). */
  state?: AmountState;
  min?: number;
  max?: number;
  required?: boolean;
  disabled?: boolean;
  /** Replaces the currency's hint ("In euros: 25 or 25.50."). */
  hint?: ReactNode;
  /**
   * What the amount will do, shown under the field as it is typed ("Refunds €25.50; left to refund afterwards:
   * €10.00"); `null` for an empty field. Without it, the amount itself is shown.
   */
  describe?: (amount: number | null) => ReactNode;
  className?: string;
}

export function MoneyField({ label, value, onChange, currency, state, min, max, required, disabled, hint, describe, className }: Props) {
  const { t } = useTranslation();
  const lang = useLang();
  const id = useId();
  const read = useAmountReader();
  const c = currencyOf(currency);
  const current = state ?? read(value, c, { min, max });
  const amount = current.kind === 'amount' ? current.amount : null;
  const preview = current.kind === 'error' ? null : describe ? describe(amount) : amount !== null ? formatAmount(amount, c, lang) : null;
  const error = current.kind === 'error' && value.trim() !== '' ? current.message : null;
  const ids = [`${id}-hint`, preview ? `${id}-preview` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field money-field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id} type="text" inputMode={c === 'XPF' ? 'numeric' : 'decimal'} autoComplete="off" spellCheck={false}
        value={value} onChange={(e) => onChange(e.target.value)} required={required} disabled={disabled}
        aria-invalid={error ? true : undefined} aria-describedby={ids}
      />
      <p className="hint" id={`${id}-hint`}>{hint ?? t(`money.hint.${c}`)}</p>
      <p className="money-preview" id={`${id}-preview`} aria-live="polite">{preview}</p>
      {error && <p className="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}
