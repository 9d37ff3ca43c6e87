// The acquirer profile the payment, wallet and subscription suites run under. By default they pay in test mode
// through the acquirer simulator; with MOTU_TEST_ACQUIRER=monext (`npm run test:live`) the same suites run a second
// time in live mode: every merchant's default contract is connected to a fake of Monext's Retail API
// (test/support/fake-monext.ts) started with each app, `MerchantFixture.key` is the live secret key, and cards are
// typed in Monext's widget instead of the simulator's secure fields. A test that only makes sense on one path says so
// with `{ skip: onlyOn('simulator', why) }`.
export const LIVE_PROFILE = process.env.MOTU_TEST_ACQUIRER === 'monext';

/** The mode the profile's key pays in. */
export const PROFILE_MODE: 'test' | 'live' = LIVE_PROFILE ? 'live' : 'test';

/** A skip reason when the current profile is not `profile` (node:test's `skip` option), else false. */
export function onlyOn(profile: 'simulator' | 'monext', why: string): string | false {
  const current = LIVE_PROFILE ? 'monext' : 'simulator';
  return current === profile ? false : `${profile} path only: ${why}`;
}

/**
 * The last four digits a payment shows for a card number's last four: all four on the simulator; on the live profile
 * only the last two, as Monext masks a card (BIN + X + the last two digits) and Motu makes no digit up.
 */
export function shownLast4(last4: string): string {
  return LIVE_PROFILE ? `••${last4.slice(-2)}` : last4;
}
