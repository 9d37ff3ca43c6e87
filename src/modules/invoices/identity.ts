// Invoicing is open once the merchant's legal identity is complete: an invoice must name who issues it. Until then
// invoices can be drafted but not finalized (422 INVOICING_NOT_ACTIVATED), and GET /api/v1/billing/settings says
// which fields are missing (the Odoo module's connection check reads it: `ouverte` or `a_activer`).
import type { Merchant } from '../merchants/merchants.table.js';

export interface MissingField {
  field: string;
  label: string;
}

const REQUIRED: Array<{ field: string; label: string; present: (m: Merchant) => boolean }> = [
  { field: 'legalName', label: 'Raison sociale', present: (m) => !!m.legal_name },
  { field: 'address', label: 'Adresse du siège', present: (m) => !!m.address },
  { field: 'registrationNumber', label: "Numéro d'immatriculation (TAHITI, RIDET, SIREN)", present: (m) => !!m.registration_number },
];

export function missingIdentity(merchant: Merchant): MissingField[] {
  return REQUIRED.filter((r) => !r.present(merchant)).map(({ field, label }) => ({ field, label }));
}

export function billingSettings(merchant: Merchant, publicUrl: string) {
  const missing = missingIdentity(merchant);
  const open = missing.length === 0;
  return {
    enabled: true,
    moduleState: open ? 'ouverte' as const : 'a_activer' as const,
    issuable: open,
    completeness: { missing },
    // Where the merchant completes its identity: the back-office's settings, Business (the operator sets it meanwhile,
    // by the admin API or `motu merchants update`).
    activationUrl: `${publicUrl}/dashboard/settings`,
  };
}
