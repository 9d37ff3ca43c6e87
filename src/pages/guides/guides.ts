// The guides of the repository (README.md and docs/*.md) as HTML pages, so that a merchant's developer reads them on
// the Motu they integrate with (/docs/guides/<name>) without the repository. Markdown is rendered with marked; raw
// HTML in a guide is shown as text, never interpreted; a link is kept only when it is a web, mail, relative or in-page
// address, and a link to another guide (`webhooks.md`, `docs/webhooks.md#retries`, or such a name in code) leads to
// its page. Each guide is rendered once, at its first request, and kept.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked, type Tokens } from 'marked';
import { esc } from '../../http/html.js';

export interface Guide {
  name: string;
  title: string;
  /** The first paragraph, as plain text: the index's line about the guide. */
  summary: string;
  html: string;
}

/** The repository's root, from src/pages/guides or dist/pages/guides alike. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const NAME = /^[a-z0-9][a-z0-9-]*$/;
const IMAGE = /^[a-z0-9-]+\.png$/;

/** `docs/webhooks.md#retries`, `./webhooks.md`, `../README.md` → the guide's name and anchor, when it is a guide. */
function guideTarget(href: string, names: ReadonlySet<string>): string | undefined {
  const match = /^(?:\.{0,2}\/)*(?:docs\/)?([A-Za-z0-9-]+)\.md(#[\w-]*)?$/.exec(href);
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  return names.has(name) ? `/docs/guides/${name}${match[2] ?? ''}` : undefined;
}

/**
 * An address a guide may link to as it is: the web, mail, this site, an anchor of the page. A relative path to a
 * file of the repository that is not a guide leads nowhere on a Motu installation, and a script or data address is
 * never a link: those are rendered as their text.
 */
function keptHref(href: string): boolean {
  if (href.startsWith('#') || (href.startsWith('/') && !href.startsWith('//'))) return true;
  return /^(https?:\/\/|mailto:)/i.test(href);
}

/** A heading's anchor, as GitHub makes it: lower case, spaces as dashes, punctuation dropped. */
export function slug(text: string): string {
  return text.toLowerCase().replace(/<[^>]*>/g, '').replace(/&[a-z#0-9]+;/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-');
}

/** Mentions of another guide in running text (`see docs/webhooks.md`) as links, in already escaped HTML. */
function linkMentions(escaped: string, names: ReadonlySet<string>): string {
  return escaped.replace(/\b(?:docs\/)?([a-z0-9-]+|README)\.md\b/g, (whole, name: string) => {
    const target = guideTarget(whole, names);
    return target && (whole.startsWith('docs/') || name === 'README') ? `<a href="${esc(target)}">${whole}</a>` : whole;
  });
}

function markdown(names: ReadonlySet<string>, images: ReadonlySet<string>): Marked {
  const marked = new Marked({ gfm: true });
  const seen = new Map<string, number>();
  marked.use({
    hooks: {
      preprocess(text) {
        seen.clear();
        return text;
      },
    },
    renderer: {
      // Raw HTML in the markdown is shown, not run.
      html({ text }: Tokens.HTML | Tokens.Tag) {
        return esc(text);
      },
      heading({ tokens, depth, text }: Tokens.Heading) {
        const base = slug(text) || 'section';
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        const id = count === 0 ? base : `${base}-${count}`;
        return `<h${depth} id="${esc(id)}"><a class="anchor" href="#${esc(id)}">#</a>${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens);
        const target = guideTarget(href, names) ?? (keptHref(href) ? href : undefined);
        if (target === undefined) return inner;
        const external = /^https?:\/\//i.test(target);
        return `<a href="${esc(target)}"${title ? ` title="${esc(title)}"` : ''}${external ? ' rel="noopener noreferrer"' : ''}>${inner}</a>`;
      },
      // The repository's own pictures (docs/images), served beside the guides; a picture from elsewhere is its text.
      image({ href, text }: Tokens.Image) {
        const file = /^(?:\.\/)?(?:docs\/)?images\/([a-z0-9-]+\.png)$/.exec(href)?.[1];
        return file && images.has(file) ? `<img src="/docs/guides/images/${esc(file)}" alt="${esc(text)}" loading="lazy">` : esc(text);
      },
      codespan({ text }: Tokens.Codespan) {
        const code = `<code>${esc(text)}</code>`;
        const target = guideTarget(text, names);
        return target ? `<a href="${esc(target)}">${code}</a>` : code;
      },
      text(token: Tokens.Text | Tokens.Escape) {
        if ('tokens' in token && token.tokens) return this.parser.parseInline(token.tokens);
        // An escape token (`\*`) carries its text escaped already.
        return linkMentions('escaped' in token && token.escaped ? token.text : esc(token.text), names);
      },
    },
  });
  return marked;
}

/** The guides found in the repository: README.md as `readme`, and every docs/<name>.md. */
export class Guides {
  private readonly files = new Map<string, string>();
  /** docs/images/<name>.png by name. */
  private readonly images = new Map<string, string>();
  private readonly rendered = new Map<string, Guide>();
  private marked: Marked | undefined;

  constructor(root: string = REPOSITORY_ROOT) {
    if (existsSync(path.join(root, 'README.md'))) this.files.set('readme', path.join(root, 'README.md'));
    const docs = path.join(root, 'docs');
    if (existsSync(docs)) {
      for (const file of readdirSync(docs).sort()) {
        const name = file.replace(/\.md$/, '');
        if (file.endsWith('.md') && NAME.test(name)) this.files.set(name, path.join(docs, file));
      }
      const images = path.join(docs, 'images');
      if (existsSync(images)) {
        for (const file of readdirSync(images)) if (IMAGE.test(file)) this.images.set(file, path.join(images, file));
      }
    }
  }

  names(): string[] {
    return [...this.files.keys()];
  }

  /** The guide rendered, or undefined when there is none of this name. */
  get(name: string): Guide | undefined {
    const file = this.files.get(name);
    if (!file) return undefined;
    let guide = this.rendered.get(name);
    if (!guide) {
      this.marked ??= markdown(new Set(this.files.keys()), new Set(this.images.keys()));
      const source = readFileSync(file, 'utf8');
      const tokens = this.marked.lexer(source);
      const heading = tokens.find((t): t is Tokens.Heading => t.type === 'heading');
      const paragraph = tokens.find((t): t is Tokens.Paragraph => t.type === 'paragraph');
      guide = {
        name,
        title: heading?.text.replace(/[`*_]/g, '') ?? name,
        summary: (paragraph?.text ?? '').replace(/[`*_]|\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\s+/g, ' ').slice(0, 240),
        html: this.marked.parser(tokens),
      };
      this.rendered.set(name, guide);
    }
    return guide;
  }

  /** The bytes of docs/images/<file>, or undefined when there is no such picture. */
  image(file: string): Buffer | undefined {
    const found = this.images.get(file);
    return found ? readFileSync(found) : undefined;
  }

  all(): Guide[] {
    return this.names().map((name) => this.get(name)!);
  }
}
