// Cursor pagination (`startingAfter` = the last id of the page before): the cursors of the pages seen are kept, so
// "Previous" goes back without the API listing backwards.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export function useCursor() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    startingAfter: cursors[cursors.length - 1],
    page: cursors.length + 1,
    next: (lastId: string) => setCursors((list) => [...list, lastId]),
    previous: () => setCursors((list) => list.slice(0, -1)),
    reset: () => setCursors([]),
  };
}

export type Cursor = ReturnType<typeof useCursor>;

export function Pager({ cursor, hasMore, lastId }: { cursor: Cursor; hasMore: boolean; lastId: string | undefined }) {
  const { t } = useTranslation();
  if (cursor.page === 1 && !hasMore) return null;
  return (
    <nav className="pager" aria-label={t('common.pagination')}>
      <button type="button" className="button secondary" disabled={cursor.page === 1} onClick={cursor.previous}>{t('common.previous')}</button>
      <span>{t('common.pageN', { n: cursor.page })}</span>
      <button type="button" className="button secondary" disabled={!hasMore || !lastId} onClick={() => lastId && cursor.next(lastId)}>{t('common.next')}</button>
    </nav>
  );
}
