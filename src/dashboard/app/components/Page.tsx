// A page's frame: its <h1>, the document's title, and focus on the heading after a navigation, so a screen reader
// user hears where they arrived (a single-page application has no page load to announce it).
import { useEffect, useRef, type ReactNode } from 'react';

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Motu`;
  }, [title]);
  useEffect(() => {
    // Not on the first page of a visit: the browser starts at the top already, and the skip link comes first.
    if (history.state && (history.state as { idx?: number }).idx) heading.current?.focus({ preventScroll: false });
  }, []);
  return (
    <>
      <div className="page-header">
        <h1 ref={heading} tabIndex={-1}>{title}</h1>
        {actions && <div className="page-actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

/** A titled part of a page (an <h2> and what it heads). */
export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="section">
      <div className="section-header">
        <h2>{title}</h2>
        {actions && <div className="section-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
