// IBAN checks, by ibantools (a maintained library that carries the registry of every country's IBAN length and format,
// so a new SEPA member or a changed format is a dependency update, not our table): the country is known, the length
// and the BBAN's format are that country's, and the mod-97 check digits hold. The IBAN itself never appears in an
// error message.
import { electronicFormatIBAN, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { invalidField } from '../../shared/errors.js';

const REASONS: Partial<Record<ValidationErrorsIBAN, string>> = {
  [ValidationErrorsIBAN.NoIBANCountry]: 'has no known country code',
  [ValidationErrorsIBAN.WrongBBANLength]: "has the wrong length for its country",
  [ValidationErrorsIBAN.WrongBBANFormat]: "does not have its country's format",
  [ValidationErrorsIBAN.ChecksumNotNumber]: 'has check digits that are not digits',
  [ValidationErrorsIBAN.WrongIBANChecksum]: 'fails its check digits (mod 97)',
  [ValidationErrorsIBAN.WrongAccountBankBranchChecksum]: 'fails its national check digits',
  [ValidationErrorsIBAN.QRIBANNotAllowed]: 'is a QR-IBAN, which cannot receive transfers',
};

/** The IBAN in its electronic form (no spaces, upper case), or a 400 on `iban` saying why, without repeating it. */
export function checkedIban(input: string): string {
  const iban = electronicFormatIBAN(input) ?? '';
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) throw invalidField('iban', 'is not an IBAN (two letters, two check digits, then the account)');
  const result = validateIBAN(iban);
  if (!result.valid) {
    const reason = result.errorCodes.map((code) => REASONS[code]).find(Boolean) ?? 'is not a valid IBAN';
    throw invalidField('iban', reason);
  }
  return iban;
}
