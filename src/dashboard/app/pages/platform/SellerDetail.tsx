// One seller of the platform: its state, when it was linked (and unlinked), its balances, its onboarding case; Unlink
// behind a confirmation (the seller's account stays open; it can no longer be paid through the platform).
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import type { Seller } from '../../platform-types.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { DateTime } from '../../components/DateTime.js';
import { Page, Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';
import { Amounts, SellerState, sellerState, useSeller } from './SellerParts.js';

export function SellerDetailPage() {
  const { id = '' } = useParams();
  const seller = useSeller(id);
  return <QueryView query={seller}>{(found) => <SellerView seller={found} />}</QueryView>;
}

function SellerView({ seller }: { seller: Seller }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { can } = usePermissions();
  const [unlinking, setUnlinking] = useState(false);
  const mayUnlink = sellerState(seller) !== 'unlinked' && can('POST', '/api/v1/platform/merchants/:id/unlink');
  const unlink = async () => {
    // The answer is the seller as it now stands (unlinked): shown as is, since reading it again finds no current link.
    const unlinked = await api.post<Seller>(`/api/v1/platform/merchants/${seller.id}/unlink`, {});
    queryClient.setQueryData(['platform-seller', seller.id], unlinked);
    await queryClient.invalidateQueries({ queryKey: ['platform-sellers'] });
    toast(t('platform.sellers.unlinked'));
  };
  return (
    <Page
      title={seller.name}
      actions={mayUnlink && <button type="button" className="button secondary" onClick={() => setUnlinking(true)}>{t('platform.sellers.unlink')}</button>}
    >
      <p><Link to="/platform/sellers">{t('platform.sellers.backToList')}</Link></p>
      <Section title={t('platform.sellers.summary')}>
        <p><SellerState seller={seller} /></p>
        <dl className="facts">
          <dt>{t('platform.sellers.id')}</dt><dd><code>{seller.id}</code></dd>
          <dt>{t('platform.sellers.linkedAt')}</dt><dd><DateTime value={seller.linkedAt} /></dd>
          {seller.unlinkedAt && <><dt>{t('platform.sellers.unlinkedAt')}</dt><dd><DateTime value={seller.unlinkedAt} /></dd></>}
          <dt>{t('platform.sellers.openedAt')}</dt><dd>{seller.openedAt ? <DateTime value={seller.openedAt} /> : t('platform.sellers.states.notOpen')}</dd>
          {seller.caseId && <><dt>{t('platform.sellers.caseId')}</dt><dd><code>{seller.caseId}</code></dd></>}
        </dl>
      </Section>
      <Section title={t('platform.sellers.balance')}>
        {seller.balance && (seller.balance.available.length > 0 || seller.balance.pending.length > 0) ? (
          <dl className="facts">
            <dt>{t('platform.sellers.pending')}</dt><dd><Amounts amounts={seller.balance.pending} /></dd>
            <dt>{t('platform.sellers.available')}</dt><dd><Amounts amounts={seller.balance.available} /></dd>
          </dl>
        ) : <p>{t('platform.sellers.noBalance')}</p>}
        <p className="muted">{t('platform.sellers.paymentsHint')}</p>
      </Section>
      <ConfirmDialog open={unlinking} title={t('platform.sellers.unlinkTitle')} confirmLabel={t('platform.sellers.unlink')} danger onConfirm={unlink} onClose={() => setUnlinking(false)}>
        <p>{t('platform.sellers.unlinkText', { name: seller.name })}</p>
      </ConfirmDialog>
    </Page>
  );
}
