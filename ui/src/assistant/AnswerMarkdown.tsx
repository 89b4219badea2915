/**
 * An answer's Markdown (with GitHub's tables, strikethrough and autolinks), rendered as it grows.
 * react-markdown builds React elements, never HTML: HTML in the answer shows as text, and URLs
 * with a scheme other than http(s), mailto and a few others are emptied. Links to console pages open in the console; any other opens in a new tab
 * without access to this one. Images are shown as links: an answer loads nothing by itself.
 */
import type { ComponentProps, ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { Link } from 'react-router';
import remarkGfm from 'remark-gfm';

/** Paths of the service that are not console pages. */
const NOT_CONSOLE = /^\/(api|assistant|sso|websocket|assets)(\/|$)/;

function SafeLink({ href, children }: { href?: string; children?: ReactNode }) {
  if (!href) return <span>{children}</span>;
  if (href.startsWith('/') && !href.startsWith('//') && !NOT_CONSOLE.test(href)) return <Link to={href}>{children}</Link>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

/** Headings of an answer sit below the panel's (h2) and the question's. */
const heading = (level: 4 | 5 | 6) => {
  const Tag = `h${level}` as const;
  return ({ children }: ComponentProps<'h1'>) => <Tag className="drover-assistant-heading">{children}</Tag>;
};

const COMPONENTS: Components = {
  a: ({ href, children }) => <SafeLink href={href}>{children}</SafeLink>,
  img: ({ src, alt }) => <SafeLink href={typeof src === 'string' ? src : undefined}>{alt || src || 'image'}</SafeLink>,
  h1: heading(4),
  h2: heading(5),
  h3: heading(6),
  h4: heading(6),
  h5: heading(6),
  h6: heading(6),
};

const PLUGINS = [remarkGfm];

export function AnswerMarkdown({ text }: { text: string }) {
  return (
    <div className="drover-assistant-markdown">
      <Markdown components={COMPONENTS} remarkPlugins={PLUGINS}>
        {text}
      </Markdown>
    </div>
  );
}
