// A query's three states in one place: loading, the server's error, or its data.
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorMessage } from './ErrorMessage.js';
import { Loading } from './Loading.js';

export function QueryView<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorMessage error={query.error} />;
  return <>{children(query.data)}</>;
}
