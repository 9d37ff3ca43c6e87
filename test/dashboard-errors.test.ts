// The back-office's refusals as the team reads them (src/dashboard/app/errors.ts): written from the API's code and
// details in French and English, never from its English message; every error code has its text, with no
// placeholder left unfilled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import i18next from 'i18next';
import { ApiError } from '../src/dashboard/app/api.js';
import { describeError } from '../src/dashboard/app/errors.js';
import { catalog, type Lang } from '../src/i18n/index.js';
import { ERROR_STATUS, type ErrorCode } from '../src/shared/errors.js';

const S = '\u00a0';

async function translator(lang: Lang) {
  const instance = i18next.createInstance();
  await instance.init({ lng: lang, resources: { [lang]: { dashboard: catalog[lang].dashboard } }, defaultNS: 'dashboard', interpolation: { escapeValue: false } });
  return instance.t;
}

function refusal(code: string, details?: Record<string, unknown>, fields?: Array<{ field: string; message: string }>, status = 422): ApiError {
  return new ApiError(status, { code, message: 'An English message for integrations', ...(details ? { details } : {}), ...(fields ? { fields } : {}) });
}

describe('describeError', () => {
  it('writes amounts of the details in their currency, or in the page\'s', async () => {
    const en = await translator('en');
    const fr = await translator('fr');
    const exceeds = refusal('REFUND_EXCEEDS_CAPTURED', { requested: 9000, refundable: 2550, currency: 'EUR' });
    assert.equal(describeError(exceeds, en, 'en'), 'Only €25.50 is left to refund.');
    assert.equal(describeError(exceeds, fr, 'fr'), `Il ne reste que 25,50${S}€ à rembourser.`);
    const credit = refusal('INVOICING_CREDIT_EXCEEDS_CREDITABLE', { creditable: 5000 });
    assert.equal(describeError(credit, fr, 'fr', 'XPF'), `Seuls 5${S}000${S}XPF peuvent être crédités sur cette facture.`);
  });

  it('says a refused field by what to do about it, or by its name; statuses by their label', async () => {
    const en = await translator('en');
    const fr = await translator('fr');
    const iban = refusal('VALIDATION_ERROR', { field: 'iban' }, [{ field: 'iban', message: 'fails its national check digits' }], 400);
    assert.equal(describeError(iban, fr, 'fr'), "Cet IBAN n'est pas valide : vérifiez-le, ses chiffres de contrôle ne correspondent pas.");
    const two = refusal('VALIDATION_ERROR', { field: 'amount' }, [{ field: 'amount', message: 'x' }, { field: 'currency', message: 'y' }], 400);
    assert.equal(describeError(two, en, 'en'), 'A value is refused: the amount, the currency.');
    assert.equal(describeError(refusal('ALREADY_EXISTS', { field: 'email' }, undefined, 409), fr, 'fr'), "Déjà pris par un autre : l'e-mail.");
    assert.equal(describeError(refusal('PAYOUT_NOT_CANCELLABLE', { status: 'paid' }), en, 'en'), 'This payout cannot be cancelled: it is paid.');
  });

  it('has a text for every error code, in both languages, with nothing left unfilled', async () => {
    const details = {
      field: 'amount', status: 'open', currency: 'EUR', refundable: 1, available: 1, requested: 1, creditable: 1, amountRemaining: 1,
      disputable: 1, disputedAmount: 1, authorizedAmount: 1, retryAfterSeconds: 60, requestId: 'req-1', missing: [{ field: 'legalName' }],
    };
    for (const lang of ['en', 'fr'] as const) {
      const t = await translator(lang);
      for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
        const text = describeError(refusal(code, details), t, lang);
        assert.ok(text.length > 0 && !/\{\{|\}\}/.test(text), `${lang} ${code}: ${text}`);
        assert.doesNotMatch(text, /English message/, `${lang} ${code}`);
      }
    }
  });

  it('says an unknown code and a lost connection in the user\'s language', async () => {
    const fr = await translator('fr');
    assert.equal(describeError(refusal('SOMETHING_NEW', undefined, undefined, 502), fr, 'fr'), 'La demande a échoué (HTTP 502). Réessayez.');
    assert.equal(describeError(new ApiError(0, { code: 'NETWORK_ERROR', message: 'The connection to Motu failed.' }), fr, 'fr'),
      'La connexion à Motu a échoué. Vérifiez votre connexion et réessayez.');
  });
});
