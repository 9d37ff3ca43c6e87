// What the Sellers pages share: a seller's state in words (onboarding, open, unlinked), its balances, and its name
// read once for the pages that show a seller by its id (a split payment's distribution).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import type { AmountByCurrency, Seller } from '../../platform-types.js';
import { Money } from '../../components/Money.js';

export function sellerState(seller: Seller): 'unlinked' | 'open' | 'onboarding' {
  if (seller.unlinkedAt) return 'unlinked';
  return seller.state === 'open' ? 'open' : 'onboarding';
}

const TONE = { open: 'good', onboarding: 'info', unlinked: 'neutral' } as const;

export function SellerState({ seller }: { seller: Seller }) {
  const { t } = useTranslation();
  const state = sellerState(seller);
  return <span className={`badge ${TONE[state]}`}>{t(`platform.sellers.states.${state}`)}</span>;
}

/** Amounts per currency, one a line; a dash when there is none. */
export function Amounts({ amounts }: { amounts: AmountByCurrency[] | undefined }) {
  if (!amounts || amounts.length === 0) return <>—</>;
  return <>{amounts.map((a, i) => <span key={a.currency}>{i > 0 && <br />}<Money amount={a.amount} currency={a.currency} /></span>)}</>;
}

export function useSeller(id: string | null) {
  return useQuery({
    queryKey: ['platform-seller', id],
    queryFn: () => api.get<Seller>(`/api/v1/platform/merchants/${encodeURIComponent(id!)}`),
    enabled: id !== null, staleTime: 60_000, retry: false,
  });
}

/** A seller by its name, linking to its page (its id until the name is read). */
export function SellerName({ id }: { id: string }) {
  const seller = useSeller(id);
  return <Link to={`/platform/sellers/${id}`}>{seller.data?.name ?? <code className="id" title={id}>{id}</code>}</Link>;
}
