// Test card numbers the acquirer simulator answers to (test mode): each one picks an outcome.
export const CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  cbVisa: '4970100000000006',
  saveThenDecline: '4000000000000341',
  declined: '4000000000000002',
  challenge: '4000000000003220',
  browserUnfit: '4000000000001208',
} as const;
