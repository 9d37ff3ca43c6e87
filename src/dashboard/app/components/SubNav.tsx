// The tabs of a page made of parts (Developers, Settings): links, each part its own address.
import { NavLink } from 'react-router';

export function SubNav({ label, items }: { label: string; items: Array<{ to: string; label: string; end?: boolean }> }) {
  return (
    <nav className="sub-nav" aria-label={label}>
      {items.map((item) => <NavLink key={item.to} to={item.to} end={item.end}>{item.label}</NavLink>)}
    </nav>
  );
}
