// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function, by package/file, and inclusive time of
// the functions that matter most. `node --import tsx bench/cpuprofile.ts file.cpuprofile [top] [filter]`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function where(url: string): string {
  if (!url) return '(native)';
  const compiled = url.indexOf('/motu-bench/dist/'); // bench/sessions.ts's motuCommand build, under node_modules/.cache
  if (compiled >= 0) return `dist/${url.slice(compiled + '/motu-bench/dist/'.length)}`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  return src >= 0 ? url.slice(src + 1) : url.replace(/^file:\/\//, '');
}

export function summarise(profile: Profile, top = 40, filter?: string): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const key = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const selfBy = new Map<string, number>();
  const pkgBy = new Map<string, number>();
  const inclBy = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    selfBy.set(key(n), (selfBy.get(key(n)) ?? 0) + t);
    const pkg = n.callFrame.url ? where(n.callFrame.url).replace(/:\d+$/, '') : n.callFrame.functionName;
    pkgBy.set(pkg, (pkgBy.get(pkg) ?? 0) + t);
    // Inclusive: every distinct function on the stack gets this sample's time once.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = key(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      inclBy.set(k, (inclBy.get(k) ?? 0) + t);
    }
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>, n: number, f?: string) =>
    [...m].filter(([k]) => !f || k.includes(f)).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) => `${pct(t)}  ${k}`).join('\n');
  return [
    `total sampled ${(total / 1000).toFixed(0)} ms`,
    '', '== self time by package / file ==', list(pkgBy, 25),
    '', '== self time by function ==', list(selfBy, top, filter),
    '', '== inclusive time by function ==', list(inclBy, top, filter),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [file, top, filter] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpuprofile.ts file.cpuprofile [top] [filter]');
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 40), filter));
}
