// Every list of the back-office: a TanStack table rendered as a real <table> (caption, column headers), scrolling
// sideways inside its own focusable region on a narrow screen rather than widening the page.
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { EmptyState } from './EmptyState.js';

export type Columns<T> = Array<ColumnDef<T, any>>;

interface Props<T> {
  caption: string;
  columns: Columns<T>;
  data: T[];
  /** Shown instead of the table when `data` is empty. */
  empty: ReactNode;
  rowKey: (row: T) => string;
}

export function DataTable<T>({ caption, columns, data, empty, rowKey }: Props<T>) {
  const table = useReactTable({ data, columns, getCoreRowModel: getCoreRowModel(), getRowId: rowKey });
  if (data.length === 0) return typeof empty === 'string' ? <EmptyState title={empty} /> : <>{empty}</>;
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className={(header.column.columnDef.meta as { className?: string } | undefined)?.className}>
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id}>
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id} className={(cell.column.columnDef.meta as { className?: string } | undefined)?.className}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Right-aligned numeric columns. */
export const NUMERIC = { className: 'numeric' };
