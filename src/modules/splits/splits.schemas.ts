// `platformDistribution` as GET /api/v1/payments/{id} answers it (the events carry the same entries).
import { Type } from 'typebox';

const Money = (description: string) => Type.Integer({ description });

const CommissionLine = Type.Object({
  id: Type.String({ description: 'platform_commission or platform_fixed_fee' }),
  label: Type.String(),
  type: Type.Optional(Type.String({ description: 'PERCENTAGE' })),
  rate: Type.Optional(Type.Integer({ description: 'basis points' })),
  amount: Type.Optional(Type.Integer()),
  amountEur: Type.Optional(Type.Integer()),
  totalAmount: Type.Integer(),
  totalAmountEur: Type.Integer(),
});

export const SellerShareView = Type.Object({
  merchantId: Type.String(),
  amount: Money("the seller's amount (its captured share once captured)"),
  discount: Money('funded by the platform'),
  commission: Money("the platform's commission on it"),
  netAmount: Money('amount − commission'),
  currency: Type.String(),
  refundedAmount: Money('taken from the seller by refunds so far'),
  refundedCommission: Money('commission given back by those refunds'),
  detailedCommission: Type.Array(CommissionLine),
});

export const PlatformShareView = Type.Object({
  role: Type.Literal('platform'),
  merchantId: Type.String(),
  commission: Money("the sellers' commissions"),
  discounts: Money('the discounts the platform funds'),
  financing: Money('what the platform pays instead of the customer'),
  fees: Money("Motu's fees (the settlement block's commission)"),
  netAmount: Money('commission − discounts − financing − fees'),
  currency: Type.String(),
  refundedCommission: Money('commission given back to the sellers by refunds'),
});

export const PlatformDistribution = Type.Array(Type.Union([SellerShareView, PlatformShareView]), {
  description: "A split payment only (order.platformConfig.distribution): each seller's part, then the platform's",
});
