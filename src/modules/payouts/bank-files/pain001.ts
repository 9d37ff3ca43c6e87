// The operator's SEPA credit transfer file: ISO 20022 pain.001.001.03 (Customer Credit Transfer Initiation), the
// format every SEPA bank takes for a batch of transfers. One payment information block debits the operator's account
// for all of the day's payouts in EUR; each payout is one transfer whose end-to-end id is the payout's id, so that the
// bank's answer (camt.054) names the payout it is about. Amounts are written from integer cents.
import type { OperatorAccount } from '../../../config.js';
import { decimalText } from './amounts.js';

export interface Transfer {
  payoutId: string;
  /** EUR cents. */
  amount: number;
  holderName: string;
  iban: string;
  bic: string | null;
  remittance: string;
}

export interface TransferFile {
  messageId: string;
  createdAt: Date;
  /** The day the bank is asked to execute them (YYYY-MM-DD). */
  executionDate: string;
  operator: OperatorAccount;
  transfers: readonly Transfer[];
}

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.03';

/** Text as XML character data: the five special characters escaped, control characters (never valid in XML) dropped. */
function text(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').trim().slice(0, max) || '-';
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function agent(bic: string | null | undefined): string {
  // Without a BIC, the EPC's rule for SEPA: the agent is "NOTPROVIDED" (the bank finds it from the IBAN).
  return bic ? `<FinInstnId><BIC>${text(bic, 11)}</BIC></FinInstnId>` : '<FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId>';
}

export function sepaCreditTransfers(file: TransferFile): string {
  const total = file.transfers.reduce((sum, t) => sum + t.amount, 0);
  const count = String(file.transfers.length);
  const sum = decimalText(total, 'EUR');
  const created = file.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const transfers = file.transfers.map((t) => [
    '<CdtTrfTxInf>',
    `<PmtId><InstrId>${text(t.payoutId, 35)}</InstrId><EndToEndId>${text(t.payoutId, 35)}</EndToEndId></PmtId>`,
    `<Amt><InstdAmt Ccy="EUR">${decimalText(t.amount, 'EUR')}</InstdAmt></Amt>`,
    t.bic ? `<CdtrAgt>${agent(t.bic)}</CdtrAgt>` : '',
    `<Cdtr><Nm>${text(t.holderName, 70)}</Nm></Cdtr>`,
    `<CdtrAcct><Id><IBAN>${text(t.iban, 34)}</IBAN></Id></CdtrAcct>`,
    `<RmtInf><Ustrd>${text(t.remittance, 140)}</Ustrd></RmtInf>`,
    '</CdtTrfTxInf>',
  ].join(''));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Document xmlns="${NAMESPACE}">`,
    '<CstmrCdtTrfInitn>',
    `<GrpHdr><MsgId>${text(file.messageId, 35)}</MsgId><CreDtTm>${created}</CreDtTm><NbOfTxs>${count}</NbOfTxs><CtrlSum>${sum}</CtrlSum>`
      + `<InitgPty><Nm>${text(file.operator.name, 70)}</Nm></InitgPty></GrpHdr>`,
    '<PmtInf>',
    `<PmtInfId>${text(file.messageId, 35)}</PmtInfId><PmtMtd>TRF</PmtMtd><BtchBookg>false</BtchBookg>`
      + `<NbOfTxs>${count}</NbOfTxs><CtrlSum>${sum}</CtrlSum><PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>`
      + `<ReqdExctnDt>${file.executionDate}</ReqdExctnDt>`
      + `<Dbtr><Nm>${text(file.operator.name, 70)}</Nm></Dbtr><DbtrAcct><Id><IBAN>${text(file.operator.iban, 34)}</IBAN></Id></DbtrAcct>`
      + `<DbtrAgt>${agent(file.operator.bic)}</DbtrAgt><ChrgBr>SLEV</ChrgBr>`,
    ...transfers,
    '</PmtInf>',
    '</CstmrCdtTrfInitn>',
    '</Document>',
    '',
  ].join('\n');
}
