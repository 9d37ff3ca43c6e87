// The Go live checklist as the server computes it (GET /dashboard/api/go-live), for the roles that may read it (owners
// and admins; roles.ts): `null` for the others, who are never sent asking. Read again on every visit (no stale
// copy), since what it shows changes on other pages.
import { useQuery } from '@tanstack/react-query';
import { mayGoLive } from '../../../../modules/users/roles.js';
import type { Role } from '../../../../modules/users/users.table.js';
import type { GoLive } from '../../../../modules/back-office/go-live.js';
import { api } from '../../api.js';
import { useMe } from '../../session.js';
import { actingFor, useActingChoice } from '../../acting.js';

export type { GoLive };
export type GoLiveItem = keyof GoLive['items'];
export const GO_LIVE_ITEMS: GoLiveItem[] = ['legalIdentity', 'bankAccount', 'liveContract', 'liveKey', 'webhookEndpoint'];

/** Acting for a client, the checklist would be the agency's own: none is shown. */
export function useMayGoLive(): boolean {
  const me = useMe();
  useActingChoice();
  return mayGoLive(me.user.role as Role) && actingFor(me) === null;
}

export function useGoLive() {
  const allowed = useMayGoLive();
  const query = useQuery({
    queryKey: ['go-live'],
    queryFn: () => api.get<GoLive>('/dashboard/api/go-live'),
    enabled: allowed,
    staleTime: 0,
  });
  return { allowed, query };
}
