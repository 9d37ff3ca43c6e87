// Who is signed in: the `Me` of GET /dashboard/api/me, loaded once and shared (query key ['me']). Pages below the
// sign-in read it with useMe(); a 401 anywhere sends the application back to the sign-in page.
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { Navigate, useLocation } from 'react-router';
import { api, ApiError, onUnauthorized, setCsrfToken } from './api.js';
import type { Me } from './types.js';
import { Loading } from './components/Loading.js';
import { ErrorMessage } from './components/ErrorMessage.js';

export const ME_KEY = ['me'] as const;

const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe() outside a signed-in page');
  return me;
}

/** The `Me` may be absent (a page shown signed in or not): the dates' time zone falls back to the browser's. */
export function useOptionalMe(): Me | null {
  return useContext(MeContext);
}

/** A new `Me` (sign-in, set-up, mode switch): its CSRF token is used from now on. */
export function acceptMe(queryClient: QueryClient, me: Me): void {
  setCsrfToken(me.csrfToken);
  queryClient.setQueryData(ME_KEY, me);
}

/** After the mode changed, every list and object is another merchant's world: read again. */
export function forgetMerchantData(queryClient: QueryClient): void {
  void queryClient.resetQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
}

/** GET /dashboard/api/me, once: a 401 is an answer (signed out), not a failure to retry. */
export function useMeQuery() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async () => {
      const found = await api.get<Me>('/dashboard/api/me');
      setCsrfToken(found.csrfToken);
      return found;
    },
    staleTime: Infinity,
    retry: false,
  });
}

export function RequireSession({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const location = useLocation();
  const me = useMeQuery();
  useEffect(() => onUnauthorized(() => {
    // Only a session that was open ends here (the `me` request's own 401 has no data yet: no loop).
    if (!queryClient.getQueryData(ME_KEY)) return;
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
    void queryClient.resetQueries({ queryKey: ME_KEY });
  }), [queryClient]);
  if (me.isPending) return <Loading />;
  if (me.isError) {
    if (me.error instanceof ApiError && me.error.status === 401) {
      return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
    }
    return <main className="center-page"><ErrorMessage error={me.error} /></main>;
  }
  return <MeContext.Provider value={me.data}>{children}</MeContext.Provider>;
}
