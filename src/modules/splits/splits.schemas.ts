// `platformDistribution` as GET /api/v1/payments/{id} answers it (the events carry the same entries).
import { Type } from 'typebox';

const Money = (description: string, example: number) => Type.Integer({ description, examples: [example] });

const CommissionLine = Type.Object({
  id: Type.String({ description: 'platform_commission or platform_fixed_fee', examples: ['platform_commission'] }),
  label: Type.String(),
  type: Type.Optional(Type.Literal('PERCENTAGE')),
  rate: Type.Optional(Type.Integer({ description: 'basis points' })),
  amount: Type.Optional(Type.Integer()),
  amountEur: Type.Optional(Type.Integer()),
  totalAmount: Type.Integer({ examples: [600] }),
  totalAmountEur: Type.Integer({ examples: [600] }),
});

export const SellerShareView = Type.Object({
  merchantId: Type.String(),
  amount: Money("the seller's amount (its captured share once captured)", 6000),
  discount: Money('funded by the platform', 0),
  commission: Money("the platform's commission on it", 650),
  netAmount: Money('amount − commission', 5350),
  currency: Type.String(),
  refundedAmount: Money('taken from the seller by refunds so far', 0),
  refundedCommission: Money('commission given back by those refunds', 0),
  detailedCommission: Type.Array(CommissionLine),
});

export const PlatformShareView = Type.Object({
  role: Type.Literal('platform'),
  merchantId: Type.String(),
  commission: Money("the sellers' commissions", 900),
  discounts: Money('the discounts the platform funds', 1000),
  financing: Money('what the platform pays instead of the customer', 2000),
  fees: Money("Motu's fees (the settlement block's commission)", 261),
  netAmount: Money('commission − discounts − financing − fees', -2361),
  currency: Type.String(),
  refundedCommission: Money('commission given back to the sellers by refunds', 0),
});

export const PlatformDistribution = Type.Array(Type.Union([SellerShareView, PlatformShareView]), {
  description: "A split payment only (order.platformConfig.distribution): each seller's part, then the platform's",
});
