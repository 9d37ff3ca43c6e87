// Every list of the back-office: a TanStack table rendered as a real <table> (caption, column headers). On a wide
// screen a table that is still too wide scrolls inside its own focusable region; on a phone (app.css, below 640 px)
// each row is drawn as a card, every cell under its column's name (`data-label`), so nothing is off-screen.
// The explicit roles keep the table's semantics once CSS draws its rows as blocks.
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type Header } from '@tanstack/react-table';
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

/**
 * A card leads with what tells one row from another, whatever the columns' order on a wide screen: its reference,
 * then its amount, its status and its date (the columns' ids across the pages).
 */
const CARD_FIRST: Record<string, string> = {
  reference: 'card-1', number: 'card-1', amount: 'card-2', total: 'card-2', status: 'card-3', createdAt: 'card-4',
};

function cellClass(columnId: string, meta: unknown): string | undefined {
  const classes = [(meta as { className?: string } | undefined)?.className, CARD_FIRST[columnId]].filter(Boolean);
  return classes.length > 0 ? classes.join(' ') : undefined;
}

/** The column's name as text, written before each cell of a card; none for a column without a written header. */
function headerText<T>(header: Header<T, unknown> | undefined): string | undefined {
  const value = header?.column.columnDef.header;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function DataTable<T>({ caption, columns, data, empty, rowKey }: Props<T>) {
  const table = useReactTable({ data, columns, getCoreRowModel: getCoreRowModel(), getRowId: rowKey });
  if (data.length === 0) return typeof empty === 'string' ? <EmptyState title={empty} /> : <>{empty}</>;
  const headers = table.getFlatHeaders();
  return (
    <div className="table-wrap cards" role="region" aria-label={caption} tabIndex={0}>
      <table role="table">
        <caption>{caption}</caption>
        <thead role="rowgroup">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} role="row">
              {group.headers.map((header) => (
                <th key={header.id} scope="col" role="columnheader" className={cellClass(header.column.id, header.column.columnDef.meta)}>
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody role="rowgroup">
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} role="row">
              {row.getVisibleCells().map((cell) => (
                <td
                  key={cell.id} role="cell" className={cellClass(cell.column.id, cell.column.columnDef.meta)}
                  data-label={headerText(headers.find((h) => h.column.id === cell.column.id))}
                >
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
