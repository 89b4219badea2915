/**
 * Markdown pages cut into passages for retrieval. Each heading starts a section; a section is cut
 * into chunks of about TARGET characters at sentence, list item, table row and code block
 * boundaries, and each chunk after the first of a section starts with the last OVERLAP characters
 * or so of the one before, so a passage cut in two is still found whole in one of them. Code blocks
 * stay whole up to CODE_MAX characters; longer ones are cut at lines, each piece fenced again.
 * The same page always gives the same chunks.
 */
import { markdownBlocks, type Block } from './markdown.ts';

export const TARGET = 1000;
export const OVERLAP = 150;
const CODE_MAX = 1600;
/** Bumped when chunking changes, so every document is indexed again (it is part of the content hash). */
export const CHUNKING_VERSION = 1;

export interface Chunk {
  /** The headings above the passage below the page's title, ` > ` between them; the title for text above any. */
  heading: string;
  text: string;
}

/** A piece chunks are made of: a sentence, a list item, a table row, a code block. */
interface Unit {
  text: string;
  /** What joins it to the unit before it in the same chunk. */
  join: string;
  code: boolean;
}

export function chunkMarkdown(title: string, markdown: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sections(title, markdown)) {
    for (const text of pack(section.units)) chunks.push({ heading: section.heading, text });
  }
  return chunks;
}

function sections(title: string, markdown: string): { heading: string; units: Unit[] }[] {
  const out: { heading: string; units: Unit[] }[] = [];
  const path: { level: number; text: string }[] = [];
  let units: Unit[] = [];
  let titleSeen = false;
  const endSection = () => {
    const heading = path.map((h) => h.text).join(' > ') || title;
    if (units.length) out.push({ heading, units });
    units = [];
  };
  for (const block of markdownBlocks(markdown)) {
    if (block.kind === 'heading') {
      endSection();
      while (path.length && path.at(-1)!.level >= block.level) path.pop();
      // The page's title heads every chunk already (as the document's title).
      if (!titleSeen && block.text === title) titleSeen = true;
      else path.push({ level: block.level, text: block.text });
      continue;
    }
    units.push(...unitsOf(block));
  }
  endSection();
  return out;
}

/** The units of a block; the first is joined to what comes before by a blank line. */
function unitsOf(block: Exclude<Block, { kind: 'heading' }>): Unit[] {
  let units: Unit[];
  if (block.kind === 'code') units = codeUnits(block);
  else if (block.lines[0].trimStart().startsWith('|')) units = block.lines.map((line) => ({ text: line, join: '\n', code: false }));
  else units = textUnits(block.lines);
  units = units.flatMap((u) => (u.code || u.text.length <= TARGET ? [u] : cutAtWords(u.text, TARGET).map((text, i) => ({ text, join: i ? ' ' : u.join, code: false }))));
  if (units.length) units[0] = { ...units[0], join: '\n\n' };
  return units;
}

const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s/;

/** Paragraph lines as sentences; list items one unit each (with their continuation lines). */
function textUnits(lines: string[]): Unit[] {
  const units: Unit[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    const sentences = paragraph.join(' ').split(/(?<=[.!?:])\s+(?=[A-Z0-9`*_"'([])/);
    units.push(...sentences.map((text, i) => ({ text, join: i ? ' ' : '\n', code: false })));
    paragraph = [];
  };
  for (const line of lines) {
    if (LIST_ITEM.test(line)) {
      if (paragraph.length) endParagraph();
      units.push({ text: line, join: '\n', code: false });
    } else if (units.length && !paragraph.length && LIST_ITEM.test(units.at(-1)!.text.split('\n')[0])) {
      units.at(-1)!.text += `\n${line}`;
    } else paragraph.push(line.trim());
  }
  if (paragraph.length) endParagraph();
  return units;
}

function codeUnits(block: Extract<Block, { kind: 'code' }>): Unit[] {
  if (block.text.length <= CODE_MAX) return [{ text: block.text, join: '\n', code: true }];
  const body = block.text.split('\n').slice(1, block.text.endsWith(block.close) ? -1 : undefined);
  const room = TARGET - block.open.length - block.close.length - 2;
  const pieces: string[][] = [[]];
  let size = 0;
  for (const line of body.flatMap((l) => (l.length > room ? cutAtWords(l, room) : [l]))) {
    if (size + line.length + 1 > room && pieces.at(-1)!.length) {
      pieces.push([]);
      size = 0;
    }
    pieces.at(-1)!.push(line);
    size += line.length + 1;
  }
  return pieces.map((lines) => ({ text: [block.open, ...lines, block.close].join('\n'), join: '\n', code: true }));
}

/** Consecutive units as chunk texts of about TARGET characters, each but the first starting with an overlap. */
function pack(units: Unit[]): string[] {
  const chunks: string[] = [];
  let current: Unit[] = [];
  let fresh = 0;
  for (const unit of units) {
    if (fresh && length(current) + unit.join.length + unit.text.length > TARGET) {
      chunks.push(render(current));
      current = overlapOf(current);
      fresh = 0;
      if (length(current) + unit.join.length + unit.text.length > TARGET) current = [];
    }
    current.push(unit);
    fresh++;
  }
  if (fresh) chunks.push(render(current));
  return chunks;
}

/** The end of a chunk that the next one repeats: whole units of prose while they fit, then the words that do. */
function overlapOf(chunk: Unit[]): Unit[] {
  const tail: Unit[] = [];
  let size = 0;
  for (let i = chunk.length - 1; i >= 0 && size < OVERLAP; i--) {
    const unit = chunk[i];
    if (unit.code) break;
    if (size + unit.text.length + unit.join.length <= OVERLAP * 1.5) {
      tail.unshift(unit);
      size += unit.text.length + unit.join.length;
      continue;
    }
    if (size < OVERLAP / 2) tail.unshift({ ...unit, text: lastWords(unit.text, OVERLAP - size) });
    break;
  }
  return tail;
}

const length = (units: Unit[]) => units.reduce((n, u, i) => n + (i ? u.join.length : 0) + u.text.length, 0);

const render = (units: Unit[]) => units.map((u, i) => (i ? u.join : '') + u.text).join('');

/** About the last n characters of text, starting at a word. */
function lastWords(text: string, n: number): string {
  if (text.length <= n) return text;
  const space = text.indexOf(' ', text.length - n);
  return space === -1 ? text.slice(text.length - n) : text.slice(space + 1);
}

/** Text in pieces of at most n characters, cut at spaces where there are any. */
function cutAtWords(text: string, n: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > n) {
    const space = rest.lastIndexOf(' ', n);
    const cut = space > n / 2 ? space : n;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}
