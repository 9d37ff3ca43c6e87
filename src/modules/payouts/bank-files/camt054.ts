// The bank's answer to the transfers: ISO 20022 camt.054 (Bank to Customer Debit Credit Notification), read with
// libxml2. Each entry is a booked movement on the operator's account; the transfer it is about is named by the
// end-to-end id Motu gave it (the payout's id). A booked debit is a transfer paid; a credit carrying return
// information is a transfer the creditor's bank sent back, with the ISO reason code saying why.
// Versions 02 to 08 of the message share these elements; any of their namespaces is read.
import { XmlDocument, type XmlNode } from 'libxml2-wasm';
import { invalidField } from '../../../shared/errors.js';

export type FailureReason = 'no_account' | 'account_closed' | 'declined' | 'could_not_process';

export interface CamtEntry {
  /** The payout's id (the transfer's end-to-end id), or null when the entry names none. */
  endToEndId: string | null;
  /** As written in the file ("123.45"), read against the payout's currency later. */
  amount: string;
  currency: string;
  outcome: { paid: true } | { paid: false; reason: FailureReason; code: string };
}

/** ISO 20022 external return reason codes → Motu's failure reasons (docs/money.md). */
const RETURN_REASONS: Record<string, FailureReason> = {
  AC01: 'no_account', // incorrect account number
  AC03: 'no_account', // invalid creditor account number
  BE04: 'no_account', // missing creditor address
  RC01: 'no_account', // bank identifier incorrect
  AC04: 'account_closed', // closed account
  MD07: 'account_closed', // end customer deceased
  AC06: 'declined', // blocked account
  AG01: 'declined', // transaction forbidden
  AG02: 'declined', // invalid bank operation code
  RR01: 'declined', // regulatory reason (and RR02–RR04)
  RR02: 'declined',
  RR03: 'declined',
  RR04: 'declined',
  MS02: 'declined', // refused by the creditor
  FOCR: 'declined', // returned after a recall
};

const MAX_ENTRIES = 100_000;

function local(node: XmlNode, path: string): XmlNode | null {
  return node.get(path.split('/').map((name) => `*[local-name()='${name}']`).join('/'));
}

function textOf(node: XmlNode, path: string): string | null {
  const found = local(node, path);
  const value = found?.content.trim();
  return value ? value : null;
}

/** The entries of a camt.054 file; a file that is not one is a 400 on `file`, and nothing is read from it. */
export function readCamt054(xml: string): CamtEntry[] {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch {
    throw invalidField('file', 'is not well-formed XML');
  }
  try {
    const root = doc.root;
    const namespace = root.namespaceUri ?? '';
    if (root.name !== 'Document' || !/^urn:iso:std:iso:20022:tech:xsd:camt\.054\.001\.0[2-8]$/.test(namespace)) {
      throw invalidField('file', 'is not an ISO 20022 camt.054 notification (Document in a camt.054.001.02 to .08 namespace)');
    }
    const entries = root.find("//*[local-name()='Ntfctn']/*[local-name()='Ntry']");
    if (entries.length > MAX_ENTRIES) throw invalidField('file', `has more than ${MAX_ENTRIES} entries`);
    const out: CamtEntry[] = [];
    for (const entry of entries) {
      const amountNode = local(entry, 'Amt');
      const amount = amountNode?.content.trim() ?? '';
      const currency = amountNode?.get("@Ccy")?.content ?? '';
      const direction = textOf(entry, 'CdtDbtInd');
      // Sts is a code (BOOK) up to version 05, then a choice holding it (Sts/Cd).
      const status = textOf(entry, 'Sts') ?? '';
      const details = entry.find("*[local-name()='NtryDtls']/*[local-name()='TxDtls']");
      const transactions = details.length > 0 ? details : [entry];
      for (const tx of transactions) {
        const endToEndId = textOf(tx, 'Refs/EndToEndId');
        const returnCode = textOf(tx, 'RtrInf/Rsn/Cd');
        const txAmount = local(tx, 'Amt')?.content.trim() || local(tx, 'AmtDtls/TxAmt/Amt')?.content.trim() || amount;
        if (!/^BOOK/.test(status.replace(/\s+/g, ''))) continue;
        if (returnCode || direction === 'CRDT') {
          const code = returnCode ?? 'NARR';
          out.push({ endToEndId, amount: txAmount, currency, outcome: { paid: false, reason: RETURN_REASONS[code] ?? 'could_not_process', code } });
        } else if (direction === 'DBIT') {
          out.push({ endToEndId, amount: txAmount, currency, outcome: { paid: true } });
        }
      }
    }
    return out;
  } finally {
    doc.dispose();
  }
}
