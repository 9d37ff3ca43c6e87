// A mandate's scopes in words: as a list (the portfolio, a client's agencies), and as checkboxes to choose them (an
// invitation, a client changing what an agency may do).
import { useId } from 'react';
import { useScopeText } from '../i18n.js';
import { SCOPES, type Scope } from '../platform-types.js';
import { CheckboxField } from './Form.js';

export function ScopeList({ scopes }: { scopes: readonly string[] }) {
  const scopeText = useScopeText();
  return <ul className="scope-list">{scopes.map((scope) => <li key={scope}>{scopeText(scope)}</li>)}</ul>;
}

export function ScopeChecklist({ legend, hint, value, onChange }: { legend: string; hint?: string; value: Scope[]; onChange: (next: Scope[]) => void }) {
  const scopeText = useScopeText();
  const hintId = useId();
  return (
    <fieldset className="scopes" aria-describedby={hint ? hintId : undefined}>
      <legend>{legend}</legend>
      {hint && <p className="hint" id={hintId}>{hint}</p>}
      {SCOPES.map((scope) => (
        <CheckboxField
          key={scope} label={scopeText(scope)} value={scope} checked={value.includes(scope)}
          onChange={(event) => onChange(event.target.checked ? SCOPES.filter((s) => s === scope || value.includes(s)) : value.filter((s) => s !== scope))}
        />
      ))}
    </fieldset>
  );
}
