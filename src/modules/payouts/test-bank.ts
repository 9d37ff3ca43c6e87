// The test-mode bank: what it answers to a payout, by the destination's IBAN (listed for merchants in docs/money.md).
// Any other valid IBAN is paid.
const FAILURES: Record<string, { reason: string; message: string }> = {
  FR7630006000010000000000249: { reason: 'no_account', message: 'The bank account does not exist' },
  FR7630006000010000000000346: { reason: 'account_closed', message: 'The bank account is closed' },
  FR7630006000010000000000443: { reason: 'declined', message: 'The bank declined the transfer' },
  FR7630006000010000000000540: { reason: 'could_not_process', message: 'The bank could not process the transfer' },
};

export function testBankAnswer(iban: string): { paid: true } | { paid: false; reason: string; message: string } {
  const failure = FAILURES[iban];
  return failure ? { paid: false, ...failure } : { paid: true };
}
